//! What the state machines emit: transmissions and application events.

use std::sync::Arc;

use verdict_dcnet::{ClientId, Party, ServerId};

use crate::error::{ExclusionReason, MessageError, ServerFault};
use crate::slot::Accusation;
use crate::wire::SharedBytes;

/// Bytes to send to a peer. Links must be reliable and ordered (per link), like a TCP or QUIC
/// stream; the driver (network or simulator) delivers them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The destination.
    pub to: Party,
    /// The encoded message. Shared: a message for several peers (a server's broadcast, the
    /// round output every client receives) is encoded and signed once, and its transmits
    /// point at the same buffer, which can be megabytes (a server's inventory).
    pub bytes: Arc<[u8]>,
}

/// An event for the application.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// Set-up finished: the pseudonym shuffle assigned `slots` slots; a client learns its own.
    SetupComplete {
        /// Number of slots (one per client present at set-up).
        slots: usize,
        /// This client's slot (clients only; `None` for servers, and for a client absent at
        /// set-up, which then takes no part in the session).
        own_slot: Option<u32>,
        /// The clients absent at set-up (no server's set-up inventory carried their signed
        /// set-up message): left out of the session, excluded from round 0 on.
        absent: Vec<ClientId>,
    },
    /// Set-up cannot finish; the convener must restart without the culprits.
    SetupFailed {
        /// What went wrong.
        reason: crate::error::SetupFailure,
        /// Who is to blame, if known.
        culprits: Vec<Party>,
    },
    /// A round was certified by all servers.
    RoundComplete {
        /// The round.
        round: u64,
        /// Number of clients whose ciphertexts were combined.
        participants: u32,
    },
    /// A slot revealed a message.
    Delivered {
        /// The round.
        round: u64,
        /// The slot (anonymous: the slot index says nothing about the sender).
        slot: u32,
        /// The message.
        message: Vec<u8>,
    },
    /// A client was excluded from the following rounds.
    Excluded {
        /// The client.
        client: ClientId,
        /// Why.
        reason: ExclusionReason,
        /// The signed messages that prove it, each exactly as its signer sent it (servers only;
        /// empty at clients, which learn it from the output all servers certified).
        evidence: Vec<SharedBytes>,
    },
    /// A hybrid-mode accusation arrived and blame started.
    Accusation(Accusation),
    /// Blame finished.
    Verdict {
        /// The accusation.
        accusation: Accusation,
        /// The disruptor (`None`: the accusation was unfounded or servers disagreed).
        culprit: Option<Party>,
    },
    /// A server misbehaved: the session halts.
    Halted {
        /// The culprit.
        server: ServerId,
        /// What it did.
        fault: ServerFault,
        /// Signed messages proving it, each exactly as its signer sent it.
        evidence: Vec<SharedBytes>,
    },
    /// Another server halted the session and told us why; we halted too. Nobody is named by
    /// us: the alert's evidence could not be checked here (an unresponsive peer, say), so it
    /// is the reporter's word. (Faults we can check are reported as [`Event::Halted`].)
    PeerHalted {
        /// The server that halted and alerted us.
        by: ServerId,
        /// The server it names.
        alleged: ServerId,
        /// The fault it reports.
        fault: ServerFault,
        /// The evidence it sent.
        evidence: Vec<SharedBytes>,
    },
    /// The certified output of `round` does not count this client: its upstream server left
    /// its submission out (or never received it). A driver may switch to another server.
    LeftOut {
        /// The round.
        round: u64,
    },
    /// Server only: client `client`, one of ours, asked to catch up from round `from`, older
    /// than every certified output this server keeps in memory, so the state machine sent it
    /// nothing. A driver with a durable history of the outputs it sent its clients sends
    /// `client` the `RoundOutput` envelopes of rounds `from … until − 1` from it, in order,
    /// before any later output (protocol §7.2); the state machine has already applied its
    /// bound (one answer per client and round). A driver without one can do nothing: the
    /// client stays behind.
    CatchUpFromHistory {
        /// The client.
        client: ClientId,
        /// The first round it needs.
        from: u64,
        /// The round in progress (every output before it is certified).
        until: u64,
    },
    /// A peer's message was rejected (state unchanged).
    Rejected(MessageError),
}
