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
use crate::wire::{Kind, Received};

use super::super::state::Claim;

impl<S: ProtoSuite> Running<S> {
    pub(in crate::server) fn on_blame_bits<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let Some((claim, blame)) = self.blame_step::<BlameBits>(j, &msg)? else {
            return Ok(());
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
            let wrong_bits = |round, slot| ServerFault::WrongBlameBits { round, slot };
            return Err(blame.signed_wrong(j, wrong_bits, &msg));
        }
        let Some(slot @ None) = blame.claims.get_mut(j.index()) else {
            // The same claim again (a different one was caught as equivocation).
            return Ok(());
        };
        *slot = Some(Claim {
            bits: claim,
            digest: msg.header().digest,
            envelope: msg.raw().clone(),
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
        if blame.suspects.is_some() {
            return Ok(());
        }
        // Only with every server's claim: one place decides that all `M` are in.
        let Some(claims) = blame
            .claims
            .iter()
            .map(Option::as_ref)
            .collect::<Option<Vec<&Claim>>>()
        else {
            return Ok(());
        };
        let Some(arch) = self.history.get(&blame.round) else {
            return Ok(());
        };
        for (t_idx, trace) in blame.traces.iter_mut().enumerate() {
            let acc = trace.accusation;
            let k = trace.k;
            // 1. Each server's pad bits must XOR to its own (committed) ciphertext bit.
            for (j, claim) in claims.iter().enumerate() {
                let own = arch.server_cts.get(j).and_then(|(_, v)| match v.get(k) {
                    Some(ServerCt::Xor(x)) => x.bit(acc.bit),
                    _ => None,
                });
                let bits = claim.bits.traces.get(t_idx).map(|t| &t.bits[..]);
                if !claim_fits_ciphertext(own, bits) {
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
            // Archived submissions are kept encoded (see `certify`).
            let sent: Vec<Option<bool>> = blame
                .clients
                .iter()
                .map(|c| {
                    arch.accepted
                        .get(c)
                        .and_then(|s| match client_ct::<S>(open, s, k) {
                            Some(ClientCt::Xor(x)) => x.bit(acc.bit),
                            _ => None,
                        })
                })
                .collect();
            let claimed: Vec<&[bool]> = claims
                .iter()
                .map(|claim| {
                    claim
                        .bits
                        .traces
                        .get(t_idx)
                        .map_or(&[][..], |t| &t.bits[..])
                })
                .collect();
            let suspect = first_deviating(&blame.clients, &sent, &claimed);
            trace.suspect = Some(suspect);
        }
        let suspects: BTreeSet<ClientId> = blame
            .traces
            .iter()
            .filter_map(|t| t.suspect.flatten())
            .collect();
        blame.suspects = Some(suspects.clone());
        blame.deadline = Some(core.now + core.config.policy.rebuttal_timeout);
        let early_verdicts: Vec<(ServerId, Received<S::G>)> = blame
            .early_verdicts
            .iter_mut()
            .enumerate()
            .filter_map(|(j, v)| Some((ServerId(j as u32), v.take()?)))
            .collect();
        let objections = core::mem::take(&mut blame.objections);
        let round = blame.round;
        let envelopes: Vec<Vec<u8>> = claims.iter().map(|claim| claim.envelope.to_vec()).collect();
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
        for (c, msg) in objections {
            self.on_rebuttal(core, c, msg)?;
        }
        self.maybe_decide(core);
        for (j, msg) in early_verdicts {
            self.on_verdict(core, j, msg)?;
        }
        Ok(())
    }
}

/// Whether a server's claimed pad bits for the accused bit XOR to its own committed ciphertext
/// bit (`None`: no such bit, or no claim for the accusation — a claim that cannot fit).
pub(super) fn claim_fits_ciphertext(own: Option<bool>, bits: Option<&[bool]>) -> bool {
    let xor = bits.map(|b| b.iter().fold(false, |a, b| a ^ b));
    own.is_some() && own == xor
}

/// An accusation's suspect: the first client (in accepted order) whose signed ciphertext bit
/// `sent[i]` (`None`: it has none) differs from the XOR of the pad bits every server claims
/// for it (`claimed[j][i]`; a missing bit counts as 0). `None`: nobody deviates.
pub(super) fn first_deviating(
    clients: &[ClientId],
    sent: &[Option<bool>],
    claimed: &[&[bool]],
) -> Option<ClientId> {
    clients.iter().enumerate().find_map(|(i, c)| {
        let pads = claimed
            .iter()
            .fold(false, |a, bits| a ^ bits.get(i).copied().unwrap_or(false));
        (sent.get(i).copied().flatten() != Some(pads)).then_some(*c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: u32) -> Vec<ClientId> {
        (0..n).map(ClientId).collect()
    }

    #[test]
    fn a_claim_must_xor_to_the_committed_bit() {
        assert!(claim_fits_ciphertext(
            Some(true),
            Some(&[true, false, false])
        ));
        assert!(claim_fits_ciphertext(Some(false), Some(&[true, true])));
        assert!(!claim_fits_ciphertext(Some(false), Some(&[true, false])));
        assert!(!claim_fits_ciphertext(None, Some(&[])));
        assert!(!claim_fits_ciphertext(Some(false), None));
    }

    #[test]
    fn the_suspect_is_the_first_client_off_its_pads() {
        // Two servers; client i's pads XOR to server0[i] ^ server1[i].
        let s0 = [true, false, true, false];
        let s1 = [false, false, true, true];
        // Honest bits: 1, 0, 0, 1. Clients 1 and 3 deviate; 1 comes first.
        let sent = [Some(true), Some(true), Some(false), Some(false)];
        assert_eq!(
            first_deviating(&ids(4), &sent, &[&s0, &s1]),
            Some(ClientId(1))
        );
        let honest = [Some(true), Some(false), Some(false), Some(true)];
        assert_eq!(first_deviating(&ids(4), &honest, &[&s0, &s1]), None);
    }

    #[test]
    fn a_client_without_a_bit_is_the_suspect() {
        let s0 = [false, false];
        assert_eq!(
            first_deviating(&ids(2), &[Some(false), None], &[&s0]),
            Some(ClientId(1))
        );
    }

    #[test]
    fn missing_pad_bits_count_as_zero() {
        // Server 1 claims fewer bits than there are clients: the rest XOR in as 0.
        let s0 = [true, true];
        let s1 = [true];
        assert_eq!(
            first_deviating(&ids(2), &[Some(false), Some(true)], &[&s0, &s1]),
            None
        );
        assert_eq!(
            first_deviating(&ids(2), &[Some(false), Some(false)], &[&s0, &s1]),
            Some(ClientId(1))
        );
    }
}
