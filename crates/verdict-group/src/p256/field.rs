//! The P-256 base field `GF(p)`, `p = 2^256 − 2^224 + 2^192 + 2^96 − 1`, in constant time, for
//! the secret-scalar ladder (`ladder.rs`, `jacobian.rs`).
//!
//! # Why not `p256`'s field
//!
//! `p256` 0.13's `FieldElement` is constant time, but its squaring is a general
//! multiplication, and none of its limb functions is marked for inlining across crates. A
//! ladder product costs ≈ 3,000 multiplications and squarings, more than half of them
//! squarings, and ≈ 4,000 additions and subtractions. Here a squaring computes each of the six
//! cross products once and doubles them (10 word products instead of 16), and the additions and
//! subtractions inline into the point formulas. On the 2-vCPU VM of `docs/PERFORMANCE.md`, a
//! chain of dependent squarings took 23 ns per step against 36 ns with `p256`, multiplications
//! 27 ns against 35 ns.
//!
//! # Representation
//!
//! Four 64-bit limbs, least significant first, holding `a·R mod p` with `R = 2^256`
//! (Montgomery form), always fully reduced (`< p`). This is also arkworks' representation of
//! its `Fq`, so the limbs can be handed over unchanged.
//!
//! Montgomery reduction uses two facts about `p`: its lowest limb is `2^64 − 1`, so
//! `−p⁻¹ mod 2^64 = 1` and each reduction step's multiplier is the limb being cleared; and its
//! limb 2 is zero.
//!
//! # Constant time
//!
//! Every operation runs the same instructions whatever the values: carries and borrows are
//! arithmetic on `u128`, the final subtraction of `p` is undone with a mask built from the
//! borrow, zero tests go through `subtle`, and inversion is a fixed exponentiation by `p − 2`.
//! `from_bytes` decides canonicity without branching on the value, and only its `Option`
//! reveals the answer. Callers pass public base coordinates, or coordinates of the ladder's
//! secret-dependent results, which are canonical by construction (`to_bytes` of a reduced
//! element), so for those the answer is always the same and reveals nothing.
//!
//! `Fe` has no `Debug` and no `==` outside tests: a derived `Debug` would print secret limbs and
//! a derived `==` compares limb by limb with early exit.

use p256_rustcrypto::FieldBytes;
use p256_rustcrypto::elliptic_curve::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// A field element in Montgomery form, fully reduced.
#[derive(Clone, Copy)]
#[cfg_attr(test, derive(Debug, PartialEq, Eq))]
pub(super) struct Fe(pub(super) [u64; 4]);

/// `p`, least significant limb first.
const P: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0,
    0xffff_ffff_0000_0001,
];

/// `R² mod p`, to bring a canonical integer into Montgomery form with one multiplication.
const R2: Fe = Fe([
    0x0000_0000_0000_0003,
    0xffff_fffb_ffff_ffff,
    0xffff_ffff_ffff_fffe,
    0x0000_0004_ffff_fffd,
]);

/// `a + b + carry`: the low word and the carry out.
#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(a) + u128::from(b) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// `a − b − borrow` with `borrow` 0 or all ones: the low word and the borrow out (0 or all ones).
#[inline(always)]
fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = u128::from(a)
        .wrapping_sub(u128::from(b))
        .wrapping_sub(u128::from(borrow >> 63));
    (t as u64, (t >> 64) as u64)
}

/// `acc + a·b + carry`: the low word and the high word (never overflows 128 bits).
#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(acc) + u128::from(a) * u128::from(b) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// The five-limb value `v` (below `2p`) reduced below `p`: `p` subtracted, and added back
/// under a mask when that borrowed. Spelled out, like `Fe::sub`'s masked addition of `p`: with
/// the subtraction and the masked addition as shared helpers the ladder ran 2.7 % more
/// instructions (callgrind, 124 products), on its hottest path.
#[inline(always)]
fn reduce_once(v: [u64; 5]) -> Fe {
    let (w0, b) = sbb(v[0], P[0], 0);
    let (w1, b) = sbb(v[1], P[1], b);
    let (w2, b) = sbb(v[2], P[2], b);
    let (w3, b) = sbb(v[3], P[3], b);
    let (_, mask) = sbb(v[4], 0, b);
    let (w0, c) = adc(w0, P[0] & mask, 0);
    let (w1, c) = adc(w1, P[1] & mask, c);
    let (w2, c) = adc(w2, P[2] & mask, c);
    let (w3, _) = adc(w3, P[3] & mask, c);
    Fe([w0, w1, w2, w3])
}

/// `t·R⁻¹ mod p` for a product `t < p·R` (eight limbs), fully reduced. Each round clears the
/// lowest remaining limb `m` by adding `m·p`; with `p`'s shape that is `m·(2^64 − 1)` (folded
/// into the carry: `m + m·(2^64 − 1) = m·2^64`), `m·p₁` and `m·p₃`.
#[inline(always)]
fn montgomery_reduce(t: [u64; 8]) -> Fe {
    let [t0, t1, t2, t3, t4, t5, t6, t7] = t;
    let (t1, c) = mac(t1, t0, P[1], t0);
    let (t2, c) = adc(t2, 0, c);
    let (t3, c) = mac(t3, t0, P[3], c);
    let (t4, hi) = adc(t4, 0, c);

    let (t2, c) = mac(t2, t1, P[1], t1);
    let (t3, c) = adc(t3, 0, c);
    let (t4, c) = mac(t4, t1, P[3], c);
    let (t5, hi) = adc(t5, hi, c);

    let (t3, c) = mac(t3, t2, P[1], t2);
    let (t4, c) = adc(t4, 0, c);
    let (t5, c) = mac(t5, t2, P[3], c);
    let (t6, hi) = adc(t6, hi, c);

    let (t4, c) = mac(t4, t3, P[1], t3);
    let (t5, c) = adc(t5, 0, c);
    let (t6, c) = mac(t6, t3, P[3], c);
    let (t7, t8) = adc(t7, hi, c);
    reduce_once([t4, t5, t6, t7, t8])
}

impl Fe {
    pub(super) const ZERO: Self = Self([0; 4]);
    /// `1` in Montgomery form: `R mod p`.
    pub(super) const ONE: Self = Self([
        0x0000_0000_0000_0001,
        0xffff_ffff_0000_0000,
        0xffff_ffff_ffff_ffff,
        0x0000_0000_ffff_fffe,
    ]);

    /// The element of a canonical big-endian encoding; `None` if it is not below `p`.
    pub(super) fn from_bytes(bytes: &FieldBytes) -> Option<Self> {
        let mut limbs = [0u64; 4];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[32 - 8 * (i + 1)..32 - 8 * i]);
            *limb = u64::from_be_bytes(word);
            word.zeroize();
        }
        // Canonical iff subtracting p borrows.
        let (_, b) = sbb(limbs[0], P[0], 0);
        let (_, b) = sbb(limbs[1], P[1], b);
        let (_, b) = sbb(limbs[2], P[2], b);
        let (_, b) = sbb(limbs[3], P[3], b);
        let canonical = Choice::from((b & 1) as u8);
        let value = Self(limbs).mul(&R2);
        limbs.zeroize();
        bool::from(canonical).then_some(value)
    }

    /// The canonical big-endian encoding.
    pub(super) fn to_bytes(self) -> FieldBytes {
        let Fe(w) = montgomery_reduce([self.0[0], self.0[1], self.0[2], self.0[3], 0, 0, 0, 0]);
        let mut out = FieldBytes::default();
        for (i, limb) in w.iter().enumerate() {
            out[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    #[inline]
    pub(super) fn add(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (w0, c) = adc(a[0], b[0], 0);
        let (w1, c) = adc(a[1], b[1], c);
        let (w2, c) = adc(a[2], b[2], c);
        let (w3, w4) = adc(a[3], b[3], c);
        reduce_once([w0, w1, w2, w3, w4])
    }

    #[inline]
    pub(super) fn double(&self) -> Self {
        self.add(self)
    }

    #[inline]
    pub(super) fn sub(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (w0, br) = sbb(a[0], b[0], 0);
        let (w1, br) = sbb(a[1], b[1], br);
        let (w2, br) = sbb(a[2], b[2], br);
        let (w3, mask) = sbb(a[3], b[3], br);
        // Borrowed: the difference is negative, add p back.
        let (w0, c) = adc(w0, P[0] & mask, 0);
        let (w1, c) = adc(w1, P[1] & mask, c);
        let (w2, c) = adc(w2, P[2] & mask, c);
        let (w3, _) = adc(w3, P[3] & mask, c);
        Self([w0, w1, w2, w3])
    }

    #[inline]
    pub(super) fn neg(&self) -> Self {
        Self::ZERO.sub(self)
    }

    /// `self · other`: the 512-bit product by rows, then one Montgomery reduction.
    #[inline]
    pub(super) fn mul(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let (w0, c) = mac(0, a[0], b[0], 0);
        let (w1, c) = mac(0, a[0], b[1], c);
        let (w2, c) = mac(0, a[0], b[2], c);
        let (w3, w4) = mac(0, a[0], b[3], c);

        let (w1, c) = mac(w1, a[1], b[0], 0);
        let (w2, c) = mac(w2, a[1], b[1], c);
        let (w3, c) = mac(w3, a[1], b[2], c);
        let (w4, w5) = mac(w4, a[1], b[3], c);

        let (w2, c) = mac(w2, a[2], b[0], 0);
        let (w3, c) = mac(w3, a[2], b[1], c);
        let (w4, c) = mac(w4, a[2], b[2], c);
        let (w5, w6) = mac(w5, a[2], b[3], c);

        let (w3, c) = mac(w3, a[3], b[0], 0);
        let (w4, c) = mac(w4, a[3], b[1], c);
        let (w5, c) = mac(w5, a[3], b[2], c);
        let (w6, w7) = mac(w6, a[3], b[3], c);
        montgomery_reduce([w0, w1, w2, w3, w4, w5, w6, w7])
    }

    /// `self²`: the six cross products once, doubled by a one-bit shift, plus the four squares.
    #[inline]
    pub(super) fn square(&self) -> Self {
        let a = &self.0;
        let (w1, c) = mac(0, a[0], a[1], 0);
        let (w2, c) = mac(0, a[0], a[2], c);
        let (w3, w4) = mac(0, a[0], a[3], c);
        let (w3, c) = mac(w3, a[1], a[2], 0);
        let (w4, w5) = mac(w4, a[1], a[3], c);
        let (w5, w6) = mac(w5, a[2], a[3], 0);

        let w7 = w6 >> 63;
        let w6 = (w6 << 1) | (w5 >> 63);
        let w5 = (w5 << 1) | (w4 >> 63);
        let w4 = (w4 << 1) | (w3 >> 63);
        let w3 = (w3 << 1) | (w2 >> 63);
        let w2 = (w2 << 1) | (w1 >> 63);
        let w1 = w1 << 1;

        let (w0, c) = mac(0, a[0], a[0], 0);
        let (w1, c) = adc(w1, 0, c);
        let (w2, c) = mac(w2, a[1], a[1], c);
        let (w3, c) = adc(w3, 0, c);
        let (w4, c) = mac(w4, a[2], a[2], c);
        let (w5, c) = adc(w5, 0, c);
        let (w6, c) = mac(w6, a[3], a[3], c);
        let (w7, _) = adc(w7, 0, c);
        montgomery_reduce([w0, w1, w2, w3, w4, w5, w6, w7])
    }

    /// `self^(2^k)`.
    fn square_times(&self, k: u32) -> Self {
        let mut x = *self;
        for _ in 0..k {
            x = x.square();
        }
        x
    }

    /// `self^(p − 2)`, the inverse of a non-zero element and zero for zero: 255 squarings and
    /// 12 multiplications whatever the value. `p − 2` has, from the top, 32 ones, 31 zeros, a
    /// one, 96 zeros, 94 ones, a zero and a one; the chain builds `x^(2^k − 1)` for the runs.
    pub(super) fn invert(&self) -> Self {
        let x1 = *self;
        let x2 = x1.square().mul(&x1);
        let x3 = x2.square().mul(&x1);
        let x6 = x3.square_times(3).mul(&x3);
        let x12 = x6.square_times(6).mul(&x6);
        let x15 = x12.square_times(3).mul(&x3);
        let x30 = x15.square_times(15).mul(&x15);
        let x32 = x30.square_times(2).mul(&x2);
        let mut r = x32.square_times(32).mul(&x1);
        r = r.square_times(96);
        r = r.square_times(32).mul(&x32);
        r = r.square_times(32).mul(&x32);
        r = r.square_times(30).mul(&x30);
        r.square_times(2).mul(&x1)
    }

    pub(super) fn is_zero(&self) -> Choice {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]).ct_eq(&0)
    }
}

impl ConditionallySelectable for Fe {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self([
            u64::conditional_select(&a.0[0], &b.0[0], choice),
            u64::conditional_select(&a.0[1], &b.0[1], choice),
            u64::conditional_select(&a.0[2], &b.0[2], choice),
            u64::conditional_select(&a.0[3], &b.0[3], choice),
        ])
    }
}

impl Default for Fe {
    fn default() -> Self {
        Self::ZERO
    }
}

impl Zeroize for Fe {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

#[cfg(test)]
mod tests;
