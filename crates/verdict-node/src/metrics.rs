//! `--metrics ADDR`: what a member has done so far, in the Prometheus / OpenMetrics text format,
//! served over plain HTTP at `GET /metrics`.
//!
//! The figures come from the state machine's events and the bytes the driver moves, so they
//! cost nothing on the protocol path: a counter increment per event or frame. Nothing secret is
//! exported — counts, sizes and times only, no message contents, no slot of any client. The
//! endpoint is unauthenticated: bind it to loopback or a monitoring network, not the internet.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use verdict_proto::Event;

use crate::error::NodeError;

/// Longest HTTP request head read before answering (a scrape's is a few hundred bytes).
const MAX_REQUEST: usize = 8 * 1024;
/// How long a scraper may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// One member's figures (cheap to clone: every metric is shared).
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    rounds: Counter,
    round_latency: Histogram,
    participants: Gauge,
    delivered: Counter,
    exclusions: Counter,
    verdicts: Counter,
    rejected: Counter,
    halted: Gauge,
    bytes_sent: Counter,
    bytes_received: Counter,
    frames_sent: Counter,
    frames_received: Counter,
    last_round_at: Arc<std::sync::Mutex<Option<Duration>>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh set of figures, all zero.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("verdict");
        let rounds = Counter::default();
        registry.register(
            "rounds_certified",
            "Rounds certified by all servers",
            rounds.clone(),
        );
        // 5 ms to ~80 s: a hybrid round on loopback up to a large eager round.
        let round_latency = Histogram::new(exponential_buckets(0.005, 2.0, 15));
        registry.register(
            "round_interval_seconds",
            "Time between consecutive certified rounds",
            round_latency.clone(),
        );
        let participants = Gauge::default();
        registry.register(
            "round_participants",
            "Clients whose ciphertexts the last certified round combined",
            participants.clone(),
        );
        let delivered = Counter::default();
        registry.register(
            "messages_delivered",
            "Slot messages revealed",
            delivered.clone(),
        );
        let exclusions = Counter::default();
        registry.register("exclusions", "Clients excluded", exclusions.clone());
        let verdicts = Counter::default();
        registry.register("verdicts", "Blame verdicts reached", verdicts.clone());
        let rejected = Counter::default();
        registry.register(
            "messages_rejected",
            "Protocol messages refused (malformed, unexpected, duplicated)",
            rejected.clone(),
        );
        let halted = Gauge::default();
        registry.register(
            "halted",
            "1 once this member halted the session (a fault named, or a peer's alert followed)",
            halted.clone(),
        );
        let bytes_sent = Counter::default();
        registry.register(
            "sent_bytes",
            "Protocol bytes queued to peers",
            bytes_sent.clone(),
        );
        let bytes_received = Counter::default();
        registry.register(
            "received_bytes",
            "Protocol bytes received from peers",
            bytes_received.clone(),
        );
        let frames_sent = Counter::default();
        registry.register(
            "sent_messages",
            "Protocol messages queued to peers",
            frames_sent.clone(),
        );
        let frames_received = Counter::default();
        registry.register(
            "received_messages",
            "Protocol messages received from peers",
            frames_received.clone(),
        );
        Self {
            registry: Arc::new(registry),
            rounds,
            round_latency,
            participants,
            delivered,
            exclusions,
            verdicts,
            rejected,
            halted,
            bytes_sent,
            bytes_received,
            frames_sent,
            frames_received,
            last_round_at: Arc::default(),
        }
    }

    /// Counts what `event` says, `now` being the driver's clock.
    pub fn observe(&self, event: &Event, now: Duration) {
        match event {
            Event::RoundComplete { participants, .. } => {
                self.rounds.inc();
                self.participants.set(i64::from(*participants));
                if let Ok(mut last) = self.last_round_at.lock() {
                    if let Some(prev) = *last {
                        self.round_latency
                            .observe(now.saturating_sub(prev).as_secs_f64());
                    }
                    *last = Some(now);
                }
            }
            Event::Delivered { .. } => {
                self.delivered.inc();
            }
            Event::Excluded { .. } => {
                self.exclusions.inc();
            }
            Event::Verdict { .. } => {
                self.verdicts.inc();
            }
            Event::Rejected(_) => {
                self.rejected.inc();
            }
            Event::Halted { .. } | Event::PeerHalted { .. } => {
                self.halted.set(1);
            }
            _ => {}
        }
    }

    /// Counts one message of `len` bytes queued to a peer.
    pub fn sent(&self, len: usize) {
        self.frames_sent.inc();
        self.bytes_sent.inc_by(len as u64);
    }

    /// Counts one message of `len` bytes received from a peer.
    pub fn received(&self, len: usize) {
        self.frames_received.inc();
        self.bytes_received.inc_by(len as u64);
    }

    /// The figures in the OpenMetrics text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }

    /// Binds `addr` and serves `GET /metrics` until the task is dropped; returns the bound
    /// address (port 0 picks one).
    pub async fn serve(&self, addr: SocketAddr) -> Result<SocketAddr, NodeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| NodeError::Net(format!("metrics bind {addr}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| NodeError::Net(format!("metrics bind {addr}: {e}")))?;
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let me = me.clone();
                tokio::spawn(async move {
                    if let Err(e) = me.answer(stream).await {
                        tracing::debug!(error = %e, "metrics request");
                    }
                });
            }
        });
        tracing::info!(%bound, "metrics at http://{bound}/metrics");
        Ok(bound)
    }

    /// Answers one HTTP/1.x request (then closes: scrapers reconnect).
    async fn answer(&self, mut stream: TcpStream) -> std::io::Result<()> {
        let mut head = Vec::with_capacity(512);
        let mut buf = [0u8; 1024];
        let read = async {
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST {
                let n = stream.read(&mut buf).await?;
                if n == 0 {
                    break;
                }
                head.extend_from_slice(buf.get(..n).unwrap_or_default());
            }
            Ok::<_, std::io::Error>(())
        };
        tokio::time::timeout(REQUEST_TIMEOUT, read)
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
        let mut parts = line.split(|b| *b == b' ');
        let (method, path) = (parts.next(), parts.next());
        let (status, kind, body) = match (method, path) {
            (Some(b"GET"), Some(b"/metrics")) => (
                "200 OK",
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                self.render(),
            ),
            (Some(b"GET"), _) => ("404 Not Found", "text/plain", "try /metrics\n".into()),
            _ => ("405 Method Not Allowed", "text/plain", String::new()),
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(reply.as_bytes()).await?;
        stream.shutdown().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_dcnet::ClientId;

    /// Reads one metric's value from rendered text.
    fn value(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn events_and_traffic_are_counted() {
        let m = Metrics::new();
        for (round, at) in [(0, 1), (1, 3), (2, 6)] {
            m.observe(
                &Event::RoundComplete {
                    round,
                    participants: 7,
                },
                Duration::from_secs(at),
            );
        }
        m.observe(
            &Event::Delivered {
                round: 1,
                slot: 0,
                message: b"hi".to_vec(),
            },
            Duration::ZERO,
        );
        m.sent(100);
        m.sent(20);
        m.received(5);
        let text = m.render();
        assert_eq!(value(&text, "verdict_rounds_certified_total"), Some(3.0));
        assert_eq!(value(&text, "verdict_round_participants"), Some(7.0));
        assert_eq!(value(&text, "verdict_messages_delivered_total"), Some(1.0));
        assert_eq!(value(&text, "verdict_sent_bytes_total"), Some(120.0));
        assert_eq!(value(&text, "verdict_sent_messages_total"), Some(2.0));
        assert_eq!(value(&text, "verdict_received_bytes_total"), Some(5.0));
        // Two intervals (2 s and 3 s) between three rounds.
        assert_eq!(
            value(&text, "verdict_round_interval_seconds_count"),
            Some(2.0)
        );
        assert_eq!(
            value(&text, "verdict_round_interval_seconds_sum"),
            Some(5.0)
        );
        assert_eq!(value(&text, "verdict_halted"), Some(0.0));
        m.observe(
            &Event::Excluded {
                client: ClientId(1),
                reason: verdict_proto::ExclusionReason::InvalidProof { round: 2, slot: 0 },
                evidence: Vec::new(),
            },
            Duration::ZERO,
        );
        assert_eq!(value(&m.render(), "verdict_exclusions_total"), Some(1.0));
    }

    #[tokio::test]
    async fn the_endpoint_serves_metrics_and_refuses_other_paths() {
        let m = Metrics::new();
        m.sent(42);
        let addr = m.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let get = |path: &'static str| async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            out
        };
        let ok = get("/metrics").await;
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("verdict_sent_bytes_total 42"), "{ok}");
        assert!(ok.trim_end().ends_with("# EOF"), "{ok}");
        let missing = get("/other").await;
        assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    }
}
