//! Simulator adversary switches: misbehaviour a test switches on in one server, kept consistent with
//! what that server itself acts on (a lie it tells others is a lie it believes). Not for production.

use rand_core::{CryptoRng, RngCore};

use super::*;

/// Simulator adversary hook: rewrites the encoding of this server's own aggregate of the
/// `k`-th open slot (see [`Server::tamper_own_aggregates`]).
pub type AggregateTamper = Box<dyn FnMut(usize, Vec<u8>) -> Vec<u8> + Send>;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Simulator adversary: from now on, publish wrong pad bits (the first two clients' bits
    /// flipped, so their XOR still matches) during blame. Not for production use.
    #[doc(hidden)]
    pub fn lie_in_blame(&mut self) {
        self.lie_in_blame = true;
    }

    /// Simulator adversary: from now on, sign "nobody is to blame" as its verdict of every
    /// accusation, whatever the evidence, and act on it. Not for production use.
    #[doc(hidden)]
    pub fn dissent_in_blame(&mut self) {
        self.dissent_in_blame = true;
    }

    /// Simulator adversary: from now on, forward this server's clients' submissions without
    /// verifying their proofs, even in eager mode. Not for production use.
    #[doc(hidden)]
    pub fn skip_client_checks(&mut self) {
        self.skip_client_checks = true;
    }

    /// Simulator adversary: list this signed submission (of any client, for its round) in
    /// this server's inventory, undecoded and unchecked, as a server colluding with that
    /// client would. Not for production use.
    #[doc(hidden)]
    pub fn also_list(&mut self, envelope: Vec<u8>) {
        self.also_list.push(envelope);
    }

    /// Simulator adversary: in `round`, send (and use) the aggregates of the first two
    /// verifiable slots swapped. Not for production use.
    #[doc(hidden)]
    pub fn swap_aggregates_in(&mut self, round: u64) {
        self.swap_aggregates_in = Some(round);
    }

    /// Simulator adversary: in `round`, list the first accepted client as rejected (its
    /// submission is valid). Not for production use.
    #[doc(hidden)]
    pub fn falsely_reject_in(&mut self, round: u64) {
        self.falsely_reject_in = Some(round);
    }

    /// Simulator adversary: in `round`, rewrite this server's own per-slot aggregates with `f`
    /// (given the open-slot index and the encoding) and use the result consistently, in its
    /// inventory and in its own reveal, as a malicious server would. Not for production use.
    #[doc(hidden)]
    pub fn tamper_own_aggregates(&mut self, round: u64, f: AggregateTamper) {
        self.tamper_aggregates = Some((round, f));
    }
}
