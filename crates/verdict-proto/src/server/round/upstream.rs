//! Which clients a server serves, round by round: clients may move to another upstream.
//!
//! The roster gives each client an upstream server, but a client whose link to it is down, or
//! whose submissions it keeps leaving out of the accepted set (a certified round output shows
//! that: [`crate::Event::LeftOut`]), moves to another server ([`crate::Client::switch_upstream`]).
//! Nothing in the protocol needs the servers to agree on who serves whom: every inventory may
//! list any rostered client, and the union counts a submission listed twice once (and excludes
//! a client that signed two). What a server's notion of *its* clients decides is local: whom
//! its submission window waits for, and whom it sends round outputs and catch-ups to.
//!
//! So each server keeps that set itself, from what it sees:
//!
//! - a rostered, non-excluded client that contacts it in a round (a submission, even a late
//!   one, or a `CatchUp`) is one of its clients from then on — at once, so a submission that
//!   comes with the move counts toward the window it arrives in, and its sender gets that
//!   round's output;
//! - once a round is certified, a client that is in its accepted set but did not contact this
//!   server that round is served elsewhere: it is no longer ours (the window stops waiting for
//!   it and its outputs stop);
//! - a client absent from the round everywhere stays where it was.
//!
//! The set is bounded by the roster; a client that contacts several servers is served by each
//! (its identical submissions count once). A client that moves away costs its old server one
//! window that waits for it until the policy closes it — forever under
//! [`crate::WindowPolicy::all`], exactly as for a client that crashes.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::ClientId;

use super::super::common::Core;
use super::super::state::Running;
use crate::suite::ProtoSuite;

impl<S: ProtoSuite> Running<S> {
    /// Client `c` (rostered) contacted us in the current round: it is ours from now on, unless
    /// excluded.
    pub(super) fn contacted_by<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
    ) {
        if core.excluded.contains(&c) {
            return;
        }
        self.round.contacted.insert(c);
        core.clients.insert(c);
    }

    /// The round is certified: a client in its accepted set that did not contact us this round
    /// is served by another server.
    pub(super) fn settle_upstreams<R: RngCore + CryptoRng>(&self, core: &mut Core<S, R>) {
        for c in self.round.accepted.keys() {
            if !self.round.contacted.contains(c) {
                core.clients.remove(c);
            }
        }
    }
}
