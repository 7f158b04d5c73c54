//! Bytes on the simulated wire, per participant: what a round costs in bandwidth, next to the
//! CPU the simulator measures (`Simulator::cpu`).

use std::collections::BTreeMap;

use verdict_dcnet::Party;

/// One participant's traffic so far: the bytes of every message it put on a link and of every
/// message put on a link to it (counted when sent, so a message still in flight is counted on
/// both sides). Protocol bytes only: no transport framing or encryption.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent.
    pub sent: u64,
    /// Bytes addressed to it.
    pub received: u64,
    /// Messages sent.
    pub messages_sent: u64,
}

/// Every participant's [`Traffic`].
#[derive(Clone, Debug, Default)]
pub struct TrafficLog {
    by_party: BTreeMap<Party, Traffic>,
}

impl TrafficLog {
    /// Counts one message of `len` bytes from `from` to `to`.
    pub(super) fn record(&mut self, from: Party, to: Party, len: usize) {
        let len = len as u64;
        let sender = self.by_party.entry(from).or_default();
        sender.sent += len;
        sender.messages_sent += 1;
        self.by_party.entry(to).or_default().received += len;
    }

    /// `who`'s traffic so far (zero if it never sent or was sent anything).
    pub fn of(&self, who: Party) -> Traffic {
        self.by_party.get(&who).copied().unwrap_or_default()
    }

    /// Every participant's traffic, in party order.
    pub fn iter(&self) -> impl Iterator<Item = (Party, Traffic)> + '_ {
        self.by_party.iter().map(|(p, t)| (*p, *t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_dcnet::{ClientId, ServerId};

    #[test]
    fn both_ends_of_a_message_are_counted() {
        let (c, s) = (Party::Client(ClientId(0)), Party::Server(ServerId(1)));
        let mut log = TrafficLog::default();
        log.record(c, s, 100);
        log.record(c, s, 20);
        log.record(s, c, 7);
        assert_eq!(
            log.of(c),
            Traffic {
                sent: 120,
                received: 7,
                messages_sent: 2
            }
        );
        assert_eq!(log.of(s).received, 120);
        assert_eq!(log.of(Party::Server(ServerId(0))), Traffic::default());
        assert_eq!(log.iter().count(), 2);
    }
}
