//! `L` field elements advanced in lockstep, so that the ladder can multiply `L` bases by one
//! secret scalar at once (`ladder.rs`).
//!
//! # Why
//!
//! A field multiplication of `field.rs` is a chain of dependent carries: on the VM of
//! `docs/PERFORMANCE.md`, one chain of dependent multiplications took 27 ns a step, and two
//! independent chains advanced together 36–37 ns, 18 ns a multiplication. The ladder's own
//! formulas leave the processor little to overlap (each doubling's products mostly wait on the
//! previous ones). `Group::mul_each_encoded` multiplies many bases by the same scalar, so their
//! ladders run exactly the same operations on the same digits: computing two of them
//! operation by operation gives the processor two independent chains to interleave.
//!
//! # Constant time
//!
//! Every operation applies `field.rs`'s constant-time operation to each lane. A [`LaneMask`]
//! carries one `subtle::Choice` per lane; nothing branches on one except [`LaneMask::any`],
//! which exists for the debug-only check of the ladder's argument (as before the lanes).

use p256_rustcrypto::elliptic_curve::subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use super::field::Fe;

/// One field element per lane.
#[derive(Clone, Copy)]
pub(super) struct Lanes<const L: usize>(pub(super) [Fe; L]);

/// One condition per lane.
#[derive(Clone, Copy)]
pub(super) struct LaneMask<const L: usize>([Choice; L]);

impl<const L: usize> LaneMask<L> {
    /// The same condition in every lane.
    pub(super) fn splat(c: Choice) -> Self {
        Self([c; L])
    }

    #[cfg(any(debug_assertions, test))]
    pub(super) fn and(self, other: Self) -> Self {
        Self(core::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    #[cfg(any(debug_assertions, test))]
    pub(super) fn not(self) -> Self {
        Self(self.0.map(|c| !c))
    }

    /// Whether the condition holds in some lane: a branch on the values, for debug checks only.
    #[cfg(debug_assertions)]
    pub(super) fn any(self) -> bool {
        self.0.iter().any(|c| bool::from(*c))
    }
}

impl<const L: usize> Lanes<L> {
    pub(super) const ZERO: Self = Self([Fe::ZERO; L]);
    pub(super) const ONE: Self = Self([Fe::ONE; L]);

    #[inline]
    fn zip(&self, other: &Self, f: impl Fn(&Fe, &Fe) -> Fe) -> Self {
        Self(core::array::from_fn(|i| f(&self.0[i], &other.0[i])))
    }

    #[inline]
    fn each(&self, f: impl Fn(&Fe) -> Fe) -> Self {
        Self(core::array::from_fn(|i| f(&self.0[i])))
    }

    #[inline]
    pub(super) fn add(&self, other: &Self) -> Self {
        self.zip(other, Fe::add)
    }

    #[inline]
    pub(super) fn sub(&self, other: &Self) -> Self {
        self.zip(other, Fe::sub)
    }

    #[inline]
    pub(super) fn mul(&self, other: &Self) -> Self {
        self.zip(other, Fe::mul)
    }

    #[inline]
    pub(super) fn double(&self) -> Self {
        self.each(Fe::double)
    }

    #[inline]
    pub(super) fn square(&self) -> Self {
        self.each(Fe::square)
    }

    #[inline]
    pub(super) fn neg(&self) -> Self {
        self.each(Fe::neg)
    }

    pub(super) fn is_zero(&self) -> LaneMask<L> {
        LaneMask(core::array::from_fn(|i| self.0[i].is_zero()))
    }

    /// `b` in the lanes where `mask` holds, `a` elsewhere.
    pub(super) fn select(a: &Self, b: &Self, mask: LaneMask<L>) -> Self {
        Self(core::array::from_fn(|i| {
            Fe::conditional_select(&a.0[i], &b.0[i], mask.0[i])
        }))
    }
}

impl<const L: usize> Zeroize for Lanes<L> {
    fn zeroize(&mut self) {
        self.0.iter_mut().for_each(Zeroize::zeroize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256_rustcrypto::FieldBytes;

    fn fe(v: u8) -> Fe {
        let mut b = FieldBytes::default();
        b[31] = v;
        Fe::from_bytes(&b).expect("small")
    }

    /// Each lane computes exactly the single-element operation, and masks act per lane.
    #[test]
    fn lanes_compute_each_element_and_select_per_lane() {
        let a = Lanes([fe(3), fe(0), fe(250)]);
        let b = Lanes([fe(7), fe(9), fe(0)]);
        for (i, (x, y)) in a.0.iter().zip(b.0.iter()).enumerate() {
            assert_eq!(a.add(&b).0[i], x.add(y));
            assert_eq!(a.sub(&b).0[i], x.sub(y));
            assert_eq!(a.mul(&b).0[i], x.mul(y));
            assert_eq!(a.square().0[i], x.square());
            assert_eq!(a.double().0[i], x.double());
            assert_eq!(a.neg().0[i], x.neg());
        }
        let zero = a.is_zero();
        let picked = Lanes::select(&a, &b, zero);
        assert_eq!(picked.0, [fe(3), fe(9), fe(250)]);
        let both = Lanes::select(&a, &b, zero.not().and(b.is_zero().not()));
        assert_eq!(both.0, [fe(7), fe(0), fe(250)]);
        assert_eq!(
            Lanes::select(&a, &b, LaneMask::splat(Choice::from(1))).0,
            b.0
        );
    }
}
