//! Modelling a server sharded over worker machines in its own trust domain (docs/PERFORMANCE.md,
//! "One server at 10⁴–10⁵ clients").
//!
//! The protocol's servers do their clients' work themselves. With the model switched on for a
//! server ([`Simulator::model_workers`]), the simulator keeps a copy of every submission the
//! server's own clients send it in a round; when the last one is about to be delivered (the
//! server is still collecting), it runs a worker's job ([`ShardWorker::verify`]) on the whole
//! set and on each of `W` shards, and the server's merge ([`ShardWorker::merge`]), each timed
//! on one thread, and records whether the merged sums equal the whole set's. Nothing of this
//! feeds back into the simulation: the server then handles the submission as usual.

use core::time::Duration;
use std::collections::BTreeMap;
use std::time::Instant;

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_group::par;

use super::Simulator;
#[cfg(doc)]
use crate::server::ShardWorker;
use crate::server::{Server, ServerPhase, ShardSums};
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, SharedBytes};

impl<S: ProtoSuite> Simulator<S> {
    /// Models `server` as sharded over workers, once for each count in `workers`: in every
    /// round whose submissions from all of its own clients reach it, the worker's job and the
    /// merge are run and timed on those submissions (see [`WorkerSample`]). The simulation
    /// itself is unchanged.
    pub fn model_workers(&mut self, server: ServerId, workers: &[usize]) {
        let own = self.config.clients_of(server);
        let seed = self.rng.next_u64();
        self.workers.model(server, workers.to_vec(), own, seed);
    }

    /// Every modelled round so far ([`Simulator::model_workers`]), in the order they ran.
    pub fn worker_samples(&self) -> &[WorkerSample] {
        &self.workers.samples
    }
}

/// One modelled round of one server with `workers` workers.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WorkerSample {
    /// The server.
    pub server: ServerId,
    /// The round.
    pub round: u64,
    /// Its own clients' submissions in the round.
    pub clients: usize,
    /// The number of workers (shard `w` holds the `w`-th, `(w + W)`-th, … of the clients in id
    /// order).
    pub workers: usize,
    /// One worker doing every client's job (what the server does in-process today).
    pub whole: Duration,
    /// Each worker's job on its shard.
    pub shards: Vec<Duration>,
    /// The submissions in each shard.
    pub shard_sizes: Vec<usize>,
    /// The server merging the shards' sums.
    pub merge: Duration,
    /// Whether the merged sums equal the whole set's (accepted clients, per-slot aggregates
    /// and XOR sums).
    pub agrees: bool,
    /// The merged per-slot aggregates, encoded as an inventory carries them (empty where a
    /// slot has none).
    pub merged_aggregates: Vec<Vec<u8>>,
    /// The clients the merge accepted.
    pub accepted: Vec<ClientId>,
}

impl WorkerSample {
    /// The slowest worker's job.
    pub fn slowest_shard(&self) -> Duration {
        self.shards.iter().copied().max().unwrap_or_default()
    }
}

/// The model's state: which servers are modelled with which worker counts, the submissions
/// seen in the round being collected, and the samples.
#[derive(Default)]
pub(super) struct WorkerModel {
    modelled: BTreeMap<ServerId, Modelled>,
    pub(super) samples: Vec<WorkerSample>,
}

struct Modelled {
    workers: Vec<usize>,
    /// The server's own clients.
    own: Vec<ClientId>,
    round: u64,
    seen: BTreeMap<ClientId, SharedBytes>,
    rng: ChaCha20Rng,
}

impl WorkerModel {
    pub(super) fn model(
        &mut self,
        server: ServerId,
        workers: Vec<usize>,
        own: Vec<ClientId>,
        seed: u64,
    ) {
        self.modelled.insert(
            server,
            Modelled {
                workers,
                own,
                round: u64::MAX,
                seen: BTreeMap::new(),
                rng: ChaCha20Rng::seed_from_u64(seed),
            },
        );
    }

    /// Called before `bytes` from `from` is delivered to `server`.
    pub(super) fn before_delivery<S: ProtoSuite, R: RngCore + CryptoRng>(
        &mut self,
        server: &Server<S, R>,
        from: Party,
        bytes: &[u8],
    ) {
        let id = server.id();
        let Some(m) = self.modelled.get_mut(&id) else {
            return;
        };
        let Party::Client(c) = from else {
            return;
        };
        if server.phase() != ServerPhase::AwaitingSubmissions {
            return;
        }
        let Ok(msg) = Received::<S::G>::parse(SharedBytes::from(bytes.to_vec())) else {
            return;
        };
        let h = msg.header();
        if h.kind != Kind::Submission || h.round != server.round() {
            return;
        }
        if m.round != h.round {
            m.round = h.round;
            m.seen.clear();
        }
        m.seen.insert(c, msg.raw().clone());
        // Every own client that is still in the session has sent its submission.
        let excluded = server.excluded();
        let expected = m.own.iter().filter(|c| !excluded.contains(c)).count();
        if m.seen.len() != expected {
            return;
        }
        let all: Vec<(ClientId, SharedBytes)> = core::mem::take(&mut m.seen).into_iter().collect();
        for &w in &m.workers {
            if let Some(sample) = run_model(server, &all, w.max(1), &mut m.rng) {
                self.samples.push(sample);
            }
        }
    }
}

/// Times `f` on a pool of one thread (a worker is one core in the model).
fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> Option<(T, Duration)> {
    par::with_threads(1, || {
        let start = Instant::now();
        let out = f();
        (out, start.elapsed())
    })
    .ok()
}

fn run_model<S: ProtoSuite, R: RngCore + CryptoRng>(
    server: &Server<S, R>,
    all: &[(ClientId, SharedBytes)],
    workers: usize,
    rng: &mut ChaCha20Rng,
) -> Option<WorkerSample> {
    let worker = server.shard_worker().ok()?;
    let bytes: Vec<SharedBytes> = all.iter().map(|(_, b)| b.clone()).collect();
    let mut whole_rng = ChaCha20Rng::from_rng(&mut *rng).ok()?;
    let (whole, whole_time) = on_one_thread(|| worker.verify(&bytes, &mut whole_rng))?;
    let whole = whole.ok()?;
    let mut parts: Vec<ShardSums<S>> = Vec::with_capacity(workers);
    let mut shards = Vec::with_capacity(workers);
    let mut shard_sizes = Vec::with_capacity(workers);
    for w in 0..workers {
        // Dealt round-robin in client order (the ids of one server's clients are themselves
        // spaced by `M`, so dealing by id would fill one shard).
        let shard: Vec<SharedBytes> = all
            .iter()
            .skip(w)
            .step_by(workers)
            .map(|(_, b)| b.clone())
            .collect();
        shard_sizes.push(shard.len());
        let mut shard_rng = ChaCha20Rng::from_rng(&mut *rng).ok()?;
        let (sums, t) = on_one_thread(|| worker.verify(&shard, &mut shard_rng))?;
        parts.push(sums.ok()?);
        shards.push(t);
    }
    let (merged, merge) = on_one_thread(|| worker.merge(&parts))?;
    let merged = merged.ok()?;
    let agrees = merged.accepted == whole.accepted
        && merged.aggregates == whole.aggregates
        && merged.xor_sums == whole.xor_sums;
    let merged_aggregates = merged
        .aggregates
        .iter()
        .map(|a| {
            a.as_ref()
                .zip(S::AGGREGATION.ops())
                .map(|(a, ops)| ops.encode_aggregate(a))
                .unwrap_or_default()
        })
        .collect();
    Some(WorkerSample {
        server: server.id(),
        round: merged.round,
        clients: all.len(),
        workers,
        whole: whole_time,
        shards,
        shard_sizes,
        merge,
        agrees,
        merged_aggregates,
        accepted: merged.accepted,
    })
}
