//! Neff's verifiable shuffle of ElGamal pairs (2004, §4), non-interactive.
//!
//! Statement: encryption parameters `g` (the group generator) and `h`, inputs `(Xᵢ, Yᵢ)` and
//! outputs `(X̄ᵢ, Ȳᵢ) = (X_{π(i)} + β_{π(i)}·g, Y_{π(i)} + β_{π(i)}·h)`. The proof is the
//! transcript of protocol EGA with the verifier's moves replaced by Fiat–Shamir challenges over
//! one transcript that first absorbs label, version, group, session, prover index, `n`, `g`,
//! `h`, every input and every output:
//!
//! | move | prover sends | challenge |
//! |---|---|---|
//! | EGA.1 | `Γ, A, C, U, W, Λ₁, Λ₂` | `ρ₁..ρ_n` |
//! | EGA.3 | `D` | `λ` |
//! | EGA.5 | `σ, τ` | `t` (SS_k) |
//! | SS_k | `Θ₁..Θ_{2n}` | `c` |
//! | SS_k | `α₁..α_{2n−1}` | — |
//!
//! The verifier computes `Bᵢ = ρᵢ·g − Uᵢ`, `Rᵢ = Aᵢ + λ·Bᵢ` and `Sᵢ = Cᵢ + λ·Dᵢ` itself;
//! nothing of the prover's stands in for them. Proof size: `7n + 3` points and `3n` scalars.

use rand_core::{CryptoRng, RngCore};
use verdict_group::{FixedBaseTable, Group, Scalar, SecretScalar};
use zeroize::Zeroizing;

use crate::ProofContext;
use crate::elgamal::{Ciphertext, CiphertextList};
use crate::error::{Check, ShuffleError};
use crate::hooks::Hooks;
use crate::simple::{self, SimpleShuffleProof};
use crate::transcript::{Transcript, append_scalars, challenge_weights};
use crate::util::{check_len, check_permutation, concat_reprs, encode_flat, random_permutation};

/// How many times the prover retries after a degenerate challenge (probability ≈ n²/q each).
const PROVE_ATTEMPTS: usize = 4;

/// The public statement: `h`, the inputs and the outputs (`g` is the group generator).
///
/// All points must already be validated group elements (they are, if they came through
/// [`Group::from_bytes`] or this crate's decoders); this is checked once, at intake.
#[derive(Debug, Clone, Copy)]
pub struct ShuffleStatement<'a, G: Group> {
    /// The encryption key `h`.
    pub h: G,
    /// The input ciphertexts.
    pub inputs: &'a CiphertextList<G>,
    /// The output ciphertexts.
    pub outputs: &'a CiphertextList<G>,
}

/// The prover's secret: `outputs[i] = inputs[π(i)]` re-randomized by `β_{π(i)}`.
///
/// Zeroized on drop: the permutation is held in a [`Zeroizing`] and every re-randomizer in a
/// [`SecretScalar`]. `Debug` is redacted.
pub struct ShuffleWitness<G: Group> {
    permutation: Zeroizing<Vec<usize>>,
    rerandomizers: Vec<SecretScalar<G::Scalar>>,
}

impl<G: Group> ShuffleWitness<G> {
    /// A witness from `permutation[i] = π(i)` and `rerandomizers[j] = β_j` (indexed by input).
    pub fn new(permutation: Vec<usize>, rerandomizers: Vec<SecretScalar<G::Scalar>>) -> Self {
        Self {
            permutation: Zeroizing::new(permutation),
            rerandomizers,
        }
    }
    /// `π`: output `i` is a re-encryption of input `permutation()[i]`.
    pub fn permutation(&self) -> &[usize] {
        &self.permutation
    }
}

impl<G: Group> core::fmt::Debug for ShuffleWitness<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ShuffleWitness(<redacted>)")
    }
}

/// A non-interactive proof of an ElGamal shuffle: `7n + 3` points and `3n` scalars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShuffleProof<G: Group> {
    pub(crate) gamma: G,
    pub(crate) a: Vec<G>,
    pub(crate) c: Vec<G>,
    pub(crate) u: Vec<G>,
    pub(crate) w: Vec<G>,
    pub(crate) lambda1: G,
    pub(crate) lambda2: G,
    pub(crate) d: Vec<G>,
    /// Encodings of `Γ‖A‖C‖U‖W‖Λ₁‖Λ₂` and of `D` (computed once; absorbed as is).
    pub(crate) first_enc: Vec<u8>,
    pub(crate) d_enc: Vec<u8>,
    pub(crate) sigma: Vec<G::Scalar>,
    pub(crate) tau: G::Scalar,
    pub(crate) simple: SimpleShuffleProof<G>,
}

impl<G: Group> ShuffleProof<G> {
    /// The number of elements `n` this proof claims to shuffle.
    pub fn len(&self) -> usize {
        self.a.len()
    }
    /// Whether the proof is for an empty list (never valid).
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
    /// Number of group elements in a proof for `n` elements: `7n + 3`.
    pub const fn point_count(n: usize) -> usize {
        7 * n + 3
    }
    /// Number of scalars in a proof for `n` elements: `3n`.
    pub const fn scalar_count(n: usize) -> usize {
        3 * n
    }
}

/// Shuffles and re-randomizes `inputs` under `h` with a fresh random permutation.
///
/// Returns the outputs and the witness for [`prove`].
pub fn shuffle<G: Group, R: RngCore + CryptoRng + ?Sized>(
    h: &G,
    inputs: &[Ciphertext<G>],
    rng: &mut R,
) -> (CiphertextList<G>, ShuffleWitness<G>) {
    let n = inputs.len();
    let permutation = Zeroizing::new(random_permutation(n, rng));
    let rerandomizers: Vec<SecretScalar<G::Scalar>> =
        (0..n).map(|_| SecretScalar::random(rng)).collect();
    let table = h.precompute();
    let outputs = permutation
        .iter()
        .map(|&j| inputs[j].rerandomize_table(&table, rerandomizers[j].expose()))
        .collect();
    (
        CiphertextList::new(outputs),
        ShuffleWitness {
            permutation,
            rerandomizers,
        },
    )
}

/// Shape and sanity checks shared by prover and verifier.
fn check_statement<G: Group>(st: &ShuffleStatement<'_, G>) -> Result<usize, ShuffleError> {
    let n = st.inputs.len();
    if n < 2 {
        return Err(ShuffleError::TooFew { n });
    }
    check_len("outputs", n, st.outputs.len())?;
    if st.h.is_identity() {
        return Err(ShuffleError::Identity { what: "h" });
    }
    Ok(n)
}

/// The transcript after the statement.
fn statement_transcript<G: Group>(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    hooks: &Hooks<G>,
) -> Transcript {
    let mut tr = ctx.transcript::<G>(b"verdict-shuffle/elgamal-pair-shuffle", st.inputs.len());
    tr.append_point(b"g", &G::generator());
    tr.append_point(b"h", &st.h);
    if hooks.absorb_statement() {
        tr.append_message(b"inputs", st.inputs.as_bytes());
        tr.append_message(b"outputs", st.outputs.as_bytes());
    }
    tr
}

/// The encodings of the first move `Γ‖A‖C‖U‖W‖Λ₁‖Λ₂`.
fn encode_first_move<G: Group>(
    gamma: &G,
    a: &[G],
    c: &[G],
    u: &[G],
    w: &[G],
    lambda1: &G,
    lambda2: &G,
) -> Vec<u8> {
    let mut pts = Vec::with_capacity(4 * a.len() + 3);
    pts.push(*gamma);
    pts.extend_from_slice(a);
    pts.extend_from_slice(c);
    pts.extend_from_slice(u);
    pts.extend_from_slice(w);
    pts.push(*lambda1);
    pts.push(*lambda2);
    encode_flat(&pts)
}

impl<G: Group> ShuffleProof<G> {
    /// Assembles a proof from its parts (encodes the points once).
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn assemble(
        gamma: G,
        a: Vec<G>,
        c: Vec<G>,
        u: Vec<G>,
        w: Vec<G>,
        lambda1: G,
        lambda2: G,
        d: Vec<G>,
        sigma: Vec<G::Scalar>,
        tau: G::Scalar,
        simple: SimpleShuffleProof<G>,
    ) -> Self {
        let first_enc = encode_first_move(&gamma, &a, &c, &u, &w, &lambda1, &lambda2);
        let d_enc = encode_flat(&d);
        Self {
            gamma,
            a,
            c,
            u,
            w,
            lambda1,
            lambda2,
            d,
            first_enc,
            d_enc,
            sigma,
            tau,
            simple,
        }
    }
}

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

fn random_nonzero<S: Scalar, R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> S {
    loop {
        let s = S::random(rng);
        if !s.is_zero() {
            return s;
        }
    }
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

    // EGA.1
    let gamma = Zeroizing::new(random_nonzero::<G::Scalar, _>(rng));
    let tau0 = Zeroizing::new(G::Scalar::random(rng));
    let random_vec = |rng: &mut R| -> Zeroizing<Vec<G::Scalar>> {
        Zeroizing::new((0..n).map(|_| G::Scalar::random(rng)).collect())
    };
    let u = random_vec(rng);
    let w = random_vec(rng);
    let a = random_vec(rng);
    // Every published point is computed together with its encoding (a group may share work
    // across the batch; ristretto255 saves an inverse square root per point).
    let gamma_pt = G::mul_generator(&gamma);
    let (a_pts, a_enc) = G::mul_generator_encoded(&a);
    let c_exps: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(pi.iter().map(|&j| *gamma * a[j]).collect());
    let (c_pts, c_enc) = G::mul_generator_encoded(&c_exps);
    drop(c_exps);
    let (u_pts, u_enc) = G::mul_generator_encoded(&u);
    // W is built from its halves W/2 = (γw/2)·g, which are kept: D/2 is derived from them below.
    let w_half_exps: Zeroizing<Vec<G::Scalar>> =
        Zeroizing::new(w.iter().map(|wi| *gamma * *wi * half).collect());
    let w_halves: Vec<G> = w_half_exps.iter().map(G::mul_generator).collect();
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
    let lambda1 = G::mul_generator(&e0) + G::msm(&coef, &xs).map_err(msm_err)?;
    let lambda2 = h_table.mul(&e0) + G::msm(&coef, &ys).map_err(msm_err)?;
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
    let d_halves: Vec<G> = gamma_half_pt
        .mul_many_vartime(&sigma)
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
    let simple =
        simple::prove_core::<G, R>(&mut tr, &G::mul_generator_encoded, &gamma, &r, &s, rng);

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
    let phi1 = G::msm_vartime(&scalars, &xs).map_err(|_| reject(Check::Lambda1))?;
    if proof.lambda1 + g.mul_vartime(&proof.tau) != phi1 {
        return Err(reject(Check::Lambda1));
    }
    let phi2 = G::msm_vartime(&scalars, &ys).map_err(|_| reject(Check::Lambda2))?;
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
    let sum = G::msm_vartime(&scalars, &points).map_err(|_| reject.clone())?;
    if sum.is_identity() {
        Ok(())
    } else {
        Err(reject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elgamal::KeyPair;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use verdict_group::Ristretto255 as G;

    type S = <G as Group>::Scalar;
    const SESSION: [u8; 32] = [7u8; 32];

    fn setup(n: usize, rng: &mut ChaCha20Rng) -> (KeyPair<G>, Vec<G>, CiphertextList<G>) {
        let kp = KeyPair::<G>::generate(rng);
        let msgs: Vec<G> = (0..n).map(|_| G::random(rng)).collect();
        let cts = msgs
            .iter()
            .map(|m| Ciphertext::encrypt(&kp.public(), m, rng).0)
            .collect();
        (kp, msgs, CiphertextList::new(cts))
    }

    fn both_accept(
        ctx: &ProofContext,
        st: &ShuffleStatement<'_, G>,
        proof: &ShuffleProof<G>,
        hooks: &Hooks<G>,
    ) -> (bool, bool) {
        (
            verify_batched_with_hooks(ctx, st, proof, hooks).is_ok(),
            verify_each_with_hooks(ctx, st, proof, hooks).is_ok(),
        )
    }

    /// Trap 1: a verifier that takes `R`, `S` from the prover instead of computing
    /// `Rᵢ = Aᵢ + λ·Bᵢ`, `Sᵢ = Cᵢ + λ·Dᵢ` accepts *tagged* outputs `e_i·(X_{π(i)}, Y_{π(i)})`,
    /// which decrypt to `e_i·M_{π(i)}` and so link every output to its input.
    #[test]
    fn forgery_tagged_outputs_needs_verifier_computed_r_s() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let n = 8;
        let (kp, msgs, inputs) = setup(n, &mut rng);
        let h = kp.public();
        let pi = random_permutation(n, &mut rng);
        let tags: Vec<S> = (0..n).map(|_| random_nonzero(&mut rng)).collect();
        let outputs = CiphertextList::new((0..n).map(|i| inputs[pi[i]].scale(&tags[i])).collect());
        // The attack is real: output i decrypts to a tagged copy of message π(i).
        for i in 0..n {
            assert_eq!(outputs[i].decrypt(kp.secret()), msgs[pi[i]] * tags[i]);
        }
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let ctx = ProofContext::new(SESSION, 0);

        // The forger.
        let mut tr = statement_transcript(&ctx, &st, &Hooks::secure());
        let gamma: S = random_nonzero(&mut rng);
        let gamma_pt = G::mul_generator(&gamma);
        let a: Vec<G> = (0..n).map(|_| G::random(&mut rng)).collect();
        let c: Vec<G> = (0..n).map(|_| G::random(&mut rng)).collect();
        let u: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
        let w: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
        let u_pts: Vec<G> = u.iter().map(G::mul_generator).collect();
        let w_pts: Vec<G> = w
            .iter()
            .map(|wi| G::mul_generator(&(gamma * *wi)))
            .collect();
        let neg_u: Vec<S> = u.iter().map(|x| -*x).collect();
        let xs: Vec<G> = inputs.iter().map(|c| c.x).collect();
        let ys: Vec<G> = inputs.iter().map(|c| c.y).collect();
        let lambda1 = G::msm_vartime(&neg_u, &xs).unwrap();
        let lambda2 = G::msm_vartime(&neg_u, &ys).unwrap();
        let first_enc = encode_first_move(&gamma_pt, &a, &c, &u_pts, &w_pts, &lambda1, &lambda2);
        tr.append_message(b"first-move", &first_enc);
        let rho = tr.challenge_scalars::<G>(b"rho", n);
        let sigma: Vec<S> = (0..n)
            .map(|i| (rho[pi[i]] - u[pi[i]]) * tags[i].invert().unwrap())
            .collect();
        let d: Vec<G> = (0..n).map(|i| gamma_pt * sigma[i] - w_pts[i]).collect();
        tr.append_message(b"D", &encode_flat(&d));
        let _lambda = tr.challenge_scalar::<G>(b"lambda");
        let tau = S::zero();
        append_scalars(&mut tr, b"sigma", &sigma);
        tr.append_scalar(b"tau", &tau);
        // An honest simple shuffle of R, S of the forger's choosing.
        let r: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
        let s: Vec<S> = pi.iter().map(|&j| gamma * r[j]).collect();
        let r_pts: Vec<G> = r.iter().map(G::mul_generator).collect();
        let s_pts: Vec<G> = s.iter().map(G::mul_generator).collect();
        let simple = simple::prove_core::<G, _>(
            &mut tr,
            &G::mul_generator_encoded,
            &gamma,
            &r,
            &s,
            &mut rng,
        )
        .unwrap();
        let proof = ShuffleProof::assemble(
            gamma_pt, a, c, u_pts, w_pts, lambda1, lambda2, d, sigma, tau, simple,
        );

        let insecure = Hooks::insecure(false, Some((r_pts, s_pts)));
        assert_eq!(
            both_accept(&ctx, &st, &proof, &insecure),
            (true, true),
            "without the R,S recomputation the tagging forgery must pass (test is load-bearing)"
        );
        assert_eq!(
            both_accept(&ctx, &st, &proof, &Hooks::secure()),
            (false, false)
        );
        assert!(matches!(
            verify_each(&ctx, &st, &proof),
            Err(ShuffleError::Rejected {
                check: Check::SimpleShuffle { .. }
            })
        ));
    }

    /// Trap 2: if the outputs are not absorbed before the challenges, a prover can take an
    /// honest proof and then pick `n − 1` outputs freely (here: tagged) and solve for the last.
    #[test]
    fn forgery_outputs_chosen_after_challenges_needs_statement_in_transcript() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let n = 8;
        let (kp, _msgs, inputs) = setup(n, &mut rng);
        let h = kp.public();
        let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
        let ctx = ProofContext::new(SESSION, 3);
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let skip = Hooks::insecure(true, None);
        let proof = prove_with_hooks(&ctx, &st, &witness, &mut rng, &skip).unwrap();
        assert_eq!(both_accept(&ctx, &st, &proof, &skip), (true, true));

        // Choose outputs 0..n−2 after the fact (tag them), solve output n−1 from (34), (35).
        let mut forged = outputs.to_vec();
        for (i, o) in forged.iter_mut().enumerate().take(n - 1) {
            *o = o.scale(&S::from_u64(i as u64 + 2));
        }
        let sig = &proof.sigma;
        let last_inv = sig[n - 1].invert().unwrap();
        let mut delta = Ciphertext {
            x: G::identity(),
            y: G::identity(),
        };
        for i in 0..n - 1 {
            delta.x += (outputs[i].x - forged[i].x) * sig[i];
            delta.y += (outputs[i].y - forged[i].y) * sig[i];
        }
        forged[n - 1] = Ciphertext {
            x: outputs[n - 1].x + delta.x * last_inv,
            y: outputs[n - 1].y + delta.y * last_inv,
        };
        let forged = CiphertextList::new(forged);
        assert_ne!(forged, outputs);
        let st_forged = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &forged,
        };
        assert_eq!(
            both_accept(&ctx, &st_forged, &proof, &skip),
            (true, true),
            "without the statement in the transcript the forgery must pass (test is load-bearing)"
        );
        assert_eq!(
            both_accept(&ctx, &st_forged, &proof, &Hooks::secure()),
            (false, false)
        );
        // And with the statement absorbed, an honest proof does not transfer to the forged
        // outputs either.
        let honest = prove(&ctx, &st, &witness, &mut rng).unwrap();
        assert!(verify(&ctx, &st, &honest).is_ok());
        assert!(verify(&ctx, &st_forged, &honest).is_err());
        assert!(verify_each(&ctx, &st_forged, &honest).is_err());
    }

    #[test]
    fn per_equation_verifier_pinpoints() {
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        let n = 5;
        let (kp, _, inputs) = setup(n, &mut rng);
        let h = kp.public();
        let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
        let ctx = ProofContext::new(SESSION, 1);
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let proof = prove(&ctx, &st, &witness, &mut rng).unwrap();
        verify_each(&ctx, &st, &proof).unwrap();
        // σ is absorbed before t, c: a tampered σ changes those challenges, but (33) is the
        // first check and pinpoints the element.
        let mut bad = proof.clone();
        bad.sigma[2] += S::one();
        assert_eq!(
            verify_each(&ctx, &st, &bad),
            Err(ShuffleError::Rejected {
                check: Check::Commitment { index: 2 }
            })
        );
        let mut bad = proof.clone();
        bad.simple.alpha[3] += S::one();
        assert_eq!(
            verify_each(&ctx, &st, &bad),
            Err(ShuffleError::Rejected {
                check: Check::SimpleShuffle { index: 3 }
            })
        );
        let mut bad = proof.clone();
        bad.tau += S::one();
        assert!(matches!(
            verify_each(&ctx, &st, &bad),
            Err(ShuffleError::Rejected {
                check: Check::Lambda1
            })
        ));
        assert_eq!(
            verify(&ctx, &st, &bad),
            Err(ShuffleError::Rejected {
                check: Check::Batched
            })
        );
    }
}
