//! Ciphertext layouts shared by several suites: "`L` group elements followed by one proof".
//!
//! One generic type, [`Proven`], with one encoder and one decoder; the proof type says what
//! follows the elements ([`WireProof`]):
//!
//! - [`DleqCiphertext`]: `L` elements and one (vector-)DLEQ proof — every verifiable suite's
//!   **server** ciphertext (hashing-generator and ElGamal in one group, pairing with the
//!   elements in GT and the key in G2).
//! - [`OrCiphertext`]: `L` elements and the constant-size OR proof
//!   `(vector DLEQ) ∨ (Schnorr on the pseudonym key)` — the **client** ciphertext of the
//!   hashing-generator and pairing suites.
//!
//! Both have fixed sizes given `L` (no length fields): the encoding is the elements'
//! canonical encodings followed by the proof's. Decoders check the exact length, validate
//! every element, commitment and scalar, and never panic.

use verdict_group::codec::Reader;
use verdict_group::{Group, Scalar};
use verdict_nizk::wire::ReaderExt;
use verdict_nizk::{DecodeError, Encoded, OrProof, Proof, Shape};

use crate::error::DcDecodeError;
use crate::verifiable::{Culprit, SlotParams, SuiteError, read_proof, wire_error};

/// The shape of a (vector-)DLEQ proof: one commitment in each group, one response.
pub(crate) const DLEQ_SHAPE: Shape = Shape {
    commitments_g: 1,
    commitments_h: 1,
    responses: 1,
};

/// The shape of a Schnorr proof: one commitment, one response.
pub(crate) const SCHNORR_SHAPE: Shape = Shape {
    commitments_g: 1,
    commitments_h: 0,
    responses: 1,
};

pub(crate) fn write_elements<H: Group>(out: &mut Vec<u8>, elements: &[Encoded<H>]) {
    for e in elements {
        out.extend_from_slice(e.as_bytes());
    }
}

/// Checks that `bytes` has exactly `expected` bytes, then decodes it with `decode`.
pub(crate) fn decode_exact<T>(
    expected: usize,
    bytes: &[u8],
    decode: impl FnOnce(Reader<'_>) -> Result<T, DecodeError>,
) -> Result<T, DcDecodeError> {
    if bytes.len() != expected {
        return Err(DcDecodeError::Length {
            expected,
            actual: bytes.len(),
        });
    }
    decode(Reader::new(bytes)).map_err(wire_error)
}

/// The proof at the end of a [`Proven`] ciphertext: its fixed encoded size, encoding and
/// validating decoder, and which kind of participant sends such ciphertexts.
pub trait WireProof: Sized {
    /// Bytes of the encoded proof.
    fn encoded_len() -> usize;
    /// Appends the canonical encoding to `out`.
    fn write(&self, out: &mut Vec<u8>);
    /// Decodes and validates a proof from exactly [`WireProof::encoded_len`] bytes.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError>;
    /// The participant kind that sends ciphertexts with this proof, as the culprit of a
    /// decoding error.
    fn sender(id: u32) -> Culprit;
}

/// A DLEQ proof relating `G` and `H` (one commitment in each, one response): the proof of a
/// **server** ciphertext.
impl<G: Group, H: Group<Scalar = G::Scalar>> WireProof for Proof<G, H> {
    fn encoded_len() -> usize {
        DLEQ_SHAPE.encoded_len::<G, H>()
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.write_to(out);
    }
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Proof::from_bytes(bytes, DLEQ_SHAPE)
    }
    fn sender(id: u32) -> Culprit {
        Culprit::Server(id)
    }
}

/// The OR proof `(vector DLEQ over G and H) ∨ (Schnorr in G)`: first-branch challenge,
/// vector-DLEQ branch, Schnorr branch — the proof of a **client** ciphertext.
impl<G: Group, H: Group<Scalar = G::Scalar>> WireProof for OrProof<G, H> {
    fn encoded_len() -> usize {
        <G::Scalar as Scalar>::ENCODED_LEN
            + DLEQ_SHAPE.encoded_len::<G, H>()
            + SCHNORR_SHAPE.encoded_len::<G, H>()
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bytes());
    }
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut rd = Reader::new(bytes);
        let c0 = rd.scalar::<G::Scalar>("challenge")?;
        let p0 = read_proof::<G, H>(&mut rd, DLEQ_SHAPE)?;
        let p1 = read_proof::<G, H>(&mut rd, SCHNORR_SHAPE)?;
        rd.finish()?;
        Ok(OrProof::from_parts(vec![c0], vec![p0, p1]))
    }
    fn sender(id: u32) -> Culprit {
        Culprit::Client(id)
    }
}

/// `L` elements of `H` followed by one proof `P`.
///
/// Wire format: `E_1 ‖ … ‖ E_L ‖ proof` (fixed size given `L`, no length fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proven<H: Group, P> {
    /// The elements.
    pub elements: Vec<Encoded<H>>,
    /// The proof.
    pub proof: P,
}

/// `L` elements of `H` and a DLEQ proof relating `G` and `H` — a server ciphertext.
/// Wire format: `D_1 ‖ … ‖ D_L ‖ A_G ‖ A_H ‖ z`.
pub type DleqCiphertext<G, H = G> = Proven<H, Proof<G, H>>;

/// `L` elements of `H` and the OR proof `(vector DLEQ over G and H) ∨ (Schnorr in G)` — a
/// client ciphertext whose pad is bound to a long-term key. Wire format:
/// `C_1 ‖ … ‖ C_L ‖ c_0 ‖ A_G ‖ A_H ‖ z_0 ‖ A_Y ‖ z_1`. Owner and cover ciphertexts have the
/// same layout.
pub type OrCiphertext<G, H = G> = Proven<H, OrProof<G, H>>;

impl<H: Group, P: WireProof> Proven<H, P> {
    /// Bytes of a ciphertext with `l` elements.
    pub fn encoded_len(l: usize) -> usize {
        l * H::ENCODED_LEN + P::encoded_len()
    }
    /// Number of elements `L`.
    pub fn len(&self) -> usize {
        self.elements.len()
    }
    /// Whether there are no elements (never the case for ciphertexts built by this crate).
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::encoded_len(self.len()));
        write_elements(&mut out, &self.elements);
        self.proof.write(&mut out);
        out
    }
    /// Decodes and validates a ciphertext of `slot.elements` elements sent by `sender` (a
    /// server for [`DleqCiphertext`], a client for [`OrCiphertext`]; errors name it).
    pub fn from_bytes(slot: &SlotParams, sender: u32, bytes: &[u8]) -> Result<Self, SuiteError> {
        Self::read(Reader::new(bytes), slot.elements).map_err(|source| SuiteError::Decode {
            culprit: P::sender(sender),
            source,
        })
    }
    /// Decodes exactly [`Self::encoded_len`]`(l)` bytes.
    pub fn decode(l: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        decode_exact(Self::encoded_len(l), bytes, |rd| Self::read(rd, l))
    }
    fn read(mut rd: Reader<'_>, l: usize) -> Result<Self, DecodeError> {
        let elements = rd.encoded_list::<H>("element", l)?;
        let proof = P::decode(rd.raw(P::encoded_len())?)?;
        rd.finish()?;
        Ok(Self { elements, proof })
    }
}
