//! The shuffle prover.

use rand_core::{CryptoRng, RngCore};
use verdict_group::{FixedBaseTable, Group, Scalar, par};
use zeroize::Zeroizing;

use super::statement::{
    ShuffleProof, ShuffleStatement, ShuffleWitness, check_statement, encode_first_move,
    statement_transcript,
};
use crate::ProofContext;
use crate::error::ShuffleError;
use crate::hooks::Hooks;
use crate::simple;
use crate::transcript::{Transcript, append_scalars};
use crate::util::{check_len, check_permutation, concat_reprs};

/// How many times the prover retries after a degenerate challenge (probability ≈ n²/q each).
const PROVE_ATTEMPTS: usize = 4;

/// Proves that `st.outputs` is a shuffle of `st.inputs` under `st.h`.
///
/// Cost: `6n + 1` constant-time fixed-base multiplications (secret scalars), `n` variable-time
/// multiplications of `Γ` by the public responses `σ` through one shared window table (for
/// `D`), and two `n`-term constant-time multi-scalar multiplications (`Λ₁`, `Λ₂`, secret
/// coefficients). What runs in constant time is listed in the crate's design notes.
pub fn prove<G: Group, R: RngCore + CryptoRng + ?Sized>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    witness: &ShuffleWitness<G>,
    rng: &mut R,
) -> Result<ShuffleProof<G>, ShuffleError> {
    prove_with_hooks(ctx, st, witness, rng, &Hooks::secure())
}

pub(crate) fn prove_with_hooks<G: Group, R: RngCore + CryptoRng + ?Sized>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    witness: &ShuffleWitness<G>,
    rng: &mut R,
    hooks: &Hooks<G>,
) -> Result<ShuffleProof<G>, ShuffleError> {
    let n = check_statement(st)?;
    check_len("permutation", n, witness.permutation.len())?;
    check_len("rerandomizers", n, witness.rerandomizers.len())?;
    check_permutation(&witness.permutation)?;
    let base = statement_transcript(ctx, st, hooks);
    let h_table = st.h.precompute();
    // 2⁻¹ mod q exists: q is an odd prime in every group.
    let half = G::Scalar::from_u64(2)
        .invert()
        .ok_or(ShuffleError::Degenerate)?;
    for _ in 0..PROVE_ATTEMPTS {
        match prove_attempt(base.clone(), st, witness, &h_table, &half, rng) {
            Err(ShuffleError::Degenerate) => continue,
            other => return other,
        }
    }
    Err(ShuffleError::Degenerate)
}

fn prove_attempt<G: Group, R: RngCore + CryptoRng + ?Sized>(
    mut tr: Transcript,
    st: &ShuffleStatement<'_, G>,
    witness: &ShuffleWitness<G>,
    h_table: &G::Table,
    half: &G::Scalar,
    rng: &mut R,
) -> Result<ShuffleProof<G>, ShuffleError> {
    let half = *half;
    let n = st.inputs.len();
    let pi: &[usize] = &witness.permutation;
    let beta = |j: usize| *witness.rerandomizers[j].expose();
    // Every witness-derived temporary below (π⁻¹, γ, τ₀, the vectors u, w, a, b, r, s and the
    // exponents built from them) is held in `Zeroizing`, so it is wiped on every path out of
    // this function, including the early returns on a degenerate challenge.
    let mut pinv = Zeroizing::new(vec![0usize; n]);
    for (i, &j) in pi.iter().enumerate() {
        pinv[j] = i;
    }

    // EGA.1. Every secret below is drawn from a prover RNG forked from the transcript (the
    // statement), the witness and 32 bytes of `rng` — hedged: a weak `rng` alone does not
    // repeat γ or the nonces across different shuffles, and a proof is reproducible from
    // those 32 bytes (spec/shuffle.md gives the draw order).
    let mut prng = {
        let mut wbytes: Zeroizing<Vec<u8>> = Zeroizing::new(Vec::with_capacity(
            n * (8 + <G::Scalar as Scalar>::Repr::default().as_ref().len()),
        ));
        for &j in pi {
            wbytes.extend_from_slice(&(j as u64).to_le_bytes());
        }
        for b in &witness.rerandomizers {
            wbytes.extend_from_slice(b.expose().to_bytes().as_ref());
        }
        tr.witness_rng(b"shuffle-witness", &[&wbytes], rng)
    };
    // γ must be invertible: a zero draw (probability 1/q) is discarded and drawn again.
    let gamma = loop {
        let g = prng.draw_scalars::<G::Scalar>("shuffle-gamma", 1);
        if let Some(&g) = g.first().filter(|g| !g.is_zero()) {
            break Zeroizing::new(g);
        }
    };
    // τ₀, then u₁..uₙ, w₁..wₙ, a₁..aₙ.
    let nonces = prng.draw_scalars::<G::Scalar>("shuffle-nonces", 1 + 3 * n);
    let tau0 = Zeroizing::new(nonces[0]);
    let u = &nonces[1..=n];
    let w = &nonces[1 + n..=2 * n];
    let a = &nonces[1 + 2 * n..];
    // Every published point is computed together with its encoding (a group may share work
    // across the batch; ristretto255 saves an inverse square root per point).
    let gamma_pt = G::mul_generator(&gamma);
    let (a_pts, a_enc) = par::mul_generator_encoded::<G>(a);
    let c_exps: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(pi.iter().map(|&j| *gamma * a[j]).collect());
    let (c_pts, c_enc) = par::mul_generator_encoded::<G>(&c_exps);
    drop(c_exps);
    let (u_pts, u_enc) = par::mul_generator_encoded::<G>(u);
    // W is built from its halves W/2 = (γw/2)·g, which are kept: D/2 is derived from them below.
    let w_half_exps: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(w.iter().map(|wi| *gamma * *wi * half).collect());
    let w_halves: Vec<G> = par::map(&w_half_exps, G::mul_generator);
    drop(w_half_exps);
    let (w_pts, w_enc) = G::double_each_encoded(&w_halves);
    // Λ₁ = (τ₀ + Σ wᵢβ_{π(i)})·g + Σ_j (w_{π⁻¹(j)} − u_j)·X_j, and likewise Λ₂ with h, Y.
    let coef: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new((0..n).map(|j| w[pinv[j]] - u[j]).collect());
    let mut e0 = Zeroizing::new(*tau0);
    for (i, &j) in pi.iter().enumerate() {
        *e0 += w[i] * beta(j);
    }
    let xs: Vec<G> = st.inputs.as_slice().iter().map(|c| c.x).collect();
    let ys: Vec<G> = st.inputs.as_slice().iter().map(|c| c.y).collect();
    let msm_err = |_| ShuffleError::LengthMismatch {
        what: "inputs",
        expected: n,
        actual: n,
    };
    // The coefficients are secret (with σ published, they would link inputs to outputs), so
    // the sums use the constant-time MSM.
    let (sum1, sum2) = par::join(|| par::msm(&coef, &xs), || par::msm(&coef, &ys));
    let lambda1 = G::mul_generator(&e0) + sum1.map_err(msm_err)?;
    let lambda2 = h_table.mul(&e0) + sum2.map_err(msm_err)?;
    drop(coef);
    drop(e0);
    // Same layout as `encode_first_move`, from the encodings already at hand.
    let mut first_enc = Vec::with_capacity((4 * n + 3) * G::ENCODED_LEN);
    first_enc.extend_from_slice(gamma_pt.to_bytes().as_ref());
    for reprs in [&a_enc, &c_enc, &u_enc, &w_enc] {
        first_enc.extend_from_slice(&concat_reprs::<G>(reprs));
    }
    first_enc.extend_from_slice(lambda1.to_bytes().as_ref());
    first_enc.extend_from_slice(lambda2.to_bytes().as_ref());
    debug_assert_eq!(
        first_enc,
        encode_first_move(
            &gamma_pt, &a_pts, &c_pts, &u_pts, &w_pts, &lambda1, &lambda2
        )
    );
    tr.append_message(b"first-move", &first_enc);
    let rho = tr.challenge_scalars::<G>(b"rho", n);

    // EGA.3: Dᵢ = γ·b_{π(i)}·g. The response σᵢ = wᵢ + b_{π(i)} (EGA.5) is already fixed and
    // public (it is published in the proof), and equation (33) gives Dᵢ = σᵢ·Γ − Wᵢ: a
    // multiplication of the public Γ by public scalars, so the n products need no constant-time
    // code and share one variable-time window table. Computed as halves, so that D is encoded
    // with the batch double-and-encode: Dᵢ/2 = σᵢ·(Γ/2) − Wᵢ/2.
    let b: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(rho.iter().zip(u.iter()).map(|(r, ui)| *r - *ui).collect());
    let sigma: Vec<G::Scalar> = pi.iter().zip(w.iter()).map(|(&j, wi)| *wi + b[j]).collect();
    let gamma_half_pt = gamma_pt.mul_vartime(&half);
    let d_halves: Vec<G> = par::mul_many_vartime(&gamma_half_pt, &sigma)
        .into_iter()
        .zip(&w_halves)
        .map(|(sg, wh)| sg - *wh)
        .collect();
    let (d_pts, d_reprs) = G::double_each_encoded(&d_halves);
    let d_enc = concat_reprs::<G>(&d_reprs);
    tr.append_message(b"D", &d_enc);
    let lambda = tr.challenge_scalar::<G>(b"lambda");

    // EGA.5
    let r: Zeroizing<Vec<G::Scalar>> = Zeroizing::new(
        a.iter()
            .zip(b.iter())
            .map(|(ai, bi)| *ai + lambda * *bi)
            .collect(),
    );
    let s: Zeroizing<Vec<G::Scalar>> = Zeroizing::new(pi.iter().map(|&j| *gamma * r[j]).collect());
    let mut tau = -*tau0;
    for (j, bj) in b.iter().enumerate() {
        tau += *bj * beta(j);
    }
    append_scalars(&mut tr, b"sigma", &sigma);
    tr.append_scalar(b"tau", &tau);

    // EGA.6: SS_k(R, S, g, Γ) with Rᵢ = rᵢ·g, Sᵢ = sᵢ·g = γ·R_{π(i)}.
    let simple = simple::prove_core::<G>(
        &mut tr,
        &par::mul_generator_encoded::<G>,
        &gamma,
        &r,
        &s,
        &mut prng,
    );

    Ok(ShuffleProof {
        gamma: gamma_pt,
        a: a_pts,
        c: c_pts,
        u: u_pts,
        w: w_pts,
        lambda1,
        lambda2,
        d: d_pts,
        first_enc,
        d_enc,
        sigma,
        tau,
        simple: simple?,
    })
}
