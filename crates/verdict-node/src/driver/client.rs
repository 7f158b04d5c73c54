//! The client driver.
//!
//! Clients have no protocol timers (servers drive the rounds); the driver gives set-up a
//! deadline — the policy's set-up window plus a margin — and keeps the link to the upstream
//! server up with exponential backoff; after every reconnect the client asks its server for
//! the certified rounds it missed. A client whose upstream leaves it out of two certified
//! rounds in a row, or whose link to it stays down, moves to the next server
//! (`driver/upstream.rs`). Messages come from stdin, one per line, and from a local
//! socket if one is given (`verdict client --socket`).
//!
//! With a data directory (`--data`) the client survives restarts: its set-up seed is on disk
//! before its first set-up message leaves, its set-up transcript once set-up completes, and
//! its checkpoint before each submission leaves (see [`crate::client_store`]); a restarted
//! client resumes from them, resends its last submission byte for byte, and catches up.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_proto::wire::{Header, Kind};
use verdict_proto::{Checkpoint, Client, ClientPhase, Event, ProtoSuite, SecretKeys, SetupSeed};

use crate::client_store::{ClientStore, Stored};
use crate::error::NodeError;
use crate::groupfile::Group;
use crate::keyfile::KeyFile;
use crate::metrics::Metrics;
use crate::output::{emit, event_json};
use crate::transport::peers::Net;

use super::upstream::Upstream;

/// How long after the servers' set-up deadline a client still waits for its transcript.
const SETUP_MARGIN: Duration = Duration::from_secs(30);
/// How often the client looks at its link to its upstream (see [`super::upstream`]).
const LINK_CHECK: Duration = Duration::from_secs(1);

/// Where a client keeps its state and takes its messages from.
#[derive(Clone, Debug)]
pub struct ClientOptions<'a, S: ProtoSuite> {
    /// The data directory: what a restart needs.
    pub data: Option<&'a Path>,
    /// A Unix socket applications post messages through (one message per line).
    pub socket: Option<&'a Path>,
    /// Messages from stdin, one per line.
    pub stdin: bool,
    /// Emit events as JSON lines on stdout.
    pub events: bool,
    /// Synthetic load (benchmarks): post a message of this many bytes whenever nothing is
    /// queued after a round.
    pub load: Option<usize>,
    /// A set-up verification cache shared with the other clients of this process.
    pub cache: Option<verdict_proto::SetupCache<S>>,
}

impl<S: ProtoSuite> Default for ClientOptions<'_, S> {
    fn default() -> Self {
        Self {
            data: None,
            socket: None,
            stdin: true,
            events: true,
            load: None,
            cache: None,
        }
    }
}

/// Runs client `id` of `group` until `shutdown` resolves or the session ends.
pub async fn run<S: ProtoSuite>(
    group: Group<S>,
    id: ClientId,
    key: KeyFile,
    paths: ClientOptions<'_, S>,
    jammer: Option<super::jammer::Jammer>,
    metrics: Metrics,
    shutdown: impl Future<Output = ()>,
) -> Result<(), NodeError> {
    let me = Party::Client(id);
    let roster_upstream = Party::Server(
        *group
            .config
            .upstream
            .get(id.0 as usize)
            .ok_or_else(|| NodeError::Usage(format!("{me} is not in the group")))?,
    );
    let servers = group.config.num_servers();
    let setup_deadline = group
        .config
        .policy
        .setup_window
        .deadline
        .map(|d| Instant::now() + d + SETUP_MARGIN);
    let keys = key.verdict_keys::<S::G>()?;
    // Every server is a possible upstream (protocol §7.4); the dialer follows the client.
    let all_servers: Vec<Party> = (0..servers as u32)
        .map(|j| Party::Server(ServerId(j)))
        .collect();
    let (net, mut inbound) = Net::new(
        me,
        key.transport.clone(),
        group.session.to_vec(),
        group.dir.clone(),
        &all_servers,
    );
    let mut dialed = net.dialed();
    let signing = keys.signing().clone();
    let mut jam_rng = super::rng()?;
    let store = paths
        .data
        .map(|d| ClientStore::open(d, &group.session))
        .transpose()?;
    let mut client = start::<S>(group.config, id, keys, store.as_ref())?;
    if let Some(cache) = paths.cache.clone() {
        client = client.with_setup_cache(cache);
    }
    let mut posted = 0u64;
    // A resumed client goes back to the server it had moved to.
    let mut upstream = Upstream::dial(&net, client.upstream());
    let mut link_check = tokio::time::interval(LINK_CHECK);
    link_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut durable = Durable::new(store, &client);
    let mut lines = super::input::spawn(paths.socket, paths.stdin, client.max_message_len())?;
    tokio::pin!(shutdown);
    let start = Instant::now();
    let mut input_open = true;
    loop {
        while let Some(e) = client.poll_event() {
            metrics.observe(&e, start.elapsed());
            match &e {
                Event::Rejected(err) => tracing::warn!(error = %err, "message rejected"),
                e => {
                    if let Some(v) = event_json(e).filter(|_| paths.events) {
                        emit(&v);
                    }
                }
            }
            if let (Some(len), Event::RoundComplete { .. }) = (paths.load, &e)
                && client.queued() == 0
            {
                let mut message = format!("load {} {posted} ", id.0).into_bytes();
                message.resize(len.min(client.max_message_len()).max(message.len()), b'.');
                posted += 1;
                if let Err(err) = client.submit(message) {
                    tracing::warn!(error = %err, "load message not queued");
                }
            }
            if let Some(reason) = upstream.watch.on_event(&e, Instant::now()) {
                upstream.move_on(&mut client, &net, servers, reason)?;
            }
        }
        // What a restart needs is on disk before anything it depends on leaves (the
        // checkpoint names the upstream too, so this follows any move above).
        durable.save(&client)?;
        while let Some(t) = client.poll_transmit() {
            let bytes =
                match jammer.and_then(|j| j.rewrite(&client, &signing, &t.bytes, &mut jam_rng)) {
                    Some(jammed) => jammed.into(),
                    None => t.bytes,
                };
            if Header::from_prefix(&bytes).is_ok_and(|h| h.kind == Kind::CatchUp) {
                upstream.watch.on_catch_up_sent(Instant::now());
            }
            metrics.sent(bytes.len());
            net.send(t.to, bytes);
        }
        if client.phase() == ClientPhase::Done {
            tracing::info!(%me, "session over");
            durable.ended()?;
            return Ok(());
        }
        let waiting = client.phase() == ClientPhase::AwaitingSetup;
        tokio::select! {
            msg = inbound.recv() => {
                let Some((from, bytes)) = msg else { break };
                metrics.received(bytes.len());
                let bytes: Arc<[u8]> = bytes.into();
                if Header::from_prefix(&bytes).is_ok_and(|h| h.kind == Kind::RoundOutput) {
                    upstream.watch.on_output(Instant::now());
                }
                client.handle_message(from, Arc::clone(&bytes));
                durable.received(from == roster_upstream, &bytes, &client);
            }
            line = lines.recv(), if input_open => match line {
                Some(input) => {
                    let queued = client.submit(input.message).map_err(|e| e.to_string());
                    if let Err(e) = &queued {
                        tracing::warn!(error = %e, "message not queued");
                    }
                    if let Some(reply) = input.reply {
                        let _ = reply.send(queued);
                    }
                }
                None => input_open = false,
            },
            () = super::server::sleep_until(setup_deadline.filter(|_| waiting)) => {
                return Err(NodeError::Net(format!(
                    "no set-up transcript from {roster_upstream} by the set-up deadline"
                )));
            }
            _ = link_check.tick(), if client.phase() == ClientPhase::AwaitingOutput => {
                let up = net.is_dialed_up(upstream.party, LINK_CHECK);
                let now = Instant::now();
                if let Some(reason) = upstream.watch.on_link(up, now).or_else(|| upstream.watch.on_tick(now)) {
                    upstream.move_on(&mut client, &net, servers, reason)?;
                }
            }
            Ok(()) = dialed.changed() => {
                // A re-established link to the upstream: ask for any certified round the
                // outage made us miss, or, in set-up, send the set-up message again (the
                // transcript may have been lost with the link; see `Client::reconnected`).
                // The first link carries the set-up message already.
                let links = *dialed.borrow_and_update();
                if links > 1 || client.phase() != ClientPhase::AwaitingSetup {
                    client.reconnected();
                }
            }
            () = &mut shutdown => break,
        }
    }
    Ok(())
}

type NodeClient<S> = Client<S, rand_chacha::ChaCha20Rng>;

/// The client this process runs: a fresh one, or the one its data directory holds.
fn start<S: ProtoSuite>(
    config: verdict_proto::GroupConfig<S>,
    id: ClientId,
    keys: SecretKeys<S::G>,
    store: Option<&ClientStore>,
) -> Result<NodeClient<S>, NodeError> {
    let Some(store) = store else {
        return Ok(Client::new(config, id, keys, super::rng()?)?);
    };
    match store.load()? {
        Stored::Fresh => {
            let seed = SetupSeed::generate(&mut rand_core::OsRng);
            store.save_seed(&seed)?;
            Ok(Client::new_seeded(config, id, keys, &seed, super::rng()?)?)
        }
        Stored::InSetup { seed } => {
            emit(&serde_json::json!({"event": "restarted", "phase": "setup"}));
            Ok(Client::new_seeded(config, id, keys, &seed, super::rng()?)?)
        }
        Stored::InSession {
            seed,
            transcript,
            checkpoint,
        } => {
            let round = checkpoint.round();
            let client = Client::resume(
                config,
                id,
                keys,
                &seed,
                transcript,
                &checkpoint,
                super::rng()?,
            )
            .map_err(|e| NodeError::Usage(format!("cannot resume the session: {e}")))?;
            emit(&serde_json::json!({"event": "resumed", "round": round}));
            Ok(client)
        }
        Stored::Ended { why } => Err(NodeError::Usage(format!(
            "the session is over for this client ({why}); its data directory cannot rejoin it"
        ))),
    }
}

/// Keeps the client's data directory in step with the state machine (nothing without one).
struct Durable {
    store: Option<ClientStore>,
    /// Whether the set-up transcript is on disk.
    transcript_saved: bool,
    /// The set-up transcript received and not yet on disk.
    transcript: Option<Arc<[u8]>>,
    /// The checkpoint last written.
    saved: Option<Checkpoint>,
}

impl Durable {
    fn new<S: ProtoSuite>(store: Option<ClientStore>, client: &NodeClient<S>) -> Self {
        let saved = client.checkpoint();
        Self {
            transcript_saved: saved.is_some(),
            store,
            transcript: None,
            saved,
        }
    }

    /// The client handled `bytes` (from its upstream if `upstream`): keeps the set-up
    /// transcript once the client has entered the session with it.
    fn received<S: ProtoSuite>(
        &mut self,
        upstream: bool,
        bytes: &Arc<[u8]>,
        client: &NodeClient<S>,
    ) {
        if self.store.is_some()
            && !self.transcript_saved
            && upstream
            && client.phase() == ClientPhase::AwaitingOutput
            && Header::from_prefix(bytes).is_ok_and(|h| h.kind == Kind::SetupTranscript)
        {
            self.transcript = Some(Arc::clone(bytes));
        }
    }

    /// Writes what changed: the transcript with the first checkpoint, or a newer checkpoint
    /// (call before sending).
    fn save<S: ProtoSuite>(&mut self, client: &NodeClient<S>) -> Result<(), NodeError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let now = client.checkpoint();
        if let Some(t) = self.transcript.take() {
            // The transcript only ever arrives with the first checkpoint (the client enters
            // the session and submits to round 0 on it): both in one transaction.
            if let Some(cp) = &now {
                store.save_session(&t, cp)?;
                self.transcript_saved = true;
                self.saved = now;
            }
            return Ok(());
        }
        if now.is_some() && now != self.saved {
            if let Some(cp) = &now {
                store.save_checkpoint(cp)?;
            }
            self.saved = now;
        }
        Ok(())
    }

    /// The session is over for this client: a restart must not try to rejoin.
    fn ended(&self) -> Result<(), NodeError> {
        match &self.store {
            Some(store) => store.save_ended("excluded, absent at set-up, or set-up failed"),
            None => Ok(()),
        }
    }
}
