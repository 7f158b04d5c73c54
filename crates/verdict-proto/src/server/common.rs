//! What every stage of a server shares: its identity, keys, configuration, RNG and clock, the
//! clients it serves and has excluded, the equivocation tracker, and the outbox (transmits,
//! events, and our own broadcasts waiting to be processed like everyone else's).
//!
//! Handlers take `(&mut StageState, &mut Core, message)` and return `Result<_, Stop>`: the
//! stage's data and the shared parts are borrowed separately, so no handler re-matches the
//! server's state.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId, SessionId};

use super::adversary::Adversaries;
use crate::config::GroupConfig;
use crate::error::MessageError;
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::suite::ProtoSuite;
use verdict_group::Group;

use crate::wire::{Envelope, Kind, Received, SignedHeader};

/// The shared part of a server.
pub(crate) struct Core<S: ProtoSuite, R> {
    pub(crate) id: ServerId,
    pub(crate) keys: SecretKeys<S::G>,
    /// Shared with the other participants of a simulation, not copied.
    pub(crate) config: Arc<GroupConfig<S>>,
    pub(crate) session: SessionId,
    pub(crate) rng: R,
    /// The clients this server serves: the roster's at first, then as clients move between
    /// upstreams (see `round/upstream.rs`). Set-up serves the roster's.
    pub(crate) clients: BTreeSet<ClientId>,
    pub(crate) excluded: BTreeSet<ClientId>,
    /// Clients absent at set-up (also in `excluded` once set-up completes), and the
    /// transcript that answers a set-up message after set-up.
    pub(crate) late_setup: super::late_setup::LateSetup,
    pub(crate) now: Duration,
    /// When the session last moved (a message from a server, or a step of ours): silence is
    /// measured from here.
    pub(crate) last_progress: Duration,
    /// The current round (0 during set-up), for the equivocation window.
    pub(crate) round: u64,
    pub(crate) headers: BTreeMap<(Kind, Party, u64), Tracked<S::G>>,
    pub(crate) echoed: BTreeSet<(Kind, u64)>,
    pub(crate) transmits: VecDeque<Transmit>,
    pub(crate) events: VecDeque<Event>,
    /// Our own broadcasts, processed after the handler that sent them returns, exactly like a
    /// peer's message.
    pub(crate) loopback: VecDeque<Received<S::G>>,
    pub(crate) adversaries: Adversaries,
}

/// A server's signed step header as we got it, decoded and as the bytes its signer sent (the
/// evidence, should it sign a different one for the same step; kept as a copy of those bytes,
/// not a view of the message, so a tracked inventory does not stay in memory).
pub(crate) struct Tracked<G: Group> {
    pub(crate) signed: SignedHeader<G>,
    pub(crate) bytes: Vec<u8>,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Core<S, R> {
    pub(crate) fn reject(&mut self, e: MessageError) {
        self.events.push_back(Event::Rejected(e));
    }

    pub(crate) fn seal(&mut self, kind: Kind, round: u64, payload: Vec<u8>) -> Envelope<S::G> {
        Envelope::seal(
            self.keys.signing(),
            kind,
            Party::Server(self.id),
            self.session.0,
            round,
            payload,
            &mut self.rng,
        )
    }

    /// Sends `bytes` to every other server.
    pub(crate) fn send_to_servers(&mut self, bytes: &Arc<[u8]>) {
        for j in 0..self.config.num_servers() as u32 {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(bytes),
                });
            }
        }
    }

    /// Signs and sends to every other server; our own copy is processed next, like theirs,
    /// and shares the buffer that went out (our evidence of what we said is what they got).
    pub(crate) fn broadcast(&mut self, kind: Kind, round: u64, payload: Vec<u8>) {
        let own = Received::sealed(self.seal(kind, round, payload));
        self.send_to_servers(own.raw().buffer());
        self.loopback.push_back(own);
    }

    pub(crate) fn send(&mut self, to: Party, kind: Kind, round: u64, payload: Vec<u8>) {
        let bytes = self.seal(kind, round, payload).into_shared();
        self.transmits.push_back(Transmit { to, bytes });
    }

    /// Signs one message and sends it to each of `clients` (an envelope names no recipient,
    /// so one signature and one buffer serve them all).
    pub(crate) fn send_to_clients(
        &mut self,
        clients: &[ClientId],
        kind: Kind,
        round: u64,
        payload: Vec<u8>,
    ) -> Arc<[u8]> {
        let bytes = self.seal(kind, round, payload).into_shared();
        for c in clients {
            self.transmits.push_back(Transmit {
                to: Party::Client(*c),
                bytes: Arc::clone(&bytes),
            });
        }
        bytes
    }

    /// Our clients not excluded so far (whose submissions a window waits for).
    pub(crate) fn expected_clients(&self) -> usize {
        self.clients
            .iter()
            .filter(|c| !self.excluded.contains(c))
            .count()
    }

    /// Notes that the session moved (resets the silence timer).
    pub(crate) fn progress(&mut self) {
        self.last_progress = self.now;
    }
}
