//! Client submissions and the submission window: decode on arrival, close by policy, verify our
//! own clients (eager), and send our inventory.

use core::time::Duration;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};

use super::super::common::Core;
use super::super::state::{RoundStep, Running, Signature, Submitted};
use super::super::stop::Stop;
use super::held::arrived_counting_held;
use super::{decode_submission, invalid_clients, slot_aggregates, xor_sums};
use crate::error::{MessageError, ServerFault, WireError};
use crate::policy::{Verification, WindowPolicy};
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind, Received, SharedBytes, payloads};

/// Whether a submission window closes now: `arrived` of `expected` clients are in, `elapsed`
/// since it opened. `fraction_at` records (once) when the policy's fraction was first reached,
/// which the closing time depends on. A window with nobody to wait for closes at once.
pub(super) fn window_closes(
    window: &WindowPolicy,
    expected: usize,
    arrived: usize,
    elapsed: Duration,
    fraction_at: &mut Option<Duration>,
) -> bool {
    if fraction_at.is_none() && arrived >= window.needed(expected) {
        *fraction_at = Some(elapsed);
    }
    expected == 0
        || window
            .close_at(*fraction_at, arrived >= expected)
            .is_some_and(|t| elapsed >= t)
}

impl<S: ProtoSuite> Running<S> {
    pub(super) fn on_submission<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
        signature: Signature,
    ) -> Result<(), Stop> {
        if signature == Signature::Deferred {
            self.hold_unchecked(core, c, msg);
        } else {
            self.take_checked(core, c, msg);
        }
        self.check_window(core)
    }

    /// A client's submission whose signature checked: the client is ours from now on (even if
    /// it is too late for this window), and its submission is taken unless the window closed,
    /// it is a duplicate, or it does not decode.
    pub(super) fn take_checked<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
    ) {
        self.take_decoded(core, c, msg, None);
    }

    /// [`Running::take_checked`], with the submission possibly decoded already (`decoded`:
    /// what [`decode_submission`] gave for it with every slot decoded), for callers that decode
    /// many at once. Without it, a submission is decoded only once nothing else refuses it.
    pub(super) fn take_decoded<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
        decoded: Option<Result<Submitted<S>, WireError>>,
    ) {
        let from = Party::Client(c);
        let round = msg.header().round;
        // Any rostered client (the router checked its signature) may submit to us: one that
        // moved here is ours from now on, even if it comes too late for this window.
        if core.excluded.contains(&c) {
            core.reject(MessageError::Unexpected {
                from,
                kind: "submission",
                round,
            });
            return;
        }
        self.submitted_by(core, c);
        if self.round.step != RoundStep::Collecting {
            core.reject(MessageError::Unexpected {
                from,
                kind: "submission after the window closed",
                round,
            });
            return;
        }
        if let Some(prev) = self.round.own.get(&c) {
            if prev.envelope != *msg.raw() {
                core.reject(MessageError::Duplicate {
                    from,
                    kind: "submission",
                });
            }
            return;
        }
        let decoded = decoded.unwrap_or_else(|| {
            decode_submission::<S>(&self.round.open, msg.raw().clone(), msg.payload(), true)
        });
        match decoded {
            Ok(submitted) => {
                self.round.own.insert(c, submitted);
            }
            Err(source) => core.reject(MessageError::Malformed { from, source }),
        }
    }

    /// Closes our submission window if the policy says so: verifies our clients (eager),
    /// sums their ciphertexts, and sends our inventory.
    pub(crate) fn check_window<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let expected = core.expected_clients();
        let window = core.config.policy.window;
        let eager = core.config.policy.mode.verification() == Verification::Eager
            && !core.adversaries.skip_client_checks();
        let now = core.now;
        let run = self;
        if run.blame.is_some() || run.round.step != RoundStep::Collecting {
            return Ok(());
        }
        let elapsed = now.saturating_sub(run.round.opened_at);
        if !run.round.unchecked.is_empty() {
            // Counting the held submissions as if they were checked: if the window would then
            // reach its fraction or close, check them all now (one batch), so that only
            // checked submissions count below. Without forgeries this is exactly when the
            // window would have reached its fraction or closed with every submission checked
            // on arrival; each forgery costs one check, as on arrival.
            let tentative = arrived_counting_held(run);
            let mut fraction_at = run.round.fraction_at;
            let reaches_fraction = fraction_at.is_none() && tentative >= window.needed(expected);
            if reaches_fraction
                || window_closes(&window, expected, tentative, elapsed, &mut fraction_at)
            {
                run.check_held(core);
            }
        }
        // Checked submissions may have made clients ours.
        let expected = core.expected_clients();
        let arrived = run.round.own.len();
        if !window_closes(
            &window,
            expected,
            arrived,
            elapsed,
            &mut run.round.fraction_at,
        ) {
            return Ok(());
        }
        let round = run.round.number;
        let colluding = core.adversaries.also_list(round, |bytes, round| {
            Envelope::<S::G>::from_bytes(bytes).is_ok_and(|e| e.header().round == round)
        });
        for bytes in colluding {
            // Simulator adversary: listed unchecked (and undecoded: whoever needs a slot of it
            // decodes it, as for any deferred slot).
            if let Ok(e) = Received::<S::G>::parse(bytes.into())
                && let Party::Client(c) = e.header().sender
            {
                let open = &run.round.open;
                let mut sub = decode_submission::<S>(open, e.raw().clone(), e.payload(), false)
                    .unwrap_or_else(|_| Submitted {
                        envelope: e.raw().clone(),
                        slots: Vec::new(),
                        cts: open.iter().map(|_| None).collect(),
                    });
                sub.cts.iter_mut().for_each(|ct| *ct = None);
                run.round.own.insert(c, sub);
            }
        }
        if S::AGGREGATION.aggregates() && eager {
            // Eager verification, our share of it: our own clients' proofs, one batch per
            // slot. The other servers take our word (and our aggregates) until a slot fails to
            // reveal, so this is where an invalid proof is normally caught.
            let bad = invalid_clients(
                &run.nets,
                &run.round.open,
                &run.round.prepared,
                &run.round.own,
                &mut core.rng,
            );
            for (c, slot) in bad {
                if let Some(sub) = run.round.own.remove(&c) {
                    run.round.own_rejected.push((c, slot, sub.envelope));
                }
            }
        }
        if core.adversaries.falsely_reject(round)
            && let Some((&c, _)) = run.round.own.iter().next()
            && let Some(sub) = run.round.own.remove(&c)
        {
            let slot = run.round.open.first().map_or(0, |o| o.slot);
            run.round.own_rejected.push((c, slot, sub.envelope));
        }
        let mut aggregates = Vec::with_capacity(run.round.open.len());
        let mut encoded = Vec::with_capacity(run.round.open.len());
        // Each slot's sum of our clients' ciphertexts is independent of the others': in
        // parallel with the `parallel` feature.
        let round_state = &run.round;
        let sums = slot_aggregates(
            &run.nets,
            &round_state.open,
            &round_state.prepared,
            &round_state.own,
        );
        for sum in sums {
            let aggregate = match sum {
                Ok(a) => a,
                // Our own clients' ciphertexts were length-checked on arrival: only a bug of
                // ours gets here, and then we stop rather than send something wrong.
                Err(_) => {
                    return Err(Stop::fault(
                        core.id,
                        ServerFault::BadOutput { round },
                        Vec::new(),
                    ));
                }
            };
            encoded.push(
                aggregate
                    .as_ref()
                    .zip(S::AGGREGATION.ops())
                    .map(|(a, ops)| ops.encode_aggregate(a))
                    .unwrap_or_default(),
            );
            aggregates.push(aggregate);
        }
        if core.adversaries.swap_aggregates(round) {
            let filled: Vec<usize> = (0..aggregates.len())
                .filter(|&k| aggregates.get(k).is_some_and(Option::is_some))
                .collect();
            if let (Some(&a), Some(&b)) = (filled.first(), filled.get(1)) {
                aggregates.swap(a, b);
                encoded.swap(a, b);
            }
        }
        for (k, open) in run.round.open.iter().enumerate() {
            if let (Some(Some(a)), Some(e)) = (aggregates.get_mut(k), encoded.get_mut(k))
                && let Some(ops) = S::AGGREGATION.ops()
                && let Some(t) = core.adversaries.tamper_aggregate(round, k, e)
                && let Ok(t) = ops.decode_aggregate(open.len, &t)
            {
                *e = ops.encode_aggregate(&t);
                *a = t;
            }
        }
        run.round.own_aggregates = aggregates;
        run.round.own_xor_sums = xor_sums(
            &run.round.open,
            run.round.own.iter().map(|(c, sub)| (*c, sub)),
        );
        let list: Vec<SharedBytes> = run.round.own.values().map(|s| s.envelope.clone()).collect();
        let rejected: Vec<SharedBytes> = run
            .round
            .own_rejected
            .iter()
            .map(|(_, _, e)| e.clone())
            .collect();
        run.round.step = RoundStep::Inventories;
        core.last_progress = now;
        core.broadcast(
            Kind::Inventory,
            round,
            payloads::Inventory::encode(&list, &rejected, &encoded),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::slot::{OpenSlot, SlotKind};
    use crate::suite::XorOf;
    use verdict_dcnet::HashingGenerator;
    use verdict_group::Ristretto255;

    type Hg = HashingGenerator<Ristretto255>;

    #[test]
    fn xor_slots_are_length_checked_and_never_decoded() {
        let open = [OpenSlot {
            kind: SlotKind::Xor,
            slot: 3,
            len: 10,
        }];
        let n = XorOf::<Hg>::frame_len(10);
        for (len, fits) in [(n, true), (n - 1, false), (n + 1, false), (0, false)] {
            let mut w = crate::wire::Writer::new();
            crate::wire::write_byte_list(&mut w, &[vec![0xA5; len]]);
            let payload = w.finish();
            let envelope = SharedBytes::from(payload.clone());
            let decoded = decode_submission::<Hg>(&open, envelope.clone(), &envelope, true);
            assert_eq!(decoded.is_ok(), fits, "{len} bytes");
            if let Ok(sub) = decoded {
                assert!(sub.cts[0].is_none(), "an XOR ciphertext was decoded");
                assert_eq!(sub.slot_bytes(0), Some(&payload[payload.len() - n..]));
            }
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn an_all_window_waits_for_every_client() {
        let w = WindowPolicy::all();
        let mut at = None;
        assert!(!window_closes(&w, 3, 2, ms(10_000), &mut at));
        assert!(window_closes(&w, 3, 3, ms(10_001), &mut at));
        assert_eq!(at, Some(ms(10_001)));
    }

    #[test]
    fn nobody_expected_closes_at_once() {
        let mut at = None;
        assert!(window_closes(&WindowPolicy::all(), 0, 0, ms(0), &mut at));
    }

    #[test]
    fn the_multiplier_extends_from_when_the_fraction_was_first_reached() {
        // Half of 4 clients, then wait as long again (100 %).
        let w = WindowPolicy {
            fraction_permille: 500,
            multiplier_percent: 100,
            deadline: None,
        };
        let mut at = None;
        assert!(!window_closes(&w, 4, 1, ms(50), &mut at));
        assert_eq!(at, None);
        assert!(!window_closes(&w, 4, 2, ms(100), &mut at));
        assert_eq!(at, Some(ms(100)));
        // A third arrival later does not move the reference point.
        assert!(!window_closes(&w, 4, 3, ms(150), &mut at));
        assert_eq!(at, Some(ms(100)));
        assert!(!window_closes(&w, 4, 3, ms(199), &mut at));
        assert!(window_closes(&w, 4, 3, ms(200), &mut at));
    }

    #[test]
    fn everyone_in_closes_without_the_extra_wait() {
        let w = WindowPolicy {
            fraction_permille: 500,
            multiplier_percent: 100,
            deadline: None,
        };
        let mut at = None;
        assert!(!window_closes(&w, 2, 1, ms(100), &mut at));
        assert!(window_closes(&w, 2, 2, ms(120), &mut at));
    }

    #[test]
    fn a_deadline_closes_whatever_arrived() {
        let w = WindowPolicy {
            fraction_permille: 1000,
            multiplier_percent: 0,
            deadline: Some(ms(300)),
        };
        let mut at = None;
        assert!(!window_closes(&w, 5, 0, ms(299), &mut at));
        assert!(window_closes(&w, 5, 0, ms(300), &mut at));
        assert_eq!(at, None);
    }
}
