//! Time: when the server next needs [`Server::handle_timeout`] (window closures, the blame
//! deadline, silence), and which server a stalled step waits for.
//!
//! A server is named [`ServerFault::Unresponsive`] only for a message a correct server must
//! have sent by then. An inventory (of set-up or of a round) is sent when its server's window
//! closes, which under a policy without a deadline may be never (it waits for a silent client
//! of its own): then its silence is not a fault, and nobody is named — the round waits, as that
//! policy says. With a deadline, the wait counts from the deadline.

use core::time::Duration;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::ServerId;

use super::Server;
use super::state::Blame;
use super::state::{RoundStep, State};
use super::stop::Stop;
use crate::error::ServerFault;
use crate::suite::ProtoSuite;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// When [`Server::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let mut t = Vec::new();
        let core = &self.core;
        if let Some((_, due)) = self.awaited() {
            t.push(due + core.config.policy.server_timeout);
        }
        match &self.state {
            State::Setup(setup) if !setup.sent_inventory => {
                let window = &core.config.policy.setup_window;
                let all = setup.own.len() >= core.clients.len();
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

    /// The server a stalled step waits for, and the time from which a correct server would
    /// have sent it (`None`: not waiting for a server, or for one that may rightly wait).
    pub(crate) fn awaited(&self) -> Option<(ServerId, Duration)> {
        let core = &self.core;
        let since = core.last_progress;
        match &self.state {
            State::Setup(setup) => {
                if !setup.sent_inventory {
                    // Waiting for our own clients.
                    return None;
                }
                let j = setup.log.awaited_server()?;
                if setup.log.awaiting_inventories() {
                    let deadline = core.config.policy.setup_window.deadline?;
                    return Some((j, since.max(setup.opened_at + deadline)));
                }
                Some((j, since))
            }
            State::Running(run) => {
                if let Some(blame) = &run.blame {
                    // While blame runs no window closes, so only blame messages are awaited.
                    return blame.awaited_server().map(|j| (j, since));
                }
                let round = &run.round;
                fn missing<T>(v: &[Option<T>]) -> Option<usize> {
                    v.iter().position(Option::is_none)
                }
                let j = match round.step {
                    // Waiting for our own clients.
                    RoundStep::Collecting => return None,
                    RoundStep::Inventories => {
                        let j = missing(&round.inventories)?;
                        let deadline = core.config.policy.window.deadline?;
                        return Some((ServerId(j as u32), since.max(round.opened_at + deadline)));
                    }
                    RoundStep::Commits => missing(&round.commits)?,
                    RoundStep::ServerCiphertexts => missing(&round.server_cts)?,
                    RoundStep::Signatures => missing(&round.signatures)?,
                };
                Some((ServerId(j as u32), since))
            }
            State::Halted => None,
        }
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
        if let Some((j, due)) = self.awaited()
            && self.core.now >= due + self.core.config.policy.server_timeout
        {
            let round = self.core.round;
            self.stop(Stop::fault(
                j,
                ServerFault::Unresponsive { round },
                Vec::new(),
            ));
        }
    }
}
