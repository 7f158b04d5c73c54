//! The ciphersuite abstraction: the paper's six operations, the set-up hook, rosters and
//! sessions.
//!
//! A suite is a zero-sized type implementing [`Ciphersuite`] (cover create, owner create,
//! server create, reveal, set-up, wire formats) and, if its ciphertexts carry proofs,
//! [`Verifiable`] (client verify — single and batched — and server verify). The XOR suite
//! implements only [`Ciphersuite`]: it is not verifiable, and the type system says so
//! (there is no `verify_client` to call).
//!
//! Every suite's long-term and pseudonym keys are Schnorr keys ([`SigningKey`],
//! [`VerifyingKey`]) in its [`Ciphersuite::KeyGroup`]; [`SecretKey`] and [`PublicKey`] name
//! them for a suite.
//!
//! Life cycle:
//! 1. Everyone agrees on a [`Roster`] (session id, server and client long-term public keys,
//!    one pseudonym public key per slot).
//! 2. Set-up: each client runs [`Ciphersuite::client_setup`], each server
//!    [`Ciphersuite::server_setup`]; everyone combines the published set-up messages with
//!    [`Session::establish`] (which cross-checks them and names the disagreeing pairs).
//! 3. Per slot and round: [`PreparedSlot::new`] (caches per-slot data such as hashed
//!    generators, shared by all operations of that slot and round), then the operations.

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_nizk::{Context, SigningKey, VerifyingKey};

use crate::error::{DcDecodeError, DcError, SetupError};
use crate::ids::{ClientId, ServerId, SessionId, SlotRound, SuiteId};

/// The largest slot capacity (plaintext bytes) any operation or decoder accepts: 16 MiB.
pub const MAX_SLOT_LEN: usize = 1 << 24;

/// A DC-net ciphersuite: the non-verifying half of the paper's six operations plus set-up and
/// wire formats.
///
/// All operations are associated functions (suites are types, not values) that take the
/// public [`Session`], the [`PreparedSlot`] they are about, and, for secret-dependent
/// operations, the participant's state and an RNG.
pub trait Ciphersuite: Sized + Send + Sync + 'static {
    /// The versioned suite id, absorbed into every transcript and derivation.
    const ID: SuiteId;
    /// Whether client ciphertexts **must** be verified before any server ciphertext of the
    /// slot is published ("eager" verification), instead of only after a reveal turns out
    /// corrupt ("lazy" verification, which the protocol layer may use to skip verification in
    /// the common case).
    ///
    /// `true` for the ElGamal-style suite only. Its ciphertexts are malleable and not bound to
    /// any long-term key: the servers strip `z·ΣR` from whatever `(R, C)` pairs they receive, so
    /// a client that submits `(λ·R_i, λ·C_i)` — a multiple of honest client `i`'s ciphertext —
    /// adds `λ·M_i` to the reveal. The slot then reveals `(1 + λ)·M` if `i` owns it and `M`
    /// otherwise, which tells everyone whether `i` is the owner. Under lazy verification that
    /// reveal is already public when the proofs are checked: the malicious client is named
    /// afterwards, but the owner's anonymity is gone and cannot be given back, and nothing in
    /// the revealed output itself (no per-client pad bound to a registered key, as in the
    /// hashing-generator, pairing and XOR suites) attributes the damage. So the reveal of
    /// unverified ElGamal ciphertexts is unsafe, and verification must precede it.
    ///
    /// `false` for hashing-generator and pairing (each client's pad is bound to its registered
    /// key, so an unverified bad ciphertext can only garble the slot, and the proofs name the
    /// culprit afterwards) and for XOR (not verifiable; blame uses provable pad bits).
    const EAGER_ONLY: bool;

    /// The group of every long-term and pseudonym key: participants hold a [`SecretKey`]
    /// (a Schnorr [`SigningKey`] in this group, zeroized on drop, `Debug` redacted), rosters
    /// list [`PublicKey`]s (validated: never the identity), and the owner of a slot holds the
    /// secret key of the slot's pseudonym public key.
    type KeyGroup: Group;
    /// A client's published set-up message (`()` for suites without set-up).
    type ClientSetup: SetupMessage;
    /// A server's published set-up message.
    type ServerSetup: SetupMessage;
    /// Public data derived from all set-up messages (e.g. pairwise commitments).
    type SessionPublic: Clone + fmt::Debug + Send + Sync;
    /// A client's secret per-session state (zeroized on drop, `Debug` redacted).
    type ClientState: Send + Sync;
    /// A server's secret per-session state (zeroized on drop, `Debug` redacted).
    type ServerState: Send + Sync;
    /// Public per-(slot, round) data computed once and shared by every operation on that slot
    /// (e.g. hashed generators).
    type SlotData: Send + Sync;
    /// A client's ciphertext for one slot.
    type ClientCiphertext: Clone + fmt::Debug + PartialEq + Send + Sync;
    /// A server's ciphertext for one slot.
    type ServerCiphertext: Clone + fmt::Debug + PartialEq + Send + Sync;

    /// A fresh long-term key pair.
    fn generate_key<R: RngCore + CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> (SecretKey<Self>, PublicKey<Self>) {
        let key = SigningKey::generate(rng);
        let public = key.verifying_key().clone();
        (key, public)
    }
    /// The public key of a secret key.
    fn public_key(secret: &SecretKey<Self>) -> PublicKey<Self> {
        secret.verifying_key().clone()
    }
    /// A fresh pseudonym key pair (normally produced by the pseudonym shuffle).
    fn generate_pseudonym<R: RngCore + CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> (SecretKey<Self>, PublicKey<Self>) {
        Self::generate_key(rng)
    }

    /// Client set-up (the session hook): derive the client's secret state and the message it
    /// publishes. `key` must be the secret key of `client` in the roster.
    fn client_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        client: ClientId,
        key: &SecretKey<Self>,
        rng: &mut R,
    ) -> Result<(Self::ClientState, Self::ClientSetup), DcError>;
    /// Server set-up: derive the server's secret state and the message it publishes.
    fn server_setup<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SecretKey<Self>,
        rng: &mut R,
    ) -> Result<(Self::ServerState, Self::ServerSetup), DcError>;
    /// Cross-checks all published set-up messages (client `i` at index `i`, server `j` at
    /// index `j`) and derives the public session data. Disagreements name the participants.
    fn combine_setup(
        roster: &Roster<Self>,
        clients: &[Self::ClientSetup],
        servers: &[Self::ServerSetup],
    ) -> Result<Self::SessionPublic, SetupError>;

    /// Computes the public per-slot data for `slot` (called by [`PreparedSlot::new`]).
    fn prepare_slot(session: &Session<Self>, slot: SlotRound) -> Result<Self::SlotData, DcError>;

    /// *Cover create*: the ciphertext of a client that does not own the slot.
    fn cover<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &Self::ClientState,
        rng: &mut R,
    ) -> Result<Self::ClientCiphertext, DcError>;
    /// *Owner create*: the ciphertext of the slot owner, carrying `message` (at most
    /// `slot.len()` bytes). Same size and structure as a cover ciphertext.
    fn owner<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &Self::ClientState,
        pseudonym: &SecretKey<Self>,
        message: &[u8],
        rng: &mut R,
    ) -> Result<Self::ClientCiphertext, DcError>;
    /// *Server create*: server `state`'s ciphertext over the accepted set `S` (the clients
    /// whose ciphertexts the servers agreed to use, with those ciphertexts).
    fn server_ciphertext<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &Self::ServerState,
        accepted: &[(ClientId, &Self::ClientCiphertext)],
        rng: &mut R,
    ) -> Result<Self::ServerCiphertext, DcError>;
    /// *Reveal*: combines the accepted client ciphertexts and all `M` server ciphertexts
    /// (server `j` at index `j`). `Ok(None)` means nobody transmitted ("no message"); a
    /// malformed output is [`DcError::CorruptReveal`].
    fn reveal(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        accepted: &[(ClientId, &Self::ClientCiphertext)],
        servers: &[&Self::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError>;

    /// Size in bytes of every client ciphertext of a slot with capacity `len` (Figure 6).
    fn client_ciphertext_len(len: usize) -> usize;
    /// Size in bytes of every server ciphertext of a slot with capacity `len`.
    fn server_ciphertext_len(len: usize) -> usize;

    /// Canonical encoding of a client ciphertext.
    fn encode_client_ciphertext(ct: &Self::ClientCiphertext) -> Vec<u8>;
    /// Decodes (and validates) a client ciphertext for a slot of capacity `len`.
    fn decode_client_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<Self::ClientCiphertext, DcDecodeError>;
    /// Canonical encoding of a server ciphertext.
    fn encode_server_ciphertext(ct: &Self::ServerCiphertext) -> Vec<u8>;
    /// Decodes (and validates) a server ciphertext for a slot of capacity `len`.
    fn decode_server_ciphertext(
        len: usize,
        bytes: &[u8],
    ) -> Result<Self::ServerCiphertext, DcDecodeError>;
    /// Canonical encoding of a public key.
    fn encode_public_key(key: &PublicKey<Self>) -> Vec<u8> {
        key.to_bytes()
    }
    /// Decodes a public key (validated, never the identity).
    fn decode_public_key(bytes: &[u8]) -> Result<PublicKey<Self>, DcDecodeError> {
        Ok(VerifyingKey::from_bytes(bytes)?)
    }
    /// Canonical encoding of a pseudonym public key (the same as a long-term key's).
    fn encode_pseudonym_key(key: &PublicKey<Self>) -> Vec<u8> {
        Self::encode_public_key(key)
    }
    /// Decodes a pseudonym public key (validated, never the identity).
    fn decode_pseudonym_key(bytes: &[u8]) -> Result<PublicKey<Self>, DcDecodeError> {
        Self::decode_public_key(bytes)
    }
    /// Canonical encoding of a client set-up message.
    fn encode_client_setup(msg: &Self::ClientSetup) -> Vec<u8> {
        msg.encode()
    }
    /// Decodes a client set-up message for `roster` (one entry per server).
    fn decode_client_setup(
        roster: &Roster<Self>,
        bytes: &[u8],
    ) -> Result<Self::ClientSetup, DcDecodeError> {
        Self::ClientSetup::decode(roster.num_servers(), bytes)
    }
    /// Canonical encoding of a server set-up message.
    fn encode_server_setup(msg: &Self::ServerSetup) -> Vec<u8> {
        msg.encode()
    }
    /// Decodes a server set-up message for `roster` (one entry per client).
    fn decode_server_setup(
        roster: &Roster<Self>,
        bytes: &[u8],
    ) -> Result<Self::ServerSetup, DcDecodeError> {
        Self::ServerSetup::decode(roster.num_clients(), bytes)
    }
}

/// A suite's long-term or pseudonym secret key: a Schnorr signing key in its key group.
pub type SecretKey<C> = SigningKey<<C as Ciphersuite>::KeyGroup>;

/// A suite's long-term or pseudonym public key: a Schnorr verifying key in its key group.
pub type PublicKey<C> = VerifyingKey<<C as Ciphersuite>::KeyGroup>;

/// The verifying half of the six operations, for suites whose ciphertexts carry proofs.
pub trait Verifiable: Ciphersuite {
    /// *Client verify*: checks that `ct` is a well-formed ciphertext of `client` for `slot`
    /// (a cover with the client's pad, or the slot owner's).
    fn verify_client(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &Self::ClientCiphertext,
    ) -> Result<(), DcError>;

    /// Verifies many client ciphertexts of one slot; on failure returns **every** invalid
    /// client (ascending by position in `items`). Suites override this with a batched check;
    /// `rng` draws the batching weights and must be unpredictable to clients.
    fn verify_clients<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &Self::ClientCiphertext)],
        rng: &mut R,
    ) -> Result<(), Vec<ClientId>> {
        let _ = rng;
        let bad: Vec<ClientId> = items
            .iter()
            .filter(|(c, ct)| Self::verify_client(session, slot, *c, ct).is_err())
            .map(|(c, _)| *c)
            .collect();
        if bad.is_empty() { Ok(()) } else { Err(bad) }
    }

    /// *Server verify*: checks server `server`'s ciphertext over the accepted set.
    fn verify_server(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[(ClientId, &Self::ClientCiphertext)],
        ct: &Self::ServerCiphertext,
    ) -> Result<(), DcError>;
}

/// The public parameters of a session: session id, long-term keys, slot pseudonym keys.
///
/// Server `j` is `ServerId(j)`, client `i` is `ClientId(i)`, slot `s` is owned by the holder
/// of `pseudonyms[s]`. Keys are validated by their types (decoders reject the identity).
pub struct Roster<C: Ciphersuite> {
    session: SessionId,
    servers: Vec<PublicKey<C>>,
    clients: Vec<PublicKey<C>>,
    pseudonyms: Vec<PublicKey<C>>,
}

impl<C: Ciphersuite> Clone for Roster<C> {
    fn clone(&self) -> Self {
        Self {
            session: self.session,
            servers: self.servers.clone(),
            clients: self.clients.clone(),
            pseudonyms: self.pseudonyms.clone(),
        }
    }
}

impl<C: Ciphersuite> fmt::Debug for Roster<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Roster")
            .field("suite", &C::ID.to_string())
            .field("session", &self.session)
            .field("servers", &self.servers.len())
            .field("clients", &self.clients.len())
            .field("slots", &self.pseudonyms.len())
            .finish()
    }
}

impl<C: Ciphersuite> Roster<C> {
    /// A roster; needs at least one server and one client, and fewer than `2^32` of each.
    pub fn new(
        session: SessionId,
        servers: Vec<PublicKey<C>>,
        clients: Vec<PublicKey<C>>,
        pseudonyms: Vec<PublicKey<C>>,
    ) -> Result<Self, DcError> {
        if servers.is_empty() || clients.is_empty() {
            return Err(DcError::InvalidParameters(
                "a roster needs at least one server and one client",
            ));
        }
        if u32::try_from(servers.len()).is_err()
            || u32::try_from(clients.len()).is_err()
            || u32::try_from(pseudonyms.len()).is_err()
        {
            return Err(DcError::InvalidParameters("too many roster entries"));
        }
        Ok(Self {
            session,
            servers,
            clients,
            pseudonyms,
        })
    }
    /// The session id.
    pub fn session(&self) -> &SessionId {
        &self.session
    }
    /// Number of servers `M`.
    pub fn num_servers(&self) -> usize {
        self.servers.len()
    }
    /// Number of clients `N`.
    pub fn num_clients(&self) -> usize {
        self.clients.len()
    }
    /// All server keys.
    pub fn servers(&self) -> &[PublicKey<C>] {
        &self.servers
    }
    /// All client keys.
    pub fn clients(&self) -> &[PublicKey<C>] {
        &self.clients
    }
    /// All slot pseudonym keys.
    pub fn pseudonyms(&self) -> &[PublicKey<C>] {
        &self.pseudonyms
    }
    /// Server `j`'s key.
    pub fn server(&self, j: ServerId) -> Result<&PublicKey<C>, DcError> {
        self.servers
            .get(j.index())
            .ok_or(DcError::UnknownServer { server: j })
    }
    /// Client `i`'s key.
    pub fn client(&self, i: ClientId) -> Result<&PublicKey<C>, DcError> {
        self.clients
            .get(i.index())
            .ok_or(DcError::UnknownClient { client: i })
    }
    /// Slot `s`'s pseudonym key.
    pub fn pseudonym(&self, slot: u32) -> Result<&PublicKey<C>, DcError> {
        self.pseudonyms
            .get(slot as usize)
            .ok_or(DcError::UnknownSlot { slot })
    }
}

/// A session after set-up: the roster plus the public data all participants derived from the
/// set-up messages.
pub struct Session<C: Ciphersuite> {
    roster: Roster<C>,
    public: C::SessionPublic,
}

impl<C: Ciphersuite> Clone for Session<C> {
    fn clone(&self) -> Self {
        Self {
            roster: self.roster.clone(),
            public: self.public.clone(),
        }
    }
}

impl<C: Ciphersuite> fmt::Debug for Session<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("roster", &self.roster)
            .finish_non_exhaustive()
    }
}

impl<C: Ciphersuite> Session<C> {
    /// Cross-checks the published set-up messages ([`Ciphersuite::combine_setup`]) and
    /// builds the session.
    pub fn establish(
        roster: Roster<C>,
        clients: &[C::ClientSetup],
        servers: &[C::ServerSetup],
    ) -> Result<Self, SetupError> {
        let public = C::combine_setup(&roster, clients, servers)?;
        Ok(Self { roster, public })
    }
    /// The roster.
    pub fn roster(&self) -> &Roster<C> {
        &self.roster
    }
    /// The session id.
    pub fn id(&self) -> &SessionId {
        &self.roster.session
    }
    /// The public set-up data.
    pub fn public(&self) -> &C::SessionPublic {
        &self.public
    }
}

/// A slot of a round with its precomputed public data ([`Ciphersuite::prepare_slot`]).
///
/// Build one per (slot, round) and share it across all clients' and servers' operations:
/// for the hashing-generator suite this caches the `L` hashed generators.
pub struct PreparedSlot<C: Ciphersuite> {
    slot: SlotRound,
    data: C::SlotData,
}

impl<C: Ciphersuite> fmt::Debug for PreparedSlot<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedSlot")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl<C: Ciphersuite> PreparedSlot<C> {
    /// Prepares `slot` for `session`; fails for a slot without a pseudonym key or a capacity
    /// above [`MAX_SLOT_LEN`].
    pub fn new(session: &Session<C>, slot: SlotRound) -> Result<Self, DcError> {
        session.roster().pseudonym(slot.slot)?;
        if slot.len > MAX_SLOT_LEN {
            return Err(DcError::InvalidParameters(
                "slot capacity above MAX_SLOT_LEN",
            ));
        }
        Ok(Self {
            slot,
            data: C::prepare_slot(session, slot)?,
        })
    }
    /// Which slot and round.
    pub fn slot_round(&self) -> SlotRound {
        self.slot
    }
    /// The slot index.
    pub fn slot(&self) -> u32 {
        self.slot.slot
    }
    /// The round.
    pub fn round(&self) -> u64 {
        self.slot.round
    }
    /// The capacity in plaintext bytes.
    pub fn len(&self) -> usize {
        self.slot.len
    }
    /// Whether the capacity is zero (a closed slot still carries a length header).
    pub fn is_empty(&self) -> bool {
        self.slot.len == 0
    }
    /// The suite's cached data.
    pub fn data(&self) -> &C::SlotData {
        &self.data
    }
}

/// The proof context of a suite operation: `purpose` as protocol label, the session, slot,
/// round and sender, and the suite id as a field — every proof binds all of them.
pub fn proof_context<C: Ciphersuite>(
    purpose: &'static [u8],
    session: &SessionId,
    slot: SlotRound,
    sender: u32,
) -> Context {
    Context::new(purpose, session.0)
        .with_round(slot.round)
        .with_slot(slot.slot)
        .with_sender(sender)
        .with_field(b"suite", &C::ID.to_bytes())
        .with_field(b"slot-len", &(slot.len as u64).to_le_bytes())
}

/// A published set-up message and its wire format: a client's message has one entry per
/// server, a server's one entry per client. `()` is the (empty) message of suites without
/// set-up.
pub trait SetupMessage: Clone + fmt::Debug + PartialEq + Send + Sync + Sized {
    /// The canonical encoding.
    fn encode(&self) -> Vec<u8>;
    /// Decodes (and validates) a message with `count` entries.
    fn decode(count: usize, bytes: &[u8]) -> Result<Self, DcDecodeError>;
}

impl SetupMessage for () {
    fn encode(&self) -> Vec<u8> {
        Vec::new()
    }
    fn decode(_count: usize, bytes: &[u8]) -> Result<(), DcDecodeError> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(DcDecodeError::Length {
                expected: 0,
                actual: bytes.len(),
            })
        }
    }
}

/// Checks an accepted set: every client in the roster, no duplicates. Returns the ids in the
/// given order.
pub fn check_accepted<C: Ciphersuite, T>(
    roster: &Roster<C>,
    accepted: &[(ClientId, T)],
) -> Result<Vec<ClientId>, DcError> {
    let ids: Vec<ClientId> = accepted.iter().map(|(c, _)| *c).collect();
    check_accepted_ids(roster, &ids)?;
    Ok(ids)
}

/// Checks an id-only accepted set (known clients, each once) like [`check_accepted`] does for
/// ciphertext lists.
pub(crate) fn check_accepted_ids<C: Ciphersuite>(
    roster: &Roster<C>,
    accepted: &[ClientId],
) -> Result<(), DcError> {
    let mut seen = vec![false; roster.num_clients()];
    for c in accepted {
        let Some(flag) = seen.get_mut(c.index()) else {
            return Err(DcError::UnknownClient { client: *c });
        };
        if *flag {
            return Err(DcError::DuplicateClient { client: *c });
        }
        *flag = true;
    }
    Ok(())
}

/// A 32-byte digest of an accepted set (sorted ids), bound into server proofs.
pub fn accepted_set_digest(ids: &[ClientId]) -> [u8; 32] {
    let mut sorted: Vec<u32> = ids.iter().map(|c| c.0).collect();
    sorted.sort_unstable();
    let mut h = blake3::Hasher::new_derive_key("verdict-dcnet accepted set v1");
    h.update(&(sorted.len() as u64).to_le_bytes());
    for id in sorted {
        h.update(&id.to_le_bytes());
    }
    *h.finalize().as_bytes()
}
