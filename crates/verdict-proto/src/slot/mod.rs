//! Slots: which DC-net a slot belongs to and its capacity, what an owner puts in it
//! (`payload`), the hybrid accusation (`accusation`) and what a round revealed
//! (`output`). The schedule of open slots is [`crate::schedule`].

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
