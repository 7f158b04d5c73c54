//! Plaintext in the exponent of BLS12-381's GT: bytes ↔ chunks of `b` bits ↔ `u·e(g₁, g₂)`.
//!
//! # Why not a byte embedding
//!
//! The 2013 prototype used a symmetric Type-A pairing whose target group was the order-`r`
//! subgroup of a torus with cofactor 12: a random element of the torus lands in the subgroup
//! with probability 1/12, so try-and-increment embedded 60 bytes per element. BLS12-381 is an
//! asymmetric Type-3 pairing whose GT is the order-`r` subgroup (`r` ≈ 2^255) of `Fq12^*`. Even
//! inside the cyclotomic subgroup (order `q⁴ − q² + 1` ≈ 2^1523) the cofactor is ≈ 2^1268, so a
//! candidate built from payload bytes lies in GT with probability ≈ 2^-1268 and
//! try-and-increment never terminates. Raising a candidate to the cofactor does land in GT, but
//! that map is many-to-one and cannot be inverted, and no other efficient injective embedding of
//! bytes into GT is known. So bytes cannot be *the element*; they must be *its discrete log*.
//!
//! # The encoding
//!
//! A chunk value `v ∈ [0, 2^b)` (with `b` = 16 or 24, [`ChunkBits`]) is carried by
//! `(v + 1)·e(g₁, g₂)`. The `+ 1` keeps the identity out of the image, so an empty slot (whose
//! reveal is all identities) is told apart from every message, as for the embeddings of
//! `verdict_group::MessageGroup`. A message is framed like `verdict_group::framing`:
//! `u32 length (big-endian) ‖ message ‖ zero padding`, cut into `b/8`-byte chunks (big-endian
//! chunk values), one GT element per chunk. Decoding checks the header and the padding.
//!
//! Decoding needs the discrete log of an element known to lie in `[1, 2^b]`:
//! - **16 bits**: one lookup in a table of all `2^16` values, keyed by a 64-bit fingerprint of the
//!   element's encoding (its first 8 bytes: the low limb of one `Fq` coefficient), followed by an
//!   exact check (the candidate is re-encoded with a 3 × 257-entry digit table: two `Fq12`
//!   multiplications), so a fingerprint collision can never return a wrong value.
//! - **24 bits**: baby-step/giant-step over the same table: `u = i·2^16 + j`, up to 256 giant
//!   steps (one `Fq12` multiplication and one encoding each), then the exact check.
//!
//! # Capacity and cost (honest numbers)
//!
//! | | 16-bit chunks | 24-bit chunks |
//! |---|---|---|
//! | payload per 576-byte GT element | 2 bytes | 3 bytes |
//! | expansion on the wire | 288× | 192× |
//! | encode (owner) | ≈ 2 `Fq12` multiplications (≈ 9 µs measured) | same |
//! | decode (per element, after reveal) | 1 encoding + 1 hash lookup + exact check (≈ 10 µs) | ≤ 256 × (multiplication + encoding + lookup), ≈ 128 on average (≈ 0.7 ms typical, ≈ 1.8 ms worst case) |
//! | table | 2^16 fingerprints (a hash map of ≈ 2.2 MiB) plus 771 digit-table elements (≈ 0.45 MiB), built once per process (≈ 65,536 `Fq12` multiplications and encodings) | same table |
//!
//! The dominant costs of the pairing suite are elsewhere: every element of every client and
//! server ciphertext costs a pairing (≈ 1 ms) or a GT exponentiation (≈ 0.7 ms) to create and a
//! GT decode with its subgroup check (≈ 0.7 ms) to receive, for 2–3 bytes of payload. Compare a
//! ristretto255 element: ≈ 30 bytes for ≈ 20 µs. The suite exists for completeness and for
//! comparison with the paper, not for throughput.
//!
//! **Timing.** Encoding indexes the digit table by plaintext bits and decoding's running time
//! depends on the plaintext (variable time), like the try-and-increment embeddings of the other
//! groups: only the slot owner encodes, before padding, and decoding runs on the public reveal.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::OnceLock;

use thiserror::Error;
use verdict_group::{Bls12381Gt as Gt, Group};

/// Bytes of framing overhead (the big-endian `u32` length header).
pub const HEADER_LEN: usize = 4;

/// log₂ of the number of baby steps (the size of the lookup table).
const BABY_BITS: u32 = 16;
/// Number of baby steps: the table maps `u ∈ [1, 2^16]`.
const BABY_STEPS: u32 = 1 << BABY_BITS;

/// The width of the plaintext chunks carried in the exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkBits {
    /// 2 bytes per element; decoding is one table lookup.
    B16,
    /// 3 bytes per element; decoding is baby-step/giant-step (≤ 256 giant steps).
    B24,
}

impl ChunkBits {
    /// Bits per chunk.
    pub const fn bits(self) -> u32 {
        match self {
            ChunkBits::B16 => 16,
            ChunkBits::B24 => 24,
        }
    }
    /// Payload bytes per GT element.
    pub const fn bytes(self) -> usize {
        match self {
            ChunkBits::B16 => 2,
            ChunkBits::B24 => 3,
        }
    }
}

/// Why a GT element does not carry a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ChunkError {
    /// The identity carries no chunk (the reveal of an element nobody wrote into).
    #[error("the identity element carries no chunk")]
    Identity,
    /// The element's discrete log is not in `[1, 2^b]`: garbage or a corrupted reveal.
    #[error("element is not a {bits}-bit chunk encoding")]
    NotAChunk {
        /// The chunk width that was tried.
        bits: u32,
    },
    /// A chunk value does not fit in `b` bits (caller error).
    #[error("chunk value {value} does not fit in {bits} bits")]
    ValueTooLarge {
        /// The value.
        value: u32,
        /// The chunk width.
        bits: u32,
    },
}

/// Why a message cannot be framed into GT chunks, or elements are not a framed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GtFrameError {
    /// The message needs more elements than the slot has.
    #[error("message of {len} bytes needs {needed} GT elements, slot has {available}")]
    TooLong {
        /// Message length in bytes.
        len: usize,
        /// Elements needed.
        needed: usize,
        /// Elements available.
        available: usize,
    },
    /// Every element is the identity: nobody transmitted in this slot.
    #[error("all elements are the identity: no message was sent")]
    Empty,
    /// An element does not carry a chunk.
    #[error("GT element {index} does not carry a chunk: {source}")]
    Element {
        /// Index of the offending element.
        index: usize,
        /// What is wrong with it.
        source: ChunkError,
    },
    /// The decoded frame is inconsistent (bad length header or non-zero padding).
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
}

/// The precomputed tables for encoding and decoding chunks. Build once ([`GtTable::global`]).
pub struct GtTable {
    /// Fingerprint of `u·g` → `u`, for `u ∈ [1, 2^16]`.
    baby: HashMap<u64, u32>,
    /// Entries whose fingerprint collided with an earlier one (expected empty; kept so that
    /// decoding stays exact even then).
    collisions: Vec<(u64, u32)>,
    /// `digits[d][j] = j·256^d·g` for `j ∈ [0, 256]`.
    digits: [Vec<Gt>; 3],
    /// `−2^16·g`, one giant step.
    giant: Gt,
}

impl core::fmt::Debug for GtTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GtTable")
            .field("baby_steps", &self.baby.len())
            .field("collisions", &self.collisions.len())
            .finish_non_exhaustive()
    }
}

/// The 64-bit fingerprint of an element: the first 8 bytes of its canonical encoding (the low
/// limb of its first `Fq` coefficient, which is close to uniform over GT).
fn fingerprint(e: &Gt) -> u64 {
    let bytes = e.to_bytes();
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

impl GtTable {
    /// Builds the tables: 2^16 `Fq12` multiplications and encodings plus ≈ 770 multiplications
    /// for the digit table (a fraction of a second with optimized dependencies).
    pub fn new() -> Self {
        let g = Gt::generator();
        let mut digits: [Vec<Gt>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        let mut row_base = g;
        for row in &mut digits {
            let mut acc = Gt::identity();
            row.reserve(257);
            for _ in 0..=256 {
                row.push(acc);
                acc += row_base;
            }
            // acc = 257·row_base; the next row's base is 256·row_base.
            row_base = acc - row_base;
        }
        let mut baby = HashMap::with_capacity(BABY_STEPS as usize);
        let mut collisions = Vec::new();
        let mut acc = Gt::identity();
        for u in 1..=BABY_STEPS {
            acc += g;
            let fp = fingerprint(&acc);
            // Keep the first entry in the map and any later one on the side.
            match baby.entry(fp) {
                Entry::Occupied(_) => collisions.push((fp, u)),
                Entry::Vacant(slot) => {
                    slot.insert(u);
                }
            }
        }
        // acc = 2^16·g.
        Self {
            baby,
            collisions,
            digits,
            giant: -acc,
        }
    }

    /// A process-wide table, built on first use.
    pub fn global() -> &'static GtTable {
        static TABLE: OnceLock<GtTable> = OnceLock::new();
        TABLE.get_or_init(GtTable::new)
    }

    /// `u·g` for `u ∈ [0, 2^24]` with the digit table (two or three multiplications).
    fn small_mul(&self, u: u32) -> Gt {
        let [d0, d1, d2] = &self.digits;
        let lo = (u & 0xff) as usize;
        let mid = ((u >> 8) & 0xff) as usize;
        let hi = (u >> 16) as usize;
        let pick = |row: &Vec<Gt>, i: usize| row.get(i).copied().unwrap_or_else(Gt::identity);
        pick(d0, lo) + pick(d1, mid) + pick(d2, hi)
    }

    /// Encodes a chunk value `v < 2^b` as `(v + 1)·e(g₁, g₂)`.
    pub fn encode_chunk(&self, bits: ChunkBits, v: u32) -> Result<Gt, ChunkError> {
        if v >> bits.bits() != 0 {
            return Err(ChunkError::ValueTooLarge {
                value: v,
                bits: bits.bits(),
            });
        }
        Ok(self.small_mul(v + 1))
    }

    /// Candidate `u ∈ [1, 2^16]` with `fingerprint(u·g) = fp`, verified exactly against `h`.
    fn lookup(&self, fp: u64, h: &Gt) -> Option<u32> {
        let first = self.baby.get(&fp).copied();
        first
            .into_iter()
            .chain(
                self.collisions
                    .iter()
                    .filter(|(f, _)| *f == fp)
                    .map(|(_, u)| *u),
            )
            .find(|&u| self.small_mul(u) == *h)
    }

    /// Recovers the chunk value carried by `e`: 16 bits by one lookup, 24 bits by
    /// baby-step/giant-step. Exact: never returns a value whose encoding is not `e`.
    pub fn decode_chunk(&self, bits: ChunkBits, e: &Gt) -> Result<u32, ChunkError> {
        if e.is_identity() {
            return Err(ChunkError::Identity);
        }
        let giant_steps: u32 = 1 << (bits.bits() - BABY_BITS);
        let mut h = *e;
        for i in 0..giant_steps {
            // h = e − i·2^16·g; a hit j gives u = i·2^16 + j.
            if let Some(j) = self.lookup(fingerprint(&h), &h) {
                return Ok(i * BABY_STEPS + j - 1);
            }
            h += self.giant;
        }
        Err(ChunkError::NotAChunk { bits: bits.bits() })
    }
}

impl Default for GtTable {
    fn default() -> Self {
        Self::new()
    }
}

/// The number of GT elements needed to frame a message of `len` bytes.
pub fn elements_needed(bits: ChunkBits, len: usize) -> usize {
    (len + HEADER_LEN).div_ceil(bits.bytes())
}

/// The longest message that fits in `elements` GT elements.
pub fn max_message_len(bits: ChunkBits, elements: usize) -> usize {
    (elements * bits.bytes()).saturating_sub(HEADER_LEN)
}

/// Frames `message` into exactly `elements` GT elements (`len ‖ message ‖ 0…0`, chunked).
pub fn encode_message(
    table: &GtTable,
    bits: ChunkBits,
    message: &[u8],
    elements: usize,
) -> Result<Vec<Gt>, GtFrameError> {
    let needed = elements_needed(bits, message.len());
    let len = u32::try_from(message.len()).ok();
    let (Some(len), true) = (len, needed <= elements) else {
        return Err(GtFrameError::TooLong {
            len: message.len(),
            needed,
            available: elements,
        });
    };
    // The plaintext frame of an owner's message, wiped once embedded.
    let mut frame = zeroize::Zeroizing::new(vec![0u8; elements * bits.bytes()]);
    frame[..HEADER_LEN].copy_from_slice(&len.to_be_bytes());
    frame[HEADER_LEN..HEADER_LEN + message.len()].copy_from_slice(message);
    frame
        .chunks_exact(bits.bytes())
        .enumerate()
        .map(|(index, chunk)| {
            let v = chunk.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
            table
                .encode_chunk(bits, v)
                .map_err(|source| GtFrameError::Element { index, source })
        })
        .collect()
}

/// Recovers the message framed by [`encode_message`].
pub fn decode_message(
    table: &GtTable,
    bits: ChunkBits,
    elements: &[Gt],
) -> Result<Vec<u8>, GtFrameError> {
    if elements.iter().all(Gt::is_identity) {
        return Err(GtFrameError::Empty);
    }
    let mut frame = Vec::with_capacity(elements.len() * bits.bytes());
    for (index, e) in elements.iter().enumerate() {
        let v = table
            .decode_chunk(bits, e)
            .map_err(|source| GtFrameError::Element { index, source })?;
        let be = v.to_be_bytes();
        frame.extend_from_slice(&be[4 - bits.bytes()..]);
    }
    let (header, body) = frame
        .split_at_checked(HEADER_LEN)
        .ok_or(GtFrameError::Malformed("frame shorter than its header"))?;
    let mut len_bytes = [0u8; HEADER_LEN];
    len_bytes.copy_from_slice(header);
    let len = u32::from_be_bytes(len_bytes) as usize;
    if len > body.len() {
        return Err(GtFrameError::Malformed("length header exceeds the frame"));
    }
    let (message, padding) = body.split_at(len);
    if padding.iter().any(|&b| b != 0) {
        return Err(GtFrameError::Malformed("non-zero padding"));
    }
    Ok(message.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_group::Scalar;

    type S = <Gt as Group>::Scalar;

    #[test]
    fn table_has_no_fingerprint_collisions() {
        let t = GtTable::global();
        assert_eq!(t.baby.len(), BABY_STEPS as usize);
        assert!(t.collisions.is_empty());
        // Its Debug shows the sizes, not 2.6 MiB of elements.
        assert_eq!(
            format!("{t:?}"),
            "GtTable { baby_steps: 65536, collisions: 0, .. }"
        );
    }

    /// The collision list is empty for the real generator, so its path never runs in a
    /// session. Here it is forced: `5·g`'s entry moves to the side list and the map's slot
    /// for that fingerprint holds a wrong candidate, as a true collision would. Decoding must
    /// still find 5 (chunk value 4), because every candidate is checked exactly.
    #[test]
    fn decoding_stays_exact_through_a_fingerprint_collision() {
        let real = GtTable::global();
        let fp = fingerprint(&real.small_mul(5));
        let mut baby = real.baby.clone();
        baby.insert(fp, 7);
        let forced = GtTable {
            baby,
            collisions: vec![(fingerprint(&real.small_mul(9)), 9), (fp, 5)],
            digits: real.digits.clone(),
            giant: real.giant,
        };
        let e = forced.encode_chunk(ChunkBits::B16, 4).unwrap();
        assert_eq!(forced.decode_chunk(ChunkBits::B16, &e), Ok(4));
        assert_eq!(forced.decode_chunk(ChunkBits::B24, &e), Ok(4));
    }

    #[test]
    fn chunks_round_trip_at_the_edges() {
        let t = GtTable::global();
        let g = Gt::generator();
        for v in [0u32, 1, 2, 255, 256, 257, 65_534, 65_535] {
            let e = t.encode_chunk(ChunkBits::B16, v).unwrap();
            assert_eq!(e, g * S::from_u64(u64::from(v) + 1));
            assert_eq!(t.decode_chunk(ChunkBits::B16, &e), Ok(v));
            assert_eq!(t.decode_chunk(ChunkBits::B24, &e), Ok(v));
        }
        for v in [
            65_536u32,
            65_537,
            131_071,
            1 << 20,
            (1 << 24) - 2,
            (1 << 24) - 1,
        ] {
            let e = t.encode_chunk(ChunkBits::B24, v).unwrap();
            assert_eq!(e, g * S::from_u64(u64::from(v) + 1));
            assert_eq!(t.decode_chunk(ChunkBits::B24, &e), Ok(v));
            assert_eq!(
                t.decode_chunk(ChunkBits::B16, &e),
                Err(ChunkError::NotAChunk { bits: 16 })
            );
        }
        assert_eq!(
            t.encode_chunk(ChunkBits::B16, 65_536),
            Err(ChunkError::ValueTooLarge {
                value: 65_536,
                bits: 16
            })
        );
        assert!(t.encode_chunk(ChunkBits::B24, 1 << 24).is_err());
    }

    #[test]
    fn undecodable_elements_are_typed_errors() {
        let t = GtTable::global();
        assert_eq!(
            t.decode_chunk(ChunkBits::B16, &Gt::identity()),
            Err(ChunkError::Identity)
        );
        // A random element (discrete log ≈ 2^255) and 2^24 + 1 (just out of range).
        let r = Gt::hash_to_group(b"verdict-dcnet test", b"random GT");
        assert!(matches!(
            t.decode_chunk(ChunkBits::B24, &r),
            Err(ChunkError::NotAChunk { bits: 24 })
        ));
        let over = Gt::generator() * S::from_u64((1 << 24) + 1);
        assert!(t.decode_chunk(ChunkBits::B24, &over).is_err());
        // −1·g is not a chunk either.
        assert!(t.decode_chunk(ChunkBits::B16, &-Gt::generator()).is_err());
    }

    #[test]
    fn messages_round_trip_and_garbage_is_rejected() {
        let t = GtTable::global();
        for bits in [ChunkBits::B16, ChunkBits::B24] {
            for msg in [&b""[..], b"a", b"hello, verdict", &[0xff; 9]] {
                let n = elements_needed(bits, msg.len());
                let els = encode_message(t, bits, msg, n + 1).unwrap();
                assert_eq!(els.len(), n + 1);
                assert!(els.iter().all(|e| !e.is_identity()));
                assert_eq!(decode_message(t, bits, &els).unwrap(), msg);
            }
            assert!(matches!(
                encode_message(t, bits, &[0; 10], 2),
                Err(GtFrameError::TooLong { .. })
            ));
            assert_eq!(
                decode_message(t, bits, &[Gt::identity(); 3]),
                Err(GtFrameError::Empty)
            );
            let mut els = encode_message(t, bits, b"xy", 4).unwrap();
            els[3] = t.encode_chunk(bits, 1).unwrap();
            assert_eq!(
                decode_message(t, bits, &els),
                Err(GtFrameError::Malformed("non-zero padding"))
            );
            els[0] = t.encode_chunk(bits, 0xffff).unwrap();
            assert!(decode_message(t, bits, &els).is_err());
            els[1] = Gt::generator() * S::from_u64(1 << 30);
            assert!(matches!(
                decode_message(t, bits, &els),
                Err(GtFrameError::Element { index: 1, .. })
            ));
        }
        assert_eq!(max_message_len(ChunkBits::B16, 10), 16);
        assert_eq!(max_message_len(ChunkBits::B24, 10), 26);
        assert_eq!(elements_needed(ChunkBits::B24, 26), 10);
    }
}
