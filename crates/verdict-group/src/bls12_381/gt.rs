//! GT: the order-`r` subgroup of `Fq12^*`, the target of the pairing, written additively.

use core::iter::Sum;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::sync::OnceLock;

use ark_bls12_381::{Bls12_381, Fq, Fq12, Fr, G2Projective};
use ark_ec::pairing::{Pairing, PairingOutput};
use ark_ec::{PrimeGroup, VariableBaseMSM};
use ark_ff::{AdditiveGroup, BigInt, CyclotomicMultSubgroup, Field, One, PrimeField, Zero};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use super::Scalar;
use super::curve::G1;
use crate::error::{DecodeError, GroupError};
use crate::fixed_base::RadixTable;
use crate::traits::Group;

/// An element of GT, the order-`r` subgroup of `Fq12^*`.
///
/// Written additively like every [`Group`]: `a + b` is the `Fq12` product, `s * a` the power
/// `a^s`, the identity is `1 ∈ Fq12`. The wrapped arkworks [`PairingOutput`] already uses this
/// notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct Gt(pub PairingOutput<Bls12_381>);

/// Bytes per `Fq` coefficient.
const FQ_LEN: usize = 48;
/// Encoded length: 12 `Fq` coefficients.
const GT_LEN: usize = 12 * FQ_LEN;

impl Gt {
    /// The underlying arkworks pairing output.
    pub fn inner(&self) -> &PairingOutput<Bls12_381> {
        &self.0
    }

    /// Exponentiation with cyclotomic squarings and a NAF of the exponent (arkworks).
    fn mul_scalar(&self, s: &Scalar) -> Self {
        Gt(self.0 * s.0)
    }

    fn generator_table() -> &'static RadixTable<Gt> {
        static TABLE: OnceLock<RadixTable<Gt>> = OnceLock::new();
        TABLE.get_or_init(|| RadixTable::new(&Gt::generator()))
    }

    /// `g₂` with its Miller-loop line coefficients precomputed, for [`Group::hash_to_group`].
    fn prepared_g2() -> &'static <Bls12_381 as Pairing>::G2Prepared {
        static PREPARED: OnceLock<<Bls12_381 as Pairing>::G2Prepared> = OnceLock::new();
        PREPARED.get_or_init(|| G2Projective::generator().into())
    }
}

/// Whether `f` lies in the order-`r` subgroup of `Fq12^*`.
///
/// 1. `f ≠ 0` and `f` is in the cyclotomic subgroup of order `Φ₁₂(q) = q⁴ − q² + 1`, i.e.
///    `f^(q⁴) · f = f^(q²)` (two Frobenius maps and a multiplication). This is needed both
///    for correctness (GT ⊂ cyclotomic subgroup, since `r | Φ₁₂(q)`) and because step 2's
///    cyclotomic squaring formulas are only valid there.
/// 2. `f^r = 1`, with cyclotomic squarings: the cost of one GT exponentiation.
fn is_in_gt(f: &Fq12) -> bool {
    if f.is_zero() {
        return false;
    }
    let mut f2 = *f;
    f2.frobenius_map_in_place(2);
    let mut f4 = *f;
    f4.frobenius_map_in_place(4);
    if f4 * f != f2 {
        return false;
    }
    f.cyclotomic_exp(Fr::MODULUS).is_one()
}

/// The 576-byte encoding: the 12 `Fq` coefficients in arkworks' order
/// (`c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1`), each 48 bytes little-endian. This is exactly
/// arkworks' `serialize_compressed` of `Fq12` (which has no compressed form).
fn encode(f: &Fq12) -> [u8; GT_LEN] {
    let mut out = [0u8; GT_LEN];
    for (chunk, c) in out
        .chunks_exact_mut(FQ_LEN)
        .zip(f.to_base_prime_field_elements())
    {
        for (bytes, limb) in chunk.chunks_exact_mut(8).zip(c.into_bigint().0.iter()) {
            bytes.copy_from_slice(&limb.to_le_bytes());
        }
    }
    out
}

/// Parses 576 bytes into an `Fq12`; `NonCanonical` if a coefficient is `≥ q`.
fn decode_fq12(bytes: &[u8]) -> Result<Fq12, DecodeError> {
    let mut coeffs = Vec::with_capacity(12);
    for chunk in bytes.chunks_exact(FQ_LEN) {
        let mut limbs = [0u64; 6];
        for (limb, b) in limbs.iter_mut().zip(chunk.chunks_exact(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            *limb = u64::from_le_bytes(w);
        }
        coeffs.push(Fq::from_bigint(BigInt::new(limbs)).ok_or(DecodeError::NonCanonical)?);
    }
    // Exactly 12 coefficients (the length was checked), so this is always `Some`.
    Fq12::from_base_prime_field_elems(coeffs).ok_or(DecodeError::NonCanonical)
}

group_ops!(Gt);

impl Group for Gt {
    type Scalar = Scalar;
    type Repr = [u8; GT_LEN];
    type Table = RadixTable<Gt>;

    const NAME: &'static str = "bls12-381-gt";
    const ENCODED_LEN: usize = GT_LEN;

    fn identity() -> Self {
        Gt(PairingOutput::ZERO)
    }
    /// `e(g₁, g₂)`, computed once and cached.
    fn generator() -> Self {
        static GENERATOR: OnceLock<Gt> = OnceLock::new();
        *GENERATOR.get_or_init(|| Gt(PairingOutput::generator()))
    }
    fn is_identity(&self) -> bool {
        self.0.is_zero()
    }
    /// A cyclotomic squaring.
    fn double(&self) -> Self {
        Gt(AdditiveGroup::double(&self.0))
    }
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        // s · e(g₁, g₂) for a uniform non-zero s: uniform over GT minus the identity.
        loop {
            let s = <Scalar as crate::traits::Scalar>::random(rng);
            if !crate::traits::Scalar::is_zero(&s) {
                return Self::mul_generator(&s);
            }
        }
    }
    /// Through a static radix-16 table of `e(g₁, g₂)` (65 `Fq12` multiplications per call,
    /// against ≈ 255 cyclotomic squarings plus ≈ 85 multiplications for a plain power).
    fn mul_generator(s: &Scalar) -> Self {
        crate::FixedBaseTable::mul(Self::generator_table(), s)
    }
    /// arkworks' Pippenger MSM, which works for any group (here with `Fq12` multiplications as
    /// the group law); costs about one exponentiation per ≈ log₂ n elements for large n.
    fn msm_vartime(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        let bases: Vec<_> = points.iter().map(|p| p.0).collect();
        let scalars: Vec<_> = scalars.iter().map(|s| s.0).collect();
        Ok(Gt(PairingOutput::msm_unchecked(&bases, &scalars)))
    }
    /// Nothing in this backend is constant time (neither is `Mul`), so the secret-scalar MSM
    /// is the variable-time one: no weaker than multiplying term by term, and far faster.
    fn msm(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        Self::msm_vartime(scalars, points)
    }
    fn mul_many_vartime(&self, scalars: &[Scalar]) -> Vec<Self> {
        crate::fixed_base::mul_many_vartime(self, scalars)
    }
    fn precompute(&self) -> RadixTable<Gt> {
        RadixTable::new(self)
    }
    fn to_bytes(&self) -> [u8; GT_LEN] {
        encode(&self.0.0)
    }
    /// Validates the length, the canonical form of all 12 coefficients and membership in the
    /// order-`r` subgroup; costs about one GT exponentiation (see [`super`]).
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != GT_LEN {
            return Err(DecodeError::WrongLength {
                expected: GT_LEN,
                actual: bytes.len(),
            });
        }
        let f = decode_fq12(bytes)?;
        if !is_in_gt(&f) {
            return Err(DecodeError::NotInSubgroup);
        }
        Ok(Gt(PairingOutput(f)))
    }
    /// `e(HashToG1(dst, msg), g₂)`: RFC 9380 hashing to G1 (see [`super::G1`]) followed by a
    /// pairing with the standard G2 generator. The discrete log to `e(g₁, g₂)` is that of the
    /// G1 hash, which is unknown.
    fn hash_to_group(dst: &[u8], msg: &[u8]) -> Self {
        let h = G1::hash_to_group(dst, msg);
        Gt(Bls12_381::pairing(h.0, Self::prepared_g2().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_serialize::CanonicalSerialize;

    #[test]
    fn encoding_matches_arkworks_serialization() {
        let g = Gt::generator();
        let mut a = Vec::new();
        g.0.serialize_compressed(&mut a).unwrap();
        assert_eq!(g.to_bytes().as_slice(), a.as_slice());
        assert_eq!(decode_fq12(&a), Ok(g.0.0));
    }

    #[test]
    fn membership_agrees_with_generic_power() {
        let g = Gt::generator().0.0;
        assert!(is_in_gt(&g));
        assert!(is_in_gt(&Fq12::one()));
        assert!(!is_in_gt(&Fq12::zero()));
        // An element of the cyclotomic subgroup outside GT: the "easy part" of the final
        // exponentiation, f^((q⁶ − 1)(q² + 1)), of an arbitrary f.
        let f = Fq12::from_base_prime_field_elems((1u64..=12).map(Fq::from)).unwrap();
        let mut conj = f;
        conj.conjugate_in_place();
        let mut easy = conj * f.inverse().unwrap();
        let mut e2 = easy;
        e2.frobenius_map_in_place(2);
        easy *= e2;
        assert!(!easy.pow(Fr::MODULUS).is_one());
        assert!(!is_in_gt(&easy));
        assert!(!is_in_gt(&f));
    }
}
