//! Moving to another upstream server.
//!
//! A client's upstream collects its submissions and forwards the round outputs; any server can
//! do that for it (see the server's `round/upstream.rs`). A client moves when its link to its
//! upstream stays down, or when certified outputs show that its upstream leaves it out of the
//! accepted set ([`Event::LeftOut`]) — which an honest server does only
//! to a late client, and a malicious one can do to anybody without leaving evidence (the client
//! cannot prove what it sent). Moving costs nothing in anonymity: the accepted set names every
//! client anyway, and which server a client talks to says nothing about its slot.
//!
//! Round outputs are accepted from any server (each carries all `M` signatures), so the moment
//! the client moves changes nothing about what it trusts.

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use thiserror::Error;
use verdict_dcnet::{Party, ServerId};

use super::{Client, State};
use crate::event::{Event, Transmit};
use crate::suite::ProtoSuite;
use crate::wire::{Header, Kind};

/// Why a client cannot move to another upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SwitchError {
    /// No such server in the group.
    #[error("{server} is not a server of this group")]
    UnknownServer {
        /// The server asked for.
        server: ServerId,
    },
    /// The client is not in a session's rounds: set-up goes through the roster's upstream (it
    /// sends the client its set-up transcript), and a client that is done has nothing to move.
    #[error("only a client in the session's rounds can move to another upstream")]
    NotInRounds,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    /// The server this client sends its submissions to.
    pub fn upstream(&self) -> ServerId {
        self.upstream
    }

    /// Moves to upstream server `to`: from now on submissions go to `to`. The submission of
    /// the round the client awaits, if already sent, is sent again to `to` byte for byte (an
    /// identical submission listed by two servers counts once; anything else would be two
    /// versions of the round input, for which a client is excluded), and a `CatchUp` asks `to`
    /// for every certified output from that round on (which makes `to` serve this client).
    /// A driver moves a client whose link to its upstream stays down, or after repeated
    /// [`Event::LeftOut`]; moving to the current upstream announces the
    /// client to it again, which does no harm.
    pub fn switch_upstream(&mut self, to: ServerId) -> Result<(), SwitchError> {
        if to.index() >= self.config.num_servers() {
            return Err(SwitchError::UnknownServer { server: to });
        }
        let State::Ready(ready) = &self.state else {
            return Err(SwitchError::NotInRounds);
        };
        let round = ready.round;
        let pending = ready
            .submission
            .clone()
            .filter(|s| Header::from_prefix(s).is_ok_and(|h| h.round == round));
        self.upstream = to;
        let to = Party::Server(to);
        if let Some(bytes) = pending {
            self.transmits.push_back(Transmit {
                to,
                bytes: Arc::clone(&bytes),
            });
        }
        self.send(to, Kind::CatchUp, round, Vec::new());
        Ok(())
    }
}

/// Counts the consecutive certified rounds that left a client out ([`Event::LeftOut`]): what a
/// driver looks at to decide that the client's upstream drops it. One round alone proves
/// little (an honest upstream closes its window on a late client); the same round after round
/// does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeftOutStreak {
    /// The last round the client was left out of, and how many in a row up to it.
    last: Option<(u64, u32)>,
}

impl LeftOutStreak {
    /// Takes one of the client's events into account; returns the current streak.
    pub fn observe(&mut self, event: &Event) -> u32 {
        let Event::LeftOut { round } = event else {
            return self.last.map_or(0, |(_, n)| n);
        };
        let n = match self.last {
            Some((last, n)) if last.checked_add(1) == Some(*round) => n.saturating_add(1),
            _ => 1,
        };
        self.last = Some((*round, n));
        n
    }

    /// Starts counting again (after a move).
    pub fn reset(&mut self) {
        self.last = None;
    }
}

/// The server after `current` of `servers`, in turn: where a driver moves a client next.
pub fn next_upstream(current: ServerId, servers: usize) -> ServerId {
    let next = (current.index() + 1) % servers.max(1);
    ServerId(u32::try_from(next).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_consecutive_rounds_make_a_streak() {
        let mut s = LeftOutStreak::default();
        let left = |round| Event::LeftOut { round };
        assert_eq!(s.observe(&left(3)), 1);
        assert_eq!(s.observe(&left(4)), 2);
        assert_eq!(
            s.observe(&Event::RoundComplete {
                round: 5,
                participants: 3
            }),
            2
        );
        assert_eq!(s.observe(&left(6)), 1);
        assert_eq!(s.observe(&left(7)), 2);
        assert_eq!(s.observe(&left(8)), 3);
        s.reset();
        assert_eq!(s.observe(&left(9)), 1);
        // The same round twice (a copy of an output) is no streak.
        assert_eq!(s.observe(&left(9)), 1);
    }

    #[test]
    fn the_next_upstream_wraps_around() {
        assert_eq!(next_upstream(ServerId(0), 3), ServerId(1));
        assert_eq!(next_upstream(ServerId(2), 3), ServerId(0));
        assert_eq!(next_upstream(ServerId(0), 1), ServerId(0));
    }
}
