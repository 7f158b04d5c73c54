//! What several integration tests share: the policy and network they run attacks under.

use core::time::Duration;

use verdict_proto::sim::{Network, Simulator};
use verdict_proto::{ClientId, Event, Party, ProtoSuite, ServerId};
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

/// The rounds client `who` saw certified, in the order it saw them.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn rounds_completed<S: ProtoSuite>(sim: &Simulator<S>, who: usize) -> Vec<u64> {
    sim.events_of(Party::Client(ClientId(who as u32)))
        .filter_map(|e| match e {
            Event::RoundComplete { round, .. } => Some(*round),
            _ => None,
        })
        .collect()
}

/// No halt, no exclusion and no verdict naming anyone, at any server.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn nobody_blamed<S: ProtoSuite>(sim: &Simulator<S>) {
    assert!(sim.halts().is_empty(), "{:?}", sim.halts());
    for j in 0..sim.num_servers() {
        let who = Party::Server(ServerId(j as u32));
        assert!(sim.exclusions(who).is_empty(), "{who} excluded someone");
        for e in sim.events_of(who) {
            assert!(
                !matches!(
                    e,
                    Event::Verdict {
                        culprit: Some(_),
                        ..
                    }
                ),
                "{who}: {e:?}"
            );
        }
    }
}
