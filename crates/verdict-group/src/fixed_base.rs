//! A generic fixed-base table: signed radix-16 digits, one table row per digit position.
//!
//! For a base `B`, row `i` holds `j · 16^i · B` for `j = 1..=8`. A scalar is recoded into 65
//! signed digits `dᵢ ∈ [-8, 8)`, and `s · B = Σ sign(dᵢ) · row_i[|dᵢ|]`: at most 65 additions
//! and no doublings, against ≈256 doublings for a plain multiplication. The table holds
//! 65 × 8 elements.
//!
//! Table lookups are indexed by secret digits, so this table is **not** constant time; groups
//! whose backend offers a constant-time fixed-base table (ristretto255) use that instead.

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

#[cfg(test)]
mod tests {
    use super::*;

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
