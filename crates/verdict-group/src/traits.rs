//! The group abstraction: [`Scalar`], [`Group`], [`MessageGroup`] and [`FixedBaseTable`].
//!
//! Everything above this crate is written against these traits, so a ciphersuite, a proof or the
//! shuffle runs unchanged on ristretto255, P-256 or BLS12-381. The traits are deliberately small:
//! what an implementation must provide is exactly what the generic code needs and what the
//! conformance suite ([`crate::testing`], feature `testing`) checks.

use core::fmt::Debug;
use core::iter::Sum;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::error::{DecodeError, EmbedError, GroupError};

/// An element of the scalar field `Z_q` of a prime-order group.
///
/// Arithmetic goes through the standard operator traits. Scalars are `Copy` for ergonomic
/// arithmetic; wrap long-lived secrets in [`crate::SecretScalar`], which zeroizes on drop.
pub trait Scalar:
    Copy
    + Clone
    + Debug
    + Default
    + Eq
    + Send
    + Sync
    + Zeroize
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + for<'a> Add<&'a Self, Output = Self>
    + for<'a> Mul<&'a Self, Output = Self>
    + Sum
{
    /// Length in bytes of the canonical encoding ([`Scalar::to_bytes`]).
    const ENCODED_LEN: usize;

    /// The canonical encoding type (a byte array of length [`Scalar::ENCODED_LEN`]).
    type Repr: AsRef<[u8]> + AsMut<[u8]> + Copy + Debug + Default + Eq + Send + Sync;

    /// The additive identity.
    fn zero() -> Self;
    /// The multiplicative identity.
    fn one() -> Self;
    /// The scalar `v mod q`.
    fn from_u64(v: u64) -> Self;
    /// A uniformly random scalar.
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self;
    /// Reduces 64 uniformly random bytes modulo `q` ("wide reduction").
    ///
    /// The statistical distance from uniform is at most `q / 2^512`, negligible for every group
    /// here. The byte order of the 512-bit integer is the group's scalar byte order.
    fn from_uniform_bytes(bytes: &[u8; 64]) -> Self;
    /// The multiplicative inverse, or `None` for zero.
    fn invert(&self) -> Option<Self>;
    /// Whether this is the zero scalar.
    fn is_zero(&self) -> bool;
    /// The canonical encoding.
    fn to_bytes(&self) -> Self::Repr;
    /// Decodes a canonical encoding; rejects wrong lengths and values `≥ q`.
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError>;
    /// The scalar as a 256-bit little-endian integer in `[0, q)`, for windowed algorithms.
    fn to_le_bytes(&self) -> [u8; 32];
}

/// A cyclic group of prime order `q`, written additively (`a + b`, `s * P`).
///
/// Implementations guarantee that every value of the type is in the prime-order group: there is
/// no way to construct a small-order or off-curve point through this API, because decoding
/// always validates ([`Group::from_bytes`]).
///
/// **Constant time.** `Mul<Scalar>`, [`Group::mul_generator`] and [`FixedBaseTable::mul`] are
/// the operations meant for secret scalars; whether they are constant time depends on the
/// backend and is stated by each implementation. Everything named `*_vartime`, hashing to the
/// group and message embedding are variable time and must only see public data.
///
/// **Zeroize.** Some elements are secrets themselves (a Diffie–Hellman value `x·P`, a pad
/// before it is published), so every element can be wiped and held in a
/// [`zeroize::Zeroizing`]. Elements are `Copy`: wiping one value does not wipe the copies that
/// arithmetic made on the way, so code holding a secret element keeps it in one place and
/// derives what it needs from it at once.
pub trait Group:
    Copy
    + Clone
    + Debug
    + Eq
    + Send
    + Sync
    + Zeroize
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + for<'a> Add<&'a Self, Output = Self>
    + Mul<<Self as Group>::Scalar, Output = Self>
    + for<'a> Mul<&'a <Self as Group>::Scalar, Output = Self>
    + MulAssign<<Self as Group>::Scalar>
    + Sum
{
    /// The scalar field `Z_q`.
    type Scalar: Scalar;
    /// The canonical encoding type (a byte array of length [`Group::ENCODED_LEN`]).
    type Repr: AsRef<[u8]> + AsMut<[u8]> + Clone + Debug + Eq + Send + Sync;
    /// A precomputed table for multiplying one fixed base by many scalars.
    type Table: FixedBaseTable<Self>;

    /// A short, stable name used in domain separation and test output (e.g. `"ristretto255"`).
    const NAME: &'static str;
    /// Length in bytes of the canonical encoding.
    const ENCODED_LEN: usize;

    /// The identity element (written `1` multiplicatively, `0` additively).
    fn identity() -> Self;
    /// The group's standard generator.
    fn generator() -> Self;
    /// Whether this is the identity element.
    fn is_identity(&self) -> bool;
    /// `self + self`.
    fn double(&self) -> Self {
        *self + *self
    }
    /// A uniformly random element (its discrete log is known to nobody who does not see the RNG).
    fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self;

    /// `s · G` for the standard generator, using a built-in precomputed table.
    fn mul_generator(s: &Self::Scalar) -> Self;
    /// `s · self` for a public scalar; may be faster than `Mul` and is **not** constant time.
    fn mul_vartime(&self, s: &Self::Scalar) -> Self {
        *self * s
    }
    /// `a · self + b · G` for public scalars (double-base, e.g. interleaved wNAF).
    fn mul_add_generator_vartime(&self, a: &Self::Scalar, b: &Self::Scalar) -> Self {
        self.mul_vartime(a) + Self::mul_generator(b)
    }
    /// `Σ sᵢ · Pᵢ` for public scalars and points (variable time).
    ///
    /// Returns [`GroupError::LengthMismatch`] if the slices differ in length.
    fn msm_vartime(scalars: &[Self::Scalar], points: &[Self]) -> Result<Self, GroupError>;
    /// `Σ sᵢ · Pᵢ` for **secret** scalars: the same constant-time guarantee as `Mul`.
    ///
    /// Returns [`GroupError::LengthMismatch`] if the slices differ in length. The default sums
    /// `Pᵢ · sᵢ` term by term; a backend with a constant-time multi-scalar algorithm overrides
    /// it (ristretto255: dalek's constant-time Straus, ≈3.5× cheaper per term than separate
    /// multiplications), and a backend that is never constant time may forward to
    /// [`Group::msm_vartime`], which is then no weaker than its `Mul`.
    fn msm(scalars: &[Self::Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        Ok(scalars.iter().zip(points).map(|(s, p)| *p * s).sum())
    }
    /// `sᵢ · self` for every scalar, for **public** scalars (variable time).
    ///
    /// One base and many scalars: every backend here forwards to the generic
    /// [`crate::fixed_base::mul_many_vartime`], which builds a signed-digit window table sized
    /// to the batch, one row at a time, and needs about `256/w + 1` additions per scalar for a
    /// window of `w` bits (`w = 8` at 1,024 scalars) instead of a full multiplication each.
    /// (It is not a default method so that this module, which defines the traits, does not
    /// depend on the algorithms written against them.)
    fn mul_many_vartime(&self, scalars: &[Self::Scalar]) -> Vec<Self>;
    /// Precomputes a table for repeated multiplication of `self` by different scalars.
    fn precompute(&self) -> Self::Table;

    /// `sᵢ · G` for every scalar, together with the canonical encodings of the results.
    ///
    /// Same constant-time properties as [`Group::mul_generator`]. Provers that must publish
    /// what they compute should prefer this to multiplying and encoding separately:
    /// implementations may share work across the batch (ristretto255 computes `(sᵢ/2)·G` and
    /// encodes the doubles with one shared field inversion, saving an inverse square root per
    /// element).
    fn mul_generator_encoded(scalars: &[Self::Scalar]) -> (Vec<Self>, Vec<Self::Repr>) {
        let points: Vec<Self> = scalars.iter().map(Self::mul_generator).collect();
        let reprs = Self::batch_to_bytes(&points);
        (points, reprs)
    }
    /// `s · Bᵢ` for every base, together with the canonical encodings of the results.
    ///
    /// Uses `Mul` (constant time where the backend is), with the same batching freedom as
    /// [`Group::mul_generator_encoded`]; this is a DC-net client's inner loop (one secret
    /// scalar, many per-round generators).
    fn mul_each_encoded(bases: &[Self], s: &Self::Scalar) -> (Vec<Self>, Vec<Self::Repr>) {
        let points: Vec<Self> = bases.iter().map(|b| *b * s).collect();
        let reprs = Self::batch_to_bytes(&points);
        (points, reprs)
    }
    /// `2·Pᵢ` for every point, together with the canonical encodings of the results.
    ///
    /// The results are treated as public (variable time allowed): they are about to be
    /// published. Lets a caller that is free to define its points as doubles (hashed generators
    /// `2·H(k)`, a shuffle prover's commitments computed as halves `Qᵢ = Pᵢ/2`) get the
    /// encodings in one batch: ristretto255 encodes doubles with one shared field inversion
    /// instead of an inverse square root per point.
    fn double_each_encoded(points: &[Self]) -> (Vec<Self>, Vec<Self::Repr>) {
        let doubled: Vec<Self> = points.iter().map(|p| *p + *p).collect();
        let reprs = Self::batch_to_bytes(&doubled);
        (doubled, reprs)
    }

    /// The canonical encoding.
    fn to_bytes(&self) -> Self::Repr;
    /// Encodes many elements at once; implementations may share an inversion across the batch.
    fn batch_to_bytes(elements: &[Self]) -> Vec<Self::Repr> {
        elements.iter().map(Self::to_bytes).collect()
    }
    /// Decodes and **validates** an encoding: exact length, canonical form, on the curve, in the
    /// prime-order subgroup. The identity is accepted (it is a group element); use
    /// [`Group::from_bytes_nonidentity`] where it must not appear.
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError>;
    /// As [`Group::from_bytes`], but also rejects the identity (public keys, bases).
    fn from_bytes_nonidentity(bytes: &[u8]) -> Result<Self, DecodeError> {
        let p = Self::from_bytes(bytes)?;
        if p.is_identity() {
            Err(DecodeError::Identity)
        } else {
            Ok(p)
        }
    }

    /// Hashes `(dst, msg)` to an element whose discrete log to any other element is unknown.
    ///
    /// `dst` is a domain-separation tag naming the purpose; distinct `(dst, msg)` pairs give
    /// independent-looking elements. The construction is per group (see each implementation).
    fn hash_to_group(dst: &[u8], msg: &[u8]) -> Self;
}

/// A table of precomputed multiples of one fixed base `B`, for computing `s · B` quickly.
pub trait FixedBaseTable<G: Group>: Clone + Send + Sync {
    /// `s · B`.
    fn mul(&self, s: &G::Scalar) -> G;
    /// The base `B` this table was built for.
    fn base(&self) -> G;
}

/// A group that can carry data: an injective embedding of up to [`MessageGroup::CAPACITY`]
/// bytes into one element.
///
/// The embedding never produces the identity, so an all-identity reveal (an empty DC-net slot)
/// is always distinguishable from any message, including the empty one.
pub trait MessageGroup: Group {
    /// Maximum number of payload bytes per element.
    const CAPACITY: usize;

    /// Embeds `payload` (at most [`MessageGroup::CAPACITY`] bytes) into an element.
    ///
    /// Deterministic and injective. Variable time (try-and-increment): only for data that the
    /// caller is about to encrypt under a uniformly random pad.
    fn embed(payload: &[u8]) -> Result<Self, EmbedError>;

    /// Recovers the payload of an element produced by [`MessageGroup::embed`].
    ///
    /// Elements outside the embedding's image (including the identity) are rejected with a
    /// typed error.
    fn extract(&self) -> Result<Vec<u8>, EmbedError>;
}
