//! The protocol's use of the one workspace codec ([`verdict_group::codec`]): the bound on any
//! field a payload decoder accepts, parties on the wire, and how codec errors become
//! [`WireError`]s. Integers are little-endian, byte strings and lists `u32`-length-prefixed,
//! every read bounds-checked, counts bounded by the input, and no trailing bytes.

use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_group::codec::CodecError;
pub use verdict_group::codec::{Reader, Writer};

use crate::error::WireError;

/// Upper bound on any list length or byte-string length a payload decoder accepts (64 MiB),
/// on top of the codec's bound by the remaining input.
pub const MAX_FIELD: usize = 1 << 26;

/// A reader over a payload, its counts bounded by [`MAX_FIELD`].
pub fn reader(bytes: &[u8]) -> Reader<'_> {
    Reader::new(bytes).with_max_count(MAX_FIELD)
}

/// Writes a list of byte strings (shorthand for [`Writer::byte_list`]).
pub fn write_byte_list(w: &mut Writer, items: &[Vec<u8>]) {
    w.byte_list(items);
}

/// Reading a [`Party`]: role byte (0 client, 1 server) and `u32` index.
pub trait ReadParty {
    /// Reads a party.
    fn party(&mut self) -> Result<Party, WireError>;
}

impl ReadParty for Reader<'_> {
    fn party(&mut self) -> Result<Party, WireError> {
        match self.u8()? {
            0 => Ok(Party::Client(ClientId(self.u32()?))),
            1 => Ok(Party::Server(ServerId(self.u32()?))),
            _ => Err(WireError::Invalid("party role")),
        }
    }
}

/// Writing a [`Party`] (see [`ReadParty`]).
pub trait WriteParty {
    /// Appends a party.
    fn party(&mut self, p: Party) -> &mut Self;
}

impl WriteParty for Writer {
    fn party(&mut self, p: Party) -> &mut Self {
        match p {
            Party::Client(c) => self.u8(0).u32(c.0),
            Party::Server(s) => self.u8(1).u32(s.0),
        }
    }
}

/// The protocol's errors keep their coarse, stable shape (what a peer is told): an input that
/// ends early or whose counts do not fit is truncated.
impl From<CodecError> for WireError {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::TrailingBytes { .. } => Self::TrailingBytes,
            CodecError::BadTag { .. } => Self::Invalid("tag"),
            CodecError::Invalid { field, .. } => Self::Invalid(field),
            _ => Self::Truncated,
        }
    }
}
