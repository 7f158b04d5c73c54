//! Submissions held for their signature check: a client's submission to the window being
//! collected waits, unchecked, until the window could close, and then every held signature is
//! checked in one batch (one multi-scalar multiplication instead of one verification per
//! client). A held submission changes nothing but that count: whether its client is ours,
//! whether a later submission of it is a duplicate, and the window's fraction time are decided
//! by checked submissions only ([`Running::check_window`]).

use std::collections::BTreeSet;

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use verdict_dcnet::{ClientId, Party};
use verdict_group::{Group, par};
use verdict_nizk::VerifyingKey;

use super::super::common::Core;
use super::super::state::Running;
use super::decode_submission;
use crate::error::{MessageError, WireError};
use crate::suite::ProtoSuite;
use crate::wire::{Received, SignedHeader, verify_batch};

impl<S: ProtoSuite> Running<S> {
    /// A submission to the window being collected whose signature is not checked yet: held,
    /// at most one per client, until the window could close ([`Running::check_window`]). It
    /// changes nothing else: whether the client is ours, or whether a later submission of the
    /// client is a duplicate, is decided once its signature checks. A second, different
    /// submission of the same client gets the held one checked at once, so a forgery sent
    /// first cannot keep the client's real submission out.
    pub(super) fn hold_unchecked<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
    ) {
        let known = |held: &Received<S::G>| held.raw() == msg.raw();
        if self
            .round
            .own
            .get(&c)
            .is_some_and(|s| s.envelope == *msg.raw())
            || self.round.unchecked.get(&c).is_some_and(known)
        {
            // The very bytes we hold: a resend.
            return;
        }
        if let Some(held) = self.round.unchecked.remove(&c) {
            self.check_one(core, c, held);
        }
        if self.round.own.contains_key(&c) {
            // A different second submission: checked now, refused as a duplicate if genuine.
            self.check_one(core, c, msg);
        } else {
            self.round.unchecked.insert(c, msg);
        }
    }

    /// Checks one held submission's signature now and takes it if it verifies.
    fn check_one<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
    ) {
        match core.config.check_signature(&msg) {
            Ok(()) => self.take_checked(core, c, msg),
            Err(e) => core.reject(e),
        }
    }

    /// Checks every held submission's signature in one batch (weights derived from the whole
    /// batch, so the server's random stream is not touched and the result does not depend on
    /// how arrivals were grouped) and takes those that verify, in client order.
    pub(super) fn check_held<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
        let held = core::mem::take(&mut self.round.unchecked);
        if held.is_empty() {
            return;
        }
        // Every held sender is rostered (`GroupConfig::open_unsigned` found its key).
        let held: Vec<(ClientId, Received<S::G>)> = held
            .into_iter()
            .filter(|(c, _)| core.config.key_of(Party::Client(*c)).is_some())
            .collect();
        let invalid: BTreeSet<usize> = {
            let items: Vec<SignedBy<'_, S::G>> = held
                .iter()
                .filter_map(|(c, msg)| Some((core.config.key_of(Party::Client(*c))?, msg.signed())))
                .collect();
            #[cfg(test)]
            crate::config::signature_checks::count_batch(items.len());
            verify_batch(&items, &mut batch_weights(&items))
                .err()
                .unwrap_or_default()
                .into_iter()
                .collect()
        };
        // Decoding is most of what taking a submission costs (every group element of every
        // slot validated), and each decodes on its own: all of them at once, in parallel with
        // the `parallel` feature, then taken one by one in client order exactly as on arrival
        // (a submission refused there has only cost its decoding).
        let open = &self.round.open;
        let indexed: Vec<(usize, &Received<S::G>)> =
            held.iter().map(|(_, msg)| msg).enumerate().collect();
        let decoded = par::map(&indexed, |&(pos, msg)| {
            (!invalid.contains(&pos))
                .then(|| decode_submission::<S>(open, msg.raw().clone(), msg.payload(), true))
        });
        for ((c, msg), decoded) in held.into_iter().zip(decoded) {
            match decoded {
                Some(decoded) => self.take_decoded(core, c, msg, Some(decoded)),
                None => core.reject(MessageError::Malformed {
                    from: Party::Client(c),
                    source: WireError::BadSignature,
                }),
            }
        }
    }
}

/// A signed header with the key it must verify under.
type SignedBy<'a, G> = (&'a VerifyingKey<G>, &'a SignedHeader<G>);

/// Submissions in, counting those held for their signature check.
pub(super) fn arrived_counting_held<S: ProtoSuite>(run: &Running<S>) -> usize {
    run.round.own.len() + run.round.unchecked.len()
}

/// Batching weights for the held submissions' signatures: a ChaCha20 stream keyed by a hash of
/// every (key, signed header) in the batch. A forger fixes its signatures before the weights
/// exist, so cancelling weights are as unlikely as with weights drawn at random; and the server's
/// own random stream (its proofs' nonces) is left as it was.
fn batch_weights<G: Group>(items: &[SignedBy<'_, G>]) -> ChaCha20Rng {
    let mut h = blake3::Hasher::new_derive_key("verdict-proto/submission-batch-weights/v1");
    h.update(&(items.len() as u64).to_le_bytes());
    for (key, signed) in items {
        h.update(&key.to_bytes());
        h.update(&signed.to_bytes());
    }
    ChaCha20Rng::from_seed(*h.finalize().as_bytes())
}
