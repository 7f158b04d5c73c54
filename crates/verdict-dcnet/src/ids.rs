//! Identifiers: session, suite, participants, slot and round.

use core::fmt;

/// A session identifier (hash of roster, policy and nonce), bound into every proof and pad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub [u8; 32]);

impl SessionId {
    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// A client's index in the roster (`0..N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(pub u32);

/// A server's index in the roster (`0..M`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerId(pub u32);

impl ClientId {
    /// The position in the roster's client list, for indexing per-client tables (a `u32`
    /// always fits a `usize` on the platforms this crate supports).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl ServerId {
    /// The position in the roster's server list, for indexing per-server tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {}", self.0)
    }
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server {}", self.0)
    }
}

/// A participant: the culprit of an error, the prover of a DH reveal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Party {
    /// A client.
    Client(ClientId),
    /// A server.
    Server(ServerId),
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Party::Client(c) => c.fmt(f),
            Party::Server(s) => s.fmt(f),
        }
    }
}

/// One slot of one round: what a ciphertext is about.
///
/// `len` is the slot's capacity in *plaintext bytes*: any message of at most `len` bytes fits,
/// and every ciphertext of the slot (owner or cover) has the size this capacity implies (each
/// suite converts it to its own element count, e.g. with
/// [`verdict_group::framing::elements_needed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotRound {
    /// Slot index (`0..number of slots`; the pseudonym key of slot `s` is the roster's `s`-th).
    pub slot: u32,
    /// Round number.
    pub round: u64,
    /// Capacity in plaintext bytes.
    pub len: usize,
}

impl SlotRound {
    /// Slot `slot` of round `round` with a capacity of `len` plaintext bytes.
    pub fn new(slot: u32, round: u64, len: usize) -> Self {
        Self { slot, round, len }
    }

    /// The 20-byte encoding `slot (u32 LE) ‖ round (u64 LE) ‖ len (u64 LE)` used in hashes.
    pub fn to_bytes(&self) -> [u8; 20] {
        let mut out = [0u8; 20];
        out[..4].copy_from_slice(&self.slot.to_le_bytes());
        out[4..12].copy_from_slice(&self.round.to_le_bytes());
        out[12..].copy_from_slice(&(self.len as u64).to_le_bytes());
        out
    }
}

/// A versioned ciphersuite identifier, e.g. `verdict/hashing-generator/ristretto255/v2`.
///
/// Its string form ([`SuiteId`]'s `Display`) is absorbed into every proof transcript and every
/// key derivation, so two suites (or two versions of one suite) never accept each other's
/// proofs or share pads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SuiteId {
    /// The construction, e.g. `"hashing-generator"`, `"xor"`.
    pub construction: &'static str,
    /// The group, [`verdict_group::Group::NAME`].
    pub group: &'static str,
    /// Version of the wire format and derivations.
    pub version: u32,
}

impl SuiteId {
    /// A suite id.
    pub const fn new(construction: &'static str, group: &'static str, version: u32) -> Self {
        Self {
            construction,
            group,
            version,
        }
    }

    /// The canonical byte form (the `Display` string as UTF-8).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}

impl fmt::Display for SuiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "verdict/{}/{}/v{}",
            self.construction, self.group, self.version
        )
    }
}
