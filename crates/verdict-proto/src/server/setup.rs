//! Session set-up at a server: collecting its clients' set-up messages until the set-up window
//! closes, the set-up inventory, disputes, the pseudonym shuffle step and decryption shares,
//! and the transition to round 0 (returned as the new state).

use std::collections::{BTreeMap, VecDeque};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};
use verdict_shuffle::{KeyPair, Phase};

use super::common::Core;
use super::late_setup::LateSetup;
use super::round::new_round;
use super::state::EarlyBlame;
use super::state::{Early, Running, SetupState};
use super::stop::Stop;
use crate::error::MessageError;
use crate::error::SetupFailure;
use crate::event::Event;
use crate::schedule::Schedule;
use crate::setup::build_nets;
use crate::slot::accusation_len;
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, SharedBytes, payloads};

impl<S: ProtoSuite> SetupState<S> {
    /// A set-up message (from one of our clients, or a server's set-up step). Returns the
    /// running session once set-up completes.
    pub(super) fn handle<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        msg: Received<S::G>,
    ) -> Result<Option<Box<Running<S>>>, Stop> {
        let h = msg.header().clone();
        match h.sender {
            Party::Client(c) => {
                // Any rostered client's set-up message is taken (its signature was checked on
                // arrival), not only our own clients': a client whose upstream drops it can
                // hand the same signed bytes to another server, and is then present — a
                // server cannot leave an honest client out of the session alone.
                if self.sent_inventory {
                    core.reject(MessageError::Unexpected {
                        from: h.sender,
                        kind: h.kind.name(),
                        round: h.round,
                    });
                    return Ok(None);
                }
                let bytes = msg.raw();
                if let Some(prev) = self.own.get(&c) {
                    if prev != bytes {
                        core.reject(MessageError::Duplicate {
                            from: h.sender,
                            kind: h.kind.name(),
                        });
                    }
                    return Ok(None);
                }
                self.own.insert(c, bytes.clone());
            }
            Party::Server(_) => {
                core.progress();
                self.log.add(&core.config, msg).map_err(|f| Stop::Setup {
                    failure: f.failure,
                    culprits: f.culprits,
                })?;
            }
        }
        self.progress(core)
    }

    /// How many of our own clients' set-up messages arrived (the window waits for those).
    pub(super) fn arrived_own<R>(&self, core: &Core<S, R>) -> usize {
        self.own.keys().filter(|c| core.clients.contains(c)).count()
    }

    /// Takes every step that is ours to take now; the running session once set-up is done.
    pub(super) fn progress<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<Option<Box<Running<S>>>, Stop> {
        if !self.sent_inventory {
            // The set-up window: like a round's, measured from the server's start.
            let window = core.config.policy.setup_window;
            let expected = core.clients.len();
            let arrived = self.arrived_own(core);
            let elapsed = core.now.saturating_sub(self.opened_at);
            if self.fraction_at.is_none() && arrived >= window.needed(expected) {
                self.fraction_at = Some(elapsed);
            }
            let closed = expected == 0
                || window
                    .close_at(self.fraction_at, arrived >= expected)
                    .is_some_and(|t| elapsed >= t);
            if !closed {
                return Ok(None);
            }
            self.sent_inventory = true;
            let list: Vec<SharedBytes> = self.own.values().cloned().collect();
            let payload = payloads::SetupInventory::encode(&self.suite_setup, &list);
            core.progress();
            // Our own inventory is processed next (loopback), which moves the log on.
            core.broadcast(Kind::SetupInventory, 0, payload);
            return Ok(None);
        }
        if self.log.is_disputed() {
            if !self.sent_dispute {
                self.sent_dispute = true;
                let reveals: Vec<Vec<u8>> = self
                    .log
                    .disputes_for(core.id)
                    .into_iter()
                    .filter_map(|c| {
                        S::reveal_for_dispute(
                            self.log.roster0(),
                            core.id,
                            core.keys.dcnet(),
                            c,
                            &mut core.rng,
                        )
                    })
                    .map(|r| r.to_bytes())
                    .collect();
                if !reveals.is_empty() {
                    core.broadcast(Kind::Dispute, 0, payloads::ByteList::encode(&reveals));
                }
            }
            return Ok(None);
        }
        let me = Party::Server(core.id);
        let own_step_failed = |e| Stop::Setup {
            failure: SetupFailure::Shuffle(e),
            culprits: vec![me],
        };
        match self.log.shuffle().phase() {
            Phase::Shuffle { server } if server == core.id.index() && !self.sent_step => {
                self.sent_step = true;
                let step = self
                    .log
                    .shuffle()
                    .make_shuffle(core.id.0, &mut core.rng)
                    .map_err(own_step_failed)?;
                core.broadcast(Kind::ShuffleStep, 0, step);
                Ok(None)
            }
            Phase::Decryption if !self.sent_decryption => {
                self.sent_decryption = true;
                let pair = KeyPair::from_secret(core.keys.shuffle().secret().clone());
                let shares = self
                    .log
                    .shuffle()
                    .make_decryption(core.id.0, &pair, &mut core.rng)
                    .map_err(own_step_failed)?;
                core.broadcast(Kind::Decryption, 0, shares);
                Ok(None)
            }
            Phase::Done => self.finish(core).map(Some),
            _ => Ok(None),
        }
    }

    /// The shuffle is done: build the DC-net sessions, send our clients the transcript, and
    /// open round 0.
    fn finish<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<Box<Running<S>>, Stop> {
        let failed = |failure, culprits| Stop::Setup { failure, culprits };
        let outcome = self
            .log
            .outcome()
            .ok_or_else(|| failed(SetupFailure::NoSlots, Vec::new()))?;
        let nets = build_nets::<S>(
            self.log.roster0(),
            self.log.xor0(),
            outcome.pseudonyms,
            &outcome.client_setups,
            &outcome.server_setups,
            core.config.policy.mode.is_hybrid(),
        )
        .map_err(|f| failed(f.failure, f.culprits))?;
        let secrets = self
            .secrets
            .take()
            .ok_or_else(|| failed(SetupFailure::NoSlots, Vec::new()))?;
        let slots = nets.ver.roster().pseudonyms().len();
        let transcript = self.log.transcript();
        let payload = payloads::ByteList::encode(&transcript);
        let clients: Vec<ClientId> = core.clients.iter().copied().collect();
        let sealed = core.send_to_clients(&clients, Kind::SetupTranscript, 0, payload);
        core.late_setup = LateSetup::new(&outcome.absent, sealed);
        // Absent clients have no slot and sent nothing to combine: no round waits for them.
        core.excluded.extend(outcome.absent.iter().copied());
        core.events.push_back(Event::SetupComplete {
            slots,
            own_slot: None,
            absent: outcome.absent,
        });
        let schedule = Schedule::new(&core.config.policy, slots, accusation_len::<S::G>());
        let m = core.config.num_servers();
        let round = new_round::<S>(&nets, &schedule, 0, core.now, m)
            .map_err(|e| failed(SetupFailure::Parameters(e), Vec::new()))?;
        core.progress();
        core.round = 0;
        Ok(Box::new(Running {
            nets,
            secrets,
            schedule,
            round,
            future: Early::default(),
            history: BTreeMap::new(),
            blame: None,
            early_blame: EarlyBlame::default(),
            pending_exclusions: Vec::new(),
            outputs: VecDeque::new(),
            caught_up: BTreeMap::new(),
        }))
    }
}
