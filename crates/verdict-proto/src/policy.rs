//! The session policy agreed before the session starts: verification mode, hybrid on/off,
//! window closure, slot sizes and timeouts. Its canonical encoding is hashed into the session
//! id, so participants with different policies never interoperate by accident.

use core::time::Duration;

use crate::error::ConfigError;
use crate::wire::Writer;

/// When servers verify client proofs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verification {
    /// Before combining: an invalid proof excludes its client at once and the round goes on
    /// without it.
    Eager,
    /// Only when a slot's output fails its owner's pseudonym signature: then the servers verify
    /// that slot's proofs and exclude every client whose proof fails.
    Lazy,
}

/// Which DC-net carries messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every slot is a verifiable slot of the session's suite.
    Verifiable(Verification),
    /// Messages travel in XOR slots; each client also owns a verifiable slot, opened only to
    /// carry an accusation after its XOR slot was corrupted.
    Hybrid(Verification),
}

impl Mode {
    /// The verification mode of verifiable slots.
    pub fn verification(&self) -> Verification {
        match *self {
            Mode::Verifiable(v) | Mode::Hybrid(v) => v,
        }
    }
    /// Whether XOR slots carry messages.
    pub fn is_hybrid(&self) -> bool {
        matches!(self, Mode::Hybrid(_))
    }
}

/// When a server closes its submission window, as a function of the fraction of its
/// (non-excluded) clients heard from and of the time elapsed since the window opened.
///
/// One rule covers the policies of the paper and of Dissent:
/// - all clients: `WindowPolicy::all()`;
/// - a threshold `t` of `n`: `WindowPolicy::threshold(t * 1000 / n)`;
/// - a timeout `τ`: `WindowPolicy::timeout(τ)`;
/// - Dissent's rule: [`WindowPolicy::dissent`] — once `fraction` has arrived at time `e`, wait
///   `multiplier × e` more, but never past the hard deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowPolicy {
    /// Fraction of clients (per mille) whose arrival ends (or starts ending) the window.
    pub fraction_permille: u16,
    /// After the fraction has arrived at elapsed time `e`, wait `e × multiplier_percent / 100`
    /// more (0: close at once).
    pub multiplier_percent: u32,
    /// Close at this elapsed time whatever has arrived (`None`: wait for the fraction).
    pub deadline: Option<Duration>,
}

impl WindowPolicy {
    /// Wait for every client (a single silent client stalls the group).
    pub const fn all() -> Self {
        Self {
            fraction_permille: 1000,
            multiplier_percent: 0,
            deadline: None,
        }
    }
    /// Close as soon as `permille`/1000 of the clients have submitted.
    pub const fn threshold(permille: u16) -> Self {
        Self {
            fraction_permille: permille,
            multiplier_percent: 0,
            deadline: None,
        }
    }
    /// Close when every client has submitted or after `timeout`.
    pub const fn timeout(timeout: Duration) -> Self {
        Self {
            fraction_permille: 1000,
            multiplier_percent: 0,
            deadline: Some(timeout),
        }
    }
    /// Dissent's rule: after `permille` arrived at elapsed `e`, wait `e × percent/100`, capped
    /// by `deadline`.
    pub const fn dissent(permille: u16, percent: u32, deadline: Duration) -> Self {
        Self {
            fraction_permille: permille,
            multiplier_percent: percent,
            deadline: Some(deadline),
        }
    }

    /// The clients needed to reach the fraction, out of `expected` (at least one if any).
    pub fn needed(&self, expected: usize) -> usize {
        let need = (expected * usize::from(self.fraction_permille)).div_ceil(1000);
        need.clamp(usize::from(expected > 0), expected)
    }

    /// When the window closes, given when the fraction was reached (elapsed times since the
    /// window opened), or `None` if it stays open until something arrives.
    pub fn close_at(&self, reached: Option<Duration>, all_arrived: bool) -> Option<Duration> {
        let by_fraction = reached.map(|e| {
            if all_arrived {
                e
            } else {
                e + e.mul_f64(f64::from(self.multiplier_percent) / 100.0)
            }
        });
        match (by_fraction, self.deadline) {
            (Some(a), Some(d)) => Some(a.min(d)),
            (a, d) => a.or(d),
        }
    }
}

/// Everything the participants agree on before the session starts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Verifiable or hybrid, eager or lazy.
    pub mode: Mode,
    /// Submission window closure.
    pub window: WindowPolicy,
    /// When a server stops waiting for its clients' set-up messages (measured from its start).
    /// Clients missing then make set-up fail naming them; a policy without a deadline waits
    /// for every client, and then no server can be blamed for a set-up that never starts.
    pub setup_window: WindowPolicy,
    /// Capacity (plaintext bytes, including the 4-byte slot header) of a slot when it opens.
    pub default_len: u32,
    /// Largest capacity an owner may request.
    pub max_len: u32,
    /// A slot with no message for this many consecutive rounds closes.
    pub idle_rounds: u32,
    /// Closed slots reopened per round by the rotating reopen pointer.
    pub reopen_per_round: u32,
    /// Message slots open in round 0 (the first ones in slot order, which the shuffle made
    /// random; `u32::MAX`: all).
    pub initially_open: u32,
    /// How long a blame suspect has to rebut before it is judged guilty.
    pub rebuttal_timeout: Duration,
    /// How long a server waits for another server's message before it suspects that server.
    /// It names the server unresponsive (and halts) only after a further half of this — the
    /// alert allowance, see [`Policy::silence_before_naming`].
    pub server_timeout: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            mode: Mode::Verifiable(Verification::Eager),
            window: WindowPolicy::all(),
            setup_window: WindowPolicy::timeout(Duration::from_secs(300)),
            default_len: 256,
            max_len: 64 * 1024,
            idle_rounds: 4,
            reopen_per_round: 1,
            initially_open: u32::MAX,
            rebuttal_timeout: Duration::from_secs(5),
            server_timeout: Duration::from_secs(30),
        }
    }
}

impl Policy {
    /// How long after another server's message fell due a server names it
    /// [`ServerFault::Unresponsive`](crate::ServerFault::Unresponsive): the server timeout,
    /// plus half of it for alerts in flight.
    ///
    /// Why the allowance: when server `k` withholds a message from server `j` only, `j` waits
    /// on `k` while a third server `i`, which got the message and moved on, waits on `j`'s next
    /// step message, which honest `j` rightly never sends. `i`'s wait can start up to one link
    /// delay before `j`'s (`j`'s last progress may be a message from `i`), and `j`'s alert
    /// naming `k` takes another link delay to reach `i`. Waiting `server_timeout / 2` longer
    /// than `j` does lets that alert arrive first whenever one-way delays between honest
    /// servers stay under `server_timeout / 4`, so `i` follows `j`'s halt instead of naming `j`.
    pub fn silence_before_naming(&self) -> Duration {
        self.server_timeout + self.server_timeout / 2
    }

    /// Checks ranges.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.default_len < crate::slot::SLOT_HEADER_LEN as u32 || self.default_len > self.max_len
        {
            return Err(ConfigError::Policy(
                "default_len must be at least 4 and at most max_len",
            ));
        }
        if self.max_len as usize > verdict_dcnet::MAX_SLOT_LEN {
            return Err(ConfigError::Policy("max_len above the suite maximum"));
        }
        for w in [&self.window, &self.setup_window] {
            if w.fraction_permille > 1000 {
                return Err(ConfigError::Policy("window fraction above 1000 per mille"));
            }
            if w.fraction_permille == 0 && w.deadline.is_none() {
                return Err(ConfigError::Policy(
                    "a window with a zero fraction needs a deadline",
                ));
            }
        }
        Ok(())
    }

    /// The canonical encoding (hashed into the session id).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        let (hybrid, v) = match self.mode {
            Mode::Verifiable(v) => (0, v),
            Mode::Hybrid(v) => (1, v),
        };
        w.u8(hybrid).u8(match v {
            Verification::Eager => 0,
            Verification::Lazy => 1,
        });
        for window in [&self.window, &self.setup_window] {
            w.u32(u32::from(window.fraction_permille))
                .u32(window.multiplier_percent);
            match window.deadline {
                Some(d) => w.u8(1).u64(micros(d)),
                None => w.u8(0),
            };
        }
        w.u32(self.default_len)
            .u32(self.max_len)
            .u32(self.idle_rounds)
            .u32(self.reopen_per_round)
            .u32(self.initially_open)
            .u64(micros(self.rebuttal_timeout))
            .u64(micros(self.server_timeout));
        w.finish()
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn all_waits_for_everyone() {
        let w = WindowPolicy::all();
        assert_eq!(w.needed(10), 10);
        assert_eq!(w.close_at(None, false), None);
        assert_eq!(w.close_at(Some(3 * S), true), Some(3 * S));
    }

    #[test]
    fn threshold_closes_when_reached() {
        let w = WindowPolicy::threshold(500);
        assert_eq!(w.needed(10), 5);
        assert_eq!(w.needed(3), 2);
        assert_eq!(w.needed(0), 0);
        assert_eq!(w.close_at(Some(2 * S), false), Some(2 * S));
    }

    #[test]
    fn timeout_closes_at_the_deadline_or_when_all_arrived() {
        let w = WindowPolicy::timeout(5 * S);
        assert_eq!(w.close_at(None, false), Some(5 * S));
        assert_eq!(w.close_at(Some(2 * S), true), Some(2 * S));
    }

    #[test]
    fn dissent_waits_a_multiple_of_the_elapsed_time_up_to_the_cap() {
        let w = WindowPolicy::dissent(950, 50, 10 * S);
        assert_eq!(w.needed(100), 95);
        assert_eq!(w.close_at(Some(4 * S), false), Some(6 * S));
        assert_eq!(w.close_at(Some(8 * S), false), Some(10 * S));
        assert_eq!(w.close_at(Some(4 * S), true), Some(4 * S));
        assert_eq!(w.close_at(None, false), Some(10 * S));
    }

    #[test]
    fn validation_and_encoding() {
        let p = Policy::default();
        assert!(p.validate().is_ok());
        let bad = Policy {
            window: WindowPolicy::threshold(0),
            ..Policy::default()
        };
        assert!(bad.validate().is_err());
        let bad = Policy {
            default_len: 2,
            ..Policy::default()
        };
        assert!(bad.validate().is_err());
        let other = Policy {
            mode: Mode::Hybrid(Verification::Eager),
            ..Policy::default()
        };
        assert_ne!(
            p.to_bytes(),
            other.to_bytes(),
            "the mode is bound into the session id"
        );
    }
}
