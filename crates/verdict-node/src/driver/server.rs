//! The server driver.
//!
//! The server's clock moves only through `handle_timeout`: the loop calls it with the current
//! time before every batch of messages it hands in (`handle_messages`: what queued up while
//! the server was busy), and when `poll_timeout`'s deadline passes (as the simulator does).
//! Round outputs bound for clients are appended to the history before they are queued.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::time::Instant;
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_proto::wire::{Header, Kind};
use verdict_proto::{ProtoSuite, Server};

use super::catch_up::CatchUps;
use crate::error::NodeError;
use crate::groupfile::Group;
use crate::history::History;
use crate::keyfile::KeyFile;
use crate::metrics::Metrics;
use crate::output::{emit, event_json, is_durable};
use crate::transport::link::LinkKind;
use crate::transport::peers::Net;

/// Misbehaviour towards one client, for demonstrations and tests of clients moving to another
/// upstream (hidden options of `verdict server`). An honest server has none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Drop every submission of this client unseen (`--censor-client I`).
    pub censor: Option<ClientId>,
    /// From this round on, drop this client's link and refuse its connections
    /// (`--cut-client I:R`).
    pub cut: Option<(ClientId, u64)>,
    /// Drop the set-up transcript sent to this client, once, as if its connection had died
    /// with it (`--lose-transcript-to I`).
    pub lose_transcript: Option<ClientId>,
}

/// Runs server `id` of `group` until `shutdown` resolves.
pub async fn run<S: ProtoSuite>(
    group: Group<S>,
    id: ServerId,
    key: KeyFile,
    data: &Path,
    faults: Faults,
    metrics: Metrics,
    shutdown: impl Future<Output = ()>,
) -> Result<(), NodeError> {
    let me = Party::Server(id);
    let history = Arc::new(History::open(data, &group.session)?);
    let stored = history.rounds()?;
    if !stored.is_empty() {
        // The state machine cannot resume a session mid-way: replay the durable log and stop.
        for (round, bytes) in &stored {
            emit(
                &serde_json::json!({"event": "replayed_round", "round": round, "bytes": bytes.len()}),
            );
        }
        for e in history.events()? {
            emit(&serde_json::json!({"event": "replayed_event", "record": e}));
        }
        return Err(NodeError::Usage(format!(
            "{} holds {} certified rounds of this session, which cannot be resumed; history replayed",
            data.display(),
            stored.len()
        )));
    }
    let keys = key.verdict_keys::<S::G>()?;
    let addr = *group
        .dir
        .addrs
        .get(&me)
        .ok_or_else(|| NodeError::Usage(format!("{me} is not in the group")))?;
    let mut peers: Vec<Party> = (0..group.config.num_servers() as u32)
        .map(|j| Party::Server(ServerId(j)))
        .filter(|p| *p != me)
        .collect();
    // Every client, not only the roster's own: a client may move here from its upstream
    // (protocol §7.4). A queue costs nothing until something is sent to it.
    peers.extend((0..group.config.num_clients() as u32).map(|i| Party::Client(ClientId(i))));
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| NodeError::Net(format!("bind {addr}: {e}")))?;
    let (net, mut inbound) = Net::new(
        me,
        key.transport.clone(),
        group.session.to_vec(),
        group.dir.clone(),
        &peers,
    );
    net.spawn_listener(listener);
    for j in 0..id.0 {
        net.spawn_dialer(Party::Server(ServerId(j)), LinkKind::ServerServer);
    }
    tracing::info!(%me, %addr, "server listening");
    let start = Instant::now();
    let mut server = Server::new(group.config, id, keys, super::rng()?, Duration::ZERO)?;
    tokio::pin!(shutdown);
    let mut out = Outbox {
        catch_ups: CatchUps::new(Arc::clone(&history), Arc::clone(&net), None),
        net,
        history,
        stored_round: None,
        lose_transcript: faults.lose_transcript,
    };
    let mut cut = faults.cut;
    loop {
        out.flush(&mut server, &metrics, start)?;
        if let Some((c, from)) = cut
            && server.round() >= from
        {
            out.net.refuse(Party::Client(c));
            cut = None;
        }
        let deadline = server.poll_timeout().map(|t| start + t);
        tokio::select! {
            msg = inbound.recv() => {
                let Some(first) = msg else { break };
                // Whatever else queued up while the server was busy goes in with it: the
                // batch is opened (signatures, digests) on every thread at once.
                let mut batch = Vec::with_capacity(1 + inbound.len().min(BATCH_MAX - 1));
                let mut next = Some(first);
                while let Some((from, bytes)) = next {
                    metrics.received(bytes.len());
                    let censored = faults.censor.is_some_and(|c| from == Party::Client(c))
                        && Header::from_prefix(&bytes).is_ok_and(|h| h.kind == Kind::Submission);
                    if !censored {
                        batch.push((from, bytes));
                    }
                    next = (batch.len() < BATCH_MAX).then(|| inbound.try_recv().ok()).flatten();
                }
                server.handle_timeout(start.elapsed());
                server.handle_messages(batch);
            }
            () = sleep_until(deadline) => server.handle_timeout(start.elapsed()),
            () = &mut shutdown => break,
        }
    }
    tracing::info!(%me, "server stopping");
    Ok(())
}

/// The most messages handed to the server at once: a round's submissions from one server's
/// clients and the servers' step messages fit, and the batch holds no more than the inbound
/// queue already did.
const BATCH_MAX: usize = 256;

/// Sleeps until `deadline`, or forever without one.
pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Where a server's output goes: the peer queues, the durable history, the catch-ups.
struct Outbox {
    net: Arc<Net>,
    history: Arc<History>,
    catch_ups: CatchUps,
    /// The latest round output stored.
    stored_round: Option<u64>,
    /// See [`Faults::lose_transcript`].
    lose_transcript: Option<ClientId>,
}

impl Outbox {
    /// Moves the server's events out and its transmissions to the peer queues; a round output
    /// is made durable before any client can see it.
    fn flush<S: ProtoSuite, R: rand_core::RngCore + rand_core::CryptoRng>(
        &mut self,
        server: &mut Server<S, R>,
        metrics: &Metrics,
        start: Instant,
    ) -> Result<(), NodeError> {
        while let Some(e) = server.poll_event() {
            metrics.observe(&e, start.elapsed());
            match &e {
                verdict_proto::Event::Rejected(err) => {
                    tracing::warn!(error = %err, "message rejected");
                    continue;
                }
                verdict_proto::Event::CatchUpFromHistory { client, from, .. } => {
                    self.catch_ups.start(*client, *from);
                    continue;
                }
                _ => {}
            }
            if let Some(v) = event_json(&e) {
                if is_durable(&e) {
                    self.history.append_event(&v.to_string())?;
                }
                emit(&v);
            }
        }
        // Every certified output is made durable, before any copy of it is queued — also one
        // no client is sent (all of this server's clients moved elsewhere), so a client that
        // moves here later can be served every round from the history.
        for (round, bytes) in server.certified_outputs_after(self.stored_round) {
            self.history.append_round(round, &bytes)?;
            self.stored_round = Some(round);
            self.catch_ups.stored(round);
        }
        let mut resending = Vec::new();
        while let Some(t) = server.poll_transmit() {
            if let (Party::Client(c), Ok(h)) = (t.to, Header::from_prefix(&t.bytes))
                && self.lose_transcript == Some(c)
                && h.kind == Kind::SetupTranscript
            {
                self.lose_transcript = None;
                continue;
            }
            let output = match (t.to, Header::from_prefix(&t.bytes)) {
                (Party::Client(c), Ok(h)) if h.kind == Kind::RoundOutput => Some((c, h.round)),
                _ => None,
            };
            if let Some((c, round)) = output {
                if self.stored_round.is_none_or(|s| round > s) {
                    // A new output (the first of its copies, one per client).
                    self.history.append_round(round, &t.bytes)?;
                    self.stored_round = Some(round);
                    self.catch_ups.stored(round);
                } else if self.stored_round.is_some_and(|s| round < s) && !resending.contains(&c) {
                    // An older round: the state machine answers a catch-up from memory with a
                    // burst of old outputs, in order. Serve them from the history instead,
                    // paced by the client's link (a burst into a bounded queue would lose its
                    // tail).
                    resending.push(c);
                    self.catch_ups.start(c, round);
                }
                if self.catch_ups.is_serving(c) {
                    // In the history: the task serving the client sends it in its turn.
                    continue;
                }
            }
            metrics.sent(t.bytes.len());
            if !self.net.send(t.to, t.bytes)
                && let Some((c, round)) = output
            {
                // The client's queue is full (a slow link): rather than lose this output — the
                // client would wait for it forever — serve it and what follows from the
                // history as room frees up.
                self.catch_ups.start(c, round);
            }
        }
        Ok(())
    }
}
