//! The hashing-generator suite: verifiable, `L + O(1)` elements per ciphertext, generic over any
//! [`MessageGroup`] (ristretto255 by default, P-256 for the paper's comparison).
//!
//! Written additively (constructions.md writes `g^x`):
//! - set-up: `s_ij = H_q(suite ‖ session ‖ DH(x_i, Z_j) ‖ i ‖ j)`; client `i` and server `j`
//!   both publish `K_ij = s_ij·G`; [`Session::establish`] cross-checks the two copies, and a
//!   disagreement is settled by [`HashingGenerator::resolve_dispute`], which names the liar.
//!   `σ_i = Σ_j s_ij`, `U_i = Σ_j K_ij`.
//! - generators: `g_k = 2·H_𝔾(dst, suite ‖ session ‖ slot ‖ round ‖ len ‖ k)`, cached per slot in
//!   [`PreparedSlot`].
//! - client: `C_k = σ_i·g_k (+ M_k if owner)`, proof
//!   `PoK{σ, y : (U_i = σ·G ∧ ∀k C_k = σ·g_k) ∨ Y_slot = y·G}` (nizk `Or[VectorDleq, Schnorr]`).
//! - server `j` over the accepted set `S`: `τ = Σ_{i∈S} s_ij`, `D_k = −τ·g_k`, proof
//!   `PoK{τ : V = τ·G ∧ ∀k D_k = τ·(−g_k)}` with `V = Σ_{i∈S} K_ij` recomputed by verifiers.
//! - reveal: `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k} = M_k`, then [`framing::decode_message`].
//!
//! See [`crate::notes`] for costs, batching and the dispute procedure.

use core::fmt;
use core::marker::PhantomData;
use std::sync::OnceLock;

use rand_core::{CryptoRng, RngCore};
use verdict_group::{
    FrameError, Group, MessageGroup, Ristretto255, Scalar, SecretScalar, framing, hash,
};
use verdict_nizk::{
    BatchVerifier, Encoded, Or, Schnorr, SigningKey, Statement, VectorDleq,
};
use zeroize::Zeroizing;

use crate::aggregate::{Aggregating, ElementSum};
use crate::dh::{DhReveal, dh_value};
use crate::error::{DcError, Liar, SetupError, DcDecodeError};
use crate::ids::{ClientId, Party, ServerId, SessionId, SlotRound, SuiteId};
use crate::shared::indexed_servers;
use crate::suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, Roster, Session, SetupMessage, Verifiable,
    accepted_set_digest, check_accepted, check_accepted_ids, proof_context,
};
use crate::server_dleq;
use crate::wire::{DleqCiphertext, OrCiphertext};

const CLIENT_PURPOSE: &[u8] = b"verdict/dcnet/hashing-generator/client";
const SERVER_PURPOSE: &[u8] = b"verdict/dcnet/hashing-generator/server";
const GENERATOR_DST: &[u8] = b"verdict-dcnet/hashing-generator/v1/generator";
const PAIR_SECRET_DST: &[u8] = b"verdict-dcnet/hashing-generator/v1/pair-secret";

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
        let commitments = bytes
            .chunks_exact(G::ENCODED_LEN)
            .map(|b| {
                Encoded::from_bytes_nonidentity(b).map_err(|source| DcDecodeError::Field {
                    field: "commitment",
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { commitments })
    }
}

/// Public session data: all pairwise commitments and every client's `U_i`.
#[derive(Clone, Debug)]
pub struct HgSessionPublic<G: Group> {
    servers: usize,
    /// `K_ij` at `i·M + j`.
    k: Vec<G>,
    /// `U_i = Σ_j K_ij`.
    u: Vec<Encoded<G>>,
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
    client: ClientId,
    sigma: SecretScalar<G::Scalar>,
    u: Encoded<G>,
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
    server: ServerId,
    secrets: Vec<SecretScalar<G::Scalar>>,
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
    generators: Vec<Encoded<G>>,
    negated: OnceLock<Vec<Encoded<G>>>,
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
    fn negated(&self) -> &[Encoded<G>] {
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

type Sc<G> = <G as Group>::Scalar;

fn elements_for<G: MessageGroup>(len: usize) -> Result<usize, DcDecodeError> {
    if len > MAX_SLOT_LEN {
        return Err(DcDecodeError::CapacityTooLarge);
    }
    Ok(framing::elements_needed::<G>(len))
}

/// `s_ij` from the DH value (both sides compute the same scalar).
fn pair_secret<G: MessageGroup>(
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
    fn suite_id_bytes() -> Vec<u8> {
        <Self as Ciphersuite>::ID.to_bytes()
    }
}

impl<G: MessageGroup> HashingGenerator<G> {
    /// Client `client` reveals its DH value with `server` to settle a commitment dispute.
    pub fn dispute_client<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        server: ServerId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_client(roster, client, key, server, rng)
    }

    /// Server `server` reveals its DH value with `client` to settle a commitment dispute.
    pub fn dispute_server<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Result<DhReveal<G>, DcError> {
        DhReveal::reveal_server(roster, server, key, client, rng)
    }

    /// Settles a commitment dispute for the pair named in `reveal`: verifies the revealed DH
    /// value, recomputes `K_ij` and compares it with the client's and the server's published
    /// copies. An invalid reveal names its prover as the liar.
    pub fn resolve_dispute(
        roster: &Roster<Self>,
        client_setup: &Commitments<G>,
        server_setup: &Commitments<G>,
        reveal: &DhReveal<G>,
    ) -> Result<Liar, DcError> {
        let (i, j) = (reveal.client(), reveal.server());
        let x = roster.client(i)?;
        let z = roster.server(j)?;
        let from_client = client_setup
            .commitments
            .get(j.index())
            .ok_or(DcError::Setup(SetupError::Malformed {
                culprit: Party::Client(i),
            }))?;
        let from_server = server_setup
            .commitments
            .get(i.index())
            .ok_or(DcError::Setup(SetupError::Malformed {
                culprit: Party::Server(j),
            }))?;
        let dh = match reveal.verify(&Self::ID, roster.session(), x.point(), z.point()) {
            Ok(dh) => dh,
            Err(_) => {
                return Ok(match reveal.prover() {
                    Party::Client(c) => Liar::Client(c),
                    Party::Server(s) => Liar::Server(s),
                });
            }
        };
        let s = pair_secret::<G>(roster.session(), dh, i, j);
        let k = G::mul_generator(s.expose());
        match (k == *from_client.point(), k == *from_server.point()) {
            (true, false) => Ok(Liar::Server(j)),
            (false, true) => Ok(Liar::Client(i)),
            (false, false) => Ok(Liar::Both(i, j)),
            (true, true) => Err(DcError::InvalidParameters(
                "no dispute: both commitments are correct",
            )),
        }
    }

    fn client_statement(
        u: &Encoded<G>,
        generators: &[Encoded<G>],
        elements: &[Encoded<G>],
    ) -> Result<VectorDleq<G>, DcError> {
        VectorDleq::new(
            Encoded::generator(),
            u.clone(),
            generators.to_vec(),
            elements.to_vec(),
        )
        .map_err(|_| DcError::InvalidParameters("empty slot"))
    }

    fn client_transcript(
        session: &Session<Self>,
        slot: SlotRound,
        client: ClientId,
    ) -> verdict_nizk::Transcript {
        proof_context::<Self>(CLIENT_PURPOSE, session.id(), slot, client.0).transcript()
    }

    fn make_client<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        owner: Option<(&SigningKey<G>, &[u8])>,
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        let gens = &slot.data().generators;
        let pseudonym = session.roster().pseudonym(slot.slot())?;
        let message = match owner {
            Some((key, msg)) => {
                if key.verifying_key() != pseudonym {
                    return Err(DcError::NotSlotOwner { slot: slot.slot() });
                }
                if msg.len() > slot.len() {
                    return Err(DcError::MessageTooLong {
                        len: msg.len(),
                        capacity: slot.len(),
                    });
                }
                // The owner's message elements and its pads together say who sent the
                // message: both are wiped once the ciphertext is built.
                Some(Zeroizing::new(
                    framing::encode_message::<G>(msg, gens.len()).map_err(|_| {
                        DcError::MessageTooLong {
                            len: msg.len(),
                            capacity: slot.len(),
                        }
                    })?,
                ))
            }
            None => None,
        };
        let sigma = state.sigma.expose();
        // The pads σ·g_k and their encodings in one batch (ristretto255 shares one field
        // inversion across all encodings). A cover ciphertext is exactly the pads; an owner
        // adds its message and re-encodes, which costs L encodings more — see the notes on
        // timing: submission time must not depend on it.
        let bases: Vec<G> = gens.iter().map(|g| *g.point()).collect();
        let pads = Encoded::mul_each(&bases, sigma);
        let elements = match &message {
            Some(m) => {
                let pads = Zeroizing::new(pads);
                let cs: Vec<G> = pads
                    .iter()
                    .zip(m.iter())
                    .map(|(p, m)| *p.point() + *m)
                    .collect();
                Encoded::batch_new(&cs)
            }
            None => pads,
        };
        let vd = Self::client_statement(&state.u, gens, &elements)?;
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr])
            .map_err(|_| DcError::InvalidParameters("OR statement"))?;
        let mut t = Self::client_transcript(session, slot.slot_round(), state.client);
        let proof = match owner {
            Some((key, _)) => or.prove(&mut t, 1, &*Zeroizing::new([*key.secret().expose()]), rng),
            None => or.prove(&mut t, 0, &*Zeroizing::new([*sigma]), rng),
        }
        .map_err(|_| DcError::InvalidParameters("OR proof"))?;
        Ok(HgClientCiphertext { elements, proof })
    }

    fn check_client_len(
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &HgClientCiphertext<G>,
    ) -> Result<(), DcError> {
        let expected = slot.data().generators.len();
        if ct.elements.len() != expected {
            return Err(DcError::WrongCiphertextLength {
                culprit: Party::Client(client),
                expected,
                actual: ct.elements.len(),
            });
        }
        Ok(())
    }

    fn server_transcript(
        session: &Session<Self>,
        slot: SlotRound,
        server: ServerId,
        accepted: &[ClientId],
    ) -> verdict_nizk::Transcript {
        proof_context::<Self>(SERVER_PURPOSE, session.id(), slot, server.0)
            .with_field(b"accepted-set", &accepted_set_digest(accepted))
            .transcript()
    }
}

impl<G: MessageGroup> Ciphersuite for HashingGenerator<G> {
    const ID: SuiteId = SuiteId::new("hashing-generator", G::NAME, 1);
    const EAGER_ONLY: bool = false;

    type KeyGroup = G;
    type ClientSetup = Commitments<G>;
    type ServerSetup = Commitments<G>;
    type SessionPublic = HgSessionPublic<G>;
    type ClientState = HgClientState<G>;
    type ServerState = HgServerState<G>;
    type SlotData = HgSlot<G>;
    type ClientCiphertext = HgClientCiphertext<G>;
    type ServerCiphertext = HgServerCiphertext<G>;

    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(HgClientState<G>, Commitments<G>), DcError> {
        if roster.client(client)? != key.verifying_key() {
            return Err(DcError::InvalidParameters("key does not match the roster"));
        }
        // σ_i accumulates in a `SecretScalar`; each DH value and s_ij is wiped as soon as the
        // next one is derived (`dh_value` and `pair_secret` return wiping containers).
        let mut sigma = SecretScalar::new(Sc::<G>::zero());
        let mut ks = Vec::with_capacity(roster.num_servers());
        for (j, z) in roster.servers().iter().enumerate() {
            let dh = dh_value(key.secret(), z.point());
            let s = pair_secret::<G>(roster.session(), &dh, client, ServerId(j as u32));
            sigma = SecretScalar::new(*sigma.expose() + *s.expose());
            ks.push(G::mul_generator(s.expose()));
        }
        let u = Encoded::new(ks.iter().copied().sum::<G>());
        let state = HgClientState { client, sigma, u };
        Ok((
            state,
            Commitments {
                commitments: Encoded::batch_new(&ks),
            },
        ))
    }

    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        _rng: &mut R,
    ) -> Result<(HgServerState<G>, Commitments<G>), DcError> {
        if roster.server(server)? != key.verifying_key() {
            return Err(DcError::InvalidParameters("key does not match the roster"));
        }
        let mut secrets = Vec::with_capacity(roster.num_clients());
        let mut ks = Vec::with_capacity(roster.num_clients());
        for (i, x) in roster.clients().iter().enumerate() {
            let dh = dh_value(key.secret(), x.point());
            let s = pair_secret::<G>(roster.session(), &dh, ClientId(i as u32), server);
            ks.push(G::mul_generator(s.expose()));
            secrets.push(s);
        }
        Ok((
            HgServerState { server, secrets },
            Commitments {
                commitments: Encoded::batch_new(&ks),
            },
        ))
    }

    fn combine_setup(
        roster: &Roster<Self>,
        clients: &[Commitments<G>],
        servers: &[Commitments<G>],
    ) -> Result<HgSessionPublic<G>, SetupError> {
        let (n, m) = (roster.num_clients(), roster.num_servers());
        if clients.len() != n {
            return Err(SetupError::Count {
                expected: n,
                actual: clients.len(),
            });
        }
        if servers.len() != m {
            return Err(SetupError::Count {
                expected: m,
                actual: servers.len(),
            });
        }
        for (i, c) in clients.iter().enumerate() {
            if c.commitments.len() != m {
                return Err(SetupError::Malformed {
                    culprit: Party::Client(ClientId(i as u32)),
                });
            }
        }
        for (j, s) in servers.iter().enumerate() {
            if s.commitments.len() != n {
                return Err(SetupError::Malformed {
                    culprit: Party::Server(ServerId(j as u32)),
                });
            }
        }
        let mut pairs = Vec::new();
        let mut k = Vec::with_capacity(n * m);
        let mut u = Vec::with_capacity(n);
        for (i, c) in clients.iter().enumerate() {
            let mut sum = G::identity();
            for (j, kij) in c.commitments.iter().enumerate() {
                if servers[j].commitments[i].as_bytes() != kij.as_bytes() {
                    pairs.push((ClientId(i as u32), ServerId(j as u32)));
                }
                k.push(*kij.point());
                sum += *kij.point();
            }
            u.push(sum);
        }
        if !pairs.is_empty() {
            return Err(SetupError::CommitmentMismatch { pairs });
        }
        Ok(HgSessionPublic {
            servers: m,
            k,
            u: Encoded::batch_new(&u),
        })
    }

    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<HgSlot<G>, DcError> {
        let l = elements_for::<G>(slot.len)?;
        let suite = Self::suite_id_bytes();
        let mut msg = Vec::with_capacity(8 + suite.len() + 32 + 20 + 8);
        msg.extend_from_slice(&(suite.len() as u64).to_le_bytes());
        msg.extend_from_slice(&suite);
        msg.extend_from_slice(&session.id().0);
        msg.extend_from_slice(&slot.to_bytes());
        let prefix = msg.len();
        let hashed: Vec<G> = (0..l as u64)
            .map(|k| {
                msg.truncate(prefix);
                msg.extend_from_slice(&k.to_le_bytes());
                G::hash_to_group(GENERATOR_DST, &msg)
            })
            .collect();
        // g_k = 2·H(k): as uniform and as unrelated to G and to each other as H(k), and the
        // doubles' encodings come in one batch (one shared inversion on ristretto255 instead
        // of an inverse square root per generator).
        Ok(HgSlot {
            generators: Encoded::double_each(&hashed),
            negated: OnceLock::new(),
        })
    }

    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        Self::make_client(session, slot, state, None, rng)
    }

    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        pseudonym: &SigningKey<G>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        Self::make_client(session, slot, state, Some((pseudonym, message)), rng)
    }

    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgServerState<G>,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<HgServerCiphertext<G>, DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::server_ciphertext_for(session, slot, state, &ids, rng)
    }

    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        servers: &[&HgServerCiphertext<G>],
    ) -> Result<Option<Vec<u8>>, DcError> {
        check_accepted(session.roster(), accepted)?;
        let sum = Self::aggregate(session, slot, accepted)?;
        Self::reveal_aggregated(session, slot, &[&sum], servers)
    }

    fn client_ciphertext_len(len: usize) -> usize {
        OrCiphertext::<G>::encoded_len(framing::elements_needed::<G>(len))
    }

    fn server_ciphertext_len(len: usize) -> usize {
        DleqCiphertext::<G>::encoded_len(framing::elements_needed::<G>(len))
    }

    fn encode_client_ciphertext(ct: &HgClientCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_client_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<HgClientCiphertext<G>, DcDecodeError> {
        OrCiphertext::decode(elements_for::<G>(len)?, bytes)
    }

    fn encode_server_ciphertext(ct: &HgServerCiphertext<G>) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_server_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<HgServerCiphertext<G>, DcDecodeError> {
        DleqCiphertext::decode(elements_for::<G>(len)?, bytes)
    }
}

impl<G: MessageGroup> Verifiable for HashingGenerator<G> {
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &HgClientCiphertext<G>,
    ) -> Result<(), DcError> {
        let u = session
            .public()
            .client_commitment(client)
            .ok_or(DcError::UnknownClient { client })?;
        Self::check_client_len(slot, client, ct)?;
        let pseudonym = session.roster().pseudonym(slot.slot())?;
        let vd = Self::client_statement(u, &slot.data().generators, &ct.elements)?;
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr])
            .map_err(|_| DcError::InvalidParameters("OR statement"))?;
        let mut t = Self::client_transcript(session, slot.slot_round(), client);
        or.verify(&mut t, &ct.proof)
            .map_err(|_| DcError::InvalidClientProof { client })
    }

    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &HgClientCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let mut bad = Vec::new();
        let Ok(pseudonym) = session.roster().pseudonym(slot.slot()) else {
            return Err(items.iter().map(|(c, _)| *c).collect());
        };
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let gens = &slot.data().generators;
        let mut batch = BatchVerifier::with_capacity(items.len());
        let mut index = Vec::with_capacity(items.len());
        for (pos, (client, ct)) in items.iter().enumerate() {
            let statement = session
                .public()
                .client_commitment(*client)
                .ok_or(())
                .and_then(|u| {
                    Self::check_client_len(slot, *client, ct).map_err(|_| ())?;
                    Self::client_statement(u, gens, &ct.elements).map_err(|_| ())
                });
            let Ok(vd) = statement else {
                bad.push(pos);
                continue;
            };
            let Ok(or) = Or::new(vec![&vd as &dyn Statement<G>, &schnorr]) else {
                bad.push(pos);
                continue;
            };
            let t = Self::client_transcript(session, slot.slot_round(), *client);
            batch.add_or(&or, t, &ct.proof);
            index.push(pos);
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&b| index.get(b).copied()));
        }
        if bad.is_empty() {
            return Ok(());
        }
        bad.sort_unstable();
        Err(bad.into_iter().map(|pos| items[pos].0).collect())
    }

    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &HgClientCiphertext<G>)],
        ct: &HgServerCiphertext<G>,
    ) -> Result<(), DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::verify_server_for(session, slot, server, &ids, ct)
    }
}

impl<G: MessageGroup> Aggregating for HashingGenerator<G> {
    type Aggregate = ElementSum<G>;

    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &HgClientCiphertext<G>)],
    ) -> Result<ElementSum<G>, DcError> {
        let _ = session;
        ElementSum::of_clients(slot.data().generators.len(), items)
    }

    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgServerState<G>,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<HgServerCiphertext<G>, DcError> {
        check_accepted_ids(session.roster(), accepted)?;
        // τ_j is as secret as the s_ij it sums: wiped on every path out (an unknown client
        // returns early).
        let mut tau = Zeroizing::new(Sc::<G>::zero());
        for c in accepted {
            let s = state
                .secrets
                .get(c.index())
                .ok_or(DcError::UnknownClient { client: *c })?;
            *tau += *s.expose();
        }
        // D_k = τ·(−g_k) with its proof (crate::server_dleq); the −g_k are cached per slot.
        let mut t = Self::server_transcript(session, slot.slot_round(), state.server, accepted);
        server_dleq::prove(&*tau, slot.data().negated().to_vec(), &mut t, rng)
            .map_err(|e| e.into_dc(state.server))
    }

    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &HgServerCiphertext<G>,
    ) -> Result<(), DcError> {
        session.roster().server(server)?;
        check_accepted_ids(session.roster(), accepted)?;
        let l = slot.data().generators.len();
        if ct.elements.len() != l {
            return Err(DcError::WrongCiphertextLength {
                culprit: Party::Server(server),
                expected: l,
                actual: ct.elements.len(),
            });
        }
        let mut v = G::identity();
        for c in accepted {
            v += *session
                .public()
                .commitment(*c, server)
                .ok_or(DcError::UnknownClient { client: *c })?;
        }
        let mut t = Self::server_transcript(session, slot.slot_round(), server, accepted);
        server_dleq::verify(v, slot.data().negated().to_vec(), ct, &mut t)
            .map_err(|e| e.into_dc(server))
    }

    /// One sum of the `N` commitments for all slots, and all slots' DLEQ proofs in one batch.
    fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<Self>, &HgServerCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), Vec<usize>> {
        if items.is_empty() {
            return Ok(());
        }
        let all = || (0..items.len()).collect::<Vec<_>>();
        if session.roster().server(server).is_err()
            || check_accepted_ids(session.roster(), accepted).is_err()
        {
            return Err(all());
        }
        let mut v = G::identity();
        for c in accepted {
            let Some(commitment) = session.public().commitment(*c, server) else {
                return Err(all());
            };
            v += *commitment;
        }
        let v = Encoded::new(v);
        let mut bad = Vec::new();
        let mut batch = BatchVerifier::<G>::with_capacity(items.len());
        let mut index = Vec::with_capacity(items.len());
        for (k, (slot, ct)) in items.iter().enumerate() {
            let statement = (ct.elements.len() == slot.data().generators.len())
                .then(|| {
                    server_dleq::statement(
                        v.clone(),
                        slot.data().negated().to_vec(),
                        ct.elements.clone(),
                    )
                    .ok()
                })
                .flatten();
            let Some(st) = statement else {
                bad.push(k);
                continue;
            };
            let t = Self::server_transcript(session, slot.slot_round(), server, accepted);
            batch.add(&st, t, &ct.proof);
            index.push(k);
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&b| index.get(b).copied()));
        }
        bad.sort_unstable();
        if bad.is_empty() { Ok(()) } else { Err(bad) }
    }

    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&ElementSum<G>],
        servers: &[&HgServerCiphertext<G>],
    ) -> Result<Option<Vec<u8>>, DcError> {
        let servers = indexed_servers(session.roster(), servers)?;
        let acc = ElementSum::with_servers(slot.data().generators.len(), aggregates, &servers)?;
        match framing::decode_message::<G>(acc.elements()) {
            Ok(m) => Ok(Some(m)),
            Err(FrameError::Empty) => Ok(None),
            Err(e) => Err(DcError::CorruptReveal(e.to_string())),
        }
    }

    fn encode_aggregate(aggregate: &ElementSum<G>) -> Vec<u8> {
        aggregate.to_bytes()
    }

    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<ElementSum<G>, DcDecodeError> {
        ElementSum::decode(elements_for::<G>(len)?, bytes)
    }
}
