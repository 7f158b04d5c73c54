//! P-256 points and their SEC1 compressed encoding: the curve equation, lifting an
//! x-coordinate, and the encoding of affine points.

use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, Field, PrimeField};
use ark_secp256r1::{Affine, Config, Fq, Projective};
use zeroize::Zeroize;

use super::scalar::{bigint_from_be, bigint_to_be};

/// An element of the P-256 group, held in arkworks' Jacobian projective coordinates (arkworks
/// multiplies projective points markedly faster than affine ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct Point(pub Projective);

/// The encoding of the identity: 33 zero bytes (SEC1's one-byte `0x00`, padded to the fixed
/// length).
pub const IDENTITY_ENCODING: [u8; ENCODED_POINT_LEN] = [0u8; ENCODED_POINT_LEN];

/// Length of a compressed point encoding.
pub(super) const ENCODED_POINT_LEN: usize = 33;
/// SEC1 prefix of a compressed point with even `y`.
pub(super) const PREFIX_EVEN: u8 = 0x02;
/// SEC1 prefix of a compressed point with odd `y`.
pub(super) const PREFIX_ODD: u8 = 0x03;

impl Point {
    /// The underlying arkworks point (Jacobian coordinates).
    pub fn inner(&self) -> &Projective {
        &self.0
    }

    /// The point in affine coordinates (one field inversion).
    pub fn to_affine(&self) -> Affine {
        self.0.into_affine()
    }
}

impl From<Affine> for Point {
    fn from(p: Affine) -> Self {
        Point(p.into_group())
    }
}

point_newtype_ops!(Point);

/// `x³ − 3x + b`, the right-hand side of the curve equation.
pub(super) fn curve_rhs(x: &Fq) -> Fq {
    (x.square() + Config::COEFF_A) * x + Config::COEFF_B
}

/// Whether a field element, as an integer in `[0, p)`, is odd.
pub(super) fn is_odd(y: &Fq) -> bool {
    y.into_bigint().is_odd()
}

/// A 32-byte big-endian integer as a field element, or `None` if it is `≥ p`.
pub(super) fn fq_from_be(bytes: &[u8; 32]) -> Option<Fq> {
    Fq::from_bigint(bigint_from_be(bytes))
}

/// The curve point with x-coordinate `x` and square root `y` of `x³ − 3x + b`, with `y`
/// negated if needed to give it the requested parity.
pub(super) fn point_with_parity(x: Fq, y: Fq, odd: bool) -> Affine {
    // y ≠ 0 (no point of order 2 in an odd-order group), so y and −y = p − y differ in parity.
    let y = if is_odd(&y) == odd { y } else { -y };
    Affine::new_unchecked(x, y)
}

/// The curve point with x-coordinate `x` and the requested parity of `y`, if `x` is the
/// x-coordinate of a point (`x³ − 3x + b` is a square).
pub(super) fn lift_x(x: Fq, odd: bool) -> Option<Affine> {
    curve_rhs(&x).sqrt().map(|y| point_with_parity(x, y, odd))
}

/// SEC1 compressed encoding of an affine point, or [`IDENTITY_ENCODING`].
pub(super) fn encode_affine(p: &Affine) -> [u8; ENCODED_POINT_LEN] {
    match p.xy() {
        None => IDENTITY_ENCODING,
        Some((x, y)) => {
            let mut out = [0u8; ENCODED_POINT_LEN];
            // The prefix from y's parity bit without a branch: the point may be secret (a DH
            // value), and `into_bigint` is itself branch-free.
            out[0] = PREFIX_EVEN | (y.into_bigint().0[0] & 1) as u8;
            out[1..].copy_from_slice(&bigint_to_be(&x.into_bigint()));
            out
        }
    }
}
