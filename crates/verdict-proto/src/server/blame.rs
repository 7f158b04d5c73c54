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

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId, SessionId, SlotRound};
use verdict_group::Group;

use super::common::Core;
use super::round::client_ct;
use super::state::Running;
use super::stop::Stop;
use crate::blame::{
    BlameBits, Rebuttal, RebuttalRequest, TraceBits, Verdict, check_lie_proof, open_relayed,
};
use crate::config::GroupConfig;
use crate::error::{ExclusionReason, MessageError, ServerFault, WireError};
use crate::event::Event;
use crate::slot::{Accusation, SlotKind, SlotOutput, bit_of};
use crate::suite::{ClientCt, ProtoSuite, ServerCt, XorOf};
use crate::wire::{Envelope, Kind};

/// Blame messages a server keeps from one peer for a blame it has not started (a faster
/// server's pad bits and verdict).
const EARLY_PER_SERVER: usize = 2;

/// One server's (first) signed claims.
struct Claim {
    bits: BlameBits,
    envelope: Vec<u8>,
    digest: [u8; 32],
}

/// One accusation being traced.
struct Trace {
    accusation: Accusation,
    /// Position of the accused slot among the round's open slots.
    k: usize,
    slot_len: usize,
    /// Its suspect once every claim is in (`None` inside: nobody deviates).
    suspect: Option<Option<ClientId>>,
}

/// A blame of one round.
pub(crate) struct Blame<G: Group> {
    round: u64,
    traces: Vec<Trace>,
    clients: Vec<ClientId>,
    claims: Vec<Option<Claim>>,
    /// Every suspect, once known.
    suspects: Option<BTreeSet<ClientId>>,
    deadline: Option<Duration>,
    /// Each suspect's "no objection" to our claims.
    answers: BTreeMap<ClientId, Vec<u8>>,
    /// "No objection" rebuttals that arrived before the suspects were known (one per client).
    objections: BTreeMap<ClientId, Vec<u8>>,
    /// Verdicts that arrived before the suspects were known (tracked: one per server).
    early_verdicts: Vec<Option<Envelope<G>>>,
    decided: bool,
    verdicts: Vec<Option<Vec<u8>>>,
}

impl<G: Group> Blame<G> {
    /// The server whose message the blame waits for, if it waits for a server.
    pub(crate) fn awaited_server(&self) -> Option<ServerId> {
        let missing = if self.suspects.is_none() {
            self.claims.iter().position(Option::is_none)
        } else if self.decided {
            self.verdicts.iter().position(Option::is_none)
        } else {
            // Waiting for the suspects (until the deadline), not for a server.
            None
        };
        missing.map(|j| ServerId(j as u32))
    }

    /// The rebuttal deadline, while it matters.
    pub(crate) fn pending_deadline(&self) -> Option<Duration> {
        if self.suspects.is_some() && !self.decided {
            self.deadline
        } else {
            None
        }
    }

    /// The first accused (round, slot), to name in a fault about the whole blame.
    fn first_accused(&self) -> (u64, u32) {
        self.traces
            .first()
            .map_or((self.round, 0), |t| (t.accusation.round, t.accusation.slot))
    }

    /// The header digests of the claims we hold, in server order (what a "no objection" must
    /// list), once all are in.
    fn digests(&self) -> Option<Vec<[u8; 32]>> {
        self.claims
            .iter()
            .map(|c| c.as_ref().map(|c| c.digest))
            .collect()
    }

    /// Whether `env` is a suspect's signed "no objection" to exactly our claims.
    fn is_answer<S: ProtoSuite<G = G>>(
        &self,
        config: &GroupConfig<S>,
        session: &SessionId,
        env: &[u8],
    ) -> Option<ClientId> {
        let e = open_relayed(config, session, Kind::Rebuttal, env)?;
        let Party::Client(c) = e.header().sender else {
            return None;
        };
        let Ok(Rebuttal::NoObjection { round, digests }) = Rebuttal::from_bytes(&e.payload) else {
            return None;
        };
        let suspect = self.suspects.as_ref()?.contains(&c);
        (suspect && round == self.round && self.digests().as_ref() == Some(&digests)).then_some(c)
    }
}

/// Blame messages that arrived before this server started their blame.
pub(crate) struct EarlyBlame<G: Group> {
    from_servers: BTreeMap<ServerId, Vec<Envelope<G>>>,
    objections: BTreeMap<ClientId, Envelope<G>>,
}

impl<G: Group> Default for EarlyBlame<G> {
    fn default() -> Self {
        Self {
            from_servers: BTreeMap::new(),
            objections: BTreeMap::new(),
        }
    }
}

impl<G: Group> EarlyBlame<G> {
    /// Messages held (for the memory bound).
    pub(crate) fn len(&self) -> usize {
        self.from_servers.values().map(Vec::len).sum::<usize>() + self.objections.len()
    }
}

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
        let about_this = |env: &Envelope<S::G>| blame_round_of(&env.payload) == Some(round);
        for env in early.from_servers.into_values().flatten() {
            if !about_this(&env) {
                continue;
            }
            match env.header().kind {
                Kind::BlameBits => self.on_blame_bits(core, env)?,
                Kind::Verdict => self.on_verdict(core, env)?,
                _ => {}
            }
        }
        for env in early.objections.into_values() {
            if Rebuttal::from_bytes(&env.payload).is_ok_and(|r| r.round() == round) {
                self.on_rebuttal(core, env)?;
            }
        }
        Ok(())
    }

    /// Keeps a peer's blame message for a blame we do not run (yet); a server that sends more
    /// than a step has is flooding us.
    fn keep_early_from_server(&mut self, j: ServerId, env: Envelope<S::G>) -> Result<(), Stop> {
        let held = self.early_blame.from_servers.entry(j).or_default();
        if held.len() >= EARLY_PER_SERVER {
            return Err(Stop::bad_message(j, &env));
        }
        held.push(env);
        Ok(())
    }

    pub(super) fn on_blame_bits<R: RngCore + CryptoRng>(
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
        let Some(slot @ None) = blame.claims.get_mut(j.0 as usize) else {
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
    fn after_claims<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) -> Result<(), Stop> {
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

    pub(super) fn on_rebuttal<R: RngCore + CryptoRng>(
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
    fn lie_proof_in<R>(
        &self,
        core: &Core<S, R>,
        rebuttal: &[u8],
    ) -> Option<(ServerId, Accusation, Vec<u8>)> {
        let xor = self.nets.xor.as_ref()?;
        check_lie_proof::<S>(&core.config, &core.session, xor.roster(), rebuttal)
    }

    /// A rebuttal carrying a lie proof: conclusive whenever it arrives.
    fn on_lie_proof<R: RngCore + CryptoRng>(
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

    /// Decides as soon as every suspect (not excluded before) has no objection to our claims.
    fn maybe_decide<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
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
    fn decide<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
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
            rebuttals: blame.answers.values().cloned().collect(),
        };
        core.broadcast(Kind::Verdict, verdict.round, verdict.to_bytes());
    }

    pub(super) fn on_verdict<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        env: Envelope<S::G>,
    ) -> Result<(), Stop> {
        let Party::Server(j) = env.header().sender else {
            return Ok(());
        };
        let Ok(verdict) = Verdict::from_bytes(&env.payload) else {
            return Err(Stop::bad_message(j, &env));
        };
        if verdict.round != env.header().round {
            return Err(Stop::bad_message(j, &env));
        }
        let Some(blame) = self.blame.as_mut().filter(|b| b.round == verdict.round) else {
            return self.keep_early_from_server(j, env);
        };
        let Some(suspects) = blame.suspects.clone() else {
            if let Some(slot) = blame.early_verdicts.get_mut(j.0 as usize) {
                *slot = Some(env);
            }
            return Ok(());
        };
        // The verdict must be what its own evidence implies, given the claims all honest
        // servers hold: every suspect, each rebuttal a suspect's "no objection" to our claims.
        let mut answered = BTreeSet::new();
        let evidence_ok = verdict.rebuttals.iter().all(|r| {
            blame
                .is_answer(&core.config, &core.session, r)
                .is_some_and(|c| answered.insert(c))
        });
        let culprits: BTreeSet<ClientId> = verdict.culprits.iter().copied().collect();
        if !evidence_ok || culprits != suspects {
            let (round, slot) = blame.first_accused();
            return Err(Stop::fault(
                j,
                ServerFault::BadVerdict { round, slot },
                vec![env.to_bytes()],
            ));
        }
        let Some(slot @ None) = blame.verdicts.get_mut(j.0 as usize) else {
            return Ok(());
        };
        *slot = Some(env.to_bytes());
        core.progress();
        if blame.verdicts.iter().all(Option::is_some) {
            self.conclude(core)?;
        }
        Ok(())
    }

    /// Every server's verdict is in and consistent: apply it.
    fn conclude<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) -> Result<(), Stop> {
        let Some(blame) = self.blame.take() else {
            return Ok(());
        };
        let mut evidence: Vec<Vec<u8>> = blame
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
        // Drop submissions of newly excluded clients and let the window close.
        let excluded = &core.excluded;
        self.round.own.retain(|c, _| !excluded.contains(c));
        self.check_window(core)
    }
}
