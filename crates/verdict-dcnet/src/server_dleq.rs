//! *Server create* and *server verify* of every verifiable suite, written once.
//!
//! A server ciphertext is `D_k = τ·(−B_k)` for `k = 1..L` with the vector-DLEQ proof
//! `PoK{τ : V = τ·g ∧ ∀k D_k = τ·(−B_k)}` ([`DleqCiphertext`]), where `g` is the generator of
//! the key group `G` and the `B_k` are the slot's bases in the ciphertext group `H`:
//!
//! | suite | `τ` | `V` | `B_k` |
//! |---|---|---|---|
//! | hashing-generator | `Σ_{i∈S} s_ij` | `Σ_{i∈S} K_ij` | the hashed generators `g_k` |
//! | ElGamal | `z_j` | `Z_j` | `Σ_{i∈S} R_{i,k}` |
//! | pairing | `z_j` | `Z_j ∈ G2` | `e(T_k, Σ_{i∈S} X_i) ∈ GT` |
//!
//! Each suite computes its negated bases and its transcript (which binds the accepted set its
//! own way); computing the `D_k`, building the statement, proving and checking are here.

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_nizk::{Encoded, Statement, Transcript, VectorDleq};
use zeroize::Zeroizing;

use crate::error::DcError;
use crate::ids::ServerId;
use crate::verifiable::SuiteError;
use crate::wire::DleqCiphertext;

/// Which shared step failed; each suite maps it to its own error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ServerDleqError {
    /// The statement is malformed (no bases, or as many elements as bases): a caller error.
    Statement,
    /// The prover failed (it cannot for a well-formed statement and its witness).
    Proof,
    /// The proof does not verify.
    Rejected,
}

impl ServerDleqError {
    /// As the crate-wide error of server `server`'s step (hashing-generator).
    pub(crate) fn into_dc(self, server: ServerId) -> DcError {
        match self {
            Self::Statement => DcError::InvalidParameters("empty slot"),
            Self::Proof => DcError::InvalidParameters("server proof"),
            Self::Rejected => DcError::InvalidServerProof { server },
        }
    }

    /// As the direct API's error of server `server`'s step (ElGamal, pairing).
    pub(crate) fn into_suite(self, server: u32) -> SuiteError {
        match self {
            Self::Statement => SuiteError::Parameters("server statement"),
            Self::Proof => SuiteError::Parameters("server proof"),
            Self::Rejected => SuiteError::ServerProof { server },
        }
    }
}

/// The statement `V = τ·g ∧ ∀k D_k = τ·(−B_k)` for the server value `key` (`V`), the negated
/// bases and the ciphertext elements `D_k`.
pub(crate) fn statement<G: Group, H: Group<Scalar = G::Scalar>>(
    key: impl Into<Encoded<G>>,
    neg_bases: Vec<Encoded<H>>,
    elements: Vec<Encoded<H>>,
) -> Result<VectorDleq<G, H>, ServerDleqError> {
    VectorDleq::new_in_pair(Encoded::generator(), key, neg_bases, elements)
        .map_err(|_| ServerDleqError::Statement)
}

/// *Server create*: `D_k = τ·(−B_k)` and its proof, made on `transcript`.
pub(crate) fn prove<G: Group, H: Group<Scalar = G::Scalar>, R: RngCore + CryptoRng + ?Sized>(
    tau: &G::Scalar,
    neg_bases: Vec<Encoded<H>>,
    transcript: &mut Transcript,
    rng: &mut R,
) -> Result<DleqCiphertext<G, H>, ServerDleqError> {
    let ds: Vec<H> = neg_bases.iter().map(|b| *b.point() * tau).collect();
    let elements = Encoded::batch_new(&ds);
    let st = statement::<G, H>(G::mul_generator(tau), neg_bases, elements.clone())?;
    // The witness is as secret as τ: wiped once the proof is made.
    let witness = Zeroizing::new([*tau]);
    let proof = st
        .prove(transcript, &*witness, rng)
        .map_err(|_| ServerDleqError::Proof)?;
    Ok(DleqCiphertext { elements, proof })
}

/// *Server verify*: checks `ct` against the server value `key` (`V`) and the negated bases.
pub(crate) fn verify<G: Group, H: Group<Scalar = G::Scalar>>(
    key: impl Into<Encoded<G>>,
    neg_bases: Vec<Encoded<H>>,
    ct: &DleqCiphertext<G, H>,
    transcript: &mut Transcript,
) -> Result<(), ServerDleqError> {
    statement(key, neg_bases, ct.elements.clone())?
        .verify(transcript, &ct.proof)
        .map_err(|_| ServerDleqError::Rejected)
}
