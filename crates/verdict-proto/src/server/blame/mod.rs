//! Hybrid blame at a server: accusations → pad bits → suspects → rebuttals → verdict.
//!
//! 1. The accusations carried in round `r + 1`'s output about XOR slots of round `r` (and no
//!    other round: only then were their accusation slots open) start one blame for round `r`
//!    once certified; every accusation is traced, so several disruptors of one round are all
//!    found. Each server broadcasts its signed [`BlameBits`]; like every step message they are
//!    tracked for equivocation, so each server's *first* claim is the only one.
//! 2. With all `M` in, each server's bits must XOR to its committed ciphertext bit in every
//!    accused slot ([`ServerFault::WrongBlameBits`] otherwise); an accusation's suspect is the
//!    first client whose signed ciphertext bit differs from the XOR of its claimed pad bits.
//!    All honest servers hold the same claims, so they agree on the suspects without exchanging
//!    anything more.
//! 3. Every server sends each suspect all `M` claims. A suspect answers every server directly
//!    with a [`Rebuttal`]: a lie proof (conclusive, checked whenever and wherever it appears:
//!    the lying server is halted) or "no objection" to exactly the claims we hold.
//! 4. A server decides once every suspect has no objection to our claims, or at the rebuttal
//!    deadline, and signs a [`Verdict`] carrying the rebuttals it decided on. The verdict is a
//!    function of that evidence (every suspect, unless a lie proof names a server); a server
//!    whose signed verdict is not is at fault ([`ServerFault::BadVerdict`]), so no single
//!    server can shield a jammer.
//! 5. With all `M` verdicts in, the suspects are excluded from the next round.

mod bits;
mod rebuttal;
mod verdict;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, ServerId, SlotRound};

use super::common::Core;
use super::state::{Blame, Running, Trace};
use super::stop::Stop;
use crate::blame::{BlameBits, TraceBits, Verdict};
use crate::error::WireError;
use crate::event::Event;
use crate::slot::{Accusation, SlotKind, SlotOutput, bit_of};
use crate::suite::{ProtoSuite, XorOf};
use crate::wire::{Kind, Received};

/// Blame messages a server keeps from one peer for a blame it has not started (a faster
/// server's pad bits and verdict).
const EARLY_PER_SERVER: usize = 2;

/// The accused round a blame message is about (its first field in every blame payload but a
/// lie proof, which is handled on its own).
fn blame_round_of(payload: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(payload.get(..8)?.try_into().ok()?))
}

impl<S: ProtoSuite> Running<S> {
    /// Starts tracing `accusations`, carried in the certified output of round `carrier`.
    pub(super) fn start_blame<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        accusations: Vec<Accusation>,
        carrier: u64,
    ) -> Result<(), Stop> {
        let m = core.config.num_servers();
        let Some(round) = carrier.checked_sub(1) else {
            return Ok(());
        };
        let Some(arch) = self.history.get(&round) else {
            return Ok(());
        };
        // Only accusations of the round just before the carrier (the one that opened their
        // slots), each about a corrupted XOR slot whose accused bit came out 1.
        let mut traces: Vec<Trace> = Vec::new();
        let mut unfounded = Vec::new();
        for acc in accusations {
            let k = arch
                .open
                .iter()
                .position(|o| o.kind == SlotKind::Xor && o.slot == acc.slot);
            let founded = acc.round == round
                && k.is_some_and(|k| match (arch.open.get(k), arch.outputs.get(k)) {
                    (Some(_), Some(SlotOutput::Corrupt(raw))) => bit_of(raw, acc.bit) == Some(true),
                    _ => false,
                });
            match k {
                Some(k) if founded && !traces.iter().any(|t| t.accusation.slot == acc.slot) => {
                    let slot_len = arch.open.get(k).map_or(0, |o| o.len);
                    traces.push(Trace {
                        accusation: acc,
                        k,
                        slot_len,
                        suspect: None,
                    });
                }
                _ => unfounded.push(acc),
            }
        }
        traces.sort_by_key(|t| t.accusation.slot);
        let clients: Vec<ClientId> = arch.accepted.keys().copied().collect();
        let (Some(xor), Some(state)) = (self.nets.xor.as_ref(), self.secrets.xor.as_ref()) else {
            return Ok(());
        };
        let mut claims = Vec::with_capacity(traces.len());
        for t in &traces {
            let sr = SlotRound::new(t.accusation.slot, round, t.slot_len);
            let mut bits = Vec::with_capacity(clients.len());
            for c in &clients {
                match XorOf::<S>::server_pad_bit(xor, state, *c, sr, t.accusation.bit) {
                    Ok(b) => bits.push(b),
                    // Our own pads of a checked round: nothing to trace if this fails.
                    Err(_) => return Ok(()),
                }
            }
            if core.adversaries.lie_in_blame() {
                // Simulator adversary: two flips keep the XOR consistent with its ciphertext.
                for b in bits.iter_mut().take(2) {
                    *b = !*b;
                }
            }
            claims.push(TraceBits {
                accusation: t.accusation,
                slot_len: t.slot_len as u64,
                bits,
            });
        }
        for t in &traces {
            core.events.push_back(Event::Accusation(t.accusation));
        }
        for acc in unfounded {
            core.events.push_back(Event::Accusation(acc));
            core.events.push_back(Event::Verdict {
                accusation: acc,
                culprit: None,
            });
        }
        if traces.is_empty() {
            return Ok(());
        }
        self.blame = Some(Blame {
            round,
            traces,
            clients: clients.clone(),
            claims: (0..m).map(|_| None).collect(),
            suspects: None,
            deadline: None,
            answers: BTreeMap::new(),
            objections: BTreeMap::new(),
            early_verdicts: (0..m).map(|_| None).collect(),
            decided: false,
            verdicts: vec![None; m],
        });
        let early = core::mem::take(&mut self.early_blame);
        let claim = BlameBits {
            round,
            clients,
            traces: claims,
        };
        core.broadcast(Kind::BlameBits, round, claim.to_bytes());
        // What faster peers sent about this blame before we got here (each tracked on arrival
        // already). Anything else is stale: one blame runs at a time, and no server gets
        // further while one does (windows stay open until its verdict).
        for (j, msg) in early.from_servers.into_iter().flat_map(|(j, held)| {
            held.into_iter()
                .filter(|m| blame_round_of(m.payload()) == Some(round))
                .map(move |m| (j, m))
        }) {
            match msg.header().kind {
                Kind::BlameBits => self.on_blame_bits(core, j, msg)?,
                Kind::Verdict => self.on_verdict(core, j, msg)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The prologue of a server's blame message: its payload decoded, its round the one the
    /// envelope is signed for (a server that signs anything else is at fault, the message the
    /// evidence), and the running blame of that round. `None`: a blame we do not run (yet),
    /// and the message is kept for it — a server that sends more than a step has is flooding.
    pub(super) fn blame_step<T: BlamePayload>(
        &mut self,
        j: ServerId,
        msg: &Received<S::G>,
    ) -> Result<Option<BlameStep<'_, T, S::G>>, Stop> {
        let payload = T::decode(msg.payload()).map_err(|_| Stop::bad_message(j, msg))?;
        let round = payload.round();
        if round != msg.header().round {
            return Err(Stop::bad_message(j, msg));
        }
        match self.blame.as_mut().filter(|b| b.round == round) {
            Some(blame) => Ok(Some((payload, blame))),
            None => {
                let held = self.early_blame.from_servers.entry(j).or_default();
                if held.len() >= EARLY_PER_SERVER {
                    return Err(Stop::bad_message(j, msg));
                }
                held.push(msg.clone());
                Ok(None)
            }
        }
    }
}

/// A server's blame message decoded, and the running blame it is about.
pub(super) type BlameStep<'a, T, G> = (T, &'a mut Blame<G>);

/// A server's blame message: decoded from its payload, about one accused round.
pub(super) trait BlamePayload: Sized {
    fn decode(payload: &[u8]) -> Result<Self, WireError>;
    fn round(&self) -> u64;
}

impl BlamePayload for BlameBits {
    fn decode(payload: &[u8]) -> Result<Self, WireError> {
        Self::from_bytes(payload)
    }

    fn round(&self) -> u64 {
        self.round
    }
}

impl BlamePayload for Verdict {
    fn decode(payload: &[u8]) -> Result<Self, WireError> {
        Self::from_bytes(payload)
    }

    fn round(&self) -> u64 {
        self.round
    }
}
