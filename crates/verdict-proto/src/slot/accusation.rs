//! The hybrid accusation an XOR slot's owner sends through its verifiable slot, and the bit
//! numbering accusations and blame share.

use verdict_group::Group;
use verdict_nizk::Signature;

use super::SLOT_HEADER_LEN;
use crate::error::WireError;
use crate::wire::{Reader, Writer};

/// Bytes of an encoded [`Accusation`].
pub const ACCUSATION_LEN: usize = 8 + 4 + 8;

/// The capacity of an accusation slot in a group `G` session: slot header, accusation and
/// one pseudonym signature.
pub fn accusation_len<G: Group>() -> usize {
    SLOT_HEADER_LEN + ACCUSATION_LEN + Signature::<G>::ENCODED_LEN
}

/// Bit `bit` of `bytes` (byte `bit / 8`, least significant bit first): how accusations
/// address a slot's ciphertext.
pub fn bit_of(bytes: &[u8], bit: u64) -> Option<bool> {
    let byte = usize::try_from(bit / 8).ok()?;
    bytes.get(byte).map(|b| (b >> (bit % 8)) & 1 == 1)
}

/// A hybrid-mode accusation: "bit `bit` of XOR slot `slot` in round `round` came out 1 where
/// I, its owner, sent 0". Sent through the owner's verifiable slot, signed with its pseudonym
/// key; it reveals nothing about the owner (every client sent 0 at that position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Accusation {
    /// Round of the corrupted XOR slot.
    pub round: u64,
    /// The XOR slot.
    pub slot: u32,
    /// Bit position in the slot's ciphertext (byte `bit / 8`, least significant bit first).
    pub bit: u64,
}

impl Accusation {
    /// Bytes of the encoding: `u64le(round) ‖ u32le(slot) ‖ u64le(bit)`.
    pub const LEN: usize = 20;

    /// The 20-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.round).u32(self.slot).u64(self.bit);
        w.finish()
    }
    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let a = Self::read(&mut r)?;
        r.finish()?;
        Ok(a)
    }
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, WireError> {
        Ok(Self {
            round: r.u64()?,
            slot: r.u32()?,
            bit: r.u64()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accusations_round_trip() {
        let a = Accusation {
            round: 3,
            slot: 4,
            bit: 77,
        };
        assert_eq!(Accusation::from_bytes(&a.to_bytes()), Ok(a));
        assert!(Accusation::from_bytes(&a.to_bytes()[1..]).is_err());
    }

    #[test]
    fn bits_are_numbered_least_significant_first() {
        let bytes = [0b0000_0010u8, 0b1000_0000];
        assert_eq!(bit_of(&bytes, 1), Some(true));
        assert_eq!(bit_of(&bytes, 0), Some(false));
        assert_eq!(bit_of(&bytes, 15), Some(true));
        assert_eq!(bit_of(&bytes, 16), None);
        assert_eq!(bit_of(&bytes, u64::MAX), None);
    }
}
