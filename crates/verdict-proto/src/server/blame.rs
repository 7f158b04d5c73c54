//! Hybrid blame at a server: accusation → pad bits → suspect → rebuttal → verdict.
//!
//! 1. An accusation carried in round `r + 1`'s output about XOR slot `s` of round `r` (and no
//!    other round: only then was its accusation slot open) starts blame once certified. Each
//!    server broadcasts its signed [`BlameBits`]; like every step message they are tracked for
//!    equivocation, so each server's *first* claim is the only one.
//! 2. With all `M` in, each server's bits must XOR to its committed ciphertext bit
//!    ([`ServerFault::WrongBlameBits`] otherwise); the suspect is the first client whose signed
//!    ciphertext bit differs from the XOR of its claimed pad bits. All honest servers hold the
//!    same claims, so they agree on the suspect without exchanging anything more.
//! 3. Every server sends the suspect all `M` claims. The suspect answers every server directly
//!    with a [`Rebuttal`]: a lie proof (conclusive, checked whenever and wherever it appears:
//!    the lying server is halted) or "no objection" to exactly the claims we hold.
//! 4. A server decides when the suspect has no objection to our claims, or at the rebuttal
//!    deadline, and signs a [`Verdict`] carrying the rebuttal it decided on. The verdict is a
//!    function of that evidence (the suspect, unless a lie proof names a server; nobody if no
//!    client deviates); a server whose signed verdict is not is at fault
//!    ([`ServerFault::BadVerdict`]), so no single server can shield a jammer.
//! 5. With all `M` verdicts in, the suspect is excluded from the next round.

use core::time::Duration;
use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId, SlotRound};
use verdict_group::Group;

use super::*;
use crate::blame::{BlameBits, Rebuttal, RebuttalRequest, Verdict, check_lie_proof, open_relayed};

/// Blame messages a server keeps from one peer for an accusation it has not started tracing
/// (a faster server's pad bits and verdict).
const EARLY_PER_SERVER: usize = 2;

/// Bit `bit` of `bytes` (byte `bit / 8`, least significant bit first).
pub(crate) fn bit_of(bytes: &[u8], bit: u64) -> Option<bool> {
    let byte = usize::try_from(bit / 8).ok()?;
    bytes.get(byte).map(|b| (b >> (bit % 8)) & 1 == 1)
}

/// The capacity of an accusation slot for suite `S`.
pub(crate) fn accusation_len<S: ProtoSuite>() -> usize {
    HEADER_LEN + ACCUSATION_LEN + verdict_nizk::Signature::<S::G>::ENCODED_LEN
}

/// One server's (first) signed claim.
struct Claim {
    bits: BlameBits,
    envelope: Vec<u8>,
    digest: [u8; 32],
}

/// Whom the claims point at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suspect {
    /// Not all claims are in yet.
    Unknown,
    /// Every client's ciphertext bit matches its pads: the accusation was false.
    Nobody,
    /// The first deviating client.
    Client(ClientId),
}

impl Suspect {
    /// The verdict the evidence implies (short of a lie proof, which halts instead).
    fn culprit(self) -> Option<Party> {
        match self {
            Self::Client(c) => Some(Party::Client(c)),
            Self::Unknown | Self::Nobody => None,
        }
    }
}

/// An accusation being traced.
pub(crate) struct Blame<G: Group> {
    accusation: Accusation,
    slot_len: usize,
    clients: Vec<ClientId>,
    claims: Vec<Option<Claim>>,
    suspect: Suspect,
    deadline: Option<Duration>,
    /// "No objection" rebuttals that arrived before the suspect was known (one per client).
    objections: BTreeMap<ClientId, Vec<u8>>,
    /// Verdicts that arrived before the suspect was known (tracked: one per server).
    early_verdicts: Vec<Option<Envelope<G>>>,
    decided: bool,
    verdicts: Vec<Option<Vec<u8>>>,
}

impl<G: Group> Blame<G> {
    /// The server whose message the blame waits for, if it waits for a server.
    pub(crate) fn awaited_server(&self) -> Option<ServerId> {
        let missing = match self.suspect {
            Suspect::Unknown => self.claims.iter().position(Option::is_none),
            _ if self.decided => self.verdicts.iter().position(Option::is_none),
            // Waiting for the suspect (until the deadline), not for a server.
            _ => None,
        };
        missing.map(|j| ServerId(j as u32))
    }

    /// The rebuttal deadline, while it matters.
    pub(crate) fn pending_deadline(&self) -> Option<Duration> {
        match self.suspect {
            Suspect::Client(_) if !self.decided => self.deadline,
            _ => None,
        }
    }

    /// The header digests of the claims we hold, in server order (what a "no objection" must
    /// list), once all are in.
    fn digests(&self) -> Option<Vec<[u8; 32]>> {
        self.claims
            .iter()
            .map(|c| c.as_ref().map(|c| c.digest))
            .collect()
    }
}

/// Blame messages that arrived before this server started tracing their accusation.
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

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Starts tracing `acc`, carried in the certified output of round `carrier`.
    pub(crate) fn start_blame(&mut self, acc: Accusation, carrier: u64) {
        self.events.push_back(Event::Accusation(acc));
        let m = self.config.num_servers();
        let lie = self.lie_in_blame;
        let State::Running(run) = &mut self.state else {
            return;
        };
        // Only the round just before the carrier opened this accusation slot.
        if acc.round.checked_add(1) != Some(carrier) {
            return self.unfounded(acc);
        }
        let Some(arch) = run.history.get(&acc.round) else {
            return self.unfounded(acc);
        };
        let Some(k) = arch
            .open
            .iter()
            .position(|o| o.kind == SlotKind::Xor && o.slot == acc.slot)
        else {
            return self.unfounded(acc);
        };
        let (Some(open), Some(SlotOutput::Corrupt(raw))) = (arch.open.get(k), arch.outputs.get(k))
        else {
            return self.unfounded(acc);
        };
        if bit_of(raw, acc.bit) != Some(true) {
            return self.unfounded(acc);
        }
        let slot_len = open.len;
        let clients: Vec<ClientId> = arch.accepted.keys().copied().collect();
        let (Some(xor), Some(state)) = (run.nets.xor.as_ref(), run.secrets.xor.as_ref()) else {
            return self.unfounded(acc);
        };
        let sr = SlotRound::new(acc.slot, acc.round, slot_len);
        let mut bits = Vec::with_capacity(clients.len());
        for c in &clients {
            match XorOf::<S>::server_pad_bit(xor, state, *c, sr, acc.bit) {
                Ok(b) => bits.push(b),
                Err(_) => return self.unfounded(acc),
            }
        }
        if lie {
            // Simulator adversary: two flips keep the XOR consistent with its ciphertext.
            for b in bits.iter_mut().take(2) {
                *b = !*b;
            }
        }
        run.blame = Some(Blame {
            accusation: acc,
            slot_len,
            clients: clients.clone(),
            claims: (0..m).map(|_| None).collect(),
            suspect: Suspect::Unknown,
            deadline: None,
            objections: BTreeMap::new(),
            early_verdicts: (0..m).map(|_| None).collect(),
            decided: false,
            verdicts: vec![None; m],
        });
        let early = core::mem::take(&mut run.early_blame);
        let claim = BlameBits {
            accusation: acc,
            slot_len: slot_len as u64,
            clients,
            bits,
        };
        self.broadcast(Kind::BlameBits, acc.round, claim.to_bytes());
        // What faster peers sent about this accusation before we got here (each tracked on
        // arrival already). Anything else is stale: one accusation is traced at a time, and no
        // server gets further while one is (windows stay open until its verdict).
        let about_this = |env: &Envelope<S::G>| {
            env.payload
                .get(..ACCUSATION_LEN)
                .is_some_and(|p| p == acc.to_bytes())
        };
        for env in early.from_servers.into_values().flatten() {
            if !about_this(&env) {
                continue;
            }
            match env.header().kind {
                Kind::BlameBits => self.on_blame_bits(env),
                Kind::Verdict => self.on_verdict(env),
                _ => {}
            }
        }
        for env in early.objections.into_values().filter(|e| about_this(e)) {
            self.on_rebuttal(env);
        }
    }

    fn unfounded(&mut self, acc: Accusation) {
        self.events.push_back(Event::Verdict {
            accusation: acc,
            culprit: None,
        });
    }

    /// Keeps a peer's blame message for an accusation we do not trace (yet); a server that
    /// sends more than a step has is flooding us.
    fn keep_early_from_server(&mut self, j: ServerId, env: Envelope<S::G>) {
        let State::Running(run) = &mut self.state else {
            return;
        };
        let held = run.early_blame.from_servers.entry(j).or_default();
        if held.len() >= EARLY_PER_SERVER {
            return self.bad_message(j, &env);
        }
        held.push(env);
    }

    pub(crate) fn on_blame_bits(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok(claim) = BlameBits::from_bytes(&env.payload) else {
            return self.bad_message(j, &env);
        };
        if claim.accusation.round != env.header().round {
            return self.bad_message(j, &env);
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run
            .blame
            .as_mut()
            .filter(|b| b.accusation == claim.accusation)
        else {
            return self.keep_early_from_server(j, env);
        };
        if claim.clients != blame.clients || claim.slot_len != blame.slot_len as u64 {
            // Not a claim about the accused round's accepted set: no correct server signs it.
            let acc = blame.accusation;
            return self.halt(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![env.to_bytes()],
            );
        }
        let Some(slot @ None) = blame.claims.get_mut(j.0 as usize) else {
            // The same claim again (a different one was caught as equivocation).
            return;
        };
        *slot = Some(Claim {
            bits: claim,
            digest: env.header().digest,
            envelope: env.to_bytes(),
        });
        self.last_progress = self.now;
        self.after_claims();
    }

    /// With every claim in: each server's bits against its committed ciphertext, then the
    /// suspect, then the rebuttal request.
    fn after_claims(&mut self) {
        let now = self.now;
        let timeout = self.config.policy.rebuttal_timeout;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        if blame.suspect != Suspect::Unknown || blame.claims.iter().any(Option::is_none) {
            return;
        }
        let acc = blame.accusation;
        let Some(arch) = run.history.get(&acc.round) else {
            return;
        };
        let Some((k, open)) = arch
            .open
            .iter()
            .enumerate()
            .find(|(_, o)| o.kind == SlotKind::Xor && o.slot == acc.slot)
        else {
            return;
        };
        // 1. Each server's published pad bits must XOR to its own (committed) ciphertext bit.
        for (j, claim) in blame.claims.iter().enumerate() {
            let Some(claim) = claim else { return };
            let own = arch.server_cts.get(j).and_then(|(_, v)| match v.get(k) {
                Some(ServerCt::Xor(x)) => x.bit(acc.bit),
                _ => None,
            });
            let xor = claim.bits.bits.iter().fold(false, |a, b| a ^ b);
            if own != Some(xor) {
                let mut evidence = vec![claim.envelope.clone()];
                if let Some((e, _)) = arch.server_cts.get(j) {
                    evidence.push(e.clone());
                }
                return self.halt(
                    ServerId(j as u32),
                    ServerFault::WrongBlameBits {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                );
            }
        }
        // 2. The first client whose ciphertext bit differs from the XOR of its pad bits.
        let mut suspect = Suspect::Nobody;
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
                a ^ claim.bits.bits.get(idx).copied().unwrap_or(false)
            });
            if sent != Some(pads) {
                suspect = Suspect::Client(*c);
                break;
            }
        }
        blame.suspect = suspect;
        let early_verdicts: Vec<Envelope<S::G>> = blame
            .early_verdicts
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        match suspect {
            Suspect::Client(c) if !self.excluded.contains(&c) => {
                blame.deadline = Some(now + timeout);
                let objections = core::mem::take(&mut blame.objections);
                let request = RebuttalRequest {
                    accusation: acc,
                    suspect: c,
                    bits: blame
                        .claims
                        .iter()
                        .flatten()
                        .map(|claim| claim.envelope.clone())
                        .collect(),
                };
                // Every server asks (not only the suspect's upstream), so no single server
                // can keep the suspect from answering.
                self.send(
                    Party::Client(c),
                    Kind::RebuttalRequest,
                    acc.round,
                    request.to_bytes(),
                );
                for (_, bytes) in objections {
                    if let Ok(env) = Envelope::<S::G>::from_bytes(&bytes) {
                        self.on_rebuttal(env);
                    }
                }
            }
            // Traced to a client an earlier verdict already excluded (it jammed several
            // rounds), or to nobody (a false accusation): nothing to rebut.
            _ => self.decide(None),
        }
        for env in early_verdicts {
            self.on_verdict(env);
        }
    }

    pub(crate) fn on_rebuttal(&mut self, env: Envelope<S::G>) {
        let from = env.header().sender;
        let Party::Client(c) = from else { return };
        let Ok(rebuttal) = Rebuttal::from_bytes(&env.payload) else {
            return self.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("rebuttal"),
            });
        };
        let (acc, digests) = match rebuttal {
            Rebuttal::LieProof { .. } => return self.on_lie_proof(&env),
            Rebuttal::NoObjection {
                accusation,
                digests,
            } => (accusation, digests),
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut().filter(|b| b.accusation == acc) else {
            // Blame not started here yet (the suspect answered a faster server): keep one
            // per client until it does.
            run.early_blame.objections.insert(c, env);
            return;
        };
        match blame.suspect {
            Suspect::Unknown => {
                blame.objections.entry(c).or_insert_with(|| env.to_bytes());
            }
            Suspect::Client(s)
                if s == c && !blame.decided && blame.digests().as_ref() == Some(&digests) =>
            {
                // The suspect saw exactly our claims and objects to none.
                self.decide(Some(env.to_bytes()));
            }
            // Someone else's, or about claims we do not hold (an equivocating server's other
            // version: the echoes will name it), or too late: not evidence for our verdict.
            _ => {}
        }
    }

    /// The server a signed rebuttal proves lied, with the accusation and its signed claim.
    fn lie_proof_in(&self, rebuttal: &[u8]) -> Option<(ServerId, Accusation, Vec<u8>)> {
        let State::Running(run) = &self.state else {
            return None;
        };
        let xor = run.nets.xor.as_ref()?;
        check_lie_proof::<S>(&self.config, &self.session, xor.roster(), rebuttal)
    }

    /// A rebuttal carrying a lie proof: conclusive whenever it arrives.
    fn on_lie_proof(&mut self, env: &Envelope<S::G>) {
        let bytes = env.to_bytes();
        match self.lie_proof_in(&bytes) {
            Some((j, acc, claim)) => self.halt(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![claim, bytes],
            ),
            None => self.reject(MessageError::Malformed {
                from: env.header().sender,
                source: WireError::Invalid("lie proof"),
            }),
        }
    }

    pub(crate) fn check_blame_deadline(&mut self) {
        let now = self.now;
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run
            .blame
            .as_ref()
            .and_then(Blame::pending_deadline)
            .is_some_and(|d| now >= d)
        {
            // A suspect that does not answer in time is treated as guilty.
            self.decide(None);
        }
    }

    /// Signs our verdict, resting on `rebuttal` (none: no suspect, or the deadline passed).
    fn decide(&mut self, rebuttal: Option<Vec<u8>>) {
        let dissent = self.dissent_in_blame;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut().filter(|b| !b.decided) else {
            return;
        };
        blame.decided = true;
        let verdict = Verdict {
            accusation: blame.accusation,
            // Simulator adversary: "nobody is to blame", whatever the evidence.
            culprit: if dissent {
                None
            } else {
                blame.suspect.culprit()
            },
            rebuttal,
        };
        self.broadcast(Kind::Verdict, verdict.accusation.round, verdict.to_bytes());
    }

    pub(crate) fn on_verdict(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok(verdict) = Verdict::from_bytes(&env.payload) else {
            return self.bad_message(j, &env);
        };
        if verdict.accusation.round != env.header().round {
            return self.bad_message(j, &env);
        }
        if let Some(r) = &verdict.rebuttal
            && let Ok(inner) = Envelope::<S::G>::from_bytes(r)
            && matches!(
                Rebuttal::from_bytes(&inner.payload),
                Ok(Rebuttal::LieProof { .. })
            )
        {
            // A lie proof is conclusive wherever it comes from; an invalid one is the fault of
            // the server that signed a verdict on it.
            return match self.lie_proof_in(r) {
                Some((liar, acc, claim)) => self.halt(
                    liar,
                    ServerFault::WrongBlameBits {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    vec![claim, r.clone()],
                ),
                None => {
                    let acc = verdict.accusation;
                    self.halt(
                        j,
                        ServerFault::BadVerdict {
                            round: acc.round,
                            slot: acc.slot,
                        },
                        vec![env.to_bytes()],
                    )
                }
            };
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run
            .blame
            .as_mut()
            .filter(|b| b.accusation == verdict.accusation)
        else {
            return self.keep_early_from_server(j, env);
        };
        if blame.suspect == Suspect::Unknown {
            if let Some(slot) = blame.early_verdicts.get_mut(j.0 as usize) {
                *slot = Some(env);
            }
            return;
        }
        // The verdict must be what its own evidence implies, given the claims all honest
        // servers hold.
        let evidence_ok = match (&verdict.rebuttal, blame.suspect) {
            (None, _) => true,
            (Some(r), Suspect::Client(s)) => {
                open_relayed(&self.config, &self.session, Kind::Rebuttal, r).is_some_and(|e| {
                    e.header().sender == Party::Client(s)
                        && Rebuttal::from_bytes(&e.payload).is_ok_and(|reb| match reb {
                            Rebuttal::NoObjection {
                                accusation,
                                digests,
                            } => {
                                accusation == blame.accusation
                                    && blame.digests().as_ref() == Some(&digests)
                            }
                            Rebuttal::LieProof { .. } => false,
                        })
                })
            }
            (Some(_), _) => false,
        };
        if !evidence_ok || verdict.culprit != blame.suspect.culprit() {
            let acc = blame.accusation;
            return self.halt(
                j,
                ServerFault::BadVerdict {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![env.to_bytes()],
            );
        }
        let Some(slot @ None) = blame.verdicts.get_mut(j.0 as usize) else {
            return;
        };
        *slot = Some(env.to_bytes());
        self.last_progress = self.now;
        if blame.verdicts.iter().all(Option::is_some) {
            self.conclude();
        }
    }

    /// Every server's verdict is in and consistent: apply it.
    fn conclude(&mut self) {
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.take() else {
            return;
        };
        let acc = blame.accusation;
        let culprit = blame.suspect.culprit();
        let mut evidence: Vec<Vec<u8>> = blame
            .claims
            .iter()
            .flatten()
            .map(|c| c.envelope.clone())
            .collect();
        evidence.extend(blame.verdicts.into_iter().flatten());
        if let Some(Party::Client(c)) = culprit
            && !self.excluded.contains(&c)
        {
            let reason = ExclusionReason::Disruption {
                round: acc.round,
                slot: acc.slot,
            };
            run.pending_exclusions.push((c, reason));
            self.excluded.insert(c);
            self.events.push_back(Event::Excluded {
                client: c,
                reason,
                evidence,
            });
        }
        self.events.push_back(Event::Verdict {
            accusation: acc,
            culprit,
        });
        // Drop submissions of newly excluded clients and let the window close.
        let excluded = self.excluded.clone();
        if let State::Running(run) = &mut self.state {
            run.round.own.retain(|c, _| !excluded.contains(c));
        }
        self.check_window();
    }
}
