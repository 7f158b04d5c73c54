//! Time: when the server next needs [`Server::handle_timeout`] (window closures, the blame
//! deadline, silence), and which server a stalled step waits for.
//!
//! A server is named [`ServerFault::Unresponsive`] only for a message a correct server must
//! have sent by then. An inventory (of set-up or of a round) is sent when its server's window
//! closes, which under a policy without a deadline may be never (it waits for a silent client
//! of its own): then its silence is not a fault, and nobody is named — the round waits, as that
//! policy says — unless another server echoed that inventory's signed header to us: then it
//! was sent, and withheld from us. With a deadline, the wait counts from the deadline.
//!
//! Which missing server is named, and when, is [`Server::to_name`]'s: a server known to have
//! withheld a message from us (another server echoed its header) after the server timeout;
//! any other after a longer wait, because the honest server we wait for may itself be waiting
//! on a server that withheld a message from it alone, and its alert naming that server must
//! get here before we give up on it.

use core::time::Duration;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId};

use super::Server;
use super::state::Blame;
use super::state::{RoundStep, State, missing_of};
use super::stop::Stop;
use crate::error::ServerFault;
use crate::suite::ProtoSuite;
use crate::wire::Kind;

/// What a stalled step waits for.
struct Awaited {
    /// The step's message kind and round (as its senders sign them).
    kind: Kind,
    round: u64,
    /// Every server whose message of the step is missing, in order.
    missing: Vec<ServerId>,
    /// When a correct server would have sent it, at the latest (`None`: a correct server may
    /// rightly never send it, as an inventory under a window without a deadline).
    due: Option<Duration>,
    /// Our last progress: from when a message we know was sent (another server echoed its
    /// header) but never reached us counts as withheld.
    since: Duration,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// When [`Server::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let mut t = Vec::new();
        let core = &self.core;
        if let Some((_, at)) = self.to_name() {
            t.push(at);
        }
        match &self.state {
            State::Setup(setup) if !setup.sent_inventory => {
                let window = &core.config.policy.setup_window;
                let all = setup.arrived_own(core) >= core.clients.len();
                if let Some(close) = window.close_at(setup.fraction_at, all) {
                    t.push(setup.opened_at + close);
                }
            }
            State::Running(run) => {
                if let Some(d) = run.blame.as_ref().and_then(Blame::pending_deadline) {
                    t.push(d);
                }
                if run.blame.is_none() && run.round.step == RoundStep::Collecting {
                    let window = &core.config.policy.window;
                    let expected = core.expected_clients();
                    let arrived = run.round.own.len();
                    if let Some(close) = window.close_at(run.round.fraction_at, arrived >= expected)
                    {
                        t.push(run.round.opened_at + close);
                    }
                }
            }
            _ => {}
        }
        t.into_iter().min()
    }

    /// The step a stalled server waits on: its kind and round, every server whose message of
    /// it is missing, and the time from which a correct server would have sent it (`None`: not
    /// waiting for a server).
    fn awaited(&self) -> Option<Awaited> {
        let core = &self.core;
        let since = core.last_progress;
        let (kind, round, missing, due) = match &self.state {
            State::Setup(setup) => {
                if !setup.sent_inventory {
                    // Waiting for our own clients.
                    return None;
                }
                let (kind, missing) = setup.log.awaited_servers()?;
                let due = if kind == Kind::SetupInventory {
                    // Without a deadline an inventory is never due (see the module notes).
                    core.config
                        .policy
                        .setup_window
                        .deadline
                        .map(|d| since.max(setup.opened_at + d))
                } else {
                    Some(since)
                };
                (kind, 0, missing, due)
            }
            State::Running(run) => {
                if let Some(blame) = &run.blame {
                    // While blame runs no window closes, so only blame messages are awaited.
                    let (kind, missing) = blame.awaited_servers()?;
                    (kind, blame.round, missing, Some(since))
                } else {
                    let round = &run.round;
                    let (kind, missing, due) = match round.step {
                        // Waiting for our own clients.
                        RoundStep::Collecting => return None,
                        RoundStep::Inventories => {
                            let due = (core.config.policy.window.deadline)
                                .map(|d| since.max(round.opened_at + d));
                            (Kind::Inventory, round.missing_inventories(), due)
                        }
                        RoundStep::Commits => {
                            (Kind::Commit, missing_of(&round.commits), Some(since))
                        }
                        RoundStep::ServerCiphertexts => (
                            Kind::ServerCiphertexts,
                            missing_of(&round.server_cts),
                            Some(since),
                        ),
                        RoundStep::Signatures => (
                            Kind::OutputSignature,
                            missing_of(&round.signatures),
                            Some(since),
                        ),
                    };
                    (kind, core.round, missing, due)
                }
            }
            State::Halted => return None,
        };
        (!missing.is_empty()).then_some(Awaited {
            kind,
            round,
            missing,
            due,
            since,
        })
    }

    /// The server to name for a stalled step, and when: the earliest of the missing servers'
    /// naming times (ties: the lowest-numbered).
    ///
    /// A missing server whose signed header for the step another server echoed to us withheld
    /// the message from us alone: that is certain, so it is named after the bare server
    /// timeout. Any other missing server may be an honest one waiting on a third server that
    /// withheld a message from it alone (and will alert us when its own timer fires): it is
    /// named only after [`Policy::silence_before_naming`](crate::Policy::silence_before_naming).
    /// With two servers there is no third one to starve anybody, so the bare timeout applies.
    pub(crate) fn to_name(&self) -> Option<(ServerId, Duration)> {
        let awaited = self.awaited()?;
        let core = &self.core;
        let policy = &core.config.policy;
        awaited
            .missing
            .iter()
            .filter_map(|&j| {
                let withheld =
                    core.headers
                        .contains_key(&(awaited.kind, Party::Server(j), awaited.round));
                if withheld {
                    // Sent, so not waiting for anything: due whatever the window says.
                    return Some((awaited.since + policy.server_timeout, j));
                }
                let wait = if core.config.num_servers() < 3 {
                    policy.server_timeout
                } else {
                    policy.silence_before_naming()
                };
                Some((awaited.due? + wait, j))
            })
            .min()
            .map(|(at, j)| (j, at))
    }

    /// Advances time.
    pub fn handle_timeout(&mut self, now: Duration) {
        self.core.now = self.core.now.max(now);
        let result = match &mut self.state {
            State::Halted => return,
            State::Setup(_) => {
                self.setup_progress();
                Ok(())
            }
            State::Running(run) => run
                .check_blame_deadline(&mut self.core)
                .and_then(|()| run.check_window(&mut self.core)),
        };
        if let Err(stop) = result {
            return self.stop(stop);
        }
        self.drain_loopback();
        if let Some((j, at)) = self.to_name()
            && self.core.now >= at
        {
            // Inventories held unchecked (`round/inventory.rs`) are checked before anybody is
            // named for silence: a defective one names its sender, as on arrival.
            if let State::Running(run) = &mut self.state
                && let Err(stop) = run.check_arrived_inventories(&mut self.core)
            {
                return self.stop(stop);
            }
            let round = self.core.round;
            self.stop(Stop::fault(
                j,
                ServerFault::Unresponsive { round },
                Vec::new(),
            ));
        }
    }
}
