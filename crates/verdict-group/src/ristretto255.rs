//! ristretto255 (RFC 9496) over curve25519-dalek 4: the default, fastest group.
//!
//! - Encoding: the RFC 9496 32-byte canonical encoding. Decoding rejects non-canonical field
//!   elements, negative `s`, and strings that encode no point; since ristretto255 is a
//!   prime-order group by construction, there is no subgroup to check.
//! - Scalars: 32-byte little-endian integers `< ℓ`; `Scalar::from_uniform_bytes` reduces a
//!   512-bit little-endian integer.
//! - Hash to group: blake3 XOF (see [`crate::hash`]) → 64 uniform bytes → the RFC 9496 §4.3.4
//!   element derivation (two one-way maps, added).
//! - Embedding: try-and-increment on the canonical encoding, [`MessageGroup::CAPACITY`] = 30.
//! - Constant time: `Mul<Scalar>`, [`Group::mul_generator`], [`Group::msm`] and the
//!   fixed-base table are constant time (dalek); `*_vartime`, hashing and embedding are not.

use core::ops::{Mul, MulAssign};

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar as DalekScalar;
use curve25519_dalek::traits::{Identity, IsIdentity, MultiscalarMul, VartimeMultiscalarMul};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::error::{DecodeError, EmbedError, GroupError};
use crate::traits::{FixedBaseTable, Group, MessageGroup};

/// A scalar modulo ℓ = 2^252 + 27742317777372353535851937790883648493.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Zeroize)]
pub struct Scalar(pub DalekScalar);

/// An element of the ristretto255 group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct Point(pub RistrettoPoint);

impl Scalar {
    /// The underlying curve25519-dalek scalar.
    pub fn inner(&self) -> &DalekScalar {
        &self.0
    }
}

impl Point {
    /// The RFC 9496 §4.3.4 element derivation from 64 uniform bytes (exposed for the RFC's
    /// known-answer tests and for callers that bring their own uniform bytes).
    pub fn from_uniform_bytes(bytes: &[u8; 64]) -> Self {
        Self(RistrettoPoint::from_uniform_bytes(bytes))
    }

    /// The underlying curve25519-dalek point.
    pub fn inner(&self) -> &RistrettoPoint {
        &self.0
    }
}

scalar_newtype_ops!(Scalar);
point_newtype_ops!(Point);

impl Mul<Scalar> for Point {
    type Output = Point;
    #[inline]
    fn mul(self, rhs: Scalar) -> Point {
        Point(self.0 * rhs.0)
    }
}
impl Mul<&Scalar> for Point {
    type Output = Point;
    #[inline]
    fn mul(self, rhs: &Scalar) -> Point {
        Point(self.0 * rhs.0)
    }
}
impl MulAssign<Scalar> for Point {
    fn mul_assign(&mut self, rhs: Scalar) {
        self.0 *= rhs.0;
    }
}

impl crate::traits::Scalar for Scalar {
    const ENCODED_LEN: usize = 32;
    type Repr = [u8; 32];

    fn zero() -> Self {
        Scalar(DalekScalar::ZERO)
    }
    fn one() -> Self {
        Scalar(DalekScalar::ONE)
    }
    fn from_u64(v: u64) -> Self {
        Scalar(DalekScalar::from(v))
    }
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut wide = [0u8; 64];
        rng.fill_bytes(&mut wide);
        let s = Scalar(DalekScalar::from_bytes_mod_order_wide(&wide));
        wide.zeroize();
        s
    }
    fn from_uniform_bytes(bytes: &[u8; 64]) -> Self {
        Scalar(DalekScalar::from_bytes_mod_order_wide(bytes))
    }
    fn invert(&self) -> Option<Self> {
        if self.0 == DalekScalar::ZERO {
            None
        } else {
            Some(Scalar(self.0.invert()))
        }
    }
    fn is_zero(&self) -> bool {
        self.0 == DalekScalar::ZERO
    }
    fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let arr: [u8; 32] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
            expected: 32,
            actual: bytes.len(),
        })?;
        Option::from(DalekScalar::from_canonical_bytes(arr))
            .map(Scalar)
            .ok_or(DecodeError::NonCanonical)
    }
    fn to_le_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }
}

/// A constant-time fixed-base table (dalek's radix-16 basepoint table for an arbitrary base).
#[derive(Clone)]
pub struct Table {
    base: Point,
    table: Box<RistrettoBasepointTable>,
}

impl core::fmt::Debug for Table {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Table")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl FixedBaseTable<Point> for Table {
    fn mul(&self, s: &Scalar) -> Point {
        Point(&s.0 * &*self.table)
    }
    fn base(&self) -> Point {
        self.base
    }
}

/// Little-endian encoding of the field prime p = 2^255 − 19.
const FIELD_PRIME_LE: [u8; 32] = {
    let mut p = [0xffu8; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    p
};

/// Whether 32 little-endian bytes encode an integer `≥ p` (so not a canonical field element).
fn is_at_least_field_prime(bytes: &[u8; 32]) -> bool {
    for i in (0..32).rev() {
        if bytes[i] != FIELD_PRIME_LE[i] {
            return bytes[i] > FIELD_PRIME_LE[i];
        }
    }
    true
}

impl Group for Point {
    type Scalar = Scalar;
    type Repr = [u8; 32];
    type Table = Table;

    const NAME: &'static str = "ristretto255";
    const ENCODED_LEN: usize = 32;

    fn identity() -> Self {
        Point(RistrettoPoint::identity())
    }
    fn generator() -> Self {
        Point(curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT)
    }
    fn is_identity(&self) -> bool {
        self.0.is_identity()
    }
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut wide = [0u8; 64];
        rng.fill_bytes(&mut wide);
        Point(RistrettoPoint::from_uniform_bytes(&wide))
    }
    fn mul_generator(s: &Scalar) -> Self {
        Point(RISTRETTO_BASEPOINT_TABLE * &s.0)
    }
    fn mul_vartime(&self, s: &Scalar) -> Self {
        // dalek's double-base wNAF with a zero second scalar beats the constant-time ladder.
        Point(RistrettoPoint::vartime_double_scalar_mul_basepoint(
            &s.0,
            &self.0,
            &DalekScalar::ZERO,
        ))
    }
    fn mul_add_generator_vartime(&self, a: &Scalar, b: &Scalar) -> Self {
        Point(RistrettoPoint::vartime_double_scalar_mul_basepoint(
            &a.0, &self.0, &b.0,
        ))
    }
    fn msm_vartime(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        Ok(Point(RistrettoPoint::vartime_multiscalar_mul(
            scalars.iter().map(|s| &s.0),
            points.iter().map(|p| &p.0),
        )))
    }
    fn msm(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        // dalek's `MultiscalarMul` is its constant-time Straus (AVX2 where available): fixed
        // radix-16 digits and constant-time table selection for every term.
        Ok(Point(RistrettoPoint::multiscalar_mul(
            scalars.iter().map(|s| &s.0),
            points.iter().map(|p| &p.0),
        )))
    }
    fn mul_many_vartime(&self, scalars: &[Scalar]) -> Vec<Self> {
        crate::fixed_base::mul_many_vartime(self, scalars)
    }
    fn precompute(&self) -> Table {
        Table {
            base: *self,
            table: Box::new(RistrettoBasepointTable::create(&self.0)),
        }
    }
    fn mul_generator_encoded(scalars: &[Scalar]) -> (Vec<Self>, Vec<[u8; 32]>) {
        // `half()` reduces its constant on every call: compute it once per batch.
        let h = half();
        let halves: Vec<RistrettoPoint> = scalars
            .iter()
            .map(|s| RISTRETTO_BASEPOINT_TABLE * &(s.0 * h))
            .collect();
        doubled_with_encodings(&halves)
    }
    fn mul_each_encoded(bases: &[Self], s: &Scalar) -> (Vec<Self>, Vec<[u8; 32]>) {
        let h = s.0 * half();
        let halves: Vec<RistrettoPoint> = bases.iter().map(|b| b.0 * h).collect();
        doubled_with_encodings(&halves)
    }
    fn double_each_encoded(points: &[Self]) -> (Vec<Self>, Vec<[u8; 32]>) {
        let halves: Vec<RistrettoPoint> = points.iter().map(|p| p.0).collect();
        doubled_with_encodings(&halves)
    }
    fn to_bytes(&self) -> [u8; 32] {
        self.0.compress().to_bytes()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let arr: [u8; 32] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
            expected: 32,
            actual: bytes.len(),
        })?;
        // RFC 9496 §4.3.1: reject s ≥ p and negative s before attempting the decode, so the
        // error says which rule was broken.
        if is_at_least_field_prime(&arr) || arr[0] & 1 == 1 {
            return Err(DecodeError::NonCanonical);
        }
        CompressedRistretto(arr)
            .decompress()
            .map(Point)
            .ok_or(DecodeError::NotOnCurve)
    }
    fn hash_to_group(dst: &[u8], msg: &[u8]) -> Self {
        Point(RistrettoPoint::from_uniform_bytes(
            &crate::hash::uniform_bytes(dst, msg),
        ))
    }
}

/// `2⁻¹ mod ℓ`, so that `(s/2)·P` doubled is `s·P`.
fn half() -> DalekScalar {
    // (ℓ + 1) / 2, little-endian.
    const HALF: [u8; 32] = [
        0xf7, 0xe9, 0x7a, 0x2e, 0x8d, 0x31, 0x09, 0x2c, 0x6b, 0xce, 0x7b, 0x51, 0xef, 0x7c, 0x6f,
        0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x08,
    ];
    DalekScalar::from_bytes_mod_order(HALF)
}

/// Given `Qᵢ`, returns `Pᵢ = 2·Qᵢ` and their encodings. dalek's batch double-and-compress
/// shares one field inversion across the batch instead of one inverse square root per point.
fn doubled_with_encodings(halves: &[RistrettoPoint]) -> (Vec<Point>, Vec<[u8; 32]>) {
    let reprs = RistrettoPoint::double_and_compress_batch(halves)
        .into_iter()
        .map(|c| c.to_bytes())
        .collect();
    let points = halves.iter().map(|q| Point(q + q)).collect();
    (points, reprs)
}

/// Embedding layout (32-byte canonical encoding, little-endian field element `s`):
///
/// | byte | content |
/// |---|---|
/// | 0 | bit 0 = 0 (non-negative `s`), bits 1–7 = counter low 7 bits |
/// | 1..=30 | payload, zero-padded to 30 bytes |
/// | 31 | bits 0–4 = payload length (0..=30), bits 5–6 = counter high 2 bits, bit 7 = 0 |
///
/// Byte 31 is at most `0x7e`, so `s < 2^255 − 2^248 < p` and every candidate is a canonical
/// field element. About one candidate in four decodes to a point; with 2^9 counter values the
/// chance that none does is `(3/4)^512 < 2^-212`. The all-zero candidate is the identity and
/// is skipped, so no payload (not even the empty one) embeds to the identity.
const COUNTER_LOW_BITS: u32 = 7;
const EMBED_COUNTER_MAX: u16 = 1 << 9;
const LEN_MASK: u8 = 0x1f;

impl MessageGroup for Point {
    const CAPACITY: usize = 30;

    fn embed(payload: &[u8]) -> Result<Self, EmbedError> {
        if payload.len() > Self::CAPACITY {
            return Err(EmbedError::PayloadTooLong {
                len: payload.len(),
                capacity: Self::CAPACITY,
            });
        }
        let mut candidate = [0u8; 32];
        candidate[1..1 + payload.len()].copy_from_slice(payload);
        for counter in 0..EMBED_COUNTER_MAX {
            candidate[0] = ((counter & 0x7f) as u8) << 1;
            candidate[31] = payload.len() as u8 | (((counter >> COUNTER_LOW_BITS) as u8) << 5);
            if let Some(p) = CompressedRistretto(candidate).decompress() {
                if !p.is_identity() {
                    return Ok(Point(p));
                }
            }
        }
        Err(EmbedError::CounterExhausted)
    }

    fn extract(&self) -> Result<Vec<u8>, EmbedError> {
        if self.0.is_identity() {
            return Err(EmbedError::Identity);
        }
        let enc = self.0.compress().to_bytes();
        let len = (enc[31] & LEN_MASK) as usize;
        if len > Self::CAPACITY || enc[31] & 0x80 != 0 {
            return Err(EmbedError::NotAnEmbedding);
        }
        let (payload, padding) = enc[1..31].split_at(len);
        if padding.iter().any(|&b| b != 0) {
            return Err(EmbedError::NotAnEmbedding);
        }
        Ok(payload.to_vec())
    }
}
