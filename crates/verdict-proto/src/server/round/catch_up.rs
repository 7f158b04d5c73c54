//! Catch-up: a client whose link dropped asks its upstream server (or the server it moves to) for the certified outputs it
//! missed, and the server resends them as they were first sent.
//!
//! A client processes round outputs strictly in order (each one advances its schedule: which
//! slots are open and how long), so one missed output would leave it waiting forever for a
//! round that is long over. After its link comes back it sends a `CatchUp` whose header round
//! is the round whose output it awaits; the server answers with every output it keeps from that
//! round on. Nothing in the answer needs trusting the server: each `RoundOutput` carries all
//! `M` servers' signatures, which the client checks as for any output.
//!
//! Bounds: a server keeps the last [`CATCH_UP_ROUNDS`] outputs (a fixed amount of memory,
//! whatever clients do), and answers each of its clients at most once per round, so a client
//! cannot make it send more than `CATCH_UP_ROUNDS` outputs per round (no amplification beyond
//! what a reconnect legitimately needs). A client further behind than the outputs kept is sent
//! nothing by the state machine: it emits [`Event::CatchUpFromHistory`] instead, and a driver
//! that stores every certified output (the node's durable history) sends the client every
//! output from the requested round on. A driver without such a history leaves the client
//! behind (it ignores later outputs, which are not the round it awaits).

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};

use super::super::common::Core;
use super::super::state::Running;
use crate::error::MessageError;
use crate::event::{Event, Transmit};
use crate::suite::ProtoSuite;
use crate::wire::Kind;

/// Certified outputs a server keeps to resend to reconnecting clients.
pub(crate) const CATCH_UP_ROUNDS: usize = 64;

impl<S: ProtoSuite> Running<S> {
    /// Keeps the certified output of `round` as sent to the clients.
    pub(super) fn keep_output(&mut self, round: u64, bytes: Arc<[u8]>) {
        self.outputs.push_back((round, bytes));
        while self.outputs.len() > CATCH_UP_ROUNDS {
            self.outputs.pop_front();
        }
    }

    /// Client `c` asks for the outputs from round `from` on.
    pub(super) fn on_catch_up<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        from: u64,
    ) {
        let current = self.round.number;
        // Any rostered client may ask (an excluded one too: the output that excluded it may
        // be what it missed); it gets this round's output from us too.
        self.listened_by(c);
        if from >= current {
            // Nothing certified was missed (the link dropped within a round): nothing to send.
            return;
        }
        if self.caught_up.get(&c) == Some(&current) {
            core.reject(MessageError::Duplicate {
                from: Party::Client(c),
                kind: Kind::CatchUp.name(),
            });
            return;
        }
        self.caught_up.insert(c, current);
        let oldest = self.outputs.front().map_or(current, |(r, _)| *r);
        if from < oldest {
            core.events.push_back(Event::CatchUpFromHistory {
                client: c,
                from,
                until: current,
            });
            return;
        }
        for (_, bytes) in self.outputs.iter().filter(|(r, _)| *r >= from) {
            core.transmits.push_back(Transmit {
                to: Party::Client(c),
                bytes: Arc::clone(bytes),
            });
        }
    }
}
