//! A fixed-base table for short-Weierstrass curves with **affine** entries.
//!
//! Same idea as [`crate::fixed_base::RadixTable`] (signed radix-2^w digits, one row of
//! multiples per digit position, no doublings at multiplication time), but the entries are
//! normalized to affine coordinates once (one batch inversion), so every addition at
//! multiplication time is a mixed Jacobian + affine addition (7M + 4S instead of 11M + 5S).
//! The window is a parameter: wider windows mean fewer additions and larger, slower-to-build
//! tables. Secret-indexed lookups: **not** constant time.

use ark_bls12_381::Fr;
use ark_ec::CurveGroup;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ff::{AdditiveGroup, PrimeField};

/// Number of bits in the scalars the table accepts (`r < 2^255`; one spare bit).
const SCALAR_BITS: usize = 256;

/// Precomputed multiples `j · 2^(w·i) · B` (`j = 1..=2^(w−1)`) of a base `B`, in affine form.
#[derive(Clone)]
pub struct AffineTable<P: SWCurveConfig> {
    base: Projective<P>,
    window: usize,
    /// `rows[i][j − 1] = j · 2^(w·i) · B`.
    rows: Vec<Vec<Affine<P>>>,
}

impl<P: SWCurveConfig> core::fmt::Debug for AffineTable<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AffineTable")
            .field("base", &self.base)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl<P: SWCurveConfig<ScalarField = Fr>> AffineTable<P> {
    /// Builds the table for `base` with window `w ∈ [2, 8]` (clamped): `(⌈256/w⌉ + 1) · 2^(w−1)`
    /// points.
    pub fn new(base: Projective<P>, window: usize) -> Self {
        let window = window.clamp(2, 8);
        let half = 1usize << (window - 1);
        let digits = SCALAR_BITS.div_ceil(window) + 1;
        let mut all = Vec::with_capacity(digits * half);
        let mut row_base = base;
        for _ in 0..digits {
            let mut acc = row_base;
            all.push(acc);
            for _ in 1..half {
                acc += row_base;
                all.push(acc);
            }
            // acc = 2^(w−1) · row_base, so its double is the next row's base.
            row_base = acc.double();
        }
        let affine = Projective::<P>::normalize_batch(&all);
        let rows = affine.chunks(half).map(<[Affine<P>]>::to_vec).collect();
        Self { base, window, rows }
    }

    /// The base point.
    pub fn base(&self) -> Projective<P> {
        self.base
    }

    /// `s · B`: one mixed addition per non-zero signed digit.
    pub fn mul(&self, s: &Fr) -> Projective<P> {
        let digits = signed_digits(&s.into_bigint().0, self.window);
        let mut acc = Projective::<P>::ZERO;
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            if d > 0 {
                acc += &row[(d - 1) as usize];
            } else if d < 0 {
                acc -= &row[(-d - 1) as usize];
            }
        }
        acc
    }
}

/// Recodes a 256-bit integer (little-endian limbs) into `⌈256/w⌉ + 1` signed digits in
/// `[−2^(w−1), 2^(w−1))`, least significant first, with `Σ dᵢ 2^(w·i)` equal to the input.
fn signed_digits(limbs: &[u64; 4], window: usize) -> Vec<i16> {
    let n = SCALAR_BITS.div_ceil(window);
    let half = 1i16 << (window - 1);
    let full = 1i16 << window;
    let mask = (1u64 << window) - 1;
    let mut digits = Vec::with_capacity(n + 1);
    let mut carry = 0i16;
    for i in 0..n {
        let bit = i * window;
        let (limb, off) = (bit / 64, bit % 64);
        let mut chunk = limbs[limb] >> off;
        if off + window > 64 && limb + 1 < 4 {
            chunk |= limbs[limb + 1] << (64 - off);
        }
        let v = (chunk & mask) as i16 + carry;
        if v >= half {
            digits.push(v - full);
            carry = 1;
        } else {
            digits.push(v);
            carry = 0;
        }
    }
    digits.push(carry);
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recoding_reconstructs_the_integer() {
        let limbs = [
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            0xffff_ffff_ffff_ffff,
            0x8000_0000_0000_0001,
        ];
        for w in 2..=8 {
            let digits = signed_digits(&limbs, w);
            // Evaluate Σ dᵢ 2^(w·i) into 5 limbs with a signed accumulator per bit position.
            let mut acc = vec![0i64; SCALAR_BITS + 2 * w + 64];
            for (i, &d) in digits.iter().enumerate() {
                acc[i * w] += d as i64;
            }
            for k in 0..acc.len() - 1 {
                let q = acc[k].div_euclid(2);
                acc[k] = acc[k].rem_euclid(2);
                acc[k + 1] += q;
            }
            for k in 0..SCALAR_BITS {
                let expect = (limbs[k / 64] >> (k % 64)) & 1;
                assert_eq!(acc[k] as u64, expect, "w = {w}, bit {k}");
            }
            assert!(acc[SCALAR_BITS..].iter().all(|&b| b == 0), "w = {w}");
            let half = 1i16 << (w - 1);
            assert!(digits.iter().all(|&d| (-half..half).contains(&d)));
        }
    }
}
