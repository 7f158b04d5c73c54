//! The hybrid blame messages as typed payloads, encoded and decoded by both roles, and the
//! transferable lie proof.
//!
//! | message | from → to | payload |
//! |---|---|---|
//! | [`BlameBits`] | server → servers | accusation, slot capacity, the accused round's `S` and the sender's pad bit with each client |
//! | [`RebuttalRequest`] | every server → suspect | accusation, suspect, the `M` signed `BlameBits` the sender holds |
//! | [`Rebuttal`] | suspect → every server | accusation, then either *no objection* to the set of `M` `BlameBits` it judged (their header digests), or a *lie proof*: one server's signed `BlameBits` and the suspect's DLEQ-proven DH value with that server, which shows the claimed pad bit is false |
//! | [`Verdict`] | server → servers | accusation, culprit, and the rebuttal it was decided on (none: no suspect, or the rebuttal deadline passed) |
//!
//! A lie proof is self-contained: the server's signature on its claim and the client's on the
//! reveal let anyone with the roster check it, at any time, whatever else they saw.

use verdict_dcnet::{ClientId, DhReveal, Party, ServerId, SessionId, SlotRound};

use crate::config::GroupConfig;
use crate::error::WireError;
use crate::slot::Accusation;
use crate::suite::{ProtoSuite, XorOf};
use crate::wire::{Envelope, Kind, Reader, Writer, write_byte_list};

/// A server's pad bits for an accusation: its pad bit with every client of the accused round's
/// accepted set, at the accused bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlameBits {
    /// The accusation.
    pub accusation: Accusation,
    /// The capacity of the accused XOR slot in that round (binds the pad stream).
    pub slot_len: u64,
    /// The accused round's accepted clients, in order.
    pub clients: Vec<ClientId>,
    /// The sender's pad bit with each client.
    pub bits: Vec<bool>,
}

impl BlameBits {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(&self.accusation.to_bytes()).u64(self.slot_len);
        w.count(self.clients.len());
        for (c, b) in self.clients.iter().zip(&self.bits) {
            w.u32(c.0).u8(u8::from(*b));
        }
        w.finish()
    }

    /// Decodes (clients strictly increasing, bits 0 or 1).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
        let accusation = Accusation::read(&mut r)?;
        let slot_len = r.u64()?;
        let n = r.count()?;
        let mut clients: Vec<ClientId> = Vec::with_capacity(n);
        let mut bits = Vec::with_capacity(n);
        for _ in 0..n {
            let c = ClientId(r.u32()?);
            if clients.last().is_some_and(|p| p.0 >= c.0) {
                return Err(WireError::Invalid("blame client order"));
            }
            clients.push(c);
            bits.push(match r.u8()? {
                0 => false,
                1 => true,
                _ => return Err(WireError::Invalid("bit")),
            });
        }
        r.finish()?;
        Ok(Self {
            accusation,
            slot_len,
            clients,
            bits,
        })
    }

    /// The claimed pad bit with `client`.
    pub fn bit_for(&self, client: ClientId) -> Option<bool> {
        let i = self.clients.binary_search(&client).ok()?;
        self.bits.get(i).copied()
    }
}

/// What every server sends the suspect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebuttalRequest {
    /// The accusation.
    pub accusation: Accusation,
    /// The suspect.
    pub suspect: ClientId,
    /// The signed `BlameBits` envelopes the sender holds (one per server).
    pub bits: Vec<Vec<u8>>,
}

impl RebuttalRequest {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(&self.accusation.to_bytes()).u32(self.suspect.0);
        write_byte_list(&mut w, &self.bits);
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
        let accusation = Accusation::read(&mut r)?;
        let suspect = ClientId(r.u32()?);
        let bits = r.byte_list()?;
        r.finish()?;
        Ok(Self {
            accusation,
            suspect,
            bits,
        })
    }
}

/// The suspect's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rebuttal {
    /// "These `BlameBits` (by header digest, server order) are right about me."
    NoObjection {
        /// The accusation.
        accusation: Accusation,
        /// The header digests of the `M` signed `BlameBits` judged.
        digests: Vec<[u8; 32]>,
    },
    /// "This server's signed claim about my pad bit is false; here is our DH value."
    LieProof {
        /// The accusation.
        accusation: Accusation,
        /// The lying server's signed `BlameBits` envelope.
        bits: Vec<u8>,
        /// The suspect's DLEQ-proven DH value with that server (encoded [`DhReveal`]).
        reveal: Vec<u8>,
    },
}

impl Rebuttal {
    /// The accusation it answers.
    pub fn accusation(&self) -> &Accusation {
        match self {
            Self::NoObjection { accusation, .. } | Self::LieProof { accusation, .. } => accusation,
        }
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(&self.accusation().to_bytes());
        match self {
            Self::NoObjection { digests, .. } => {
                w.u8(0).count(digests.len());
                for d in digests {
                    w.raw(d);
                }
            }
            Self::LieProof { bits, reveal, .. } => {
                w.u8(1).bytes(bits).bytes(reveal);
            }
        }
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
        let accusation = Accusation::read(&mut r)?;
        let out = match r.u8()? {
            0 => {
                let n = r.count()?;
                let mut digests = Vec::with_capacity(n);
                for _ in 0..n {
                    digests.push(r.array()?);
                }
                Self::NoObjection {
                    accusation,
                    digests,
                }
            }
            1 => Self::LieProof {
                accusation,
                bits: r.bytes()?.to_vec(),
                reveal: r.bytes()?.to_vec(),
            },
            _ => return Err(WireError::Invalid("rebuttal")),
        };
        r.finish()?;
        Ok(out)
    }
}

/// A server's verdict with the rebuttal it was decided on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The accusation.
    pub accusation: Accusation,
    /// The culprit (`None`: nobody deviates, the accusation was false).
    pub culprit: Option<Party>,
    /// The suspect's signed rebuttal envelope the verdict rests on (`None`: no suspect, or the
    /// rebuttal deadline passed).
    pub rebuttal: Option<Vec<u8>>,
}

impl Verdict {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(&self.accusation.to_bytes());
        match self.culprit {
            None => w.u8(0),
            Some(p) => w.u8(1).party(p),
        };
        match &self.rebuttal {
            None => w.u8(0),
            Some(r) => w.u8(1).bytes(r),
        };
        w.finish()
    }

    /// Decodes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
        let accusation = Accusation::read(&mut r)?;
        let culprit = match r.u8()? {
            0 => None,
            1 => Some(r.party()?),
            _ => return Err(WireError::Invalid("verdict")),
        };
        let rebuttal = match r.u8()? {
            0 => None,
            1 => Some(r.bytes()?.to_vec()),
            _ => return Err(WireError::Invalid("verdict")),
        };
        r.finish()?;
        Ok(Self {
            accusation,
            culprit,
            rebuttal,
        })
    }
}

/// Opens a signed envelope relayed inside another message (not received from its signer): the
/// kind must be `kind`, the session ours, the sender in the roster and the signature valid.
pub(crate) fn open_relayed<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    kind: Kind,
    bytes: &[u8],
) -> Option<Envelope<S::G>> {
    let env = Envelope::<S::G>::from_bytes(bytes).ok()?;
    let h = env.header();
    if h.kind != kind || h.session != session.0 {
        return None;
    }
    env.verify(config.key_of(h.sender)?).ok()?;
    Some(env)
}

/// A signed `BlameBits` envelope, opened and decoded: its signer and content.
pub(crate) fn open_blame_bits<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    bytes: &[u8],
) -> Option<(ServerId, BlameBits, Envelope<S::G>)> {
    let env = open_relayed(config, session, Kind::BlameBits, bytes)?;
    let Party::Server(j) = env.header().sender else {
        return None;
    };
    let bits = BlameBits::from_bytes(&env.payload).ok()?;
    (env.header().round == bits.accusation.round).then_some((j, bits, env))
}

/// Checks a lie proof: a client's signed rebuttal carrying server `j`'s signed pad-bit claim
/// about that client and their DH value, proving the claim false. Returns `j` if it does.
///
/// `xor` is the session's XOR roster (the DH keys). Everything needed is in the two
/// signatures, the DLEQ proof and the roster, so any participant can check it at any time.
pub(crate) fn check_lie_proof<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    xor: &verdict_dcnet::Roster<XorOf<S>>,
    rebuttal_env: &[u8],
) -> Option<(ServerId, Accusation, Vec<u8>)> {
    let env = open_relayed(config, session, Kind::Rebuttal, rebuttal_env)?;
    let Party::Client(c) = env.header().sender else {
        return None;
    };
    let Rebuttal::LieProof {
        accusation,
        bits,
        reveal,
    } = Rebuttal::from_bytes(&env.payload).ok()?
    else {
        return None;
    };
    let (j, claim, _) = open_blame_bits(config, session, &bits)?;
    if claim.accusation != accusation {
        return None;
    }
    let claimed = claim.bit_for(c)?;
    let reveal = DhReveal::<S::G>::from_bytes(&reveal).ok()?;
    if reveal.client() != c || reveal.server() != j || reveal.prover() != Party::Client(c) {
        return None;
    }
    let len = usize::try_from(claim.slot_len).ok()?;
    let sr = SlotRound::new(accusation.slot, accusation.round, len);
    let truth = XorOf::<S>::verify_pad_bit(xor, &reveal, sr, accusation.bit).ok()?;
    (truth != claimed).then_some((j, accusation, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc() -> Accusation {
        Accusation {
            round: 4,
            slot: 2,
            bit: 99,
        }
    }

    #[test]
    fn blame_payloads_round_trip_and_reject_garbage() {
        let bits = BlameBits {
            accusation: acc(),
            slot_len: 64,
            clients: vec![ClientId(0), ClientId(3), ClientId(7)],
            bits: vec![true, false, true],
        };
        let enc = bits.to_bytes();
        assert_eq!(BlameBits::from_bytes(&enc), Ok(bits.clone()));
        assert_eq!(bits.bit_for(ClientId(3)), Some(false));
        assert_eq!(bits.bit_for(ClientId(4)), None);
        for cut in 0..enc.len() {
            assert!(BlameBits::from_bytes(&enc[..cut]).is_err());
        }
        // Clients out of order are not a canonical encoding.
        let mut swapped = bits.clone();
        swapped.clients.swap(0, 1);
        assert!(BlameBits::from_bytes(&swapped.to_bytes()).is_err());
        let mut bad_bit = enc.clone();
        let last = bad_bit.len() - 1;
        bad_bit[last] = 2;
        assert!(BlameBits::from_bytes(&bad_bit).is_err());

        for r in [
            Rebuttal::NoObjection {
                accusation: acc(),
                digests: vec![[1; 32], [2; 32]],
            },
            Rebuttal::LieProof {
                accusation: acc(),
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
                accusation: acc(),
                culprit: None,
                rebuttal: None,
            },
            Verdict {
                accusation: acc(),
                culprit: Some(Party::Client(ClientId(5))),
                rebuttal: Some(vec![9; 12]),
            },
        ] {
            let enc = v.to_bytes();
            assert_eq!(Verdict::from_bytes(&enc), Ok(v));
            let mut extra = enc.clone();
            extra.push(0);
            assert_eq!(Verdict::from_bytes(&extra), Err(WireError::TrailingBytes));
        }
        let req = RebuttalRequest {
            accusation: acc(),
            suspect: ClientId(3),
            bits: vec![vec![1], vec![2, 2]],
        };
        assert_eq!(RebuttalRequest::from_bytes(&req.to_bytes()), Ok(req));
    }
}
