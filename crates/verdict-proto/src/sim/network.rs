//! The simulated links: latency, bandwidth and jitter, the same for every link unless
//! `Simulator::set_link_latency` says otherwise for one.

use core::time::Duration;

/// Link model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Network {
    /// One-way latency of every link.
    pub latency: Duration,
    /// Bytes per second of every link (`None`: unlimited).
    pub bandwidth: Option<u64>,
    /// Extra delay per message, uniform in `[0, jitter)` (links stay FIFO).
    pub jitter: Duration,
}

impl Default for Network {
    fn default() -> Self {
        Self {
            latency: Duration::from_millis(10),
            bandwidth: None,
            jitter: Duration::ZERO,
        }
    }
}
