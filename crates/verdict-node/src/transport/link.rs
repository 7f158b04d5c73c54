//! One authenticated connection: the Noise handshake over length-delimited TCP frames, then a
//! reader half and a writer half that each keep their own nonce counter.
//!
//! Noise messages are at most 65,535 bytes, protocol messages can be megabytes (a server's
//! inventory): a message travels as chunks, each `data ‖ flag` (flag 1 on the last chunk), each
//! one Noise transport message in one frame (`u16be(len) ‖ ciphertext`). The reader reassembles
//! up to the link kind's limit and drops the connection past it. The flag comes last so that a
//! chunk decrypts straight into the message being reassembled and the flag is cut off its end,
//! and the writer encrypts each chunk straight into its output buffer: no copy of a message
//! besides the one into the chunk plaintext. Nonces are implicit and sequential (TCP is ordered),
//! so a replayed, reordered, truncated or forged frame fails decryption and ends the link.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio_util::codec::{FramedRead, FramedWrite, LengthDelimitedCodec};
use verdict_dcnet::Party;

use super::noise::{TransportKey, handshake};

/// Largest Noise message (and so TCP frame).
pub const MAX_FRAME: usize = 65_535;
/// Noise's authentication tag.
const TAG: usize = 16;
/// Plaintext bytes of a message per chunk (one byte goes to the flag).
const CHUNK: usize = MAX_FRAME - TAG - 1;
/// The frame length prefix.
const PREFIX: usize = 2;
/// The writer sends its buffer once it holds this much, even before a flush: a burst of large
/// messages takes at most this much memory beyond the messages themselves.
const WRITE_HIGH_WATER: usize = 4 * (MAX_FRAME + PREFIX);
/// How long a handshake may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest message accepted on a link, by what the peer is: inventories and set-up
/// transcripts between servers are megabytes; a client only ever sends its own set-up message,
/// submissions and rebuttals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// Server to server.
    ServerServer,
    /// A server's view of one of its clients.
    FromClient,
    /// A client's view of its upstream server.
    FromServer,
}

impl LinkKind {
    /// Largest reassembled message.
    pub fn max_message(self) -> usize {
        match self {
            Self::ServerServer => 256 << 20,
            Self::FromClient => 16 << 20,
            Self::FromServer => 128 << 20,
        }
    }
}

/// Why a link ended.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkError {
    /// The socket failed or closed.
    #[error("socket: {0}")]
    Io(#[from] std::io::Error),
    /// A Noise operation failed (bad handshake, forged/replayed/reordered frame).
    #[error("noise: {0}")]
    Noise(#[from] snow::Error),
    /// The peer closed the connection.
    #[error("closed by peer")]
    Closed,
    /// The handshake did not finish in time.
    #[error("handshake timed out")]
    Timeout,
    /// The peer's transport key is not in the roster (or not the one expected).
    #[error("unknown or unexpected transport key {0}")]
    UnknownKey(String),
    /// The peer sent a message larger than the link allows, or a malformed chunk.
    #[error("protocol violation: {0}")]
    Violation(&'static str),
}

fn codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_length(2)
        .max_frame_length(MAX_FRAME)
        .new_codec()
}

/// An established link, not yet split.
pub struct Established {
    /// The peer's transport public key.
    pub remote: [u8; 32],
    read: FramedRead<OwnedReadHalf, LengthDelimitedCodec>,
    write: FramedWrite<OwnedWriteHalf, LengthDelimitedCodec>,
    noise: Arc<snow::StatelessTransportState>,
}

/// Runs the XX handshake on `stream` (three messages), bounded by [`HANDSHAKE_TIMEOUT`].
pub async fn establish(
    stream: TcpStream,
    key: &TransportKey,
    prologue: &[u8],
    initiator: bool,
) -> Result<Established, LinkError> {
    let _ = stream.set_nodelay(true);
    tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        run_handshake(stream, key, prologue, initiator),
    )
    .await
    .map_err(|_| LinkError::Timeout)?
}

async fn run_handshake(
    stream: TcpStream,
    key: &TransportKey,
    prologue: &[u8],
    initiator: bool,
) -> Result<Established, LinkError> {
    let (r, w) = stream.into_split();
    let mut read = FramedRead::new(r, codec());
    let mut write = FramedWrite::new(w, codec());
    let mut hs = handshake(key, prologue, initiator)?;
    let mut buf = vec![0u8; MAX_FRAME];
    let mut scratch = vec![0u8; MAX_FRAME];
    // XX: -> e; <- e, ee, s, es; -> s, se. Our turn first iff we initiate.
    let mut ours = initiator;
    while !hs.is_handshake_finished() {
        if ours {
            let n = hs.write_message(&[], &mut buf)?;
            write.send(bytes_of(&buf[..n])).await?;
        } else {
            let frame = read.next().await.ok_or(LinkError::Closed)??;
            hs.read_message(&frame, &mut scratch)?;
        }
        ours = !ours;
    }
    let remote: [u8; 32] = hs
        .get_remote_static()
        .and_then(|k| k.try_into().ok())
        .ok_or(LinkError::Violation("no remote static key"))?;
    let noise = Arc::new(hs.into_stateless_transport_mode()?);
    Ok(Established {
        remote,
        read,
        write,
        noise,
    })
}

fn bytes_of(b: &[u8]) -> tokio_util::bytes::Bytes {
    tokio_util::bytes::Bytes::copy_from_slice(b)
}

impl Established {
    /// Splits into the reader and the writer of a link bound to `peer`.
    pub fn split(self, peer: Party, kind: LinkKind) -> (Reader, Writer) {
        (
            Reader {
                peer,
                read: self.read,
                noise: self.noise.clone(),
                nonce: 0,
                limit: kind.max_message(),
                partial: Vec::new(),
            },
            Writer {
                // The handshake flushed everything it wrote, so nothing is left in the codec.
                write: self.write.into_inner(),
                noise: self.noise,
                nonce: 0,
                out: Vec::new(),
            },
        )
    }
}

/// The receiving half: yields whole protocol messages.
pub struct Reader {
    /// The roster party at the other end.
    pub peer: Party,
    read: FramedRead<OwnedReadHalf, LengthDelimitedCodec>,
    noise: Arc<snow::StatelessTransportState>,
    nonce: u64,
    limit: usize,
    partial: Vec<u8>,
}

impl Reader {
    /// The next whole message (cancel-safe between frames: partial state lives in `self`).
    pub async fn recv(&mut self) -> Result<Vec<u8>, LinkError> {
        loop {
            let frame = self.read.next().await.ok_or(LinkError::Closed)??;
            // Each chunk decrypts into the tail of the message (its plaintext is 16 bytes
            // shorter than the frame); the limit is checked before growing it.
            let start = self.partial.len();
            if start + frame.len().saturating_sub(TAG + 1) > self.limit {
                return Err(LinkError::Violation("message above the link's limit"));
            }
            self.partial.resize(start + frame.len(), 0);
            let decrypted = self.noise.read_message(
                self.nonce,
                &frame,
                self.partial.get_mut(start..).unwrap_or_default(),
            );
            let n = match decrypted {
                Ok(n) => n,
                Err(e) => {
                    self.partial.truncate(start);
                    return Err(e.into());
                }
            };
            self.nonce += 1;
            self.partial.truncate(start + n);
            match (n, self.partial.pop()) {
                (0, _) | (_, None) => return Err(LinkError::Violation("empty chunk")),
                (_, Some(0)) => continue,
                (_, Some(1)) => return Ok(core::mem::take(&mut self.partial)),
                _ => return Err(LinkError::Violation("bad chunk flag")),
            }
        }
    }
}

/// The sending half.
pub struct Writer {
    write: OwnedWriteHalf,
    noise: Arc<snow::StatelessTransportState>,
    nonce: u64,
    /// Frames not yet written to the socket.
    out: Vec<u8>,
}

impl Writer {
    /// Sends one message as chunks and flushes it to the socket.
    pub async fn send(&mut self, message: &[u8]) -> Result<(), LinkError> {
        self.feed(message).await?;
        self.flush().await
    }

    /// Encrypts one message as chunks into the write buffer without writing it out, so that
    /// several queued messages leave in one write ([`Writer::flush`]). The buffer is written
    /// out by itself once it passes `WRITE_HIGH_WATER` (256 KiB), so it stays bounded.
    pub async fn feed(&mut self, message: &[u8]) -> Result<(), LinkError> {
        let mut chunks = message.chunks(CHUNK).peekable();
        if chunks.peek().is_none() {
            return self.feed_chunk(&[1]).await;
        }
        let mut plain = Vec::with_capacity(CHUNK.min(message.len()) + 1);
        while let Some(c) = chunks.next() {
            plain.clear();
            plain.extend_from_slice(c);
            plain.push(u8::from(chunks.peek().is_none()));
            self.feed_chunk(&plain).await?;
        }
        Ok(())
    }

    /// Writes out whatever [`Writer::feed`] buffered.
    pub async fn flush(&mut self) -> Result<(), LinkError> {
        let written = if self.out.is_empty() {
            Ok(())
        } else {
            self.write.write_all(&self.out).await
        };
        // Nothing is written twice: after a failure the link is gone with what it held.
        self.out.clear();
        // A burst of large messages (an inventory) must not pin its buffer for the link's
        // lifetime: most links carry a few kilobytes a round.
        if self.out.capacity() > WRITE_HIGH_WATER {
            self.out = Vec::new();
        }
        Ok(written?)
    }

    /// Appends one frame, `u16be(len) ‖ Noise ciphertext of plain`, encrypted in place.
    async fn feed_chunk(&mut self, plain: &[u8]) -> Result<(), LinkError> {
        let start = self.out.len();
        self.out.resize(start + PREFIX + plain.len() + TAG, 0);
        let sealed = self.noise.write_message(
            self.nonce,
            plain,
            self.out.get_mut(start + PREFIX..).unwrap_or_default(),
        );
        let n = match sealed {
            Ok(n) => n,
            Err(e) => {
                self.out.truncate(start);
                return Err(e.into());
            }
        };
        let Ok(len) = u16::try_from(n) else {
            self.out.truncate(start);
            return Err(LinkError::Violation("frame above 65,535 bytes"));
        };
        self.nonce += 1;
        self.out.truncate(start + PREFIX + n);
        if let Some(prefix) = self.out.get_mut(start..start + PREFIX) {
            prefix.copy_from_slice(&len.to_be_bytes());
        }
        if self.out.len() >= WRITE_HIGH_WATER {
            self.flush().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_dcnet::{ClientId, ServerId};

    async fn pair(
        prologues: (&[u8], &[u8]),
    ) -> (
        Result<Established, LinkError>,
        Result<Established, LinkError>,
    ) {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let (a, b) = (
            TransportKey::generate(&mut rng),
            TransportKey::generate(&mut rng),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (pa, pb) = (prologues.0.to_vec(), prologues.1.to_vec());
        let server = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            establish(s, &b, &pb, false).await
        });
        let client = establish(TcpStream::connect(addr).await.unwrap(), &a, &pa, true).await;
        (client, server.await.unwrap())
    }

    /// The writer of one end of an established link and the reader of the other.
    async fn linked() -> (Writer, Reader) {
        let (c, s) = pair((b"session", b"session")).await;
        let (_, w) = c
            .unwrap()
            .split(Party::Server(ServerId(0)), LinkKind::FromServer);
        let (r, _) = s
            .unwrap()
            .split(Party::Client(ClientId(0)), LinkKind::FromClient);
        (w, r)
    }

    #[tokio::test]
    async fn large_messages_are_chunked_and_reassembled() {
        let (mut w, mut r) = linked().await;
        let big: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
        for m in [Vec::new(), vec![7u8; CHUNK], big.clone()] {
            w.send(&m).await.unwrap();
            assert_eq!(r.recv().await.unwrap(), m);
        }
    }

    #[tokio::test]
    async fn fed_messages_arrive_in_order_after_one_flush() {
        let (mut w, mut r) = linked().await;
        let burst: Vec<Vec<u8>> = vec![vec![1], Vec::new(), vec![2u8; CHUNK + 5], vec![3; 10]];
        for m in &burst {
            w.feed(m).await.unwrap();
        }
        w.flush().await.unwrap();
        for m in &burst {
            assert_eq!(&r.recv().await.unwrap(), m);
        }
    }

    #[tokio::test]
    async fn a_chunk_without_a_valid_flag_ends_the_link() {
        for (chunk, why) in [(&[9u8, 9, 2][..], "bad chunk flag"), (&[], "empty chunk")] {
            let (mut w, mut r) = linked().await;
            w.feed_chunk(chunk).await.unwrap();
            w.flush().await.unwrap();
            match r.recv().await {
                Err(LinkError::Violation(v)) => assert_eq!(v, why),
                other => panic!("expected {why}, got {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_message_above_the_link_limit_ends_the_link() {
        let (mut w, mut r) = linked().await;
        let too_big = vec![1u8; LinkKind::FromClient.max_message() + 1];
        let send = tokio::spawn(async move { w.send(&too_big).await });
        assert!(matches!(r.recv().await, Err(LinkError::Violation(_))));
        drop(r);
        let _ = send.await;
    }

    #[tokio::test]
    async fn different_sessions_fail_the_handshake() {
        let (c, s) = pair((b"session a", b"session b")).await;
        assert!(c.is_err() || s.is_err());
    }
}
