//! The simulator as the clients' driver: moving a client to another upstream server, by hand
//! or by the policy a node's client driver follows (after repeated certified rounds that left
//! it out, the next server in turn).

use std::collections::BTreeMap;

use verdict_dcnet::{ClientId, Party, ServerId};

use super::Simulator;
use crate::client::{LeftOutStreak, SwitchError, next_upstream};
use crate::event::Event;
use crate::suite::ProtoSuite;

/// When the simulator moves a client to another upstream on its own.
#[derive(Clone, Debug, Default)]
pub(super) struct UpstreamPolicy {
    /// Consecutive rounds left out after which a client moves (`None`: never on its own).
    after_left_out: Option<u32>,
    streaks: BTreeMap<ClientId, LeftOutStreak>,
}

impl UpstreamPolicy {
    /// Client `c` (whose upstream is `current`, of `m` servers) produced `events`: the server
    /// to move it to, if the policy says so.
    pub(super) fn react(
        &mut self,
        c: ClientId,
        current: ServerId,
        m: usize,
        events: &[Event],
    ) -> Option<ServerId> {
        let limit = self.after_left_out?;
        let streak = self.streaks.entry(c).or_default();
        let mut move_now = false;
        for e in events {
            if streak.observe(e) >= limit {
                streak.reset();
                move_now = true;
            }
        }
        move_now.then(|| next_upstream(current, m))
    }
}

impl<S: ProtoSuite> Simulator<S> {
    /// Moves client `i` to upstream server `to` ([`crate::Client::switch_upstream`]) and sends
    /// what that queues.
    pub fn switch_upstream(&mut self, i: usize, to: ServerId) -> Result<(), SwitchError> {
        let Some(c) = self.clients.get_mut(i) else {
            return Err(SwitchError::NotInRounds);
        };
        c.switch_upstream(to)?;
        let checkpoint = c.checkpoint();
        self.disks.save_checkpoint(ClientId(i as u32), checkpoint);
        self.collect(Party::Client(ClientId(i as u32)));
        Ok(())
    }

    /// From now on, a client left out of `rounds` consecutive certified rounds
    /// ([`Event::LeftOut`]) moves to the next server in turn (`None`: clients never move on
    /// their own), as the node's client driver does.
    pub fn switch_after_left_out(&mut self, rounds: Option<u32>) {
        self.upstream_policy.after_left_out = rounds.filter(|&r| r > 0);
    }
}
