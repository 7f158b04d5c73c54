//! What several integration tests share: the policy and network they run attacks under.

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use verdict_group::Group;
use verdict_nizk::SigningKey;
use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{ClientId, Event, Party, ProtoSuite, ServerFault, ServerId};
use verdict_proto::{Mode, Policy, Verification, WindowPolicy};

/// A network with a fixed 10 ms latency and no jitter: every run of a seed interleaves the
/// same way.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn quiet_net() -> Network {
    Network {
        latency: Duration::from_millis(10),
        ..Network::default()
    }
}

/// Short windows (2 s per round, 5 s for set-up), a 1 s rebuttal deadline and a 20 s server
/// timeout: attacks play out in little simulated time.
#[allow(dead_code)] // not every test binary that shares this module uses it
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

/// Re-signs `env` with a new payload under `key` (what the holder of that key can always do).
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn reseal<G: Group>(
    key: &SigningKey<G>,
    env: &Envelope<G>,
    payload: Vec<u8>,
    rng: &mut ChaCha20Rng,
) -> Vec<u8> {
    let h = env.header();
    Envelope::seal(key, h.kind, h.sender, h.session, h.round, payload, rng).to_bytes()
}

/// Makes `server` a liar in one step: its `kind` message of `round` carries
/// `rewrite(payload)` instead, validly signed by `server` (to every recipient).
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn rewrite_server_step<S: ProtoSuite>(
    sim: &mut Simulator<S>,
    server: ServerId,
    kind: Kind,
    round: u64,
    mut rewrite: impl FnMut(&[u8]) -> Vec<u8> + 'static,
) {
    let key = sim.signing_key(Party::Server(server)).unwrap().clone();
    let mut rng = <ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(round);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        let Ok(env) = Envelope::<S::G>::from_bytes(&bytes) else {
            return Some(bytes);
        };
        let h = env.header();
        if from != Party::Server(server) || h.kind != kind || h.round != round {
            return Some(bytes);
        }
        let payload = rewrite(&env.payload);
        Some(reseal(&key, &env, payload, &mut rng))
    }));
}

/// Halts reported by the servers in `honest`, as (culprit, fault).
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn halts_seen_by<S: ProtoSuite>(
    sim: &Simulator<S>,
    honest: &[u32],
) -> Vec<(ServerId, ServerFault)> {
    sim.halts()
        .into_iter()
        .filter(|(by, _, _)| honest.contains(&by.0))
        .map(|(_, culprit, fault)| (culprit, fault))
        .collect()
}

/// The clients server `server` excluded.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn excluded_by<S: ProtoSuite>(sim: &Simulator<S>, server: u32) -> Vec<ClientId> {
    sim.exclusions(Party::Server(ServerId(server)))
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// A paused hybrid session (eager verification) of `servers` and `clients` under `policy`, with
/// client `jammer` jamming from round 1: every such session goes through blame.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn jammed_hybrid<S: ProtoSuite>(
    policy: Policy,
    servers: usize,
    clients: usize,
    jammer: ClientId,
    seed: u64,
) -> Simulator<S> {
    assert_eq!(policy.mode, Mode::Hybrid(Verification::Eager));
    let mut sim = Simulator::<S>::new_paused(policy, servers, clients, quiet_net(), seed)
        .expect("a valid group");
    sim.add_adversary(Adversary::JammingClient {
        client: jammer,
        from_round: 1,
    });
    sim
}

/// No server halted, and every server excluded exactly `jammer`.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn only_jammer_excluded<S: ProtoSuite>(sim: &Simulator<S>, jammer: ClientId) {
    assert!(sim.halts().is_empty(), "{:?}", sim.halts());
    for j in 0..sim.num_servers() as u32 {
        assert_eq!(excluded_by(sim, j), vec![jammer], "server {j}");
    }
}
