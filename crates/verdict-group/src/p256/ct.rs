//! Constant-time P-256 scalar multiplication for **secret** scalars, over RustCrypto's `p256`.
//!
//! # Why a second backend
//!
//! arkworks 0.6 field arithmetic branches on data, so no ladder written on top of it can be
//! constant time (ark-ff 0.6.0, `src/fields/models/fp/montgomery_backend.rs` and
//! `src/fields/models/fp/mod.rs`):
//!
//! - every `add_assign`, `double_in_place`, `mul_assign` and `square_in_place` ends with
//!   `subtract_modulus`, which is `if self.is_geq_modulus() { self.0.sub_with_borrow(..) }`;
//! - `is_geq_modulus` is `BigInt::cmp`, a limb loop that returns at the first limb that differs;
//! - `sub_assign` starts with `if b.0 > a.0 { a.0.add_with_carry(&MODULUS) }`, and
//!   `neg_in_place` with `if !a.is_zero()`;
//! - `inverse` is a binary extended Euclid whose loop count follows the input.
//!
//! RustCrypto's `p256` 0.13 (field `FieldElement`, the curve arithmetic of `primeorder` 0.13)
//! is written for secrets: Montgomery arithmetic whose final subtraction is a borrow mask,
//! complete Renes–Costello–Batina formulas for `a = −3` (no exceptional cases, so no branch on
//! the identity or on doubling), a 4-bit fixed-window ladder that reads its table with
//! `subtle` conditional selection, inversion by a fixed exponentiation, and `CtOption` instead
//! of branches for validity. This module uses it for the multiplications whose scalar is
//! secret and converts points at the boundary. One product or one scalar times many bases
//! runs on a faster ladder of ours (`ladder.rs`, points in `jacobian.rs`) over a constant-time field of ours with a
//! dedicated squaring (`field.rs`, tested against `p256`'s); the fixed-base table and the MSM
//! use `p256`'s points.
//!
//! # What is and is not constant time here
//!
//! Constant time in the scalar: the scalar's encoding and the digit recodings below (shifts
//! and masks, no branches), every table read (`conditional_assign` over the whole row), every
//! point operation, the normalization of the result (a constant-time inversion by a fixed
//! exponentiation), and the conversion of the result back into arkworks' representation (the
//! canonical coordinates are brought into Montgomery form by `field.rs`, whose limbs are
//! arkworks' representation, and handed over with `Fq::new_unchecked`, avoiding
//! `from_bigint`'s comparisons and conditional subtraction).
//!
//! Not constant time, and why that is acceptable: **the base point** goes into `p256` through
//! arkworks (`into_affine`, a variable-time inversion unless `Z = 1`); every base in Verdict
//! is public (the generator, `h`, hashed generators, peer public keys, ciphertext components).
//! Whether the result is the identity is decided with a branch; for a non-zero scalar and a
//! non-identity base it never is. What the caller does next with the arkworks point (adding,
//! encoding a point with `Z ≠ 1`) is arkworks arithmetic again: see `docs/notes-group.md`.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInt, PrimeField};
use ark_secp256r1::{Affine, Fq, Projective};
use p256_rustcrypto::elliptic_curve::group::Group as _;
use p256_rustcrypto::elliptic_curve::ops::Reduce;
use p256_rustcrypto::elliptic_curve::point::AffineCoordinates;
use p256_rustcrypto::elliptic_curve::sec1::{Coordinates, FromEncodedPoint, ToEncodedPoint};
use p256_rustcrypto::elliptic_curve::subtle::{
    ConditionallyNegatable, ConditionallySelectable, ConstantTimeEq,
};
use p256_rustcrypto::{
    AffinePoint as CtAffine, EncodedPoint, FieldBytes, ProjectivePoint as CtPoint,
    Scalar as CtScalar, U256,
};
use zeroize::{Zeroize, Zeroizing};

use super::field::Fe;
use super::jacobian::Affine as LadderAffine;
use super::ladder;
use super::normalize::{self, AffineBytes};
use super::point::{IDENTITY_ENCODING, Point};
use super::scalar::{Scalar, bigint_to_be};
use crate::traits::{FixedBaseTable, Group, Scalar as _};

/// Rows of a fixed-base table: 64 radix-16 digits and one final carry.
const ROWS: usize = 65;

/// A public arkworks point as a `p256` point; `None` only if it is not on the curve, which no
/// [`Point`] can be (its constructors validate).
fn to_ct(p: &Affine) -> Option<CtPoint> {
    let Some((x, y)) = p.xy() else {
        return Some(CtPoint::IDENTITY);
    };
    let encoded = EncodedPoint::from_affine_coordinates(&fq_bytes(&x), &fq_bytes(&y), false);
    Option::<CtAffine>::from(CtAffine::from_encoded_point(&encoded))
        .map(<CtPoint as From<CtAffine>>::from)
}

/// Public arkworks points as `p256` points, normalized with one shared (public) inversion.
fn to_ct_many(points: &[Point]) -> Option<Vec<CtPoint>> {
    let projective: Vec<Projective> = points.iter().map(|p| p.0).collect();
    Projective::normalize_batch(&projective)
        .iter()
        .map(to_ct)
        .collect()
}

/// The canonical big-endian bytes of a field element (a branch-free Montgomery reduction).
fn fq_bytes(x: &Fq) -> FieldBytes {
    FieldBytes::from(bigint_to_be(&x.into_bigint()))
}

/// A canonical coordinate as an arkworks field element, without arkworks' branches: the
/// Montgomery form `x·2^256 mod p` is computed by the constant-time field of `field.rs`, whose
/// limbs are arkworks' representation.
fn fq_from_ct(bytes: &FieldBytes) -> Fq {
    // A coordinate of a valid point is below p, so the fallback is never taken.
    let mut x = Fe::from_bytes(bytes).unwrap_or(Fe::ZERO);
    let fq = Fq::new_unchecked(BigInt::new(x.0));
    x.zeroize();
    fq
}

/// A normalized `p256` point as an arkworks point with `Z = 1`.
fn from_ct_affine(a: &CtAffine) -> Point {
    let encoded = Zeroizing::new(a.to_encoded_point(false));
    match encoded.coordinates() {
        Coordinates::Uncompressed { x, y } => {
            Point(Affine::new_unchecked(fq_from_ct(x), fq_from_ct(y)).into_group())
        }
        // An uncompressed encoding is either that or the identity.
        _ => Point::identity(),
    }
}

/// The SEC1 compressed encoding of a normalized `p256` point (the same bytes as
/// [`Group::to_bytes`] on the equal arkworks point), with a branch-free parity prefix.
fn encode_ct(a: &CtAffine) -> [u8; 33] {
    if bool::from(a.is_identity()) {
        return IDENTITY_ENCODING;
    }
    let mut out = [0u8; 33];
    out[0] = 0x02 | a.y_is_odd().unwrap_u8();
    out[1..].copy_from_slice(&a.x());
    out
}

/// The secret scalar as a `p256` scalar (constant-time encoding and reduction).
fn to_ct_scalar(s: &Scalar) -> Zeroizing<CtScalar> {
    let bytes = Zeroizing::new(FieldBytes::from(s.to_bytes()));
    Zeroizing::new(<CtScalar as Reduce<U256>>::reduce_bytes(&bytes))
}

/// A public arkworks point as a base of the ladder (`None` inside for the identity); `None`
/// only for a coordinate not below `p`, which no arkworks point has.
fn to_ladder_base(p: &Affine) -> Option<ladder::Base> {
    match p.xy() {
        None => Some(None),
        Some((x, y)) => LadderAffine::from_bytes(&fq_bytes(&x), &fq_bytes(&y)).map(Some),
    }
}

/// A normalized secret-dependent result as an arkworks point with `Z = 1` and its SEC1
/// encoding (branch-free parity prefix); `None` is the identity.
fn from_affine_bytes(xy: Option<&AffineBytes>) -> (Point, [u8; 33]) {
    let Some(xy) = xy else {
        return (Point::identity(), IDENTITY_ENCODING);
    };
    let mut x = FieldBytes::default();
    let mut y = FieldBytes::default();
    x.copy_from_slice(&xy[..32]);
    y.copy_from_slice(&xy[32..]);
    let point = Point(Affine::new_unchecked(fq_from_ct(&x), fq_from_ct(&y)).into_group());
    let mut encoding = [0u8; 33];
    encoding[0] = 0x02 | (y[31] & 1);
    encoding[1..].copy_from_slice(&x);
    x.zeroize();
    y.zeroize();
    (point, encoding)
}

/// `s · P`, constant time in `s`; `None` only for a base off the curve (impossible).
pub(crate) fn mul(p: &Point, s: &Scalar) -> Option<Point> {
    let base = to_ladder_base(&p.0.into_affine())?;
    let q = ladder::mul(&base, &to_ct_scalar(s));
    let normalized = normalize::normalize_batch(core::slice::from_ref(&*q));
    Some(from_affine_bytes(normalized.first().and_then(Option::as_ref)).0)
}

/// `s · Bᵢ` for every base with their encodings: one secret scalar, constant time in it, all
/// results normalized with one shared constant-time inversion.
pub(crate) fn mul_each_encoded(bases: &[Point], s: &Scalar) -> Option<(Vec<Point>, Vec<[u8; 33]>)> {
    let projective: Vec<Projective> = bases.iter().map(|p| p.0).collect();
    let bases: Vec<ladder::Base> = Projective::normalize_batch(&projective)
        .iter()
        .map(to_ladder_base)
        .collect::<Option<_>>()?;
    let k = to_ct_scalar(s);
    let products = ladder::mul_each(&bases, &k);
    Some(
        normalize::normalize_batch(&products)
            .iter()
            .map(|xy| from_affine_bytes(xy.as_ref()))
            .unzip(),
    )
}

/// Normalizes secret-dependent `p256` points (a constant-time inversion each), converts them
/// to arkworks and encodes them.
fn normalize_and_encode(points: &[CtPoint]) -> (Vec<Point>, Vec<[u8; 33]>) {
    let affine: Zeroizing<Vec<CtAffine>> =
        Zeroizing::new(points.iter().map(CtPoint::to_affine).collect());
    let converted = affine.iter().map(from_ct_affine).collect();
    let encodings = affine.iter().map(encode_ct).collect();
    (converted, encodings)
}

/// The 16 multiples `0·P, 1·P, …, 15·P` for the 4-bit windows of [`msm`].
fn window_table(p: &CtPoint) -> [CtPoint; 16] {
    let mut table = [CtPoint::IDENTITY; 16];
    table[1] = *p;
    for i in 2..16 {
        table[i] = if i % 2 == 0 {
            table[i / 2].double()
        } else {
            table[i - 1] + p
        };
    }
    table
}

/// Nibble `i` (0 = least significant) of a little-endian 256-bit integer.
fn nibble(le: &[u8; 32], i: usize) -> u8 {
    (le[i / 2] >> (4 * (i % 2))) & 0x0f
}

/// `Σ sᵢ · Pᵢ`, constant time in the scalars: a Straus interleaving of 4-bit fixed windows,
/// the 252 doublings shared by all terms, every window value read from its table by a full
/// constant-time scan. About 80 complete additions per term (15 to build its table, 64 to use
/// it) besides the shared doublings, against ≈ 320 group operations for a separate ladder.
///
/// `None` if the lengths differ or a base is off the curve (impossible).
pub(crate) fn msm(scalars: &[Scalar], points: &[Point]) -> Option<Point> {
    if scalars.len() != points.len() {
        return None;
    }
    let tables: Vec<[CtPoint; 16]> = to_ct_many(points)?.iter().map(window_table).collect();
    let digits: Zeroizing<Vec<[u8; 32]>> =
        Zeroizing::new(scalars.iter().map(|s| s.to_le_bytes()).collect());
    let mut acc = Zeroizing::new(CtPoint::IDENTITY);
    let mut selected = Zeroizing::new(CtPoint::IDENTITY);
    for pos in (0..64).rev() {
        if pos != 63 {
            for _ in 0..4 {
                *acc = acc.double();
            }
        }
        for (table, le) in tables.iter().zip(digits.iter()) {
            let mut d = nibble(le, pos);
            *selected = CtPoint::IDENTITY;
            for (i, entry) in table.iter().enumerate().skip(1) {
                selected.conditional_assign(entry, d.ct_eq(&(i as u8)));
            }
            d.zeroize();
            *acc += *selected;
        }
    }
    let a = Zeroizing::new(acc.to_affine());
    Some(from_ct_affine(&a))
}

/// Recodes a little-endian 256-bit integer into 65 signed radix-16 digits in `[−8, 8)`
/// without branches: the carry out of each nibble is `(v + 8) >> 4`. The digits are the
/// same as those of `fixed_base`'s variable-time recoding.
fn signed_radix16(le: &[u8; 32]) -> Zeroizing<[i8; ROWS]> {
    let mut digits = Zeroizing::new([0i8; ROWS]);
    let mut carry = 0u8;
    for i in 0..64 {
        let v = nibble(le, i) + carry;
        carry = (v + 8) >> 4;
        digits[i] = v as i8 - (carry << 4) as i8;
    }
    digits[64] = carry as i8;
    digits
}

/// A constant-time fixed-base table for P-256: row `i` holds `j · 16^i · B` for `j = 1..=8`
/// as `p256` projective points (65 × 8 points, ≈ 50 kB).
///
/// [`FixedBaseTable::mul`] recodes the scalar into signed radix-16 digits without branches,
/// reads `|dᵢ|` from row `i` by scanning all 8 entries with conditional selection, negates
/// the result when `dᵢ < 0` by conditional negation, and adds it with the complete formula:
/// 65 additions and no doublings, the same sequence of operations for every scalar. Entries
/// stay projective: normalizing them would cost an inversion each (no batch inversion for
/// P-256 in `p256` 0.13) and the complete mixed addition saves only one multiplication.
#[derive(Clone)]
pub struct Table {
    base: Point,
    rows: Vec<[CtPoint; 8]>,
}

impl core::fmt::Debug for Table {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Table")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// Builds the table for `base` (520 additions); `None` only for a base off the curve
    /// (impossible).
    pub(crate) fn new(base: &Point) -> Option<Self> {
        let mut row_base = to_ct(&base.0.into_affine())?;
        let mut all = Vec::with_capacity(ROWS * 8);
        for _ in 0..ROWS {
            let mut acc = row_base;
            all.push(acc);
            for _ in 1..8 {
                acc += row_base;
                all.push(acc);
            }
            // acc = 8 · row_base, so its double is the next row's base 16 · row_base.
            row_base = acc.double();
        }
        let rows = all
            .chunks_exact(8)
            .map(|c| core::array::from_fn(|j| c[j]))
            .collect();
        Some(Self { base: *base, rows })
    }

    /// `s · B` as a `p256` point, before normalization.
    fn mul_projective(&self, s: &Scalar) -> Zeroizing<CtPoint> {
        let le = Zeroizing::new(s.to_le_bytes());
        let digits = signed_radix16(&le);
        let mut acc = Zeroizing::new(CtPoint::IDENTITY);
        let mut selected = Zeroizing::new(CtPoint::IDENTITY);
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            // Sign and magnitude of d ∈ [−8, 8) with masks: `mask` is 0xff for d < 0.
            let mask = (d >> 7) as u8;
            let mut magnitude = ((d as u8) ^ mask).wrapping_sub(mask);
            *selected = CtPoint::IDENTITY;
            for (j, entry) in row.iter().enumerate() {
                selected.conditional_assign(entry, magnitude.ct_eq(&(j as u8 + 1)));
            }
            selected.conditional_negate((mask & 1).into());
            magnitude.zeroize();
            *acc += *selected;
        }
        acc
    }

    /// `sᵢ · B` for every scalar with their encodings (a constant-time inversion each).
    pub(crate) fn mul_encoded(&self, scalars: &[Scalar]) -> (Vec<Point>, Vec<[u8; 33]>) {
        let products: Zeroizing<Vec<CtPoint>> =
            Zeroizing::new(scalars.iter().map(|s| *self.mul_projective(s)).collect());
        normalize_and_encode(&products)
    }
}

impl FixedBaseTable<Point> for Table {
    fn mul(&self, s: &Scalar) -> Point {
        let q = self.mul_projective(s);
        let a = Zeroizing::new(q.to_affine());
        from_ct_affine(&a)
    }
    fn base(&self) -> Point {
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{Field, One, Zero};
    use ark_secp256r1::Fr;
    use rand::SeedableRng;

    /// Scalars where a ladder or a recoding typically goes wrong: zero, one, −1 (all ones in
    /// the top nibbles), powers of two at window boundaries, nibbles of 8 (the signed-digit
    /// carry), and random ones.
    fn scalars() -> Vec<Scalar> {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(256);
        let mut out = vec![
            Scalar(Fr::zero()),
            Scalar(Fr::one()),
            Scalar(-Fr::one()),
            Scalar(Fr::from(8u64)),
            Scalar(Fr::from(0x8888_8888_8888_8888u64)),
            Scalar(Fr::from(2u64).pow([252u64])),
            Scalar(Fr::from(2u64).pow([255u64])),
            Scalar(-Fr::from(2u64).pow([128u64])),
        ];
        // Around the Jacobian ladder's halving (`ladder.rs`): both sides of n/2, and
        // n − 17 … n − 2, which become the small scalars 17 … 2 with the result negated.
        let half = Fr::from(2u64).inverse().expect("2 is invertible");
        out.extend([
            Scalar(half),
            Scalar(half - Fr::one()),
            Scalar(half + Fr::one()),
        ]);
        out.extend((2..=17u64).map(|j| Scalar(-Fr::from(j))));
        out.extend((0..8).map(|_| Scalar::random(&mut rng)));
        out
    }

    fn bases() -> Vec<Point> {
        let g = Point::generator();
        vec![
            g,
            Point::hash_to_group(b"p256_ct test", b"base"),
            g.double().double() + g,
            Point::identity(),
        ]
    }

    /// The constant-time ladder gives the same point as the variable-time wNAF, normalized.
    #[test]
    fn ladder_matches_wnaf() {
        for p in bases() {
            for s in scalars() {
                let ct = mul(&p, &s).expect("valid points convert");
                assert_eq!(ct, p.mul_vartime(&s));
                assert!(
                    ct.is_identity() || ct.0.z.is_one(),
                    "results come back with Z = 1"
                );
            }
        }
    }

    /// Random bases and scalars through the Jacobian ladder, alone and as one batch sharing
    /// an inversion, against the variable-time wNAF.
    #[test]
    fn jacobian_ladder_matches_wnaf_on_random_inputs() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0x5eed);
        // An odd count: the batch's last base runs alone, the others two by two in lockstep.
        let mut bases: Vec<Point> = (0..47).map(|_| Point::random(&mut rng)).collect();
        // Identity bases first and inside a batch (a zero `Z` in the shared inversion), in
        // both lanes of a lockstep pair and last.
        for i in [0, 20, 33, 46] {
            bases[i] = Point::identity();
        }
        for b in &bases {
            let s = Scalar::random(&mut rng);
            assert_eq!(mul(b, &s), Some(b.mul_vartime(&s)));
        }
        let s = Scalar::random(&mut rng);
        let (points, reprs) = mul_each_encoded(&bases, &s).expect("valid points convert");
        for ((b, q), r) in bases.iter().zip(&points).zip(&reprs) {
            assert_eq!(*q, b.mul_vartime(&s));
            assert_eq!(*r, q.to_bytes());
        }
    }

    /// The constant-time table (generator and an arbitrary base) matches the wNAF, and its
    /// batch form returns the same points with their canonical encodings.
    #[test]
    fn table_matches_wnaf_and_encodes_canonically() {
        for p in bases() {
            let table = Table::new(&p).expect("valid points convert");
            assert_eq!(table.base(), p);
            let ss = scalars();
            for s in &ss {
                assert_eq!(table.mul(s), p.mul_vartime(s));
            }
            let (points, reprs) = table.mul_encoded(&ss);
            for ((s, q), r) in ss.iter().zip(&points).zip(&reprs) {
                assert_eq!(*q, p.mul_vartime(s));
                assert_eq!(*r, q.to_bytes());
            }
        }
    }

    /// The constant-time MSM matches the variable-time one at several sizes, including the
    /// empty sum, zero scalars and identity bases, and rejects mismatched lengths.
    #[test]
    fn msm_matches_vartime() {
        let ss = scalars();
        let mut ps = bases();
        ps.extend(bases().iter().map(|p| p.double()));
        for n in [0usize, 1, 2, 5, 8] {
            let (s, p) = (&ss[..n], &ps[..n]);
            let ct = msm(s, p).expect("equal lengths, valid points");
            assert_eq!(
                ct,
                Point::msm_vartime(s, p).expect("equal lengths"),
                "n = {n}"
            );
        }
        assert!(msm(&ss[..2], &ps[..3]).is_none());
    }

    /// One secret scalar times many bases gives the wNAF's points and canonical encodings, for
    /// every count from none to all of [`bases`] (odd counts leave one base out of the
    /// lockstep pairs; the identity is the second lane of the last pair).
    #[test]
    fn mul_each_matches_wnaf_and_encodes_canonically() {
        let all = bases();
        for (n, s) in (0..=all.len()).flat_map(|n| scalars().into_iter().map(move |s| (n, s))) {
            let bases = &all[..n];
            let (points, reprs) = mul_each_encoded(bases, &s).expect("valid points convert");
            assert_eq!(points.len(), bases.len());
            for ((b, q), r) in bases.iter().zip(&points).zip(&reprs) {
                assert_eq!(*q, b.mul_vartime(&s));
                assert_eq!(*r, q.to_bytes());
            }
        }
    }

    /// The branch-free signed recoding reconstructs the integer and stays in `[−8, 8)`.
    #[test]
    fn signed_recoding_reconstructs() {
        for s in scalars() {
            let le = s.to_le_bytes();
            let digits = signed_radix16(&le);
            assert!(digits.iter().all(|d| (-8..8).contains(d)));
            let mut acc = Fr::zero();
            let sixteen = Fr::from(16u64);
            for &d in digits.iter().rev() {
                acc *= sixteen;
                if d >= 0 {
                    acc += Fr::from(d as u64);
                } else {
                    acc -= Fr::from(d.unsigned_abs() as u64);
                }
            }
            assert_eq!(Scalar(acc), s);
        }
    }

    /// The conversion into arkworks' Montgomery form agrees with arkworks' own.
    #[test]
    fn montgomery_conversion_matches_arkworks() {
        for v in [
            Fq::zero(),
            Fq::one(),
            -Fq::one(),
            Fq::from(0xdead_beefu64).square(),
        ] {
            assert_eq!(fq_from_ct(&fq_bytes(&v)), v);
        }
    }
}
