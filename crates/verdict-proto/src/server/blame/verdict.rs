//! Blame steps 4–5: our verdict, the check of every peer's verdict against its evidence, and
//! the exclusions once all agree.

use std::collections::BTreeSet;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};

use super::super::common::Core;
use super::super::state::Running;
use super::super::stop::Stop;
use crate::blame::Verdict;
use crate::error::{ExclusionReason, ServerFault};
use crate::event::Event;
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, SharedBytes};

impl<S: ProtoSuite> Running<S> {
    /// Decides as soon as every suspect (not excluded before) has no objection to our claims.
    pub(super) fn maybe_decide<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
        let Some(blame) = &self.blame else {
            return;
        };
        let Some(suspects) = &blame.suspects else {
            return;
        };
        if suspects
            .iter()
            .all(|c| core.excluded.contains(c) || blame.answers.contains_key(c))
        {
            self.decide(core);
        }
    }

    /// Signs our verdict on the suspects' rebuttals we hold.
    pub(super) fn decide<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
        let Some(blame) = self.blame.as_mut().filter(|b| !b.decided) else {
            return;
        };
        let Some(suspects) = &blame.suspects else {
            return;
        };
        blame.decided = true;
        let verdict = Verdict {
            round: blame.round,
            // Simulator adversary: "nobody is to blame", whatever the evidence.
            culprits: if core.adversaries.dissent_in_blame() {
                Vec::new()
            } else {
                suspects.iter().copied().collect()
            },
            rebuttals: blame.answers.values().map(|r| r.to_vec()).collect(),
        };
        core.broadcast(Kind::Verdict, verdict.round, verdict.to_bytes());
    }

    pub(in crate::server) fn on_verdict<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let Some((verdict, blame)) = self.blame_step::<Verdict>(j, &msg)? else {
            return Ok(());
        };
        let Some(suspects) = blame.suspects.clone() else {
            if let Some(slot) = blame.early_verdicts.get_mut(j.index()) {
                *slot = Some(msg);
            }
            return Ok(());
        };
        // The verdict must be what its own evidence implies, given the claims all honest
        // servers hold: every suspect, each rebuttal a suspect's "no objection" to our claims.
        // (The verdict is the evidence; the rebuttals in it are only checked.)
        let answers = verdict
            .rebuttals
            .iter()
            .map(|r| blame.is_relayed_answer(&core.config, &core.session, &r.as_slice().into()));
        if !verdict_is_justified(&verdict.culprits, answers, &suspects) {
            let bad_verdict = |round, slot| ServerFault::BadVerdict { round, slot };
            return Err(blame.signed_wrong(j, bad_verdict, &msg));
        }
        let Some(slot @ None) = blame.verdicts.get_mut(j.index()) else {
            return Ok(());
        };
        *slot = Some(msg.raw().clone());
        core.progress();
        if blame.verdicts.iter().all(Option::is_some) {
            self.conclude(core)?;
        }
        Ok(())
    }

    /// Every server's verdict is in and consistent: apply it.
    pub(super) fn conclude<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let Some(blame) = self.blame.take() else {
            return Ok(());
        };
        let mut evidence: Vec<SharedBytes> = blame
            .claims
            .iter()
            .flatten()
            .map(|c| c.envelope.clone())
            .collect();
        evidence.extend(blame.verdicts.into_iter().flatten());
        for trace in &blame.traces {
            let culprit = trace.suspect.flatten();
            if let Some(c) = culprit
                && !core.excluded.contains(&c)
            {
                let reason = ExclusionReason::Disruption {
                    round: trace.accusation.round,
                    slot: trace.accusation.slot,
                };
                self.pending_exclusions.push((c, reason));
                core.excluded.insert(c);
                core.events.push_back(Event::Excluded {
                    client: c,
                    reason,
                    evidence: evidence.clone(),
                });
            }
            core.events.push_back(Event::Verdict {
                accusation: trace.accusation,
                culprit: culprit.map(Party::Client),
            });
        }
        // Drop submissions of newly excluded clients, checked or held (silently: they were
        // not wrong when they arrived), and let the window close.
        let excluded = &core.excluded;
        self.round.own.retain(|c, _| !excluded.contains(c));
        self.round.unchecked.retain(|c, _| !excluded.contains(c));
        self.check_window(core)
    }
}

/// The verdict function: whether a signed verdict is what its own evidence implies, given the
/// suspects every honest server derives from the same claims. It must name exactly the
/// suspects (a "no objection" does not clear one: only a lie proof, which halts the lying
/// server, ends a blame otherwise), and each rebuttal it carries must be a distinct suspect's
/// "no objection" to our claims (`answers`: whose answer each rebuttal is, `None`: it is not
/// one).
pub(super) fn verdict_is_justified(
    culprits: &[ClientId],
    answers: impl IntoIterator<Item = Option<ClientId>>,
    suspects: &BTreeSet<ClientId>,
) -> bool {
    let mut answered = BTreeSet::new();
    let evidence_ok = answers
        .into_iter()
        .all(|a| a.is_some_and(|c| answered.insert(c)));
    let named: BTreeSet<ClientId> = culprits.iter().copied().collect();
    evidence_ok && named == *suspects
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[u32]) -> BTreeSet<ClientId> {
        ids.iter().map(|&c| ClientId(c)).collect()
    }

    fn c(id: u32) -> ClientId {
        ClientId(id)
    }

    #[test]
    fn a_verdict_names_exactly_the_suspects() {
        let suspects = set(&[1, 4]);
        assert!(verdict_is_justified(&[c(4), c(1)], [], &suspects));
        assert!(verdict_is_justified(&[c(1), c(4), c(1)], [], &suspects));
        // Shielding a suspect, or naming an innocent client, is a bad verdict.
        assert!(!verdict_is_justified(&[c(1)], [], &suspects));
        assert!(!verdict_is_justified(&[c(1), c(4), c(2)], [], &suspects));
        assert!(!verdict_is_justified(&[], [], &suspects));
        assert!(verdict_is_justified(&[], [], &set(&[])));
    }

    #[test]
    fn answers_do_not_clear_a_suspect() {
        let suspects = set(&[1]);
        assert!(verdict_is_justified(&[c(1)], [Some(c(1))], &suspects));
        assert!(!verdict_is_justified(&[], [Some(c(1))], &suspects));
    }

    #[test]
    fn every_rebuttal_must_be_a_distinct_suspects_answer() {
        let suspects = set(&[1, 2]);
        let culprits = [c(1), c(2)];
        assert!(verdict_is_justified(
            &culprits,
            [Some(c(1)), Some(c(2))],
            &suspects
        ));
        assert!(!verdict_is_justified(
            &culprits,
            [Some(c(1)), None],
            &suspects
        ));
        assert!(!verdict_is_justified(
            &culprits,
            [Some(c(1)), Some(c(1))],
            &suspects
        ));
    }
}
