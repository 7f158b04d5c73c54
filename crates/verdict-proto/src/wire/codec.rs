//! The length-framed codec every payload uses: little-endian integers, `u32`-length-prefixed
//! byte strings and lists, every read bounds-checked, counts bounded by the input, and no
//! trailing bytes (encodings are canonical).

use verdict_dcnet::{ClientId, Party, ServerId};

use crate::error::WireError;

/// Upper bound on any list length or byte-string length a decoder accepts (64 MiB): protects
/// against allocation bombs from a hostile length prefix.
pub const MAX_FIELD: usize = 1 << 26;

/// Appends length-framed fields.
#[derive(Default, Debug)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
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
    /// Appends a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.count(v.len());
        self.buf.extend_from_slice(v);
        self
    }
    /// Appends a `u32` length prefix (lengths here are bounded far below `u32::MAX`).
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }
    /// Appends a party (role byte and index).
    pub fn party(&mut self, p: Party) -> &mut Self {
        match p {
            Party::Client(c) => self.u8(0).u32(c.0),
            Party::Server(s) => self.u8(1).u32(s.0),
        }
    }
    /// The encoding.
    pub fn finish(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.buf)
    }
}

/// Reads length-framed fields; every read is bounds-checked.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }
    /// Takes `n` raw bytes.
    pub fn raw(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(WireError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    /// Takes `N` raw bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.raw(N)?);
        Ok(out)
    }
    /// Reads a byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.array::<1>()?[0])
    }
    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// Reads a little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Reads a length prefix, bounded by [`MAX_FIELD`] and by the remaining input (every
    /// element takes at least one byte), so hostile lengths cannot trigger huge allocations.
    pub fn count(&mut self) -> Result<usize, WireError> {
        let n = self.u32()? as usize;
        if n > MAX_FIELD || n > self.bytes.len() {
            return Err(WireError::Truncated);
        }
        Ok(n)
    }
    /// Reads a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.count()?;
        self.raw(n)
    }
    /// Reads a list of byte strings.
    pub fn byte_list(&mut self) -> Result<Vec<Vec<u8>>, WireError> {
        Ok(self
            .byte_slices()?
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect())
    }
    /// Reads a list of byte strings without copying them (an inventory carries megabytes).
    pub fn byte_slices(&mut self) -> Result<Vec<&'a [u8]>, WireError> {
        let n = self.count()?;
        (0..n).map(|_| self.bytes()).collect()
    }
    /// Reads a party.
    pub fn party(&mut self) -> Result<Party, WireError> {
        match self.u8()? {
            0 => Ok(Party::Client(ClientId(self.u32()?))),
            1 => Ok(Party::Server(ServerId(self.u32()?))),
            _ => Err(WireError::Invalid("party role")),
        }
    }
    /// Fails unless all input was consumed (no trailing bytes: encodings are canonical).
    pub fn finish(&self) -> Result<(), WireError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(WireError::TrailingBytes)
        }
    }
}

/// Writes a list of byte strings.
pub fn write_byte_list(w: &mut Writer, items: &[Vec<u8>]) {
    w.count(items.len());
    for i in items {
        w.bytes(i);
    }
}
