//! Time: when the server next needs [`Server::handle_timeout`], window closure and blame
//! deadlines, and silence detection (which server a stalled step waits for).

use core::time::Duration;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::ServerId;
use verdict_shuffle::Phase;

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// When [`Server::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let mut t = Vec::new();
        if self.waiting_for_servers() {
            t.push(self.last_progress + self.config.policy.server_timeout);
        }
        if let State::Running(run) = &self.state {
            if let Some(d) = run
                .blame
                .as_ref()
                .filter(|b| b.my_verdict.is_none())
                .and_then(|b| b.deadline)
            {
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
                if let Some(close) = window.close_at(run.round.fraction_at, arrived >= expected) {
                    t.push(run.round.opened_at + close);
                }
            }
        }
        t.into_iter().min()
    }

    /// Whether progress depends on other servers (so their silence is a fault).
    pub(crate) fn waiting_for_servers(&self) -> bool {
        match &self.state {
            State::Setup(s) => s.sent_inventory,
            State::Running(r) => {
                r.blame
                    .as_ref()
                    .is_some_and(|b| b.suspect.is_none() || b.my_verdict.is_some())
                    || r.round
                        .inventories
                        .get(self.id.0 as usize)
                        .is_some_and(Option::is_some)
            }
            State::Halted => false,
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
        let waiting_for_servers = self.waiting_for_servers();
        if waiting_for_servers && self.now >= self.last_progress + self.config.policy.server_timeout
        {
            let culprit = self.first_silent_server();
            let round = self.round();
            self.halt(culprit, ServerFault::Unresponsive { round }, Vec::new());
        }
    }

    pub(crate) fn first_silent_server(&self) -> ServerId {
        let m = self.config.num_servers() as u32;
        let State::Running(r) = &self.state else {
            if let State::Setup(s) = &self.state
                && let Phase::Shuffle { server } = s.log.shuffle().phase()
            {
                return ServerId(server as u32);
            }
            return ServerId((self.id.0 + 1) % m);
        };
        let round = &r.round;
        let missing = |v: &[Option<_>]| v.iter().position(Option::is_none);
        if let Some(b) = &r.blame {
            if let Some(j) = b.bits.iter().position(Option::is_none) {
                return ServerId(j as u32);
            }
            if let Some(j) = b.verdicts.iter().position(Option::is_none) {
                return ServerId(j as u32);
            }
        }
        let j = missing(&round.inventories)
            .or_else(|| {
                if round.open.iter().any(|o| o.kind == SlotKind::Xor) {
                    round.commits.iter().position(Option::is_none)
                } else {
                    None
                }
            })
            .or_else(|| round.server_cts.iter().position(Option::is_none))
            .or_else(|| round.signatures.iter().position(Option::is_none))
            .unwrap_or(0);
        ServerId(j as u32)
    }
}
