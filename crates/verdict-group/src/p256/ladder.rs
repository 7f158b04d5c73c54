//! Constant-time variable-base P-256 multiplication by a secret scalar: a signed 5-bit fixed
//! window over the points of `jacobian.rs`, many bases sharing one scalar run two at a time in
//! lockstep (`lanes.rs`).
//!
//! # The ladder
//!
//! The secret scalar is recoded into signed 5-bit digits, so a multiplication is 255 doublings
//! (3M + 5S each) and 51 additions of entries of a 16-entry table of the base's multiples.
//! The base is public, so in a batch its table is brought to affine coordinates together with
//! every other table of the batch, one inversion for all (`normalize.rs`), and the additions
//! are mixed ones (7M + 4S instead of 11M + 5S). Results are normalized together the same
//! way, so a batch of `b` products costs two inversions instead of `b`. A single product keeps
//! its table Jacobian: one inversion to make it affine costs more than the mixed additions
//! save. A batch shares its scalar, so its ladders run the same operations on the same
//! digits: they run two at a time in lockstep, which gives the processor two independent
//! chains of field arithmetic to overlap.
//!
//! # Why the ladder never adds a point to itself
//!
//! The additions of `jacobian.rs` are the general formulas, wrong for `P = Q` ≠ identity.
//! `P = Q` never reaches them, by the choice of the scalar:
//!
//! - The scalar `k` is replaced, in constant time, by `k' = min(k, n − k) ≤ (n − 1)/2` and the
//!   result negated when `k` was the larger; so `k' < 2^255` and its 52 signed digits
//!   `dᵢ ∈ [−16, 16)` need no carry out of the top.
//! - Before digit `i` is added the accumulator is `32·Kᵢ·P` with `Kᵢ ≥ 0` the integer of the
//!   digits above `i`, and `32·Kᵢ ≤ k'/2^{5i} + 17 < n − 16`. The addend is `dᵢ·P`. They are
//!   equal only if `32·Kᵢ ≡ dᵢ (mod n)`: for `dᵢ ≥ 0` that forces `Kᵢ = dᵢ = 0`, two identity
//!   operands; for `dᵢ < 0` it needs `32·Kᵢ = n + dᵢ ≥ n − 16`, which is excluded.
//!
//! The same bound rules out `P + (−P)` as well, so the `H = 0` path is never taken either. On
//! P-256 the halving is stronger than needed (`n ≡ 17 mod 32`, so even the last digit of an
//! unhalved scalar cannot meet the accumulator), but it makes the argument independent of the
//! digit pattern of `n`. Debug builds check it at every addition; `ct.rs`'s tests compare the
//! ladder with arkworks' variable-time multiplication on both sides of `n/2`, on
//! `n − 17 … n − 1` (small scalars once halved), on random scalars and bases, and on identity
//! bases inside a batch.
//!
//! # Constant time
//!
//! Constant time in the scalar: the sequence of operations depends only on the number of
//! bases. The scalar's halving is a conditional negation, its recoding uses shifts and masks,
//! table reads scan all 16 entries with conditional selection, a zero digit is a flag the
//! addition selects on, and negative digits negate the entry by selection. Not constant
//! time, because it is public: the bases, their tables (built and normalized without regard to
//! timing), and which bases are the identity (their lanes run on a stand-in base and the
//! identity is selected at the end).

use p256_rustcrypto::elliptic_curve::scalar::IsHigh;
use p256_rustcrypto::elliptic_curve::subtle::{Choice, ConditionallyNegatable, ConstantTimeEq};
use p256_rustcrypto::{Scalar as CtScalar, elliptic_curve::sec1::ToEncodedPoint};
use zeroize::{Zeroize, Zeroizing};

use super::field::Fe;
use super::jacobian::{Affine, AffineLanes, Jacobian, JacobianLanes, TABLE};
use super::lanes::LaneMask;
use super::normalize;

/// Signed 5-bit digits of a scalar below `2^255`: `⌈255 / 5⌉ + 1`, the last one 0 or 1.
const DIGITS: usize = 52;
/// Bases a batch multiplies in lockstep (`lanes.rs`).
const LANES: usize = 2;

/// The little-endian bytes of `min(k, n − k)` and whether `k` was replaced (`k > (n − 1)/2`).
fn halve(k: &CtScalar) -> (Zeroizing<[u8; 32]>, Choice) {
    let high = k.is_high();
    let mut small = Zeroizing::new(*k);
    small.conditional_negate(high);
    let be = Zeroizing::new(small.to_bytes());
    let mut le = Zeroizing::new([0u8; 32]);
    for (dst, src) in le.iter_mut().zip(be.iter().rev()) {
        *dst = *src;
    }
    (le, high)
}

/// Signed 5-bit digits `dᵢ ∈ [−16, 16)` of `k < 2^255`, least significant first, without
/// branches: the carry out of a window `v` is `(v + 16) >> 5`.
fn signed_radix32(le: &[u8; 32]) -> Zeroizing<[i8; DIGITS]> {
    let mut digits = Zeroizing::new([0i8; DIGITS]);
    let mut carry = 0u16;
    for (i, digit) in digits.iter_mut().enumerate() {
        let bit = 5 * i;
        let (byte, shift) = (bit / 8, bit % 8);
        let lo = u16::from(le.get(byte).copied().unwrap_or(0));
        let hi = u16::from(le.get(byte + 1).copied().unwrap_or(0));
        let window = ((lo | (hi << 8)) >> shift) & 0x1f;
        let v = window + carry;
        carry = (v + 16) >> 5;
        *digit = (v as i16 - (carry << 5) as i16) as i8;
    }
    digits
}

/// A table entry the ladder adds: affine in a batch (mixed addition, the tables normalized
/// together), Jacobian for a single product (general addition: a table of its own would cost a
/// whole inversion to make affine, more than the mixed additions save).
trait Entry<const L: usize>: Copy + Zeroize {
    /// `b` where `choice` holds, `a` otherwise.
    fn select(a: &Self, b: &Self, choice: Choice) -> Self;
    /// The entry negated where `choice` holds.
    fn conditional_negate(&mut self, choice: Choice);
    /// The entry as a Jacobian point.
    fn to_jacobian(&self) -> JacobianLanes<L>;
    /// `acc + self`, or `acc` where `zero` holds.
    fn add_to(&self, acc: &JacobianLanes<L>, zero: Choice) -> JacobianLanes<L>;
}

impl<const L: usize> Entry<L> for AffineLanes<L> {
    fn select(a: &Self, b: &Self, choice: Choice) -> Self {
        AffineLanes::select(a, b, choice)
    }
    fn conditional_negate(&mut self, choice: Choice) {
        AffineLanes::conditional_negate(self, choice);
    }
    fn to_jacobian(&self) -> JacobianLanes<L> {
        AffineLanes::to_jacobian(*self)
    }
    fn add_to(&self, acc: &JacobianLanes<L>, zero: Choice) -> JacobianLanes<L> {
        acc.add_affine(self, zero)
    }
}

impl<const L: usize> Entry<L> for JacobianLanes<L> {
    fn select(a: &Self, b: &Self, choice: Choice) -> Self {
        JacobianLanes::select_where(a, b, LaneMask::splat(choice))
    }
    fn conditional_negate(&mut self, choice: Choice) {
        JacobianLanes::conditional_negate(self, choice);
    }
    fn to_jacobian(&self) -> JacobianLanes<L> {
        *self
    }
    fn add_to(&self, acc: &JacobianLanes<L>, zero: Choice) -> JacobianLanes<L> {
        JacobianLanes::select_where(&acc.add(self), acc, LaneMask::splat(zero))
    }
}

/// `|d|·B` read from the table by a full scan, negated when `d < 0`, and whether `d = 0` (the
/// entry is then `1·B`, which the addition discards). Every lane reads the same entry (the
/// lanes share the scalar).
fn select<const L: usize, E: Entry<L>>(table: &[E; TABLE], d: i8) -> (E, Choice) {
    let mask = (d >> 7) as u8;
    let mut magnitude = ((d as u8) ^ mask).wrapping_sub(mask);
    let mut out = table[0];
    for (j, entry) in table.iter().enumerate().skip(1) {
        out = E::select(&out, entry, magnitude.ct_eq(&(j as u8 + 1)));
    }
    out.conditional_negate(Choice::from(mask & 1));
    let zero = magnitude.ct_eq(&0);
    magnitude.zeroize();
    (out, zero)
}

/// `k·B` in every lane, for the lanes' table, in constant time in `k`, unnormalized.
fn mul_lanes<const L: usize, E: Entry<L>>(
    table: &[E; TABLE],
    k: &CtScalar,
) -> Zeroizing<JacobianLanes<L>> {
    let (le, negate) = halve(k);
    let digits = signed_radix32(&le);
    let (top, top_zero) = select(table, digits[DIGITS - 1]);
    let mut acc = Zeroizing::new(JacobianLanes::select_where(
        &top.to_jacobian(),
        &JacobianLanes::IDENTITY,
        LaneMask::splat(top_zero),
    ));
    let mut addend = Zeroizing::new(top);
    for &d in digits.iter().rev().skip(1) {
        for _ in 0..5 {
            *acc = acc.double();
        }
        let (entry, zero) = select(table, d);
        *addend = entry;
        *acc = addend.add_to(&acc, zero);
    }
    acc.conditional_negate(negate);
    acc
}

/// A public base of the ladder: `None` for the identity.
pub(super) type Base = Option<Affine>;

/// The generator, the stand-in for an identity base: the identity has no affine multiples, so
/// its lane runs on the generator's table and its result is replaced by the identity.
fn stand_in() -> Affine {
    let encoded = p256_rustcrypto::AffinePoint::GENERATOR.to_encoded_point(false);
    let coordinates = match (encoded.x(), encoded.y()) {
        (Some(x), Some(y)) => Affine::from_bytes(x, y),
        _ => None,
    };
    // An uncompressed encoding of the generator has both coordinates, each below p.
    coordinates.unwrap_or(Affine::new(Fe::ONE, Fe::ONE))
}

/// `k·B` for every public base, in constant time in `k`, unnormalized: all tables normalized
/// with one inversion, then [`LANES`] bases at a time in lockstep, a last odd one alone.
pub(super) fn mul_each(bases: &[Base], k: &CtScalar) -> Zeroizing<Vec<Jacobian>> {
    // Which bases are the identity is public: a branch on it reveals nothing.
    let points: Vec<Affine> = bases.iter().map(|b| b.unwrap_or_else(stand_in)).collect();
    let tables = normalize::tables(&points);
    let mut out = Zeroizing::new(Vec::with_capacity(bases.len()));
    let mut groups = tables.chunks_exact(LANES);
    for group in &mut groups {
        let lanes: [AffineLanes<LANES>; TABLE] =
            core::array::from_fn(|e| AffineLanes::gather(&core::array::from_fn(|l| group[l][e])));
        out.extend(mul_lanes(&lanes, k).scatter());
    }
    for table in groups.remainder() {
        out.extend(mul_lanes(table, k).scatter());
    }
    for (product, base) in out.iter_mut().zip(bases) {
        if base.is_none() {
            *product = Jacobian::IDENTITY;
        }
    }
    out
}

/// `k·B` in constant time in `k`, unnormalized: one base, so its table stays Jacobian (see
/// [`Entry`]).
pub(super) fn mul(base: &Base, k: &CtScalar) -> Zeroizing<Jacobian> {
    let Some(point) = base else {
        // The identity base is public; its product is the identity.
        return Zeroizing::new(Jacobian::IDENTITY);
    };
    let table = Zeroizing::new(point.multiples());
    mul_lanes(&table, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digits rebuild the integer, lie in `[−16, 16)`, and the top one is 0 or 1, for the
    /// largest halved scalar, `2^255 − 1`, and windows that carry (16) or hit −16.
    #[test]
    fn signed_recoding_reconstructs_and_fits() {
        let mut cases: Vec<[u8; 32]> = Vec::new();
        // (n − 1)/2, little-endian.
        let half_n = [
            0xa8, 0x92, 0x31, 0x7e, 0x61, 0xe5, 0xdc, 0x79, 0x42, 0xcf, 0x8b, 0xd3, 0x56, 0x7d,
            0x73, 0xde, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x00, 0x00, 0x80,
            0xff, 0xff, 0xff, 0x7f,
        ];
        cases.push(half_n);
        let mut top = [0xffu8; 32];
        top[31] = 0x7f;
        cases.push(top);
        let mut sixteen = [0u8; 32];
        sixteen[0] = 16;
        cases.push(sixteen);
        // 16·32^i for several i: a digit of exactly 16 recodes as −16 with a carry.
        for i in [1usize, 7, 25, 50] {
            let mut v = [0u8; 32];
            let bit = 5 * i + 4;
            v[bit / 8] |= 1 << (bit % 8);
            cases.push(v);
        }
        for le in &cases {
            let digits = signed_radix32(le);
            assert!(digits.iter().all(|d| (-16..16).contains(d)));
            assert!((0..=1).contains(&digits[DIGITS - 1]));
            // Σ dᵢ·32^i, normalized with carries into 5-bit windows, gives back the bits.
            let mut acc = [0i32; DIGITS + 1];
            for (a, &d) in acc.iter_mut().zip(digits.iter()) {
                *a = i32::from(d);
            }
            for i in 0..DIGITS {
                let q = acc[i].div_euclid(32);
                acc[i] = acc[i].rem_euclid(32);
                acc[i + 1] += q;
            }
            assert_eq!(acc[DIGITS], 0, "no excess");
            for bit in 0..256 {
                let window = acc[bit / 5] as u32;
                assert_eq!(
                    (window >> (bit % 5)) & 1,
                    u32::from((le[bit / 8] >> (bit % 8)) & 1),
                    "bit {bit}"
                );
            }
        }
        assert!(
            cases.iter().any(|le| signed_radix32(le).contains(&-16)),
            "some case exercises the digit −16"
        );
    }
}
