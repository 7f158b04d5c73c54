//! Message embedding into P-256 ([`MessageGroup`]): x-coordinate try-and-increment.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{Field, PrimeField};

use super::point::*;
use super::scalar::bigint_to_be;
use crate::error::EmbedError;
use crate::traits::MessageGroup;

/// Payload capacity of one element.
const EMBED_CAPACITY: usize = 30;
/// Offset of the counter byte in the x-coordinate.
const EMBED_COUNTER_POS: usize = 31;

/// The embedding candidate `len ‖ payload ‖ zero padding ‖ counter` (callers check the
/// payload length).
fn embed_candidate(payload: &[u8], counter: u8) -> [u8; 32] {
    let mut x = [0u8; 32];
    x[0] = payload.len() as u8;
    x[1..1 + payload.len()].copy_from_slice(payload);
    x[EMBED_COUNTER_POS] = counter;
    x
}

/// Embedding layout: the x-coordinate as a 32-byte big-endian integer is
///
/// | byte | content |
/// |---|---|
/// | 0 | payload length, 0..=30 |
/// | 1..=30 | payload, zero-padded to 30 bytes |
/// | 31 | counter |
///
/// and `y` is the even square root. The first byte is at most 30, so `x < 2^253 < p` and every
/// candidate is a canonical field element. The counter is increased from 0 until
/// `x³ − 3x + b` is a square, which each candidate is with probability ≈ 1/2, so all 256
/// counter values fail with probability ≈ 2^-256 ([`EmbedError::CounterExhausted`]). An
/// affine point is never the identity, so no payload, not even the empty one, embeds to it.
///
/// [`MessageGroup::extract`] accepts exactly the image of [`MessageGroup::embed`]: besides the
/// identity, odd `y`, a length above 30 and non-zero padding, it rejects a point whose counter
/// is not the *first* one that works for its payload (such a point is on the curve but no
/// honest sender produces it), at the cost of one Legendre symbol per smaller counter: one on
/// average for honest embeddings, at most 255 for a crafted point (a bounded cost of a few
/// milliseconds that only the sender of that element can trigger).
impl MessageGroup for Point {
    const CAPACITY: usize = EMBED_CAPACITY;

    fn embed(payload: &[u8]) -> Result<Self, EmbedError> {
        if payload.len() > EMBED_CAPACITY {
            return Err(EmbedError::PayloadTooLong {
                len: payload.len(),
                capacity: EMBED_CAPACITY,
            });
        }
        for counter in 0..=u8::MAX {
            let candidate = embed_candidate(payload, counter);
            let Some(x) = fq_from_be(&candidate) else {
                // Unreachable: the leading byte ≤ 30 keeps x below p.
                return Err(EmbedError::CounterExhausted);
            };
            if let Some(p) = lift_x(x, false) {
                return Ok(Point::from(p));
            }
        }
        Err(EmbedError::CounterExhausted)
    }

    fn extract(&self) -> Result<Vec<u8>, EmbedError> {
        let Some((x, y)) = self.0.into_affine().xy() else {
            return Err(EmbedError::Identity);
        };
        if is_odd(&y) {
            return Err(EmbedError::NotAnEmbedding);
        }
        let x_bytes = bigint_to_be(&x.into_bigint());
        let len = x_bytes[0] as usize;
        if len > EMBED_CAPACITY {
            return Err(EmbedError::NotAnEmbedding);
        }
        let (payload, padding) = x_bytes[1..EMBED_COUNTER_POS].split_at(len);
        if padding.iter().any(|&b| b != 0) {
            return Err(EmbedError::NotAnEmbedding);
        }
        for earlier in 0..x_bytes[EMBED_COUNTER_POS] {
            let candidate = embed_candidate(payload, earlier);
            let is_point = fq_from_be(&candidate).is_some_and(|x| curve_rhs(&x).legendre().is_qr());
            if is_point {
                return Err(EmbedError::NotAnEmbedding);
            }
        }
        Ok(payload.to_vec())
    }
}
