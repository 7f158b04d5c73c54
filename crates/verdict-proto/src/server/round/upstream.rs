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
//! - a rostered, non-excluded client that sends it a submission in a round (even a late one)
//!   is one of its clients from then on — at once, so a submission that comes with a move
//!   counts toward the window it arrives in, and its sender gets that round's output;
//! - a client that only asks it to catch up is sent that round's output (and the catch-up), but
//!   is not waited for: a request costs nothing, and must not make a window wait;
//! - once a round is certified, a client in its accepted set that did not contact this server
//!   that round is served elsewhere: it is no longer ours (the window stops waiting for it and
//!   its outputs stop); a client that moved here from another server stays ours only while it
//!   submits to us every round, so one that falls silent is waited for once, not forever;
//! - a roster client absent from the round everywhere stays where it was.
//!
//! The set is bounded by the roster. A client that submits to several servers is served by
//! each (its identical submissions count once). A client that moves away costs its old server
//! one window that waits for it until the policy closes it — forever under
//! [`crate::WindowPolicy::all`], exactly as for a client that crashes; a client that moved in
//! and falls silent costs its new server the same, once.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::ClientId;

use super::super::common::Core;
use super::super::state::Running;
use crate::suite::ProtoSuite;

impl<S: ProtoSuite> Running<S> {
    /// Client `c` (rostered) sent us a submission in the current round: it is ours from now
    /// on, unless excluded.
    pub(super) fn submitted_by<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
    ) {
        if core.excluded.contains(&c) {
            return;
        }
        self.round.submitters.insert(c);
        core.clients.insert(c);
    }

    /// Client `c` (rostered) asked us to catch up in the current round: it gets this round's
    /// output from us, but no window waits for it.
    pub(super) fn listened_by(&mut self, c: ClientId) {
        self.round.listeners.insert(c);
    }

    /// The round is certified: who we serve from now on (see the module documentation), and
    /// who gets this round's output from us.
    pub(super) fn settle_upstreams<R: RngCore + CryptoRng>(
        &self,
        core: &mut Core<S, R>,
    ) -> Vec<ClientId> {
        let round = &self.round;
        let contacted = |c: &ClientId| round.submitters.contains(c) || round.listeners.contains(c);
        for c in round.accepted.keys() {
            if !contacted(c) {
                core.clients.remove(c);
            }
        }
        let me = core.id;
        let config = &core.config;
        core.clients
            .retain(|c| config.upstream_of(*c) == Some(me) || round.submitters.contains(c));
        let mut recipients: Vec<ClientId> = core.clients.iter().copied().collect();
        recipients.extend(round.listeners.iter().filter(|c| !core.clients.contains(c)));
        recipients.sort_unstable();
        recipients
    }
}
