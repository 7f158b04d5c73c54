//! Variable-time multi-base multiplication for **public** scalars: interleaved wNAF with
//! `a = −3` doublings.

use ark_ec::{AdditiveGroup, CurveGroup};
use ark_ff::{BigInt, Field, PrimeField};
use ark_secp256r1::{Affine, Projective};

use super::point::Point;
use super::scalar::Scalar;

/// Number of wNAF digits of a scalar `< n < 2^256` (the recoding can carry one position up).
pub(super) const WNAF_LEN: usize = 257;
/// Window width for bases that are only used once: 2^(w−2) = 8 precomputed odd multiples.
pub(super) const WNAF_WINDOW_VAR: u32 = 5;
/// Window width for the generator, whose odd multiples are precomputed once: 64 points, so
/// about one addition every 9 doublings.
pub(super) const WNAF_WINDOW_GEN: u32 = 8;
/// Up to this many terms, [`Group::msm_vartime`] uses interleaved wNAF instead of arkworks'
/// Pippenger MSM, whose bucket set-up dominates for few points. A rough measurement put the
/// crossover between 32 and 64 terms (interleaved wNAF ≈ 25% faster at 16–32 terms, ≈ 2×
/// faster at 1–6).
pub(super) const SMALL_MSM: usize = 32;

/// Width-`w` non-adjacent form of a 256-bit integer: digits odd or zero, `|dᵢ| < 2^(w−1)`,
/// and any `w` consecutive digits contain at most one non-zero. `w ≤ 8`, so digits fit `i8`.
pub(super) fn wnaf(scalar: &BigInt<4>, w: u32) -> [i8; WNAF_LEN] {
    let width = 1u64 << w;
    let half = width >> 1;
    let mask = width - 1;
    // One spare limb absorbs the carry of a negative digit at the top.
    let mut k = [scalar.0[0], scalar.0[1], scalar.0[2], scalar.0[3], 0u64];
    let mut digits = [0i8; WNAF_LEN];
    for digit in digits.iter_mut() {
        if k.iter().all(|&l| l == 0) {
            break;
        }
        if k[0] & 1 == 1 {
            let m = k[0] & mask;
            if m >= half {
                // Negative digit m − 2^w: add 2^w − m, which clears the low w bits.
                *digit = (m as i64 - width as i64) as i8;
                let mut carry = width - m;
                for limb in k.iter_mut() {
                    let (v, overflow) = limb.overflowing_add(carry);
                    *limb = v;
                    carry = u64::from(overflow);
                    if carry == 0 {
                        break;
                    }
                }
            } else {
                // Positive digit m: the low w bits of k are exactly m, so no borrow.
                *digit = m as i8;
                k[0] -= m;
            }
        }
        for i in 0..4 {
            k[i] = (k[i] >> 1) | (k[i + 1] << 63);
        }
        k[4] >>= 1;
    }
    digits
}

/// The odd multiples `P, 3P, …, (2^(w−1) − 1)P` in projective coordinates.
pub(super) fn odd_multiples(p: &Projective, w: u32) -> Vec<Projective> {
    let count = 1usize << (w - 2);
    let double = p.double();
    let mut out = Vec::with_capacity(count);
    let mut acc = *p;
    out.push(acc);
    for _ in 1..count {
        acc += double;
        out.push(acc);
    }
    out
}

/// Doubles a Jacobian point in place with the `a = −3` formula `dbl-2001-b` (Bernstein–Lange,
/// Explicit-Formulas Database): 4M + 4S, against 3M + 7S for arkworks' generic-`a` doubling
/// (one of its M being the multiplication by `a`). Doublings are ≈80% of the work of a wNAF
/// multiplication.
///
/// The point at infinity (`Z = 0`) stays at infinity since `Z3 = 2·Y1·Z1`; `Y1 = 0` cannot
/// occur (no point of order 2).
pub(super) fn double_a_minus_3(p: &mut Projective) {
    let delta = p.z.square();
    let gamma = p.y.square();
    let beta = p.x * gamma;
    let t = (p.x - delta) * (p.x + delta);
    let alpha = t.double() + t;
    let beta4 = beta.double().double();
    let x3 = alpha.square() - beta4.double();
    let z3 = (p.y * p.z).double();
    let gamma2_8 = gamma.square().double().double().double();
    p.y = alpha * (beta4 - x3) - gamma2_8;
    p.x = x3;
    p.z = z3;
}

/// `Σ dᵢ · Tᵢ` for wNAF digit vectors and matching tables of affine odd multiples: one shared
/// chain of doublings, one mixed addition per non-zero digit.
pub(super) fn interleaved_wnaf(terms: &[([i8; WNAF_LEN], &[Affine])]) -> Projective {
    let top = terms
        .iter()
        .filter_map(|(d, _)| d.iter().rposition(|&x| x != 0))
        .max();
    let mut acc = Projective::ZERO;
    let Some(top) = top else {
        return acc;
    };
    for i in (0..=top).rev() {
        double_a_minus_3(&mut acc);
        for (digits, table) in terms {
            let d = digits[i];
            // Digits are odd, so |d| / 2 indexes the multiple |d| · T.
            if d > 0 {
                acc += &table[(d as usize) / 2];
            } else if d < 0 {
                acc -= &table[(d.unsigned_abs() as usize) / 2];
            }
        }
    }
    acc
}

/// `Σ sᵢ · Pᵢ` by interleaved wNAF; the odd-multiple tables of all bases share one inversion.
pub(super) fn small_msm(scalars: &[Scalar], points: &[Point]) -> Projective {
    let per = 1usize << (WNAF_WINDOW_VAR - 2);
    let projective: Vec<Projective> = points
        .iter()
        .flat_map(|p| odd_multiples(&p.0, WNAF_WINDOW_VAR))
        .collect();
    let affine = Projective::normalize_batch(&projective);
    let terms: Vec<([i8; WNAF_LEN], &[Affine])> = scalars
        .iter()
        .zip(affine.chunks_exact(per))
        .map(|(s, table)| (wnaf(&s.0.into_bigint(), WNAF_WINDOW_VAR), table))
        .collect();
    interleaved_wnaf(&terms)
}
