//! Simulator adversary switches: misbehaviour a test switches on in one server, kept consistent
//! with what that server itself acts on (a lie it tells others is a lie it believes).
//!
//! They exist only with the `adversary` cargo feature (the simulator's adversaries, this
//! crate's tests and the benchmarks enable it). In every other build [`Adversaries`] is an
//! empty struct whose every answer is "behave", so no configuration, feature unification by
//! accident aside, can switch one on in a deployed server.

#[cfg(feature = "adversary")]
use rand_core::{CryptoRng, RngCore};

#[cfg(feature = "adversary")]
use super::Server;
#[cfg(feature = "adversary")]
use crate::suite::ProtoSuite;

/// Rewrites the encoding of a server's own aggregate of the `k`-th open slot (see
/// [`Server::tamper_own_aggregates`]).
#[cfg(feature = "adversary")]
pub type AggregateTamper = Box<dyn FnMut(usize, Vec<u8>) -> Vec<u8> + Send>;

/// Which misbehaviour is switched on (none, without the `adversary` feature).
#[derive(Default)]
pub(crate) struct Adversaries {
    #[cfg(feature = "adversary")]
    lie_in_blame: bool,
    #[cfg(feature = "adversary")]
    dissent_in_blame: bool,
    #[cfg(feature = "adversary")]
    skip_client_checks: bool,
    #[cfg(feature = "adversary")]
    also_list: Vec<Vec<u8>>,
    #[cfg(feature = "adversary")]
    swap_aggregates_in: Option<u64>,
    #[cfg(feature = "adversary")]
    falsely_reject_in: Option<u64>,
    #[cfg(feature = "adversary")]
    tamper_aggregates: Option<(u64, AggregateTamper)>,
}

impl Adversaries {
    /// Publish the first two clients' pad bits flipped in blame.
    pub(crate) fn lie_in_blame(&self) -> bool {
        #[cfg(feature = "adversary")]
        return self.lie_in_blame;
        #[cfg(not(feature = "adversary"))]
        false
    }

    /// Sign "nobody is to blame" whatever the evidence.
    pub(crate) fn dissent_in_blame(&self) -> bool {
        #[cfg(feature = "adversary")]
        return self.dissent_in_blame;
        #[cfg(not(feature = "adversary"))]
        false
    }

    /// Forward our clients' submissions unverified.
    pub(crate) fn skip_client_checks(&self) -> bool {
        #[cfg(feature = "adversary")]
        return self.skip_client_checks;
        #[cfg(not(feature = "adversary"))]
        false
    }

    /// Signed submissions of other clients to list in our inventory for `round` (the rest
    /// stay for their rounds).
    pub(crate) fn also_list(
        &mut self,
        round: u64,
        is_for: impl Fn(&[u8], u64) -> bool,
    ) -> Vec<Vec<u8>> {
        #[cfg(feature = "adversary")]
        {
            let (now, later) = core::mem::take(&mut self.also_list)
                .into_iter()
                .partition(|e| is_for(e, round));
            self.also_list = later;
            now
        }
        #[cfg(not(feature = "adversary"))]
        {
            let _ = (round, is_for);
            Vec::new()
        }
    }

    /// Swap the first two aggregates in `round`.
    pub(crate) fn swap_aggregates(&self, round: u64) -> bool {
        #[cfg(feature = "adversary")]
        return self.swap_aggregates_in == Some(round);
        #[cfg(not(feature = "adversary"))]
        {
            let _ = round;
            false
        }
    }

    /// List the first accepted client as rejected in `round`.
    pub(crate) fn falsely_reject(&self, round: u64) -> bool {
        #[cfg(feature = "adversary")]
        return self.falsely_reject_in == Some(round);
        #[cfg(not(feature = "adversary"))]
        {
            let _ = round;
            false
        }
    }

    /// Our own aggregate of open slot `k` in `round`, rewritten (`None`: as it is).
    pub(crate) fn tamper_aggregate(
        &mut self,
        round: u64,
        k: usize,
        encoded: &[u8],
    ) -> Option<Vec<u8>> {
        #[cfg(feature = "adversary")]
        {
            let (r, f) = self.tamper_aggregates.as_mut()?;
            (*r == round).then(|| f(k, encoded.to_vec()))
        }
        #[cfg(not(feature = "adversary"))]
        {
            let _ = (round, k, encoded);
            None
        }
    }
}

#[cfg(feature = "adversary")]
impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Adversary: from now on, publish wrong pad bits (the first two clients' bits flipped, so
    /// their XOR still matches) during blame.
    pub fn lie_in_blame(&mut self) {
        self.core.adversaries.lie_in_blame = true;
    }

    /// Adversary: from now on, sign "nobody is to blame" as its verdict of every accusation,
    /// whatever the evidence, and act on it.
    pub fn dissent_in_blame(&mut self) {
        self.core.adversaries.dissent_in_blame = true;
    }

    /// Adversary: from now on, forward this server's clients' submissions without verifying
    /// their proofs, even in eager mode.
    pub fn skip_client_checks(&mut self) {
        self.core.adversaries.skip_client_checks = true;
    }

    /// Adversary: list this signed submission (of any client, for its round) in this server's
    /// inventory, undecoded and unchecked, as a server colluding with that client would.
    pub fn also_list(&mut self, envelope: Vec<u8>) {
        self.core.adversaries.also_list.push(envelope);
    }

    /// Adversary: in `round`, send (and use) the aggregates of the first two verifiable slots
    /// swapped.
    pub fn swap_aggregates_in(&mut self, round: u64) {
        self.core.adversaries.swap_aggregates_in = Some(round);
    }

    /// Adversary: in `round`, list the first accepted client as rejected (its submission is
    /// valid).
    pub fn falsely_reject_in(&mut self, round: u64) {
        self.core.adversaries.falsely_reject_in = Some(round);
    }

    /// Adversary: in `round`, rewrite this server's own per-slot aggregates with `f` (given the
    /// open-slot index and the encoding) and use the result consistently, in its inventory and
    /// in its own reveal, as a malicious server would.
    pub fn tamper_own_aggregates(&mut self, round: u64, f: AggregateTamper) {
        self.core.adversaries.tamper_aggregates = Some((round, f));
    }
}
