//! The shuffle statement, the prover's witness, the proof, and what prover and verifier
//! compute alike (statement checks, the statement transcript, the first move's encoding).

use rand_core::{CryptoRng, RngCore};
use verdict_group::{Group, SecretScalar};
use zeroize::Zeroizing;

use crate::ProofContext;
use crate::elgamal::{Ciphertext, CiphertextList};
use crate::error::ShuffleError;
use crate::hooks::Hooks;
use crate::simple::SimpleShuffleProof;
use crate::transcript::Transcript;
use crate::util::{check_len, encode_flat, random_permutation};

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
    pub(super) permutation: Zeroizing<Vec<usize>>,
    pub(super) rerandomizers: Vec<SecretScalar<G::Scalar>>,
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
    /// `β_j`, indexed by input (secret: with them and the permutation anyone links outputs to
    /// inputs).
    pub fn rerandomizers(&self) -> &[SecretScalar<G::Scalar>] {
        &self.rerandomizers
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
/// Returns the outputs and the witness for [`prove`](super::prove).
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
    // Two constant-time multiplications per ciphertext, each output on its own: in parallel
    // with the `parallel` feature (the randomness was all drawn above, in order).
    let outputs = verdict_group::par::map(&permutation, |&j| {
        inputs[j].rerandomize_table(&table, rerandomizers[j].expose())
    });
    (
        CiphertextList::new(outputs),
        ShuffleWitness {
            permutation,
            rerandomizers,
        },
    )
}

/// Shape and sanity checks shared by prover and verifier.
pub(super) fn check_statement<G: Group>(
    st: &ShuffleStatement<'_, G>,
) -> Result<usize, ShuffleError> {
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
pub(super) fn statement_transcript<G: Group>(
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
pub(super) fn encode_first_move<G: Group>(
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
