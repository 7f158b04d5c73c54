//! The hybrid blame messages as typed payloads, encoded and decoded by both roles, and the
//! transferable lie proof.
//!
//! One blame traces every accusation about one round at once (each disrupted slot's owner
//! accuses; several disruptors in one round are all traced):
//!
//! | message | from → to | payload |
//! |---|---|---|
//! | [`BlameBits`] | server → servers | the accused round, its accepted set `S`, and per accusation the slot capacity and the sender's pad bit with each client of `S` |
//! | [`RebuttalRequest`] | every server → each suspect | round, suspect, the `M` signed `BlameBits` the sender holds |
//! | [`Rebuttal`] | suspect → every server | *no objection* to the set of `M` `BlameBits` it judged (their header digests), or a *lie proof*: one server's signed `BlameBits`, the accusation, and the suspect's DLEQ-proven DH value with that server, which shows the claimed pad bit is false |
//! | [`Verdict`] | server → servers | round, the culprits (every suspect), and the suspects' rebuttals it was decided on |
//!
//! A lie proof is self-contained: the server's signature on its claim and the client's on the
//! reveal let anyone with the roster check it, at any time, whatever else they saw.

use verdict_dcnet::{ClientId, DhReveal, Party, ServerId, SessionId, SlotRound};

use crate::config::GroupConfig;
use crate::error::WireError;
use crate::slot::Accusation;
use crate::suite::{ProtoSuite, XorOf};
use crate::wire::{Kind, Received, SharedBytes, Writer, write_byte_list};

/// A server's claim about one accusation: the slot capacity (it binds the pad stream) and its
/// pad bit with every client of the round's accepted set, at the accused bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBits {
    /// The accusation.
    pub accusation: Accusation,
    /// The capacity of the accused XOR slot in that round.
    pub slot_len: u64,
    /// The sender's pad bit with each client of the accepted set, in its order.
    pub bits: Vec<bool>,
}

/// A server's pad bits for every accusation about one round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlameBits {
    /// The accused round.
    pub round: u64,
    /// Its accepted clients, in increasing order.
    pub clients: Vec<ClientId>,
    /// One claim per accusation, in slot order.
    pub traces: Vec<TraceBits>,
}

impl BlameBits {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.round).count(self.clients.len());
        for c in &self.clients {
            w.u32(c.0);
        }
        w.count(self.traces.len());
        for t in &self.traces {
            w.raw(&t.accusation.to_bytes()).u64(t.slot_len);
            let mut packed = vec![0u8; t.bits.len().div_ceil(8)];
            for (i, b) in t.bits.iter().enumerate() {
                if *b {
                    if let Some(p) = packed.get_mut(i / 8) {
                        *p |= 1 << (i % 8);
                    }
                }
            }
            w.raw(&packed);
        }
        w.finish()
    }

    /// Decodes (clients strictly increasing, accusations about `round` in increasing slot
    /// order, unused bits zero).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let round = r.u64()?;
        // Counts bounded by what the rest of the input can hold, so the up-front allocations
        // cost no more than the input (a fuzzing finding: a 5 KB input with a count of
        // accusations it could not hold allocated 240 KB).
        let n = r.count_sized(4)?;
        let mut clients: Vec<ClientId> = Vec::with_capacity(n);
        for _ in 0..n {
            let c = ClientId(r.u32()?);
            if clients.last().is_some_and(|p| p.0 >= c.0) {
                return Err(WireError::Invalid("blame client order"));
            }
            clients.push(c);
        }
        let k = r.count_sized(Accusation::LEN + 8 + n.div_ceil(8))?;
        let mut traces: Vec<TraceBits> = Vec::with_capacity(k);
        for _ in 0..k {
            let accusation = Accusation::read(&mut r)?;
            if accusation.round != round
                || traces
                    .last()
                    .is_some_and(|t| t.accusation.slot >= accusation.slot)
            {
                return Err(WireError::Invalid("blame accusation order"));
            }
            let slot_len = r.u64()?;
            let packed = r.raw(n.div_ceil(8))?;
            let bits: Vec<bool> = (0..n).map(|i| packed[i / 8] >> (i % 8) & 1 == 1).collect();
            if n % 8 != 0 && packed.last().is_some_and(|b| b >> (n % 8) != 0) {
                return Err(WireError::Invalid("blame bit padding"));
            }
            traces.push(TraceBits {
                accusation,
                slot_len,
                bits,
            });
        }
        r.finish()?;
        Ok(Self {
            round,
            clients,
            traces,
        })
    }

    /// The claimed pad bit with `client` for `accusation`, with the slot capacity.
    pub fn claim(&self, accusation: &Accusation, client: ClientId) -> Option<(bool, u64)> {
        let i = self.clients.binary_search(&client).ok()?;
        let t = self.traces.iter().find(|t| t.accusation == *accusation)?;
        Some((*t.bits.get(i)?, t.slot_len))
    }
}

/// What every server sends each suspect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebuttalRequest {
    /// The accused round.
    pub round: u64,
    /// The suspect.
    pub suspect: ClientId,
    /// The signed `BlameBits` envelopes the sender holds (one per server).
    pub bits: Vec<Vec<u8>>,
}

impl RebuttalRequest {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.round).u32(self.suspect.0);
        write_byte_list(&mut w, &self.bits);
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let round = r.u64()?;
        let suspect = ClientId(r.u32()?);
        let bits = r.byte_list()?;
        r.finish()?;
        Ok(Self {
            round,
            suspect,
            bits,
        })
    }
}

/// A suspect's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rebuttal {
    /// "These `BlameBits` (by header digest, server order) are right about me."
    NoObjection {
        /// The accused round.
        round: u64,
        /// The header digests of the `M` signed `BlameBits` judged.
        digests: Vec<[u8; 32]>,
    },
    /// "This server's signed claim about my pad bit for this accusation is false; here is our
    /// DH value."
    LieProof {
        /// The accusation whose claim is false.
        accusation: Accusation,
        /// The lying server's signed `BlameBits` envelope.
        bits: Vec<u8>,
        /// The suspect's DLEQ-proven DH value with that server (encoded [`DhReveal`]).
        reveal: Vec<u8>,
    },
}

impl Rebuttal {
    /// The accused round it answers about.
    pub fn round(&self) -> u64 {
        match self {
            Self::NoObjection { round, .. } => *round,
            Self::LieProof { accusation, .. } => accusation.round,
        }
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        match self {
            Self::NoObjection { round, digests } => {
                w.u8(0).u64(*round).count(digests.len());
                for d in digests {
                    w.raw(d);
                }
            }
            Self::LieProof {
                accusation,
                bits,
                reveal,
            } => {
                w.u8(1)
                    .raw(&accusation.to_bytes())
                    .bytes(bits)
                    .bytes(reveal);
            }
        }
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let out = match r.u8()? {
            0 => {
                let round = r.u64()?;
                let n = r.count_sized(32)?;
                let mut digests = Vec::with_capacity(n);
                for _ in 0..n {
                    digests.push(r.array()?);
                }
                Self::NoObjection { round, digests }
            }
            1 => Self::LieProof {
                accusation: Accusation::read(&mut r)?,
                bits: r.bytes()?.to_vec(),
                reveal: r.bytes()?.to_vec(),
            },
            _ => return Err(WireError::Invalid("rebuttal")),
        };
        r.finish()?;
        Ok(out)
    }
}

/// A server's verdict on every accusation about one round, with the suspects' rebuttals it
/// was decided on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The accused round.
    pub round: u64,
    /// The culprits: every suspect, in increasing order (none: no client deviates).
    pub culprits: Vec<ClientId>,
    /// The suspects' signed "no objection" rebuttals the verdict rests on (a suspect without
    /// one was silent until the deadline).
    pub rebuttals: Vec<Vec<u8>>,
}

impl Verdict {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.round).count(self.culprits.len());
        for c in &self.culprits {
            w.u32(c.0);
        }
        write_byte_list(&mut w, &self.rebuttals);
        w.finish()
    }

    /// Decodes (culprits strictly increasing).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let round = r.u64()?;
        let n = r.count_sized(4)?;
        let mut culprits: Vec<ClientId> = Vec::with_capacity(n);
        for _ in 0..n {
            let c = ClientId(r.u32()?);
            if culprits.last().is_some_and(|p| p.0 >= c.0) {
                return Err(WireError::Invalid("verdict culprit order"));
            }
            culprits.push(c);
        }
        let rebuttals = r.byte_list()?;
        r.finish()?;
        Ok(Self {
            round,
            culprits,
            rebuttals,
        })
    }
}

/// Opens a signed envelope relayed inside another message (not received from its signer): the
/// kind must be `kind`, the session ours, the sender in the roster and the signature valid.
/// What comes out keeps `bytes` (a view, typically of the message that relayed it).
pub(crate) fn open_relayed<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    kind: Kind,
    bytes: SharedBytes,
) -> Option<Received<S::G>> {
    let msg = Received::<S::G>::parse(bytes).ok()?;
    let h = msg.header();
    if h.kind != kind || h.session != session.0 {
        return None;
    }
    msg.signed().verify(config.key_of(h.sender)?).ok()?;
    Some(msg)
}

/// A signed `BlameBits` envelope, opened and decoded: its signer and content.
pub(crate) fn open_blame_bits<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    bytes: SharedBytes,
) -> Option<(ServerId, BlameBits, Received<S::G>)> {
    let msg = open_relayed(config, session, Kind::BlameBits, bytes)?;
    let Party::Server(j) = msg.header().sender else {
        return None;
    };
    let bits = BlameBits::from_bytes(msg.payload()).ok()?;
    (msg.header().round == bits.round).then_some((j, bits, msg))
}

/// Checks a lie proof: a client's signed rebuttal carrying server `j`'s signed pad-bit claim
/// about that client and their DH value, proving the claim false. Returns `j` if it does, with
/// the accusation and `j`'s signed claim (the evidence, with the rebuttal).
///
/// `xor` is the session's XOR roster (the DH keys). Everything needed is in the two
/// signatures, the DLEQ proof and the roster, so any participant can check it at any time.
pub(crate) fn check_lie_proof<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    xor: &verdict_dcnet::Roster<XorOf<S>>,
    rebuttal: &SharedBytes,
) -> Option<(ServerId, Accusation, SharedBytes)> {
    let msg = open_relayed(config, session, Kind::Rebuttal, rebuttal.clone())?;
    lie_proven_by::<S>(config, session, xor, &msg)
}

/// [`check_lie_proof`] of a rebuttal whose signature was checked already (one a suspect sent
/// us, opened on arrival).
pub(crate) fn lie_proven_by<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    xor: &verdict_dcnet::Roster<XorOf<S>>,
    rebuttal: &Received<S::G>,
) -> Option<(ServerId, Accusation, SharedBytes)> {
    let Party::Client(c) = rebuttal.header().sender else {
        return None;
    };
    if rebuttal.header().kind != Kind::Rebuttal || rebuttal.header().session != session.0 {
        return None;
    }
    let payload = rebuttal.shared_payload();
    let Rebuttal::LieProof {
        accusation,
        bits,
        reveal,
    } = Rebuttal::from_bytes(&payload).ok()?
    else {
        return None;
    };
    // The claim as the suspect relayed it, a view of the rebuttal's bytes: the field a
    // lie proof carries it in is the one length-prefixed copy of it there.
    let bits = find_view(&payload, &bits)?;
    let (j, claim, claim_msg) = open_blame_bits(config, session, bits)?;
    let (claimed, slot_len) = claim.claim(&accusation, c)?;
    let reveal = DhReveal::<S::G>::from_bytes(&reveal).ok()?;
    if reveal.client() != c || reveal.server() != j || reveal.prover() != Party::Client(c) {
        return None;
    }
    let len = usize::try_from(slot_len).ok()?;
    let sr = SlotRound::new(accusation.slot, accusation.round, len);
    let truth = XorOf::<S>::verify_pad_bit(xor, &reveal, sr, accusation.bit).ok()?;
    (truth != claimed).then(|| (j, accusation, claim_msg.raw().clone()))
}

/// The claim field of an encoded lie proof (`1 ‖ accusation ‖ claim ‖ reveal`), as a view of
/// it; `None` if `bits`, what [`Rebuttal::from_bytes`] decoded there, is not there.
fn find_view(payload: &SharedBytes, bits: &[u8]) -> Option<SharedBytes> {
    let mut r = crate::wire::reader(payload);
    r.u8().ok()?;
    Accusation::read(&mut r).ok()?;
    let field = r.bytes().ok()?;
    (field == bits).then(|| payload.share(field)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(slot: u32) -> Accusation {
        Accusation {
            round: 4,
            slot,
            bit: 99,
        }
    }

    /// A claim about a group of `N = 1024` clients (128 bytes of packed bits per trace, more
    /// than an accusation and a slot length together: the bound on the trace count must add
    /// them, never subtract) decodes, and a trace count one more than the input holds is
    /// refused.
    #[test]
    fn blame_bits_of_a_large_group_round_trip() {
        let n = 1024u32;
        let bits = BlameBits {
            round: 4,
            clients: (0..n).map(ClientId).collect(),
            traces: (1..4)
                .map(|slot| TraceBits {
                    accusation: acc(slot),
                    slot_len: 1024,
                    bits: (0..n).map(|i| (i * slot) % 7 == 1).collect(),
                })
                .collect(),
        };
        let enc = bits.to_bytes();
        assert_eq!(BlameBits::from_bytes(&enc), Ok(bits.clone()));
        assert_eq!(
            bits.claim(&acc(3), ClientId(n - 1)),
            Some(((n - 1) * 3 % 7 == 1, 1024))
        );
        // The trace count sits right after the clients: 8 + 4 + 4n bytes in.
        let at = 8 + 4 + 4 * n as usize;
        let mut more = enc.clone();
        more[at..at + 4].copy_from_slice(&4u32.to_le_bytes());
        assert_eq!(BlameBits::from_bytes(&more), Err(WireError::Truncated));
    }

    #[test]
    fn blame_payloads_round_trip_and_reject_garbage() {
        let bits = BlameBits {
            round: 4,
            clients: (0..11).map(ClientId).collect(),
            traces: vec![
                TraceBits {
                    accusation: acc(1),
                    slot_len: 64,
                    bits: (0..11).map(|i| i % 3 == 0).collect(),
                },
                TraceBits {
                    accusation: acc(5),
                    slot_len: 128,
                    bits: vec![true; 11],
                },
            ],
        };
        let enc = bits.to_bytes();
        assert_eq!(BlameBits::from_bytes(&enc), Ok(bits.clone()));
        assert_eq!(bits.claim(&acc(1), ClientId(3)), Some((true, 64)));
        assert_eq!(bits.claim(&acc(1), ClientId(4)), Some((false, 64)));
        assert_eq!(bits.claim(&acc(2), ClientId(3)), None);
        assert_eq!(bits.claim(&acc(5), ClientId(11)), None);
        for cut in 0..enc.len() {
            assert!(BlameBits::from_bytes(&enc[..cut]).is_err());
        }
        // Not canonical: clients out of order, accusations out of order or about another
        // round, a bit set beyond the accepted set.
        let mut swapped = bits.clone();
        swapped.clients.swap(0, 1);
        assert!(BlameBits::from_bytes(&swapped.to_bytes()).is_err());
        let mut reordered = bits.clone();
        reordered.traces.reverse();
        assert!(BlameBits::from_bytes(&reordered.to_bytes()).is_err());
        let mut other_round = bits.clone();
        other_round.traces[0].accusation.round = 3;
        assert!(BlameBits::from_bytes(&other_round.to_bytes()).is_err());
        let mut padded = enc.clone();
        let last = padded.len() - 1;
        padded[last] |= 0x80;
        assert_eq!(
            BlameBits::from_bytes(&padded),
            Err(WireError::Invalid("blame bit padding"))
        );

        for r in [
            Rebuttal::NoObjection {
                round: 4,
                digests: vec![[1; 32], [2; 32]],
            },
            Rebuttal::LieProof {
                accusation: acc(1),
                bits: vec![1, 2, 3],
                reveal: vec![4; 10],
            },
        ] {
            let enc = r.to_bytes();
            assert_eq!(Rebuttal::from_bytes(&enc), Ok(r));
            assert!(Rebuttal::from_bytes(&enc[..enc.len() - 1]).is_err());
        }
        for v in [
            Verdict {
                round: 4,
                culprits: Vec::new(),
                rebuttals: Vec::new(),
            },
            Verdict {
                round: 4,
                culprits: vec![ClientId(2), ClientId(5)],
                rebuttals: vec![vec![9; 12]],
            },
        ] {
            let enc = v.to_bytes();
            assert_eq!(Verdict::from_bytes(&enc), Ok(v));
            let mut extra = enc.clone();
            extra.push(0);
            assert_eq!(Verdict::from_bytes(&extra), Err(WireError::TrailingBytes));
        }
        let unsorted = Verdict {
            round: 4,
            culprits: vec![ClientId(5), ClientId(2)],
            rebuttals: Vec::new(),
        };
        assert!(Verdict::from_bytes(&unsorted.to_bytes()).is_err());
        let req = RebuttalRequest {
            round: 4,
            suspect: ClientId(3),
            bits: vec![vec![1], vec![2, 2]],
        };
        assert_eq!(RebuttalRequest::from_bytes(&req.to_bytes()), Ok(req));
    }
}
