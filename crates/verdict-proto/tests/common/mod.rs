//! What several integration tests share: the policy and network they run attacks under.

use core::time::Duration;

use verdict_proto::sim::Network;
use verdict_proto::{Mode, Policy, WindowPolicy};

/// A network with a fixed 10 ms latency and no jitter: every run of a seed interleaves the
/// same way.
pub fn quiet_net() -> Network {
    Network {
        latency: Duration::from_millis(10),
        ..Network::default()
    }
}

/// Short windows (2 s per round, 5 s for set-up), a 1 s rebuttal deadline and a 20 s server
/// timeout: attacks play out in little simulated time.
pub fn policy(mode: Mode) -> Policy {
    Policy {
        mode,
        default_len: 128,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        setup_window: WindowPolicy::timeout(Duration::from_secs(5)),
        rebuttal_timeout: Duration::from_secs(1),
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    }
}
