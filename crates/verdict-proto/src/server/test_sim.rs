//! What the server's own unit tests share: the simulated network and the stepping loop.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use crate::sim::{Network, Simulator};
use crate::suite::ProtoSuite;

/// A network with a fixed 10 ms latency and no jitter.
pub(super) fn quiet_net() -> Network {
    Network {
        latency: Duration::from_millis(10),
        ..Network::default()
    }
}

/// Steps until `done` holds; panics if the simulation stops or a minute of simulated time
/// passes first.
pub(super) fn step_until<S: ProtoSuite>(
    sim: &mut Simulator<S>,
    mut done: impl FnMut(&Simulator<S>) -> bool,
) {
    while !done(sim) && sim.now() < Duration::from_secs(60) {
        assert!(sim.step(), "the simulation stopped");
    }
    assert!(done(sim), "not reached in time");
}
