//! The client driver.
//!
//! Clients have no protocol timers (servers drive the rounds); the driver gives set-up a
//! deadline — the policy's set-up window plus a margin — and keeps the link to the upstream
//! server up with exponential backoff; after every reconnect the client asks its server for
//! the certified rounds it missed. Messages come from stdin, one per line.

use std::future::Future;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;
use tokio::time::Instant;
use verdict_dcnet::{ClientId, Party};
use verdict_proto::{Client, ClientPhase, Event, ProtoSuite};

use crate::error::NodeError;
use crate::groupfile::Group;
use crate::keyfile::KeyFile;
use crate::metrics::Metrics;
use crate::output::{emit, event_json};
use crate::transport::link::LinkKind;
use crate::transport::peers::Net;

/// How long after the servers' set-up deadline a client still waits for its transcript.
const SETUP_MARGIN: Duration = Duration::from_secs(30);
/// Lines read from stdin and not yet handed to the state machine.
const INPUT_QUEUE: usize = 64;

/// Runs client `id` of `group` until `shutdown` resolves or the session ends.
pub async fn run<S: ProtoSuite>(
    group: Group<S>,
    id: ClientId,
    key: KeyFile,
    jammer: Option<super::jammer::Jammer>,
    metrics: Metrics,
    shutdown: impl Future<Output = ()>,
) -> Result<(), NodeError> {
    let me = Party::Client(id);
    let upstream = *group
        .config
        .upstream
        .get(id.0 as usize)
        .ok_or_else(|| NodeError::Usage(format!("{me} is not in the group")))?;
    let up = Party::Server(upstream);
    let setup_deadline = group
        .config
        .policy
        .setup_window
        .deadline
        .map(|d| Instant::now() + d + SETUP_MARGIN);
    let keys = key.verdict_keys::<S::G>()?;
    let (net, mut inbound) = Net::new(
        me,
        key.transport.clone(),
        group.session.to_vec(),
        group.dir.clone(),
        &[up],
    );
    let mut dialed = net.dialed();
    net.spawn_dialer(up, LinkKind::FromServer);
    let signing = keys.signing().clone();
    let mut jam_rng = super::rng()?;
    let mut client = Client::new(group.config, id, keys, super::rng()?)?;
    let (lines_tx, mut lines) = mpsc::channel::<Vec<u8>>(INPUT_QUEUE);
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = stdin.next_line().await {
            if lines_tx.send(line.into_bytes()).await.is_err() {
                break;
            }
        }
    });
    tokio::pin!(shutdown);
    let start = Instant::now();
    let mut input_open = true;
    loop {
        while let Some(t) = client.poll_transmit() {
            let bytes =
                match jammer.and_then(|j| j.rewrite(&client, &signing, &t.bytes, &mut jam_rng)) {
                    Some(jammed) => jammed.into(),
                    None => t.bytes,
                };
            metrics.sent(bytes.len());
            net.send(t.to, bytes);
        }
        while let Some(e) = client.poll_event() {
            metrics.observe(&e, start.elapsed());
            match &e {
                Event::Rejected(err) => tracing::warn!(error = %err, "message rejected"),
                e => {
                    if let Some(v) = event_json(e) {
                        emit(&v);
                    }
                }
            }
        }
        if client.phase() == ClientPhase::Done {
            tracing::info!(%me, "session over");
            return Ok(());
        }
        let waiting = client.phase() == ClientPhase::AwaitingSetup;
        tokio::select! {
            msg = inbound.recv() => {
                let Some((from, bytes)) = msg else { break };
                metrics.received(bytes.len());
                client.handle_message(from, bytes);
            }
            line = lines.recv(), if input_open => match line {
                Some(m) => if let Err(e) = client.submit(m) {
                    tracing::warn!(error = %e, "message not queued");
                },
                None => input_open = false,
            },
            () = super::server::sleep_until(setup_deadline.filter(|_| waiting)) => {
                return Err(NodeError::Net(format!(
                    "no set-up transcript from {up} by the set-up deadline"
                )));
            }
            Ok(()) = dialed.changed() => {
                // A (re)established link to the upstream: ask for any certified round the
                // outage made us miss (nothing during set-up, see `Client::reconnected`).
                client.reconnected();
            }
            () = &mut shutdown => break,
        }
    }
    Ok(())
}
