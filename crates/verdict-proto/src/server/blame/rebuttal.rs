//! Blame step 3: suspects' rebuttals ("no objection" or a conclusive lie proof) and the
//! rebuttal deadline.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};

use super::super::common::Core;
use super::super::state::Running;
use super::super::stop::Stop;
use crate::blame::{Rebuttal, lie_proven_by};
use crate::error::{MessageError, ServerFault, WireError};
use crate::suite::ProtoSuite;
use crate::wire::Received;

use super::super::state::Blame;

impl<S: ProtoSuite> Running<S> {
    pub(in crate::server) fn on_rebuttal<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        c: ClientId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let Ok(rebuttal) = Rebuttal::from_bytes(msg.payload()) else {
            core.reject(MessageError::Malformed {
                from: Party::Client(c),
                source: WireError::Invalid("rebuttal"),
            });
            return Ok(());
        };
        if let Rebuttal::LieProof { .. } = rebuttal {
            return self.on_lie_proof(core, &msg);
        }
        let round = rebuttal.round();
        let Some(blame) = self.blame.as_mut().filter(|b| b.round == round) else {
            // Not about a blame we run: stale (it concluded), or about one we have not started.
            // The latter can never be an answer: a "no objection" lists the digest of every
            // server's claim, ours included, and we sign ours only when we start. So it is
            // dropped, not kept (a client could only fill a buffer with it).
            return Ok(());
        };
        if blame.suspects.is_none() {
            blame.objections.entry(c).or_insert(msg);
            return Ok(());
        }
        if !blame.decided && blame.is_answer(&msg) == Some(c) {
            // The suspect saw exactly our claims and objects to none of them.
            blame.answers.entry(c).or_insert_with(|| msg.raw().clone());
            self.maybe_decide(core);
        }
        // Otherwise someone else's, about claims we do not hold (an equivocating server's other
        // version: the echoes name it), or too late: not evidence for our verdict.
        Ok(())
    }

    /// A rebuttal carrying a lie proof (verified on arrival): conclusive whenever it arrives.
    pub(super) fn on_lie_proof<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        msg: &Received<S::G>,
    ) -> Result<(), Stop> {
        let proven = self
            .nets
            .xor
            .as_ref()
            .and_then(|xor| lie_proven_by::<S>(&core.config, &core.session, xor.roster(), msg));
        match proven {
            Some((j, acc, claim)) => Err(Stop::fault(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![claim, msg.raw().clone()],
            )),
            None => {
                core.reject(MessageError::Malformed {
                    from: msg.header().sender,
                    source: WireError::Invalid("lie proof"),
                });
                Ok(())
            }
        }
    }

    pub(crate) fn check_blame_deadline<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        if self
            .blame
            .as_ref()
            .and_then(Blame::pending_deadline)
            .is_some_and(|d| core.now >= d)
        {
            // A suspect that does not answer in time is treated as guilty.
            self.decide(core);
        }
        Ok(())
    }
}
