//! Slots: which DC-net a slot belongs to and its capacity, what an owner puts in it
//! (`payload.rs`), the hybrid accusation (`accusation.rs`) and what a round revealed
//! (`output.rs`). The schedule of open slots is [`crate::schedule`].

mod accusation;
mod output;
mod payload;

pub use accusation::{ACCUSATION_LEN, Accusation, accusation_len, bit_of};
#[cfg(test)]
pub(crate) use output::example_result;
pub use output::{RoundResult, SlotOutput};
pub use payload::{join_payload, sign_slot, split_payload, verify_slot};

/// Bytes of the slot header: the owner's requested capacity for the next round (u32 BE).
pub const SLOT_HEADER_LEN: usize = 4;

/// Which DC-net a slot belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SlotKind {
    /// An XOR (Dissent-style) slot: hybrid mode's message slots.
    Xor,
    /// A slot of the session's verifiable suite.
    Verifiable,
}

/// A slot open in a round, with its capacity in plaintext bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpenSlot {
    /// XOR or verifiable.
    pub kind: SlotKind,
    /// Slot index (the owner is the holder of pseudonym key `slot`).
    pub slot: u32,
    /// Capacity in plaintext bytes.
    pub len: usize,
}

impl OpenSlot {
    /// Bytes of [`OpenSlot::write`]'s encoding.
    pub(crate) const ENCODED_LEN: usize = 13;

    /// `u8(kind: 0 XOR, 1 verifiable) ‖ u32le(slot) ‖ u64le(len)`, as a round result and a
    /// client checkpoint carry it.
    pub(crate) fn write(&self, w: &mut crate::wire::Writer) {
        w.u8(self.kind as u8).u32(self.slot).u64(self.len as u64);
    }

    /// Reads [`OpenSlot::write`]'s encoding.
    pub(crate) fn read(r: &mut crate::wire::Reader<'_>) -> Result<Self, crate::error::WireError> {
        use crate::error::WireError;
        let kind = match r.u8()? {
            0 => SlotKind::Xor,
            1 => SlotKind::Verifiable,
            _ => return Err(WireError::Invalid("slot kind")),
        };
        let slot = r.u32()?;
        let len = usize::try_from(r.u64()?).map_err(|_| WireError::Invalid("slot length"))?;
        Ok(Self { kind, slot, len })
    }
}
