"""test-vectors/dcnet-xor-{ristretto255,p256}.json against spec/ciphersuites.md, "XOR suite".

Checks the reveal side, which needs no secret: XOR of every accepted client ciphertext and
every server ciphertext, the frame (u32be length, message, zero padding, signature), the frame
signature under the slot's pseudonym key, and the rejection of tampered, replayed, truncated
and forged ciphertexts with the named error.
"""

import check_nizk
from check_hg import expect_rejected, message_matches
import p256
import ristretto255

# The group of the file being checked (set by run from its "suite").
G = ristretto255
GROUPS = {"dcnet/verdict/xor/ristretto255/v2": ristretto255, "dcnet/verdict/xor/p256/v2": p256}
FRAME_SIGNATURE_DOMAIN = b"verdict-dcnet/xor/frame-signature/v1"
HEADER_LEN = 4


def suite_id():
    return b"verdict/xor/" + G.NAME + b"/v2"


def signature_len():
    return G.ENCODED_LEN + G.SCALAR_LEN


class RevealError(Exception):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


def slot_round(slot, round_, length):
    return slot.to_bytes(4, "little") + round_.to_bytes(8, "little") + length.to_bytes(8, "little")


def signed_message(session, slot, round_, length, body):
    sid = suite_id()
    return (len(sid).to_bytes(8, "little") + sid + session
            + slot_round(slot, round_, length) + body)


def reveal(session, pseudonym, slot, round_, length, ciphertexts):
    """Returns (frame, message or None, signed message or None); raises RevealError."""
    n = HEADER_LEN + length + signature_len()
    out = bytearray(n)
    for ct in ciphertexts:
        if len(ct) != n:
            raise RevealError("WireLength")
        for i, b in enumerate(ct):
            out[i] ^= b
    out = bytes(out)
    if not any(out):
        return out, None, None
    msg_len = int.from_bytes(out[:HEADER_LEN], "big")
    if msg_len > length:
        raise RevealError("CorruptReveal")
    body_end = HEADER_LEN + msg_len
    if any(out[body_end:HEADER_LEN + length]):
        raise RevealError("CorruptReveal")
    signed = signed_message(session, slot, round_, length, out[:body_end])
    try:
        ok = check_nizk.verify_signature(FRAME_SIGNATURE_DOMAIN, signed, pseudonym,
                                         out[HEADER_LEN + length:])
    except (check_nizk.Reject, G.DecodeError):
        ok = False
    if not ok:
        raise RevealError("CorruptReveal")
    return out, out[HEADER_LEN:body_end], signed


def run(doc, report):
    global G
    G = GROUPS[doc["suite"]]
    check_nizk.use_group(G)
    cases = {c["id"]: c for g in doc["test_groups"] for c in g["cases"]}
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inp = case["inputs"]
            if "pseudonyms" in inp:
                # The session: every public key decodes as a non-identity element.
                keys = inp["servers"] + inp["clients"] + inp["pseudonyms"]
                try:
                    ok = all(not G.decode(bytes.fromhex(k)).is_identity() for k in keys)
                except G.DecodeError:
                    ok = False
                report.expect(case, ok and len(bytes.fromhex(inp["id"])) == 32, "session keys")
                continue
            if "client_ciphertexts" in inp:
                session_case = cases[inp["session_case"]]["inputs"]
                cts = [bytes.fromhex(c) for c in inp["client_ciphertexts"] + inp["server_ciphertexts"]]
            elif "round_case" in inp:
                base = cases[inp["round_case"]]["inputs"]
                session_case = cases[base["session_case"]]["inputs"]
                target = inp["target"]
                clients = [bytes.fromhex(c) for c in base["client_ciphertexts"]]
                servers = [bytes.fromhex(c) for c in base["server_ciphertexts"]]
                if "client" in target:
                    clients[base["accepted"].index(target["client"])] = bytes.fromhex(target["ciphertext"])
                elif "server" in target:
                    servers[target["server"]] = bytes.fromhex(target["ciphertext"])
                cts = clients + servers
            else:
                report.skip(case, "unknown case shape")
                continue
            session = bytes.fromhex(session_case["id"])
            pseudonym = bytes.fromhex(session_case["pseudonyms"][inp["slot"]])
            try:
                frame, message, signed = reveal(session, pseudonym, inp["slot"], inp["round"],
                                                inp["len"], cts)
            except RevealError as e:
                expect_rejected(report, case, e.name)
                continue
            if case["result"] == "invalid":
                report.expect(case, False, "accepted")
                continue
            mids = case.get("intermediates", {})
            ok = message_matches(case, message)
            ok = ok and mids.get("revealed_frame", frame.hex()) == frame.hex()
            if signed is not None and "signed_message" in mids:
                ok = ok and mids["signed_message"] == signed.hex()
            report.expect(case, ok, f"message {message!r}")
