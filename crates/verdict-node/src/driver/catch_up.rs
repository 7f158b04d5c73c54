//! Serving a client's catch-up from the durable history.
//!
//! A server's state machine keeps the last 64 certified outputs in memory and resends those
//! itself; for a client further behind (down longer, or restarted) it asks the driver instead
//! ([`verdict_proto::Event::CatchUpFromHistory`]). The node answers both from its history,
//! which holds every output this server sent its clients: a task reads it in slices and
//! queues them to the client, waiting for room in the client's queue (the link paces it, and
//! memory stays bounded however far behind the client is). The state machine's own resend — a
//! burst of up to 64 outputs — would not fit a client's bounded queue at once, so it only
//! tells the driver where to start.
//!
//! Outputs must reach a client in round order. While a task serves client `c`, the driver
//! does not send `c` the outputs it certifies meanwhile — they are in the history (stored
//! before any client sees them), and the task serves them in turn; the task stops, under the
//! same lock the driver checks, only once it has served the latest stored round. A newer
//! request from the same client replaces the task (its link may have dropped mid-way).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Semaphore;
use tokio::task::AbortHandle;
use verdict_dcnet::{ClientId, Party};

use crate::history::History;
use crate::transport::peers::Net;

/// Outputs read from the history at a time (each can be up to a few megabytes): a task holds
/// at most this many besides what sits in the client's queue.
const SLICE: usize = 4;
/// Catch-ups reading the history at once (the others wait their turn; a task waiting for room
/// in a client's queue holds no permit, so a dead link blocks nobody else).
const READERS: usize = 4;

#[derive(Default)]
struct Shared {
    /// Clients a task is serving, with the task's number (a replaced task that has not yet
    /// noticed its abort must not unregister its successor).
    serving: HashMap<ClientId, (u64, AbortHandle)>,
    /// Tasks started so far.
    started: u64,
    /// The latest round stored in the history.
    latest: Option<u64>,
}

impl Shared {
    /// Unregisters task `task` of `client`, if it is still the one serving it.
    fn finish(&mut self, client: ClientId, task: u64) {
        if self.serving.get(&client).is_some_and(|(t, _)| *t == task) {
            self.serving.remove(&client);
        }
    }
}

/// The catch-ups in progress at one server.
pub(crate) struct CatchUps {
    shared: Arc<Mutex<Shared>>,
    history: Arc<History>,
    net: Arc<Net>,
    readers: Arc<Semaphore>,
}

impl CatchUps {
    /// No catch-up in progress; `latest` is the last round in `history`.
    pub(crate) fn new(history: Arc<History>, net: Arc<Net>, latest: Option<u64>) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Shared {
                serving: HashMap::new(),
                started: 0,
                latest,
            })),
            history,
            net,
            readers: Arc::new(Semaphore::new(READERS)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        lock(&self.shared)
    }

    /// The driver stored the output of `round` (call before [`CatchUps::is_serving`]).
    pub(crate) fn stored(&self, round: u64) {
        let mut s = self.lock();
        s.latest = s.latest.max(Some(round));
    }

    /// Whether a task is serving `client` (the driver then leaves its outputs to the task).
    pub(crate) fn is_serving(&self, client: ClientId) -> bool {
        self.lock().serving.contains_key(&client)
    }

    /// Starts serving `client` every stored output from round `from` on.
    pub(crate) fn start(&self, client: ClientId, from: u64) {
        let mut s = self.lock();
        if let Some((_, old)) = s.serving.remove(&client) {
            old.abort();
        }
        s.started += 1;
        let number = s.started;
        let task = tokio::spawn(serve(
            Task {
                client,
                number,
                shared: Arc::clone(&self.shared),
            },
            from,
            Arc::clone(&self.history),
            Arc::clone(&self.net),
            Arc::clone(&self.readers),
        ));
        s.serving.insert(client, (number, task.abort_handle()));
        tracing::info!(%client, from, "catching a client up from the history");
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// One serving task's identity.
struct Task {
    client: ClientId,
    number: u64,
    shared: Arc<Mutex<Shared>>,
}

impl Task {
    fn finish(&self) {
        lock(&self.shared).finish(self.client, self.number);
    }
}

async fn serve(
    task: Task,
    mut next: u64,
    history: Arc<History>,
    net: Arc<Net>,
    readers: Arc<Semaphore>,
) {
    let client = task.client;
    let to = Party::Client(client);
    loop {
        let Ok(reading) = readers.acquire().await else {
            task.finish();
            return;
        };
        let slice = history.rounds_from(next, SLICE);
        drop(reading);
        let slice = match slice {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(%client, error = %e, "catch-up: history unreadable");
                task.finish();
                return;
            }
        };
        if slice.is_empty() {
            let done = {
                let mut s = lock(&task.shared);
                let done = s.latest.is_none_or(|l| l < next);
                if done {
                    // Everything stored is queued; later outputs go out live.
                    s.finish(client, task.number);
                }
                done
            };
            if done {
                tracing::info!(%client, next, "catch-up from the history done");
                return;
            }
            // A newer round was stored since the read: read again.
            tokio::task::yield_now().await;
            continue;
        }
        for (round, bytes) in slice {
            if !net.send_waiting(to, bytes.into()).await {
                task.finish();
                return;
            }
            next = round + 1;
        }
    }
}
