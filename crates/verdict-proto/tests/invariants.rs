//! The accountability invariants, as property tests over random groups, modes, window
//! policies and adversary placements: any set of misbehaving clients and any set of
//! misbehaving servers short of all, with every adversary the simulator has.
//!
//! (a) no honest client is ever excluded or named (a client that crashed or restarted may be
//!     excluded only as a blame suspect it could not rebut, which needs a server that lied);
//! (b) no honest server is ever named, also when clients crash or go silent, under every window
//!     policy;
//! (c) every delivered message is exactly what an honest owner submitted, delivered once;
//! (d) every disruptor is excluded within a bounded number of rounds, or a server is halted
//!     with evidence; when nothing halted and the window policy has a deadline, every honest
//!     message is delivered — also a censored client's, which moves to another upstream;
//! (e) no panic, and every honest server's memory stays within a bound set by the group size;
//! (f) set-up leaves out exactly the clients that never sent their set-up message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use proptest::prelude::*;
use verdict_dcnet::HashingGenerator;
use verdict_dcnet::elgamal::ElGamal;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::{
    ClientId, Event, Mode, Party, Policy, ProtoSuite, ServerId, Verification, WindowPolicy,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClientAttack {
    /// Disrupts (hybrid: jams XOR slots; verifiable: a bad proof).
    Disrupt,
    Replay,
    /// Hybrid: injects unsigned content into other slots (verifiable: a bad proof).
    Inject,
    Flood,
    /// Submits the identity as pseudonym key (gets no slot).
    NoSlot,
    /// Crashes from round 1 (honest, but gone).
    Crash,
    /// Joins at round 2 (honest).
    Late,
    /// Never shows up, not even at set-up (honest, away): left out, never named.
    Absent,
    /// Honest; its process dies at round 2, stays down for two rounds (or 3 s, if the window
    /// waits for it), and restarts from what it keeps on disk (protocol §7.3). Messages it
    /// posts after the restart must get through.
    Restart,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ServerAttack {
    Lie,
    Deceive,
    Equivocate,
    EquivocateBlame,
    Unchecking,
    WrongAggregate,
    FalseReject,
    Dissent,
    Crash,
    /// Cuts the next server off (sends it nothing) from round 1.
    Withhold,
    /// Drops every submission of one honest sender (its own client if it has one): nobody can
    /// be named for that; the client moves to another upstream after two rounds left out,
    /// and its messages must still get through.
    Censor,
}

#[derive(Clone, Copy, Debug)]
enum Window {
    Timeout,
    Dissent,
    All,
}

#[derive(Clone, Debug)]
struct Case {
    m: usize,
    n: usize,
    mode: Mode,
    window: Window,
    clients: BTreeMap<u32, ClientAttack>,
    servers: BTreeMap<u32, ServerAttack>,
    seed: u64,
}

impl Case {
    /// Slots hold a short message with the slot header and the owner's signature in `S`.
    fn policy<S: ProtoSuite>(&self) -> Policy {
        let window = match self.window {
            Window::Timeout => WindowPolicy::timeout(Duration::from_secs(2)),
            Window::Dissent => WindowPolicy::dissent(800, 50, Duration::from_secs(3)),
            Window::All => WindowPolicy::all(),
        };
        Policy {
            mode: self.mode,
            default_len: (4 + verdict_nizk::Signature::<S::G>::ENCODED_LEN + 48) as u32,
            window,
            setup_window: WindowPolicy::timeout(Duration::from_secs(5)),
            rebuttal_timeout: Duration::from_secs(1),
            server_timeout: Duration::from_secs(20),
            ..Policy::default()
        }
    }

    fn is_live(&self) -> bool {
        !matches!(self.window, Window::All)
    }

    fn disruptors(&self) -> BTreeSet<ClientId> {
        self.clients
            .iter()
            .filter(|(_, a)| {
                matches!(
                    a,
                    ClientAttack::Disrupt | ClientAttack::Replay | ClientAttack::Inject
                )
            })
            .map(|(c, _)| ClientId(*c))
            .collect()
    }

    /// Clients that misbehave (as opposed to honest ones that crash or join late).
    fn malicious_clients(&self) -> BTreeSet<ClientId> {
        self.clients
            .iter()
            .filter(|(_, a)| {
                !matches!(
                    a,
                    ClientAttack::Crash
                        | ClientAttack::Late
                        | ClientAttack::Absent
                        | ClientAttack::Restart
                )
            })
            .map(|(c, _)| ClientId(*c))
            .collect()
    }

    fn absent_clients(&self) -> Vec<ClientId> {
        self.clients
            .iter()
            .filter(|(_, a)| **a == ClientAttack::Absent)
            .map(|(c, _)| ClientId(*c))
            .collect()
    }

    /// Clients whose process dies (for good, or to restart).
    fn crashed_clients(&self) -> BTreeSet<ClientId> {
        self.clients
            .iter()
            .filter(|(_, a)| matches!(a, ClientAttack::Crash | ClientAttack::Restart))
            .map(|(c, _)| ClientId(*c))
            .collect()
    }

    /// Honest clients that hold a slot and are online when they post: their messages must
    /// get through.
    fn senders(&self) -> Vec<u32> {
        (0..self.n as u32)
            .filter(|i| {
                self.clients
                    .get(i)
                    .is_none_or(|a| matches!(a, ClientAttack::Late | ClientAttack::Restart))
            })
            .collect()
    }

    fn restarting(&self) -> Vec<u32> {
        self.clients
            .iter()
            .filter(|(_, a)| **a == ClientAttack::Restart)
            .map(|(c, _)| *c)
            .collect()
    }

    /// The honest, always-online client censoring server `j` silences: one of its own if it
    /// has one (client `i`'s roster upstream is server `i mod m`).
    fn censored_by(&self, j: u32) -> u32 {
        let online: Vec<u32> = (0..self.n as u32)
            .filter(|i| !self.clients.contains_key(i))
            .collect();
        online
            .iter()
            .copied()
            .find(|i| i % self.m as u32 == j)
            .or_else(|| online.first().copied())
            .unwrap_or(0)
    }

    fn honest_servers(&self) -> Vec<u32> {
        (0..self.m as u32)
            .filter(|j| !self.servers.contains_key(j))
            .collect()
    }

    fn adversaries(&self) -> Vec<Adversary> {
        let hybrid = self.mode.is_hybrid();
        let mut out = Vec::new();
        for (&c, &a) in &self.clients {
            let client = ClientId(c);
            out.push(match (a, hybrid) {
                (ClientAttack::Disrupt, true) => Adversary::JammingClient {
                    client,
                    from_round: 1,
                },
                (ClientAttack::Inject, true) => Adversary::XorInjectingClient {
                    client,
                    from_round: 1,
                },
                (ClientAttack::Disrupt | ClientAttack::Inject, false) => {
                    Adversary::BadProofClient { client, round: 1 }
                }
                (ClientAttack::Replay, _) => Adversary::ReplayingClient { client, round: 1 },
                (ClientAttack::Flood, _) => Adversary::FloodingClient { client },
                (ClientAttack::NoSlot, _) => Adversary::IdentityPseudonymClient { client },
                (ClientAttack::Crash, _) => Adversary::SilentClient {
                    client,
                    from_round: 1,
                },
                (ClientAttack::Late, _) => Adversary::LateClient { client, round: 2 },
                (ClientAttack::Absent, _) => Adversary::AbsentClient { client },
                // Not an adversary: the run loop takes it down and restarts it.
                (ClientAttack::Restart, _) => continue,
            });
        }
        for (&j, &a) in &self.servers {
            let server = ServerId(j);
            out.push(match a {
                ServerAttack::Lie => Adversary::LyingServer { server },
                ServerAttack::Deceive => Adversary::DeceivingServer { server },
                ServerAttack::Equivocate => Adversary::EquivocatingServer { server, round: 1 },
                ServerAttack::EquivocateBlame => Adversary::EquivocatingBlameServer { server },
                ServerAttack::Unchecking => Adversary::UncheckingServer { server },
                ServerAttack::WrongAggregate => {
                    Adversary::WrongAggregateServer { server, round: 1 }
                }
                ServerAttack::FalseReject => Adversary::FalselyRejectingServer { server, round: 1 },
                ServerAttack::Dissent => Adversary::DissentingServer { server },
                ServerAttack::Crash => Adversary::SilentServer {
                    server,
                    from_round: 2,
                },
                ServerAttack::Withhold => Adversary::WithholdingServer {
                    server,
                    victim: ServerId((j + 1) % self.m as u32),
                    from_round: 1,
                },
                ServerAttack::Censor => Adversary::CensoringServer {
                    server,
                    client: ClientId(self.censored_by(j)),
                },
            });
        }
        out
    }
}

/// The most a server may hold, whatever its peers send: headers for five rounds of ten step
/// kinds per server, buffers of a few messages per peer (per client: a next-round submission,
/// one held for its signature check, a rebuttal), three rounds of history.
fn footprint_bound(m: usize, n: usize) -> (usize, usize, usize) {
    (5 * 10 * m, 10 * m + 3 * n + 8, 3)
}

fn run<S: ProtoSuite>(case: &Case) {
    let net = Network {
        jitter: Duration::from_millis(case.seed % 30),
        ..Network::default()
    };
    let mut sim =
        Simulator::<S>::new_paused(case.policy::<S>(), case.m, case.n, net, case.seed).unwrap();
    for a in case.adversaries() {
        sim.add_adversary(a);
    }
    // As the node's client driver: two certified rounds in a row without its submission, and
    // a client moves to the next server.
    sim.switch_after_left_out(Some(2));
    let restarting = case.restarting();
    for &i in &restarting {
        sim.make_restartable(i as usize).unwrap();
    }
    // Restarting clients' links: cut while their process is down.
    let down: Rc<RefCell<BTreeSet<Party>>> = Rc::default();
    let cut = Rc::clone(&down);
    sim.set_tamper(Box::new(move |from, to, bytes| {
        let cut = cut.borrow();
        (!cut.contains(&from) && !cut.contains(&to)).then_some(bytes)
    }));
    sim.start();
    // When the restarting clients went down (`None`: not yet; time and round), and the round
    // they came back in.
    let mut down_at: Option<(Duration, u64)> = None;
    let mut back_at: Option<u64> = restarting.is_empty().then_some(0);
    let honest_servers = case.honest_servers();
    let senders = case.senders();
    let disruptors = case.disruptors();
    // Enough rounds to trace every disruptor (one accusation per round, and each may need the
    // round after the jam to be accused in).
    let rounds = 6 + 3 * disruptors.len() as u64;
    let (max_headers, max_buffered, max_history) = footprint_bound(case.m, case.n);
    let deadline = Duration::from_secs(60 + 20 * rounds);
    let mut submitted: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut phase = 0;
    loop {
        let round = honest_servers
            .iter()
            .map(|&j| sim.server(j as usize).unwrap().round())
            .min()
            .unwrap_or(0);
        // Two messages per honest sender: one once set-up is done, one two rounds later (a
        // restarting client posts only the second, once it is back: what it had queued dies
        // with its process).
        if (phase == 0 && round >= 1) || (phase == 1 && round >= 3 && back_at.is_some()) {
            for &i in senders
                .iter()
                .filter(|i| phase == 1 || !restarting.contains(i))
            {
                let msg = format!("message {phase} from {i}").into_bytes();
                if sim.submit(i as usize, msg.clone()).is_ok() {
                    submitted.insert(msg);
                }
            }
            phase += 1;
        }
        if back_at.is_none() && down_at.is_none() && round >= 2 {
            down.borrow_mut()
                .extend(restarting.iter().map(|i| Party::Client(ClientId(*i))));
            down_at = Some((sim.now(), round));
        }
        if back_at.is_none()
            && down_at
                .is_some_and(|(t, r)| round >= r + 2 || sim.now() >= t + Duration::from_secs(3))
        {
            down.borrow_mut().clear();
            for &i in &restarting {
                sim.restart(i as usize)
                    .unwrap_or_else(|e| panic!("client {i} cannot resume: {e} {case:?}"));
            }
            back_at = Some(round);
        }
        for &j in &honest_servers {
            let f = sim.server(j as usize).unwrap().footprint();
            assert!(
                f.headers <= max_headers && f.buffered <= max_buffered && f.history <= max_history,
                "server {j} holds {f:?} ({case:?})"
            );
        }
        let halted = honest_servers.iter().all(|&j| {
            sim.server(j as usize).unwrap().phase() == verdict_proto::ServerPhase::Halted
        });
        // Restarted clients get rounds to catch up and post: their slot closed while they were
        // down (idle), and the rotating pointer reopens it within `n` rounds.
        let done = round >= rounds && back_at.is_some_and(|b| round >= b + 3 + case.n as u64);
        if done || halted || sim.now() > deadline || !sim.step() {
            break;
        }
    }
    // Let the last certified outputs reach the clients.
    let settle = sim.now() + Duration::from_secs(1);
    while sim.now() < settle && sim.step() {}

    let malicious = case.malicious_clients();
    let crashed = case.crashed_clients();
    let bad_server_exists = !case.servers.is_empty();
    let honest_observers: Vec<Party> = honest_servers
        .iter()
        .map(|j| Party::Server(ServerId(*j)))
        .chain(senders.iter().map(|i| Party::Client(ClientId(*i))))
        .collect();
    let may_be_blamed =
        |c: ClientId| malicious.contains(&c) || (crashed.contains(&c) && bad_server_exists);
    let mut any_halt = false;
    for &who in &honest_observers {
        let mut seen = BTreeSet::new();
        for e in sim.events_of(who) {
            match e {
                // (a)
                Event::Excluded { client, reason, .. } => {
                    assert!(
                        may_be_blamed(*client),
                        "{who}: {client} excluded ({reason:?}) {case:?}"
                    );
                }
                Event::Verdict {
                    culprit: Some(Party::Client(c)),
                    ..
                } => assert!(may_be_blamed(*c), "{who}: verdict on {c} {case:?}"),
                // (b)
                Event::Halted { server, fault, .. } => {
                    any_halt = true;
                    assert!(
                        case.servers.contains_key(&server.0),
                        "{who}: honest {server} named: {fault:?} {case:?}"
                    );
                }
                Event::PeerHalted { .. } => any_halt = true,
                Event::Verdict {
                    culprit: Some(Party::Server(s)),
                    ..
                } => assert!(
                    case.servers.contains_key(&s.0),
                    "{who}: verdict on {s} {case:?}"
                ),
                Event::SetupFailed { culprits, reason } => {
                    panic!("{who}: set-up failed ({reason}, {culprits:?}) {case:?}")
                }
                // (f) exactly the clients that stayed away are left out: no honest client
                // that sent its set-up message is.
                Event::SetupComplete { absent, .. } => assert_eq!(
                    absent,
                    &case.absent_clients(),
                    "{who}: absent at set-up {case:?}"
                ),
                // (c)
                Event::Delivered { message, .. } => {
                    assert!(
                        submitted.contains(message),
                        "{who}: delivered {:?}, which no honest owner sent {case:?}",
                        String::from_utf8_lossy(message)
                    );
                    assert!(
                        seen.insert(message.clone()),
                        "{who}: delivered twice {case:?}"
                    );
                }
                _ => {}
            }
        }
    }
    if any_halt {
        // A halt must have named a misbehaving server somewhere honest (checked above).
        assert!(
            bad_server_exists,
            "halted without a misbehaving server {case:?}"
        );
        return;
    }
    if !case.is_live() {
        // A window without a deadline waits for every client: a crashed or late one stalls
        // the round (as the policy says), so there is no progress to check.
        return;
    }
    // (d) Every disruptor is out — except one whose upstream rewrites its aggregates: such a
    // server can undo its own client's disruption (the simulator's wrong-aggregate server swaps
    // exactly the two slots a bad-proof client swaps), and then nothing was disrupted. Had the
    // pair disrupted anything, the delivery checks below would fail.
    let launderers: BTreeSet<ServerId> = case
        .servers
        .iter()
        .filter(|(_, a)| **a == ServerAttack::WrongAggregate)
        .map(|(j, _)| ServerId(*j))
        .collect();
    let upstream = &sim.config().upstream;
    let visible = |c: &ClientId| {
        upstream
            .get(c.index())
            .is_none_or(|up| !launderers.contains(up))
    };
    for &j in &honest_servers {
        let out: BTreeSet<ClientId> = sim
            .exclusions(Party::Server(ServerId(j)))
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        for d in disruptors.iter().filter(|d| visible(d)) {
            assert!(
                out.contains(d),
                "server {j}: disruptor {d} still in {case:?}"
            );
        }
    }
    for &who in &honest_observers {
        let got: BTreeSet<Vec<u8>> = sim.delivered(who).into_iter().collect();
        for msg in &submitted {
            assert!(
                got.contains(msg),
                "{who}: {:?} never delivered {case:?}",
                String::from_utf8_lossy(msg)
            );
        }
    }
}

fn mode(i: u8) -> Mode {
    match i % 4 {
        0 => Mode::Verifiable(Verification::Eager),
        1 => Mode::Verifiable(Verification::Lazy),
        2 => Mode::Hybrid(Verification::Eager),
        _ => Mode::Hybrid(Verification::Lazy),
    }
}

fn window(i: u8) -> Window {
    match i % 3 {
        0 => Window::Timeout,
        1 => Window::Dissent,
        _ => Window::All,
    }
}

const CLIENT_ATTACKS: [ClientAttack; 9] = [
    ClientAttack::Disrupt,
    ClientAttack::Replay,
    ClientAttack::Inject,
    ClientAttack::Flood,
    ClientAttack::NoSlot,
    ClientAttack::Crash,
    ClientAttack::Late,
    ClientAttack::Absent,
    ClientAttack::Restart,
];

const SERVER_ATTACKS: [ServerAttack; 11] = [
    ServerAttack::Lie,
    ServerAttack::Deceive,
    ServerAttack::Equivocate,
    ServerAttack::EquivocateBlame,
    ServerAttack::Unchecking,
    ServerAttack::WrongAggregate,
    ServerAttack::FalseReject,
    ServerAttack::Dissent,
    ServerAttack::Crash,
    ServerAttack::Withhold,
    ServerAttack::Censor,
];

/// A random case: `bad_c` / `bad_s` pick who misbehaves and how (at least two honest online
/// clients, at least one honest server).
fn case_strategy(max_m: usize, max_n: usize, modes: u8) -> impl Strategy<Value = Case> {
    (
        1usize..=max_m,
        2usize..=max_n,
        0u8..modes,
        0u8..3,
        proptest::collection::vec((any::<u32>(), 0usize..CLIENT_ATTACKS.len()), 0..5),
        proptest::collection::vec((any::<u32>(), 0usize..SERVER_ATTACKS.len()), 0..3),
        any::<u64>(),
    )
        .prop_map(|(m, n, mode_i, window_i, bad_c, bad_s, seed)| {
            let mut clients = BTreeMap::new();
            for (c, a) in bad_c {
                if clients.len() + 2 < n {
                    clients.insert(c % n as u32, CLIENT_ATTACKS[a]);
                }
            }
            let mut servers = BTreeMap::new();
            for (j, a) in bad_s {
                if servers.len() + 1 < m {
                    servers.insert(j % m as u32, SERVER_ATTACKS[a]);
                }
            }
            Case {
                m,
                n,
                mode: mode(mode_i),
                window: window(window_i),
                clients,
                servers,
                seed,
            }
        })
}

/// Cases per property: `VERDICT_PROPTEST_CASES` for long local campaigns, else `default`
/// (kept small so `cargo test` stays fast).
fn cases(default: u32) -> u32 {
    std::env::var("VERDICT_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hashing_generator_invariants(case in case_strategy(5, 16, 4)) {
        run::<HashingGenerator<Ristretto255>>(&case);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(6), failure_persistence: None, ..ProptestConfig::default() })]

    /// ElGamal runs eager verification only (the configuration refuses lazy).
    #[test]
    fn elgamal_invariants(case in case_strategy(3, 6, 1)) {
        run::<ElGamal<Ristretto255>>(&case);
    }
}

/// The combinations the review found, pinned: a liar with a jammer in every hybrid mode, a
/// dissenting server, blame equivocation, a flood, with crashes around them.
#[test]
fn pinned_adversary_combinations() {
    let cases = [
        (
            Mode::Hybrid(Verification::Eager),
            ServerAttack::Deceive,
            ClientAttack::Disrupt,
        ),
        (
            Mode::Hybrid(Verification::Lazy),
            ServerAttack::Lie,
            ClientAttack::Inject,
        ),
        (
            Mode::Hybrid(Verification::Eager),
            ServerAttack::Dissent,
            ClientAttack::Disrupt,
        ),
        (
            Mode::Hybrid(Verification::Eager),
            ServerAttack::EquivocateBlame,
            ClientAttack::Disrupt,
        ),
        (
            Mode::Verifiable(Verification::Eager),
            ServerAttack::WrongAggregate,
            ClientAttack::Flood,
        ),
        (
            Mode::Verifiable(Verification::Lazy),
            ServerAttack::Crash,
            ClientAttack::Disrupt,
        ),
        (
            Mode::Hybrid(Verification::Eager),
            ServerAttack::Withhold,
            ClientAttack::Disrupt,
        ),
    ];
    for (k, (mode, s, c)) in cases.into_iter().enumerate() {
        let case = Case {
            m: 3,
            n: 7,
            mode,
            window: Window::Timeout,
            clients: [(5, c), (6, ClientAttack::Crash)].into(),
            servers: [(2, s)].into(),
            seed: 100 + k as u64,
        };
        run::<HashingGenerator<Ristretto255>>(&case);
    }
}

/// The other suites the configuration accepts, once each with a disruptor and a misbehaving
/// server around it (the random cases above run ristretto255's hashing-generator and ElGamal;
/// the pairing suite, whose GT arithmetic makes a session take minutes, is exercised with a
/// disruptor by `pairing_invariants`, ignored by default: `cargo test -- --ignored`).
#[test]
fn p256_suites_keep_the_invariants() {
    use verdict_group::P256;
    let case = |mode, client, server, seed| Case {
        m: 2,
        n: 4,
        mode,
        window: Window::Timeout,
        clients: [(3, client)].into(),
        servers: [(1, server)].into(),
        seed,
    };
    let hybrid = Mode::Hybrid(Verification::Eager);
    let eager = Mode::Verifiable(Verification::Eager);
    run::<HashingGenerator<P256>>(&case(hybrid, ClientAttack::Disrupt, ServerAttack::Lie, 1));
    run::<ElGamal<P256>>(&case(
        eager,
        ClientAttack::Disrupt,
        ServerAttack::Unchecking,
        2,
    ));
}

#[test]
#[ignore = "minutes: BLS12-381 GT arithmetic (run with --ignored, ideally --release)"]
fn pairing_invariants() {
    use verdict_dcnet::pairing::Pairing;
    let case = Case {
        m: 1,
        n: 3,
        mode: Mode::Verifiable(Verification::Eager),
        window: Window::Timeout,
        clients: [(2, ClientAttack::Disrupt)].into(),
        servers: BTreeMap::new(),
        seed: 3,
    };
    run::<Pairing>(&case);
}

/// Found by the property tests: a wrong-aggregate server whose own client sends bad proofs
/// swaps back exactly what its client swapped, so lazy verification sees a correct slot and
/// nobody is excluded or halted. Nothing was disrupted: every honest message is delivered, once.
#[test]
fn a_server_undoing_its_own_clients_disruption_disrupts_nothing() {
    let case = Case {
        m: 5,
        n: 4,
        mode: Mode::Verifiable(Verification::Lazy),
        window: Window::Timeout,
        clients: [(0, ClientAttack::Crash), (3, ClientAttack::Inject)].into(),
        servers: [(3, ServerAttack::WrongAggregate)].into(),
        seed: 0,
    };
    run::<HashingGenerator<Ristretto255>>(&case);
}

/// Found by the property tests (a harness bound, not a protocol fault): a restarted client's
/// slot had closed while it was down, and the run ended before the rotating pointer reopened
/// it, so its message "never arrived". Runs now give a restarted client `n` more rounds.
#[test]
fn a_restarted_clients_message_arrives_once_its_slot_reopens() {
    let case = Case {
        m: 1,
        n: 9,
        mode: Mode::Verifiable(Verification::Lazy),
        window: Window::Timeout,
        clients: [(2, ClientAttack::Restart), (4, ClientAttack::Crash)].into(),
        servers: BTreeMap::new(),
        seed: 4055121432344009150,
    };
    run::<HashingGenerator<Ristretto255>>(&case);
}
