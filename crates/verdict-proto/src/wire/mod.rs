//! Wire formats: the protocol's use of the workspace codec, the signed [`Envelope`] every protocol message
//! travels in, the message kinds, and [`Received`] messages kept as the bytes their senders signed.
//!
//! Every message is `header ‖ signature ‖ u32 payload length ‖ payload`, where the 78-byte
//! header is `kind ‖ sender role ‖ sender index ‖ session ‖ round ‖ blake3(payload)` and the
//! signature is the sender's long-term Schnorr signature over the header (domain
//! `verdict-proto/envelope/v1`). Because the header commits to the payload, a header with its
//! signature (a [`SignedHeader`], 78 bytes plus one signature) is a compact, transferable
//! statement "this sender said *this* for that step": servers echo them to each other to
//! detect equivocation, and two conflicting signed headers are the evidence.

mod codec;
mod envelope;
mod kind;
pub mod payloads;
mod received;

pub use codec::{MAX_FIELD, ReadParty, Reader, WriteParty, Writer, reader, write_byte_list};
pub use envelope::{
    ENVELOPE_HEADER_LEN, Envelope, Header, SignedHeader, signature_batch, verify_batch,
};
pub use kind::{Kind, Role};
pub use received::{Received, SharedBytes};
