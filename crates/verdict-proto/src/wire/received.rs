//! Messages kept as they arrived: [`SharedBytes`], a byte string inside a shared buffer, and
//! [`Received`], a decoded envelope that keeps the exact bytes its sender signed.
//!
//! Evidence must be the signed bytes themselves, not a re-encoding of what we decoded: a
//! re-encoding is only the same bytes while every decoder in the chain is canonical, and
//! checking that is the job of whoever reads the evidence, not an assumption of whoever keeps
//! it. Keeping the received buffer also saves the copies: a client submission inside a
//! server's inventory, the inventory, and every slot ciphertext in it are all views of the one
//! buffer that arrived.

use core::ops::{Deref, Range};
use std::sync::Arc;

use verdict_group::Group;

use verdict_nizk::Signature;

use super::envelope::{ENVELOPE_HEADER_LEN, Envelope, Header, SignedHeader};
use crate::error::WireError;

/// A byte string inside a shared, immutable buffer: cloning and slicing never copy.
#[derive(Clone)]
pub struct SharedBytes {
    buf: Arc<[u8]>,
    range: Range<usize>,
}

impl SharedBytes {
    /// All of `buf`.
    pub fn new(buf: Arc<[u8]>) -> Self {
        let range = 0..buf.len();
        Self { buf, range }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.buf.get(self.range.clone()).unwrap_or_default()
    }

    /// The part `range` (relative to these bytes), if inside them.
    pub fn slice(&self, range: Range<usize>) -> Option<Self> {
        if range.start > range.end || range.end > self.range.len() {
            return None;
        }
        Some(Self {
            buf: Arc::clone(&self.buf),
            range: self.range.start + range.start..self.range.start + range.end,
        })
    }

    /// Where `part`, a slice borrowed from these bytes (what a decoder returned), lies within
    /// them; `None` if it is not inside them.
    pub fn range_of(&self, part: &[u8]) -> Option<Range<usize>> {
        let base = self.as_slice().as_ptr() as usize;
        let start = (part.as_ptr() as usize).checked_sub(base)?;
        let end = start.checked_add(part.len())?;
        (end <= self.len()).then_some(start..end)
    }

    /// `part`, a slice borrowed from these bytes, as shared bytes of its own (no copy).
    pub fn share(&self, part: &[u8]) -> Option<Self> {
        self.slice(self.range_of(part)?)
    }

    /// The buffer these bytes are a view of (tests: whether two views share it).
    pub fn buffer(&self) -> &Arc<[u8]> {
        &self.buf
    }
}

impl Deref for SharedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl PartialEq for SharedBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SharedBytes {}

impl PartialEq<[u8]> for SharedBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl core::fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl From<Arc<[u8]>> for SharedBytes {
    fn from(buf: Arc<[u8]>) -> Self {
        Self::new(buf)
    }
}

impl From<Vec<u8>> for SharedBytes {
    fn from(bytes: Vec<u8>) -> Self {
        Self::new(bytes.into())
    }
}

impl From<&[u8]> for SharedBytes {
    fn from(bytes: &[u8]) -> Self {
        Self::new(bytes.into())
    }
}

/// A message as it arrived: its decoded signed header, and the exact bytes its sender signed
/// (the evidence, should it come to that), with its payload a view of them.
///
/// [`crate::GroupConfig::open`] makes one from a peer's bytes after checking the sender, the
/// session and the signature, so a `Received` handed to a handler is verified; inside the
/// crate, envelopes relayed in another message are parsed into one and verified (in batches)
/// before use.
#[derive(Clone)]
pub struct Received<G: Group> {
    signed: SignedHeader<G>,
    raw: SharedBytes,
    payload: Range<usize>,
}

impl<G: Group> Received<G> {
    /// Decodes `raw` (the header, signature encoding, payload and its digest), keeping the
    /// bytes; the signature is not verified here.
    pub(crate) fn parse(raw: SharedBytes) -> Result<Self, WireError> {
        let (signed, payload) = Envelope::<G>::parse(&raw)?;
        let payload = raw.range_of(payload).ok_or(WireError::Invalid("payload"))?;
        Ok(Self {
            signed,
            raw,
            payload,
        })
    }

    /// Our own sealed message, encoded once: the bytes that go out are the bytes we keep.
    pub(crate) fn sealed(env: Envelope<G>) -> Self {
        let (signed, payload_len) = (env.signed.clone(), env.payload.len());
        let raw = SharedBytes::new(env.into_shared());
        // The encoding ends with the payload.
        let payload = raw.len().saturating_sub(payload_len)..raw.len();
        Self {
            signed,
            raw,
            payload,
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.signed.header
    }

    /// The header with its signature.
    pub fn signed(&self) -> &SignedHeader<G> {
        &self.signed
    }

    /// The signed header's bytes as received (the message's prefix): what an equivocation
    /// proof carries.
    pub fn signed_header_bytes(&self) -> &[u8] {
        let len = ENVELOPE_HEADER_LEN + Signature::<G>::ENCODED_LEN;
        self.raw.get(..len).unwrap_or_default()
    }

    /// The payload (a view of the received bytes).
    pub fn payload(&self) -> &[u8] {
        self.raw.get(self.payload.clone()).unwrap_or_default()
    }

    /// The payload as shared bytes (for keeping parts of it without a copy).
    pub fn shared_payload(&self) -> SharedBytes {
        self.raw
            .slice(self.payload.clone())
            .unwrap_or_else(|| SharedBytes::from(Vec::new()))
    }

    /// The whole message exactly as received: what its sender signed.
    pub fn raw(&self) -> &SharedBytes {
        &self.raw
    }
}

impl<G: Group> PartialEq for Received<G> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<G: Group> Eq for Received<G> {}

impl<G: Group> core::fmt::Debug for Received<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Received")
            .field("header", self.header())
            .field("len", &self.raw.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_dcnet::{ClientId, Party};
    use verdict_group::Ristretto255;
    use verdict_nizk::SigningKey;

    use super::*;
    use crate::wire::Kind;

    fn sealed(payload: &[u8]) -> Envelope<Ristretto255> {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let key = SigningKey::<Ristretto255>::generate(&mut rng);
        let sender = Party::Client(ClientId(2));
        Envelope::seal(
            &key,
            Kind::Rebuttal,
            sender,
            [1; 32],
            4,
            payload.to_vec(),
            &mut rng,
        )
    }

    #[test]
    fn views_share_the_buffer_and_stay_inside_it() {
        let all = SharedBytes::from(b"0123456789".to_vec());
        let mid = all.slice(2..6).unwrap();
        assert_eq!(&mid[..], b"2345");
        assert!(Arc::ptr_eq(mid.buffer(), all.buffer()));
        let inner = mid.slice(1..3).unwrap();
        assert_eq!(&inner[..], b"34");
        assert!(mid.slice(3..5).is_none());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = mid.slice(3..1);
        assert!(reversed.is_none());
        assert_eq!(mid.range_of(&all[3..5]), Some(1..3));
        assert_eq!(mid.range_of(&all[5..7]), None);
        assert_eq!(mid.range_of(&all[0..1]), None);
        let elsewhere = b"2345".to_vec();
        assert_eq!(mid.share(&elsewhere), None);
        assert_eq!(mid, SharedBytes::from(elsewhere));
    }

    #[test]
    fn a_parsed_message_keeps_its_bytes_and_its_payload_is_a_view_of_them() {
        let env = sealed(b"no objection");
        let bytes = SharedBytes::from(env.to_bytes());
        let received = Received::<Ristretto255>::parse(bytes.clone()).unwrap();
        assert!(Arc::ptr_eq(received.raw().buffer(), bytes.buffer()));
        assert_eq!(received.raw(), &bytes);
        assert_eq!(received.payload(), b"no objection");
        assert_eq!(received.signed(), &env.signed);
        assert_eq!(&received.shared_payload()[..], b"no objection");
        assert_eq!(received.signed_header_bytes(), &env.signed.to_bytes()[..]);
        let own = Received::sealed(env.clone());
        assert_eq!(own.raw()[..], env.to_bytes()[..]);
        assert_eq!(own.payload(), b"no objection");
        assert_eq!(own, received);
        let mut bad = env.to_bytes();
        *bad.last_mut().unwrap() ^= 1;
        assert!(Received::<Ristretto255>::parse(bad.into()).is_err());
    }
}
