//! The one byte codec of every Verdict wire format: a bounds-checked, validating [`Reader`]
//! and its [`Writer`].
//!
//! It lives in the lowest crate so that every crate above (proofs, shuffles, DC-net suites,
//! protocol) frames and validates bytes the same way, and each maps [`CodecError`] into its own
//! typed error. The rules:
//!
//! - integers are little-endian (`u8`, `u32`, `u64`); counts and byte-string lengths are `u32`
//!   prefixes;
//! - points and scalars use the group's canonical encodings and are validated on reading
//!   ([`Group::from_bytes`]: canonical form, subgroup membership);
//! - a count read from the input ([`Reader::count`], [`Reader::bytes`], [`Reader::byte_slices`])
//!   is bounded by the reader's limit **and** by what the rest of the input can hold, so a
//!   hostile length prefix never makes a decoder allocate more than its input;
//! - a count the caller supplies ([`Reader::points`], [`Reader::scalars`]) never reserves more
//!   than the remaining input can hold;
//! - [`Reader::finish`] rejects trailing bytes: encodings are canonical;
//! - nothing panics, whatever the input.

use thiserror::Error;

use crate::error::DecodeError;
use crate::traits::{Group, Scalar};

/// Why bytes do not decode: every error says where in the input it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The input ends before the field at `offset` is complete.
    #[error("truncated input at offset {offset}: needed {needed} bytes, {available} available")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// Bytes remain after a complete encoding.
    #[error("{extra} trailing bytes at offset {offset}")]
    TrailingBytes {
        /// Where the complete encoding ends.
        offset: usize,
        /// Number of bytes left over.
        extra: usize,
    },
    /// A fixed tag (message type or version) does not match.
    #[error("wrong tag at offset {offset}")]
    BadTag {
        /// Where the tag starts.
        offset: usize,
    },
    /// A count or length is larger than the limit or than the rest of the input can hold.
    #[error("count {count} at offset {offset} out of range (max {max})")]
    Count {
        /// Where the count is (its prefix, or the field it sizes).
        offset: usize,
        /// The count.
        count: u64,
        /// The largest count accepted there.
        max: u64,
    },
    /// A point or scalar failed validation.
    #[error("invalid {field} at offset {offset}: {source}")]
    Invalid {
        /// Which field (e.g. `"commitment"`, `"response"`).
        field: &'static str,
        /// Where it starts.
        offset: usize,
        /// What is wrong with it.
        source: DecodeError,
    },
}

/// Reads fields from untrusted bytes; every read is bounds-checked and every point and scalar
/// validated.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    max_count: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`; counts are bounded by the input alone.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            max_count: usize::MAX,
        }
    }

    /// The same reader with counts and byte-string lengths read from the input also bounded
    /// by `max` (a protocol-wide cap on any one field).
    pub fn with_max_count(mut self, max: usize) -> Self {
        self.max_count = max;
        self
    }

    /// Bytes read so far: the offset of the next field.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Takes `n` raw bytes (of a length both sides know), without copying.
    pub fn raw(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        let rest = &self.bytes[self.pos..];
        if rest.len() < n {
            return Err(CodecError::Truncated {
                offset: self.pos,
                needed: n,
                available: rest.len(),
            });
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    /// Takes `N` raw bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.raw(N)?);
        Ok(out)
    }

    /// Takes everything not read yet (a trailing field whose length is the rest).
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        out
    }

    /// The bytes read since `offset` (an earlier [`Reader::offset`]), without copying: the
    /// validated encoding of a group of fields, which a transcript can absorb as read.
    pub fn since(&self, offset: usize) -> &'a [u8] {
        &self.bytes[offset.min(self.pos)..self.pos]
    }

    /// Reads a byte.
    pub fn u8(&mut self) -> Result<u8, CodecError> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, CodecError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Reads a little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, CodecError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Checks that the next bytes are exactly `tag`.
    pub fn tag(&mut self, tag: &[u8]) -> Result<(), CodecError> {
        let offset = self.pos;
        if self.raw(tag.len())? == tag {
            Ok(())
        } else {
            Err(CodecError::BadTag { offset })
        }
    }

    /// Reads a `u32` count of items that take at least one byte each: bounded by the limit
    /// and by the remaining input.
    pub fn count(&mut self) -> Result<usize, CodecError> {
        self.count_sized(1)
    }

    /// Reads a `u32` count of items that take at least `min_item_len` bytes each (at least 1):
    /// bounded by the limit and by `remaining / min_item_len`, so allocating the items up front
    /// costs no more than the input.
    pub fn count_sized(&mut self, min_item_len: usize) -> Result<usize, CodecError> {
        let offset = self.pos;
        let count = self.u32()?;
        let fit = self.remaining() / min_item_len.max(1);
        let max = self.max_count.min(fit);
        match usize::try_from(count) {
            Ok(n) if n <= max => Ok(n),
            _ => Err(CodecError::Count {
                offset,
                count: u64::from(count),
                max: max as u64,
            }),
        }
    }

    /// Reads a `u32`-length-prefixed byte string, without copying.
    pub fn bytes(&mut self) -> Result<&'a [u8], CodecError> {
        let n = self.count()?;
        self.raw(n)
    }

    /// Reads a counted list of length-prefixed byte strings, without copying them (a list can
    /// carry megabytes).
    pub fn byte_slices(&mut self) -> Result<Vec<&'a [u8]>, CodecError> {
        // Each item has at least its 4-byte length prefix.
        let n = self.count_sized(4)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.bytes()?);
        }
        Ok(out)
    }

    /// Reads a counted list of length-prefixed byte strings, copied.
    pub fn byte_list(&mut self) -> Result<Vec<Vec<u8>>, CodecError> {
        Ok(self
            .byte_slices()?
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect())
    }

    /// The raw bytes of `n` fixed-size items of `item_len` bytes, checked against the
    /// remaining input before anything else happens.
    fn items(&mut self, n: usize, item_len: usize) -> Result<&'a [u8], CodecError> {
        let len = n.checked_mul(item_len).ok_or(CodecError::Count {
            offset: self.pos,
            count: n as u64,
            max: (usize::MAX / item_len.max(1)) as u64,
        })?;
        self.raw(len)
    }

    /// A validated point (the identity is a group element and is accepted).
    pub fn point<G: Group>(&mut self, field: &'static str) -> Result<G, CodecError> {
        let offset = self.pos;
        G::from_bytes(self.raw(G::ENCODED_LEN)?).map_err(invalid(field, offset))
    }

    /// A validated point other than the identity.
    pub fn point_nonidentity<G: Group>(&mut self, field: &'static str) -> Result<G, CodecError> {
        let offset = self.pos;
        G::from_bytes_nonidentity(self.raw(G::ENCODED_LEN)?).map_err(invalid(field, offset))
    }

    /// `n` validated points.
    pub fn points<G: Group>(
        &mut self,
        field: &'static str,
        n: usize,
    ) -> Result<Vec<G>, CodecError> {
        Ok(self.points_with_bytes(field, n)?.0)
    }

    /// `n` validated points and their encodings as read (which a transcript can absorb
    /// without encoding the points again).
    pub fn points_with_bytes<G: Group>(
        &mut self,
        field: &'static str,
        n: usize,
    ) -> Result<(Vec<G>, &'a [u8]), CodecError> {
        let start = self.pos;
        let bytes = self.items(n, G::ENCODED_LEN)?;
        let points = bytes
            .chunks_exact(G::ENCODED_LEN)
            .enumerate()
            .map(|(i, c)| G::from_bytes(c).map_err(invalid(field, start + i * G::ENCODED_LEN)))
            .collect::<Result<Vec<G>, _>>()?;
        Ok((points, bytes))
    }

    /// A validated (canonical) scalar.
    pub fn scalar<S: Scalar>(&mut self, field: &'static str) -> Result<S, CodecError> {
        let offset = self.pos;
        S::from_bytes(self.raw(S::ENCODED_LEN)?).map_err(invalid(field, offset))
    }

    /// `n` validated scalars, read in order: the first missing or invalid one is the error.
    pub fn scalars<S: Scalar>(
        &mut self,
        field: &'static str,
        n: usize,
    ) -> Result<Vec<S>, CodecError> {
        // Reserve no more than the input can hold, whatever `n` the caller passes.
        let mut out = Vec::with_capacity(n.min(self.remaining() / S::ENCODED_LEN.max(1)));
        for _ in 0..n {
            out.push(self.scalar(field)?);
        }
        Ok(out)
    }

    /// Fails unless all input was consumed (no trailing bytes: encodings are canonical).
    pub fn finish(&self) -> Result<(), CodecError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(CodecError::TrailingBytes {
                offset: self.pos,
                extra,
            }),
        }
    }
}

/// The error for an invalid `field` at `offset`.
fn invalid(field: &'static str, offset: usize) -> impl Fn(DecodeError) -> CodecError {
    move |source| CodecError::Invalid {
        field,
        offset,
        source,
    }
}

/// Appends fields in the [`Reader`]'s format.
#[derive(Clone, Default, Debug)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            buf: Vec::with_capacity(n),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends a byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// Appends a little-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a little-endian `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends raw bytes of a length the reader knows.
    pub fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(v);
        self
    }

    /// Appends a `u32` count. Counts that do not fit saturate to `u32::MAX`, which no reader
    /// accepts for real input (its items cannot fit), so such an encoding fails to decode
    /// instead of decoding as something else.
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Appends a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.count(v.len());
        self.raw(v)
    }

    /// Appends a counted list of length-prefixed byte strings.
    pub fn byte_list<T: AsRef<[u8]>>(&mut self, items: &[T]) -> &mut Self {
        self.count(items.len());
        for i in items {
            self.bytes(i.as_ref());
        }
        self
    }

    /// Appends a point's canonical encoding.
    pub fn point<G: Group>(&mut self, p: &G) -> &mut Self {
        self.raw(p.to_bytes().as_ref())
    }

    /// Appends a scalar's canonical encoding.
    pub fn scalar<S: Scalar>(&mut self, s: &S) -> &mut Self {
        self.raw(s.to_bytes().as_ref())
    }

    /// The encoding, leaving the writer empty.
    pub fn finish(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.buf)
    }

    /// The encoding.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::Ristretto255;

    type S = <Ristretto255 as Group>::Scalar;

    #[test]
    fn integers_and_byte_strings_round_trip() {
        let mut w = Writer::new();
        w.u8(7).u32(0x0102_0304).u64(u64::MAX - 1).bytes(b"abc");
        w.byte_list(&[b"x".to_vec(), Vec::new()]).raw(b"TAG!");
        let bytes = w.finish();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u32().unwrap(), 0x0102_0304);
        assert_eq!(r.u64().unwrap(), u64::MAX - 1);
        assert_eq!(r.bytes().unwrap(), b"abc");
        assert_eq!(r.byte_slices().unwrap(), vec![&b"x"[..], &b""[..]]);
        r.tag(b"TAG!").unwrap();
        assert_eq!(r.since(bytes.len() - 4), b"TAG!");
        r.finish().unwrap();
    }

    /// The reader's position accessors and the copying list reader: `offset` counts what was
    /// read, `is_empty` says whether anything is left, `rest` takes exactly the unread tail,
    /// `byte_list` copies what `byte_slices` would view.
    #[test]
    fn positions_rest_and_copied_lists() {
        let mut w = Writer::new();
        w.u32(9)
            .byte_list(&[b"ab".to_vec(), b"c".to_vec()])
            .raw(b"tail");
        let bytes = w.finish();
        let mut r = Reader::new(&bytes);
        assert_eq!((r.offset(), r.is_empty()), (0, false));
        r.u32().unwrap();
        assert_eq!(r.offset(), 4);
        assert_eq!(r.byte_list().unwrap(), vec![b"ab".to_vec(), b"c".to_vec()]);
        assert_eq!(r.offset(), bytes.len() - 4);
        assert!(!r.is_empty());
        assert_eq!(r.rest(), b"tail");
        assert_eq!(
            (r.offset(), r.is_empty(), r.rest()),
            (bytes.len(), true, &b""[..])
        );
        r.finish().unwrap();
    }

    #[test]
    fn writer_length() {
        let mut w = Writer::with_capacity(64);
        assert_eq!((w.len(), w.is_empty()), (0, true));
        w.u32(1).bytes(b"xy");
        assert_eq!((w.len(), w.is_empty()), (10, false));
        let copy = w.clone();
        assert_eq!(w.finish(), [1, 0, 0, 0, 2, 0, 0, 0, b'x', b'y']);
        assert!(w.is_empty(), "finish leaves the writer empty");
        assert_eq!(copy.into_bytes(), [1, 0, 0, 0, 2, 0, 0, 0, b'x', b'y']);
    }

    #[test]
    fn hostile_counts_are_bounded_by_the_input() {
        let mut w = Writer::new();
        w.u32(u32::MAX).raw(&[0; 8]);
        let bytes = w.finish();
        assert_eq!(
            Reader::new(&bytes).count(),
            Err(CodecError::Count {
                offset: 0,
                count: u64::from(u32::MAX),
                max: 8
            })
        );
        // Two list items need at least 8 bytes; 7 are left.
        let bytes = [2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7];
        assert!(matches!(
            Reader::new(&bytes).byte_slices(),
            Err(CodecError::Count { max: 1, .. })
        ));
        let bytes = [3, 0, 0, 0, 1, 2, 3];
        assert_eq!(
            Reader::new(&bytes).with_max_count(2).bytes(),
            Err(CodecError::Count {
                offset: 0,
                count: 3,
                max: 2
            })
        );
        assert_eq!(Reader::new(&bytes).bytes().unwrap(), &[1, 2, 3]);
        // A caller-supplied count larger than the input allocates nothing and fails.
        // A count whose byte length overflows names the largest count that would not.
        assert_eq!(
            Reader::new(&bytes).points::<Ristretto255>("P", usize::MAX / 2),
            Err(CodecError::Count {
                offset: 0,
                count: (usize::MAX / 2) as u64,
                max: (usize::MAX / 32) as u64
            })
        );
        assert!(matches!(
            Reader::new(&bytes).scalars::<S>("s", 1 << 20),
            Err(CodecError::Truncated {
                offset: 0,
                needed: 32,
                available: 7
            })
        ));
    }

    #[test]
    fn truncation_trailing_bytes_and_tags_are_typed() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(
            r.u32(),
            Err(CodecError::Truncated {
                offset: 0,
                needed: 4,
                available: 3
            })
        );
        assert_eq!(r.u8().unwrap(), 1);
        assert_eq!(
            r.finish(),
            Err(CodecError::TrailingBytes {
                offset: 1,
                extra: 2
            })
        );
        assert_eq!(r.tag(b"ab"), Err(CodecError::BadTag { offset: 1 }));
        assert!(r.is_empty());
    }

    #[test]
    fn points_and_scalars_are_validated_with_their_offsets() {
        let g = Ristretto255::generator();
        let s = S::from_u64(5);
        let mut w = Writer::new();
        w.point(&g).point(&Ristretto255::identity()).scalar(&s);
        let mut bytes = w.finish();
        let mut r = Reader::new(&bytes);
        let (points, raw) = r.points_with_bytes::<Ristretto255>("P", 2).unwrap();
        assert_eq!(points, vec![g, Ristretto255::identity()]);
        assert_eq!(raw, &bytes[..64]);
        assert_eq!(r.scalars::<S>("s", 1).unwrap(), vec![s]);
        r.finish().unwrap();
        assert!(matches!(
            Reader::new(&bytes[32..]).point_nonidentity::<Ristretto255>("Q"),
            Err(CodecError::Invalid {
                field: "Q",
                offset: 0,
                source: DecodeError::Identity
            })
        ));
        // An invalid point is reported at its own offset, counted from where the list began.
        let mut bad = vec![0u8; 4];
        bad.extend_from_slice(&bytes[..64]);
        bad[4 + 32 + 31] = 0xff;
        let mut r = Reader::new(&bad);
        r.u32().unwrap();
        assert!(matches!(
            r.points_with_bytes::<Ristretto255>("P", 2),
            Err(CodecError::Invalid {
                field: "P",
                offset: 36,
                ..
            })
        ));
        bytes[64 + 31] = 0xff;
        let mut r = Reader::new(&bytes);
        r.points::<Ristretto255>("P", 2).unwrap();
        assert!(matches!(
            r.scalar::<S>("s"),
            Err(CodecError::Invalid {
                field: "s",
                offset: 64,
                ..
            })
        ));
    }

    proptest::proptest! {
        /// Any sequence of reads over any input returns values or typed errors, never panics,
        /// and never moves past the end.
        #[test]
        fn arbitrary_reads_never_panic(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            ops in proptest::collection::vec(0u8..12, 0..24),
            max in 0usize..64,
        ) {
            let mut r = Reader::new(&bytes).with_max_count(max);
            for op in ops {
                let _ = match op {
                    0 => r.u8().map(drop),
                    1 => r.u32().map(drop),
                    2 => r.u64().map(drop),
                    3 => r.bytes().map(drop),
                    4 => r.byte_slices().map(drop),
                    5 => r.byte_list().map(drop),
                    6 => r.count().map(drop),
                    7 => r.point::<Ristretto255>("P").map(drop),
                    8 => r.points_with_bytes::<Ristretto255>("P", max).map(drop),
                    9 => r.scalars::<S>("s", max).map(drop),
                    10 => r.tag(b"ab"),
                    _ => r.finish(),
                };
                proptest::prop_assert!(r.offset() <= bytes.len());
            }
        }
    }
}
