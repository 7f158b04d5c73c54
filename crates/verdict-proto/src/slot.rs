//! Slots: what an owner puts in a slot (length header, message, pseudonym signature), the
//! hybrid accusation, a round's output, and the slot schedule every participant derives from
//! the outputs.

use verdict_dcnet::{ClientId, SessionId};
use verdict_group::Group;
use verdict_nizk::{Signature, SigningKey, VerifyingKey};

use crate::error::{ExclusionReason, WireError};
use crate::policy::Policy;
use crate::wire::{Reader, Writer};

/// Bytes of the slot header: the owner's requested capacity for the next round (u32 BE).
pub const HEADER_LEN: usize = 4;
/// Bytes of an encoded [`Accusation`].
pub const ACCUSATION_LEN: usize = 8 + 4 + 8;
const SLOT_SIGNATURE_DOMAIN: &[u8] = b"verdict-proto/slot-content/v1";

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

/// The pseudonym signature binding a slot's content to its owner, session, round and slot.
fn slot_message(
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&session.0)
        .u64(round)
        .u8(kind as u8)
        .u32(slot)
        .bytes(content);
    w.finish()
}

/// Signs slot content with the slot's pseudonym key.
pub fn sign_slot<G: Group, R: rand_core::RngCore + rand_core::CryptoRng + ?Sized>(
    key: &SigningKey<G>,
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
    rng: &mut R,
) -> Signature<G> {
    key.sign(
        SLOT_SIGNATURE_DOMAIN,
        &slot_message(session, round, kind, slot, content),
        rng,
    )
}

/// Verifies a slot content signature.
pub fn verify_slot<G: Group>(
    key: &VerifyingKey<G>,
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
    signature: &Signature<G>,
) -> bool {
    key.verify(
        SLOT_SIGNATURE_DOMAIN,
        &slot_message(session, round, kind, slot, content),
        signature,
    )
    .is_ok()
}

/// Splits a slot payload into the requested next capacity and the body.
pub fn split_payload(payload: &[u8]) -> Option<(u32, &[u8])> {
    let (head, body) = payload.split_first_chunk::<HEADER_LEN>()?;
    Some((u32::from_be_bytes(*head), body))
}

/// `next_len (u32 BE) ‖ body`.
pub fn join_payload(next_len: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&next_len.to_be_bytes());
    out.extend_from_slice(body);
    out
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
    /// The 20-byte encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.round).u32(self.slot).u64(self.bit);
        w.finish()
    }
    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
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
            if let Some(b) = bitmap.get_mut(c.0 as usize / 8) {
                *b |= 1 << (c.0 % 8);
            }
        }
        w.u64(self.round).u32(self.roster).raw(&bitmap);
        w.count(self.slots.len());
        for ((s, out), next) in self.slots.iter().zip(&self.next_lens) {
            w.u8(s.kind as u8).u32(s.slot).u64(s.len as u64).u32(*next);
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
        let mut r = Reader::new(bytes);
        let round = r.u64()?;
        let roster = r.u32()?;
        let bitmap = r.raw((roster as usize).div_ceil(8))?;
        let mut accepted = Vec::new();
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
        let n = r.count()?;
        let mut slots = Vec::with_capacity(n);
        let mut next_lens = Vec::with_capacity(n);
        for _ in 0..n {
            let kind = match r.u8()? {
                0 => SlotKind::Xor,
                1 => SlotKind::Verifiable,
                _ => return Err(WireError::Invalid("slot kind")),
            };
            let slot = r.u32()?;
            let len = usize::try_from(r.u64()?).map_err(|_| WireError::Invalid("slot length"))?;
            next_lens.push(r.u32()?);
            let out = match r.u8()? {
                0 => SlotOutput::Empty,
                1 => SlotOutput::Message(r.bytes()?.to_vec()),
                2 => SlotOutput::Corrupt(r.bytes()?.to_vec()),
                _ => return Err(WireError::Invalid("slot output tag")),
            };
            slots.push((OpenSlot { kind, slot, len }, out));
        }
        let e = r.count()?;
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

/// The slot schedule: which slots are open in the next round and how large. Every participant
/// derives it from the certified outputs alone, so all agree without extra messages.
///
/// - The first `initially_open` message slots start open at `default_len`, the rest closed.
/// - A revealed message's header requests the next capacity (`0` closes the slot; otherwise it
///   is clamped to `[HEADER_LEN, max_len]`).
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
                        n => n.clamp(HEADER_LEN as u32, self.max_len),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Mode, Verification};

    fn result(round: u64, slots: Vec<(OpenSlot, SlotOutput, u32)>) -> RoundResult {
        RoundResult {
            round,
            roster: 5,
            accepted: vec![ClientId(0), ClientId(1), ClientId(4)],
            next_lens: slots.iter().map(|s| s.2).collect(),
            slots: slots.into_iter().map(|(o, out, _)| (o, out)).collect(),
            excluded: vec![(ClientId(2), ExclusionReason::DoubleSubmission { round })],
        }
    }

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
    fn round_results_round_trip_and_reject_garbage() {
        let open = OpenSlot {
            kind: SlotKind::Xor,
            slot: 7,
            len: 64,
        };
        let r = result(
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
}
