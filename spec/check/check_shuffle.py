"""test-vectors/shuffle-ristretto255.json against spec/shuffle.md §3–4.

Runs both verifiers of the Neff ElGamal-pair shuffle from the specification: the per-equation
one (§4.2) and the batched one (§4.3, one sum that must be the identity); a valid proof must
pass both, an invalid one must fail both. A valid case is also re-proved (§3, the prover with
its hedged draws): from the recorded witness and entropy the same proof bytes must come out.
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


def statement_transcript(session, prover, h_enc, inputs_enc, outputs_enc, n):
    t = context_transcript(PURPOSE, session, None, None, prover,
                           [(b"version", (1).to_bytes(8, "little")), (b"group", G.NAME)])
    t.append_u64(b"n", n)
    t.append(b"g", G.GENERATOR.encode())
    t.append(b"h", h_enc)
    t.append(b"inputs", inputs_enc)
    t.append(b"outputs", outputs_enc)
    return t


def replay(session, prover, h_enc, inputs_enc, outputs_enc, n, pr):
    t = statement_transcript(session, prover, h_enc, inputs_enc, outputs_enc, n)
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


def prove(inp, perm, betas, entropy):
    """spec/shuffle.md §3: the proof bytes of the prover given its witness (π, β) and the 32
    entropy bytes its one fork takes (no degenerate retry is modelled: probability ≈ n²/q)."""
    n, L, g = inp["n"], G.L, G.GENERATOR
    h_enc = bytes.fromhex(inp["h"])
    h = G.decode(h_enc)
    ins = [bytes.fromhex(x) for x in inp["inputs"]]
    xin = [G.decode(x[:E]) for x in ins]
    yin = [G.decode(x[E:]) for x in ins]
    outs = b"".join(bytes.fromhex(x) for x in inp["outputs"])
    t = statement_transcript(bytes.fromhex(inp["session"]), inp["prover"], h_enc,
                             b"".join(ins), outs, n)
    witness = b"".join(j.to_bytes(8, "little") for j in perm) + \
        b"".join(G.scalar_encode(b) for b in betas)
    rng = t.prover_rng(b"shuffle-witness", witness, entropy)
    gamma = 0
    while gamma == 0:
        gamma = rng.scalar(G)
    tau0 = rng.scalar(G)
    u, w, a = ([rng.scalar(G) for _ in range(n)] for _ in range(3))
    pinv = [0] * n
    for i, j in enumerate(perm):
        pinv[j] = i
    enc = G.Point.encode
    e0 = (tau0 + sum(w[i] * betas[perm[i]] for i in range(n))) % L
    coef = [(w[pinv[j]] - u[j]) % L for j in range(n)]
    lam1 = msm([(e0, g)] + list(zip(coef, xin)))
    lam2 = msm([(e0, h)] + list(zip(coef, yin)))
    first = enc(g * gamma) + b"".join(enc(g * x) for x in a) \
        + b"".join(enc(g * (gamma * a[perm[i]] % L)) for i in range(n)) \
        + b"".join(enc(g * x) for x in u) + b"".join(enc(g * (gamma * x % L)) for x in w) \
        + enc(lam1) + enc(lam2)
    t.append(b"first-move", first)
    rho = t.challenge_scalars(b"rho", n, G)
    b = [(rho[j] - u[j]) % L for j in range(n)]
    sigma = [(w[i] + b[perm[i]]) % L for i in range(n)]
    d = b"".join(enc(g * (gamma * b[perm[i]] % L)) for i in range(n))
    t.append(b"D", d)
    lam = t.challenge_scalar(b"lambda", G)
    r = [(a[j] + lam * b[j]) % L for j in range(n)]
    s = [gamma * r[perm[i]] % L for i in range(n)]
    tau = (-tau0 + sum(b[j] * betas[j] for j in range(n))) % L
    sigma_enc = b"".join(G.scalar_encode(x) for x in sigma)
    t.append(b"sigma", sigma_enc)
    t.append(b"tau", G.scalar_encode(tau))
    # SS_n(R, S, g, Γ) on the same transcript and the same prover stream.
    ts = t.challenge_scalar(b"ss.t", G)
    xh = [(x - ts) % L for x in r]
    yh = [(y - gamma * ts) % L for y in s]
    th = [rng.scalar(G) for _ in range(2 * n - 1)]
    exps = [-(th[0] * yh[0])] + [th[i - 1] * xh[i] - th[i] * yh[i] for i in range(1, n)] \
        + [gamma * th[i - 1] - th[i] for i in range(n, 2 * n - 1)] + [gamma * th[2 * n - 2]]
    theta = b"".join(enc(g * (e % L)) for e in exps)
    t.append(b"ss.Theta", theta)
    c = t.challenge_scalar(b"ss.c", G)
    alpha, prod = [], 1
    for i in range(n):
        prod = prod * xh[i] * pow(yh[i], -1, L) % L
        alpha.append((th[i] + c * prod) % L)
    gamma_inv = pow(gamma, -1, L)
    for i in range(n, 2 * n - 1):
        alpha.append((th[i] + c * pow(gamma_inv, 2 * n - (i + 1), L)) % L)
    return first + d + theta + sigma_enc + G.scalar_encode(tau) + \
        b"".join(G.scalar_encode(x) for x in alpha)


def reproved(case):
    im = case["intermediates"]
    forks = [e for e in im["transcript_events"] if e["event"] == "prover-rng"]
    if len(forks) != 1:
        return False
    betas = [G.scalar_decode(bytes.fromhex(x)) for x in im["rerandomizers"]]
    proof = prove(case["inputs"], im["permutation"], betas, bytes.fromhex(forks[0]["entropy"]))
    return proof.hex() == case["inputs"]["proof"]


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
            if want:
                report.expect(case, reproved(case), "re-proved from witness and entropy")
