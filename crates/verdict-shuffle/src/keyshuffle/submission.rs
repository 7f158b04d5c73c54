//! Step 1: a client's encrypted pseudonym key with its proof of knowledge.

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::Reader;
use verdict_group::{Group, SecretScalar};
use verdict_nizk::{Proof, SigningKey, Statement};
use zeroize::Zeroizing;

use crate::elgamal::Ciphertext;
use crate::error::{KeyShuffleError, ShuffleDecodeError};

use super::params::KeyShuffleParams;

const TAG_SUBMISSION: &[u8; 4] = b"vsS1";

/// A client's submission: its encrypted pseudonym key and proof of knowledge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission<G: Group> {
    pub(super) ciphertext: Ciphertext<G>,
    pub(super) proof: Proof<G>,
    /// `X ‖ Z` canonically encoded: equal exactly when the ciphertexts are (encodings are
    /// canonical), so a shuffle finds a copied ciphertext with one set lookup instead of a
    /// point comparison against every earlier submission.
    pub(super) encoding: Box<[u8]>,
}

impl<G: Group> Submission<G> {
    /// The encrypted pseudonym key.
    pub fn ciphertext(&self) -> &Ciphertext<G> {
        &self.ciphertext
    }
    /// Wire format: `"vsS1" ‖ X ‖ Z ‖ proof` (proof: 2 commitments, 2 responses).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = TAG_SUBMISSION.to_vec();
        out.extend_from_slice(self.ciphertext.x.to_bytes().as_ref());
        out.extend_from_slice(self.ciphertext.y.to_bytes().as_ref());
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes and validates a submission (points, scalars, exact length).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_SUBMISSION)?;
        let start = r.offset();
        let x = r.point::<G>("X")?;
        let y = r.point::<G>("Z")?;
        let offset = r.offset();
        let encoding = bytes.get(start..offset).unwrap_or_default().into();
        let rest = r.rest();
        let shape = verdict_nizk::Shape {
            commitments_g: 2,
            commitments_h: 0,
            responses: 2,
        };
        let proof = Proof::from_bytes(rest, shape).map_err(|_| ShuffleDecodeError::Element {
            what: "submission proof",
            offset,
            source: verdict_group::DecodeError::NonCanonical,
        })?;
        Ok(Self {
            ciphertext: Ciphertext { x, y },
            proof,
            encoding,
        })
    }
}

/// Client side: a fresh pseudonym key and the submission carrying it.
pub fn client_submit<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    client: u32,
    rng: &mut R,
) -> Result<(SigningKey<G>, Submission<G>), KeyShuffleError> {
    let key = SigningKey::<G>::generate(rng);
    let sub = submit_pseudonym(params, client, key.secret(), rng)?;
    Ok((key, sub))
}

/// The submission of client `client` carrying the pseudonym key `y·g` for a given secret `y`.
///
/// [`client_submit`] is the normal entry point (a fresh key). This one exists because nothing
/// in the shuffle can stop a client from choosing its secret: `y = 0` (the identity as
/// pseudonym key) or a secret shared with a colluding client both give valid submissions. The
/// shuffle's output therefore drops such keys ([`KeyShuffle::slots`](super::KeyShuffle::slots)); this function lets tests
/// and deterministic vectors produce them.
pub fn submit_pseudonym<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    client: u32,
    y: &SecretScalar<G::Scalar>,
    rng: &mut R,
) -> Result<Submission<G>, KeyShuffleError> {
    let point = G::mul_generator(y.expose());
    let (ciphertext, r) = Ciphertext::encrypt(&params.joint, &point, rng);
    let invalid = |reason| KeyShuffleError::InvalidSubmission {
        client: client as usize,
        reason,
    };
    let rel = params.submission_relation(&ciphertext).map_err(invalid)?;
    let mut t = params.submission_context(client).transcript();
    // The witness copies are wiped when the proof is made (the originals are `SecretScalar`s).
    let witness = Zeroizing::new([*r.expose(), *y.expose()]);
    let proof = rel
        .prove(&mut t, &*witness, rng)
        .map_err(|_| invalid("cannot prove"))?;
    let encoding = [ciphertext.x.to_bytes(), ciphertext.y.to_bytes()]
        .iter()
        .flat_map(|r| r.as_ref().iter().copied())
        .collect();
    Ok(Submission {
        ciphertext,
        proof,
        encoding,
    })
}

/// Verifies client `client`'s submission.
pub fn verify_submission<G: Group>(
    params: &KeyShuffleParams<G>,
    client: u32,
    sub: &Submission<G>,
) -> Result<(), KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidSubmission {
        client: client as usize,
        reason,
    };
    if client as usize >= params.num_clients {
        return Err(invalid("client index outside the roster"));
    }
    let rel = params
        .submission_relation(&sub.ciphertext)
        .map_err(invalid)?;
    let mut t = params.submission_context(client).transcript();
    rel.verify(&mut t, &sub.proof)
        .map_err(|_| invalid("proof of knowledge rejected"))
}
