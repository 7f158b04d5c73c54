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
        // Decoding is a square root per point (a shuffle step carries thousands): long lists
        // are decoded in parallel chunks with the `parallel` feature, and the error named is
        // still the first invalid point of the list.
        let points = crate::par::try_decode_items(
            bytes,
            G::ENCODED_LEN,
            crate::par::POINTS_PER_TASK,
            |i, c| G::from_bytes(c).map_err(invalid(field, start + i * G::ENCODED_LEN)),
        )?;
        Ok((points, bytes))
    }

    /// `n` fixed-size items of `item_len` bytes, each decoded by `decode(offset, item)`
    /// (`offset`: where the item starts in the input), read in order. Long lists are decoded
    /// in parallel chunks with the `parallel` feature; the error is still the one reading item
    /// by item gives: the first item that fails to decode, or [`CodecError::Truncated`] at the
    /// first item the input does not hold in full.
    pub fn decode_items<T, E, F>(
        &mut self,
        n: usize,
        item_len: usize,
        decode: F,
    ) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send + From<CodecError>,
        F: Fn(usize, &[u8]) -> Result<T, E> + Sync + Send,
    {
        let start = self.pos;
        let whole = n.min(self.remaining() / item_len.max(1));
        let bytes = self.raw(whole * item_len)?;
        let out = crate::par::try_decode_items(
            bytes,
            item_len,
            crate::par::POINTS_PER_TASK,
            |i, item| decode(start + i * item_len, item),
        )?;
        if whole < n {
            // The serial loop's next read: the truncation error at the first missing item.
            self.raw(item_len)?;
        }
        Ok(out)
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
        // A canonicity check per scalar (a shuffle proof carries thousands): long lists are
        // decoded in parallel chunks, with the error of the serial loop.
        self.decode_items(n, S::ENCODED_LEN, |offset, item| {
            S::from_bytes(item).map_err(invalid(field, offset))
        })
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
mod tests;
