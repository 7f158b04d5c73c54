//! The hashing-generator suite's types: set-up messages, session data, participant states,
//! per-slot generators and ciphertexts; the pair secret both sides of a pair derive.

use core::fmt;
use core::marker::PhantomData;
use std::sync::OnceLock;

use verdict_group::{Group, MessageGroup, Ristretto255, SecretScalar, framing, hash};
use verdict_nizk::Encoded;
use zeroize::Zeroizing;

use crate::error::DcDecodeError;
use crate::ids::{ClientId, ServerId, SessionId};
use crate::suite::{Ciphersuite, MAX_SLOT_LEN, SetupMessage};
use crate::wire::{DleqCiphertext, OrCiphertext};

pub(super) const CLIENT_PURPOSE: &[u8] = b"verdict/dcnet/hashing-generator/client";
pub(super) const SERVER_PURPOSE: &[u8] = b"verdict/dcnet/hashing-generator/server";
pub(super) const GENERATOR_DST: &[u8] = b"verdict-dcnet/hashing-generator/v1/generator";
pub(super) const PAIR_SECRET_DST: &[u8] = b"verdict-dcnet/hashing-generator/v1/pair-secret";

/// The hashing-generator ciphersuite over the message group `G`.
pub struct HashingGenerator<G: MessageGroup = Ristretto255>(PhantomData<fn() -> G>);

impl<G: MessageGroup> fmt::Debug for HashingGenerator<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HashingGenerator<{}>", G::NAME)
    }
}

/// A client's (or server's) published set-up message: its commitments `K_ij`, one per
/// server (client message) or one per client (server message).
///
/// Wire format: the commitments' canonical encodings, concatenated (none is the identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commitments<G: Group> {
    /// `K_ij` in roster order of the other side.
    pub commitments: Vec<Encoded<G>>,
}

impl<G: Group> SetupMessage for Commitments<G> {
    fn encode(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn decode(count: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        Self::from_bytes(count, bytes)
    }
}

impl<G: Group> Commitments<G> {
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.commitments
            .iter()
            .flat_map(|c| c.as_bytes().iter().copied())
            .collect()
    }

    /// Decodes exactly `count` non-identity commitments.
    pub fn from_bytes(count: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        let expected = count
            .checked_mul(G::ENCODED_LEN)
            .ok_or(DcDecodeError::CapacityTooLarge)?;
        if bytes.len() != expected {
            return Err(DcDecodeError::Length {
                expected,
                actual: bytes.len(),
            });
        }
        // One commitment per client: decoded in parallel with the `parallel` feature.
        let commitments = verdict_group::par::try_decode_items(
            bytes,
            G::ENCODED_LEN,
            verdict_group::par::POINTS_PER_TASK,
            |_, b| {
                Encoded::from_bytes_nonidentity(b).map_err(|source| DcDecodeError::Field {
                    field: "commitment",
                    source,
                })
            },
        )?;
        Ok(Self { commitments })
    }
}

/// Public session data: all pairwise commitments and every client's `U_i`.
#[derive(Clone, Debug)]
pub struct HgSessionPublic<G: Group> {
    pub(super) servers: usize,
    /// `K_ij` at `i·M + j`.
    pub(super) k: Vec<G>,
    /// `U_i = Σ_j K_ij`.
    pub(super) u: Vec<Encoded<G>>,
}

impl<G: Group> HgSessionPublic<G> {
    /// `K_ij`.
    pub fn commitment(&self, client: ClientId, server: ServerId) -> Option<&G> {
        let (i, j) = (client.index(), server.index());
        if j >= self.servers {
            return None;
        }
        self.k.get(i.checked_mul(self.servers)?.checked_add(j)?)
    }
    /// `U_i`.
    pub fn client_commitment(&self, client: ClientId) -> Option<&Encoded<G>> {
        self.u.get(client.index())
    }
}

/// A client's secret session state: `σ_i` (zeroized on drop) and its public `U_i`.
pub struct HgClientState<G: Group> {
    pub(super) client: ClientId,
    pub(super) sigma: SecretScalar<G::Scalar>,
    pub(super) u: Encoded<G>,
}

impl<G: Group> fmt::Debug for HgClientState<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HgClientState")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl<G: Group> HgClientState<G> {
    /// The client this state belongs to.
    pub fn client(&self) -> ClientId {
        self.client
    }
}

/// A server's secret session state: `s_ij` for every client (zeroized on drop).
pub struct HgServerState<G: Group> {
    pub(super) server: ServerId,
    pub(super) secrets: Vec<SecretScalar<G::Scalar>>,
}

impl<G: Group> fmt::Debug for HgServerState<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HgServerState")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl<G: Group> HgServerState<G> {
    /// The server this state belongs to.
    pub fn server(&self) -> ServerId {
        self.server
    }
}

/// The per-(slot, round) generators `g_k` (and, computed on first use by a server, `−g_k`).
pub struct HgSlot<G: Group> {
    pub(super) generators: Vec<Encoded<G>>,
    pub(super) negated: OnceLock<Vec<Encoded<G>>>,
}

impl<G: Group> fmt::Debug for HgSlot<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HgSlot")
            .field("elements", &self.generators.len())
            .finish_non_exhaustive()
    }
}

impl<G: Group> HgSlot<G> {
    /// The generators `g_1..g_L`.
    pub fn generators(&self) -> &[Encoded<G>] {
        &self.generators
    }
    pub(super) fn negated(&self) -> &[Encoded<G>] {
        self.negated.get_or_init(|| {
            let neg: Vec<G> = self.generators.iter().map(|g| -*g.point()).collect();
            Encoded::batch_new(&neg)
        })
    }
}

/// A client ciphertext: `C_1..C_L` and the constant-size OR proof
/// `PoK{σ, y : (U_i = σ·G ∧ ∀k C_k = σ·g_k) ∨ Y = y·G}`.
///
/// Wire format: `C_1 ‖ … ‖ C_L ‖ c_0 ‖ A_U ‖ A_C ‖ z_σ ‖ A_Y ‖ z_y` ([`OrCiphertext`]), with
/// `L = framing::elements_needed::<G>(len)`. Owner and cover ciphertexts have the same layout.
pub type HgClientCiphertext<G> = OrCiphertext<G>;

/// A server ciphertext: `D_1..D_L` and the constant-size vector-DLEQ proof.
///
/// Wire format: `D_1 ‖ … ‖ D_L ‖ A_V ‖ A_D ‖ z_τ` ([`DleqCiphertext`]).
pub type HgServerCiphertext<G> = DleqCiphertext<G>;

pub(super) type Sc<G> = <G as Group>::Scalar;

pub(super) fn elements_for<G: MessageGroup>(len: usize) -> Result<usize, DcDecodeError> {
    if len > MAX_SLOT_LEN {
        return Err(DcDecodeError::CapacityTooLarge);
    }
    Ok(framing::elements_needed::<G>(len))
}

/// `s_ij` from the DH value (both sides compute the same scalar).
pub(super) fn pair_secret<G: MessageGroup>(
    session: &SessionId,
    dh: &Encoded<G>,
    client: ClientId,
    server: ServerId,
) -> SecretScalar<G::Scalar> {
    let suite = HashingGenerator::<G>::suite_id_bytes();
    // The hash input contains the DH value: wiped after hashing (as is the hash's own state,
    // see `verdict_group::hash`).
    let mut msg = Zeroizing::new(Vec::with_capacity(
        8 + suite.len() + 32 + G::ENCODED_LEN + 8,
    ));
    msg.extend_from_slice(&(suite.len() as u64).to_le_bytes());
    msg.extend_from_slice(&suite);
    msg.extend_from_slice(&session.0);
    msg.extend_from_slice(dh.as_bytes());
    msg.extend_from_slice(&client.0.to_le_bytes());
    msg.extend_from_slice(&server.0.to_le_bytes());
    SecretScalar::new(hash::hash_to_scalar::<G::Scalar>(PAIR_SECRET_DST, &msg))
}

impl<G: MessageGroup> HashingGenerator<G> {
    pub(super) fn suite_id_bytes() -> Vec<u8> {
        <Self as Ciphersuite>::ID.to_bytes()
    }
}
