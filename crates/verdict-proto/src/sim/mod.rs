//! A deterministic simulator: many servers and clients in one process, a simulated clock,
//! links with latency and bandwidth, message tampering, and ready-made adversaries.
//!
//! Everything protocol-visible is deterministic given the seed: RNGs are seeded ChaCha20
//! streams, the event queue is ordered by (time, sequence number), and links are FIFO. The
//! simulator also measures the real CPU time each participant spends inside the state
//! machines (for the benchmarks); that measurement never feeds back into the simulation.

use core::time::Duration;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;
use std::time::Instant;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_nizk::SigningKey;

use crate::client::Client;
use crate::config::{GroupConfig, generate_group};
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::policy::Policy;
use crate::server::Server;
use crate::suite::ProtoSuite;

#[cfg(feature = "adversary")]
mod adversary;
mod durable;
mod links;
mod network;
mod outcome;
#[cfg(test)]
mod record;
mod restart;
mod traffic;
mod upstream;
mod workers;

#[cfg(test)]
mod tests_arrival;

#[cfg(feature = "adversary")]
pub use adversary::Adversary;
pub use network::Network;
pub use traffic::{Traffic, TrafficLog};
pub use workers::WorkerSample;

#[derive(PartialEq, Eq)]
struct Pending {
    at: Duration,
    seq: u64,
    from: Party,
    to: Party,
    bytes: Arc<[u8]>,
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        // Min-heap on (time, sequence).
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A participant's own RNG stream, drawn from the simulator's seed.
fn fork(rng: &mut ChaCha20Rng) -> Result<ChaCha20Rng, crate::ConfigError> {
    ChaCha20Rng::from_rng(rng).map_err(|_| crate::ConfigError::GroupSize("rng"))
}

/// A user-supplied tamper hook: sees every transmission (from, to, bytes) and returns the
/// bytes to deliver (`None` drops the message).
pub type TamperHook = Box<dyn FnMut(Party, Party, Vec<u8>) -> Option<Vec<u8>>>;

/// The simulator.
pub struct Simulator<S: ProtoSuite> {
    now: Duration,
    seq: u64,
    network: Network,
    servers: Vec<Server<S, ChaCha20Rng>>,
    clients: Vec<Client<S, ChaCha20Rng>>,
    server_keys: Vec<SecretKeys<S::G>>,
    client_keys: Vec<SecretKeys<S::G>>,
    queue: BinaryHeap<Pending>,
    link_free: BTreeMap<(Party, Party), Duration>,
    link_last: BTreeMap<(Party, Party), Duration>,
    /// Links whose one-way latency differs from the network's.
    link_latency: BTreeMap<(Party, Party), Duration>,
    /// One configuration shared by every participant (`Arc` clones, not copies).
    config: Arc<GroupConfig<S>>,
    #[cfg(feature = "adversary")]
    adversaries: Vec<Adversary>,
    tamper: Option<TamperHook>,
    #[cfg(feature = "adversary")]
    last_submission: BTreeMap<ClientId, Vec<u8>>,
    /// Participants a crash adversary has silenced.
    #[cfg(feature = "adversary")]
    crashed: std::collections::BTreeSet<Party>,
    rng: ChaCha20Rng,
    /// Every event, with when and where it happened.
    pub events: Vec<(Duration, Party, Event)>,
    /// CPU time spent inside each participant's state machine.
    pub cpu: BTreeMap<Party, Duration>,
    /// Bytes each participant sent and was sent.
    pub traffic: traffic::TrafficLog,
    /// Messages handed to a participant so far.
    messages: usize,
    /// Each server's history of the outputs it sent (a node's durable history).
    histories: durable::Histories,
    /// What restartable clients keep on disk.
    disks: durable::Disks,
    /// When clients move to another upstream on their own.
    upstream_policy: upstream::UpstreamPolicy,
    /// Servers modelled as sharded over workers ([`Simulator::model_workers`]).
    workers: workers::WorkerModel,
    #[cfg(test)]
    recorder: record::Recorder,
}

impl<S: ProtoSuite> core::fmt::Debug for Simulator<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Simulator")
            .field("now", &self.now)
            .field("servers", &self.servers.len())
            .field("clients", &self.clients.len())
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite> Simulator<S> {
    /// A fresh group of `servers` and `clients` under `policy`, every key and RNG derived from
    /// `seed`.
    pub fn new(
        policy: Policy,
        servers: usize,
        clients: usize,
        network: Network,
        seed: u64,
    ) -> Result<Self, crate::ConfigError> {
        let mut sim = Self::new_paused(policy, servers, clients, network, seed)?;
        sim.start();
        Ok(sim)
    }

    /// Like [`Simulator::new`], but nothing is sent until [`Simulator::start`]: install tamper
    /// hooks or adversaries that must see the very first (set-up) messages.
    pub fn new_paused(
        policy: Policy,
        servers: usize,
        clients: usize,
        network: Network,
        seed: u64,
    ) -> Result<Self, crate::ConfigError> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let (config, server_keys, client_keys) =
            generate_group::<S, _>(policy, servers, clients, &mut rng);
        Self::build(config, server_keys, client_keys, network, rng)
    }

    /// Puts the participants' first messages on the links (see [`Simulator::new_paused`]).
    pub fn start(&mut self) {
        self.collect_all();
    }

    /// A simulator over an existing configuration and its secret keys.
    pub fn from_config(
        config: GroupConfig<S>,
        server_keys: Vec<SecretKeys<S::G>>,
        client_keys: Vec<SecretKeys<S::G>>,
        network: Network,
        rng: ChaCha20Rng,
    ) -> Result<Self, crate::ConfigError> {
        let mut sim = Self::build(config, server_keys, client_keys, network, rng)?;
        sim.start();
        Ok(sim)
    }

    fn build(
        config: GroupConfig<S>,
        server_keys: Vec<SecretKeys<S::G>>,
        client_keys: Vec<SecretKeys<S::G>>,
        network: Network,
        mut rng: ChaCha20Rng,
    ) -> Result<Self, crate::ConfigError> {
        let config = Arc::new(config);
        let mut cpu = BTreeMap::new();
        let mut servers = Vec::new();
        for (j, k) in server_keys.iter().enumerate() {
            let start = Instant::now();
            let s = Server::new(
                config.clone(),
                ServerId(j as u32),
                k.clone(),
                fork(&mut rng)?,
                Duration::ZERO,
            )?;
            cpu.insert(Party::Server(ServerId(j as u32)), start.elapsed());
            servers.push(s);
        }
        let mut clients = Vec::new();
        // Clients share set-up verification (byte-identical transcripts verify identically):
        // without it, N clients each re-verifying M shuffles would dominate large simulations.
        let cache = crate::client::SetupCache::new();
        for (i, k) in client_keys.iter().enumerate() {
            let start = Instant::now();
            let c = Client::new(
                config.clone(),
                ClientId(i as u32),
                k.clone(),
                fork(&mut rng)?,
            )?
            .with_setup_cache(cache.clone());
            cpu.insert(Party::Client(ClientId(i as u32)), start.elapsed());
            clients.push(c);
        }
        let sim = Self {
            now: Duration::ZERO,
            seq: 0,
            network,
            servers,
            clients,
            server_keys,
            client_keys,
            queue: BinaryHeap::new(),
            link_free: BTreeMap::new(),
            link_last: BTreeMap::new(),
            link_latency: BTreeMap::new(),
            config,
            #[cfg(feature = "adversary")]
            adversaries: Vec::new(),
            tamper: None,
            #[cfg(feature = "adversary")]
            last_submission: BTreeMap::new(),
            #[cfg(feature = "adversary")]
            crashed: std::collections::BTreeSet::new(),
            rng,
            events: Vec::new(),
            cpu,
            traffic: traffic::TrafficLog::default(),
            messages: 0,
            histories: durable::Histories::default(),
            disks: durable::Disks::default(),
            upstream_policy: upstream::UpstreamPolicy::default(),
            workers: workers::WorkerModel::default(),
            #[cfg(test)]
            recorder: record::Recorder::default(),
        };
        Ok(sim)
    }

    /// The group configuration every participant was built from.
    pub fn config(&self) -> &GroupConfig<S> {
        &self.config
    }

    /// A participant's envelope-signing key (tests and adversaries forge with it).
    pub fn signing_key(&self, who: Party) -> Option<&SigningKey<S::G>> {
        self.secret_keys(who).map(SecretKeys::signing)
    }

    /// All of a participant's long-term secret keys.
    pub fn secret_keys(&self, who: Party) -> Option<&SecretKeys<S::G>> {
        match who {
            Party::Server(s) => self.server_keys.get(s.index()),
            Party::Client(c) => self.client_keys.get(c.index()),
        }
    }

    /// The simulated time.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Server `j`.
    pub fn server(&self, j: usize) -> Option<&Server<S, ChaCha20Rng>> {
        self.servers.get(j)
    }

    /// The `j`-th server, mutable (for the simulator adversaries' hooks).
    pub fn server_mut(&mut self, j: usize) -> Option<&mut Server<S, ChaCha20Rng>> {
        self.servers.get_mut(j)
    }

    /// Client `i`.
    pub fn client(&self, i: usize) -> Option<&Client<S, ChaCha20Rng>> {
        self.clients.get(i)
    }

    /// Client `i`, mutably (to submit messages).
    pub fn client_mut(&mut self, i: usize) -> Option<&mut Client<S, ChaCha20Rng>> {
        self.clients.get_mut(i)
    }

    /// Client `i`'s link came back (after a tamper hook dropped its messages, say): the
    /// simulator, as the client's driver, calls [`Client::reconnected`] and sends what it
    /// asks for.
    pub fn reconnect(&mut self, i: usize) {
        if let Some(c) = self.clients.get_mut(i) {
            c.reconnected();
            self.collect(Party::Client(ClientId(i as u32)));
        }
    }

    /// Queues `message` at client `i`.
    pub fn submit(&mut self, i: usize, message: Vec<u8>) -> Result<(), crate::ApiError> {
        match self.clients.get_mut(i) {
            Some(c) => c.submit(message),
            None => Err(crate::ApiError::SessionOver),
        }
    }

    /// Number of servers.
    pub fn num_servers(&self) -> usize {
        self.servers.len()
    }

    /// Number of clients.
    pub fn num_clients(&self) -> usize {
        self.clients.len()
    }

    fn collect_all(&mut self) {
        for j in 0..self.servers.len() {
            self.collect(Party::Server(ServerId(j as u32)));
        }
        for i in 0..self.clients.len() {
            self.collect(Party::Client(ClientId(i as u32)));
        }
    }

    /// Moves a participant's transmissions onto links and its events into the log.
    fn collect(&mut self, who: Party) {
        let mut out: Vec<Transmit> = Vec::new();
        let mut events = Vec::new();
        match who {
            Party::Server(s) => {
                if let Some(srv) = self.servers.get_mut(s.index()) {
                    while let Some(e) = srv.poll_event() {
                        // Served from the durable history before anything the server sends now.
                        out.extend(self.histories.serve(s, &e));
                        events.push(e);
                    }
                    while let Some(t) = srv.poll_transmit() {
                        self.histories.record(s, &t);
                        #[cfg(test)]
                        self.recorder.transmit(who, &t);
                        out.push(t);
                    }
                }
            }
            Party::Client(c) => {
                let m = self.servers.len();
                if let Some(cl) = self.clients.get_mut(c.index()) {
                    while let Some(e) = cl.poll_event() {
                        events.push(e);
                    }
                    // As a node's driver: left out too often, the client moves (what the
                    // move sends goes out with the rest).
                    if let Some(to) = self.upstream_policy.react(c, cl.upstream(), m, &events)
                        && cl.switch_upstream(to).is_ok()
                    {
                        self.disks.save_checkpoint(c, cl.checkpoint());
                    }
                    while let Some(t) = cl.poll_transmit() {
                        out.push(t);
                    }
                }
            }
        }
        for e in events {
            self.events.push((self.now, who, e));
        }
        for t in out {
            let Some(bytes) = self.rewrite(who, t.to, t.bytes) else {
                continue;
            };
            self.traffic.record(who, t.to, bytes.len());
            let free = self
                .link_free
                .get(&(who, t.to))
                .copied()
                .unwrap_or(Duration::ZERO);
            let start = free.max(self.now);
            let transfer = self
                .network
                .bandwidth
                .map(|bw| Duration::from_secs_f64(bytes.len() as f64 / bw.max(1) as f64))
                .unwrap_or(Duration::ZERO);
            self.link_free.insert((who, t.to), start + transfer);
            // Jitter varies delivery times across links; a link stays FIFO (a later message
            // never overtakes an earlier one), as the protocol requires of its transport.
            let jitter = if self.network.jitter.is_zero() {
                Duration::ZERO
            } else {
                let nanos = u64::try_from(self.network.jitter.as_nanos()).unwrap_or(u64::MAX);
                Duration::from_nanos(self.rng.next_u64() % nanos.max(1))
            };
            let last = self
                .link_last
                .get(&(who, t.to))
                .copied()
                .unwrap_or(Duration::ZERO);
            let at = (start + transfer + self.latency_of(who, t.to) + jitter).max(last);
            self.link_last.insert((who, t.to), at);
            self.seq += 1;
            self.queue.push(Pending {
                at,
                seq: self.seq,
                from: who,
                to: t.to,
                bytes,
            });
        }
    }

    fn next_timer(&self) -> Option<(Duration, Party)> {
        self.servers
            .iter()
            .enumerate()
            .filter_map(|(j, s)| {
                s.poll_timeout()
                    .map(|t| (t, Party::Server(ServerId(j as u32))))
            })
            .min()
    }

    /// Processes the next event (message delivery or timer); `false` when nothing is left.
    pub fn step(&mut self) -> bool {
        let msg_at = self.queue.peek().map(|p| p.at);
        let timer = self.next_timer();
        match (msg_at, timer) {
            (None, None) => false,
            (Some(m), t) if t.is_none_or(|(t, _)| m <= t) => {
                let Some(p) = self.queue.pop() else {
                    return false;
                };
                self.now = self.now.max(p.at);
                let to = p.to;
                let batch = match to {
                    Party::Server(_) => self.arrived_together(p),
                    Party::Client(_) => vec![p],
                };
                self.messages += batch.len();
                // Before the clock starts: the worker model times itself, and its time is not
                // the server's.
                if let Party::Server(s) = to
                    && let Some(srv) = self.servers.get(s.index())
                {
                    for p in &batch {
                        self.workers.before_delivery(srv, p.from, &p.bytes);
                    }
                }
                #[cfg(test)]
                self.recorder
                    .messages(to, self.now, batch.iter().map(|p| (p.from, &p.bytes)));
                let start = Instant::now();
                match to {
                    Party::Server(s) => {
                        if let Some(srv) = self.servers.get_mut(s.index()) {
                            srv.handle_timeout(self.now);
                            srv.handle_messages(batch.into_iter().map(|p| (p.from, p.bytes)));
                        }
                    }
                    Party::Client(c) => {
                        if let Some(cl) = self.clients.get_mut(c.index()) {
                            for p in batch {
                                cl.handle_message(p.from, Arc::clone(&p.bytes));
                                if self.disks.clients.contains_key(&c) {
                                    self.disks.after_message(c, &p.bytes, cl.checkpoint());
                                }
                            }
                        }
                    }
                }
                *self.cpu.entry(to).or_default() += start.elapsed();
                self.collect(to);
                true
            }
            (_, Some((t, who))) => {
                self.now = self.now.max(t);
                let start = Instant::now();
                if let Party::Server(s) = who
                    && let Some(srv) = self.servers.get_mut(s.index())
                {
                    srv.handle_timeout(self.now);
                }
                #[cfg(test)]
                self.recorder.timeout(who, self.now);
                *self.cpu.entry(who).or_default() += start.elapsed();
                self.collect(who);
                true
            }
            _ => false,
        }
    }

    /// `first` and every other message due at the same instant for the same server, in queue
    /// order: what a server's driver finds queued together and hands in with one
    /// [`Server::handle_messages`]. Messages due then for others stay queued as they were.
    /// Each participant still gets its messages in (time, sequence) order; what changes is only
    /// which participant runs first among those with messages due at one instant, and with it
    /// the sequence numbers of what they send.
    fn arrived_together(&mut self, first: Pending) -> Vec<Pending> {
        let (at, to) = (first.at, first.to);
        let mut batch = vec![first];
        let mut others = Vec::new();
        while let Some(next) = self.queue.peek()
            && next.at == at
            && let Some(next) = self.queue.pop()
        {
            if next.to == to {
                batch.push(next);
            } else {
                others.push(next);
            }
        }
        self.queue.extend(others);
        batch
    }

    /// Runs until every live server has completed `rounds` rounds, all servers halted, or
    /// `deadline` (simulated time) passes. Returns the simulated time elapsed.
    pub fn run_rounds(&mut self, rounds: u64, deadline: Duration) -> Duration {
        let start = self.now;
        // A guard against a state machine that keeps asking for a timer it does not act on:
        // a bug, but it must fail a test rather than hang it.
        let mut stalled = 0u32;
        let mut last = self.now;
        loop {
            if self.now == last {
                stalled += 1;
                if stalled > 1_000_000 {
                    break;
                }
            } else {
                stalled = 0;
                last = self.now;
            }
            let done = self
                .servers
                .iter()
                .all(|s| s.phase() == crate::ServerPhase::Halted || s.round() >= rounds);
            if done || self.now > deadline || !self.step() {
                break;
            }
        }
        self.now - start
    }
}
