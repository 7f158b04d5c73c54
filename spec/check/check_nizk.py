"""test-vectors/nizk-ristretto255.json against spec/proofs.md.

A proof is accepted only if it decodes with exactly the statement's shape (every point a valid
encoding, every scalar canonical, no trailing bytes) and every check equation holds.
"""

import p256
import ristretto255
from transcript import Transcript, context_transcript

# The group every function below works in; set with use_group (ristretto255 by default).
G = ristretto255
GROUPS = {"nizk/ristretto255": ristretto255, "nizk/p256": p256}


def use_group(module):
    global G
    G = module

REGISTRATION_LABEL = b"verdict-nizk key registration v1"
SIGNATURE_PROTOCOL = b"verdict-nizk schnorr signature v1"


class Reject(Exception):
    pass


def pt(h):
    return G.decode(bytes.fromhex(h))


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def raw(self, n):
        if self.pos + n > len(self.data):
            raise Reject("short")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def point(self):
        b = self.raw(G.ENCODED_LEN)
        return G.decode(b), b

    def scalar(self):
        return G.scalar_decode(self.raw(G.SCALAR_LEN))

    def finish(self):
        if self.pos != len(self.data):
            raise Reject("trailing bytes")


# A bound statement: its equations [(image, [(witness index, base)])] per group, and the
# number of witnesses. VectorDleq's folded equation has combinations as image and base.

def bind_schnorr(t, st):
    base, public = bytes.fromhex(st["base"]), bytes.fromhex(st["public"])
    t.append(b"statement", b"schnorr")
    t.append(b"group", G.NAME)
    t.append(b"base+public", base + public)
    return 1, [(G.decode(public), [(0, G.decode(base))])], []


def bind_dleq(t, st):
    g, x, h, y = (bytes.fromhex(st[k]) for k in ("g", "x", "h", "y"))
    t.append(b"statement", b"dleq")
    t.append(b"groups", G.NAME + b"/" + G.NAME)
    t.append(b"g+x", g + x)
    t.append(b"h+y", h + y)
    return 1, [(G.decode(x), [(0, G.decode(g))])], [(G.decode(y), [(0, G.decode(h))])]


def combo(weights, points):
    acc = G.IDENTITY
    for w, p in zip(weights, points):
        acc = acc + p * w
    return acc


def bind_vector_dleq(t, st):
    g, x = bytes.fromhex(st["g"]), bytes.fromhex(st["x"])
    hs = [bytes.fromhex(v) for v in st["h"]]
    cs = [bytes.fromhex(v) for v in st["c"]]
    if not hs or len(hs) != len(cs):
        raise Reject("statement shape")
    t.append(b"statement", b"vector-dleq-w128")
    t.append(b"groups", G.NAME + b"/" + G.NAME)
    t.append(b"g+x", g + x)
    t.append_u64(b"len", len(hs))
    t.append(b"bases", b"".join(hs))
    t.append(b"images", b"".join(cs))
    w = t.challenge_weights(b"fold-weights", len(hs))
    h_fold = combo(w, [G.decode(v) for v in hs])
    c_fold = combo(w, [G.decode(v) for v in cs])
    return 1, [(G.decode(x), [(0, G.decode(g))])], [(c_fold, [(0, h_fold)])]


def bind_linear(t, st):
    """A linear relation: st = {"witnesses": m, "g": [(image, [(k, base)])], "h": [...]}, bytes."""
    m = st["witnesses"]
    t.append(b"statement", b"linear-relation")
    t.append(b"groups", G.NAME + b"/" + G.NAME)
    t.append_u64(b"witnesses", m)
    out = []
    for eqs in (st["g"], st["h"]):
        t.append_u64(b"equations", len(eqs))
        bound = []
        for image, terms in eqs:
            if not terms or any(k >= m for k, _ in terms):
                raise Reject("relation shape")
            t.append(b"witness-indices", b"".join(k.to_bytes(8, "little") for k, _ in terms))
            t.append(b"image+bases", image + b"".join(b for _, b in terms))
            bound.append((G.decode(image), [(k, G.decode(b)) for k, b in terms]))
        out.append(bound)
    return m, out[0], out[1]


BINDERS = {"schnorr": bind_schnorr, "dleq": bind_dleq, "vector-dleq": bind_vector_dleq}


def bind(t, st):
    if "witnesses" in st:
        return bind_linear(t, st)
    if "base" in st:
        return bind_schnorr(t, st)
    if "y" in st:
        return bind_dleq(t, st)
    return bind_vector_dleq(t, st)


def read_proof(r, form):
    n, eqs_g, eqs_h = form
    ag = [r.point() for _ in eqs_g]
    ah = [r.point() for _ in eqs_h]
    z = [r.scalar() for _ in range(n)]
    return ag, ah, z


def absorb(t, proof):
    ag, ah, _ = proof
    t.append(b"commitments-g", b"".join(b for _, b in ag))
    t.append(b"commitments-h", b"".join(b for _, b in ah))


def holds(form, proof, c):
    """A_i - sum_j z_k(i,j) B_ij + c P_i == identity, for every equation of both groups."""
    _, eqs_g, eqs_h = form
    ag, ah, z = proof
    for eqs, commitments in ((eqs_g, ag), (eqs_h, ah)):
        for (image, terms), (a, _) in zip(eqs, commitments):
            acc = a + image * c
            for k, base in terms:
                acc = acc - base * z[k]
            if not acc.is_identity():
                return False
    return True


def verify_relation(t, st, proof_bytes):
    form = bind(t, st)
    r = Reader(proof_bytes)
    proof = read_proof(r, form)
    r.finish()
    absorb(t, proof)
    c = t.challenge_scalar(b"challenge", G)
    return holds(form, proof, c)


def verify_or(t, branches, proof_bytes):
    t.append(b"statement", b"or")
    t.append_u64(b"branches", len(branches))
    forms = [bind(t, st) for st in branches]
    r = Reader(proof_bytes)
    challenges = [r.scalar() for _ in range(len(forms) - 1)]
    proofs = [read_proof(r, f) for f in forms]
    r.finish()
    for p in proofs:
        absorb(t, p)
    c = t.challenge_scalar(b"challenge", G)
    challenges.append((c - sum(challenges)) % G.L)
    return all(holds(f, p, cb) for f, p, cb in zip(forms, proofs, challenges))


def context_of(ctx):
    return context_transcript(
        bytes.fromhex(ctx["purpose"]), bytes.fromhex(ctx["session"]),
        ctx.get("round"), ctx.get("slot"), ctx.get("sender"),
        [(bytes.fromhex(l), bytes.fromhex(v)) for l, v in ctx.get("fields", [])])


def verify_proof_case(inputs):
    t = context_of(inputs["context"])
    kind, st = inputs["kind"], inputs["statement"]
    proof = bytes.fromhex(inputs["proof"])
    if kind in BINDERS:
        return verify_relation(t, st, proof)
    if kind.startswith("or-"):
        return verify_or(t, [st["left"], st["right"]], proof)
    if kind == "key-registration":
        t.append(b"key-registration", REGISTRATION_LABEL)
        public = bytes.fromhex(st["public"])
        if G.decode(public).is_identity():
            raise Reject("identity key")
        return verify_relation(t, {"base": G.GENERATOR.encode().hex(), "public": st["public"]},
                               proof)
    raise KeyError(kind)


def verify_signature(domain, message, public_bytes, sig_bytes):
    """spec/proofs.md, "Signatures"."""
    y = G.decode(public_bytes)
    if y.is_identity():
        raise Reject("identity key")
    r = Reader(sig_bytes)
    big_r, r_bytes = r.point()
    if big_r.is_identity():
        raise Reject("identity nonce commitment")
    s = r.scalar()
    r.finish()
    t = Transcript(SIGNATURE_PROTOCOL)
    t.append(b"domain", domain)
    t.append(b"group", G.NAME)
    t.append(b"public-key", public_bytes)
    t.append(b"message", message)
    t.append(b"nonce-commitment", r_bytes)
    c = t.challenge_scalar(b"challenge", G)
    return G.GENERATOR * s - y * c == big_r


def run(doc, report):
    use_group(GROUPS[doc["suite"]])
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inputs = case["inputs"]
            try:
                if "kind" in inputs:
                    if inputs["kind"] not in BINDERS and not inputs["kind"].startswith("or-") \
                            and inputs["kind"] != "key-registration":
                        report.skip(case, f"unknown kind {inputs['kind']}")
                        continue
                    ok = verify_proof_case(inputs)
                elif "signature" in inputs:
                    ok = verify_signature(bytes.fromhex(inputs["domain"]),
                                          bytes.fromhex(inputs["message"]),
                                          bytes.fromhex(inputs["public"]),
                                          bytes.fromhex(inputs["signature"]))
                else:
                    report.skip(case, "unknown case shape")
                    continue
            except (Reject, G.DecodeError):
                ok = False
            report.expect(case, ok == (case["result"] == "valid"),
                          "accepted" if ok else "rejected")
