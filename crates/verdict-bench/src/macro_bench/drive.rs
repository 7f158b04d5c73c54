//! Driving `verdict-proto`'s simulator for measurements: stepping until an event, CPU
//! snapshots per role, and the per-round cost model shared by Figures 7 and 8.
//!
//! The simulator's clock only advances with link latency: the CPU a participant spends in its
//! state machine is measured (`Simulator::cpu`) but takes no simulated time. Where a figure
//! needs wall-clock time, [`RoundCost::estimated_wall`] adds the measured CPU of the slowest
//! server and the slowest client to the simulated network time of the round, i.e. it assumes
//! every participant has a core of its own and that within a round the servers work in
//! parallel and the clients build their submissions in parallel.

use core::time::Duration;
use std::collections::BTreeMap;

use verdict_proto::sim::Simulator;
use verdict_proto::{Event, Party, ProtoSuite, ServerId};

use super::MacroError;

/// Cumulative CPU time per participant at one instant.
pub type CpuSnapshot = BTreeMap<Party, Duration>;

/// The largest CPU increase between two snapshots among servers (`servers = true`) or among
/// clients.
pub fn max_delta(before: &CpuSnapshot, after: &CpuSnapshot, servers: bool) -> Duration {
    after
        .iter()
        .filter(|(p, _)| matches!(p, Party::Server(_)) == servers)
        .map(|(p, t)| t.saturating_sub(before.get(p).copied().unwrap_or_default()))
        .max()
        .unwrap_or_default()
}

/// Steps the simulator until `done` holds for the events logged since the call began (it sees
/// each new `(time, party, event)` once, in order), or nothing is left to do, or simulated time
/// passes `deadline`. Returns whether `done` was reached.
pub fn step_until<S: ProtoSuite>(
    sim: &mut Simulator<S>,
    deadline: Duration,
    mut done: impl FnMut(Duration, Party, &Event) -> bool,
) -> bool {
    let mut seen = sim.events.len();
    loop {
        while let Some((t, p, e)) = sim.events.get(seen) {
            seen += 1;
            if done(*t, *p, e) {
                return true;
            }
        }
        if sim.now() > deadline || !sim.step() {
            return false;
        }
    }
}

/// Steps until every one of `count` participants of one role (`servers`) has logged an event
/// matching `is_target`; `what` names the wait in the error.
pub fn step_until_all<S: ProtoSuite>(
    sim: &mut Simulator<S>,
    deadline: Duration,
    servers: bool,
    count: usize,
    what: &str,
    is_target: impl Fn(&Event) -> bool,
) -> Result<(), MacroError> {
    let mut reached = std::collections::BTreeSet::new();
    let ok = step_until(sim, deadline, |_, p, e| {
        if matches!(p, Party::Server(_)) == servers && is_target(e) {
            reached.insert(p);
        }
        reached.len() >= count
    });
    if ok {
        Ok(())
    } else {
        Err(MacroError(format!(
            "{what}: only {} of {count} got there before simulated time {:?}",
            reached.len(),
            sim.now()
        )))
    }
}

/// What one round cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundCost {
    /// CPU of the busiest server.
    pub server_cpu: Duration,
    /// CPU of the busiest client.
    pub client_cpu: Duration,
    /// Simulated time (network latency only).
    pub network: Duration,
    /// Protocol bytes the busiest server (by bytes) received and sent during the round.
    pub server_bytes: (u64, u64),
}

impl RoundCost {
    /// Network time plus the slowest server's and the slowest client's CPU (see the module
    /// documentation for the assumptions).
    pub fn estimated_wall(&self) -> Duration {
        self.network + self.server_cpu + self.client_cpu
    }
}

/// Runs the simulator until every server has completed round `round` (numbered from 0) and
/// returns what that stretch cost; `sim.events` then holds exactly that stretch's events. A round's interval starts where the previous one ended, so
/// the client CPU it contains is the building of this round's submissions (clients build them
/// when the previous round's output arrives).
pub fn run_round<S: ProtoSuite>(
    sim: &mut Simulator<S>,
    round: u64,
    deadline: Duration,
) -> Result<RoundCost, MacroError> {
    // The benchmarks read events only as they arrive (`step_until`, and fig8 right after this
    // returns), so the log restarts with each round: kept whole, it holds every participant's
    // copy of every delivered message (≈ 18 MB a hybrid round at N = 1024).
    sim.events.clear();
    let before = sim.cpu.clone();
    let traffic_before = sim.traffic.clone();
    let t0 = sim.now();
    sim.run_rounds(round + 1, deadline);
    let reached = (0..sim.num_servers()).all(|j| sim.server(j).is_some_and(|s| s.round() > round));
    if !reached {
        return Err(MacroError(format!(
            "round {round} did not complete by simulated time {:?}",
            sim.now()
        )));
    }
    let server_bytes = (0..sim.num_servers())
        .map(|j| {
            let p = Party::Server(ServerId(j as u32));
            let (a, b) = (traffic_before.of(p), sim.traffic.of(p));
            (b.received - a.received, b.sent - a.sent)
        })
        .max_by_key(|(received, sent)| received + sent)
        .unwrap_or_default();
    Ok(RoundCost {
        server_cpu: max_delta(&before, &sim.cpu, true),
        client_cpu: max_delta(&before, &sim.cpu, false),
        network: sim.now().saturating_sub(t0),
        server_bytes,
    })
}

/// The client index owning each slot after set-up (`slot -> client`).
pub fn slot_owners<S: ProtoSuite>(sim: &Simulator<S>) -> BTreeMap<u32, usize> {
    (0..sim.num_clients())
        .filter_map(|i| sim.client(i).and_then(|c| c.slot()).map(|s| (s, i)))
        .collect()
}

/// Seconds as `f64`.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_proto::{ClientId, ServerId};

    #[test]
    fn max_delta_separates_roles_and_ignores_new_parties_baseline() {
        let s = |j| Party::Server(ServerId(j));
        let c = |i| Party::Client(ClientId(i));
        let ms = Duration::from_millis;
        let before: CpuSnapshot = [(s(0), ms(10)), (s(1), ms(5)), (c(0), ms(1))].into();
        let after: CpuSnapshot =
            [(s(0), ms(12)), (s(1), ms(9)), (c(0), ms(30)), (c(1), ms(7))].into();
        assert_eq!(max_delta(&before, &after, true), ms(4));
        assert_eq!(max_delta(&before, &after, false), ms(29));
        let cost = RoundCost {
            server_cpu: ms(4),
            client_cpu: ms(29),
            network: ms(40),
            server_bytes: (0, 0),
        };
        assert_eq!(cost.estimated_wall(), ms(73));
    }
}
