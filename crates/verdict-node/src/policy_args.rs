//! The mode and policy options shared by `group new` and `local` (their own module so the
//! two commands' modules need not import each other).

use std::time::Duration;

use clap::{Args, ValueEnum};
use verdict_proto::{Mode, Policy, Verification, WindowPolicy};

use crate::suite::SuiteChoice;

/// Verification and DC-net mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeChoice {
    /// Verifiable slots, every proof checked before combining.
    Eager,
    /// Verifiable slots, proofs checked only when a slot fails.
    Lazy,
    /// XOR slots carry messages, verifiable slots carry accusations.
    Hybrid,
}

impl ModeChoice {
    /// The protocol mode.
    pub fn mode(self) -> Mode {
        match self {
            Self::Eager => Mode::Verifiable(Verification::Eager),
            Self::Lazy => Mode::Verifiable(Verification::Lazy),
            Self::Hybrid => Mode::Hybrid(Verification::Eager),
        }
    }
}

/// The policy options of `group new`.
#[derive(Clone, Debug, Args)]
pub struct PolicyArgs {
    /// The ciphersuite.
    #[arg(long, value_enum, default_value = "hashing")]
    pub suite: SuiteChoice,
    /// Verification mode.
    #[arg(long, value_enum, default_value = "eager")]
    pub mode: ModeChoice,
    /// A round's submission window closes when every client submitted or after this long.
    #[arg(long, default_value_t = 2000)]
    pub window_ms: u64,
    /// Set-up waits this long for the clients' set-up messages.
    #[arg(long, default_value_t = 300)]
    pub setup_window_s: u64,
    /// A server silent this long is named unresponsive if its message is known to exist (another
    /// server echoed it); otherwise after 1.5 times this, so that the alert of an honest server
    /// starved by a third arrives first. Keep it well above four link delays between servers.
    #[arg(long, default_value_t = 30)]
    pub server_timeout_s: u64,
}

impl PolicyArgs {
    /// The policy.
    pub fn policy(&self) -> Policy {
        Policy {
            mode: self.mode.mode(),
            window: WindowPolicy::timeout(Duration::from_millis(self.window_ms)),
            setup_window: WindowPolicy::timeout(Duration::from_secs(self.setup_window_s)),
            server_timeout: Duration::from_secs(self.server_timeout_s),
            ..Policy::default()
        }
    }
}
