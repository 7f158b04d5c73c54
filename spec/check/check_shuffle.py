"""test-vectors/shuffle-ristretto255.json against spec/shuffle.md §3–4.

Runs both verifiers of the Neff ElGamal-pair shuffle from the specification: the per-equation
one (§4.2) and the batched one (§4.3, one sum that must be the identity); a valid proof must
pass both, an invalid one must fail both.
"""

import ristretto255 as G
from transcript import context_transcript

PURPOSE = b"verdict-shuffle/elgamal-pair-shuffle"
E, S = G.ENCODED_LEN, G.SCALAR_LEN


class Reject(Exception):
    pass


def points(data, n):
    if len(data) != n * E:
        raise Reject("length")
    return [G.decode(data[k * E:(k + 1) * E]) for k in range(n)]


def scalars(data, n):
    return [G.scalar_decode(data[k * S:(k + 1) * S]) for k in range(n)]


def parse(proof, n):
    """spec/shuffle.md §2: the proof's fields and its first-move, D and Θ byte ranges."""
    if len(proof) != (7 * n + 3) * E + 3 * n * S:
        raise Reject("proof length")
    pos = 0

    def take(k):
        nonlocal pos
        out = proof[pos:pos + k]
        pos += k
        return out
    first = take((4 * n + 3) * E)
    fp = points(first, 4 * n + 3)
    gamma, a, c, u, w = fp[0], fp[1:1 + n], fp[1 + n:1 + 2 * n], fp[1 + 2 * n:1 + 3 * n], \
        fp[1 + 3 * n:1 + 4 * n]
    lam1, lam2 = fp[4 * n + 1], fp[4 * n + 2]
    if gamma.is_identity():
        raise Reject("identity gamma")
    d_enc = take(n * E)
    theta_enc = take(2 * n * E)
    sigma_enc = take(n * S)
    tau_enc = take(S)
    alpha_enc = take((2 * n - 1) * S)
    return dict(first=first, gamma=gamma, a=a, c=c, u=u, w=w, lam1=lam1, lam2=lam2,
                d_enc=d_enc, d=points(d_enc, n), theta_enc=theta_enc,
                theta=points(theta_enc, 2 * n), sigma_enc=sigma_enc, sigma=scalars(sigma_enc, n),
                tau_enc=tau_enc, tau=scalars(tau_enc, 1)[0], alpha_enc=alpha_enc,
                alpha=scalars(alpha_enc, 2 * n - 1))


def replay(session, prover, h_enc, inputs_enc, outputs_enc, n, pr):
    t = context_transcript(PURPOSE, session, None, None, prover,
                           [(b"version", (1).to_bytes(8, "little")), (b"group", G.NAME)])
    t.append_u64(b"n", n)
    t.append(b"g", G.GENERATOR.encode())
    t.append(b"h", h_enc)
    t.append(b"inputs", inputs_enc)
    t.append(b"outputs", outputs_enc)
    t.append(b"first-move", pr["first"])
    rho = t.challenge_scalars(b"rho", n, G)
    t.append(b"D", pr["d_enc"])
    lam = t.challenge_scalar(b"lambda", G)
    t.append(b"sigma", pr["sigma_enc"])
    t.append(b"tau", pr["tau_enc"])
    ts = t.challenge_scalar(b"ss.t", G)
    t.append(b"ss.Theta", pr["theta_enc"])
    c = t.challenge_scalar(b"ss.c", G)
    return t, rho, lam, ts, c


def msm(terms):
    acc = G.IDENTITY
    for s, p in terms:
        acc = acc + p * s
    return acc


def equations(g, h, xin, yin, xout, yout, n, pr, rho, lam, ts, c):
    """Every check equation of §4.2 as a list of (scalar, point) terms that must sum to O."""
    sig, alpha, tau = pr["sigma"], pr["alpha"], pr["tau"]
    eqs = []
    for i in range(n):                                            # (33)
        eqs.append([(sig[i], pr["gamma"]), (-1, pr["w"][i]), (-1, pr["d"][i])])
    for lam_pt, base, outs, ins in ((pr["lam1"], g, xout, xin), (pr["lam2"], h, yout, yin)):
        eqs.append([(1, lam_pt), (tau, base)] + [(-sig[i], outs[i]) for i in range(n)]
                   + [(rho[i], ins[i]) for i in range(n)])            # (34), (35)
    r = [pr["a"][i] + (g * rho[i] - pr["u"][i]) * lam for i in range(n)]
    s = [pr["c"][i] + pr["d"][i] * lam for i in range(n)]
    gamma, theta = pr["gamma"], pr["theta"]
    for i in range(n):                                            # SS, first half
        e = c if i == 0 else alpha[i - 1]
        xh, yh = r[i] - g * ts, s[i] - gamma * ts
        eqs.append([(e, xh), (-alpha[i], yh), (-1, theta[i])])
    for i in range(n, 2 * n):                                     # SS, second half
        a_i = c if i == 2 * n - 1 else alpha[i]
        eqs.append([(alpha[i - 1], gamma), (-a_i, g), (-1, theta[i])])
    return eqs


def batch_weights(t, n, alpha_enc):
    t.append(b"ss.alpha", alpha_enc)
    b = t.challenge_bytes(b"batch-weights", 16 * (3 * n + 2))
    return [int.from_bytes(b[16 * j + 8:16 * j + 16], "little") * 2**64
            + int.from_bytes(b[16 * j:16 * j + 8], "little") for j in range(3 * n + 2)]


def verify(inp):
    """Returns (per-equation verdict, batched verdict)."""
    n = inp["n"]
    h_enc = bytes.fromhex(inp["h"])
    h = G.decode(h_enc)
    ins = [bytes.fromhex(x) for x in inp["inputs"]]
    outs = [bytes.fromhex(x) for x in inp["outputs"]]
    if n < 2 or len(ins) != n or len(outs) != n or h.is_identity():
        raise Reject("statement")
    xin = [G.decode(x[:E]) for x in ins]
    yin = [G.decode(x[E:]) for x in ins]
    xout = [G.decode(x[:E]) for x in outs]
    yout = [G.decode(x[E:]) for x in outs]
    pr = parse(bytes.fromhex(inp["proof"]), n)
    t, rho, lam, ts, c = replay(bytes.fromhex(inp["session"]), inp["prover"], h_enc,
                                b"".join(ins), b"".join(outs), n, pr)
    g = G.GENERATOR
    eqs = equations(g, h, xin, yin, xout, yout, n, pr, rho, lam, ts, c)
    each = all(msm(eq).is_identity() for eq in eqs)
    z = batch_weights(t, n, pr["alpha_enc"])
    # Weight order (§4.3): the 2n SS equations, the n equations (33), then (34), (35).
    ordered = eqs[n + 2:] + eqs[:n] + eqs[n:n + 2]
    batched = msm([(zj * s, p) for zj, eq in zip(z, ordered) for s, p in eq]).is_identity()
    return each, batched


def run(doc, report):
    for group in doc["test_groups"]:
        for case in group["cases"]:
            try:
                each, batched = verify(case["inputs"])
            except (Reject, G.DecodeError):
                each = batched = False
            want = case["result"] == "valid"
            report.expect(case, each == want and batched == want,
                          f"per-equation {each}, batched {batched}")
