//! Answering a rebuttal request: the suspect side of blame.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId, SlotRound};

use crate::blame::{Rebuttal, RebuttalRequest, open_blame_bits};
use crate::error::MessageError;
use crate::slot::SlotKind;
use crate::suite::{ProtoSuite, XorOf};
use crate::wire::{Kind, Received};

use super::{Client, State};

/// What a suspect has answered so far.
pub(super) struct Defence {
    round: u64,
    /// Servers whose false claims we have proven.
    proven: Vec<ServerId>,
    /// The claim sets (header digests) we have not objected to (bounded by `M`).
    answered: Vec<Vec<[u8; 32]>>,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    /// A server asks this client to rebut the accusations of a round it is a suspect of.
    ///
    /// Every claim about our pad bits is checked against the truth, whichever request brings
    /// it: a false one is answered at once with a lie proof (conclusive on its own). "No
    /// objection" is sent only for a request carrying a signed claim from every server, none
    /// false, and once per distinct set of claims — so a server that asks early with a partial
    /// or doctored set cannot make us concede, and every honest server, which holds the
    /// claims all honest servers hold, gets an answer about exactly its set.
    pub(super) fn on_rebuttal_request(&mut self, env: &Received<S::G>) -> Result<(), MessageError> {
        let from = env.header().sender;
        let malformed = |source| MessageError::Malformed { from, source };
        let m = self.config.num_servers();
        let State::Ready(ready) = &mut self.state else {
            return Ok(());
        };
        let request = RebuttalRequest::from_bytes(env.payload()).map_err(malformed)?;
        let round = request.round;
        if request.suspect != self.id || env.header().round != round {
            return Ok(());
        }
        let Some((open, _)) = ready.sent.get(&round) else {
            return Ok(());
        };
        let (Some(xor), Some(state)) = (ready.nets.xor.as_ref(), ready.secrets.xor.as_ref()) else {
            return Ok(());
        };
        if ready.defence.as_ref().is_none_or(|d| d.round != round) {
            ready.defence = Some(Defence {
                round,
                proven: Vec::new(),
                answered: Vec::new(),
            });
        }
        let Some(defence) = ready.defence.as_mut() else {
            return Ok(());
        };
        let mut set: Vec<Option<[u8; 32]>> = vec![None; m];
        let mut lies = Vec::new();
        for bytes in request.bits.iter().take(m) {
            let Some((j, claim, e)) =
                open_blame_bits(&self.config, &self.session, bytes.as_slice().into())
            else {
                continue;
            };
            if claim.round != round {
                continue;
            }
            let mut false_claim = None;
            for trace in &claim.traces {
                let acc = trace.accusation;
                // The capacity we used in that slot: a claim about another stream is no claim
                // about our pads.
                let Some(slot) = open
                    .iter()
                    .find(|o| o.kind == SlotKind::Xor && o.slot == acc.slot)
                else {
                    continue;
                };
                let Some((claimed, len)) = claim.claim(&acc, self.id) else {
                    continue;
                };
                if len != slot.len as u64 {
                    continue;
                }
                let sr = SlotRound::new(acc.slot, round, slot.len);
                let truth = XorOf::<S>::client_pad_bit(xor, state, j, sr, acc.bit).ok();
                if truth.is_some_and(|t| t != claimed) {
                    false_claim = Some(acc);
                    break;
                }
            }
            match false_claim {
                Some(acc) => {
                    if !defence.proven.contains(&j) {
                        defence.proven.push(j);
                        lies.push((j, acc, bytes.clone()));
                    }
                }
                None => {
                    if let Some(entry) = set.get_mut(j.index()) {
                        entry.get_or_insert(e.header().digest);
                    }
                }
            }
        }
        let mut answers = Vec::new();
        for (j, accusation, bits) in lies {
            let reveal = XorOf::<S>::pad_bit_reveal_client(
                xor.roster(),
                self.id,
                self.keys.xor(),
                j,
                &mut self.rng,
            );
            if let Ok(reveal) = reveal {
                answers.push(Rebuttal::LieProof {
                    accusation,
                    bits,
                    reveal: reveal.to_bytes(),
                });
            }
        }
        if answers.is_empty()
            && let Some(digests) = set.into_iter().collect::<Option<Vec<[u8; 32]>>>()
            && !defence.answered.contains(&digests)
            && defence.answered.len() < m
        {
            defence.answered.push(digests.clone());
            answers.push(Rebuttal::NoObjection { round, digests });
        }
        for answer in answers {
            let payload = answer.to_bytes();
            // Straight to every server: a lying upstream cannot swallow the rebuttal.
            for j in 0..m as u32 {
                self.send(
                    Party::Server(ServerId(j)),
                    Kind::Rebuttal,
                    round,
                    payload.clone(),
                );
            }
        }
        Ok(())
    }
}
