//! A server's state between messages: set-up, a running session (the current round, history,
//! blame), or halted. Each holds only the data of its stage; [`super::Server`]'s router is the
//! one place that matches on it.

use core::ops::Range;
use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use verdict_dcnet::{ClientId, ServerId};
use verdict_group::Group;

use crate::error::ExclusionReason;
use crate::schedule::Schedule;
use crate::setup::SetupLog;
use crate::slot::{Accusation, OpenSlot, RoundResult, SlotOutput};
use crate::suite::{ClientCt, Prepared, ProtoSuite, ServerCt, ServerSecrets, SessionNets};
use crate::wire::{Received, SharedBytes};

mod blame;

pub(super) use blame::{Blame, Claim, EarlyBlame, Trace};

/// The stage a server is in.
pub(super) enum State<S: ProtoSuite> {
    Setup(Box<SetupState<S>>),
    Running(Box<Running<S>>),
    Halted,
}

/// Set-up: collecting our clients' set-up messages, then the set-up log (inventories,
/// disputes, shuffle, decryptions).
pub(super) struct SetupState<S: ProtoSuite> {
    pub(super) log: SetupLog<S>,
    /// The client set-up messages received: our clients', and any other rostered client's
    /// that handed its message to us (see `SetupState::handle`).
    pub(super) own: BTreeMap<ClientId, SharedBytes>,
    /// When the set-up window opened (the server's start) and when its fraction was reached.
    pub(super) opened_at: Duration,
    pub(super) fraction_at: Option<Duration>,
    pub(super) sent_inventory: bool,
    pub(super) sent_step: bool,
    pub(super) sent_decryption: bool,
    pub(super) sent_dispute: bool,
    /// Round-0 messages of servers that finished set-up first, kept per server.
    pub(super) early: Early<S::G>,
    pub(super) secrets: Option<ServerSecrets<S>>,
    pub(super) suite_setup: Vec<u8>,
}

/// The session after set-up.
pub(super) struct Running<S: ProtoSuite> {
    pub(super) nets: SessionNets<S>,
    pub(super) secrets: ServerSecrets<S>,
    pub(super) schedule: Schedule,
    pub(super) round: Round<S>,
    /// Messages for the next round (a faster peer), kept per sender.
    pub(super) future: Early<S::G>,
    pub(super) history: BTreeMap<u64, Archived<S>>,
    pub(super) blame: Option<Blame<S::G>>,
    /// Blame messages that arrived before this server started tracing (a faster server).
    pub(super) early_blame: EarlyBlame<S::G>,
    pub(super) pending_exclusions: Vec<(ClientId, ExclusionReason)>,
    /// The last certified outputs as sent to our clients, oldest first, for reconnecting
    /// clients (`round/catch_up.rs`; bounded by `CATCH_UP_ROUNDS`).
    pub(super) outputs: VecDeque<(u64, Arc<[u8]>)>,
    /// Per client, the round in which we last answered its catch-up request (one per round).
    pub(super) caught_up: BTreeMap<ClientId, u64>,
}

/// Where a round is: each step waits for one kind of message from every server (or, first, for
/// the window to close).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RoundStep {
    /// Our submission window is open.
    Collecting,
    /// Our inventory is out; waiting for every server's.
    Inventories,
    /// Our commitment to our server ciphertexts is out (XOR slots open); waiting for all.
    Commits,
    /// Our server ciphertexts are out; waiting for every server's.
    ServerCiphertexts,
    /// Our output signature is out; waiting for every server's.
    Signatures,
}

/// Whether a message's signature was checked on arrival. Every message's is, but for a
/// client's submission to the window being collected, which waits for its signature to be
/// checked in one batch with the others' before the window may close (`round/submission.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signature {
    /// Checked on arrival.
    Checked,
    /// Not checked yet: the message may act on nothing until it is.
    Deferred,
}

/// One client's accepted submission, decoded once on arrival.
pub(super) struct Submitted<S: ProtoSuite> {
    /// The client's signed submission as it arrived (from the client, or inside its server's
    /// inventory, of whose bytes it is then a view).
    pub(super) envelope: SharedBytes,
    /// Where each open slot's ciphertext lies in `envelope`: what deferred decoding and blame
    /// decode from, without parsing the submission again.
    pub(super) slots: Vec<Range<usize>>,
    /// The decoded ciphertext per open slot. `None` where decoding is deferred: a verifiable
    /// slot of another server's client under an aggregating suite, decoded only if the slot
    /// fails to reveal.
    pub(super) cts: Vec<Option<ClientCt<S>>>,
}

impl<S: ProtoSuite> Submitted<S> {
    /// The bytes of the `k`-th open slot's ciphertext.
    pub(super) fn slot_bytes(&self, k: usize) -> Option<&[u8]> {
        self.envelope.get(self.slots.get(k)?.clone())
    }
}

/// A client submission a server rejected for an invalid proof: client, first invalid slot,
/// its signed submission.
pub(super) type Rejected = (ClientId, u32, SharedBytes);

/// One server's inventory.
pub(super) struct Inventory<S: ProtoSuite> {
    /// The server's signed inventory message as received: evidence against it.
    pub(super) envelope: Option<Received<S::G>>,
    /// The submissions it accepted.
    pub(super) items: Vec<(ClientId, Submitted<S>)>,
    /// The submissions it rejected (each rejection checked on receipt).
    pub(super) rejected: Vec<Rejected>,
    /// Per open slot, the sum of its accepted clients' ciphertexts (aggregating suites,
    /// verifiable slots; `None` elsewhere).
    pub(super) aggregates: Vec<Option<S::Aggregate>>,
    /// Its accepted clients' XOR ciphertexts, summed by us while parsing the inventory.
    pub(super) xor_sums: XorSums,
}

/// What a round keeps of one server's inventory once the accepted set is known.
pub(super) struct Forwarded<S: ProtoSuite> {
    pub(super) envelope: Option<Received<S::G>>,
    /// The per-slot aggregates the reveal uses for this server's clients.
    pub(super) aggregates: Vec<Option<S::Aggregate>>,
    /// Whether `aggregates` are the server's own (to be checked if a slot fails) rather than
    /// recomputed by us from its submissions.
    pub(super) as_forwarded: bool,
    /// This server's clients' XOR ciphertexts summed, as the reveal uses them: as summed from
    /// its inventory, or again from its share of `S` when that differs.
    pub(super) xor_sums: XorSums,
}

/// Per open slot, the `⊕` of some submissions' ciphertexts of that slot (XOR slots; `None` for
/// verifiable ones), and whose they are.
#[derive(Default)]
pub(super) struct XorSums {
    pub(super) sums: Vec<Option<Vec<u8>>>,
    /// The clients summed, in id order.
    pub(super) over: Vec<ClientId>,
}

/// A server's ciphertexts message (signed envelope, as received) and the decoded ciphertexts.
pub(super) type SignedServerCts<S> = (SharedBytes, Vec<ServerCt<S>>);

/// A round's state.
pub(super) struct Round<S: ProtoSuite> {
    pub(super) number: u64,
    pub(super) step: RoundStep,
    pub(super) open: Vec<OpenSlot>,
    pub(super) prepared: Vec<Prepared<S>>,
    pub(super) opened_at: Duration,
    pub(super) fraction_at: Option<Duration>,
    pub(super) own: BTreeMap<ClientId, Submitted<S>>,
    /// Our own rejections and aggregates, fixed when our window closed.
    pub(super) own_rejected: Vec<Rejected>,
    /// Submissions to this window whose signatures are not checked yet, at most one per client
    /// (a different second one gets the first checked at once). Nothing is done with them but
    /// counting whether the window could close, which checks them all in one batch first.
    pub(super) unchecked: BTreeMap<ClientId, Received<S::G>>,
    pub(super) own_aggregates: Vec<Option<S::Aggregate>>,
    /// Our accepted clients' XOR ciphertexts summed (see [`Inventory`]).
    pub(super) own_xor_sums: XorSums,
    pub(super) inventories: Vec<Option<Inventory<S>>>,
    /// Other servers' inventories not checked yet, in arrival order (their envelopes and
    /// signatures are): all are checked together once the last is in (`round/inventory.rs`).
    pub(super) arrived_inventories: Vec<(ServerId, Received<S::G>)>,
    pub(super) accepted: BTreeMap<ClientId, Submitted<S>>,
    /// The server whose inventory each accepted client's submission is counted from.
    pub(super) upstream: BTreeMap<ClientId, ServerId>,
    /// Clients that sent us a submission this round, and clients that asked us to catch up
    /// (see `round/upstream.rs`).
    pub(super) submitters: BTreeSet<ClientId>,
    pub(super) listeners: BTreeSet<ClientId>,
    pub(super) forwarded: Vec<Forwarded<S>>,
    pub(super) excluded_now: Vec<(ClientId, ExclusionReason, Vec<SharedBytes>)>,
    pub(super) my_cts: Option<Vec<u8>>,
    pub(super) commits: Vec<Option<[u8; 32]>>,
    pub(super) server_cts: Vec<Option<SignedServerCts<S>>>,
    /// Server ciphertexts of faster servers that arrived before we knew `S` (one per server).
    pub(super) early_cts: Vec<Option<Received<S::G>>>,
    pub(super) result: Option<(RoundResult, Vec<u8>)>,
    pub(super) accusations: Vec<Accusation>,
    pub(super) signatures: Vec<Option<Received<S::G>>>,
}

impl<S: ProtoSuite> Round<S> {
    /// Whether `j`'s inventory is in, checked or not.
    pub(super) fn has_inventory_of(&self, j: ServerId) -> bool {
        self.inventories.get(j.index()).is_some_and(Option::is_some)
            || self.arrived_inventories.iter().any(|(k, _)| *k == j)
    }

    /// The servers whose inventory is not in (the step's timer names one of them).
    pub(super) fn missing_inventories(&self) -> Vec<ServerId> {
        (0..self.inventories.len())
            .map(|k| ServerId(k as u32))
            .filter(|&k| !self.has_inventory_of(k))
            .collect()
    }

    /// Whether XOR slots are open (then server ciphertexts are committed to first).
    pub(super) fn has_xor(&self) -> bool {
        self.open
            .iter()
            .any(|o| o.kind == crate::slot::SlotKind::Xor)
    }
}

/// What blame needs of a past round.
pub(super) struct Archived<S: ProtoSuite> {
    pub(super) open: Vec<OpenSlot>,
    pub(super) outputs: Vec<SlotOutput>,
    pub(super) accepted: BTreeMap<ClientId, Submitted<S>>,
    pub(super) server_cts: Vec<SignedServerCts<S>>,
}

/// Verified messages that arrived early, kept as received (never verified or decoded again),
/// per sender and bounded: a correct server sends a
/// handful of step messages per round and a client one submission, so one peer can never fill
/// a buffer another's messages need (the review's flooding attack).
pub(super) struct Early<G: Group> {
    pub(super) servers: BTreeMap<ServerId, Vec<Received<G>>>,
    pub(super) clients: BTreeMap<ClientId, Received<G>>,
}

impl<G: Group> Default for Early<G> {
    fn default() -> Self {
        Self {
            servers: BTreeMap::new(),
            clients: BTreeMap::new(),
        }
    }
}

impl<G: Group> Early<G> {
    /// Messages held.
    pub(super) fn len(&self) -> usize {
        self.servers.values().map(Vec::len).sum::<usize>() + self.clients.len()
    }

    /// Everything, servers' first, each sender's in arrival order.
    pub(super) fn drain(self) -> impl Iterator<Item = Received<G>> {
        self.servers
            .into_values()
            .flatten()
            .chain(self.clients.into_values())
    }
}

/// Early step messages a server may have outstanding for one round (Inventory, Commit,
/// ServerCiphertexts, OutputSignature, and blame's two with room to spare); more is flooding.
pub(super) const EARLY_PER_SERVER: usize = 8;

/// The servers whose entry of a per-server table is still empty, in order.
pub(crate) fn missing_of<T>(table: &[Option<T>]) -> Vec<ServerId> {
    table
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_none())
        .map(|(j, _)| ServerId(j as u32))
        .collect()
}
