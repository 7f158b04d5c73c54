//! The slot schedule every participant derives from the certified outputs.

use crate::error::WireError;
use crate::policy::Policy;
use crate::slot::{OpenSlot, RoundResult, SLOT_HEADER_LEN, SlotKind, SlotOutput};
use crate::wire::{Writer, reader};

/// The slot schedule: which slots are open in the next round and how large. Every participant
/// derives it from the certified outputs alone, so all agree without extra messages.
///
/// - The first `initially_open` message slots start open at `default_len`, the rest closed.
/// - A revealed message's header requests the next capacity (`0` closes the slot; otherwise it
///   is clamped to `[SLOT_HEADER_LEN, max_len]`).
/// - A slot with no message for `idle_rounds` consecutive rounds closes.
/// - A rotating pointer reopens `reopen_per_round` slots per round at `default_len`, so a
///   closed slot's owner can transmit again within `n / reopen_per_round` rounds without
///   revealing anything (the pointer does not depend on who wants to send).
/// - Hybrid mode: a corrupted XOR slot opens the verifiable slot of the same index in the next
///   round, at accusation size, for its owner's accusation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    hybrid: bool,
    lens: Vec<u32>,
    idle: Vec<u32>,
    reopen: usize,
    accusations: Vec<u32>,
    accusation_len: usize,
    default_len: u32,
    max_len: u32,
    idle_rounds: u32,
    reopen_per_round: usize,
}

impl Schedule {
    /// The schedule of round 0 for `slots` slots under `policy`; `accusation_len` is the
    /// capacity of an accusation slot (header, accusation and one pseudonym signature).
    pub fn new(policy: &Policy, slots: usize, accusation_len: usize) -> Self {
        Self {
            hybrid: policy.mode.is_hybrid(),
            lens: (0..slots)
                .map(|s| {
                    if s < policy.initially_open as usize {
                        policy.default_len
                    } else {
                        0
                    }
                })
                .collect(),
            idle: vec![0; slots],
            reopen: 0,
            accusations: Vec::new(),
            accusation_len,
            default_len: policy.default_len,
            max_len: policy.max_len,
            idle_rounds: policy.idle_rounds,
            reopen_per_round: policy.reopen_per_round as usize,
        }
    }

    /// The slots open in the round this schedule describes, in canonical order.
    pub fn open_slots(&self) -> Vec<OpenSlot> {
        let kind = if self.hybrid {
            SlotKind::Xor
        } else {
            SlotKind::Verifiable
        };
        let mut out: Vec<OpenSlot> = self
            .lens
            .iter()
            .enumerate()
            .filter(|(_, l)| **l > 0)
            .map(|(s, l)| OpenSlot {
                kind,
                slot: s as u32,
                len: *l as usize,
            })
            .collect();
        out.extend(self.accusations.iter().map(|s| OpenSlot {
            kind: SlotKind::Verifiable,
            slot: *s,
            len: self.accusation_len,
        }));
        out
    }

    /// Capacity of slot `slot` (message slots) in this round (0: closed).
    pub fn len_of(&self, slot: u32) -> u32 {
        self.lens.get(slot as usize).copied().unwrap_or(0)
    }

    /// Number of message slots.
    pub fn num_slots(&self) -> usize {
        self.lens.len()
    }

    /// Largest capacity an owner may request.
    pub fn max_len(&self) -> u32 {
        self.max_len
    }

    /// The schedule of the next round, given this round's certified output.
    pub fn advance(&mut self, result: &RoundResult) {
        let message_kind = if self.hybrid {
            SlotKind::Xor
        } else {
            SlotKind::Verifiable
        };
        self.accusations.clear();
        for ((s, out), next) in result.slots.iter().zip(&result.next_lens) {
            if s.kind != message_kind {
                continue;
            }
            let i = s.slot as usize;
            let (Some(len), Some(idle)) = (self.lens.get_mut(i), self.idle.get_mut(i)) else {
                continue;
            };
            match out {
                SlotOutput::Message(_) => {
                    *idle = 0;
                    *len = match *next {
                        0 => 0,
                        n => n.clamp(SLOT_HEADER_LEN as u32, self.max_len),
                    };
                }
                SlotOutput::Empty => {
                    *idle += 1;
                    if *idle >= self.idle_rounds {
                        *len = 0;
                    }
                }
                SlotOutput::Corrupt(_) => {
                    if self.hybrid {
                        self.accusations.push(s.slot);
                    }
                }
            }
        }
        let n = self.lens.len();
        if n > 0 {
            for k in 0..self.reopen_per_round.min(n) {
                let i = (self.reopen + k) % n;
                if let (Some(len), Some(idle)) = (self.lens.get_mut(i), self.idle.get_mut(i))
                    && *len == 0
                {
                    *len = self.default_len;
                    *idle = 0;
                }
            }
            self.reopen = (self.reopen + self.reopen_per_round) % n;
        }
    }
}

/// The schedule's evolving state on disk (a client's checkpoint, see
/// [`crate::client::Checkpoint`]): `u32(S) ‖ S × u32(len) ‖ S × u32(idle) ‖ u64(reopen) ‖
/// u32(count) ‖ count × u32(accusation slot)`. Everything else comes from the policy.
impl Schedule {
    /// Appends the state (not the policy-derived constants) to `w`.
    pub(crate) fn write_state(&self, w: &mut Writer) {
        w.u32(self.lens.len() as u32);
        for l in &self.lens {
            w.u32(*l);
        }
        for i in &self.idle {
            w.u32(*i);
        }
        w.u64(self.reopen as u64);
        w.u32(self.accusations.len() as u32);
        for a in &self.accusations {
            w.u32(*a);
        }
    }

    /// The schedule `policy` gives `slots` slots, with the state `bytes` (from
    /// [`Schedule::write_state`]) — every value checked against what [`Schedule::advance`] can
    /// produce, so a damaged or foreign state file is refused rather than followed.
    pub(crate) fn read_state(
        policy: &Policy,
        slots: usize,
        accusation_len: usize,
        bytes: &[u8],
    ) -> Result<Self, WireError> {
        let mut s = Self::new(policy, slots, accusation_len);
        let mut r = reader(bytes);
        if r.u32()? as usize != slots {
            return Err(WireError::Invalid("schedule slot count"));
        }
        let longest = s.max_len.max(s.default_len);
        for l in &mut s.lens {
            *l = r.u32()?;
            if *l > longest {
                return Err(WireError::Invalid("schedule slot length"));
            }
        }
        for i in &mut s.idle {
            *i = r.u32()?;
            if *i > s.idle_rounds {
                return Err(WireError::Invalid("schedule idle count"));
            }
        }
        let reopen =
            usize::try_from(r.u64()?).map_err(|_| WireError::Invalid("schedule pointer"))?;
        if reopen >= slots.max(1) {
            return Err(WireError::Invalid("schedule pointer"));
        }
        s.reopen = reopen;
        let count = r.u32()? as usize;
        if count > slots || !s.hybrid && count > 0 {
            return Err(WireError::Invalid("schedule accusations"));
        }
        for _ in 0..count {
            let a = r.u32()?;
            if a as usize >= slots || s.accusations.last().is_some_and(|p| *p >= a) {
                return Err(WireError::Invalid("schedule accusations"));
            }
            s.accusations.push(a);
        }
        r.finish()?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Mode, Verification};
    use crate::slot::example_result as result;

    fn policy(mode: Mode) -> Policy {
        Policy {
            mode,
            default_len: 32,
            max_len: 1000,
            idle_rounds: 2,
            reopen_per_round: 1,
            ..Policy::default()
        }
    }

    #[test]
    fn owners_choose_lengths_idle_slots_close_and_the_pointer_reopens() {
        let mut s = Schedule::new(&policy(Mode::Verifiable(Verification::Eager)), 3, 90);
        let open = s.open_slots();
        assert_eq!(open.len(), 3);
        assert!(
            open.iter()
                .all(|o| o.len == 32 && o.kind == SlotKind::Verifiable)
        );
        // Slot 0 asks for 500 bytes, slot 1 for 5000 (clamped), slot 2 is empty.
        s.advance(&result(
            0,
            vec![
                (open[0], SlotOutput::Message(b"a".to_vec()), 500),
                (open[1], SlotOutput::Message(b"b".to_vec()), 5000),
                (open[2], SlotOutput::Empty, 0),
            ],
        ));
        assert_eq!((s.len_of(0), s.len_of(1), s.len_of(2)), (500, 1000, 32));
        // Slot 0 closes itself (requests 0); slot 2 idles a second round and closes. The
        // pointer (now at slot 1) finds slot 1 open and reopens nothing.
        let open = s.open_slots();
        s.advance(&result(
            1,
            vec![
                (open[0], SlotOutput::Message(Vec::new()), 0),
                (open[1], SlotOutput::Message(b"b".to_vec()), 40),
                (open[2], SlotOutput::Empty, 0),
            ],
        ));
        assert_eq!((s.len_of(0), s.len_of(1), s.len_of(2)), (0, 40, 0));
        // Next round the pointer is at slot 2: it reopens at the default length; slot 0 waits.
        let open = s.open_slots();
        assert_eq!(open.len(), 1);
        s.advance(&result(
            2,
            vec![(open[0], SlotOutput::Message(b"b".to_vec()), 40)],
        ));
        assert_eq!((s.len_of(0), s.len_of(1), s.len_of(2)), (0, 40, 32));
        s.advance(&result(3, Vec::new()));
        assert_eq!(s.len_of(0), 32, "the pointer came round to slot 0");
    }

    #[test]
    fn initially_open_limits_round_zero() {
        let p = Policy {
            initially_open: 2,
            ..policy(Mode::Verifiable(Verification::Eager))
        };
        let s = Schedule::new(&p, 5, 90);
        let slots: Vec<u32> = s.open_slots().iter().map(|o| o.slot).collect();
        assert_eq!(slots, vec![0, 1]);
    }

    #[test]
    fn a_corrupted_xor_slot_opens_its_accusation_slot_for_one_round() {
        let mut s = Schedule::new(&policy(Mode::Hybrid(Verification::Eager)), 2, 90);
        let open = s.open_slots();
        assert!(open.iter().all(|o| o.kind == SlotKind::Xor));
        s.advance(&result(
            0,
            vec![
                (open[0], SlotOutput::Corrupt(vec![1]), 0),
                (open[1], SlotOutput::Message(b"x".to_vec()), 32),
            ],
        ));
        let open = s.open_slots();
        assert_eq!(open.len(), 3);
        assert_eq!(
            open[2],
            OpenSlot {
                kind: SlotKind::Verifiable,
                slot: 0,
                len: 90
            }
        );
        // The corrupted slot keeps its length; the accusation slot closes again.
        assert_eq!(s.len_of(0), 32);
        s.advance(&result(1, Vec::new()));
        assert!(s.open_slots().iter().all(|o| o.kind == SlotKind::Xor));
    }

    #[test]
    fn the_state_round_trips_and_damaged_states_are_refused() {
        let p = policy(Mode::Hybrid(Verification::Eager));
        let mut s = Schedule::new(&p, 3, 90);
        let open = s.open_slots();
        s.advance(&result(
            0,
            vec![
                (open[0], SlotOutput::Corrupt(vec![1]), 0),
                (open[1], SlotOutput::Message(b"x".to_vec()), 500),
                (open[2], SlotOutput::Empty, 0),
            ],
        ));
        let mut w = Writer::new();
        s.write_state(&mut w);
        let bytes = w.finish();
        assert_eq!(Schedule::read_state(&p, 3, 90, &bytes), Ok(s.clone()));
        // Another slot count, a length past max_len, a trailing byte, a truncation.
        assert!(Schedule::read_state(&p, 4, 90, &bytes).is_err());
        let mut long = bytes.clone();
        long[4..8].copy_from_slice(&5000u32.to_le_bytes());
        assert!(Schedule::read_state(&p, 3, 90, &long).is_err());
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(Schedule::read_state(&p, 3, 90, &trailing).is_err());
        assert!(Schedule::read_state(&p, 3, 90, &bytes[..bytes.len() - 1]).is_err());
        // Accusations exist only in hybrid mode.
        let eager = policy(Mode::Verifiable(Verification::Eager));
        assert!(Schedule::read_state(&eager, 3, 90, &bytes).is_err());
    }
}
