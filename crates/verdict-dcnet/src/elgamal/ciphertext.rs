//! The ElGamal suite's id, its client and server ciphertexts and their wire format.

use verdict_group::codec::Reader;
use verdict_group::{Group, Scalar};
use verdict_nizk::wire::ReaderExt;
use verdict_nizk::{DecodeError, Encoded, OrProof, Shape};

use crate::error::DcDecodeError;
use crate::ids::SuiteId;
use crate::verifiable::{Culprit, SlotParams, SuiteError, read_proof};
use crate::wire::{DleqCiphertext, decode_exact, write_elements};

/// Version 2: the owner branch of the client proof also proves the `r_k` (see the module docs);
/// version 1's proofs and wire format are not accepted. Version 3 (specification version 2):
/// the server proof's vector DLEQ folds with 128-bit weights.
pub(super) const VERSION: u32 = 3;

/// The versioned suite identifier (`verdict/elgamal/<group>/v3`), bound into every proof.
pub fn suite_id<G: Group>() -> SuiteId {
    SuiteId::new("elgamal", G::NAME, VERSION)
}
pub(super) const CLIENT_PURPOSE: &[u8] = b"verdict-dcnet/elgamal/v1/client";
pub(super) const SERVER_PURPOSE: &[u8] = b"verdict-dcnet/elgamal/v1/server";

/// A client's ciphertext for one slot: `R_1..R_L`, `C_1..C_L` and the OR proof.
///
/// Wire format (no length fields; `L` is fixed by the slot):
/// `R_1 ‖ … ‖ R_L ‖ C_1 ‖ … ‖ C_L ‖ c_0 ‖ A_{R,1} ‖ A_{C,1} ‖ … ‖ A_{R,L} ‖ A_{C,L} ‖ s_1 ‖ … ‖ s_L ‖
/// A_Y ‖ A'_{R,1} ‖ … ‖ A'_{R,L} ‖ s_y ‖ s'_1 ‖ … ‖ s'_L`
/// (the OR proof in `verdict-nizk`'s canonical form: branch-0 challenge, branch-0 proof, then
/// the branch-1 proof of `Y = y·g ∧ ∀k R_k = r_k·g`, commitments before responses). Every
/// element and scalar is validated on decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCiphertext<G: Group> {
    pub(super) r: Vec<Encoded<G>>,
    pub(super) c: Vec<Encoded<G>>,
    pub(super) proof: OrProof<G>,
}

/// A server's ciphertext for one slot: `D_1..D_L` and the DLEQ proof.
///
/// Wire format: `D_1 ‖ … ‖ D_L ‖ A_g ‖ A_h ‖ s` ([`DleqCiphertext`]).
pub type ServerCiphertext<G> = DleqCiphertext<G>;

pub(super) fn client_shapes(l: usize) -> [Shape; 2] {
    [
        Shape {
            commitments_g: 2 * l,
            commitments_h: 0,
            responses: l,
        },
        // Owner branch: `Y = y·g` and the `L` equations `R_k = r_k·g`.
        Shape {
            commitments_g: l + 1,
            commitments_h: 0,
            responses: l + 1,
        },
    ]
}

/// Bytes of a client ciphertext with `l` elements.
pub fn client_ciphertext_len<G: Group>(l: usize) -> usize {
    let [b0, b1] = client_shapes(l);
    2 * l * G::ENCODED_LEN
        + <G::Scalar as Scalar>::ENCODED_LEN
        + b0.encoded_len::<G, G>()
        + b1.encoded_len::<G, G>()
}

/// Bytes of a server ciphertext with `l` elements.
pub fn server_ciphertext_len<G: Group>(l: usize) -> usize {
    DleqCiphertext::<G>::encoded_len(l)
}

impl<G: Group> ClientCiphertext<G> {
    /// The `R_k`.
    pub fn randomness(&self) -> &[Encoded<G>] {
        &self.r
    }
    /// The `C_k`.
    pub fn payload(&self) -> &[Encoded<G>] {
        &self.c
    }
    /// Number of elements `L`.
    pub fn len(&self) -> usize {
        self.c.len()
    }
    /// Always `false` for ciphertexts built by this module.
    pub fn is_empty(&self) -> bool {
        self.c.is_empty()
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(client_ciphertext_len::<G>(self.len()));
        write_elements(&mut out, &self.r);
        write_elements(&mut out, &self.c);
        out.extend_from_slice(&self.proof.to_bytes());
        out
    }
    /// Decodes and validates a ciphertext of `slot.elements` elements sent by `client`.
    pub fn from_bytes(slot: &SlotParams, client: u32, bytes: &[u8]) -> Result<Self, SuiteError> {
        Self::read(Reader::new(bytes), slot.elements).map_err(|source| SuiteError::Decode {
            culprit: Culprit::Client(client),
            source,
        })
    }

    /// Decodes exactly [`client_ciphertext_len`]`(l)` bytes.
    pub fn decode(l: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        decode_exact(client_ciphertext_len::<G>(l), bytes, |rd| Self::read(rd, l))
    }

    fn read(mut rd: Reader<'_>, l: usize) -> Result<Self, DecodeError> {
        let r = rd.encoded_list::<G>("R", l)?;
        let c = rd.encoded_list::<G>("C", l)?;
        let c0 = rd.scalar::<G::Scalar>("challenge")?;
        let [s0, s1] = client_shapes(l);
        let p0 = read_proof::<G, G>(&mut rd, s0)?;
        let p1 = read_proof::<G, G>(&mut rd, s1)?;
        rd.finish()?;
        Ok(Self {
            r,
            c,
            proof: OrProof::from_parts(vec![c0], vec![p0, p1]),
        })
    }
}
