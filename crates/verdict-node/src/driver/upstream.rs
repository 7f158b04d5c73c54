//! When a client moves to another upstream server (protocol §7.4), and the move itself.
//!
//! Two signs that the upstream is failing the client, each of which a driver can see and a
//! state machine cannot: certified outputs that keep leaving the client out of the accepted
//! set although it submitted ([`verdict_proto::Event::LeftOut`], two rounds in a row — one
//! alone is what an honest server does to a late client), and a link that stays down while the
//! client is in the session's rounds. Either way the client moves to the next server in turn,
//! and the dialer follows it. A censoring server is not named: nothing the client holds proves
//! it sent anything.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio::time::Instant;
use verdict_dcnet::{Party, ServerId};
use verdict_proto::{Client, Event, LeftOutStreak, ProtoSuite, next_upstream};

use crate::error::NodeError;
use crate::output::emit;
use crate::transport::link::LinkKind;
use crate::transport::peers::Net;

/// Consecutive certified rounds without the client's submission after which it moves.
pub const MOVE_AFTER_LEFT_OUT: u32 = 2;
/// How long the link to the upstream may stay down, past set-up, before the client moves.
pub const MOVE_AFTER_LINK_DOWN: Duration = Duration::from_secs(10);
/// Outputs further apart than this came live, one per round; closer ones are the answer to a
/// catch-up, arriving back to back.
const LIVE_GAP: Duration = Duration::from_millis(250);
/// A catch-up answer is over at the latest this long after the request.
const CATCH_UP_MAX: Duration = Duration::from_secs(30);
/// How long a client in the session's rounds may go without a certified output that counts
/// it before it moves, whatever the reason: an upstream that withholds outputs, or one that
/// keeps the client catching up (drops the link every few seconds) while it censors.
pub const MOVE_AFTER_NO_PROGRESS: Duration = Duration::from_secs(60);

/// Why a client moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveReason {
    /// Left out of [`MOVE_AFTER_LEFT_OUT`] certified rounds in a row.
    LeftOut,
    /// No link to the upstream for [`MOVE_AFTER_LINK_DOWN`].
    LinkDown,
    /// No certified output counting the client for [`MOVE_AFTER_NO_PROGRESS`].
    NoProgress,
}

impl MoveReason {
    fn name(self) -> &'static str {
        match self {
            Self::LeftOut => "left_out",
            Self::LinkDown => "link_down",
            Self::NoProgress => "no_progress",
        }
    }
}

/// Watches for the signs above.
///
/// Rounds the client missed (link down, process restarted, a move) come back as the answer to
/// a catch-up, and every one of them left the client out — its submissions for them were built
/// too late — which says nothing about the upstream. So while a catch-up answer is arriving
/// (from the request until two outputs arrive [`LIVE_GAP`] apart, or [`CATCH_UP_MAX`]),
/// left-out rounds do not count.
#[derive(Debug, Default)]
pub struct Watch {
    streak: LeftOutStreak,
    /// Since when the link to the upstream has been seen down (`None`: up, or not looked at).
    down_since: Option<Instant>,
    /// When the client last asked to catch up, while the answer may still be arriving.
    catching_up: Option<Instant>,
    /// When the last output arrived since then.
    last_output: Option<Instant>,
    /// The last round the client was left out of.
    left_out: Option<u64>,
    /// When the client last made progress: an output that counted it (or watching began).
    progress: Option<Instant>,
}

impl Watch {
    /// The client sent a catch-up request at `now`.
    pub fn on_catch_up_sent(&mut self, now: Instant) {
        self.catching_up = Some(now);
        self.last_output = None;
    }

    /// A round output reached the client at `now` (before its events are looked at).
    pub fn on_output(&mut self, now: Instant) {
        if let Some(asked) = self.catching_up {
            let paced = self
                .last_output
                .is_some_and(|t| now.duration_since(t) >= LIVE_GAP);
            if paced || now.duration_since(asked) >= CATCH_UP_MAX {
                self.catching_up = None;
            }
        }
        self.last_output = Some(now);
    }

    /// One of the client's events, at `now`: whether it says to move.
    pub fn on_event(&mut self, e: &Event, now: Instant) -> Option<MoveReason> {
        match e {
            Event::LeftOut { round } => self.left_out = Some(*round),
            Event::RoundComplete { round, .. } if self.left_out != Some(*round) => {
                self.progress = Some(now);
            }
            _ => {}
        }
        if self.catching_up.is_some() && matches!(e, Event::LeftOut { .. }) {
            return None;
        }
        (self.streak.observe(e) >= MOVE_AFTER_LEFT_OUT).then_some(MoveReason::LeftOut)
    }

    /// Checked periodically while the client is in the session's rounds: whether it has gone
    /// too long without progress.
    pub fn on_tick(&mut self, now: Instant) -> Option<MoveReason> {
        let since = *self.progress.get_or_insert(now);
        (now.duration_since(since) >= MOVE_AFTER_NO_PROGRESS).then_some(MoveReason::NoProgress)
    }

    /// The link to the upstream is `up` at `now` (checked periodically while the client is in
    /// the session's rounds): whether it has been down too long.
    pub fn on_link(&mut self, up: bool, now: Instant) -> Option<MoveReason> {
        if up {
            self.down_since = None;
            return None;
        }
        let since = *self.down_since.get_or_insert(now);
        (now.duration_since(since) >= MOVE_AFTER_LINK_DOWN).then_some(MoveReason::LinkDown)
    }
}

/// The client's link to its upstream, which follows it when it moves.
pub struct Upstream {
    pub(super) party: Party,
    dialer: Option<AbortHandle>,
    pub(super) watch: Watch,
}

impl Upstream {
    /// Dials `server`.
    pub fn dial(net: &Arc<Net>, server: ServerId) -> Self {
        let party = Party::Server(server);
        Self {
            party,
            dialer: net.spawn_dialer(party, LinkKind::FromServer),
            watch: Watch::default(),
        }
    }

    /// Moves `client` to the next server and dials it instead.
    pub fn move_on<S: ProtoSuite, R: rand_core::RngCore + rand_core::CryptoRng>(
        &mut self,
        client: &mut Client<S, R>,
        net: &Arc<Net>,
        servers: usize,
        reason: MoveReason,
    ) -> Result<(), NodeError> {
        let from = client.upstream();
        let to = next_upstream(from, servers);
        client
            .switch_upstream(to)
            .map_err(|e| NodeError::Usage(format!("cannot move to {to}: {e}")))?;
        // The old dialer (and its link, if any) ends as the old value drops.
        *self = Self::dial(net, to);
        tracing::warn!(%from, %to, reason = reason.name(), "moving to another upstream server");
        emit(&serde_json::json!({
            "event": "moved_upstream",
            "from": from.0,
            "to": to.0,
            "reason": reason.name(),
        }));
        Ok(())
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        if let Some(d) = self.dialer.take() {
            d.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_rounds_left_out_in_a_row_move_the_client() {
        let mut w = Watch::default();
        assert_eq!(
            w.on_event(&Event::LeftOut { round: 4 }, Instant::now()),
            None
        );
        assert_eq!(
            w.on_event(&Event::LeftOut { round: 6 }, Instant::now()),
            None
        );
        assert_eq!(
            w.on_event(&Event::LeftOut { round: 7 }, Instant::now()),
            Some(MoveReason::LeftOut)
        );
    }

    #[test]
    fn rounds_left_out_while_catching_up_do_not_count() {
        let mut w = Watch::default();
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        w.on_catch_up_sent(t0);
        // The answer: outputs back to back, each leaving the client out.
        for (i, round) in (10..14).enumerate() {
            w.on_output(ms(5 + i as u64));
            assert_eq!(w.on_event(&Event::LeftOut { round }, t0), None);
        }
        // Live rounds again (a round apart): now they count.
        w.on_output(ms(1_000));
        assert_eq!(w.on_event(&Event::LeftOut { round: 14 }, t0), None);
        w.on_output(ms(2_000));
        assert_eq!(
            w.on_event(&Event::LeftOut { round: 15 }, t0),
            Some(MoveReason::LeftOut)
        );
    }

    #[test]
    fn a_catch_up_answer_ends_by_the_time_limit() {
        let mut w = Watch::default();
        let t0 = Instant::now();
        w.on_catch_up_sent(t0);
        w.on_output(t0 + Duration::from_millis(1));
        assert_eq!(w.on_event(&Event::LeftOut { round: 1 }, t0), None);
        w.on_output(t0 + CATCH_UP_MAX);
        assert_eq!(w.on_event(&Event::LeftOut { round: 2 }, t0), None);
        w.on_output(t0 + CATCH_UP_MAX + Duration::from_millis(1));
        assert_eq!(
            w.on_event(&Event::LeftOut { round: 3 }, t0),
            Some(MoveReason::LeftOut)
        );
    }

    /// Found in review: an upstream that censors the client and drops its link every round
    /// keeps it catching up, so no left-out round counts; it must still move, for lack of
    /// progress.
    #[test]
    fn a_censor_that_keeps_the_client_catching_up_is_left() {
        let mut w = Watch::default();
        let t0 = Instant::now();
        let mut moved = None;
        for k in 0..100u64 {
            let t = t0 + Duration::from_secs(k);
            moved = moved.or(w.on_tick(t));
            w.on_catch_up_sent(t);
            w.on_output(t + Duration::from_millis(100));
            moved = moved.or(w.on_event(&Event::LeftOut { round: k }, t));
            moved = moved.or(w.on_event(
                &Event::RoundComplete {
                    round: k,
                    participants: 5,
                },
                t,
            ));
        }
        assert_eq!(moved, Some(MoveReason::NoProgress));
    }

    #[test]
    fn a_client_counted_in_its_rounds_makes_progress() {
        let mut w = Watch::default();
        let t0 = Instant::now();
        for k in 0..100u64 {
            let t = t0 + Duration::from_secs(k);
            assert_eq!(w.on_tick(t), None);
            assert_eq!(
                w.on_event(
                    &Event::RoundComplete {
                        round: k,
                        participants: 5
                    },
                    t
                ),
                None
            );
        }
    }

    #[test]
    fn a_link_down_long_enough_moves_the_client() {
        let mut w = Watch::default();
        let t0 = Instant::now();
        assert_eq!(w.on_link(false, t0), None);
        assert_eq!(w.on_link(false, t0 + Duration::from_secs(9)), None);
        // Back up: the clock starts again at the next outage.
        assert_eq!(w.on_link(true, t0 + Duration::from_secs(9)), None);
        assert_eq!(w.on_link(false, t0 + Duration::from_secs(12)), None);
        assert_eq!(w.on_link(false, t0 + Duration::from_secs(21)), None);
        assert_eq!(
            w.on_link(false, t0 + Duration::from_secs(22)),
            Some(MoveReason::LinkDown)
        );
    }
}
