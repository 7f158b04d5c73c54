//! Steps 2 and 3: a server's shuffle of the list and its decryption shares, and opening the
//! slots from the final list.

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_group::codec::Reader;
use verdict_nizk::{Encoded, Proof, Statement, VectorDleq};
use zeroize::Zeroizing;

use crate::ProofContext;
use crate::elgamal::{CiphertextList, KeyPair};
use crate::error::{KeyShuffleError, ShuffleDecodeError};
use crate::shuffle::{self, ShuffleProof, ShuffleStatement};

use super::params::KeyShuffleParams;

const TAG_SHUFFLE: &[u8; 4] = b"vsH1";
const TAG_DECRYPTION: &[u8; 4] = b"vsD1";

/// A server's shuffle step: its output list and the proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShuffleStep<G: Group> {
    /// The re-randomized, permuted list.
    pub outputs: CiphertextList<G>,
    /// Neff's proof, bound to the session and the server's index.
    pub proof: ShuffleProof<G>,
}

impl<G: Group> ShuffleStep<G> {
    /// Wire format: `"vsH1" ‖ u32 n ‖ outputs[n] ‖ proof(n)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.outputs.len();
        let mut out = TAG_SHUFFLE.to_vec();
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend_from_slice(self.outputs.as_bytes());
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes a step for exactly `n` ciphertexts.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_SHUFFLE)?;
        let len = r.u32()?;
        if len as usize != n {
            return Err(ShuffleDecodeError::BadLength {
                len: len.into(),
                max: n as u64,
            });
        }
        let outputs = CiphertextList::from_bytes(r.raw(2 * n * G::ENCODED_LEN)?)?;
        let proof = ShuffleProof::read_from(&mut r, n)?;
        r.finish()?;
        Ok(Self { outputs, proof })
    }
}

/// Server side: shuffle `inputs` under the joint key and prove it as server `server`.
pub fn server_shuffle<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    server: u32,
    inputs: &CiphertextList<G>,
    rng: &mut R,
) -> Result<ShuffleStep<G>, KeyShuffleError> {
    let (outputs, witness) = shuffle::shuffle(&params.joint, inputs, rng);
    let st = ShuffleStatement {
        h: params.joint,
        inputs,
        outputs: &outputs,
    };
    let ctx = ProofContext::new(params.session, server);
    let proof = shuffle::prove(&ctx, &st, &witness, rng).map_err(|source| {
        KeyShuffleError::InvalidShuffle {
            server: server as usize,
            source,
        }
    })?;
    Ok(ShuffleStep { outputs, proof })
}

/// Verifies server `server`'s shuffle step of `inputs` (batched verifier).
pub fn verify_shuffle_step<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    inputs: &CiphertextList<G>,
    step: &ShuffleStep<G>,
) -> Result<(), KeyShuffleError> {
    let st = ShuffleStatement {
        h: params.joint,
        inputs,
        outputs: &step.outputs,
    };
    let ctx = ProofContext::new(params.session, server);
    shuffle::verify(&ctx, &st, &step.proof).map_err(|source| KeyShuffleError::InvalidShuffle {
        server: server as usize,
        source,
    })
}

/// A server's decryption shares `D_i = s_j·X_i` for the final list, with one vector DLEQ proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecryptionStep<G: Group> {
    pub(super) shares: Vec<Encoded<G>>,
    pub(super) proof: Proof<G>,
}

impl<G: Group> DecryptionStep<G> {
    /// The shares `D_i`.
    pub fn shares(&self) -> impl Iterator<Item = &G> {
        self.shares.iter().map(Encoded::point)
    }
    /// Wire format: `"vsD1" ‖ u32 n ‖ D[n] ‖ proof` (proof: 2 commitments, 1 response).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = TAG_DECRYPTION.to_vec();
        out.extend_from_slice(&(self.shares.len() as u32).to_le_bytes());
        for d in &self.shares {
            out.extend_from_slice(d.as_bytes());
        }
        self.proof.write_to(&mut out);
        out
    }
    /// Decodes a step for exactly `n` ciphertexts.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        r.tag(TAG_DECRYPTION)?;
        let len = r.u32()?;
        if len as usize != n {
            return Err(ShuffleDecodeError::BadLength {
                len: len.into(),
                max: n as u64,
            });
        }
        // `n` shares (one per client): decoded in parallel with the `parallel` feature.
        let shares = r.decode_items(n, G::ENCODED_LEN, |offset, item| {
            Encoded::from_bytes(item).map_err(|source| ShuffleDecodeError::Element {
                what: "decryption share",
                offset,
                source,
            })
        })?;
        let offset = r.offset();
        let shape = verdict_nizk::Shape {
            commitments_g: 1,
            commitments_h: 1,
            responses: 1,
        };
        let proof =
            Proof::from_bytes(r.rest(), shape).map_err(|_| ShuffleDecodeError::Element {
                what: "decryption proof",
                offset,
                source: verdict_group::DecodeError::NonCanonical,
            })?;
        Ok(Self { shares, proof })
    }
}

pub(super) fn dleq_statement<G: Group>(
    pk: &G,
    xs: &[Encoded<G>],
    shares: &[Encoded<G>],
) -> Result<VectorDleq<G>, &'static str> {
    VectorDleq::new(Encoded::generator(), *pk, xs.to_vec(), shares.to_vec())
        .map_err(|_| "share count does not match the list")
}

/// Server side: decryption shares for `list` with a proof against the server's own key.
pub fn server_decrypt<G: Group, R: RngCore + CryptoRng + ?Sized>(
    params: &KeyShuffleParams<G>,
    server: u32,
    key: &KeyPair<G>,
    list: &CiphertextList<G>,
    rng: &mut R,
) -> Result<DecryptionStep<G>, KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidDecryptionShare {
        server: server as usize,
        reason,
    };
    match params.server_keys.get(server as usize) {
        Some(pk) if *pk == key.public() => {}
        _ => return Err(invalid("key pair does not match the roster")),
    }
    let s = key.secret().expose();
    // One constant-time multiplication per client, encoded in the same pass: in parallel
    // chunks with the `parallel` feature.
    let x: Vec<G> = list.iter().map(|c| c.x).collect();
    let shares = Encoded::mul_each(&x, s);
    let xs = x_components(list);
    let st = dleq_statement(&key.public(), &xs, &shares).map_err(invalid)?;
    let mut t = params.decryption_context(server).transcript();
    let witness = Zeroizing::new([*s]);
    let proof = st
        .prove(&mut t, &*witness, rng)
        .map_err(|_| invalid("cannot prove"))?;
    Ok(DecryptionStep { shares, proof })
}

pub(super) fn x_components<G: Group>(list: &CiphertextList<G>) -> Vec<Encoded<G>> {
    // The list already holds these encodings, but `Encoded` can only be built by encoding or
    // decoding; re-encoding costs one point encoding per element (see the notes).
    let xs: Vec<G> = list.iter().map(|c| c.x).collect();
    Encoded::batch_new(&xs)
}

/// Verifies server `server`'s decryption shares for `list`.
pub fn verify_decryption_step<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    list: &CiphertextList<G>,
    step: &DecryptionStep<G>,
) -> Result<(), KeyShuffleError> {
    verify_decryption_with(params, server, &x_components(list), step)
}

pub(super) fn verify_decryption_with<G: Group>(
    params: &KeyShuffleParams<G>,
    server: u32,
    xs: &[Encoded<G>],
    step: &DecryptionStep<G>,
) -> Result<(), KeyShuffleError> {
    let invalid = |reason| KeyShuffleError::InvalidDecryptionShare {
        server: server as usize,
        reason,
    };
    let pk = params
        .server_keys
        .get(server as usize)
        .ok_or(invalid("server index outside the roster"))?;
    let st = dleq_statement(pk, xs, &step.shares).map_err(invalid)?;
    let mut t = params.decryption_context(server).transcript();
    st.verify(&mut t, &step.proof)
        .map_err(|_| invalid("DLEQ proof rejected"))
}

/// Strips all servers' shares from `list` and sorts the keys: slot `s` is `keys[s]`.
///
/// Keys that cannot own a slot are dropped: the identity (a client may encrypt it with a valid
/// proof, witness `y = 0`) and every copy of a key that appears more than once (two colluding
/// clients may encrypt the same key). Both are the submitting clients' doing and cost only their
/// own slots; aborting instead would let one client stop set-up for everyone, and nothing in the
/// list says which server to blame (none is at fault). Dropping is deterministic, so every
/// participant derives the same slots.
pub(super) fn open_slots<G: Group>(
    list: &CiphertextList<G>,
    steps: &[DecryptionStep<G>],
) -> Vec<Encoded<G>> {
    // Each key is its ciphertext's `y` less every server's share, independently of the others,
    // and the keys are encoded in one batch: both in parallel with the `parallel` feature
    // (the encodings are canonical, so the order and the slots are the serial path's).
    let indices: Vec<usize> = (0..list.len()).collect();
    let cts = list.as_slice();
    let points: Vec<G> = verdict_group::par::map(&indices, |&i| {
        cts[i].y - steps.iter().map(|s| *s.shares[i].point()).sum::<G>()
    });
    let mut keys: Vec<Encoded<G>> = Encoded::batch_new(&points)
        .into_iter()
        .filter(|k| !k.point().is_identity())
        .collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let unique: Vec<bool> = (0..keys.len())
        .map(|i| {
            let same =
                |j: Option<&Encoded<G>>| j.is_some_and(|k| k.as_bytes() == keys[i].as_bytes());
            !same(i.checked_sub(1).and_then(|j| keys.get(j))) && !same(keys.get(i + 1))
        })
        .collect();
    // Kept keys move out of the sorted list (no copy of their encodings).
    keys.into_iter()
        .zip(unique)
        .filter_map(|(k, keep)| keep.then_some(k))
        .collect()
}
