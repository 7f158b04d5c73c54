"""test-vectors/protocol-session-*.json against spec/protocol.md §2–6.

Checks what needs no state machine: the group file decodes; every member's keys derive from
its seed; every key-registration proof verifies; the session id; every envelope of the trace
opens (header, digest, sender, session, signature under the sender's signing key) with the
kind and round the trace says (a RoundOutput's header round is its result's round); and each
tampered envelope is rejected by opening it with the named error. Tampered cases whose error comes from the state machines (`Unexpected`,
`Duplicate`) are skipped after checking that opening accepts them.
"""

import blake3
import check_nizk
import ristretto255 as G
from transcript import context_transcript

ENVELOPE_DOMAIN = b"verdict-proto/envelope/v1"
USES = [b"signing", b"dcnet", b"xor", b"shuffle"]
KINDS = {1: "ClientSetup", 2: "SetupInventory", 3: "ShuffleStep", 4: "Decryption",
         5: "SetupTranscript", 6: "Dispute", 10: "Submission", 11: "Inventory", 12: "Commit",
         13: "ServerCiphertexts", 14: "OutputSignature", 15: "RoundOutput", 16: "Echo",
         17: "CatchUp",
         20: "BlameBits", 21: "RebuttalRequest", 22: "Rebuttal", 23: "Verdict", 30: "Alert"}


class Error(Exception):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def raw(self, n):
        if self.p + n > len(self.d):
            raise Error("Malformed/Truncated")
        out = self.d[self.p:self.p + n]
        self.p += n
        return out

    def u8(self):
        return self.raw(1)[0]

    def u32(self):
        return int.from_bytes(self.raw(4), "little")

    def u64(self):
        return int.from_bytes(self.raw(8), "little")

    def bytes(self):
        n = self.u32()
        if n > len(self.d) - self.p:
            raise Error("Malformed/Truncated")
        return self.raw(n)

    def finish(self):
        if self.p != len(self.d):
            raise Error("Malformed/TrailingBytes")


def party_key(p):
    return ("server", p["server"]) if "server" in p else ("client", p["client"])


def read_party(r):
    role = r.u8()
    if role not in (0, 1):
        raise Error("Malformed/Invalid")
    return ("client" if role == 0 else "server", r.u32())


def parse_group(data):
    r = Reader(data)
    if r.raw(13) != b"verdict-group" or r.u8() != 1:
        raise Error("group magic")
    suite = r.bytes()
    policy = r.bytes()
    nonce = r.raw(32)

    def member():
        keys = []
        for _ in USES:
            flag = r.u8()
            if flag == 0:
                keys.append(None)
            elif flag == 1:
                keys.append((r.bytes(), r.bytes()))
            else:
                raise Error("member flag")
        return keys
    servers = [member() for _ in range(r.u32())]
    n = r.u32()
    clients, upstream = [], []
    for _ in range(n):
        clients.append(member())
        upstream.append(r.u32())
    r.finish()
    return dict(suite=suite, policy=policy, nonce=nonce, servers=servers, clients=clients,
                upstream=upstream)


def session_id(cfg):
    def keys(m):
        out = b""
        for k in m:
            out += b"\0" if k is None else b"\1" + len(k[0]).to_bytes(4, "little") + k[0]
        return out
    w = len(cfg["suite"]).to_bytes(4, "little") + cfg["suite"]
    w += len(cfg["policy"]).to_bytes(4, "little") + cfg["policy"] + cfg["nonce"]
    w += len(cfg["servers"]).to_bytes(4, "little") + b"".join(keys(m) for m in cfg["servers"])
    w += len(cfg["clients"]).to_bytes(4, "little")
    for m, up in zip(cfg["clients"], cfg["upstream"]):
        w += keys(m) + up.to_bytes(4, "little")
    return blake3.derive_key("verdict-proto session id v2", w)


def derive_public(seed, label):
    h = blake3.derive_key_hasher("verdict-proto long-term key derivation v1").update(seed + label)
    return (G.GENERATOR * G.scalar_from_uniform(h.xof(64))).encode()


def registration_ok(key, proof, role, index, use, nonce):
    t = context_transcript(b"verdict-proto/registration/v2", nonce, None, None, index,
                           [(b"role", role), (b"use", use)])
    t.append(b"key-registration", b"verdict-nizk key registration v1")
    try:
        if G.decode(key).is_identity():
            return False
        return check_nizk.verify_relation(
            t, {"base": G.GENERATOR.encode().hex(), "public": key.hex()}, proof)
    except (check_nizk.Reject, G.DecodeError):
        return False


def open_envelope(data, session, frm, signing_keys):
    """spec/protocol.md §5: decode, then sender, session and signature; returns the header."""
    r = Reader(data)
    header = r.raw(78) if len(data) >= 78 else r.raw(78)
    hr = Reader(header)
    kind = hr.u8()
    if kind not in KINDS:
        raise Error("Malformed/Invalid")
    sender = read_party(hr)
    sess, round_, digest = hr.raw(32), hr.u64(), hr.raw(32)
    sig = r.raw(G.ENCODED_LEN + G.SCALAR_LEN)
    try:
        big_r = G.decode(sig[:G.ENCODED_LEN])
        G.scalar_decode(sig[G.ENCODED_LEN:])
        if big_r.is_identity():
            raise G.DecodeError("Identity")
    except G.DecodeError:
        raise Error("Malformed/Invalid")
    payload = r.bytes()
    r.finish()
    if blake3.plain_hasher().update(payload).xof(32) != digest:
        raise Error("Malformed/Invalid")
    if sender != frm:
        raise Error("WrongSender")
    if sess != session:
        raise Error("WrongSession")
    key = signing_keys.get(sender)
    try:
        ok = key is not None and check_nizk.verify_signature(ENVELOPE_DOMAIN, header, key, sig)
    except (check_nizk.Reject, G.DecodeError):
        ok = False
    if not ok:
        raise Error("Malformed/BadSignature")
    if KINDS[kind] == "RoundOutput":
        # §7.2: the header's round is the round of the RoundResult it carries.
        out = Reader(payload)
        result = out.bytes()
        if len(result) < 8 or int.from_bytes(result[:8], "little") != round_:
            raise Error("Malformed/Invalid")
    return KINDS[kind], round_


def run(doc, report):
    check_nizk.use_group(G)
    sessions = {}
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inp = case["inputs"]
            if "group_config" in inp:
                cfg = parse_group(bytes.fromhex(inp["group_config"]))
                problems = []
                if cfg["suite"] != inp["suite"].encode():
                    problems.append("suite")
                sid = session_id(cfg)
                if sid.hex() != inp["session_id"]:
                    problems.append("session id")
                signing = {}
                for m in inp["members"]:
                    role, idx = party_key(m["party"])
                    keys = (cfg["servers"] if role == "server" else cfg["clients"])[idx]
                    seed = bytes.fromhex(m["key_seed"])
                    for use, k in zip(USES, keys):
                        if k is None:
                            continue
                        if derive_public(seed, use) != k[0]:
                            problems.append(f"{role} {idx} {use.decode()} key derivation")
                        if not registration_ok(k[0], k[1], role.encode(), idx, use, cfg["nonce"]):
                            problems.append(f"{role} {idx} {use.decode()} registration")
                    signing[(role, idx)] = keys[0][0]
                trace = inp["trace"]
                for step in trace:
                    try:
                        kind, round_ = open_envelope(bytes.fromhex(step["envelope"]), sid,
                                                     party_key(step["from"]), signing)
                        if kind != step["kind"] or round_ != step["round"]:
                            problems.append(f"step {step['step']}: kind/round")
                    except Error as e:
                        problems.append(f"step {step['step']}: {e.name}")
                sessions[case["id"]] = (sid, signing)
                report.expect(case, not problems, "; ".join(problems))
                continue
            if "envelope" in inp and "session_case" in inp:
                sid, signing = sessions[inp["session_case"]]
                want = case["expected"].get("error")
                try:
                    open_envelope(bytes.fromhex(inp["envelope"]), sid, party_key(inp["from"]),
                                  signing)
                except Error as e:
                    report.expect(case, e.name == want, f"rejected: {e.name}")
                    continue
                if want in ("Unexpected", "Duplicate"):
                    report.skip(case, f"{want}: a state-machine rejection (opening accepts it)")
                else:
                    report.expect(case, False, "accepted")
                continue
            report.skip(case, "unknown case shape")
