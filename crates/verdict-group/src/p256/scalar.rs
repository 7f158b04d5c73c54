//! P-256 scalars: 32-byte big-endian integers below the group order `n`.

use ark_ec::AdditiveGroup;
use ark_ff::{BigInt, BigInteger, Field, PrimeField};
use ark_secp256r1::Fr;
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::error::DecodeError;

/// A scalar modulo the group order
/// `n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Zeroize)]
pub struct Scalar(pub Fr);

/// `2^256 mod n`, i.e. `2^256 − n` (as `n < 2^256 < 2n`), for the wide reduction.
pub(super) const TWO_POW_256_MOD_N: Fr = Fr::new(BigInt::new([
    0x0c46_353d_039c_daaf,
    0x4319_0552_58e8_617b,
    0x0000_0000_0000_0000,
    0x0000_0000_ffff_ffff,
]));

impl Scalar {
    /// The underlying arkworks scalar.
    pub fn inner(&self) -> &Fr {
        &self.0
    }
}

scalar_newtype_ops!(Scalar);

/// Reads a 32-byte big-endian integer into arkworks' little-endian 64-bit limbs.
pub(crate) fn bigint_from_be(bytes: &[u8; 32]) -> BigInt<4> {
    let mut limbs = [0u64; 4];
    for (i, chunk) in bytes.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        limbs[3 - i] = u64::from_be_bytes(word);
    }
    BigInt::new(limbs)
}

/// Writes a 256-bit integer as 32 big-endian bytes.
pub(crate) fn bigint_to_be(n: &BigInt<4>) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&n.0[3 - i].to_be_bytes());
    }
    out
}

/// Reduces a 256-bit integer modulo `n`. Since `2n > 2^256`, one conditional subtraction
/// suffices.
pub(super) fn fr_from_256_bits(mut v: BigInt<4>) -> Fr {
    if v >= Fr::MODULUS {
        v.sub_with_borrow(&Fr::MODULUS);
    }
    // `v < n` now, so the conversion cannot fail; the fallback is unreachable.
    Fr::from_bigint(v).unwrap_or_default()
}

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
    /// Reduces the 512-bit **big-endian** integer `hi ‖ lo` as `hi · 2^256 + lo mod n`.
    fn from_uniform_bytes(bytes: &[u8; 64]) -> Self {
        let mut hi = [0u8; 32];
        let mut lo = [0u8; 32];
        hi.copy_from_slice(&bytes[..32]);
        lo.copy_from_slice(&bytes[32..]);
        let s = fr_from_256_bits(bigint_from_be(&hi)) * TWO_POW_256_MOD_N
            + fr_from_256_bits(bigint_from_be(&lo));
        hi.zeroize();
        lo.zeroize();
        Scalar(s)
    }
    fn invert(&self) -> Option<Self> {
        self.0.inverse().map(Scalar)
    }
    fn is_zero(&self) -> bool {
        self.0 == Fr::ZERO
    }
    fn to_bytes(&self) -> [u8; 32] {
        bigint_to_be(&self.0.into_bigint())
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let arr: &[u8; 32] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
            expected: 32,
            actual: bytes.len(),
        })?;
        // `from_bigint` rejects values ≥ n.
        Fr::from_bigint(bigint_from_be(arr))
            .map(Scalar)
            .ok_or(DecodeError::NonCanonical)
    }
    fn to_le_bytes(&self) -> [u8; 32] {
        let mut out = bigint_to_be(&self.0.into_bigint());
        out.reverse();
        out
    }
}
