//! A generic fixed-base table: signed radix-16 digits, one table row per digit position.
//!
//! For a base `B`, row `i` holds `j · 16^i · B` for `j = 1..=8`. A scalar is recoded into 65
//! signed digits `dᵢ ∈ [-8, 8)`, and `s · B = Σ sign(dᵢ) · row_i[|dᵢ|]`: at most 65 additions
//! and no doublings, against ≈256 doublings for a plain multiplication. The table holds
//! 65 × 8 elements.
//!
//! Table lookups are indexed by secret digits, so this table is **not** constant time; groups
//! whose backend offers a constant-time fixed-base table (ristretto255) use that instead.
//!
//! [`mul_many_vartime`] is the variable-time counterpart for one base and a batch of public
//! scalars, with a window sized to the batch.

use crate::traits::{FixedBaseTable, Group, Scalar};

const DIGITS: usize = 65;

/// Precomputed signed radix-16 multiples of one base, for any [`Group`].
#[derive(Clone, Debug)]
pub struct RadixTable<G: Group> {
    base: G,
    rows: Vec<[G; 8]>,
}

impl<G: Group> RadixTable<G> {
    /// Builds the table for `base` (65 × 8 group additions).
    pub fn new(base: &G) -> Self {
        let mut rows = Vec::with_capacity(DIGITS);
        let mut row_base = *base;
        for _ in 0..DIGITS {
            let mut row = [row_base; 8];
            for j in 1..8 {
                row[j] = row[j - 1] + row_base;
            }
            // 16 · row_base = 2 · (8 · row_base)
            row_base = row[7].double();
            rows.push(row);
        }
        Self { base: *base, rows }
    }
}

/// Recodes a little-endian 256-bit integer into 65 signed radix-16 digits in `[-8, 8)`.
fn signed_radix16(le: &[u8; 32]) -> [i8; DIGITS] {
    let mut digits = [0i8; DIGITS];
    let mut carry = 0i8;
    for i in 0..64 {
        let nibble = ((le[i / 2] >> (4 * (i % 2))) & 0x0f) as i8;
        let v = nibble + carry;
        if v >= 8 {
            digits[i] = v - 16;
            carry = 1;
        } else {
            digits[i] = v;
            carry = 0;
        }
    }
    digits[64] = carry;
    digits
}

impl<G: Group> FixedBaseTable<G> for RadixTable<G> {
    fn mul(&self, s: &G::Scalar) -> G {
        let digits = signed_radix16(&s.to_le_bytes());
        let mut acc = G::identity();
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            if d > 0 {
                acc += row[(d - 1) as usize];
            } else if d < 0 {
                acc -= row[(-d - 1) as usize];
            }
        }
        acc
    }

    fn base(&self) -> G {
        self.base
    }
}

/// Smallest and largest window (bits per digit) [`mul_many_vartime`] chooses from. The upper
/// bound caps one table row at 512 elements (≈80 KB on ristretto255).
const MIN_WINDOW: usize = 2;
const MAX_WINDOW: usize = 10;

/// Number of signed digits of a 256-bit integer in radix `2^w`: `⌈256/w⌉` plus a final carry.
const fn digit_count(w: usize) -> usize {
    256usize.div_ceil(w) + 1
}

/// The window minimizing the group additions for `n` scalars: each of the `⌈256/w⌉ + 1` rows
/// costs `2^(w−1)` additions to build and at most one addition per scalar to use.
fn best_window(n: usize) -> usize {
    (MIN_WINDOW..=MAX_WINDOW)
        .min_by_key(|&w| digit_count(w) * (n + (1usize << (w - 1))))
        .unwrap_or(MIN_WINDOW)
}

/// Recodes a little-endian 256-bit integer into signed radix-`2^w` digits in
/// `[−2^(w−1), 2^(w−1))`, least significant first, appending them to `out`.
fn push_signed_digits(le: &[u8; 32], w: usize, out: &mut Vec<i16>) {
    let mut limbs = [0u64; 4];
    for (limb, chunk) in limbs.iter_mut().zip(le.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *limb = u64::from_le_bytes(b);
    }
    let mask = (1u64 << w) - 1;
    let half = 1i16 << (w - 1);
    let mut carry = 0i16;
    for i in 0..digit_count(w) - 1 {
        let pos = i * w;
        let (idx, off) = (pos / 64, pos % 64);
        let mut bits = limbs[idx] >> off;
        if off + w > 64 && idx + 1 < limbs.len() {
            bits |= limbs[idx + 1] << (64 - off);
        }
        // `w ≤ MAX_WINDOW`, so the masked window and the carried value fit an i16.
        let v = (bits & mask) as i16 + carry;
        if v >= half {
            out.push(v - (1i16 << w));
            carry = 1;
        } else {
            out.push(v);
            carry = 0;
        }
    }
    out.push(carry);
}

/// `sᵢ · base` for every scalar, in **variable time** (public scalars only).
///
/// Signed fixed-window method with the window chosen for the batch size: row `r` of the table
/// holds `j · 2^(wr) · base` for `j = 1..=2^(w−1)`, and `sᵢ · base` is the sum over rows of
/// `±row[|digit|]`. Rows are built and consumed one at a time (outer loop over rows), so only
/// one row is in memory and it stays in cache while every scalar uses it. For 1,024 scalars
/// (`w = 8`) that is ≈37 additions per scalar, against ≈290 group operations for a separate
/// variable-time multiplication.
pub fn mul_many_vartime<G: Group>(base: &G, scalars: &[G::Scalar]) -> Vec<G> {
    let n = scalars.len();
    if n <= 2 {
        // Below three scalars the table rows cost more than they save.
        return scalars.iter().map(|s| base.mul_vartime(s)).collect();
    }
    let w = best_window(n);
    let rows = digit_count(w);
    let mut digits = Vec::with_capacity(n * rows);
    for s in scalars {
        push_signed_digits(&s.to_le_bytes(), w, &mut digits);
    }
    // Rows above the highest non-zero digit (scalar fields smaller than 2^256) are skipped.
    let used_rows = digits
        .chunks_exact(rows)
        .filter_map(|ds| ds.iter().rposition(|&d| d != 0))
        .max()
        .map_or(0, |top| top + 1);
    let half = 1usize << (w - 1);
    let mut acc = vec![G::identity(); n];
    let mut row: Vec<G> = Vec::with_capacity(half);
    let mut row_base = *base;
    for r in 0..used_rows {
        row.clear();
        row.push(row_base);
        for j in 1..half {
            let next = row[j - 1] + row_base;
            row.push(next);
        }
        for (a, ds) in acc.iter_mut().zip(digits.chunks_exact(rows)) {
            let d = ds[r];
            if d > 0 {
                *a += row[d.unsigned_abs() as usize - 1];
            } else if d < 0 {
                *a -= row[d.unsigned_abs() as usize - 1];
            }
        }
        // 2^w · row_base = 2 · (2^(w−1) · row_base)
        row_base = row[half - 1].double();
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_recoding_reconstructs_the_integer() {
        let mut le = [0u8; 32];
        for (i, b) in le.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(91).wrapping_add(0x3c);
        }
        for top in [0x00u8, 0x7f, 0x80, 0xff] {
            le[31] = top;
            for w in MIN_WINDOW..=MAX_WINDOW {
                let mut digits = Vec::new();
                push_signed_digits(&le, w, &mut digits);
                assert_eq!(digits.len(), digit_count(w));
                let half = 1i32 << (w - 1);
                assert!(digits.iter().all(|&d| (-half..half).contains(&(d as i32))));
                // Σ dᵢ·2^(wi) with one signed counter per bit position, normalized to binary
                // with carries, must give back the input bit by bit.
                let mut bits = vec![0i64; 64 * 5];
                for (i, &d) in digits.iter().enumerate() {
                    bits[i * w] += d as i64;
                }
                for i in 0..bits.len() - 1 {
                    let q = bits[i].div_euclid(2);
                    bits[i] = bits[i].rem_euclid(2);
                    bits[i + 1] += q;
                }
                for i in 0..256 {
                    assert_eq!(
                        bits[i] as u8,
                        (le[i / 8] >> (i % 8)) & 1,
                        "w = {w}, bit {i}"
                    );
                }
                assert!(bits[256..].iter().all(|&b| b == 0), "w = {w}: no excess");
            }
        }
    }

    #[test]
    fn window_choice_grows_with_the_batch() {
        assert!(best_window(3) <= best_window(100));
        assert!(best_window(100) <= best_window(1024));
        assert_eq!(best_window(1024), 8);
        assert_eq!(best_window(1 << 20), MAX_WINDOW);
    }

    #[test]
    fn recoding_reconstructs_the_integer() {
        let mut le = [0u8; 32];
        for (i, b) in le.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37).wrapping_add(0x9b);
        }
        le[31] = 0xff;
        let digits = signed_radix16(&le);
        // Σ dᵢ 16^i, evaluated nibble-wise with borrow, must give back the input bytes.
        let mut acc = [0i32; 66];
        for (i, &d) in digits.iter().enumerate() {
            acc[i] += d as i32;
        }
        for i in 0..65 {
            let q = acc[i].div_euclid(16);
            acc[i] = acc[i].rem_euclid(16);
            acc[i + 1] += q;
        }
        for i in 0..64 {
            assert_eq!(
                acc[i] as u8,
                (le[i / 2] >> (4 * (i % 2))) & 0x0f,
                "nibble {i}"
            );
        }
        assert_eq!((acc[64], acc[65]), (0, 0), "no excess beyond 256 bits");
        assert!(digits.iter().all(|&d| (-8..8).contains(&d)));
    }
}
