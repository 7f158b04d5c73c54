//! Session set-up at a server: collecting its clients' set-up messages, the set-up inventory,
//! disputes, the pseudonym shuffle step and decryption shares, and the transition to round 0.

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};
use verdict_shuffle::{KeyPair, Phase};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    pub(crate) fn handle_setup(&mut self, env: Envelope<S::G>) {
        let h = env.header().clone();
        let State::Setup(setup) = &mut self.state else {
            return self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: h.kind.name(),
                round: h.round,
            });
        };
        match h.sender {
            Party::Client(c) => {
                if !self.clients.contains(&c) || setup.sent_inventory {
                    return self.reject(MessageError::Unexpected {
                        from: h.sender,
                        kind: h.kind.name(),
                        round: h.round,
                    });
                }
                let bytes = env.to_bytes();
                if let Some(prev) = setup.own.get(&c) {
                    if *prev != bytes {
                        self.reject(MessageError::Duplicate {
                            from: h.sender,
                            kind: h.kind.name(),
                        });
                    }
                    return;
                }
                setup.own.insert(c, bytes);
            }
            Party::Server(_) => {
                self.last_progress = self.now;
                if let Err(f) = setup.log.add(&self.config, env) {
                    return self.setup_failed(f.culprits, f.reason);
                }
            }
        }
        self.setup_progress();
    }

    pub(crate) fn setup_failed(&mut self, culprits: Vec<Party>, reason: String) {
        self.events
            .push_back(Event::SetupFailed { reason, culprits });
        self.state = State::Halted;
    }

    pub(crate) fn setup_progress(&mut self) {
        loop {
            let State::Setup(setup) = &mut self.state else {
                return;
            };
            if !setup.sent_inventory {
                // The set-up window: like a round's, measured from the server's start.
                let window = self.config.policy.setup_window;
                let expected = self.clients.len();
                let arrived = setup.own.len();
                let elapsed = self.now.saturating_sub(setup.opened_at);
                if setup.fraction_at.is_none() && arrived >= window.needed(expected) {
                    setup.fraction_at = Some(elapsed);
                }
                let closed = expected == 0
                    || window
                        .close_at(setup.fraction_at, arrived >= expected)
                        .is_some_and(|t| elapsed >= t);
                if !closed {
                    return;
                }
                setup.sent_inventory = true;
                let list: Vec<Vec<u8>> = setup.own.values().cloned().collect();
                let payload = inventory_payload(&setup.suite_setup, &list);
                self.last_progress = self.now;
                self.broadcast(Kind::SetupInventory, 0, payload);
                continue;
            }
            if setup.log.is_disputed() {
                if !setup.sent_dispute {
                    setup.sent_dispute = true;
                    let mine = setup.log.disputes_for(self.id);
                    let reveals: Vec<Vec<u8>> = mine
                        .into_iter()
                        .filter_map(|c| {
                            S::reveal_for_dispute(
                                setup.log.roster0(),
                                self.id,
                                self.keys.dcnet(),
                                c,
                                &mut self.rng,
                            )
                        })
                        .map(|r| r.to_bytes())
                        .collect();
                    if !reveals.is_empty() {
                        let mut w = Writer::new();
                        write_byte_list(&mut w, &reveals);
                        self.broadcast(Kind::Dispute, 0, w.finish());
                        continue;
                    }
                }
                return;
            }
            let phase = setup.log.shuffle().phase();
            if let Phase::Shuffle { server } = phase
                && server == self.id.0 as usize
                && !setup.sent_step
            {
                setup.sent_step = true;
                match setup.log.shuffle().make_shuffle(self.id.0, &mut self.rng) {
                    Ok(step) => self.broadcast(Kind::ShuffleStep, 0, step),
                    Err(e) => {
                        return self.setup_failed(vec![Party::Server(self.id)], e.to_string());
                    }
                }
                continue;
            }
            if phase == Phase::Decryption && !setup.sent_decryption {
                setup.sent_decryption = true;
                let pair = KeyPair::from_secret(self.keys.shuffle().secret().clone());
                match setup
                    .log
                    .shuffle()
                    .make_decryption(self.id.0, &pair, &mut self.rng)
                {
                    Ok(d) => self.broadcast(Kind::Decryption, 0, d),
                    Err(e) => {
                        return self.setup_failed(vec![Party::Server(self.id)], e.to_string());
                    }
                }
                continue;
            }
            if phase == Phase::Done {
                return self.finish_setup();
            }
            return;
        }
    }

    pub(crate) fn finish_setup(&mut self) {
        let State::Setup(setup) = core::mem::replace(&mut self.state, State::Halted) else {
            return;
        };
        let mut setup = *setup;
        let Some(outcome) = setup.log.outcome() else {
            return self.setup_failed(vec![Party::Server(self.id)], "no slot assignment".into());
        };
        let nets = match build_nets::<S>(
            setup.log.roster0(),
            setup.log.xor0(),
            outcome.pseudonyms,
            &outcome.client_setups,
            &outcome.server_setups,
            self.config.policy.mode.is_hybrid(),
        ) {
            Ok(n) => n,
            Err((culprit, reason)) => return self.setup_failed(vec![culprit], reason),
        };
        let Some(secrets) = setup.secrets.take() else {
            return;
        };
        let slots = nets.ver.roster().pseudonyms().len();
        let transcript = setup.log.transcript();
        let mut w = Writer::new();
        write_byte_list(&mut w, &transcript);
        let payload = w.finish();
        let clients: Vec<ClientId> = self.clients.iter().copied().collect();
        self.send_to_clients(&clients, Kind::SetupTranscript, 0, payload);
        self.events.push_back(Event::SetupComplete {
            slots,
            own_slot: None,
        });
        let schedule = Schedule::new(&self.config.policy, slots, accusation_len::<S>());
        let m = self.config.num_servers();
        let round = match new_round::<S>(&nets, &schedule, 0, self.now, m) {
            Ok(r) => r,
            Err(reason) => return self.setup_failed(vec![Party::Server(self.id)], reason),
        };
        self.last_progress = self.now;
        self.state = State::Running(Box::new(Running {
            nets,
            secrets,
            schedule,
            round,
            future: Early::default(),
            history: BTreeMap::new(),
            blame: None,
            early_blame: EarlyBlame::default(),
            pending_exclusions: Vec::new(),
        }));
        self.check_window();
        // Verified and tracked on arrival: straight to the round logic.
        for env in core::mem::take(&mut setup.early).drain() {
            self.handle_round_message(env);
        }
    }
}
