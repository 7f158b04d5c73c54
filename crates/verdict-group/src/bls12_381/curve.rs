//! G1 and G2: the order-`r` subgroups of `E(Fq)` and of the sextic twist `E'(Fq²)`.

use core::iter::Sum;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::sync::OnceLock;

use ark_bls12_381::{Fq, Fq2, G1Affine, G1Projective, G2Affine, G2Projective, g1, g2};
use ark_ec::hashing::HashToCurve;
use ark_ec::hashing::curve_maps::wb::WBMap;
use ark_ec::hashing::map_to_curve_hasher::MapToCurveBasedHasher;
use ark_ec::scalar_mul::glv::GLVConfig;
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::field_hashers::DefaultFieldHasher;
use ark_ff::{AdditiveGroup, BigInt, PrimeField, Zero};
use rand_core::{CryptoRng, RngCore};
use sha2::Sha256;
use zeroize::Zeroize;

use super::Scalar;
use super::table::AffineTable;
use crate::error::{DecodeError, GroupError};
use crate::traits::{FixedBaseTable, Group};

/// A point of G1 (order `r` on `E: y² = x³ + 4` over `Fq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct G1(pub G1Projective);

/// A point of G2 (order `r` on the twist `E': y² = x³ + 4(1 + i)` over `Fq² = Fq[i]/(i² + 1)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct G2(pub G2Projective);

/// Flag bit: compressed encoding (always set in the encodings accepted here).
const FLAG_COMPRESSED: u8 = 0x80;
/// Flag bit: the point at infinity.
const FLAG_INFINITY: u8 = 0x40;
/// Flag bit: `y` is the lexicographically larger of `±y`.
const FLAG_LARGEST: u8 = 0x20;
/// The three flag bits.
const FLAG_MASK: u8 = 0xe0;

/// Window of the tables built by [`Group::precompute`]: 53 rows × 16 points.
const PRECOMPUTE_WINDOW: usize = 5;
/// Window of the static generator tables: 44 rows × 32 points (≈ 140 kB for G1, ≈ 280 kB for
/// G2), built on first use.
const GENERATOR_WINDOW: usize = 6;

/// RFC 9380 `BLS12381G1_XMD:SHA-256_SSWU_RO_` (k = 128, L = 64, SSWU on the 11-isogenous
/// curve, `h_eff = 1 − z`).
type G1Hasher =
    MapToCurveBasedHasher<G1Projective, DefaultFieldHasher<Sha256, 128>, WBMap<g1::Config>>;
/// RFC 9380 `BLS12381G2_XMD:SHA-256_SSWU_RO_` (k = 128, L = 64, SSWU on the 3-isogenous
/// curve, Budroni–Pintore cofactor clearing).
type G2Hasher =
    MapToCurveBasedHasher<G2Projective, DefaultFieldHasher<Sha256, 128>, WBMap<g2::Config>>;

/// Runs an arkworks map-to-curve hasher.
///
/// arkworks' API returns `Result`s that cannot be `Err` for these suites (arkworks 0.6):
/// - `MapToCurveBasedHasher::new` only returns `Err` from `check_parameters`, which is
///   compiled in solely under arkworks' own `cfg(test)`; otherwise it returns `Ok`.
/// - `hash` propagates errors from `WBMap::map_to_curve`, whose two steps are the SSWU map
///   (every path returns `Ok`: it always finds a square root, by construction of `Z`) and
///   `IsogenyMap::apply` (returns `Ok` on every path, mapping the identity to the identity).
/// - `expand_message_xmd` asserts `ell ≤ 255` and `len_in_bytes < 2^16`; we request 128 (G1)
///   or 256 (G2) bytes, i.e. `ell` = 4 or 8. DSTs of any length are fine (longer than 255
///   bytes are pre-hashed per RFC 9380 §5.3.3).
///
/// The `expect` therefore never fires; a failure would be a bug in arkworks, for which a
/// loud failure is better than a silently substituted point.
#[allow(clippy::expect_used)]
fn run_hasher<C: CurveGroup, H: HashToCurve<C>>(dst: &[u8], msg: &[u8]) -> C::Affine {
    H::new(dst)
        .and_then(|h| h.hash(msg))
        .expect("RFC 9380 hashing to BLS12-381 is infallible (see the proof above)")
}

/// Writes `x` as 48 big-endian bytes.
fn fq_to_be(x: &Fq, out: &mut [u8]) {
    for (chunk, limb) in out.chunks_exact_mut(8).zip(x.into_bigint().0.iter().rev()) {
        chunk.copy_from_slice(&limb.to_be_bytes());
    }
}

/// Reads 48 big-endian bytes as an `Fq` element; `None` if the integer is `≥ q`.
fn fq_from_be(bytes: &[u8]) -> Option<Fq> {
    let mut limbs = [0u64; 6];
    for (i, chunk) in bytes.chunks_exact(8).take(6).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        limbs[5 - i] = u64::from_be_bytes(b);
    }
    Fq::from_bigint(BigInt::new(limbs))
}

/// Checks the flag bits of a compressed encoding (the first byte).
///
/// Returns `Ok(None)` for the (unique) identity encoding, `Ok(Some(largest))` for a finite
/// point whose remaining bits must be parsed, and `NonCanonical` for every other flag
/// combination or a non-zero body under the infinity flag.
fn parse_flags(bytes: &[u8]) -> Result<Option<bool>, DecodeError> {
    let flags = bytes.first().copied().unwrap_or(0) & FLAG_MASK;
    if flags & FLAG_COMPRESSED == 0 {
        return Err(DecodeError::NonCanonical);
    }
    if flags & FLAG_INFINITY != 0 {
        let body_zero = bytes.first().is_some_and(|b| b & !FLAG_MASK == 0)
            && bytes.iter().skip(1).all(|&b| b == 0);
        if flags & FLAG_LARGEST != 0 || !body_zero {
            return Err(DecodeError::NonCanonical);
        }
        return Ok(None);
    }
    Ok(Some(flags & FLAG_LARGEST != 0))
}

impl G1 {
    /// The underlying arkworks point.
    pub fn inner(&self) -> &G1Projective {
        &self.0
    }

    /// The compressed encoding of an affine point.
    fn encode_affine(p: &G1Affine) -> [u8; 48] {
        let mut out = [0u8; 48];
        if p.is_zero() {
            out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
            return out;
        }
        fq_to_be(&p.x, &mut out);
        out[0] |= FLAG_COMPRESSED;
        if p.y > -p.y {
            out[0] |= FLAG_LARGEST;
        }
        out
    }

    /// Scalar multiplication (arkworks' GLV for G1).
    fn mul_scalar(&self, s: &Scalar) -> Self {
        G1(self.0 * s.0)
    }

    fn generator_table() -> &'static AffineTable<g1::Config> {
        static TABLE: OnceLock<AffineTable<g1::Config>> = OnceLock::new();
        TABLE.get_or_init(|| AffineTable::new(G1Projective::generator(), GENERATOR_WINDOW))
    }
}

impl G2 {
    /// The underlying arkworks point.
    pub fn inner(&self) -> &G2Projective {
        &self.0
    }

    /// The compressed encoding of an affine point: `x.c1 ‖ x.c0`, flags in the first byte.
    fn encode_affine(p: &G2Affine) -> [u8; 96] {
        let mut out = [0u8; 96];
        if p.is_zero() {
            out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
            return out;
        }
        let (c1, c0) = out.split_at_mut(48);
        fq_to_be(&p.x.c1, c1);
        fq_to_be(&p.x.c0, c0);
        out[0] |= FLAG_COMPRESSED;
        // arkworks orders Fq2 by (c1, c0), the zcash "lexicographically largest" rule.
        if p.y > -p.y {
            out[0] |= FLAG_LARGEST;
        }
        out
    }

    /// Scalar multiplication. arkworks' default for G2 is plain double-and-add; the GLV
    /// decomposition with the ψ-endomorphism (which ark-bls12-381 implements for G2 but does
    /// not use by default) halves the doublings.
    fn mul_scalar(&self, s: &Scalar) -> Self {
        G2(<g2::Config as GLVConfig>::glv_mul_projective(self.0, s.0))
    }

    fn generator_table() -> &'static AffineTable<g2::Config> {
        static TABLE: OnceLock<AffineTable<g2::Config>> = OnceLock::new();
        TABLE.get_or_init(|| AffineTable::new(G2Projective::generator(), GENERATOR_WINDOW))
    }
}

/// Decodes a compressed G1 point with full validation.
fn decode_g1(bytes: &[u8]) -> Result<G1Affine, DecodeError> {
    if bytes.len() != 48 {
        return Err(DecodeError::WrongLength {
            expected: 48,
            actual: bytes.len(),
        });
    }
    let Some(largest) = parse_flags(bytes)? else {
        return Ok(G1Affine::identity());
    };
    let mut x_bytes = [0u8; 48];
    x_bytes.copy_from_slice(bytes);
    x_bytes[0] &= !FLAG_MASK;
    let x = fq_from_be(&x_bytes).ok_or(DecodeError::NonCanonical)?;
    let p = G1Affine::get_point_from_x_unchecked(x, largest).ok_or(DecodeError::NotOnCurve)?;
    if !p.is_in_correct_subgroup_assuming_on_curve() {
        return Err(DecodeError::NotInSubgroup);
    }
    Ok(p)
}

/// Decodes a compressed G2 point with full validation.
fn decode_g2(bytes: &[u8]) -> Result<G2Affine, DecodeError> {
    if bytes.len() != 96 {
        return Err(DecodeError::WrongLength {
            expected: 96,
            actual: bytes.len(),
        });
    }
    let Some(largest) = parse_flags(bytes)? else {
        return Ok(G2Affine::identity());
    };
    let mut c1_bytes = [0u8; 48];
    c1_bytes.copy_from_slice(&bytes[..48]);
    c1_bytes[0] &= !FLAG_MASK;
    let c1 = fq_from_be(&c1_bytes).ok_or(DecodeError::NonCanonical)?;
    let c0 = fq_from_be(&bytes[48..]).ok_or(DecodeError::NonCanonical)?;
    let p = G2Affine::get_point_from_x_unchecked(Fq2::new(c0, c1), largest)
        .ok_or(DecodeError::NotOnCurve)?;
    if !p.is_in_correct_subgroup_assuming_on_curve() {
        return Err(DecodeError::NotInSubgroup);
    }
    Ok(p)
}

/// The parts of the [`Group`] implementation that are identical for G1 and G2.
macro_rules! curve_group {
    (
        $ty:ident, $proj:ty, $cfg:ty, $name:literal, $len:literal, $decode:ident, $hasher:ty
    ) => {
        group_ops!($ty);

        impl FixedBaseTable<$ty> for AffineTable<$cfg> {
            fn mul(&self, s: &Scalar) -> $ty {
                $ty(AffineTable::mul(self, &s.0))
            }
            fn base(&self) -> $ty {
                $ty(AffineTable::base(self))
            }
        }

        impl Group for $ty {
            type Scalar = Scalar;
            type Repr = [u8; $len];
            type Table = AffineTable<$cfg>;

            const NAME: &'static str = $name;
            const ENCODED_LEN: usize = $len;

            fn identity() -> Self {
                $ty(<$proj>::ZERO)
            }
            fn generator() -> Self {
                $ty(<$proj>::generator())
            }
            fn is_identity(&self) -> bool {
                self.0.is_zero()
            }
            fn double(&self) -> Self {
                $ty(AdditiveGroup::double(&self.0))
            }
            fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
                // s · G for a uniform s is uniform in the cyclic group; a zero s (probability
                // 1/r) would give the identity, so draw again in that case.
                loop {
                    let s = <Scalar as crate::traits::Scalar>::random(rng);
                    if !crate::traits::Scalar::is_zero(&s) {
                        return Self::mul_generator(&s);
                    }
                }
            }
            fn mul_generator(s: &Scalar) -> Self {
                $ty(Self::generator_table().mul(&s.0))
            }
            fn msm_vartime(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
                if scalars.len() != points.len() {
                    return Err(GroupError::LengthMismatch {
                        left: scalars.len(),
                        right: points.len(),
                    });
                }
                let inner: Vec<$proj> = points.iter().map(|p| p.0).collect();
                let bases = <$proj>::normalize_batch(&inner);
                let scalars: Vec<_> = scalars.iter().map(|s| s.0).collect();
                Ok($ty(<$proj>::msm_unchecked(&bases, &scalars)))
            }
            /// Nothing in this backend is constant time (neither is `Mul`), so the secret-scalar MSM
            /// is the variable-time one: no weaker than multiplying term by term, and far faster.
            fn msm(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
                Self::msm_vartime(scalars, points)
            }
            fn mul_many_vartime(&self, scalars: &[Scalar]) -> Vec<Self> {
                crate::fixed_base::mul_many_vartime(self, scalars)
            }
            fn precompute(&self) -> AffineTable<$cfg> {
                AffineTable::new(self.0, PRECOMPUTE_WINDOW)
            }
            fn to_bytes(&self) -> [u8; $len] {
                Self::encode_affine(&self.0.into_affine())
            }
            /// Encodes with one shared inversion for the whole batch (`normalize_batch`).
            fn batch_to_bytes(elements: &[Self]) -> Vec<[u8; $len]> {
                let inner: Vec<$proj> = elements.iter().map(|p| p.0).collect();
                <$proj>::normalize_batch(&inner)
                    .iter()
                    .map(Self::encode_affine)
                    .collect()
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
                $decode(bytes).map(|p| $ty(p.into_group()))
            }
            fn hash_to_group(dst: &[u8], msg: &[u8]) -> Self {
                $ty(run_hasher::<$proj, $hasher>(dst, msg).into_group())
            }
        }
    };
}

curve_group!(
    G1,
    G1Projective,
    g1::Config,
    "bls12-381-g1",
    48,
    decode_g1,
    G1Hasher
);
curve_group!(
    G2,
    G2Projective,
    g2::Config,
    "bls12-381-g2",
    96,
    decode_g2,
    G2Hasher
);

#[cfg(test)]
mod tests {
    use super::*;
    use ark_serialize::CanonicalSerialize;

    #[test]
    fn encoding_matches_arkworks_serialization() {
        let mut p = G1Projective::generator();
        let mut q = G2Projective::generator();
        for _ in 0..16 {
            let mut a = Vec::new();
            p.into_affine().serialize_compressed(&mut a).unwrap();
            assert_eq!(G1(p).to_bytes().as_slice(), a.as_slice());
            let mut b = Vec::new();
            q.into_affine().serialize_compressed(&mut b).unwrap();
            assert_eq!(G2(q).to_bytes().as_slice(), b.as_slice());
            p = p.double() + G1Projective::generator();
            q = q.double() + G2Projective::generator();
        }
    }

    #[test]
    fn g2_glv_matches_default_multiplication() {
        let q = G2Projective::generator().double();
        for s in [
            -ark_bls12_381::Fr::from(0x1234_5678_9abc_def0u64),
            ark_bls12_381::Fr::from(3u64),
            ark_bls12_381::Fr::from(0u64),
        ] {
            assert_eq!(G2(q).mul_scalar(&Scalar(s)).0, q * s);
        }
    }
}
