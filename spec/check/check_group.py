"""test-vectors/group-ristretto255.json against spec/groups.md (ristretto255 sections)."""

import blake3
import p256
import ristretto255

G = ristretto255
GROUPS = {"group/ristretto255": ristretto255, "group/p256": p256}

HASH_CONTEXT = "verdict-group v1 domain-separated hash"
CAPACITY = 30
EMBED_COUNTERS = 512


def uniform_bytes(dst, msg):
    h = blake3.derive_key_hasher(HASH_CONTEXT)
    h.update(len(dst).to_bytes(8, "little") + dst + len(msg).to_bytes(8, "little") + msg)
    return h.xof(64)


class XofReader:
    """Successive bytes of an XOF (for try-and-increment)."""

    def __init__(self, hasher):
        self.h, self.pos = hasher, 0

    def __call__(self, n):
        out = self.h.xof(n, seek=self.pos)
        self.pos += n
        return out


def xof_hasher(dst, msg):
    h = blake3.derive_key_hasher(HASH_CONTEXT)
    h.update(len(dst).to_bytes(8, "little") + dst + len(msg).to_bytes(8, "little") + msg)
    return h


def hash_to_group(grp, dst, msg):
    if grp is p256:
        return p256.hash_to_group_from(XofReader(xof_hasher(dst, msg)))
    return grp.from_uniform_bytes(uniform_bytes(dst, msg))


def embed(payload):
    if G is p256:
        return embed_p256(payload)
    return embed_ristretto(payload)


def extract(enc):
    if G is p256:
        return extract_p256(enc)
    return extract_ristretto(enc)


def p256_candidate(payload, counter):
    return bytes([len(payload)]) + payload.ljust(30, b"\0") + bytes([counter])


def embed_p256(payload):
    if len(payload) > CAPACITY:
        raise ValueError("PayloadTooLong")
    for counter in range(256):
        x = int.from_bytes(p256_candidate(payload, counter), "big")
        y = p256.sqrt(p256.rhs(x))
        if y is not None:
            if y & 1:
                y = p256.P - y
            return p256.from_affine(x, y).encode()
    raise ValueError("CounterExhausted")


def extract_p256(enc):
    p = p256.decode(enc)
    if p.is_identity():
        raise ValueError("Identity")
    x_bytes = enc[1:]
    n = x_bytes[0]
    if enc[0] != 2 or n > CAPACITY or any(x_bytes[1 + n:31]):
        raise ValueError("NotAnEmbedding")
    payload = x_bytes[1:1 + n]
    # Only the first counter that works for the payload is an embedding.
    for counter in range(x_bytes[31]):
        if p256.sqrt(p256.rhs(int.from_bytes(p256_candidate(payload, counter), "big"))):
            raise ValueError("NotAnEmbedding")
    return payload


def embed_ristretto(payload):
    if len(payload) > CAPACITY:
        raise ValueError("PayloadTooLong")
    c = bytearray(32)
    c[1:1 + len(payload)] = payload
    for counter in range(EMBED_COUNTERS):
        c[0] = (counter & 0x7F) << 1
        c[31] = len(payload) | ((counter >> 7) << 5)
        try:
            p = G.decode(bytes(c))
        except G.DecodeError:
            continue
        if not p.is_identity():
            return bytes(c)
    raise ValueError("CounterExhausted")


def extract_ristretto(enc):
    p = G.decode(enc)
    if p.is_identity():
        raise ValueError("Identity")
    n = enc[31] & 0x1F
    if n > CAPACITY or enc[31] & 0x80 or any(enc[1 + n:31]):
        raise ValueError("NotAnEmbedding")
    return enc[1:1 + n]


def encode_message(message, elements):
    frame = len(message).to_bytes(4, "big") + message
    if len(frame) > elements * CAPACITY:
        raise ValueError("TooLong")
    frame = frame.ljust(elements * CAPACITY, b"\0")
    return [embed(frame[i:i + CAPACITY]) for i in range(0, len(frame), CAPACITY)]


def decode_message(encodings):
    points = [G.decode(e) for e in encodings]
    if all(p.is_identity() for p in points):
        raise ValueError("Empty")
    frame = b""
    for e in encodings:
        chunk = extract(e)
        if len(chunk) != CAPACITY:
            raise ValueError("Malformed")
        frame += chunk
    n = int.from_bytes(frame[:4], "big")
    body = frame[4:]
    if n > len(body) or any(body[n:]):
        raise ValueError("Malformed")
    return body[:n]


def one(case):
    """Returns (accepted, output or error name)."""
    i, name = case["inputs"], case["_group"]
    try:
        if name == "generator-multiples":
            return True, (G.GENERATOR * G.scalar_decode(bytes.fromhex(i["scalar"]))).encode().hex()
        if name == "scalar-decoding":
            G.scalar_decode(bytes.fromhex(i["scalar"]))
            return True, None
        if name == "element-decoding":
            b = bytes.fromhex(i["encoding"])
            p = G.decode(b)
            if "nonidentity" in case["flags"] and p.is_identity():
                return False, "Identity"
            return p.encode() == b, None
        if name == "hash-to-scalar":
            u = uniform_bytes(bytes.fromhex(i["dst"]), bytes.fromhex(i["msg"]))
            want_u = case["intermediates"].get("uniform_bytes")
            if want_u is not None and want_u != u.hex():
                return True, "uniform bytes differ"
            return True, G.scalar_encode(G.scalar_from_uniform(u)).hex()
        if name == "hash-to-group":
            return True, hash_to_group(G, bytes.fromhex(i["dst"]), bytes.fromhex(i["msg"])).encode().hex()
        if name == "embed":
            return True, embed(bytes.fromhex(i["payload"])).hex()
        if name == "extract":
            return True, extract(bytes.fromhex(i["element"])).hex()
        if name == "framing":
            if "framed" in i:
                return True, decode_message([bytes.fromhex(e) for e in i["framed"]]).hex()
            return True, [e.hex() for e in encode_message(bytes.fromhex(i["message"]),
                                                          i["elements"])]
    except (ristretto255.DecodeError, p256.DecodeError) as e:
        return False, str(e)
    except ValueError as e:
        return False, str(e)
    raise KeyError(name)


EXPECTED_KEY = {
    "generator-multiples": "element", "hash-to-scalar": "scalar", "hash-to-group": "element",
    "embed": "element", "framing": "framed",
}


def use_group(module):
    global G
    G = module


def run(doc, report):
    use_group(GROUPS[doc["suite"]])
    for group in doc["test_groups"]:
        for case in group["cases"]:
            case["_group"] = group["name"]
            try:
                accepted, out = one(case)
            except KeyError:
                report.skip(case, f"unknown group {group['name']}")
                continue
            if case["result"] == "invalid":
                report.expect(case, not accepted and out == case["expected"].get("error", out),
                              f"accepted={accepted} {out}")
                continue
            key = EXPECTED_KEY.get(group["name"])
            if group["name"] == "framing" and "framed" in case["inputs"]:
                key = "message"
            want = case["expected"].get(key) if key else None
            report.expect(case, accepted and out == want, f"got {out}")
