//! What a round revealed: each open slot's [`SlotOutput`] and the certified [`RoundResult`]
//! every server signs and every client checks.

use verdict_dcnet::ClientId;

use super::OpenSlot;
use crate::error::{ExclusionReason, WireError};
use crate::wire::Writer;

/// What a slot revealed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotOutput {
    /// Nobody transmitted.
    Empty,
    /// The owner's message (the body, without header or signature).
    Message(Vec<u8>),
    /// The output is not a well-formed, correctly signed message. For XOR slots, the raw
    /// combined bytes (what the owner needs to pick an accusation bit).
    Corrupt(Vec<u8>),
}

/// A round's certified output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundResult {
    /// The round.
    pub round: u64,
    /// Clients in the roster (the size of the accepted-set bitmap).
    pub roster: u32,
    /// The accepted set `S`: the clients whose ciphertexts were combined, in increasing order.
    /// Certified with the rest, so a client whose upstream left it out learns of it.
    pub accepted: Vec<ClientId>,
    /// Every open slot and what it revealed, in schedule order.
    pub slots: Vec<(OpenSlot, SlotOutput)>,
    /// The next capacity each revealed message requested (parallel to `slots`; 0 if none).
    pub next_lens: Vec<u32>,
    /// Clients excluded in this round, with the reason.
    pub excluded: Vec<(ClientId, ExclusionReason)>,
}

impl RoundResult {
    /// Number of clients whose ciphertexts were combined (`|S|`).
    pub fn participants(&self) -> u32 {
        self.accepted.len() as u32
    }

    /// Canonical encoding (what the servers sign): `S` is a bitmap of `roster` bits, client
    /// `i` at bit `i % 8` of byte `i / 8`, unused bits zero.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        let mut bitmap = vec![0u8; (self.roster as usize).div_ceil(8)];
        for c in &self.accepted {
            if let Some(b) = bitmap.get_mut(c.index() / 8) {
                *b |= 1 << (c.0 % 8);
            }
        }
        w.u64(self.round).u32(self.roster).raw(&bitmap);
        w.count(self.slots.len());
        for ((s, out), next) in self.slots.iter().zip(&self.next_lens) {
            s.write(&mut w);
            w.u32(*next);
            match out {
                SlotOutput::Empty => w.u8(0),
                SlotOutput::Message(m) => w.u8(1).bytes(m),
                SlotOutput::Corrupt(m) => w.u8(2).bytes(m),
            };
        }
        w.count(self.excluded.len());
        for (c, reason) in &self.excluded {
            let (code, round, slot) = reason.code();
            w.u32(c.0).u8(code).u64(round).u32(slot);
        }
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let round = r.u64()?;
        let roster = r.u32()?;
        let bitmap = r.raw((roster as usize).div_ceil(8))?;
        // Exactly as many as the bitmap sets (no growth past them).
        let mut accepted = Vec::with_capacity(bitmap.iter().map(|b| b.count_ones() as usize).sum());
        for (i, b) in bitmap.iter().enumerate() {
            for bit in 0..8 {
                if b >> bit & 1 == 1 {
                    let c = (i * 8 + bit) as u32;
                    if c >= roster {
                        return Err(WireError::Invalid("accepted-set bitmap padding"));
                    }
                    accepted.push(ClientId(c));
                }
            }
        }
        // Counts bounded by the smallest encoding of an item (a slot: its header, next_len and
        // tag; an exclusion: 17 bytes), so no count makes an allocation larger than the input.
        let n = r.count_sized(crate::slot::OpenSlot::ENCODED_LEN + 5)?;
        let mut slots = Vec::with_capacity(n);
        let mut next_lens = Vec::with_capacity(n);
        for _ in 0..n {
            let open = OpenSlot::read(&mut r)?;
            next_lens.push(r.u32()?);
            let out = match r.u8()? {
                0 => SlotOutput::Empty,
                1 => SlotOutput::Message(r.bytes()?.to_vec()),
                2 => SlotOutput::Corrupt(r.bytes()?.to_vec()),
                _ => return Err(WireError::Invalid("slot output tag")),
            };
            slots.push((open, out));
        }
        let e = r.count_sized(17)?;
        let mut excluded = Vec::with_capacity(e);
        for _ in 0..e {
            let c = ClientId(r.u32()?);
            let (code, round, slot) = (r.u8()?, r.u64()?, r.u32()?);
            let reason = ExclusionReason::from_code(code, round, slot)
                .ok_or(WireError::Invalid("exclusion reason"))?;
            excluded.push((c, reason));
        }
        r.finish()?;
        Ok(Self {
            round,
            roster,
            accepted,
            slots,
            next_lens,
            excluded,
        })
    }
}

/// A round result over a five-client roster (clients 0, 1 and 4 accepted, 2 excluded) with the
/// given slots, outputs and requested next lengths.
#[cfg(test)]
pub(crate) fn example_result(round: u64, slots: Vec<(OpenSlot, SlotOutput, u32)>) -> RoundResult {
    RoundResult {
        round,
        roster: 5,
        accepted: vec![ClientId(0), ClientId(1), ClientId(4)],
        next_lens: slots.iter().map(|s| s.2).collect(),
        slots: slots.into_iter().map(|(o, out, _)| (o, out)).collect(),
        excluded: vec![(ClientId(2), ExclusionReason::DoubleSubmission { round })],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_results_round_trip_and_reject_garbage() {
        let open = OpenSlot {
            kind: crate::slot::SlotKind::Xor,
            slot: 7,
            len: 64,
        };
        let r = example_result(
            9,
            vec![
                (open, SlotOutput::Message(b"hi".to_vec()), 64),
                (open, SlotOutput::Corrupt(vec![0xff; 3]), 0),
                (open, SlotOutput::Empty, 0),
            ],
        );
        let bytes = r.to_bytes();
        assert_eq!(RoundResult::from_bytes(&bytes), Ok(r));
        for cut in 0..bytes.len() {
            assert!(RoundResult::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(
            RoundResult::from_bytes(&extra),
            Err(WireError::TrailingBytes)
        );
        // The accepted set is certified: clients 0, 1 and 4 of 5 (bitmap 0b1_0011), and a bit
        // beyond the roster is not a canonical encoding.
        assert_eq!(bytes[12], 0b1_0011);
        let mut beyond = bytes.clone();
        beyond[12] |= 0b1000_0000;
        assert_eq!(
            RoundResult::from_bytes(&beyond),
            Err(WireError::Invalid("accepted-set bitmap padding"))
        );
    }

    /// Regression (found by the `proto` fuzz target): a double-submission exclusion carries no
    /// slot and encodes it as 0; a decoder that ignored the field accepted a second encoding
    /// of the same signed result.
    #[test]
    fn exclusion_reasons_have_one_encoding() {
        let r = example_result(3, vec![]);
        let bytes = r.to_bytes();
        // The last field is the double-submission reason's (unused) slot.
        let at = bytes.len() - 4;
        assert_eq!(&bytes[at..], &[0, 0, 0, 0]);
        let mut other = bytes.clone();
        other[at] = 0x11;
        assert_eq!(
            RoundResult::from_bytes(&other),
            Err(WireError::Invalid("exclusion reason"))
        );
        assert_eq!(RoundResult::from_bytes(&bytes), Ok(r));
    }
}
