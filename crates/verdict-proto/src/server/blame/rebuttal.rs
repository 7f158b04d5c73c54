//! Blame step 3: suspects' rebuttals ("no objection" or a conclusive lie proof) and the
//! rebuttal deadline.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId};

use super::super::common::Core;
use super::super::state::Running;
use super::super::stop::Stop;
use crate::blame::{Rebuttal, check_lie_proof};
use crate::error::{MessageError, ServerFault, WireError};
use crate::slot::Accusation;
use crate::suite::ProtoSuite;
use crate::wire::Envelope;

use super::super::state::Blame;

impl<S: ProtoSuite> Running<S> {
    pub(in crate::server) fn on_rebuttal<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        env: Envelope<S::G>,
    ) -> Result<(), Stop> {
        let from = env.header().sender;
        let Party::Client(c) = from else {
            return Ok(());
        };
        let Ok(rebuttal) = Rebuttal::from_bytes(&env.payload) else {
            core.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("rebuttal"),
            });
            return Ok(());
        };
        if let Rebuttal::LieProof { .. } = rebuttal {
            return self.on_lie_proof(core, &env);
        }
        let round = rebuttal.round();
        let Some(blame) = self.blame.as_mut().filter(|b| b.round == round) else {
            // Blame not started here yet (the suspect answered a faster server): keep the
            // latest per client until it does.
            self.early_blame.objections.insert(c, env);
            return Ok(());
        };
        if blame.suspects.is_none() {
            blame.objections.entry(c).or_insert_with(|| env.to_bytes());
            return Ok(());
        }
        let bytes = env.to_bytes();
        if !blame.decided && blame.is_answer(&core.config, &core.session, &bytes) == Some(c) {
            // The suspect saw exactly our claims and objects to none of them.
            blame.answers.entry(c).or_insert(bytes);
            self.maybe_decide(core);
        }
        // Otherwise someone else's, about claims we do not hold (an equivocating server's other
        // version: the echoes name it), or too late: not evidence for our verdict.
        Ok(())
    }

    /// The server a signed rebuttal proves lied, with the accusation and its signed claim.
    pub(super) fn lie_proof_in<R>(
        &self,
        core: &Core<S, R>,
        rebuttal: &[u8],
    ) -> Option<(ServerId, Accusation, Vec<u8>)> {
        let xor = self.nets.xor.as_ref()?;
        check_lie_proof::<S>(&core.config, &core.session, xor.roster(), rebuttal)
    }

    /// A rebuttal carrying a lie proof: conclusive whenever it arrives.
    pub(super) fn on_lie_proof<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        env: &Envelope<S::G>,
    ) -> Result<(), Stop> {
        let bytes = env.to_bytes();
        match self.lie_proof_in(core, &bytes) {
            Some((j, acc, claim)) => Err(Stop::fault(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![claim, bytes],
            )),
            None => {
                core.reject(MessageError::Malformed {
                    from: env.header().sender,
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
