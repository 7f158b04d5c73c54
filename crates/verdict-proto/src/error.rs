//! Errors and the evidence that names culprits.

use thiserror::Error;
use verdict_dcnet::{ClientId, Party};

/// Why bytes are not a valid protocol message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WireError {
    /// The input ended early, or a length prefix exceeds the input.
    #[error("truncated message")]
    Truncated,
    /// Bytes follow a complete encoding.
    #[error("trailing bytes after the message")]
    TrailingBytes,
    /// A field has an invalid value.
    #[error("invalid {0}")]
    Invalid(&'static str),
    /// The envelope signature does not verify under the claimed sender's key.
    #[error("bad signature")]
    BadSignature,
}

/// A configuration that cannot start a session (a caller error, detected before any message).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A key registration proof does not verify: the member did not prove knowledge of its
    /// secret key (rogue-key defence).
    #[error("{member}: key registration proof rejected")]
    BadRegistration {
        /// The member.
        member: Party,
    },
    /// Fewer than one server or two clients, or too many.
    #[error("invalid group size: {0}")]
    GroupSize(&'static str),
    /// A policy value out of range.
    #[error("invalid policy: {0}")]
    Policy(&'static str),
    /// A client's upstream server is not in the roster.
    #[error("{client} has an unknown upstream server")]
    BadUpstream {
        /// The client.
        client: ClientId,
    },
    /// The suite must verify every client proof before combining (ElGamal: its servers decrypt
    /// whatever they are given), so it cannot run with lazy verification.
    #[error("{suite} is eager-only: lazy verification would reveal unverified ciphertexts")]
    EagerOnlySuite {
        /// The suite id.
        suite: String,
    },
    /// A public key appears twice in the roster (for two uses, or for two members).
    #[error("{member} registers a key that is already in the roster")]
    DuplicateKey {
        /// The member.
        member: Party,
    },
    /// The pseudonym shuffle or the rosters cannot be set up with this configuration.
    #[error("set-up parameters: {0}")]
    Setup(SetupFailure),
    /// The suite's set-up refused the member's keys or the roster.
    #[error("suite set-up: {0}")]
    Suite(verdict_dcnet::DcError),
    /// The secret key given to a state machine does not match its roster entry.
    #[error("the secret key does not match {member}'s roster key")]
    KeyMismatch {
        /// The member.
        member: Party,
    },
    /// An encoded policy, roster entry or group configuration does not decode.
    #[error("cannot decode {field}: {reason}")]
    Decode {
        /// The field that is malformed (e.g. `policy.window.deadline`, `servers[2].signing`).
        field: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// A problem with one received message. Reported as an event; the state machine's state is
/// unchanged by a rejected message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MessageError {
    /// The bytes are not a valid envelope or payload.
    #[error("malformed message from {from}: {source}")]
    Malformed {
        /// The transport-level sender.
        from: Party,
        /// What is wrong.
        source: WireError,
    },
    /// The envelope names a sender other than the transport-level one, a session other than
    /// ours, or a participant outside the roster.
    #[error("message from {from} claims to be from {claimed}")]
    WrongSender {
        /// The transport-level sender.
        from: Party,
        /// The sender named in the envelope.
        claimed: Party,
    },
    /// The envelope is for another session.
    #[error("message from {from} is for another session")]
    WrongSession {
        /// The sender.
        from: Party,
    },
    /// A message type this role never receives from that sender, or a message for a round or
    /// phase that is over.
    #[error("unexpected {kind} from {from} (round {round})")]
    Unexpected {
        /// The sender.
        from: Party,
        /// The message type.
        kind: &'static str,
        /// The envelope's round.
        round: u64,
    },
    /// The sender already sent a different message for this step.
    #[error("duplicate {kind} from {from}")]
    Duplicate {
        /// The sender.
        from: Party,
        /// The message type.
        kind: &'static str,
    },
    /// A message from a client that was absent at set-up, so is not in this session (its
    /// server answers a late set-up message once with the set-up transcript, which tells the
    /// client so).
    #[error("{kind} from {client}, absent at set-up")]
    AbsentAtSetup {
        /// The client.
        client: ClientId,
        /// The message type.
        kind: &'static str,
    },
}

/// Why a client was excluded. Every reason is checkable from the evidence servers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExclusionReason {
    /// Its ciphertext for `slot` in `round` carries an invalid proof (eager verification, or
    /// lazy verification after the slot's pseudonym signature failed).
    InvalidProof {
        /// Round.
        round: u64,
        /// Verifiable slot.
        slot: u32,
    },
    /// It sent two different signed submissions for one round (to two servers).
    DoubleSubmission {
        /// Round.
        round: u64,
    },
    /// Hybrid blame traced the corruption of XOR slot `slot` in `round` to it.
    Disruption {
        /// Round of the corrupted XOR slot.
        round: u64,
        /// The XOR slot.
        slot: u32,
    },
}

impl ExclusionReason {
    pub(crate) fn code(&self) -> (u8, u64, u32) {
        match *self {
            Self::InvalidProof { round, slot } => (1, round, slot),
            Self::DoubleSubmission { round } => (2, round, 0),
            Self::Disruption { round, slot } => (3, round, slot),
        }
    }
    pub(crate) fn from_code(code: u8, round: u64, slot: u32) -> Option<Self> {
        Some(match code {
            1 => Self::InvalidProof { round, slot },
            // The slot field is unused for this reason and encoded as 0; any other value would
            // be a second encoding of the same reason (found by the `proto` fuzz target).
            2 if slot == 0 => Self::DoubleSubmission { round },
            3 => Self::Disruption { round, slot },
            _ => return None,
        })
    }
}

/// A server misbehaviour that halts the session ("major event"). Anonymity is unaffected; the
/// evidence lets anyone check the accusation.
///
/// A server names another only for a fault it observed itself or whose evidence it verified; a
/// halt it merely learns of from another server's alert is [`crate::Event::PeerHalted`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ServerFault {
    /// Its server ciphertext for a slot carries an invalid proof.
    #[error("invalid server ciphertext for slot {slot} in round {round}")]
    InvalidCiphertext {
        /// Round.
        round: u64,
        /// Slot.
        slot: u32,
    },
    /// Its server ciphertexts do not match the hash it committed to.
    #[error("server ciphertexts of round {round} differ from the commitment")]
    CommitMismatch {
        /// Round.
        round: u64,
    },
    /// It signed two different messages for one step; both signed headers are the evidence.
    #[error("signed two different messages for one step")]
    Equivocation {
        /// First signed header (encoded).
        first: Vec<u8>,
        /// Second signed header (encoded).
        second: Vec<u8>,
    },
    /// Its published blame pad bits do not XOR to its own server ciphertext bit, or a
    /// client's DH reveal proved one of them wrong.
    #[error("wrong blame pad bits for XOR slot {slot} of round {round}")]
    WrongBlameBits {
        /// Round of the accused XOR slot.
        round: u64,
        /// The XOR slot.
        slot: u32,
    },
    /// Its shuffle step, decryption shares or set-up message failed verification.
    #[error("bad set-up message: {reason}")]
    BadSetup {
        /// What failed.
        reason: String,
    },
    /// It signed an output different from ours, or sent an invalid message where only a valid
    /// one lets the round proceed.
    #[error("bad output of round {round}")]
    BadOutput {
        /// Round.
        round: u64,
    },
    /// Its inventory rejected a client whose submission is valid (the client's signed
    /// submission in the server's signed inventory is the evidence: anyone can verify it).
    #[error("rejected the valid submission of {client} in round {round}")]
    FalseRejection {
        /// Round.
        round: u64,
        /// The wrongly rejected client.
        client: verdict_dcnet::ClientId,
    },
    /// The aggregate it forwarded for a slot is not the sum of the client ciphertexts it
    /// forwarded with it (found when the slot failed to reveal).
    #[error("wrong aggregate for slot {slot} in round {round}")]
    WrongAggregate {
        /// Round.
        round: u64,
        /// Slot.
        slot: u32,
    },
    /// Under eager verification it forwarded a client submission it must have rejected (an
    /// invalid proof or a malformed ciphertext).
    #[error("forwarded the unchecked invalid submission of {client} in round {round}")]
    UncheckedSubmission {
        /// Round.
        round: u64,
        /// The client whose submission it forwarded.
        client: verdict_dcnet::ClientId,
    },
    /// It did not send a required message before the server timeout.
    #[error("unresponsive in round {round}")]
    Unresponsive {
        /// The round it stalled.
        round: u64,
    },
    /// Its signed verdict on an accusation is not what the evidence it signed with it implies
    /// (e.g. "nobody is to blame" for a traced suspect), or the evidence is invalid.
    #[error("verdict on XOR slot {slot} of round {round} contradicts its evidence")]
    BadVerdict {
        /// Round of the accused XOR slot.
        round: u64,
        /// The XOR slot.
        slot: u32,
    },
    /// It signed a message no correct server sends: malformed, for a step or round that cannot
    /// exist, or more messages than a step has (memory exhaustion).
    #[error("sent an invalid {kind} message for round {round}")]
    BadMessage {
        /// The envelope's round.
        round: u64,
        /// The message kind.
        kind: &'static str,
    },
}

impl ServerFault {
    /// A stable numeric code (sent in alerts and logged; never reused).
    pub fn code(&self) -> u8 {
        match self {
            Self::InvalidCiphertext { .. } => 1,
            Self::CommitMismatch { .. } => 2,
            Self::Equivocation { .. } => 3,
            Self::WrongBlameBits { .. } => 4,
            Self::BadSetup { .. } => 5,
            Self::BadOutput { .. } => 6,
            Self::FalseRejection { .. } => 7,
            Self::WrongAggregate { .. } => 8,
            Self::UncheckedSubmission { .. } => 9,
            Self::Unresponsive { .. } => 10,
            Self::BadVerdict { .. } => 11,
            Self::BadMessage { .. } => 12,
        }
    }
}

/// The error of a state-machine call made by the application (not by a peer).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The message is longer than a slot can ever carry under the session policy.
    #[error("message of {len} bytes exceeds the maximum of {max}")]
    MessageTooLong {
        /// Length.
        len: usize,
        /// Maximum.
        max: usize,
    },
    /// The session has ended (halted, or this client was excluded).
    #[error("the session is over")]
    SessionOver,
}

/// Why set-up cannot finish. The event that reports it names the culprits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupFailure {
    /// Fewer than two clients sent their set-up messages before the servers' set-up windows
    /// closed (the culprits are the absent ones): the convener restarts without them. With two
    /// or more present, absent clients are left out and set-up goes on.
    #[error("fewer than two clients completed set-up")]
    Absent,
    /// A client's set-up message is malformed (framing or suite set-up).
    #[error("malformed client set-up message")]
    MalformedClientSetup,
    /// A client signed two different set-up messages.
    #[error("a client signed two different set-up messages")]
    DoubleClientSetup,
    /// A client's pseudonym-shuffle submission is invalid.
    #[error("invalid pseudonym-shuffle submission: {0}")]
    InvalidSubmission(verdict_shuffle::KeyShuffleError),
    /// A server's set-up inventory is malformed, or forwards a client's set-up message that is
    /// malformed, forged, of another kind or session, or of a client outside the roster.
    #[error("invalid set-up inventory")]
    BadInventory,
    /// The suite set-up messages are malformed or inconsistent.
    #[error("suite set-up failed: {0}")]
    Suite(verdict_dcnet::SetupError),
    /// Fewer than two clients entered the shuffle, or the shuffle's parameters are unusable.
    #[error("pseudonym shuffle: {0}")]
    Shuffle(verdict_shuffle::KeyShuffleError),
    /// A server's shuffle step failed verification.
    #[error("invalid shuffle step: {0}")]
    InvalidShuffle(verdict_shuffle::KeyShuffleError),
    /// A server's decryption shares failed verification.
    #[error("invalid decryption shares: {0}")]
    InvalidDecryption(verdict_shuffle::KeyShuffleError),
    /// A server's dispute reveal is malformed, for another pair, or unasked for.
    #[error("invalid dispute reveal")]
    BadDispute,
    /// Set-up commitments were disputed; the DH reveals name who lied.
    #[error("set-up commitments disputed; the DH reveals name who lied")]
    Disputed,
    /// The shuffle assigned no usable slot.
    #[error("no slot assignment")]
    NoSlots,
    /// The DC-net sessions or the first round could not be built (a configuration error).
    #[error("DC-net parameters: {0}")]
    Parameters(verdict_dcnet::DcError),
}
