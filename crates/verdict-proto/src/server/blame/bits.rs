//! Blame steps 1–2: each server's signed pad bits, checked against its committed ciphertext
//! bits, and the suspect of every accusation.

use std::collections::BTreeSet;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};

use super::super::common::Core;
use super::super::round::client_ct;
use super::super::state::Running;
use super::super::stop::Stop;
use crate::blame::{BlameBits, RebuttalRequest};
use crate::error::ServerFault;
use crate::suite::{ClientCt, ProtoSuite, ServerCt};
use crate::wire::{Envelope, Kind};

use super::super::state::Claim;

impl<S: ProtoSuite> Running<S> {
    pub(in crate::server) fn on_blame_bits<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        env: Envelope<S::G>,
    ) -> Result<(), Stop> {
        let Party::Server(j) = env.header().sender else {
            return Ok(());
        };
        let Ok(claim) = BlameBits::from_bytes(&env.payload) else {
            return Err(Stop::bad_message(j, &env));
        };
        if claim.round != env.header().round {
            return Err(Stop::bad_message(j, &env));
        }
        let Some(blame) = self.blame.as_mut().filter(|b| b.round == claim.round) else {
            return self.keep_early_from_server(j, env);
        };
        let same_statement = claim.clients == blame.clients
            && claim.traces.len() == blame.traces.len()
            && claim.traces.iter().zip(&blame.traces).all(|(c, t)| {
                c.accusation == t.accusation
                    && c.slot_len == t.slot_len as u64
                    && c.bits.len() == blame.clients.len()
            });
        if !same_statement {
            // Not a claim about exactly the accusations and accepted set of the round: no
            // correct server signs it.
            let (round, slot) = blame.first_accused();
            return Err(Stop::fault(
                j,
                ServerFault::WrongBlameBits { round, slot },
                vec![env.to_bytes()],
            ));
        }
        let Some(slot @ None) = blame.claims.get_mut(j.index()) else {
            // The same claim again (a different one was caught as equivocation).
            return Ok(());
        };
        *slot = Some(Claim {
            bits: claim,
            digest: env.header().digest,
            envelope: env.to_bytes(),
        });
        core.progress();
        self.after_claims(core)
    }

    /// With every claim in: each server's bits against its committed ciphertexts, then the
    /// suspects, then the rebuttal requests.
    pub(super) fn after_claims<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let Some(blame) = self.blame.as_mut() else {
            return Ok(());
        };
        if blame.suspects.is_some() || blame.claims.iter().any(Option::is_none) {
            return Ok(());
        }
        let Some(arch) = self.history.get(&blame.round) else {
            return Ok(());
        };
        for (t_idx, trace) in blame.traces.iter_mut().enumerate() {
            let acc = trace.accusation;
            let k = trace.k;
            // 1. Each server's pad bits must XOR to its own (committed) ciphertext bit.
            for (j, claim) in blame.claims.iter().enumerate() {
                let Some(claim) = claim else {
                    return Ok(());
                };
                let own = arch.server_cts.get(j).and_then(|(_, v)| match v.get(k) {
                    Some(ServerCt::Xor(x)) => x.bit(acc.bit),
                    _ => None,
                });
                let bits = claim.bits.traces.get(t_idx).map(|t| &t.bits[..]);
                let xor = bits.map(|b| b.iter().fold(false, |a, b| a ^ b));
                if own.is_none() || own != xor {
                    let mut evidence = vec![claim.envelope.clone()];
                    if let Some((e, _)) = arch.server_cts.get(j) {
                        evidence.push(e.clone());
                    }
                    return Err(Stop::fault(
                        ServerId(j as u32),
                        ServerFault::WrongBlameBits {
                            round: acc.round,
                            slot: acc.slot,
                        },
                        evidence,
                    ));
                }
            }
            // 2. The first client whose ciphertext bit differs from the XOR of its pad bits.
            let Some(open) = arch.open.get(k) else {
                return Ok(());
            };
            let mut suspect = None;
            for (idx, c) in blame.clients.iter().enumerate() {
                // Archived submissions are kept encoded (see `certify`).
                let sent =
                    arch.accepted
                        .get(c)
                        .and_then(|s| match client_ct::<S>(open, &s.envelope, k) {
                            Some(ClientCt::Xor(x)) => x.bit(acc.bit),
                            _ => None,
                        });
                let pads = blame.claims.iter().flatten().fold(false, |a, claim| {
                    let bit = claim
                        .bits
                        .traces
                        .get(t_idx)
                        .and_then(|t| t.bits.get(idx))
                        .copied();
                    a ^ bit.unwrap_or(false)
                });
                if sent != Some(pads) {
                    suspect = Some(*c);
                    break;
                }
            }
            trace.suspect = Some(suspect);
        }
        let suspects: BTreeSet<ClientId> = blame
            .traces
            .iter()
            .filter_map(|t| t.suspect.flatten())
            .collect();
        blame.suspects = Some(suspects.clone());
        blame.deadline = Some(core.now + core.config.policy.rebuttal_timeout);
        let early_verdicts: Vec<Envelope<S::G>> = blame
            .early_verdicts
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        let objections = core::mem::take(&mut blame.objections);
        let round = blame.round;
        let envelopes: Vec<Vec<u8>> = blame
            .claims
            .iter()
            .flatten()
            .map(|claim| claim.envelope.clone())
            .collect();
        // Every server asks (not only a suspect's upstream), so no single server can keep a
        // suspect from answering. A suspect an earlier verdict already excluded has nothing to
        // rebut (it jammed several rounds).
        let to_ask: Vec<ClientId> = suspects
            .iter()
            .copied()
            .filter(|c| !core.excluded.contains(c))
            .collect();
        for c in to_ask {
            let request = RebuttalRequest {
                round,
                suspect: c,
                bits: envelopes.clone(),
            };
            core.send(
                Party::Client(c),
                Kind::RebuttalRequest,
                round,
                request.to_bytes(),
            );
        }
        for (_, bytes) in objections {
            if let Ok(env) = Envelope::<S::G>::from_bytes(&bytes) {
                self.on_rebuttal(core, env)?;
            }
        }
        self.maybe_decide(core);
        for env in early_verdicts {
            self.on_verdict(core, env)?;
        }
        Ok(())
    }
}
