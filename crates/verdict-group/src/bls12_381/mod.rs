//! BLS12-381: the groups G1, G2, GT and the optimal ate pairing `e: G1 × G2 → GT`, over
//! arkworks 0.6.
//!
//! The three groups have the same prime order
//! `r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001` (255 bits), so they
//! share one [`Scalar`] type, and a proof can relate exponents across groups (e.g. a key in G2
//! and a pad in GT).
//!
//! # Encodings
//!
//! | type | bytes | format |
//! |---|---|---|
//! | [`Scalar`] | 32 | big-endian integer `< r` (as in the IETF BLS signature drafts) |
//! | [`G1`] | 48 | compressed zcash / IETF format: big-endian `x`, flag bits in the top 3 bits |
//! | [`G2`] | 96 | compressed zcash / IETF format: `x.c1 ‖ x.c0`, flag bits in the top 3 bits |
//! | [`Gt`] | 576 | arkworks serialization of the `Fq12` element: 12 little-endian `Fq` coefficients |
//!
//! The G1/G2 flag bits (most significant bits of the first byte) are: bit 7 "compressed"
//! (always set here: uncompressed encodings are not accepted), bit 6 "point at infinity"
//! (then every other bit must be zero: the identity has exactly one encoding, `0xc0 00…`),
//! bit 5 "`y` is the lexicographically larger of `±y`" (never set together with bit 6). These
//! are the bytes ark-bls12-381 0.6, zkcrypto's `bls12_381` and the BLS signature drafts
//! produce. GT has no standard encoding; arkworks offers no torus compression, so an element
//! costs the full 576 bytes.
//!
//! # Validation and its cost
//!
//! Every `from_bytes` validates completely, so no value of these types can lie outside the
//! order-`r` subgroup:
//!
//! - G1/G2: exact length ([`DecodeError::WrongLength`]); canonical flags and coordinates
//!   `< q` ([`DecodeError::NonCanonical`]); `x³ + b` a square ([`DecodeError::NotOnCurve`]);
//!   membership in the order-`r` subgroup ([`DecodeError::NotInSubgroup`]). The curves have
//!   cofactors ≈ 2^126 (G1) and ≈ 2^507 (G2), so the subgroup check is essential; it uses the
//!   endomorphism tests of Scott (eprint 2021/1130) as implemented in arkworks. The cost is
//!   dominated by the square root and the subgroup check: a validated G1 decode costs about
//!   two thirds of a scalar multiplication (≈ 80 µs measured, see the project's
//!   `constructions.md`); G2 costs more (its field is `Fq²`). `benches/bls12_381.rs` measures
//!   both.
//! - GT: exact length; each of the 12 coefficients `< q` ([`DecodeError::NonCanonical`]);
//!   membership in the order-`r` subgroup of `Fq12^*` ([`DecodeError::NotInSubgroup`]),
//!   checked as (1) `f ≠ 0` and `f` in the cyclotomic subgroup (`f^(q⁴) · f = f^(q²)`, two
//!   Frobenius maps) and (2) `f^r = 1` with cyclotomic squarings. Step (2) costs about one GT
//!   exponentiation (≈ 0.7 ms), which is the price of decoding a GT element. There is no
//!   "not on curve" case for GT: every non-canonical or out-of-group string is one of the two
//!   errors above.
//!
//! # Hashing to the groups
//!
//! - [`G1`]: RFC 9380 suite `BLS12381G1_XMD:SHA-256_SSWU_RO_` exactly, with the caller's `dst`
//!   as the RFC's DST (DSTs longer than 255 bytes are first hashed to
//!   `SHA-256("H2C-OVERSIZE-DST-" ‖ DST)` as RFC 9380 §5.3.3 requires; arkworks does this).
//!   Checked against the RFC's known-answer vectors.
//! - [`G2`]: RFC 9380 suite `BLS12381G2_XMD:SHA-256_SSWU_RO_`, likewise.
//! - [`Gt`]: `e(HashToG1(dst, msg), g₂)`. Its discrete log to `e(g₁, g₂)` equals that of
//!   `HashToG1(dst, msg)` to `g₁`, which nobody knows; costs one hash to G1 plus one pairing
//!   (with a cached precomputation of `g₂`'s Miller-loop lines).
//!
//! Unlike ristretto255 these do not use the crate's blake3 XOF ([`crate::hash`]): the RFC
//! suites are what other BLS12-381 implementations interoperate with.
//!
//! # Why there is no `MessageGroup` here
//!
//! [`crate::MessageGroup`] embeds bytes by try-and-increment: pick an encoding carrying the
//! payload and a counter and increment until it decodes. That works only when a candidate is
//! a valid group element with constant probability. On BLS12-381 the prime-order subgroups are
//! tiny fractions of the curves: a random point on `E(Fq)` lies in G1 with probability
//! `1/h₁ ≈ 2^-126`, on `E'(Fq²)` in G2 with probability ≈ 2^-507, and a random `Fq12^*`
//! element lies in GT with probability ≈ 2^-4314 (≈ 2^-1268 even within the cyclotomic
//! subgroup), so try-and-increment would never terminate. Cofactor clearing would make any
//! point a subgroup element but destroys the payload (it is not invertible), and no other
//! efficient injective byte embedding into these subgroups is known. The pairing-based DC-net
//! ciphersuite instead encodes
//! small chunks (16–24 bits) in the exponent, `e(g₁, g₂)^m`, and recovers them with a table
//! lookup or baby-step/giant-step; that lives in `verdict-dcnet`.
//!
//! # Constant time
//!
//! **Nothing here is constant time.** arkworks makes no constant-time claims: scalar
//! multiplication (GLV / double-and-add), the fixed-base tables (secret-indexed lookups, see
//! [`crate::fixed_base`]), exponentiation in GT (NAF) and hashing all branch on their inputs.
//! Use this module where timing side channels on secret scalars are acceptable (e.g.
//! benchmarks and the pairing-based suite's comparison role), or accept the risk explicitly.
//!
//! [`DecodeError::WrongLength`]: crate::DecodeError::WrongLength
//! [`DecodeError::NonCanonical`]: crate::DecodeError::NonCanonical
//! [`DecodeError::NotOnCurve`]: crate::DecodeError::NotOnCurve
//! [`DecodeError::NotInSubgroup`]: crate::DecodeError::NotInSubgroup

use ark_bls12_381::Bls12_381;
use ark_ec::pairing::Pairing;

use crate::error::GroupError;

/// Forwards a binary operator on the wrapper types to the wrapped arkworks values.
macro_rules! forward_binop {
    ($ty:ident, $tr:ident, $m:ident, $rhs:ty, $out:ty, |$a:ident, $b:ident| $e:expr) => {
        impl $tr<$rhs> for $ty {
            type Output = $out;
            #[inline]
            fn $m(self, $b: $rhs) -> $out {
                let $a = self;
                $e
            }
        }
    };
}

/// Implements the additive-notation operator traits the [`crate::Group`] trait requires for a
/// wrapper `$ty(inner)` whose inner type has the corresponding arkworks operators.
macro_rules! group_ops {
    ($ty:ident) => {
        forward_binop!($ty, Add, add, $ty, $ty, |a, b| $ty(a.0 + b.0));
        forward_binop!($ty, Add, add, &$ty, $ty, |a, b| $ty(a.0 + b.0));
        forward_binop!($ty, Sub, sub, $ty, $ty, |a, b| $ty(a.0 - b.0));
        forward_binop!($ty, Mul, mul, Scalar, $ty, |a, b| a.mul_scalar(&b));
        forward_binop!($ty, Mul, mul, &Scalar, $ty, |a, b| a.mul_scalar(b));

        impl Neg for $ty {
            type Output = $ty;
            #[inline]
            fn neg(self) -> $ty {
                $ty(-self.0)
            }
        }
        impl AddAssign for $ty {
            #[inline]
            fn add_assign(&mut self, rhs: $ty) {
                self.0 += rhs.0;
            }
        }
        impl SubAssign for $ty {
            #[inline]
            fn sub_assign(&mut self, rhs: $ty) {
                self.0 -= rhs.0;
            }
        }
        impl MulAssign<Scalar> for $ty {
            #[inline]
            fn mul_assign(&mut self, rhs: Scalar) {
                *self = self.mul_scalar(&rhs);
            }
        }
        impl Sum for $ty {
            fn sum<I: Iterator<Item = $ty>>(iter: I) -> $ty {
                iter.fold(<$ty as crate::traits::Group>::identity(), |acc, p| acc + p)
            }
        }
    };
}

mod curve;
mod gt;
mod scalar;
mod table;

pub use curve::{G1, G2};
pub use gt::Gt;
pub use scalar::Scalar;
pub use table::AffineTable;

/// The optimal ate pairing `e(p, q)`.
///
/// Bilinear (`e(a·P, b·Q) = ab · e(P, Q)` in GT's additive notation) and non-degenerate
/// (`e(g₁, g₂)` generates GT). Variable time.
pub fn pairing(p: &G1, q: &G2) -> Gt {
    Gt(Bls12_381::pairing(p.0, q.0))
}

/// The product of pairings `Σᵢ e(psᵢ, qsᵢ)` (additive notation), sharing one final
/// exponentiation; much cheaper than computing the pairings one by one.
///
/// Returns [`GroupError::LengthMismatch`] if the slices differ in length. The empty product is
/// the identity.
pub fn multi_pairing(ps: &[G1], qs: &[G2]) -> Result<Gt, GroupError> {
    if ps.len() != qs.len() {
        return Err(GroupError::LengthMismatch {
            left: ps.len(),
            right: qs.len(),
        });
    }
    Ok(Gt(Bls12_381::multi_pairing(
        ps.iter().map(|p| p.0),
        qs.iter().map(|q| q.0),
    )))
}
