"""test-vectors/dcnet-elgamal-{ristretto255,p256}.json against spec/ciphersuites.md §4.

Checks every client ciphertext's OR proof over the two linear relations (cover: the
interleaved equations R_k = r_k·G, C_k = r_k·Z; owner: Y = y·G and R_k = r_k·G), every server
ciphertext's vector DLEQ against the raw accepted set, the reveal and its framing, and the
rejection of each tampered, replayed, re-labelled or wrong-length case with its named error.
Generation too: each complete round's client ciphertexts are re-encrypted from the recorded
entropy of their hedged encryption-randomness fork (§4, "Encryption randomness").
"""

import check_group
import check_hg
import check_nizk
import p256
import ristretto255
from check_hg import Fail, check_round_case, split, u64
from transcript import context_transcript

CLIENT_PURPOSE = b"verdict-dcnet/elgamal/v1/client"
SERVER_PURPOSE = b"verdict-dcnet/elgamal/v1/server"


# The group of the file being checked (set by run from its "suite").
G = ristretto255
GROUPS = {"dcnet/verdict/elgamal/ristretto255/v3": ristretto255,
          "dcnet/verdict/elgamal/p256/v3": p256}


def suite_id():
    return b"verdict/elgamal/" + G.NAME + b"/v3"


def slot_context(purpose, session, slot, round_, elements, sender, extra=()):
    fields = [(b"suite", suite_id()), (b"elements", u64(elements))] + list(extra)
    return context_transcript(purpose, session, round_, slot, sender, fields)


def raw_set(ids):
    return b"".join(i.to_bytes(4, "little") for i in sorted(ids))


def verify_client(session, z_joint, pseudonym, slot, round_, n, client, ct):
    e, sc = G.ENCODED_LEN, G.SCALAR_LEN
    proof_len = sc + (2 * n * e + n * sc) + ((n + 1) * e + (n + 1) * sc)
    if len(ct) != 2 * n * e + proof_len:
        raise Fail("WireLength")
    raw = [ct[k * e:(k + 1) * e] for k in range(2 * n)]
    try:
        points = [G.decode(b) for b in raw]
    except G.DecodeError:
        raise Fail("WireField")
    r, c = raw[:n], raw[n:]
    g, zj = G.GENERATOR.encode(), z_joint.encode()
    cover = {"witnesses": n, "h": [],
             "g": [eq for k in range(n) for eq in ((r[k], [(k, g)]), (c[k], [(k, zj)]))]}
    owner = {"witnesses": n + 1, "h": [],
             "g": [(pseudonym, [(0, g)])] + [(r[k], [(k + 1, g)]) for k in range(n)]}
    t = slot_context(CLIENT_PURPOSE, session, slot, round_, n, client)
    try:
        ok = check_nizk.verify_or(t, [cover, owner], ct[2 * n * e:])
    except (check_nizk.Reject, G.DecodeError):
        raise Fail("WireField")
    if not ok:
        raise Fail("InvalidClientProof")
    return points[:n], points[n:]


def verify_server(session, key, slot, round_, n, server, accepted, p_sum, sct):
    els, proof = split(sct, n, 2 * G.ENCODED_LEN + G.SCALAR_LEN, "WireLength", G)
    t = slot_context(SERVER_PURPOSE, session, slot, round_, n, server,
                     [(b"accepted-set", raw_set(accepted))])
    st = {"g": G.GENERATOR.encode().hex(), "x": key.hex(),
          "h": [(-p).encode().hex() for p in p_sum], "c": [x.encode().hex() for x in els]}
    try:
        ok = check_nizk.verify_relation(t, st, proof)
    except (check_nizk.Reject, G.DecodeError):
        raise Fail("WireField")
    if not ok:
        raise Fail("InvalidServerProof")
    return els


def round_reveal(sess, inp, clients, servers):
    slot, round_, accepted = inp["slot"], inp["round"], inp["accepted"]
    n = check_hg.elements_needed(inp["len"])
    z_joint = G.IDENTITY
    for k in sess["servers"]:
        z_joint = z_joint + G.decode(k)
    pseudonym = sess["pseudonyms"][slot]
    rcs = [verify_client(sess["id"], z_joint, pseudonym, slot, round_, n, i, ct)
           for i, ct in zip(accepted, clients)]
    p_sum = []
    for k in range(n):
        acc = G.IDENTITY
        for r, _ in rcs:
            acc = acc + r[k]
        p_sum.append(acc)
    ds = [verify_server(sess["id"], key, slot, round_, n, j, accepted, p_sum, sct)
          for j, (key, sct) in enumerate(zip(sess["servers"], servers))]
    total = []
    for k in range(n):
        acc = G.IDENTITY
        for _, c in rcs:
            acc = acc + c[k]
        for d in ds:
            acc = acc + d[k]
        total.append(acc.encode())
    try:
        return check_group.decode_message(total)
    except ValueError as e:
        if str(e) == "Empty":
            return None
        raise Fail("Frame")


def reencrypts(sess, inp, client, ct, events, message):
    """Whether `ct`'s R_k, C_k are what the spec's hedged draw gives from the first recorded
    fork's entropy: r_1..r_L from a fork of the slot's client transcript with witness enc(y)
    (owner) or nothing (cover); R_k = r_k·G, C_k = r_k·Z (+ M_k, the message's embedding)."""
    forks = [e for e in events if e["event"] == "prover-rng"]
    if not forks:
        return False
    entropy = bytes.fromhex(forks[0]["entropy"])
    slot, round_ = inp["slot"], inp["round"]
    n = check_hg.elements_needed(inp["len"])
    z_joint = G.IDENTITY
    for k in sess["servers"]:
        z_joint = z_joint + G.decode(k)
    e = G.ENCODED_LEN
    y = sess["pseudonym_secrets"][slot]
    tries = [(b"", None)]
    if message is not None:
        tries.append((G.scalar_encode(y), [G.decode(m) for m in
                                           check_group.encode_message(message, n)]))
    for witness, m in tries:
        t = slot_context(CLIENT_PURPOSE, sess["id"], slot, round_, n, client)
        rng = t.prover_rng(b"encryption-witness", witness, entropy)
        rs = [rng.scalar(G) for _ in range(n)]
        r_enc = b"".join((G.GENERATOR * r).encode() for r in rs)
        cs = [z_joint * r for r in rs]
        if m is not None:
            cs = [c + mk for c, mk in zip(cs, m)]
        if r_enc + b"".join(c.encode() for c in cs) == ct[:2 * n * e]:
            return True
    return False


def run(doc, report):
    global G
    G = GROUPS[doc["suite"]]
    check_nizk.use_group(G)
    check_group.use_group(G)
    cases = {c["id"]: c for g in doc["test_groups"] for c in g["cases"]}
    sessions = {}
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inp = case["inputs"]
            if "pseudonyms" in inp:
                try:
                    keys = [G.decode(bytes.fromhex(k)) for k in inp["servers"] + inp["pseudonyms"]]
                    ok = not any(k.is_identity() for k in keys)
                except G.DecodeError:
                    ok = False
                ok = ok and all(s == "" for s in inp["client_setups"] + inp["server_setups"])
                sessions[case["id"]] = {
                    "id": bytes.fromhex(inp["id"]),
                    "servers": [bytes.fromhex(k) for k in inp["servers"]],
                    "pseudonyms": [bytes.fromhex(k) for k in inp["pseudonyms"]],
                    "pseudonym_secrets": [
                        G.scalar_decode(bytes.fromhex(k))
                        for k in case["intermediates"]["pseudonym_secret_keys"]],
                }
                report.expect(case, ok, "session keys, empty set-up messages")
                continue
            check_round_case(report, case, cases, sessions, round_reveal)
            events = case.get("intermediates", {}).get("client_transcript_events")
            if events is not None:
                message = case["expected"]["message"]
                message = bytes.fromhex(message) if message is not None else None
                ok = all(reencrypts(sessions[inp["session_case"]], inp, client,
                                    bytes.fromhex(ct), ev, message)
                         for client, ct, ev in zip(inp["accepted"], inp["client_ciphertexts"],
                                                   events))
                report.expect(case, ok, "client ciphertexts re-encrypted from the recorded entropy")
