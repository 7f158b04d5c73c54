//! The shuffle verifiers: equation by equation (names the failing check) and batched (one
//! multi-scalar multiplication).

use verdict_group::{Group, Scalar, par};

use super::statement::{ShuffleProof, ShuffleStatement, check_statement, statement_transcript};
use crate::ProofContext;
use crate::elgamal::Ciphertext;
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

    let co = simple::batch_coeffs(n, &proof.simple.alpha, &ch.t, &ch.c, z_simple);
    let mut on_g = co.on_base;
    let mut on_gamma = co.on_gamma;
    let mut scalars = Vec::with_capacity(11 * n + 5);
    let mut points = Vec::with_capacity(11 * n + 5);

    let mut on_d: Vec<G::Scalar> = Vec::with_capacity(n);
    match hooks.prover_rs() {
        Some((r, s)) => {
            scalars.extend_from_slice(&co.on_x);
            points.extend_from_slice(r);
            scalars.extend_from_slice(&co.on_y);
            points.extend_from_slice(s);
            on_d.resize(n, G::Scalar::zero());
        }
        None => {
            // Rᵢ = Aᵢ + λρᵢ·g − λ·Uᵢ,  Sᵢ = Cᵢ + λ·Dᵢ
            for i in 0..n {
                let cx = co.on_x[i];
                let lcx = ch.lambda * cx;
                scalars.push(cx);
                points.push(proof.a[i]);
                scalars.push(-lcx);
                points.push(proof.u[i]);
                on_g += lcx * ch.rho[i];
                scalars.push(co.on_y[i]);
                points.push(proof.c[i]);
                on_d.push(ch.lambda * co.on_y[i]);
            }
        }
    }
    scalars.extend_from_slice(&co.on_theta);
    points.extend_from_slice(&proof.simple.theta);

    // (33): σᵢ·Γ − Wᵢ − Dᵢ = 0
    for i in 0..n {
        on_gamma += z_commit[i] * proof.sigma[i];
        scalars.push(-z_commit[i]);
        points.push(proof.w[i]);
        scalars.push(on_d[i] - z_commit[i]);
        points.push(proof.d[i]);
    }
    // (34), (35): Λ + τ·base − Σ σᵢ·out + Σ ρᵢ·in = 0
    let first = |c: &Ciphertext<G>| c.x;
    let second = |c: &Ciphertext<G>| c.y;
    for (zk, lam, part) in [
        (z1, proof.lambda1, &first as &dyn Fn(&Ciphertext<G>) -> G),
        (z2, proof.lambda2, &second),
    ] {
        scalars.push(zk);
        points.push(lam);
        for i in 0..n {
            scalars.push(-(zk * proof.sigma[i]));
            points.push(part(&st.outputs.as_slice()[i]));
            scalars.push(zk * ch.rho[i]);
            points.push(part(&st.inputs.as_slice()[i]));
        }
    }
    on_g += z1 * proof.tau;
    scalars.push(on_g);
    points.push(G::generator());
    scalars.push(z2 * proof.tau);
    points.push(st.h);
    scalars.push(on_gamma);
    points.push(proof.gamma);

    let reject = ShuffleError::Rejected {
        check: Check::Batched,
    };
    let sum = par::msm_vartime(&scalars, &points).map_err(|_| reject.clone())?;
    if sum.is_identity() {
        Ok(())
    } else {
        Err(reject)
    }
}
