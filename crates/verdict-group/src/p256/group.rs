//! The [`Group`] implementation of P-256: secret-scalar multiplications on the constant-time
//! backend, public ones on the interleaved wNAF, hashing to the group.

use core::ops::{Mul, MulAssign};
use std::sync::OnceLock;

use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, Field, PrimeField, Zero};
use ark_secp256r1::{Affine, Projective};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use super::ct::Table;
use super::point::*;
use super::scalar::Scalar;
use super::wnaf::*;
use crate::error::{DecodeError, GroupError};
use crate::traits::{FixedBaseTable, Group};

/// `s · P` for a secret `s`: constant time in `s` (the Jacobian ladder on `p256`'s field). The fallback
/// to the wNAF, which gives the same point, runs only if `P` could not be converted, which
/// cannot happen for a valid point.
fn mul_secret(p: &Point, s: &Scalar) -> Point {
    super::ct::mul(p, s).unwrap_or_else(|| Group::mul_vartime(p, s))
}

impl Mul<Scalar> for Point {
    type Output = Point;
    #[inline]
    fn mul(self, rhs: Scalar) -> Point {
        mul_secret(&self, &rhs)
    }
}
impl Mul<&Scalar> for Point {
    type Output = Point;
    #[inline]
    fn mul(self, rhs: &Scalar) -> Point {
        mul_secret(&self, rhs)
    }
}
impl MulAssign<Scalar> for Point {
    fn mul_assign(&mut self, rhs: Scalar) {
        *self = mul_secret(self, &rhs);
    }
}

/// Tables for the generator, built on first use and shared by every thread.
struct GeneratorTables {
    /// Constant-time signed radix-16 table for [`Group::mul_generator`] (`None` only if the
    /// generator could not be converted, which cannot happen).
    ct: Option<Table>,
    /// Affine odd multiples for the double-base wNAF.
    wnaf: Vec<Affine>,
}

fn generator_tables() -> &'static GeneratorTables {
    static TABLES: OnceLock<GeneratorTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let g = Point::generator();
        GeneratorTables {
            ct: Table::new(&g),
            wnaf: Projective::normalize_batch(&odd_multiples(&g.0, WNAF_WINDOW_GEN)),
        }
    })
}

impl Group for Point {
    type Scalar = Scalar;
    type Repr = [u8; ENCODED_POINT_LEN];
    type Table = Table;

    const NAME: &'static str = "p256";
    const ENCODED_LEN: usize = ENCODED_POINT_LEN;

    fn identity() -> Self {
        Point(Projective::ZERO)
    }
    fn generator() -> Self {
        Point(Affine::generator().into_group())
    }
    fn is_identity(&self) -> bool {
        self.0.is_zero()
    }
    fn double(&self) -> Self {
        Point(self.0.double())
    }
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        // A uniformly random x-coordinate and sign: uniform over the non-identity elements
        // (each x with a square right-hand side carries exactly two points).
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let p = Self::hash_to_group(b"verdict-group p256 random", &seed);
        seed.zeroize();
        p
    }
    fn mul_generator(s: &Scalar) -> Self {
        match &generator_tables().ct {
            Some(table) => table.mul(s),
            None => Self::generator().mul_vartime(s),
        }
    }
    /// The constant-time generator table, with all results normalized by one shared
    /// constant-time inversion (their encodings then need none).
    fn mul_generator_encoded(scalars: &[Scalar]) -> (Vec<Self>, Vec<[u8; ENCODED_POINT_LEN]>) {
        match &generator_tables().ct {
            Some(table) => table.mul_encoded(scalars),
            None => {
                let points: Vec<Self> = scalars.iter().map(Self::mul_generator).collect();
                let reprs = Self::batch_to_bytes(&points);
                (points, reprs)
            }
        }
    }
    /// The constant-time ladder for every base, the results normalized by one shared
    /// constant-time inversion. This is the hashing-generator client's inner loop.
    fn mul_each_encoded(bases: &[Self], s: &Scalar) -> (Vec<Self>, Vec<[u8; ENCODED_POINT_LEN]>) {
        super::ct::mul_each_encoded(bases, s).unwrap_or_else(|| {
            let points: Vec<Self> = bases.iter().map(|b| *b * s).collect();
            let reprs = Self::batch_to_bytes(&points);
            (points, reprs)
        })
    }
    /// Width-5 wNAF with an `a = −3` doubling: about 256 doublings and 43 mixed additions,
    /// against arkworks' double-and-add at 256 doublings and 128 additions.
    fn mul_vartime(&self, s: &Scalar) -> Self {
        Point(small_msm(
            core::slice::from_ref(s),
            core::slice::from_ref(self),
        ))
    }
    fn mul_add_generator_vartime(&self, a: &Scalar, b: &Scalar) -> Self {
        let table = Projective::normalize_batch(&odd_multiples(&self.0, WNAF_WINDOW_VAR));
        Point(interleaved_wnaf(&[
            (wnaf(&a.0.into_bigint(), WNAF_WINDOW_VAR), &table),
            (
                wnaf(&b.0.into_bigint(), WNAF_WINDOW_GEN),
                &generator_tables().wnaf,
            ),
        ]))
    }
    fn msm_vartime(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        if scalars.len() <= SMALL_MSM {
            return Ok(Point(small_msm(scalars, points)));
        }
        let bases: Vec<Projective> = points.iter().map(|p| p.0).collect();
        let bases = Projective::normalize_batch(&bases);
        let bigints: Vec<BigInt<4>> = scalars.iter().map(|s| s.0.into_bigint()).collect();
        Ok(Point(Projective::msm_bigint(&bases, &bigints)))
    }
    /// Constant time in the scalars: a Straus interleaving of 4-bit fixed windows over
    /// `p256` (module `p256::ct`).
    fn msm(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        Ok(super::ct::msm(scalars, points)
            .unwrap_or_else(|| scalars.iter().zip(points).map(|(s, p)| *p * s).sum()))
    }
    fn mul_many_vartime(&self, scalars: &[Scalar]) -> Vec<Self> {
        crate::fixed_base::mul_many_vartime(self, scalars)
    }
    /// A constant-time fixed-base [`Table`]. The conversion of a valid point cannot fail; if
    /// it did, this would panic rather than hand out a table that computes wrong results.
    #[allow(clippy::expect_used)]
    fn precompute(&self) -> Table {
        Table::new(self).expect("every valid P-256 point converts to the p256 backend")
    }
    fn to_bytes(&self) -> [u8; ENCODED_POINT_LEN] {
        if self.0.is_zero() {
            return IDENTITY_ENCODING;
        }
        encode_affine(&self.0.into_affine())
    }
    fn batch_to_bytes(elements: &[Self]) -> Vec<[u8; ENCODED_POINT_LEN]> {
        let projective: Vec<Projective> = elements.iter().map(|p| p.0).collect();
        Projective::normalize_batch(&projective)
            .iter()
            .map(encode_affine)
            .collect()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let arr: &[u8; ENCODED_POINT_LEN] =
            bytes.try_into().map_err(|_| DecodeError::WrongLength {
                expected: ENCODED_POINT_LEN,
                actual: bytes.len(),
            })?;
        let odd = match arr[0] {
            PREFIX_EVEN => false,
            PREFIX_ODD => true,
            _ if *arr == IDENTITY_ENCODING => return Ok(Self::identity()),
            _ => return Err(DecodeError::NonCanonical),
        };
        let mut x_bytes = [0u8; 32];
        x_bytes.copy_from_slice(&arr[1..]);
        let x = fq_from_be(&x_bytes).ok_or(DecodeError::NonCanonical)?;
        // Cofactor 1: a point on the curve is in the prime-order group.
        lift_x(x, odd)
            .map(Point::from)
            .ok_or(DecodeError::NotOnCurve)
    }
    /// Try-and-increment over the blake3 XOF of `(dst, msg)` (variable time: for public
    /// inputs only).
    ///
    /// Reads 32-byte big-endian candidates for `x` from the XOF, skipping those `≥ p` (chance
    /// ≈ 2^-32) and those for which `x³ − 3x + b` is not a square (chance ≈ 1/2); for the first
    /// accepted `x`, one further XOF byte chooses the parity of `y`. Every non-identity element
    /// is thus equally likely, the identity is never returned, and the discrete logarithm of the
    /// result is unknown. The loop ends after two candidates on average; the chance of needing
    /// more than `k` is about `2^-k`.
    fn hash_to_group(dst: &[u8], msg: &[u8]) -> Self {
        let mut xof = crate::hash::xof(dst, msg);
        let mut candidate = [0u8; 32];
        loop {
            xof.fill(&mut candidate);
            let Some(x) = fq_from_be(&candidate) else {
                continue;
            };
            if let Some(y) = curve_rhs(&x).sqrt() {
                let mut parity = [0u8; 1];
                xof.fill(&mut parity);
                return Point::from(point_with_parity(x, y, parity[0] & 1 == 1));
            }
        }
    }
}
