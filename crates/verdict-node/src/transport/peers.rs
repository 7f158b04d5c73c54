//! Who this node talks to and how: one bounded outbound queue per peer, the listener that
//! admits only roster transport keys, and dialers that reconnect with exponential backoff.
//!
//! Servers dial every lower-numbered server and accept higher-numbered servers and clients;
//! clients dial their upstream server. A connection is bound to the one roster [`Party`] whose
//! transport key completed the handshake; an unknown key is dropped before any protocol work,
//! and a second connection for the same party replaces the first.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::AbortHandle;
use verdict_dcnet::Party;

use super::link::{Established, LinkError, LinkKind, establish};
use super::noise::TransportKey;

/// Messages queued for one peer before the node drops new ones (a peer that is down or slow
/// does not make the node's memory grow; the protocol's timeouts deal with the silence).
pub const PEER_QUEUE: usize = 1024;
/// The same for a server's client: about one round output per round, each up to megabytes,
/// so a client down for long holds far less; what it misses beyond this it catches up on
/// from the server's history when it is back (protocol §7.2).
pub const CLIENT_QUEUE: usize = 64;
/// Whole messages received and not yet handled by the state machine (backpressure onto TCP).
pub const INBOUND_QUEUE: usize = 1024;
/// Handshakes in progress at once (a flood of connections costs bounded memory).
const MAX_HANDSHAKES: usize = 64;
/// First and largest reconnect delay.
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// A link that lasted this long was a working one: the next reconnect starts at the first delay.
const STABLE_LINK: Duration = Duration::from_secs(5);

/// Every member's transport key, and the servers' addresses.
#[derive(Clone, Debug, Default)]
pub struct Directory {
    /// Transport public key → roster party.
    pub by_key: HashMap<[u8; 32], Party>,
    /// Each server's listening address.
    pub addrs: BTreeMap<Party, SocketAddr>,
}

struct OutQueue {
    rx: mpsc::Receiver<Arc<[u8]>>,
    /// The batch being written: kept until its flush succeeds, so that a link that fails or
    /// is replaced mid-batch (its writer future dropped) leaves it for the next link.
    pending: VecDeque<Arc<[u8]>>,
}

/// Messages written in one batch at most (the queue's capacity bounds it too).
const MAX_BATCH: usize = 64;

/// This node's network: queues, links, inbound channel.
pub struct Net {
    me: Party,
    key: TransportKey,
    prologue: Vec<u8>,
    dir: Directory,
    senders: BTreeMap<Party, mpsc::Sender<Arc<[u8]>>>,
    receivers: BTreeMap<Party, Arc<tokio::sync::Mutex<OutQueue>>>,
    inbound: mpsc::Sender<(Party, Vec<u8>)>,
    links: Mutex<HashMap<Party, AbortHandle>>,
    handshakes: Arc<Semaphore>,
    /// Links this node's dialers have established so far: a client's driver watches it to
    /// tell its state machine that the link to its upstream is back (catch-up).
    dialed: tokio::sync::watch::Sender<u64>,
    /// The peers a dialer of ours holds a link to right now.
    up: Arc<Mutex<BTreeMap<Party, std::time::Instant>>>,
    /// Peers whose connections this node refuses from now on (see [`Net::refuse`]).
    refused: Mutex<std::collections::BTreeSet<Party>>,
}

/// Marks a dialed link up while it lives (dropped when the link ends or its dialer is
/// aborted).
struct LinkUp {
    up: Arc<Mutex<BTreeMap<Party, std::time::Instant>>>,
    peer: Party,
}

impl LinkUp {
    fn new(up: &Arc<Mutex<BTreeMap<Party, std::time::Instant>>>, peer: Party) -> Self {
        up.lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(peer, std::time::Instant::now());
        Self {
            up: Arc::clone(up),
            peer,
        }
    }
}

impl Drop for LinkUp {
    fn drop(&mut self) {
        self.up
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.peer);
    }
}

impl Net {
    /// The network of `me`, which talks to `peers`; returns it with the inbound channel the
    /// node task reads.
    pub fn new(
        me: Party,
        key: TransportKey,
        prologue: Vec<u8>,
        dir: Directory,
        peers: &[Party],
    ) -> (Arc<Self>, mpsc::Receiver<(Party, Vec<u8>)>) {
        let (inbound, rx) = mpsc::channel(INBOUND_QUEUE);
        let mut senders = BTreeMap::new();
        let mut receivers = BTreeMap::new();
        for p in peers {
            let capacity = match p {
                Party::Client(_) => CLIENT_QUEUE,
                Party::Server(_) => PEER_QUEUE,
            };
            let (tx, rx) = mpsc::channel(capacity);
            senders.insert(*p, tx);
            receivers.insert(
                *p,
                Arc::new(tokio::sync::Mutex::new(OutQueue {
                    rx,
                    pending: VecDeque::new(),
                })),
            );
        }
        let net = Arc::new(Self {
            me,
            key,
            prologue,
            dir,
            senders,
            receivers,
            inbound,
            links: Mutex::new(HashMap::new()),
            handshakes: Arc::new(Semaphore::new(MAX_HANDSHAKES)),
            dialed: tokio::sync::watch::Sender::new(0),
            up: Arc::default(),
            refused: Mutex::default(),
        });
        (net, rx)
    }

    /// Queues `bytes` for `to`; `false` (and a warning) if `to` is not a peer or its queue is
    /// full.
    pub fn send(&self, to: Party, bytes: Arc<[u8]>) -> bool {
        let Some(tx) = self.senders.get(&to) else {
            tracing::warn!(%to, "no link to this party; message dropped");
            return false;
        };
        match tx.try_send(bytes) {
            Ok(()) => true,
            Err(_) => {
                tracing::warn!(%to, "outbound queue full or closed; message dropped");
                false
            }
        }
    }

    /// Queues `bytes` for `to`, waiting while its queue is full (a catch-up from the history
    /// paces itself by the link this way); `false` if `to` is not a peer.
    pub async fn send_waiting(&self, to: Party, bytes: Arc<[u8]>) -> bool {
        match self.senders.get(&to) {
            Some(tx) => tx.send(bytes).await.is_ok(),
            None => false,
        }
    }

    /// Changes whenever one of this node's dialers establishes a link (the value counts them).
    pub fn dialed(&self) -> tokio::sync::watch::Receiver<u64> {
        self.dialed.subscribe()
    }

    /// Drops the link of `peer` and refuses its connections from now on (a server cutting a
    /// client off: the hidden `verdict server --cut-client`, for tests of clients moving).
    pub fn refuse(&self, peer: Party) {
        self.refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(peer);
        let link = self
            .links
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&peer);
        if let Some(link) = link {
            link.abort();
        }
    }

    /// Whether a dialer of ours holds a link to `peer` established at least `min_age` ago (a
    /// link the peer closes as soon as it is made does not count as up).
    pub fn is_dialed_up(&self, peer: Party, min_age: Duration) -> bool {
        self.up
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&peer)
            .is_some_and(|since| since.elapsed() >= min_age)
    }

    /// The link kind to `peer`, or `None` if this node must not accept a connection from it.
    fn accepts(&self, peer: Party) -> Option<LinkKind> {
        match (self.me, peer) {
            (Party::Server(me), Party::Server(p)) if p.0 > me.0 => Some(LinkKind::ServerServer),
            (Party::Server(_), Party::Client(_)) => Some(LinkKind::FromClient),
            _ => None,
        }
    }

    /// Accepts connections on `listener` until the task is dropped.
    pub fn spawn_listener(self: &Arc<Self>, listener: TcpListener) {
        let net = self.clone();
        tokio::spawn(async move {
            loop {
                let (stream, addr) = match listener.accept().await {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(BACKOFF_MIN).await;
                        continue;
                    }
                };
                let Ok(permit) = net.handshakes.clone().try_acquire_owned() else {
                    tracing::warn!(%addr, "too many handshakes in progress; connection dropped");
                    continue;
                };
                let net = net.clone();
                tokio::spawn(async move {
                    let est = establish(stream, &net.key, &net.prologue, false).await;
                    drop(permit);
                    match est {
                        Ok(est) => net.admit(est, addr),
                        Err(e) => tracing::warn!(%addr, error = %e, "handshake failed; dropped"),
                    }
                });
            }
        });
    }

    /// Binds an accepted, authenticated connection to its roster party (or drops it).
    fn admit(self: &Arc<Self>, est: Established, addr: SocketAddr) {
        let Some(peer) = self.dir.by_key.get(&est.remote).copied() else {
            tracing::warn!(%addr, key = %hex::encode(est.remote), "unknown transport key; dropped");
            return;
        };
        let Some(kind) = self.accepts(peer) else {
            tracing::warn!(%addr, %peer, "party may not connect to this node; dropped");
            return;
        };
        if self
            .refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&peer)
        {
            tracing::warn!(%addr, %peer, "connections of this party are refused; dropped");
            return;
        }
        tracing::info!(%peer, %addr, "peer connected");
        let net = self.clone();
        let task = tokio::spawn(async move {
            let e = net.run_link(est, peer, kind).await;
            tracing::warn!(%peer, error = %e, "link closed");
        });
        let mut links = self.links.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = links.insert(peer, task.abort_handle()) {
            old.abort();
        }
    }

    /// Keeps a connection to server `peer` at `addr` up, with exponential backoff, until the
    /// returned handle aborts it (`None`: no address for `peer`).
    pub fn spawn_dialer(self: &Arc<Self>, peer: Party, kind: LinkKind) -> Option<AbortHandle> {
        let Some(addr) = self.dir.addrs.get(&peer).copied() else {
            tracing::error!(%peer, "no address for this server");
            return None;
        };
        let net = self.clone();
        let task = tokio::spawn(async move {
            let mut delay = BACKOFF_MIN;
            loop {
                let began = tokio::time::Instant::now();
                match net.dial_once(addr, peer, kind).await {
                    Ok(e) => {
                        tracing::warn!(%peer, error = %e, "link closed; reconnecting");
                        // Only a link that held starts the backoff again: a peer that closes
                        // every link at once must not be redialled ten times a second.
                        if began.elapsed() >= STABLE_LINK {
                            delay = BACKOFF_MIN;
                        }
                    }
                    Err(e) => tracing::debug!(%peer, error = %e, "connect failed"),
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(BACKOFF_MAX);
            }
        });
        Some(task.abort_handle())
    }

    async fn dial_once(
        self: &Arc<Self>,
        addr: SocketAddr,
        peer: Party,
        kind: LinkKind,
    ) -> Result<LinkError, LinkError> {
        let stream = TcpStream::connect(addr).await?;
        let est = establish(stream, &self.key, &self.prologue, true).await?;
        if self.dir.by_key.get(&est.remote) != Some(&peer) {
            return Err(LinkError::UnknownKey(hex::encode(est.remote)));
        }
        tracing::info!(%peer, %addr, "connected");
        let _up = LinkUp::new(&self.up, peer);
        self.dialed.send_modify(|n| *n += 1);
        Ok(self.run_link(est, peer, kind).await)
    }

    /// Runs a link until either half fails: the reader feeds the node, the writer drains the
    /// peer's queue.
    async fn run_link(&self, est: Established, peer: Party, kind: LinkKind) -> LinkError {
        let (mut reader, mut writer) = est.split(peer, kind);
        let Some(queue) = self.receivers.get(&peer).cloned() else {
            return LinkError::Violation("not a peer of this node");
        };
        let inbound = self.inbound.clone();
        let read = async move {
            loop {
                let msg = reader.recv().await?;
                if inbound.send((peer, msg)).await.is_err() {
                    return Err(LinkError::Closed);
                }
            }
        };
        let write = async move {
            let mut q = queue.lock_owned().await;
            loop {
                if q.pending.is_empty() {
                    match q.rx.recv().await {
                        Some(m) => q.pending.push_back(m),
                        None => return Err(LinkError::Closed),
                    }
                }
                // Everything already queued leaves in one write: a round's messages to one
                // peer often come in a burst, and each write is a system call and a TCP
                // segment. The batch stays queued until it is flushed; if the link fails
                // first, the next link sends all of it again (a message that did arrive is
                // then a byte-identical copy, which the state machines drop as a duplicate,
                // as they did for the one message a failed send used to keep).
                while q.pending.len() < MAX_BATCH {
                    match q.rx.try_recv() {
                        Ok(m) => q.pending.push_back(m),
                        Err(_) => break,
                    }
                }
                for m in &q.pending {
                    writer.feed(m).await?;
                }
                writer.flush().await?;
                q.pending.clear();
            }
        };
        let r: Result<(), LinkError> = tokio::select! {
            r = read => r,
            r = write => r,
        };
        r.err().unwrap_or(LinkError::Closed)
    }
}
