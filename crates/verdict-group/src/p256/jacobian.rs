//! Constant-time variable-base P-256 multiplication in Jacobian coordinates, on the
//! constant-time field of `field.rs`.
//!
//! # Why not `p256`'s own ladder
//!
//! `p256` 0.13 multiplies with complete Renes–Costello–Batina formulas in homogeneous
//! coordinates and an unsigned 4-bit window: 252 doublings of about 13 field multiplications
//! each, 64 additions of about 14, and one field inversion (≈ 270 multiplications) per result.
//! Doublings dominate. The `a = −3` Jacobian doubling costs 3M + 5S, and with the secret
//! scalar recoded into signed 5-bit digits a multiplication is 255 doublings, 51 additions and a
//! 16-entry table. Results are normalized together with one inversion (Montgomery's trick), so a
//! batch of `b` products costs one inversion instead of `b`. A batch shares its scalar, so its
//! ladders run the same operations on the same digits: they run two at a time in lockstep
//! (`lanes.rs`), which gives the processor two independent chains of field arithmetic to
//! overlap.
//!
//! # Why incomplete addition formulas are safe here
//!
//! The Jacobian addition below is the general one (11M + 5S), which is wrong for `P = Q` and
//! for an identity operand. Both identity cases are handled by constant-time selection on
//! `Z = 0`. `P + (−P)` comes out as the identity by itself (`H = 0` gives `Z₃ = 0`). `P = Q`
//! never reaches it, by the choice of the scalar:
//!
//! - The scalar `k` is replaced, in constant time, by `k' = min(k, n − k) ≤ (n − 1)/2` and the
//!   result negated when `k` was the larger; so `k' < 2^255` and its 52 signed digits
//!   `dᵢ ∈ [−16, 16)` need no carry out of the top.
//! - Before digit `i` is added the accumulator is `32·Kᵢ·P` with `Kᵢ ≥ 0` the integer of the
//!   digits above `i`, and `32·Kᵢ ≤ k'/2^{5i} + 17 < n − 16`. The addend is `dᵢ·P`. They are
//!   equal only if `32·Kᵢ ≡ dᵢ (mod n)`: for `dᵢ ≥ 0` that forces `Kᵢ = dᵢ = 0`, two identity
//!   operands; for `dᵢ < 0` it needs `32·Kᵢ = n + dᵢ ≥ n − 16`, which is excluded.
//! - Building the table adds `2j·P + P` for `2j ≤ 14`: distinct unless `P` is the identity.
//!
//! The same bound rules out `P + (−P)` as well, so the `H = 0` path is never taken either. On
//! P-256 the halving is stronger than needed (`n ≡ 17 mod 32`, so even the last digit of an
//! unhalved scalar cannot meet the accumulator), but it makes the argument independent of the
//! digit pattern of `n`. Debug builds check it at every addition (`debug_assert!`, a branch
//! on secret data that release builds do not contain), so every test of the ladder also tests
//! the argument; `ct.rs`'s tests compare the ladder with arkworks' variable-time
//! multiplication on both sides of `n/2`, on `n − 17 … n − 1` (small scalars once halved),
//! on random scalars and bases, and on identity bases inside a batch.
//!
//! # Constant time
//!
//! Every field operation is `field.rs`'s (Montgomery arithmetic with borrow masks, inversion by
//! a fixed exponentiation). The sequence of operations depends only on the number of bases. The
//! scalar's halving is a conditional negation, its recoding uses shifts and masks, table reads
//! scan all 16 entries with conditional selection, the identity cases are conditional
//! selections, and the batch inversion replaces a zero `Z` by one with a conditional selection
//! first. The base points are public and enter through `from_bytes` of their coordinates.

use p256_rustcrypto::elliptic_curve::scalar::IsHigh;
use p256_rustcrypto::elliptic_curve::subtle::{
    Choice, ConditionallyNegatable, ConditionallySelectable, ConstantTimeEq,
};
use p256_rustcrypto::{FieldBytes, Scalar as CtScalar};
use zeroize::{Zeroize, Zeroizing};

use super::field::Fe;
use super::lanes::{LaneMask, Lanes};

/// Signed 5-bit digits of a scalar below `2^255`: `⌈255 / 5⌉ + 1`, the last one 0 or 1.
const DIGITS: usize = 52;
/// Table entries `1·P … 16·P`.
const TABLE: usize = 16;
/// Bases a batch multiplies in lockstep (`lanes.rs`).
const LANES: usize = 2;

/// `L` points `(X : Y : Z)`, each standing for `(X/Z², Y/Z³)`, advanced in lockstep; `Z = 0`
/// is the identity. `Jacobian` (one lane) is what the rest of the module passes around.
#[derive(Clone, Copy)]
pub(super) struct JacobianLanes<const L: usize> {
    x: Lanes<L>,
    y: Lanes<L>,
    z: Lanes<L>,
}

/// One point.
pub(super) type Jacobian = JacobianLanes<1>;

impl<const L: usize> Zeroize for JacobianLanes<L> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl Jacobian {
    /// The affine point `(x, y)`, given as canonical big-endian coordinates; `None` if a
    /// coordinate is not below `p`. Whether the point is on the curve is the caller's concern.
    pub(super) fn from_affine_bytes(x: &FieldBytes, y: &FieldBytes) -> Option<Self> {
        Some(Self {
            x: Lanes([Fe::from_bytes(x)?]),
            y: Lanes([Fe::from_bytes(y)?]),
            z: Lanes::ONE,
        })
    }

    fn z(&self) -> Fe {
        self.z.0[0]
    }
}

impl<const L: usize> JacobianLanes<L> {
    pub(super) const IDENTITY: Self = Self {
        x: Lanes::ONE,
        y: Lanes::ONE,
        z: Lanes::ZERO,
    };

    /// The points `points` as the lanes of one value.
    fn gather(points: &[Jacobian; L]) -> Self {
        Self {
            x: Lanes(core::array::from_fn(|i| points[i].x.0[0])),
            y: Lanes(core::array::from_fn(|i| points[i].y.0[0])),
            z: Lanes(core::array::from_fn(|i| points[i].z.0[0])),
        }
    }

    /// Each lane as a point of its own.
    fn scatter(&self) -> [Jacobian; L] {
        core::array::from_fn(|i| Jacobian {
            x: Lanes([self.x.0[i]]),
            y: Lanes([self.y.0[i]]),
            z: Lanes([self.z.0[i]]),
        })
    }

    /// `b` in the lanes where `mask` holds, `a` elsewhere.
    fn select_where(a: &Self, b: &Self, mask: LaneMask<L>) -> Self {
        Self {
            x: Lanes::select(&a.x, &b.x, mask),
            y: Lanes::select(&a.y, &b.y, mask),
            z: Lanes::select(&a.z, &b.z, mask),
        }
    }

    /// Every lane negated where `choice` holds.
    fn conditional_negate(&mut self, choice: Choice) {
        let negated = self.y.neg();
        self.y = Lanes::select(&self.y, &negated, LaneMask::splat(choice));
    }

    /// `2·P` (dbl-2001-b for `a = −3`, 3M + 5S); the identity stays the identity (`Z₃ = 2YZ`).
    fn double(&self) -> Self {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x.mul(&gamma);
        let t = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = t.double().add(&t);
        let beta4 = beta.double().double();
        let x3 = alpha.square().sub(&beta4.double());
        let z3 = self.y.add(&self.z).square().sub(&gamma).sub(&delta);
        let gamma8 = gamma.square().double().double().double();
        let y3 = alpha.mul(&beta4.sub(&x3)).sub(&gamma8);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// `P + Q` (add-2007-bl, 11M + 5S) with the identity cases selected in constant time.
    /// **Wrong for `P = Q` ≠ identity**; the module documentation shows why the ladder never
    /// adds a point to itself.
    fn add(&self, other: &Self) -> Self {
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let u1 = self.x.mul(&z2z2);
        let u2 = other.x.mul(&z1z1);
        let s1 = self.y.mul(&other.z).mul(&z2z2);
        let s2 = other.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let i = h.double().square();
        let j = h.mul(&i);
        let r = s2.sub(&s1).double();
        let v = u1.mul(&i);
        let x3 = r.square().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&s1.mul(&j).double());
        let z3 = self.z.add(&other.z).square().sub(&z1z1).sub(&z2z2).mul(&h);
        let (self_zero, other_zero) = (self.z.is_zero(), other.z.is_zero());
        // The general formula's one wrong case, `P = Q` ≠ identity (`H = 0`, `r = 0`); see the
        // module documentation for why the ladder never reaches it.
        #[cfg(debug_assertions)]
        assert!(
            !self_zero
                .not()
                .and(other_zero.not())
                .and(h.is_zero())
                .and(r.is_zero())
                .any(),
            "P + P through the general addition"
        );
        let sum = Self {
            x: x3,
            y: y3,
            z: z3,
        };
        let sum = Self::select_where(&sum, other, self_zero);
        Self::select_where(&sum, self, other_zero)
    }

    /// `1·P … 16·P`: doublings for the even multiples, `2j·P + P` for the odd ones.
    fn table(&self) -> [Self; TABLE] {
        let mut t = [*self; TABLE];
        for m in 2..=TABLE {
            t[m - 1] = if m % 2 == 0 {
                t[m / 2 - 1].double()
            } else {
                t[m - 2].add(self)
            };
        }
        t
    }
}

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

/// `|d|·P` read from the table by a full scan, negated when `d < 0`; the identity for `d = 0`.
/// Every lane reads the same entry (the lanes share the scalar).
fn select<const L: usize>(table: &[JacobianLanes<L>; TABLE], d: i8) -> JacobianLanes<L> {
    let mask = (d >> 7) as u8;
    let mut magnitude = ((d as u8) ^ mask).wrapping_sub(mask);
    let mut out = JacobianLanes::IDENTITY;
    for (j, entry) in table.iter().enumerate() {
        let hit = LaneMask::splat(magnitude.ct_eq(&(j as u8 + 1)));
        out = JacobianLanes::select_where(&out, entry, hit);
    }
    out.conditional_negate(Choice::from(mask & 1));
    magnitude.zeroize();
    out
}

/// `k·P` in every lane, in constant time in `k`, unnormalized.
fn mul_lanes<const L: usize>(base: &JacobianLanes<L>, k: &CtScalar) -> Zeroizing<JacobianLanes<L>> {
    let table = Zeroizing::new(base.table());
    let (le, negate) = halve(k);
    let digits = signed_radix32(&le);
    let mut acc = Zeroizing::new(select(&table, digits[DIGITS - 1]));
    let mut addend = Zeroizing::new(JacobianLanes::IDENTITY);
    for &d in digits.iter().rev().skip(1) {
        for _ in 0..5 {
            *acc = acc.double();
        }
        *addend = select(&table, d);
        *acc = acc.add(&addend);
    }
    acc.conditional_negate(negate);
    acc
}

/// `k·P` in constant time in `k`, unnormalized.
pub(super) fn mul(base: &Jacobian, k: &CtScalar) -> Zeroizing<Jacobian> {
    mul_lanes(base, k)
}

/// `k·Bᵢ` for every base, in constant time in `k`, unnormalized: [`LANES`] bases at a time in
/// lockstep, a last odd one alone.
pub(super) fn mul_each(bases: &[Jacobian], k: &CtScalar) -> Zeroizing<Vec<Jacobian>> {
    let mut out = Zeroizing::new(Vec::with_capacity(bases.len()));
    let mut groups = bases.chunks_exact(LANES);
    for group in &mut groups {
        match <&[Jacobian; LANES]>::try_from(group) {
            Ok(group) => out.extend(mul_lanes(&JacobianLanes::gather(group), k).scatter()),
            // `chunks_exact` yields exactly `LANES` bases; one at a time otherwise.
            Err(_) => out.extend(group.iter().map(|b| *mul(b, k))),
        }
    }
    for base in groups.remainder() {
        out.push(*mul(base, k));
    }
    out
}

/// Affine coordinates `x ‖ y` of a point, each canonical big-endian.
pub(super) type AffineBytes = Zeroizing<[u8; 64]>;

/// Affine coordinates of every point, `None` for the identity, with one constant-time
/// inversion for the whole batch (Montgomery's trick; a zero `Z` is replaced by one before the
/// products and its result discarded after).
pub(super) fn normalize_batch(points: &[Jacobian]) -> Vec<Option<AffineBytes>> {
    let zs: Zeroizing<Vec<Fe>> = Zeroizing::new(
        points
            .iter()
            .map(|p| Fe::conditional_select(&p.z(), &Fe::ONE, p.z().is_zero()))
            .collect(),
    );
    // prefix[i] = z₀ ⋯ zᵢ₋₁
    let mut prefix: Zeroizing<Vec<Fe>> = Zeroizing::new(Vec::with_capacity(zs.len()));
    let mut running = Fe::ONE;
    for z in zs.iter() {
        prefix.push(running);
        running = running.mul(z);
    }
    // Every factor is non-zero, so the product is invertible.
    let mut inverse = running.invert();
    let mut out = Vec::with_capacity(points.len());
    let mut inverses: Zeroizing<Vec<Fe>> = Zeroizing::new(vec![Fe::ZERO; zs.len()]);
    for i in (0..zs.len()).rev() {
        inverses[i] = inverse.mul(&prefix[i]);
        inverse = inverse.mul(&zs[i]);
    }
    inverse.zeroize();
    running.zeroize();
    for (p, zinv) in points.iter().zip(inverses.iter()) {
        // The identity test is a branch: see `ct.rs` on what the caller reveals anyway.
        if bool::from(p.z().is_zero()) {
            out.push(None);
            continue;
        }
        let mut zinv2 = zinv.square();
        let mut x = p.x.0[0].mul(&zinv2);
        let mut y = p.y.0[0].mul(&zinv2.mul(zinv));
        let mut xy = Zeroizing::new([0u8; 64]);
        xy[..32].copy_from_slice(&Zeroizing::new(x.to_bytes()));
        xy[32..].copy_from_slice(&Zeroizing::new(y.to_bytes()));
        zinv2.zeroize();
        x.zeroize();
        y.zeroize();
        out.push(Some(xy));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check behind the module's argument is live in debug builds: the general addition
    /// refuses `P + P` instead of returning the identity.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "P + P through the general addition")]
    fn general_addition_refuses_a_doubling() {
        use p256_rustcrypto::elliptic_curve::sec1::ToEncodedPoint;
        let encoded = p256_rustcrypto::AffinePoint::GENERATOR.to_encoded_point(false);
        let (Some(x), Some(y)) = (encoded.x(), encoded.y()) else {
            panic!("the generator has coordinates");
        };
        let p = Jacobian::from_affine_bytes(x, y).expect("canonical coordinates");
        let _ = p.add(&p);
    }

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
