//! The shuffle verifiers: equation by equation (names the failing check) and batched (one
//! multi-scalar multiplication).

use verdict_group::{Group, Scalar, par};

use super::statement::{ShuffleProof, ShuffleStatement, check_statement, statement_transcript};
use crate::ProofContext;
use crate::error::{Check, ShuffleError};
use crate::hooks::Hooks;
use crate::simple;
use crate::transcript::{Transcript, append_scalars, challenge_weights};
use crate::util::check_len;

/// The verifier's challenges, recomputed from the transcript.
struct Challenges<G: Group> {
    rho: Vec<G::Scalar>,
    lambda: G::Scalar,
    t: G::Scalar,
    c: G::Scalar,
}

fn check_proof_shape<G: Group>(proof: &ShuffleProof<G>, n: usize) -> Result<(), ShuffleError> {
    check_len("proof A", n, proof.a.len())?;
    check_len("proof C", n, proof.c.len())?;
    check_len("proof U", n, proof.u.len())?;
    check_len("proof W", n, proof.w.len())?;
    check_len("proof D", n, proof.d.len())?;
    check_len("proof σ", n, proof.sigma.len())?;
    simple::check_shape(&proof.simple, n)?;
    if proof.gamma.is_identity() {
        return Err(ShuffleError::Identity { what: "Γ" });
    }
    Ok(())
}

fn replay<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
    hooks: &Hooks<G>,
) -> Result<(Transcript, Challenges<G>), ShuffleError> {
    let n = check_statement(st)?;
    check_proof_shape(proof, n)?;
    if let Some((r, s)) = hooks.prover_rs() {
        check_len("prover R", n, r.len())?;
        check_len("prover S", n, s.len())?;
    }
    let mut tr = statement_transcript(ctx, st, hooks);
    tr.append_message(b"first-move", &proof.first_enc);
    let rho = tr.challenge_scalars::<G>(b"rho", n);
    tr.append_message(b"D", &proof.d_enc);
    let lambda = tr.challenge_scalar::<G>(b"lambda");
    append_scalars(&mut tr, b"sigma", &proof.sigma);
    tr.append_scalar(b"tau", &proof.tau);
    let (t, c) = simple::replay(&mut tr, &proof.simple);
    Ok((tr, Challenges { rho, lambda, t, c }))
}

/// Verifies a shuffle proof with one multi-scalar multiplication of `11n + 5` points (the
/// default verifier). Every equation of EGA step 7 and of SS_k gets an independent 128-bit
/// weight derived from a transcript over the whole proof.
pub fn verify<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
) -> Result<(), ShuffleError> {
    verify_batched_with_hooks(ctx, st, proof, &Hooks::secure())
}

/// Verifies a shuffle proof equation by equation (`≈12n` exponentiations), reporting the first
/// failing [`Check`]. Accepts exactly the proofs [`verify`] accepts (up to probability
/// `2^-128`); use it to pinpoint a failure.
pub fn verify_each<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
) -> Result<(), ShuffleError> {
    verify_each_with_hooks(ctx, st, proof, &Hooks::secure())
}

pub(crate) fn verify_each_with_hooks<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
    hooks: &Hooks<G>,
) -> Result<(), ShuffleError> {
    let (_, ch) = replay(ctx, st, proof, hooks)?;
    let n = st.inputs.len();
    let g = G::generator();
    let reject = |check| ShuffleError::Rejected { check };
    // (33) Γ^{σᵢ} = Wᵢ·Dᵢ
    for i in 0..n {
        if proof.gamma.mul_vartime(&proof.sigma[i]) != proof.w[i] + proof.d[i] {
            return Err(reject(Check::Commitment { index: i }));
        }
    }
    // (34), (35): Λ₁·g^τ = Π X̄ᵢ^{σᵢ} Xᵢ^{−ρᵢ}, Λ₂·h^τ = Π Ȳᵢ^{σᵢ} Yᵢ^{−ρᵢ}
    let mut scalars: Vec<G::Scalar> = proof.sigma.clone();
    scalars.extend(ch.rho.iter().map(|r| -*r));
    let mut xs: Vec<G> = st.outputs.as_slice().iter().map(|c| c.x).collect();
    xs.extend(st.inputs.as_slice().iter().map(|c| c.x));
    let mut ys: Vec<G> = st.outputs.as_slice().iter().map(|c| c.y).collect();
    ys.extend(st.inputs.as_slice().iter().map(|c| c.y));
    let phi1 = par::msm_vartime(&scalars, &xs).map_err(|_| reject(Check::Lambda1))?;
    if proof.lambda1 + g.mul_vartime(&proof.tau) != phi1 {
        return Err(reject(Check::Lambda1));
    }
    let phi2 = par::msm_vartime(&scalars, &ys).map_err(|_| reject(Check::Lambda2))?;
    if proof.lambda2 + st.h.mul_vartime(&proof.tau) != phi2 {
        return Err(reject(Check::Lambda2));
    }
    // EGA.6: the verifier's own R, S.
    let (r, s): (Vec<G>, Vec<G>) = match hooks.prover_rs() {
        Some((r, s)) => (r.to_vec(), s.to_vec()),
        None => (0..n)
            .map(|i| {
                let b = g.mul_vartime(&ch.rho[i]) - proof.u[i];
                (
                    proof.a[i] + b.mul_vartime(&ch.lambda),
                    proof.c[i] + proof.d[i].mul_vartime(&ch.lambda),
                )
            })
            .unzip(),
    };
    simple::check_each(&g, &proof.gamma, &r, &s, &proof.simple, &ch.t, &ch.c)
}

pub(crate) fn verify_batched_with_hooks<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
    hooks: &Hooks<G>,
) -> Result<(), ShuffleError> {
    let (mut tr, ch) = replay(ctx, st, proof, hooks)?;
    let n = st.inputs.len();
    append_scalars(&mut tr, b"ss.alpha", &proof.simple.alpha);
    let z = challenge_weights::<G>(&mut tr, b"batch-weights", 3 * n + 2);
    let (z_simple, rest) = z.split_at(2 * n);
    let (z_commit, rest) = rest.split_at(n);
    let (z1, z2) = (rest[0], rest[1]);

    let weights = Weights {
        simple: z_simple,
        commit: z_commit,
        z1,
        z2,
    };
    // One part of the weighted sum per thread, each building its own terms and computing its
    // own multi-scalar multiplication (on one thread, one part: the `11n + 5` terms).
    let chunks = par::chunk_count(n, ELEMENTS_PER_PART);
    let size = n.div_ceil(chunks).max(1);
    let parts: Vec<(usize, usize)> = (0..n)
        .step_by(size)
        .map(|lo| (lo, n.min(lo + size)))
        .collect();
    let sums = par::map(&parts, |&(lo, hi)| {
        let (scalars, points) = batch_terms(st, proof, &ch, &weights, hooks, lo, hi);
        G::msm_vartime(&scalars, &points)
    });
    let reject = ShuffleError::Rejected {
        check: Check::Batched,
    };
    let sum = sums
        .into_iter()
        .try_fold(G::identity(), |acc, part| part.map(|p| acc + p))
        .map_err(|_| reject.clone())?;
    if sum.is_identity() {
        Ok(())
    } else {
        Err(reject)
    }
}

/// Shuffle elements per part of the batched check (11 terms each): below this the check is
/// not split (a multi-scalar multiplication's parts each pay its bucket sums).
const ELEMENTS_PER_PART: usize = 32;

/// The batch weights of [`verify_batched_with_hooks`]: the simple shuffle's `2n` equations,
/// the `n` commitment equations (33) and the two equations (34), (35).
struct Weights<'a, S> {
    simple: &'a [S],
    commit: &'a [S],
    z1: S,
    z2: S,
}

/// The terms of the weighted sum of every equation that involve elements `lo..hi`: the
/// simple shuffle's equations `i` and `n + i` (each moved to the form `… − Θ = 0`, with
/// `X̂ᵢ = Rᵢ − t·g`, `Ŷᵢ = Sᵢ − t·Γ`, and `Rᵢ = Aᵢ + λρᵢ·g − λ·Uᵢ`, `Sᵢ = Cᵢ + λ·Dᵢ` expanded
/// unless the hooks supply them), (33) for element `i`, and element `i`'s terms of (34) and
/// (35); then this part's share of the coefficients of `g` and `Γ`. The part starting at 0
/// also holds the terms in no element: `Λ₁`, `Λ₂`, `τ·g`, `τ·h`. The parts' sums add up to
/// the whole weighted sum, whatever the split.
fn batch_terms<G: Group>(
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
    ch: &Challenges<G>,
    z: &Weights<'_, G::Scalar>,
    hooks: &Hooks<G>,
    lo: usize,
    hi: usize,
) -> (Vec<G::Scalar>, Vec<G>) {
    let n = st.inputs.len();
    let (alpha, theta) = (&proof.simple.alpha, &proof.simple.theta);
    let (outputs, inputs) = (st.outputs.as_slice(), st.inputs.as_slice());
    let len = 11 * (hi - lo) + 5;
    let mut scalars = Vec::with_capacity(len);
    let mut points = Vec::with_capacity(len);
    let mut on_g = G::Scalar::zero();
    let mut on_gamma = G::Scalar::zero();
    for i in lo..hi {
        // Simple shuffle, equation i: e·X̂ᵢ − αᵢ·Ŷᵢ − Θᵢ = 0 (e = c for i = 0, else αᵢ₋₁).
        let e = if i == 0 { ch.c } else { alpha[i - 1] };
        let cx = z.simple[i] * e;
        let cy = -(z.simple[i] * alpha[i]);
        on_g -= ch.t * cx;
        on_gamma -= ch.t * cy;
        scalars.push(-z.simple[i]);
        points.push(theta[i]);
        // Equation n + i: αⱼ₋₁·Γ − a·g − Θⱼ = 0 (a = c for the last, else αⱼ).
        let j = n + i;
        let a = if j == 2 * n - 1 { ch.c } else { alpha[j] };
        on_gamma += z.simple[j] * alpha[j - 1];
        on_g -= z.simple[j] * a;
        scalars.push(-z.simple[j]);
        points.push(theta[j]);
        let on_d = match hooks.prover_rs() {
            Some((r, s)) => {
                scalars.push(cx);
                points.push(r[i]);
                scalars.push(cy);
                points.push(s[i]);
                G::Scalar::zero()
            }
            None => {
                let lcx = ch.lambda * cx;
                scalars.push(cx);
                points.push(proof.a[i]);
                scalars.push(-lcx);
                points.push(proof.u[i]);
                on_g += lcx * ch.rho[i];
                scalars.push(cy);
                points.push(proof.c[i]);
                ch.lambda * cy
            }
        };
        // (33): σᵢ·Γ − Wᵢ − Dᵢ = 0
        on_gamma += z.commit[i] * proof.sigma[i];
        scalars.push(-z.commit[i]);
        points.push(proof.w[i]);
        scalars.push(on_d - z.commit[i]);
        points.push(proof.d[i]);
        // (34), (35): Λ + τ·base − Σ σᵢ·out + Σ ρᵢ·in = 0, element i's terms.
        for (zk, out, inp) in [
            (z.z1, outputs[i].x, inputs[i].x),
            (z.z2, outputs[i].y, inputs[i].y),
        ] {
            scalars.push(-(zk * proof.sigma[i]));
            points.push(out);
            scalars.push(zk * ch.rho[i]);
            points.push(inp);
        }
    }
    if lo == 0 {
        on_g += z.z1 * proof.tau;
        scalars.extend([z.z1, z.z2, z.z2 * proof.tau]);
        points.extend([proof.lambda1, proof.lambda2, st.h]);
    }
    scalars.extend([on_g, on_gamma]);
    points.extend([G::generator(), proof.gamma]);
    (scalars, points)
}
