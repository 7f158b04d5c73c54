//! The server driver.
//!
//! The server's clock moves only through `handle_timeout`: the loop calls it with the current
//! time before every `handle_message`, and when `poll_timeout`'s deadline passes (as the
//! simulator does). Round outputs bound for clients are appended to the history before they
//! are queued.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::time::Instant;
use verdict_dcnet::{Party, ServerId};
use verdict_proto::wire::{Header, Kind};
use verdict_proto::{ProtoSuite, Server};

use crate::error::NodeError;
use crate::groupfile::Group;
use crate::history::History;
use crate::keyfile::KeyFile;
use crate::metrics::Metrics;
use crate::output::{emit, event_json, is_durable};
use crate::transport::link::LinkKind;
use crate::transport::peers::Net;

/// Runs server `id` of `group` until `shutdown` resolves.
pub async fn run<S: ProtoSuite>(
    group: Group<S>,
    id: ServerId,
    key: KeyFile,
    data: &Path,
    metrics: Metrics,
    shutdown: impl Future<Output = ()>,
) -> Result<(), NodeError> {
    let me = Party::Server(id);
    let history = History::open(data, &group.session)?;
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
    peers.extend(group.config.clients_of(id).into_iter().map(Party::Client));
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
    let mut stored_round = None;
    loop {
        flush(
            &mut server,
            &net,
            &history,
            &metrics,
            start,
            &mut stored_round,
        )?;
        let deadline = server.poll_timeout().map(|t| start + t);
        tokio::select! {
            msg = inbound.recv() => {
                let Some((from, bytes)) = msg else { break };
                metrics.received(bytes.len());
                server.handle_timeout(start.elapsed());
                server.handle_message(from, bytes);
            }
            () = sleep_until(deadline) => server.handle_timeout(start.elapsed()),
            () = &mut shutdown => break,
        }
    }
    tracing::info!(%me, "server stopping");
    Ok(())
}

/// Sleeps until `deadline`, or forever without one.
pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Moves the server's transmissions to the peer queues and its events out; a round output is
/// made durable before any client can see it.
fn flush<S: ProtoSuite, R: rand_core::RngCore + rand_core::CryptoRng>(
    server: &mut Server<S, R>,
    net: &Arc<Net>,
    history: &History,
    metrics: &Metrics,
    start: Instant,
    stored_round: &mut Option<u64>,
) -> Result<(), NodeError> {
    while let Some(e) = server.poll_event() {
        metrics.observe(&e, start.elapsed());
        if let verdict_proto::Event::Rejected(err) = &e {
            tracing::warn!(error = %err, "message rejected");
            continue;
        }
        if let Some(v) = event_json(&e) {
            if is_durable(&e) {
                history.append_event(&v.to_string())?;
            }
            emit(&v);
        }
    }
    while let Some(t) = server.poll_transmit() {
        if matches!(t.to, Party::Client(_))
            && let Ok(h) = Header::from_prefix(&t.bytes)
            && h.kind == Kind::RoundOutput
            && stored_round.is_none_or(|s| h.round > s)
        {
            // Outputs resent to a reconnecting client (catch-up) are older: stored already.
            history.append_round(h.round, &t.bytes)?;
            *stored_round = Some(h.round);
        }
        metrics.sent(t.bytes.len());
        net.send(t.to, t.bytes);
    }
    Ok(())
}
