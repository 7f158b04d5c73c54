//! Neff's simple k-shuffle `SS_k` (2004, §3), non-interactive.
//!
//! Statement: a base `G`, `Γ = γ·G`, and lists `X₁..X_k`, `Y₁..Y_k` with `Yᵢ = γ·X_{π(i)}` for
//! a secret permutation `π`; the prover knows `γ` and `xᵢ = log_G Xᵢ`. Proof: `2k` points
//! `Θ` and `2k − 1` scalars `α`; challenges `t` (before `Θ`) and `c` (after) come from the
//! transcript. The core functions here are shared with the ElGamal shuffle (§4 step 6), which
//! runs `SS_k(R, S, g, Γ)` on the same transcript.

use rand_core::{CryptoRng, RngCore};
use verdict_group::{FixedBaseTable, Group, Scalar, par};

use crate::ProofContext;
use crate::error::{Check, ShuffleError};
use crate::transcript::{Transcript, TranscriptRng, append_scalars, challenge_weights};
use crate::util::{batch_invert, check_len, check_permutation, concat_reprs, encode_flat};
use zeroize::{Zeroize, Zeroizing};

/// A non-interactive proof for the simple k-shuffle: `2k` points and `2k − 1` scalars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleShuffleProof<G: Group> {
    pub(crate) theta: Vec<G>,
    /// Canonical encodings of `theta`, concatenated (computed once, absorbed as is).
    pub(crate) theta_enc: Vec<u8>,
    pub(crate) alpha: Vec<G::Scalar>,
}

impl<G: Group> SimpleShuffleProof<G> {
    /// The commitments `Θ₁..Θ_{2k}`.
    pub fn theta(&self) -> &[G] {
        &self.theta
    }
    /// The responses `α₁..α_{2k−1}`.
    pub fn alpha(&self) -> &[G::Scalar] {
        &self.alpha
    }
    /// Builds a proof from its parts (e.g. after decoding); the verifier checks the lengths.
    pub fn from_parts(theta: Vec<G>, alpha: Vec<G::Scalar>) -> Self {
        let theta_enc = encode_flat(&theta);
        Self {
            theta,
            theta_enc,
            alpha,
        }
    }
}

/// Multiplies the base by each of a batch of secret scalars; returns products and encodings.
pub(crate) type MulEncoded<'a, G> =
    dyn Fn(&[<G as Group>::Scalar]) -> (Vec<G>, Vec<<G as Group>::Repr>) + 'a;

/// Proves the simple shuffle given `x̂ᵢ`-generating logs `x`, `y = γ·x_π`, on a transcript
/// that already holds the statement. `mul_base` multiplies the base by each of a batch of
/// secret scalars and returns the products with their encodings. The nonces `θ` are the next
/// `2k − 1` scalars of `prng`, a prover RNG forked by the caller (hedged: see
/// [`Transcript::witness_rng`]), so a proof is a function of the witness, the transcript and
/// the 32 bytes of external randomness the fork took.
pub(crate) fn prove_core<G: Group>(
    tr: &mut Transcript,
    mul_base: &MulEncoded<'_, G>,
    gamma: &G::Scalar,
    x: &[G::Scalar],
    y: &[G::Scalar],
    prng: &mut TranscriptRng,
) -> Result<SimpleShuffleProof<G>, ShuffleError> {
    let k = x.len();
    let t = tr.challenge_scalar::<G>(b"ss.t");
    // x̂, ŷ, their products, γ's powers and the nonces θ are all witness-derived: held in
    // `Zeroizing`, they are wiped on every path out, including the degenerate-challenge returns.
    let gt = Zeroizing::new(*gamma * t);
    let xh: Zeroizing<Vec<G::Scalar>> = Zeroizing::new(x.iter().map(|xi| *xi - t).collect());
    let yh: Zeroizing<Vec<G::Scalar>> = Zeroizing::new(y.iter().map(|yi| *yi - *gt).collect());
    // Remark 1: x̂ᵢ = 0 means t guessed a discrete log (probability k/q).
    let yh_inv = Zeroizing::new(batch_invert(&yh).ok_or(ShuffleError::Degenerate)?);
    if xh.iter().any(Scalar::is_zero) {
        return Err(ShuffleError::Degenerate);
    }
    let theta_s = prng.draw_scalars::<G::Scalar>("simple-shuffle-nonces", 2 * k - 1);
    let mut exps = Zeroizing::new(Vec::with_capacity(2 * k));
    exps.push(-(theta_s[0] * yh[0]));
    for i in 1..k {
        exps.push(theta_s[i - 1] * xh[i] - theta_s[i] * yh[i]);
    }
    for i in k..2 * k - 1 {
        exps.push(*gamma * theta_s[i - 1] - theta_s[i]);
    }
    exps.push(*gamma * theta_s[2 * k - 2]);
    let (theta, theta_reprs) = mul_base(&exps);
    drop(exps);
    let theta_enc = concat_reprs::<G>(&theta_reprs);
    tr.append_message(b"ss.Theta", &theta_enc);
    let c = tr.challenge_scalar::<G>(b"ss.c");

    let mut alpha = Vec::with_capacity(2 * k - 1);
    let mut prod = Zeroizing::new(G::Scalar::one());
    for i in 0..k {
        *prod = *prod * xh[i] * yh_inv[i];
        alpha.push(theta_s[i] + c * *prod);
    }
    // αᵢ = θᵢ + c·γ^{i−2k} for 1-based i = k+1..2k−1, i.e. exponents −(k−1)..−1.
    let gamma_inv = Zeroizing::new(gamma.invert().ok_or(ShuffleError::Degenerate)?);
    let mut gpow = Zeroizing::new(Vec::with_capacity(k));
    let mut acc = Zeroizing::new(*gamma_inv);
    for _ in 0..k - 1 {
        gpow.push(*acc);
        *acc *= *gamma_inv;
    }
    // gpow[j] = γ^{−(j+1)}; index i (0-based, k..2k−2) needs exponent (i+1) − 2k.
    for (i, th) in theta_s.iter().enumerate().skip(k) {
        let e = 2 * k - (i + 1); // 1..k−1
        alpha.push(*th + c * gpow[e - 1]);
    }
    Ok(SimpleShuffleProof {
        theta,
        theta_enc,
        alpha,
    })
}

/// Checks the proof's shape against `k`.
pub(crate) fn check_shape<G: Group>(
    proof: &SimpleShuffleProof<G>,
    k: usize,
) -> Result<(), ShuffleError> {
    check_len("simple-shuffle Θ", 2 * k, proof.theta.len())?;
    check_len("simple-shuffle α", 2 * k - 1, proof.alpha.len())
}

/// Replays the simple shuffle's transcript operations: returns `(t, c)`.
pub(crate) fn replay<G: Group>(
    tr: &mut Transcript,
    proof: &SimpleShuffleProof<G>,
) -> (G::Scalar, G::Scalar) {
    let t = tr.challenge_scalar::<G>(b"ss.t");
    tr.append_message(b"ss.Theta", &proof.theta_enc);
    let c = tr.challenge_scalar::<G>(b"ss.c");
    (t, c)
}

/// Checks the `2k` equations (12) one by one on explicit `X`, `Y`.
pub(crate) fn check_each<G: Group>(
    base: &G,
    gamma: &G,
    x: &[G],
    y: &[G],
    proof: &SimpleShuffleProof<G>,
    t: &G::Scalar,
    c: &G::Scalar,
) -> Result<(), ShuffleError> {
    let k = x.len();
    let alpha = &proof.alpha;
    let theta = &proof.theta;
    let fail = |index| ShuffleError::Rejected {
        check: Check::SimpleShuffle { index },
    };
    let u = -(*base * t);
    let w = -(*gamma * t);
    for i in 0..k {
        let xh = x[i] + u;
        let yh = y[i] + w;
        let e = if i == 0 { *c } else { alpha[i - 1] };
        let lhs = G::msm_vartime(&[e, -alpha[i]], &[xh, yh]).map_err(|_| fail(i))?;
        if lhs != theta[i] {
            return Err(fail(i));
        }
    }
    for i in k..2 * k {
        let a = if i == 2 * k - 1 { *c } else { alpha[i] };
        let lhs = G::msm_vartime(&[alpha[i - 1], -a], &[*gamma, *base]).map_err(|_| fail(i))?;
        if lhs != theta[i] {
            return Err(fail(i));
        }
    }
    Ok(())
}

/// The coefficients of the weighted sum of the `2k` equations (12), each moved to the form
/// `… − Θᵢ = 0`, with `X̂ᵢ = Xᵢ − t·G` and `Ŷᵢ = Yᵢ − t·Γ` expanded.
pub(crate) struct Coeffs<S> {
    pub(crate) on_x: Vec<S>,
    pub(crate) on_y: Vec<S>,
    pub(crate) on_base: S,
    pub(crate) on_gamma: S,
    pub(crate) on_theta: Vec<S>,
}

pub(crate) fn batch_coeffs<S: Scalar>(k: usize, alpha: &[S], t: &S, c: &S, z: &[S]) -> Coeffs<S> {
    let mut on_x = Vec::with_capacity(k);
    let mut on_y = Vec::with_capacity(k);
    let mut on_base = S::zero();
    let mut on_gamma = S::zero();
    let on_theta: Vec<S> = z.iter().map(|zi| -*zi).collect();
    let mut sum_x = S::zero();
    let mut sum_y = S::zero();
    for i in 0..k {
        let e = if i == 0 { *c } else { alpha[i - 1] };
        let cx = z[i] * e;
        let cy = -(z[i] * alpha[i]);
        sum_x += cx;
        sum_y += cy;
        on_x.push(cx);
        on_y.push(cy);
    }
    on_base -= sum_x * t;
    on_gamma -= sum_y * t;
    for i in k..2 * k {
        let a = if i == 2 * k - 1 { *c } else { alpha[i] };
        on_gamma += z[i] * alpha[i - 1];
        on_base -= z[i] * a;
    }
    Coeffs {
        on_x,
        on_y,
        on_base,
        on_gamma,
        on_theta,
    }
}

/// The public statement of a standalone simple k-shuffle: `Yᵢ = γ·X_{π(i)}`, `Γ = γ·G`.
#[derive(Debug, Clone, Copy)]
pub struct SimpleStatement<'a, G: Group> {
    /// The base `G`.
    pub base: G,
    /// `Γ = γ·G`.
    pub gamma: G,
    /// The inputs `X`.
    pub x: &'a [G],
    /// The outputs `Y`.
    pub y: &'a [G],
}

fn simple_transcript<G: Group>(
    ctx: &ProofContext,
    st: &SimpleStatement<'_, G>,
) -> Result<Transcript, ShuffleError> {
    let k = st.x.len();
    if k < 2 {
        return Err(ShuffleError::TooFew { n: k });
    }
    check_len("outputs", k, st.y.len())?;
    if st.base.is_identity() {
        return Err(ShuffleError::Identity { what: "base" });
    }
    if st.gamma.is_identity() {
        return Err(ShuffleError::Identity { what: "Γ" });
    }
    let mut tr = ctx.transcript::<G>(b"verdict-shuffle/simple-k-shuffle", k);
    tr.append_point(b"G", &st.base);
    tr.append_point(b"Gamma", &st.gamma);
    tr.append_points(b"X", st.x);
    tr.append_points(b"Y", st.y);
    Ok(tr)
}

/// Proves a standalone simple k-shuffle. `x[i] = log_G X[i]`, `γ = log_G Γ`, and
/// `permutation[i] = π(i)` with `Y[i] = γ·X[π(i)]`.
pub fn prove_simple<G: Group, R: RngCore + CryptoRng + ?Sized>(
    ctx: &ProofContext,
    st: &SimpleStatement<'_, G>,
    gamma: &G::Scalar,
    x: &[G::Scalar],
    permutation: &[usize],
    rng: &mut R,
) -> Result<SimpleShuffleProof<G>, ShuffleError> {
    let mut tr = simple_transcript(ctx, st)?;
    let k = st.x.len();
    check_len("witness logs", k, x.len())?;
    check_len("permutation", k, permutation.len())?;
    check_permutation(permutation)?;
    let y: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(permutation.iter().map(|&j| *gamma * x[j]).collect());
    let table = st.base.precompute();
    let mul_base = |ss: &[G::Scalar]| {
        let points: Vec<G> = ss.iter().map(|s| table.mul(s)).collect();
        let reprs = G::batch_to_bytes(&points);
        (points, reprs)
    };
    // Hedged nonces: the witness is γ then the logs x, in order (canonical encodings).
    let mut prng = {
        let mut reprs: Vec<_> = core::iter::once(gamma)
            .chain(x)
            .map(Scalar::to_bytes)
            .collect();
        let parts: Vec<&[u8]> = reprs.iter().map(AsRef::as_ref).collect();
        let prng = tr.witness_rng(b"simple-shuffle-witness", &parts, rng);
        reprs.iter_mut().for_each(|r| r.as_mut().zeroize());
        prng
    };
    prove_core(&mut tr, &mul_base, gamma, x, &y, &mut prng)
}

/// Verifies a standalone simple k-shuffle equation by equation.
pub fn verify_simple<G: Group>(
    ctx: &ProofContext,
    st: &SimpleStatement<'_, G>,
    proof: &SimpleShuffleProof<G>,
) -> Result<(), ShuffleError> {
    let mut tr = simple_transcript(ctx, st)?;
    check_shape(proof, st.x.len())?;
    let (t, c) = replay(&mut tr, proof);
    check_each(&st.base, &st.gamma, st.x, st.y, proof, &t, &c)
}

/// Verifies a standalone simple k-shuffle with one multi-scalar multiplication.
pub fn verify_simple_batched<G: Group>(
    ctx: &ProofContext,
    st: &SimpleStatement<'_, G>,
    proof: &SimpleShuffleProof<G>,
) -> Result<(), ShuffleError> {
    let mut tr = simple_transcript(ctx, st)?;
    let k = st.x.len();
    check_shape(proof, k)?;
    let (t, c) = replay(&mut tr, proof);
    append_scalars(&mut tr, b"ss.alpha", &proof.alpha);
    let z = challenge_weights::<G>(&mut tr, b"batch-weights", 2 * k);
    let co = batch_coeffs(k, &proof.alpha, &t, &c, &z);
    let mut scalars = Vec::with_capacity(4 * k + 2);
    let mut points = Vec::with_capacity(4 * k + 2);
    scalars.extend(co.on_x);
    points.extend_from_slice(st.x);
    scalars.extend(co.on_y);
    points.extend_from_slice(st.y);
    scalars.extend(co.on_theta);
    points.extend_from_slice(&proof.theta);
    scalars.push(co.on_base);
    points.push(st.base);
    scalars.push(co.on_gamma);
    points.push(st.gamma);
    let sum = par::msm_vartime(&scalars, &points).map_err(|_| ShuffleError::Rejected {
        check: Check::Batched,
    })?;
    if sum.is_identity() {
        Ok(())
    } else {
        Err(ShuffleError::Rejected {
            check: Check::Batched,
        })
    }
}

#[cfg(test)]
mod tests;
