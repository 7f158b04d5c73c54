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

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// When [`Server::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let mut t = Vec::new();
        if let Some((_, due)) = self.awaited() {
            t.push(due + self.config.policy.server_timeout);
        }
        match &self.state {
            State::Setup(setup) if !setup.sent_inventory => {
                let window = &self.config.policy.setup_window;
                let all = setup.own.len() >= self.clients.len();
                if let Some(close) = window.close_at(setup.fraction_at, all) {
                    t.push(setup.opened_at + close);
                }
            }
            State::Running(run) => {
                if let Some(d) = run.blame.as_ref().and_then(Blame::pending_deadline) {
                    t.push(d);
                }
                if run.blame.is_none()
                    && run
                        .round
                        .inventories
                        .get(self.id.0 as usize)
                        .is_some_and(Option::is_none)
                {
                    let window = &self.config.policy.window;
                    let expected = self.expected_clients();
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
        let since = self.last_progress;
        match &self.state {
            State::Setup(setup) => {
                if !setup.sent_inventory {
                    // Waiting for our own clients.
                    return None;
                }
                let j = setup.log.awaited_server()?;
                if setup.log.awaiting_inventories() {
                    let deadline = self.config.policy.setup_window.deadline?;
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
                let me = self.id.0 as usize;
                if round.inventories.get(me).is_some_and(Option::is_none) {
                    // Waiting for our own clients.
                    return None;
                }
                let missing = |v: &[Option<_>]| v.iter().position(Option::is_none);
                if let Some(j) = missing(&round.inventories) {
                    let deadline = self.config.policy.window.deadline?;
                    return Some((ServerId(j as u32), since.max(round.opened_at + deadline)));
                }
                let has_xor = round.open.iter().any(|o| o.kind == SlotKind::Xor);
                let j = has_xor
                    .then(|| round.commits.iter().position(Option::is_none))
                    .flatten()
                    .or_else(|| round.server_cts.iter().position(Option::is_none))
                    .or_else(|| round.signatures.iter().position(Option::is_none))?;
                Some((ServerId(j as u32), since))
            }
            State::Halted => None,
        }
    }

    /// Advances time.
    pub fn handle_timeout(&mut self, now: Duration) {
        self.now = self.now.max(now);
        if matches!(self.state, State::Halted) {
            return;
        }
        self.check_blame_deadline();
        self.check_window();
        if matches!(self.state, State::Setup(_)) {
            self.setup_progress();
        }
        if let Some((j, due)) = self.awaited()
            && self.now >= due + self.config.policy.server_timeout
        {
            let round = self.round();
            self.halt(j, ServerFault::Unresponsive { round }, Vec::new());
        }
    }
}
