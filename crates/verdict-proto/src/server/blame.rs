//! Hybrid blame at a server: accusation → pad bits → suspect → rebuttal → verdict.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, DhReveal, Party, ServerId, SlotRound};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    pub(crate) fn start_blame(&mut self, acc: Accusation) {
        self.events.push_back(Event::Accusation(acc));
        let me = self.id;
        let m = self.config.num_servers();
        let State::Running(run) = &mut self.state else {
            return;
        };
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
        run.blame = Some(Blame {
            accusation: acc,
            slot_len,
            clients: clients.clone(),
            bits: vec![None; m],
            suspect: None,
            deadline: None,
            my_verdict: None,
            verdicts: vec![None; m],
            rebuttal: None,
            early_rebuttal: None,
        });
        let _ = me;
        if self.lie_in_blame {
            for b in bits.iter_mut().take(2) {
                *b = !*b;
            }
        }
        self.broadcast(
            Kind::BlameBits,
            acc.round,
            encode_blame_bits(&acc, &clients, &bits),
        );
        if let State::Running(run) = &mut self.state {
            for (from, bytes) in core::mem::take(&mut run.early_blame) {
                self.handle_message(from, &bytes);
            }
        }
    }

    pub(crate) fn unfounded(&mut self, acc: Accusation) {
        self.events.push_back(Event::Verdict {
            accusation: acc,
            culprit: None,
        });
    }

    pub(crate) fn on_blame_bits(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok((acc, clients, bits)) = decode_blame_bits(&env.payload) else {
            return self.bad_message(j, env.header().round, &env);
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            if run.early_blame.len() < 2 * self.config.num_servers() {
                run.early_blame.push((Party::Server(j), env.to_bytes()));
            }
            return;
        };
        if blame.accusation != acc || clients != blame.clients {
            return self.halt(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![env.to_bytes()],
            );
        }
        if let Some(slot) = blame.bits.get_mut(j.0 as usize) {
            *slot = Some((bits, env.to_bytes()));
        }
        self.last_progress = self.now;
        self.after_blame_bits();
    }

    pub(crate) fn after_blame_bits(&mut self) {
        let now = self.now;
        let timeout = self.config.policy.rebuttal_timeout;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        if blame.bits.iter().any(Option::is_none)
            || blame.suspect.is_some()
            || blame.my_verdict.is_some()
        {
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
        for (j, entry) in blame.bits.iter().enumerate() {
            let Some((bits, env)) = entry else { return };
            let own = arch.server_cts.get(j).and_then(|(_, v)| match v.get(k) {
                Some(ServerCt::Xor(x)) => x.bit(acc.bit),
                _ => None,
            });
            let xor = bits.iter().fold(false, |a, b| a ^ b);
            if own != Some(xor) {
                let mut evidence = vec![env.clone()];
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
            let pads = blame.bits.iter().flatten().fold(false, |a, (bits, _)| {
                a ^ bits.get(idx).copied().unwrap_or(false)
            });
            if sent != Some(pads) {
                suspect = Some(*c);
                break;
            }
        }
        let Some(suspect) = suspect else {
            // No client deviates: the accusation was false (its anonymous author lied).
            blame.my_verdict = Some(None);
            return self.send_verdict(acc, None);
        };
        blame.suspect = Some(suspect);
        if self.excluded.contains(&suspect) {
            // Traced to a client an earlier verdict already excluded (it jammed several
            // rounds): nothing to rebut, the verdict is the same.
            blame.my_verdict = Some(Some(Party::Client(suspect)));
            return self.send_verdict(acc, Some(Party::Client(suspect)));
        }
        blame.deadline = Some(now + timeout);
        let early = blame.early_rebuttal.take();
        let mut w = Writer::new();
        w.raw(&acc.to_bytes()).u32(suspect.0);
        let envs: Vec<Vec<u8>> = blame
            .bits
            .iter()
            .flatten()
            .map(|(_, e)| e.clone())
            .collect();
        write_byte_list(&mut w, &envs);
        // Every server asks (not only the suspect's upstream), so no single server can keep the
        // suspect from answering.
        self.send(
            Party::Client(suspect),
            Kind::RebuttalRequest,
            acc.round,
            w.finish(),
        );
        if let Some((from, bytes)) = early {
            self.handle_message(from, &bytes);
        }
    }

    pub(crate) fn on_rebuttal(&mut self, env: Envelope<S::G>) {
        let from = env.header().sender;
        let Party::Client(c) = from else { return };
        let mut r = Reader::new(&env.payload);
        let parsed = Accusation::read(&mut r).and_then(|acc| {
            let reveal = match r.u8()? {
                0 => None,
                1 => Some(r.bytes()?.to_vec()),
                _ => return Err(WireError::Invalid("rebuttal")),
            };
            r.finish()?;
            Ok((acc, reveal))
        });
        let Ok((acc, reveal)) = parsed else {
            return self.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("rebuttal"),
            });
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            // We have not started tracing yet (the suspect answered a faster server).
            if run.early_blame.len() < 2 * self.config.num_servers() {
                run.early_blame.push((from, env.to_bytes()));
            }
            return;
        };
        if blame.accusation == acc && blame.suspect.is_none() && blame.early_rebuttal.is_none() {
            // Still collecting pad bits: judge it once we know the suspect.
            blame.early_rebuttal = Some((from, env.to_bytes()));
            return;
        }
        if blame.accusation != acc || blame.suspect != Some(c) || blame.my_verdict.is_some() {
            return;
        }
        blame.rebuttal = Some(env.to_bytes());
        let culprit = match reveal {
            None => Party::Client(c),
            Some(bytes) => {
                let judged = (|| {
                    let reveal = DhReveal::<S::G>::from_bytes(&bytes).ok()?;
                    if reveal.client() != c {
                        return None;
                    }
                    let xor = run.nets.xor.as_ref()?;
                    let sr = SlotRound::new(acc.slot, acc.round, blame.slot_len);
                    let truth =
                        XorOf::<S>::verify_pad_bit(xor.roster(), &reveal, sr, acc.bit).ok()?;
                    let j = reveal.server();
                    let idx = blame.clients.iter().position(|x| *x == c)?;
                    let claimed = blame
                        .bits
                        .get(j.0 as usize)?
                        .as_ref()?
                        .0
                        .get(idx)
                        .copied()?;
                    Some(if claimed != truth {
                        Party::Server(j)
                    } else {
                        Party::Client(c)
                    })
                })();
                judged.unwrap_or(Party::Client(c))
            }
        };
        blame.my_verdict = Some(Some(culprit));
        self.send_verdict(acc, Some(culprit));
    }

    pub(crate) fn check_blame_deadline(&mut self) {
        let now = self.now;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        let (Some(deadline), Some(suspect), None) =
            (blame.deadline, blame.suspect, blame.my_verdict)
        else {
            return;
        };
        if now < deadline {
            return;
        }
        // A suspect that does not answer in time is treated as guilty.
        blame.my_verdict = Some(Some(Party::Client(suspect)));
        let acc = blame.accusation;
        self.send_verdict(acc, Some(Party::Client(suspect)));
    }

    pub(crate) fn send_verdict(&mut self, acc: Accusation, culprit: Option<Party>) {
        let culprit = if self.dissent_in_blame { None } else { culprit };
        self.broadcast(Kind::Verdict, acc.round, encode_verdict(&acc, culprit));
    }

    pub(crate) fn on_verdict(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok((acc, culprit)) = decode_verdict(&env.payload) else {
            return self.bad_message(j, env.header().round, &env);
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        if blame.accusation != acc {
            return;
        }
        if let Some(slot) = blame.verdicts.get_mut(j.0 as usize) {
            *slot = Some(culprit);
        }
        self.last_progress = self.now;
        if blame.verdicts.iter().any(Option::is_none) {
            return;
        }
        let Some(blame) = run.blame.take() else {
            return;
        };
        let first: Option<Party> = blame.verdicts.first().copied().flatten().flatten();
        let agreed = blame.verdicts.iter().all(|v| *v == Some(first));
        let culprit = if agreed { first } else { None };
        let mut evidence: Vec<Vec<u8>> = blame
            .bits
            .iter()
            .flatten()
            .map(|(_, e)| e.clone())
            .collect();
        evidence.extend(blame.rebuttal.clone());
        match culprit {
            Some(Party::Client(c)) if self.excluded.contains(&c) => {
                // Already excluded by an earlier verdict (it jammed several rounds).
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
            }
            Some(Party::Client(c)) => {
                run.pending_exclusions.push((
                    c,
                    ExclusionReason::Disruption {
                        round: acc.round,
                        slot: acc.slot,
                    },
                ));
                self.excluded.insert(c);
                self.events.push_back(Event::Excluded {
                    client: c,
                    reason: ExclusionReason::Disruption {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                });
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
            }
            Some(Party::Server(s)) => {
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
                self.halt(
                    s,
                    ServerFault::WrongBlameBits {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                );
                return;
            }
            None => self.events.push_back(Event::Verdict {
                accusation: acc,
                culprit: None,
            }),
        }
        // Drop submissions of newly excluded clients and let the window close.
        let excluded = self.excluded.clone();
        if let State::Running(run) = &mut self.state {
            run.round.own.retain(|c, _| !excluded.contains(c));
        }
        self.check_window();
    }
}

/// Payload of [`Kind::BlameBits`]: the accusation, the accepted clients of the accused round
/// in order, and the server's pad bit with each.
pub(crate) fn encode_blame_bits(acc: &Accusation, clients: &[ClientId], bits: &[bool]) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&acc.to_bytes());
    w.count(clients.len());
    for (c, b) in clients.iter().zip(bits) {
        w.u32(c.0).u8(u8::from(*b));
    }
    w.finish()
}

#[allow(clippy::type_complexity)]
pub(crate) fn decode_blame_bits(
    bytes: &[u8],
) -> Result<(Accusation, Vec<ClientId>, Vec<bool>), WireError> {
    let mut r = Reader::new(bytes);
    let acc = Accusation::read(&mut r)?;
    let n = r.count()?;
    let mut clients = Vec::with_capacity(n);
    let mut bits = Vec::with_capacity(n);
    for _ in 0..n {
        clients.push(ClientId(r.u32()?));
        bits.push(match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(WireError::Invalid("bit")),
        });
    }
    r.finish()?;
    Ok((acc, clients, bits))
}

pub(crate) fn encode_verdict(acc: &Accusation, culprit: Option<Party>) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&acc.to_bytes());
    match culprit {
        None => w.u8(0),
        Some(p) => w.u8(1).party(p),
    };
    w.finish()
}

pub(crate) fn decode_verdict(bytes: &[u8]) -> Result<(Accusation, Option<Party>), WireError> {
    let mut r = Reader::new(bytes);
    let acc = Accusation::read(&mut r)?;
    let culprit = match r.u8()? {
        0 => None,
        1 => Some(r.party()?),
        _ => return Err(WireError::Invalid("verdict")),
    };
    r.finish()?;
    Ok((acc, culprit))
}

/// Bit `bit` of `bytes` (byte `bit / 8`, least significant bit first).
pub(crate) fn bit_of(bytes: &[u8], bit: u64) -> Option<bool> {
    let byte = usize::try_from(bit / 8).ok()?;
    bytes.get(byte).map(|b| (b >> (bit % 8)) & 1 == 1)
}

/// The capacity of an accusation slot for suite `S`.
pub(crate) fn accusation_len<S: ProtoSuite>() -> usize {
    HEADER_LEN + ACCUSATION_LEN + verdict_nizk::Signature::<S::G>::ENCODED_LEN
}
