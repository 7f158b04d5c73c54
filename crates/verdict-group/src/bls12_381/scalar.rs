//! The scalar field `Fr` shared by G1, G2 and GT.

use ark_bls12_381::Fr;
use ark_ff::{AdditiveGroup, BigInt, BigInteger, Field, MontFp, PrimeField, Zero};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::error::DecodeError;

/// A scalar modulo the BLS12-381 group order
/// `r = 52435875175126190479447740508185965837690552500527637822603658699938581184513`.
///
/// Encoded as 32 big-endian bytes (the byte order of the IETF BLS signature drafts and of
/// zkcrypto's `bls12_381`); [`crate::Scalar::from_uniform_bytes`] likewise reads a 512-bit
/// big-endian integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Zeroize)]
pub struct Scalar(pub Fr);

/// `2^256 mod r`, to fold the high half of a 512-bit integer into the field.
const TWO_POW_256: Fr =
    MontFp!("10920338887063814464675503992315976177888879664585288394250266608035967270910");

impl Scalar {
    /// The underlying arkworks field element.
    pub fn inner(&self) -> &Fr {
        &self.0
    }

    /// The scalar as little-endian 64-bit limbs of its canonical integer (for arkworks'
    /// `mul_bigint` and friends).
    pub(crate) fn to_limbs(self) -> [u64; 4] {
        self.0.into_bigint().0
    }
}

/// Reduces a 256-bit big-endian integer modulo `r`.
///
/// `2^256 < 3r`, so at most two conditional subtractions of `r` bring the value into range;
/// this is much cheaper than arkworks' generic byte-wise reduction.
fn reduce_256_be(bytes: &[u8]) -> Fr {
    let mut limbs = [0u64; 4];
    for (i, chunk) in bytes.chunks_exact(8).take(4).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        limbs[3 - i] = u64::from_be_bytes(b);
    }
    let mut v = BigInt::new(limbs);
    limbs.zeroize();
    // Variable time (a data-dependent loop, then arkworks' `from_bigint`): see the module notes
    // on constant time. The input may be secret (hashed pairwise secrets), so it is wiped.
    while v >= Fr::MODULUS {
        v.sub_with_borrow(&Fr::MODULUS);
    }
    // `v < r` now, so `from_bigint` always succeeds; the fallback is unreachable.
    let out = Fr::from_bigint(v).unwrap_or_default();
    v.zeroize();
    out
}

scalar_newtype_ops!(Scalar);

impl crate::traits::Scalar for Scalar {
    const ENCODED_LEN: usize = 32;
    type Repr = [u8; 32];

    fn zero() -> Self {
        Scalar(Fr::ZERO)
    }
    fn one() -> Self {
        Scalar(Fr::ONE)
    }
    fn from_u64(v: u64) -> Self {
        Scalar(Fr::from(v))
    }
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut wide = [0u8; 64];
        rng.fill_bytes(&mut wide);
        let s = Self::from_uniform_bytes(&wide);
        wide.zeroize();
        s
    }
    /// Reduces the 512-bit **big-endian** integer `hi · 2^256 + lo` as
    /// `(hi mod r) · (2^256 mod r) + (lo mod r)`: two short reductions and one field
    /// multiplication.
    fn from_uniform_bytes(bytes: &[u8; 64]) -> Self {
        let (hi, lo) = bytes.split_at(32);
        Scalar(reduce_256_be(hi) * TWO_POW_256 + reduce_256_be(lo))
    }
    fn invert(&self) -> Option<Self> {
        self.0.inverse().map(Scalar)
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
    fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, limb) in out.chunks_exact_mut(8).zip(self.to_limbs().iter().rev()) {
            chunk.copy_from_slice(&limb.to_be_bytes());
        }
        out
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != 32 {
            return Err(DecodeError::WrongLength {
                expected: 32,
                actual: bytes.len(),
            });
        }
        let mut limbs = [0u64; 4];
        for (i, chunk) in bytes.chunks_exact(8).enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            limbs[3 - i] = u64::from_be_bytes(b);
        }
        // `from_bigint` rejects integers ≥ r.
        Fr::from_bigint(BigInt::new(limbs))
            .map(Scalar)
            .ok_or(DecodeError::NonCanonical)
    }
    fn to_le_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, limb) in out.chunks_exact_mut(8).zip(self.to_limbs().iter()) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traits::Scalar as _;

    #[test]
    fn two_pow_256_constant() {
        assert_eq!(TWO_POW_256, Fr::from(2u64).pow([256u64]));
    }

    #[test]
    fn wide_reduction_matches_arkworks() {
        let mut bytes = [0u8; 64];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(7);
        }
        for fill in [None, Some(0xff), Some(0x00)] {
            if let Some(f) = fill {
                bytes = [f; 64];
            }
            assert_eq!(
                Scalar::from_uniform_bytes(&bytes).0,
                Fr::from_be_bytes_mod_order(&bytes)
            );
        }
        // Halves just above r and 2r exercise both conditional subtractions.
        let r_be = Fr::MODULUS.to_bytes_be();
        let mut two_r = Fr::MODULUS;
        two_r.add_with_carry(&Fr::MODULUS);
        for v in [r_be.clone(), two_r.to_bytes_be()] {
            let mut wide = [0u8; 64];
            wide[32..].copy_from_slice(&v);
            wide[..32].copy_from_slice(&v);
            assert_eq!(
                Scalar::from_uniform_bytes(&wide).0,
                Fr::from_be_bytes_mod_order(&wide)
            );
        }
    }

    #[test]
    fn big_endian_encoding() {
        let mut expect = [0u8; 32];
        expect[31] = 1;
        expect[30] = 2;
        assert_eq!(Scalar::from_u64(0x0201).to_bytes(), expect);
        let r = Fr::MODULUS.to_bytes_be();
        assert_eq!(Scalar::from_bytes(&r), Err(DecodeError::NonCanonical));
    }
}
