//! The pairing-based verifiable DC-net suite on BLS12-381: no set-up, no ephemeral keys.
//!
//! Written additively (GT too: `a + b` is the `Fq12` product, `x·P` the power). Clients hold
//! `x_i` with `X_i = x_i·g₂ ∈ G2`, servers `z_j` with `Z_j = z_j·g₂`, `Z = Σ_j Z_j`. The slot's
//! pseudonym key `Y = y·g₂` lives in **G2** too: `verdict-nizk` relates at most two groups in
//! one proof (G2 for the keys, GT for the pads), so the OR branch `Y = y·g` must be in one of
//! them.
//!
//! | operation | computation |
//! |---|---|
//! | round bases | `T_{t,k} = HashToG1(session, slot, t, k)` (RFC 9380, unknown discrete log; never `g^h` with a public `h`, which let anyone compute every pad in 2013) |
//! | client pad | `x_i·e(T_{t,k}, Z)` |
//! | cover / owner | `C_k = x_i·H_k` / `C_k = x_i·H_k + Enc(chunk_k)` with `H_k = e(T_{t,k}, Z)` |
//! | client proof | `PoK{x, y : (X_i = x·g₂ ∧ ∀k C_k = x·H_k) ∨ Y = y·g₂}` (folded [`VectorDleq`] over G2/GT in [`Or`]: constant size) |
//! | server | `B_k = e(T_{t,k}, Σ_{i∈S} X_i)`, `D_{j,k} = −z_j·B_k`, proof `PoK{z : Z_j = z·g₂ ∧ ∀k D_{j,k} = z·(−B_k)}` |
//! | reveal | `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k} = Enc(chunk_k)`, decoded with [`gt_table`] |
//!
//! The pads cancel: `Σ_i x_i·e(T, Z) = (Σ_i x_i)(Σ_j z_j)·e(T, g₂) = Σ_j z_j·e(T, Σ_i X_i)`.
//!
//! # Plaintext encoding, capacity and cost
//!
//! Bytes cannot be embedded into GT on BLS12-381 (see [`gt_table`] for why the 2013 torus
//! embedding does not carry over); each 576-byte GT element carries one 16- or 24-bit chunk in
//! its exponent: **2 or 3 bytes per element** (288× or 192× expansion) and the slot carries
//! `L·b/8 − 4` message bytes. Per element (one core, optimized arkworks): a client pays one
//! pairing for `H_k` (shared by all clients of the slot, ≈ 1 ms) and one GT exponentiation
//! (≈ 0.7 ms); a server one pairing and one exponentiation; a receiver one validated GT decode
//! (≈ 0.7 ms: the subgroup check is an exponentiation by `r`); the reveal one table lookup
//! (16-bit) or up to 256 giant steps (24-bit). Plus one hash to G1 per element and round
//! (≈ 0.2 ms). That is a few hundred bytes of plaintext per second per core — this suite is here
//! for completeness and comparison; the hashing-generator suite is the fast one.
//!
//! Measured with `benches/fig5.rs` (ids `fig5/pairing-chunk16/bls12-381/<op>/<bytes>`; numbers
//! with machine and date in `docs/PERFORMANCE.md`): on one core of the 2-vCPU test VM a 256-byte
//! slot (`L` = 130) costs ≈ 0.5 s to create, ≈ 0.2 s to verify and ≈ 0.23 s to decode — about
//! 0.5 KB/s of plaintext generated and 3 KB/s batch-verified per core, against the paper's
//! ≈ 3 KB/s generation with 60 bytes per (Type-A) GT element. Small slots pay a fixed
//! ≈ 20–40 ms (multi-exponentiations in GT over a handful of elements are inefficient). The
//! decoding table takes ≈ 0.7 s to build, once per process.
//!
//! Lazy verification is possible here (unlike ElGamal): a client's pad is bound to its
//! registered key `X_i`, so a multiple of someone else's ciphertext leaves an unknown pad in the
//! reveal instead of a membership test.
//!
//! **Constant time: none** (arkworks). See `verdict_group::bls12_381`.

pub mod gt_table;

use core::fmt;
use core::marker::PhantomData;

use rand_core::{CryptoRng, RngCore};
use verdict_group::bls12_381::{G1, G2, Gt, pairing};
use verdict_group::{Group, SecretScalar};
use verdict_nizk::{
    BatchVerifier, Encoded, Or, Schnorr, SigningKey, Statement, VectorDleq,
};
use zeroize::Zeroizing;

use self::gt_table::{
    ChunkBits, GtFrameError, GtTable, decode_message, encode_message, max_message_len,
};
use crate::aggregate::{Aggregating, ElementSum};
use crate::error::{DcError, SetupError, DcDecodeError};
use crate::ids::{ClientId, ServerId, SlotRound, SuiteId};
use crate::shared::{check_roster_key, combine_no_setup, indexed_servers};
use crate::suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, Roster, Session, Verifiable, check_accepted,
    check_accepted_ids,
};
use crate::verifiable::{
    Culprit, SlotParams, SuiteError, accepted_set_bytes, batch_outcome, check_distinct, check_len,
    sum_elements,
};
use crate::server_dleq;
use crate::wire::{DleqCiphertext, OrCiphertext};

/// The versioned suite identifier (`verdict/pairing-chunk16/bls12-381/v1` or `…chunk24…`),
/// bound into every proof.
pub fn suite_id(bits: ChunkBits) -> SuiteId {
    let construction = match bits {
        ChunkBits::B16 => "pairing-chunk16",
        ChunkBits::B24 => "pairing-chunk24",
    };
    SuiteId::new(construction, "bls12-381", 1)
}
const CLIENT_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/client";
const SERVER_PURPOSE: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/server";
/// RFC 9380 domain-separation tag of the round bases `T_{t,k}`.
const BASE_DST: &[u8] = b"verdict-dcnet/pairing-bls12-381/v1/round-base";

/// BLS12-381 scalars (shared by G1, G2 and GT).
pub type Fr = <G2 as Group>::Scalar;

/// `T_{t,k} = HashToG1(session ‖ slot ‖ round ‖ k)` for `k = 0..L` (RFC 9380,
/// `BLS12381G1_XMD:SHA-256_SSWU_RO_`, DST `verdict-dcnet/pairing-bls12-381/v1/round-base`).
pub fn round_bases(slot: &SlotParams) -> Vec<G1> {
    (0..slot.elements)
        .map(|k| {
            let mut msg = Vec::with_capacity(32 + 4 + 8 + 8);
            msg.extend_from_slice(&slot.session);
            msg.extend_from_slice(&slot.slot.to_le_bytes());
            msg.extend_from_slice(&slot.round.to_le_bytes());
            msg.extend_from_slice(&(k as u64).to_le_bytes());
            G1::hash_to_group(BASE_DST, &msg)
        })
        .collect()
}

/// A client's ciphertext: `C_1..C_L ∈ GT` and the OR proof.
///
/// Wire format ([`OrCiphertext`]): `C_1 ‖ … ‖ C_L` (576 bytes each) `‖ c_0 ‖ A_{X} (G2) ‖
/// A_{C*} (GT) ‖ s_x ‖ A_Y (G2) ‖ s_y`. Decoding validates every GT element (an exponentiation
/// each) and G2 point.
pub type ClientCiphertext = OrCiphertext<G2, Gt>;

/// A server's ciphertext: `D_1..D_L ∈ GT` and the DLEQ proof.
///
/// Wire format ([`DleqCiphertext`]): `D_1 ‖ … ‖ D_L ‖ A (G2) ‖ A' (GT) ‖ s`.
pub type ServerCiphertext = DleqCiphertext<G2, Gt>;

/// Bytes of a client ciphertext with `l` elements: `576·l + 32 + (96 + 576 + 32) + (96 + 32)`.
pub fn client_ciphertext_len(l: usize) -> usize {
    ClientCiphertext::encoded_len(l)
}

/// Bytes of a server ciphertext with `l` elements: `576·l + 96 + 576 + 32`.
pub fn server_ciphertext_len(l: usize) -> usize {
    ServerCiphertext::encoded_len(l)
}

/// The pairing suite for one slot of one round: the round bases `T_k`, the client bases
/// `H_k = e(T_k, Z)` (computed once, shared by every client and verifier of the slot) and the
/// chunk width.
#[derive(Clone, Debug)]
pub struct PairingSlot {
    slot: SlotParams,
    suite: Vec<u8>,
    bits: ChunkBits,
    bases: Vec<G1>,
    client_bases: Vec<Encoded<Gt>>,
}

impl PairingSlot {
    /// The suite for `slot` with the servers' keys `Z_j ∈ G2` and chunk width `bits`.
    /// Costs `L` hashes to G1 and `L` pairings.
    pub fn new(slot: SlotParams, server_keys: &[G2], bits: ChunkBits) -> Result<Self, SuiteError> {
        if slot.elements == 0 {
            return Err(SuiteError::Parameters("a slot needs at least one element"));
        }
        if server_keys.is_empty() {
            return Err(SuiteError::Parameters("no server keys"));
        }
        let z: G2 = server_keys.iter().copied().sum();
        if z.is_identity() {
            return Err(SuiteError::Parameters("joint server key is the identity"));
        }
        let bases = round_bases(&slot);
        let h: Vec<Gt> = bases.iter().map(|t| pairing(t, &z)).collect();
        Ok(Self {
            slot,
            suite: suite_id(bits).to_bytes(),
            bits,
            bases,
            client_bases: Encoded::batch_new(&h),
        })
    }

    /// The slot parameters.
    pub fn slot(&self) -> &SlotParams {
        &self.slot
    }

    /// The longest message an owner can send in this slot (`L·b/8 − 4` bytes).
    pub fn capacity(&self) -> usize {
        max_message_len(self.bits, self.slot.elements)
    }

    fn client_statement(
        &self,
        client_key: &G2,
        c: &[Encoded<Gt>],
    ) -> Result<VectorDleq<G2, Gt>, SuiteError> {
        VectorDleq::new_in_pair(
            G2::generator(),
            *client_key,
            self.client_bases.clone(),
            c.to_vec(),
        )
        .map_err(|_| SuiteError::Parameters("client statement"))
    }

    fn create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_key: &G2,
        owner: Option<(&Fr, Zeroizing<Vec<Gt>>)>,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        let x = secret.expose();
        let mut c: Vec<Gt> = self.client_bases.iter().map(|h| *h.point() * x).collect();
        if let Some((_, m)) = &owner {
            for (ck, mk) in c.iter_mut().zip(m.iter()) {
                *ck += *mk;
            }
        }
        let c = Encoded::batch_new(&c);
        let vd = self.client_statement(&G2::mul_generator(x), &c)?;
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        let proof = match owner {
            None => or.prove(&mut t, 0, &*Zeroizing::new([*x]), rng),
            Some((y, _)) => or.prove(&mut t, 1, &*Zeroizing::new([*y]), rng),
        }
        .map_err(|_| SuiteError::Parameters("client proof"))?;
        Ok(OrCiphertext { elements: c, proof })
    }

    /// *Cover create* by `client` with long-term secret `x_i`, in a slot owned by
    /// `pseudonym_key ∈ G2`.
    pub fn cover_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_key: &G2,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        self.create(client, secret, pseudonym_key, None, rng)
    }

    /// *Owner create*: carries `message` (framed into GT chunks with `table`), proved with
    /// the slot's pseudonym secret `y`.
    pub fn owner_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        client: u32,
        secret: &SecretScalar<Fr>,
        pseudonym_secret: &SecretScalar<Fr>,
        message: &[u8],
        table: &GtTable,
        rng: &mut R,
    ) -> Result<ClientCiphertext, SuiteError> {
        let y = pseudonym_secret.expose();
        // The encoded message identifies its owner until the reveal: wiped after use.
        let m = Zeroizing::new(encode_message(
            table,
            self.bits,
            message,
            self.slot.elements,
        )?);
        let key = G2::mul_generator(y);
        self.create(client, secret, &key, Some((y, m)), rng)
    }

    fn check_len(&self, culprit: Culprit, actual: usize) -> Result<(), SuiteError> {
        check_len(culprit, self.slot.elements, actual)
    }

    /// *Client verify*: `client` with public key `X_i`, in a slot owned by `pseudonym_key`.
    pub fn client_verify(
        &self,
        client: u32,
        client_key: &G2,
        pseudonym_key: &G2,
        ct: &ClientCiphertext,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Client(client), ct.len())?;
        let vd = self.client_statement(client_key, &ct.elements)?;
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
            .map_err(|_| SuiteError::Parameters("client statement"))?;
        let mut t = self
            .slot
            .context(CLIENT_PURPOSE, &self.suite, client)
            .transcript();
        or.verify(&mut t, &ct.proof)
            .map_err(|_| SuiteError::ClientProof { client })
    }

    /// *Client verify* for many clients (`(id, X_i, ciphertext)`) in one batch (one MSM per
    /// group; the common bases `H_k` are merged); the error names exactly the invalid clients.
    pub fn client_verify_batch<R: RngCore + CryptoRng + ?Sized>(
        &self,
        pseudonym_key: &G2,
        cts: &[(u32, G2, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<(), SuiteError> {
        let owner_branch = Schnorr::with_generator(*pseudonym_key).in_pair::<Gt>();
        let mut batch = BatchVerifier::<G2, Gt>::with_capacity(cts.len());
        let mut bad = Vec::new();
        let mut checked = Vec::with_capacity(cts.len());
        for (client, key, ct) in cts {
            if ct.len() != self.slot.elements {
                bad.push(*client);
                continue;
            }
            let vd = self.client_statement(key, &ct.elements)?;
            let or: Or<'_, G2, Gt> = Or::new(vec![&vd as &dyn Statement<G2, Gt>, &owner_branch])
                .map_err(|_| SuiteError::Parameters("client statement"))?;
            let t = self
                .slot
                .context(CLIENT_PURPOSE, &self.suite, *client)
                .transcript();
            batch.add_or(&or, t, &ct.proof);
            checked.push(*client);
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&i| checked.get(i).copied()));
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(SuiteError::ClientProofs { clients: bad })
        }
    }

    /// `−B_k = −e(T_k, Σ_{i∈S} X_i)` and the accepted set's id bytes.
    fn server_bases(&self, accepted: &[(u32, G2)]) -> Result<(Vec<Gt>, Vec<u8>), SuiteError> {
        check_distinct(accepted.iter().map(|(i, _)| *i))?;
        let p: G2 = accepted.iter().map(|(_, x)| *x).sum();
        let neg_b = self.bases.iter().map(|t| -pairing(t, &p)).collect();
        Ok((neg_b, accepted_set_bytes(accepted.iter().map(|(i, _)| *i))))
    }

    /// *Server create* by `server` with secret `z_j`, over the accepted set `S` given as
    /// `(client id, X_i)`. Costs `L` pairings and `L` GT exponentiations plus the proof.
    pub fn server_create<R: RngCore + CryptoRng + ?Sized>(
        &self,
        server: u32,
        secret: &SecretScalar<Fr>,
        accepted: &[(u32, G2)],
        rng: &mut R,
    ) -> Result<ServerCiphertext, SuiteError> {
        let (neg_b, set) = self.server_bases(accepted)?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        // D_k = z_j·(−B_k) with its proof (crate::server_dleq).
        server_dleq::prove(secret.expose(), Encoded::batch_new(&neg_b), &mut t, rng)
            .map_err(|e| e.into_suite(server))
    }

    /// *Server verify*: server `server` with key `Z_j`, against the accepted set as the
    /// verifier sees it; a ciphertext over another set is rejected naming the server.
    pub fn server_verify(
        &self,
        server: u32,
        server_key: &G2,
        accepted: &[(u32, G2)],
        sct: &ServerCiphertext,
    ) -> Result<(), SuiteError> {
        self.check_len(Culprit::Server(server), sct.len())?;
        let (neg_b, set) = self.server_bases(accepted)?;
        let mut t = self
            .slot
            .context(SERVER_PURPOSE, &self.suite, server)
            .with_field(b"accepted-set", &set)
            .transcript();
        server_dleq::verify(*server_key, Encoded::batch_new(&neg_b), sct, &mut t)
            .map_err(|e| e.into_suite(server))
    }

    /// The revealed GT elements `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}` before decoding.
    pub fn reveal_elements(
        &self,
        clients: &[(u32, &ClientCiphertext)],
        servers: &[(u32, &ServerCiphertext)],
    ) -> Result<Vec<Gt>, SuiteError> {
        let clients = clients
            .iter()
            .map(|(i, ct)| (Culprit::Client(*i), &ct.elements[..]));
        let servers = servers
            .iter()
            .map(|(j, sct)| (Culprit::Server(*j), &sct.elements[..]));
        sum_elements(self.slot.elements, clients.chain(servers))
    }

    /// *Reveal*: combines verified ciphertexts and decodes the chunks with `table`. An empty
    /// slot gives [`gt_table::GtFrameError::Empty`].
    pub fn reveal(
        &self,
        clients: &[(u32, &ClientCiphertext)],
        servers: &[(u32, &ServerCiphertext)],
        table: &GtTable,
    ) -> Result<Vec<u8>, SuiteError> {
        let m = self.reveal_elements(clients, servers)?;
        Ok(decode_message(table, self.bits, &m)?)
    }
}

// ---------------------------------------------------------------------------------------------
// The `Ciphersuite` / `Verifiable` implementation.
// ---------------------------------------------------------------------------------------------

/// The chunk width of a [`Pairing`] suite, as a type.
pub trait ChunkWidth: Send + Sync + 'static {
    /// The width.
    const BITS: ChunkBits;
    /// The construction name in the suite id.
    const CONSTRUCTION: &'static str;
}

/// 16-bit chunks (2 bytes per GT element; decoding is one lookup).
#[derive(Debug)]
pub struct Chunk16;
/// 24-bit chunks (3 bytes per GT element; decoding is baby-step/giant-step).
#[derive(Debug)]
pub struct Chunk24;

impl ChunkWidth for Chunk16 {
    const BITS: ChunkBits = ChunkBits::B16;
    const CONSTRUCTION: &'static str = "pairing-chunk16";
}
impl ChunkWidth for Chunk24 {
    const BITS: ChunkBits = ChunkBits::B24;
    const CONSTRUCTION: &'static str = "pairing-chunk24";
}

/// The pairing-based suite on BLS12-381 as a [`Ciphersuite`]. No set-up. Long-term keys and
/// pseudonym keys are Schnorr keys in G2. The reveal decodes with the process-wide
/// [`GtTable::global`] (built on first use).
pub struct Pairing<W: ChunkWidth = Chunk16>(PhantomData<fn() -> W>);

impl<W: ChunkWidth> fmt::Debug for Pairing<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pairing<{}>", W::CONSTRUCTION)
    }
}

/// A client's per-session state: its index and long-term secret `x_i` (zeroized on drop).
#[derive(Debug)]
pub struct PairingClientState {
    client: ClientId,
    secret: SecretScalar<Fr>,
}

/// A server's per-session state: its index and secret `z_j` (zeroized on drop).
#[derive(Debug)]
pub struct PairingServerState {
    server: ServerId,
    secret: SecretScalar<Fr>,
}

fn elements_for(bits: ChunkBits, len: usize) -> Result<usize, DcDecodeError> {
    if len > MAX_SLOT_LEN {
        return Err(DcDecodeError::CapacityTooLarge);
    }
    Ok(gt_table::elements_needed(bits, len))
}

impl<W: ChunkWidth> Pairing<W> {
    fn dc(slot: &PreparedSlot<Self>) -> impl Fn(SuiteError) -> DcError + '_ {
        move |e| e.into_dc(slot.slot(), slot.len())
    }

    fn accepted_keys(
        session: &Session<Self>,
        accepted: &[ClientId],
    ) -> Result<Vec<(u32, G2)>, DcError> {
        check_accepted_ids(session.roster(), accepted)?;
        accepted
            .iter()
            .map(|c| Ok((c.0, *session.roster().client(*c)?.point())))
            .collect()
    }
}

impl<W: ChunkWidth> Ciphersuite for Pairing<W> {
    const ID: SuiteId = SuiteId::new(W::CONSTRUCTION, "bls12-381", 1);
    const EAGER_ONLY: bool = false;

    type KeyGroup = G2;
    type ClientSetup = ();
    type ServerSetup = ();
    type SessionPublic = ();
    type ClientState = PairingClientState;
    type ServerState = PairingServerState;
    type SlotData = PairingSlot;
    type ClientCiphertext = ClientCiphertext;
    type ServerCiphertext = ServerCiphertext;

    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SigningKey<G2>,
        _rng: &mut R,
    ) -> Result<(PairingClientState, ()), DcError> {
        check_roster_key(key, roster.client(client)?)?;
        Ok((
            PairingClientState {
                client,
                secret: key.secret().clone(),
            },
            (),
        ))
    }

    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G2>,
        _rng: &mut R,
    ) -> Result<(PairingServerState, ()), DcError> {
        check_roster_key(key, roster.server(server)?)?;
        Ok((
            PairingServerState {
                server,
                secret: key.secret().clone(),
            },
            (),
        ))
    }

    fn combine_setup(
        roster: &Roster<Self>,
        clients: &[()],
        servers: &[()],
    ) -> Result<(), SetupError> {
        combine_no_setup(roster, clients, servers)
    }

    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<PairingSlot, DcError> {
        let params = SlotParams {
            session: session.id().0,
            round: slot.round,
            slot: slot.slot,
            elements: elements_for(W::BITS, slot.len)?,
        };
        let keys: Vec<G2> = session
            .roster()
            .servers()
            .iter()
            .map(|k| *k.point())
            .collect();
        PairingSlot::new(params, &keys, W::BITS).map_err(|e| e.into_dc(slot.slot, slot.len))
    }

    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingClientState,
        rng: &mut R,
    ) -> Result<ClientCiphertext, DcError> {
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .cover_create(state.client.0, &state.secret, y.point(), rng)
            .map_err(Self::dc(slot))
    }

    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingClientState,
        pseudonym: &SigningKey<G2>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<ClientCiphertext, DcError> {
        if pseudonym.verifying_key() != session.roster().pseudonym(slot.slot())? {
            return Err(DcError::NotSlotOwner { slot: slot.slot() });
        }
        if message.len() > slot.len() {
            return Err(DcError::MessageTooLong {
                len: message.len(),
                capacity: slot.len(),
            });
        }
        slot.data()
            .owner_create(
                state.client.0,
                &state.secret,
                pseudonym.secret(),
                message,
                GtTable::global(),
                rng,
            )
            .map_err(Self::dc(slot))
    }

    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingServerState,
        accepted: &[(ClientId, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<ServerCiphertext, DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::server_ciphertext_for(session, slot, state, &ids, rng)
    }

    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &ClientCiphertext)],
        servers: &[&ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        check_accepted(session.roster(), accepted)?;
        let sum = Self::aggregate(session, slot, accepted)?;
        Self::reveal_aggregated(session, slot, &[&sum], servers)
    }

    fn client_ciphertext_len(len: usize) -> usize {
        client_ciphertext_len(gt_table::elements_needed(W::BITS, len))
    }

    fn server_ciphertext_len(len: usize) -> usize {
        server_ciphertext_len(gt_table::elements_needed(W::BITS, len))
    }

    fn encode_client_ciphertext(ct: &ClientCiphertext) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_client_ciphertext(len: usize, bytes: &[u8]) -> Result<ClientCiphertext, DcDecodeError> {
        ClientCiphertext::decode(elements_for(W::BITS, len)?, bytes)
    }

    fn encode_server_ciphertext(ct: &ServerCiphertext) -> Vec<u8> {
        ct.to_bytes()
    }

    fn decode_server_ciphertext(len: usize, bytes: &[u8]) -> Result<ServerCiphertext, DcDecodeError> {
        ServerCiphertext::decode(elements_for(W::BITS, len)?, bytes)
    }
}

impl<W: ChunkWidth> Verifiable for Pairing<W> {
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &ClientCiphertext,
    ) -> Result<(), DcError> {
        let x = session.roster().client(client)?;
        let y = session.roster().pseudonym(slot.slot())?;
        slot.data()
            .client_verify(client.0, x.point(), y.point(), ct)
            .map_err(Self::dc(slot))
    }

    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &ClientCiphertext)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let roster = session.roster();
        let Ok(y) = roster.pseudonym(slot.slot()) else {
            return Err(items.iter().map(|(c, _)| *c).collect());
        };
        let mut unknown = Vec::new();
        let mut known = Vec::with_capacity(items.len());
        for (c, ct) in items {
            match roster.client(*c) {
                Ok(x) => known.push((c.0, *x.point(), *ct)),
                Err(_) => unknown.push(*c),
            }
        }
        let batch = slot.data().client_verify_batch(y.point(), &known, rng);
        batch_outcome(
            items,
            unknown,
            known.iter().map(|(c, _, _)| ClientId(*c)),
            batch,
        )
    }

    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &ClientCiphertext)],
        ct: &ServerCiphertext,
    ) -> Result<(), DcError> {
        let ids = check_accepted(session.roster(), accepted)?;
        Self::verify_server_for(session, slot, server, &ids, ct)
    }
}

impl<W: ChunkWidth> Aggregating for Pairing<W> {
    type Aggregate = ElementSum<Gt>;

    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &ClientCiphertext)],
    ) -> Result<ElementSum<Gt>, DcError> {
        let _ = session;
        ElementSum::of_clients(slot.data().slot().elements, items)
    }

    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &PairingServerState,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<ServerCiphertext, DcError> {
        let keys = Self::accepted_keys(session, accepted)?;
        slot.data()
            .server_create(state.server.0, &state.secret, &keys, rng)
            .map_err(Self::dc(slot))
    }

    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &ServerCiphertext,
    ) -> Result<(), DcError> {
        let key = session.roster().server(server)?;
        let keys = Self::accepted_keys(session, accepted)?;
        slot.data()
            .server_verify(server.0, key.point(), &keys, ct)
            .map_err(Self::dc(slot))
    }

    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&ElementSum<Gt>],
        servers: &[&ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        let servers = indexed_servers(session.roster(), servers)?;
        let acc = ElementSum::with_servers(slot.data().slot().elements, aggregates, &servers)?;
        match decode_message(GtTable::global(), W::BITS, acc.elements()) {
            Ok(msg) => Ok(Some(msg)),
            Err(GtFrameError::Empty) => Ok(None),
            Err(e) => Err(DcError::CorruptReveal(e.to_string())),
        }
    }

    fn encode_aggregate(aggregate: &ElementSum<Gt>) -> Vec<u8> {
        aggregate.to_bytes()
    }

    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<ElementSum<Gt>, DcDecodeError> {
        ElementSum::decode(elements_for(W::BITS, len)?, bytes)
    }
}
