"""test-vectors/dcnet-hashing-generator-{ristretto255,p256}.json against spec/ciphersuites.md §3.

Checks the set-up commitments (both copies of every K_ij agree), the generators, every client
ciphertext's OR proof and every server ciphertext's vector-DLEQ proof (singly), the reveal and
its framing, and the rejection of each tampered, replayed and re-labelled case with its named
error (WireLength: wrong length; WireField: an element or scalar that does not decode;
InvalidClientProof / InvalidServerProof: a proof that does not verify).
"""

import blake3
import check_group
import check_nizk
import p256
import ristretto255
from transcript import context_transcript

GROUPS = {
    "dcnet/verdict/hashing-generator/ristretto255/v2": ristretto255,
    "dcnet/verdict/hashing-generator/p256/v2": p256,
}
# The group and suite id in use, set by run().
G = ristretto255
SUITE_ID = b"verdict/hashing-generator/ristretto255/v2"
CLIENT_PURPOSE = b"verdict/dcnet/hashing-generator/client"
SERVER_PURPOSE = b"verdict/dcnet/hashing-generator/server"
GENERATOR_DST = b"verdict-dcnet/hashing-generator/v1/generator"


class Fail(Exception):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


def u32(n):
    return n.to_bytes(4, "little")


def u64(n):
    return n.to_bytes(8, "little")


def elements_needed(length):
    return -(-(length + 4) // check_group.CAPACITY)


def generators(session, slot, round_, length):
    prefix = u64(len(SUITE_ID)) + SUITE_ID + session + u32(slot) + u64(round_) + u64(length)
    out = []
    for k in range(elements_needed(length)):
        h = check_group.hash_to_group(G, GENERATOR_DST, prefix + u64(k))
        out.append(h + h)
    return out


def accepted_set_digest(ids):
    ids = sorted(ids)
    return blake3.derive_key("verdict-dcnet accepted set v1",
                             u64(len(ids)) + b"".join(u32(i) for i in ids))


def context(purpose, session, slot, round_, length, sender, extra=()):
    fields = [(b"suite", SUITE_ID), (b"slot-len", u64(length))] + list(extra)
    return context_transcript(purpose, session, round_, slot, sender, fields)


def split(ct, n_elements, proof_len, fail_len, grp=None):
    grp = grp or G
    E = grp.ENCODED_LEN
    if len(ct) != n_elements * E + proof_len:
        raise Fail(fail_len)
    els = []
    for k in range(n_elements):
        try:
            els.append(grp.decode(ct[k * E:(k + 1) * E]))
        except grp.DecodeError:
            raise Fail("WireField")
    return els, ct[n_elements * E:]


def verify_client(session, U, pseudonym, slot, round_, length, client, ct, gens):
    # OR proof: one challenge, VectorDleq (A_U, A_C, z), Schnorr (A_Y, z_y).
    els, proof = split(ct, len(gens), 3 * G.ENCODED_LEN + 3 * G.SCALAR_LEN, "WireLength")
    t = context(CLIENT_PURPOSE, session, slot, round_, length, client)
    left = {"g": G.GENERATOR.encode().hex(), "x": U.encode().hex(),
            "h": [g.encode().hex() for g in gens], "c": [e.encode().hex() for e in els]}
    right = {"base": G.GENERATOR.encode().hex(), "public": pseudonym.hex()}
    try:
        ok = check_nizk.verify_or(t, [left, right], proof)
    except (check_nizk.Reject, G.DecodeError):
        raise Fail("WireField")
    if not ok:
        raise Fail("InvalidClientProof")
    return els


def verify_server(session, V, slot, round_, length, server, accepted, sct, gens):
    els, proof = split(sct, len(gens), 2 * G.ENCODED_LEN + G.SCALAR_LEN, "WireLength")
    t = context(SERVER_PURPOSE, session, slot, round_, length, server,
                [(b"accepted-set", accepted_set_digest(accepted))])
    st = {"g": G.GENERATOR.encode().hex(), "x": V.encode().hex(),
          "h": [(-g).encode().hex() for g in gens], "c": [e.encode().hex() for e in els]}
    try:
        ok = check_nizk.verify_relation(t, st, proof)
    except (check_nizk.Reject, G.DecodeError):
        raise Fail("WireField")
    if not ok:
        raise Fail("InvalidServerProof")
    return els


class Session:
    def __init__(self, inp):
        E = G.ENCODED_LEN
        self.id = bytes.fromhex(inp["id"])
        self.pseudonyms = [bytes.fromhex(p) for p in inp["pseudonyms"]]
        m, n = len(inp["servers"]), len(inp["clients"])
        cs = [bytes.fromhex(c) for c in inp["client_setups"]]
        ss = [bytes.fromhex(s) for s in inp["server_setups"]]
        # K[i][j] from client i's message must equal the copy in server j's message.
        self.K = [[G.decode(cs[i][j * E:(j + 1) * E]) for j in range(m)] for i in range(n)]
        self.consistent = all(len(cs[i]) == m * E for i in range(n)) and all(
            len(ss[j]) == n * E and ss[j][i * E:(i + 1) * E] == cs[i][j * E:(j + 1) * E]
            for i in range(n) for j in range(m))
        self.U = []
        for i in range(n):
            acc = G.IDENTITY
            for j in range(m):
                acc = acc + self.K[i][j]
            self.U.append(acc)
        self.m = m

    def V(self, j, accepted):
        acc = G.IDENTITY
        for i in accepted:
            acc = acc + self.K[i][j]
        return acc


def round_reveal(sess, inp, clients, servers):
    """Verifies every ciphertext, then reveals. Returns the message or None; raises Fail."""
    slot, round_, length, accepted = inp["slot"], inp["round"], inp["len"], inp["accepted"]
    gens = generators(sess.id, slot, round_, length)
    pseudonym = sess.pseudonyms[slot]
    cels = [verify_client(sess.id, sess.U[c], pseudonym, slot, round_, length, c, ct, gens)
            for c, ct in zip(accepted, clients)]
    sels = [verify_server(sess.id, sess.V(j, accepted), slot, round_, length, j, accepted, sct,
                          gens) for j, sct in enumerate(servers)]
    total = []
    for k in range(len(gens)):
        acc = G.IDENTITY
        for e in cels + sels:
            acc = acc + e[k]
        total.append(acc.encode())
    try:
        return check_group.decode_message(total)
    except ValueError as e:
        if str(e) == "Empty":
            return None
        raise Fail("Frame")



def round_ciphertexts(inp, cases):
    """The round a case checks: (base inputs, client ciphertexts, server ciphertexts).

    A round case carries its ciphertexts; a negative case names its `round_case` and a target
    ciphertext, put in at its claimed client's or server's place (then checked with this case's
    accepted set, slot and round). None: a case of another shape.
    """
    if "client_ciphertexts" in inp:
        clients = [bytes.fromhex(c) for c in inp["client_ciphertexts"]]
        servers = [bytes.fromhex(s) for s in inp["server_ciphertexts"]]
        return inp, clients, servers
    if "round_case" not in inp:
        return None
    base = cases[inp["round_case"]]["inputs"]
    by_client = dict(zip(base["accepted"], (bytes.fromhex(c) for c in base["client_ciphertexts"])))
    servers = [bytes.fromhex(s) for s in base["server_ciphertexts"]]
    target = inp["target"]
    if "client" in target:
        by_client[target["client"]] = bytes.fromhex(target["ciphertext"])
    else:
        servers[target["server"]] = bytes.fromhex(target["ciphertext"])
    return base, [by_client[c] for c in inp["accepted"]], servers


def expect_rejected(report, case, name):
    """A reveal refused with error `name`: right only for an invalid case naming it."""
    report.expect(case, case["result"] == "invalid" and case["expected"].get("error") == name,
                  f"rejected: {name}")


def message_matches(case, message):
    """Whether a valid case revealed its expected message (None: an empty slot)."""
    return (message.hex() if message is not None else None) == case["expected"]["message"]


def check_round_case(report, case, cases, sessions, reveal):
    """One round case of a verifiable suite: `reveal(session, inputs, clients, servers)` must
    reveal the expected message, or raise `Fail` with the expected error."""
    inp = case["inputs"]
    shape = round_ciphertexts(inp, cases)
    if shape is None:
        report.skip(case, "unknown case shape")
        return
    base, clients, servers = shape
    try:
        message = reveal(sessions[base["session_case"]], inp, clients, servers)
    except Fail as e:
        expect_rejected(report, case, e.name)
        return
    if case["result"] == "invalid":
        report.expect(case, False, "accepted")
        return
    report.expect(case, message_matches(case, message), f"message {message!r}")

def run(doc, report):
    global G, SUITE_ID
    G = GROUPS[doc["suite"]]
    SUITE_ID = b"verdict/hashing-generator/" + G.NAME + b"/v2"
    check_nizk.use_group(G)
    check_group.use_group(G)
    cases = {c["id"]: c for g in doc["test_groups"] for c in g["cases"]}
    sessions = {}
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inp = case["inputs"]
            if "pseudonyms" in inp:
                sessions[case["id"]] = Session(inp)
                report.expect(case, sessions[case["id"]].consistent, "set-up commitments")
                continue
            check_round_case(report, case, cases, sessions, round_reveal)
