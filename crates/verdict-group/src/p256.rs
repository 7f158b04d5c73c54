//! NIST P-256 (secp256r1, SEC 2 / FIPS 186-5) over arkworks 0.6.
//!
//! The curve is `y² = x³ − 3x + b` over `F_p`, `p = 2^256 − 2^224 + 2^192 + 2^96 − 1`, with a
//! group of prime order `n` and **cofactor 1**: every point on the curve is in the prime-order
//! group, so validating a point means checking that it is on the curve, and nothing more.
//!
//! - **Point encoding**: SEC1 compressed form, 33 bytes: `0x02 | parity(y)` followed by `x` as a
//!   32-byte big-endian integer. SEC1 encodes the identity as the single byte `0x00`, which would
//!   make the length variable; here the identity is encoded as **33 zero bytes**
//!   ([`IDENTITY_ENCODING`]) so that [`Group::ENCODED_LEN`] is fixed. Every element has exactly
//!   one encoding (`y = 0` is impossible in an odd-order group, so the parity bit always
//!   distinguishes `y` from `−y`).
//! - **Validation** ([`Group::from_bytes`], always performed): exact length; prefix `0x02` or
//!   `0x03`, or exactly the identity string (any other prefix, including the uncompressed `0x04`
//!   and `0x00` followed by non-zero bytes, is [`DecodeError::NonCanonical`]); `x < p` (else
//!   [`DecodeError::NonCanonical`]); `x³ − 3x + b` a square in `F_p` (else
//!   [`DecodeError::NotOnCurve`]). The checks are done here with `ark-ff` field operations rather
//!   than through `ark-serialize`, whose flag conventions differ from SEC1, so that every rule
//!   and every error is under this module's control.
//! - **Scalars**: 32-byte **big-endian** integers `< n` (the SEC1 convention);
//!   [`from_uniform_bytes`](crate::Scalar::from_uniform_bytes) reduces a 512-bit big-endian
//!   integer by splitting it into 256-bit halves and computing `hi · 2^256 + lo` in the field,
//!   several times faster than arkworks' byte-by-byte reduction.
//! - **Hash to group**: try-and-increment on the x-coordinate, fed by the blake3 XOF of
//!   [`crate::hash::xof`]; see [`Group::hash_to_group`] on [`Point`]. RFC 9380 defines a P-256
//!   suite (`P256_XMD:SHA-256_SSWU_RO_`), but arkworks 0.6 ships no SWU parameters for this
//!   curve, and every input hashed here is public, so the simpler variable-time construction
//!   is used. Its output is uniform over the non-identity elements and its discrete logarithm
//!   is unknown.
//! - **Embedding**: x-coordinate try-and-increment with the even `y`,
//!   [`MessageGroup::CAPACITY`] = 30 bytes; layout on the [`MessageGroup`] impl.
//! - **Multiplication by secret scalars** (`Mul<Scalar>`, [`Group::mul_generator`],
//!   [`Group::msm`], [`Group::mul_each_encoded`], [`Group::mul_generator_encoded`] and the
//!   fixed-base [`Table`]) is constant time in the scalar: it runs on RustCrypto's `p256`
//!   arithmetic, converting points at the boundary (`crate::p256_ct` explains why arkworks
//!   cannot do this and what exactly is covered). `Mul` is the `p256` 4-bit fixed-window
//!   ladder; the generator and [`Group::precompute`] use a signed radix-16 [`Table`] read with
//!   constant-time selection; `msm` is a constant-time Straus interleaving. Results come back
//!   normalized (`Z = 1`), so encoding them involves no further inversion.
//! - **Multiplication by public scalars**: [`Group::mul_vartime`],
//!   [`Group::mul_add_generator_vartime`] and [`Group::msm_vartime`] for up to 32 terms use an
//!   interleaved wNAF written here (one shared chain of `a = −3` doublings, mixed additions of
//!   batch-normalized odd multiples, a static width-8 table for the generator); larger MSMs use
//!   arkworks' Pippenger ([`VariableBaseMSM`]). Variable time: public scalars only.
//! - **Constant time: only the secret-scalar multiplications above.** Everything else here is
//!   arkworks arithmetic, which is not constant time (ark-ff's field operations end in a
//!   data-dependent conditional subtraction, inversion and square root are variable time):
//!   [`Scalar`] arithmetic (`+`, `*`, inversion,
//!   [`from_uniform_bytes`](crate::Scalar::from_uniform_bytes)), point addition, encoding a
//!   point with `Z ≠ 1`, decoding, hashing and embedding. The project's
//!   `docs/SECURITY.md (§ Secret hygiene and constant time)` lists which secrets go through which of these.

use core::ops::{Mul, MulAssign};
use std::sync::OnceLock;

use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, BigInteger, Field, PrimeField, Zero};
use ark_secp256r1::{Affine, Config, Fq, Fr, Projective};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::error::{DecodeError, EmbedError, GroupError};
pub use crate::p256_ct::Table;
use crate::traits::{FixedBaseTable, Group, MessageGroup};

/// A scalar modulo the group order
/// `n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Zeroize)]
pub struct Scalar(pub Fr);

/// An element of the P-256 group, held in arkworks' Jacobian projective coordinates (arkworks
/// multiplies projective points markedly faster than affine ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub struct Point(pub Projective);

/// The encoding of the identity: 33 zero bytes (SEC1's one-byte `0x00`, padded to the fixed
/// length).
pub const IDENTITY_ENCODING: [u8; ENCODED_POINT_LEN] = [0u8; ENCODED_POINT_LEN];

/// Length of a compressed point encoding.
const ENCODED_POINT_LEN: usize = 33;
/// SEC1 prefix of a compressed point with even `y`.
const PREFIX_EVEN: u8 = 0x02;
/// SEC1 prefix of a compressed point with odd `y`.
const PREFIX_ODD: u8 = 0x03;

/// `2^256 mod n`, i.e. `2^256 − n` (as `n < 2^256 < 2n`), for the wide reduction.
const TWO_POW_256_MOD_N: Fr = Fr::new(BigInt::new([
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

scalar_newtype_ops!(Scalar);
point_newtype_ops!(Point);

/// `s · P` for a secret `s`: constant time in `s` (RustCrypto's `p256` ladder). The fallback
/// to the wNAF, which gives the same point, runs only if `P` could not be converted, which
/// cannot happen for a valid point.
fn mul_secret(p: &Point, s: &Scalar) -> Point {
    crate::p256_ct::mul(p, s).unwrap_or_else(|| Group::mul_vartime(p, s))
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
fn fr_from_256_bits(mut v: BigInt<4>) -> Fr {
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

/// `x³ − 3x + b`, the right-hand side of the curve equation.
fn curve_rhs(x: &Fq) -> Fq {
    (x.square() + Config::COEFF_A) * x + Config::COEFF_B
}

/// Whether a field element, as an integer in `[0, p)`, is odd.
fn is_odd(y: &Fq) -> bool {
    y.into_bigint().is_odd()
}

/// A 32-byte big-endian integer as a field element, or `None` if it is `≥ p`.
fn fq_from_be(bytes: &[u8; 32]) -> Option<Fq> {
    Fq::from_bigint(bigint_from_be(bytes))
}

/// The curve point with x-coordinate `x` and square root `y` of `x³ − 3x + b`, with `y`
/// negated if needed to give it the requested parity.
fn point_with_parity(x: Fq, y: Fq, odd: bool) -> Affine {
    // y ≠ 0 (no point of order 2 in an odd-order group), so y and −y = p − y differ in parity.
    let y = if is_odd(&y) == odd { y } else { -y };
    Affine::new_unchecked(x, y)
}

/// The curve point with x-coordinate `x` and the requested parity of `y`, if `x` is the
/// x-coordinate of a point (`x³ − 3x + b` is a square).
fn lift_x(x: Fq, odd: bool) -> Option<Affine> {
    curve_rhs(&x).sqrt().map(|y| point_with_parity(x, y, odd))
}

/// SEC1 compressed encoding of an affine point, or [`IDENTITY_ENCODING`].
fn encode_affine(p: &Affine) -> [u8; ENCODED_POINT_LEN] {
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

// ---------------------------------------------------------------------------------------------
// Variable-time multi-base multiplication (interleaved wNAF).
// ---------------------------------------------------------------------------------------------

/// Number of wNAF digits of a scalar `< n < 2^256` (the recoding can carry one position up).
const WNAF_LEN: usize = 257;
/// Window width for bases that are only used once: 2^(w−2) = 8 precomputed odd multiples.
const WNAF_WINDOW_VAR: u32 = 5;
/// Window width for the generator, whose odd multiples are precomputed once: 64 points, so
/// about one addition every 9 doublings.
const WNAF_WINDOW_GEN: u32 = 8;
/// Up to this many terms, [`Group::msm_vartime`] uses interleaved wNAF instead of arkworks'
/// Pippenger MSM, whose bucket set-up dominates for few points. A rough measurement put the
/// crossover between 32 and 64 terms (interleaved wNAF ≈ 25% faster at 16–32 terms, ≈ 2×
/// faster at 1–6).
const SMALL_MSM: usize = 32;

/// Width-`w` non-adjacent form of a 256-bit integer: digits odd or zero, `|dᵢ| < 2^(w−1)`,
/// and any `w` consecutive digits contain at most one non-zero. `w ≤ 8`, so digits fit `i8`.
fn wnaf(scalar: &BigInt<4>, w: u32) -> [i8; WNAF_LEN] {
    let width = 1u64 << w;
    let half = width >> 1;
    let mask = width - 1;
    // One spare limb absorbs the carry of a negative digit at the top.
    let mut k = [scalar.0[0], scalar.0[1], scalar.0[2], scalar.0[3], 0u64];
    let mut digits = [0i8; WNAF_LEN];
    for digit in digits.iter_mut() {
        if k.iter().all(|&l| l == 0) {
            break;
        }
        if k[0] & 1 == 1 {
            let m = k[0] & mask;
            if m >= half {
                // Negative digit m − 2^w: add 2^w − m, which clears the low w bits.
                *digit = (m as i64 - width as i64) as i8;
                let mut carry = width - m;
                for limb in k.iter_mut() {
                    let (v, overflow) = limb.overflowing_add(carry);
                    *limb = v;
                    carry = u64::from(overflow);
                    if carry == 0 {
                        break;
                    }
                }
            } else {
                // Positive digit m: the low w bits of k are exactly m, so no borrow.
                *digit = m as i8;
                k[0] -= m;
            }
        }
        for i in 0..4 {
            k[i] = (k[i] >> 1) | (k[i + 1] << 63);
        }
        k[4] >>= 1;
    }
    digits
}

/// The odd multiples `P, 3P, …, (2^(w−1) − 1)P` in projective coordinates.
fn odd_multiples(p: &Projective, w: u32) -> Vec<Projective> {
    let count = 1usize << (w - 2);
    let double = p.double();
    let mut out = Vec::with_capacity(count);
    let mut acc = *p;
    out.push(acc);
    for _ in 1..count {
        acc += double;
        out.push(acc);
    }
    out
}

/// Doubles a Jacobian point in place with the `a = −3` formula `dbl-2001-b` (Bernstein–Lange,
/// Explicit-Formulas Database): 4M + 4S, against 3M + 7S for arkworks' generic-`a` doubling
/// (one of its M being the multiplication by `a`). Doublings are ≈80% of the work of a wNAF
/// multiplication.
///
/// The point at infinity (`Z = 0`) stays at infinity since `Z3 = 2·Y1·Z1`; `Y1 = 0` cannot
/// occur (no point of order 2).
fn double_a_minus_3(p: &mut Projective) {
    let delta = p.z.square();
    let gamma = p.y.square();
    let beta = p.x * gamma;
    let t = (p.x - delta) * (p.x + delta);
    let alpha = t.double() + t;
    let beta4 = beta.double().double();
    let x3 = alpha.square() - beta4.double();
    let z3 = (p.y * p.z).double();
    let gamma2_8 = gamma.square().double().double().double();
    p.y = alpha * (beta4 - x3) - gamma2_8;
    p.x = x3;
    p.z = z3;
}

/// `Σ dᵢ · Tᵢ` for wNAF digit vectors and matching tables of affine odd multiples: one shared
/// chain of doublings, one mixed addition per non-zero digit.
fn interleaved_wnaf(terms: &[([i8; WNAF_LEN], &[Affine])]) -> Projective {
    let top = terms
        .iter()
        .filter_map(|(d, _)| d.iter().rposition(|&x| x != 0))
        .max();
    let mut acc = Projective::ZERO;
    let Some(top) = top else {
        return acc;
    };
    for i in (0..=top).rev() {
        double_a_minus_3(&mut acc);
        for (digits, table) in terms {
            let d = digits[i];
            // Digits are odd, so |d| / 2 indexes the multiple |d| · T.
            if d > 0 {
                acc += &table[(d as usize) / 2];
            } else if d < 0 {
                acc -= &table[(d.unsigned_abs() as usize) / 2];
            }
        }
    }
    acc
}

/// `Σ sᵢ · Pᵢ` by interleaved wNAF; the odd-multiple tables of all bases share one inversion.
fn small_msm(scalars: &[Scalar], points: &[Point]) -> Projective {
    let per = 1usize << (WNAF_WINDOW_VAR - 2);
    let projective: Vec<Projective> = points
        .iter()
        .flat_map(|p| odd_multiples(&p.0, WNAF_WINDOW_VAR))
        .collect();
    let affine = Projective::normalize_batch(&projective);
    let terms: Vec<([i8; WNAF_LEN], &[Affine])> = scalars
        .iter()
        .zip(affine.chunks_exact(per))
        .map(|(s, table)| (wnaf(&s.0.into_bigint(), WNAF_WINDOW_VAR), table))
        .collect();
    interleaved_wnaf(&terms)
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
        crate::p256_ct::mul_each_encoded(bases, s).unwrap_or_else(|| {
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
    /// `p256` (module `p256_ct`).
    fn msm(scalars: &[Scalar], points: &[Self]) -> Result<Self, GroupError> {
        if scalars.len() != points.len() {
            return Err(GroupError::LengthMismatch {
                left: scalars.len(),
                right: points.len(),
            });
        }
        Ok(crate::p256_ct::msm(scalars, points)
            .unwrap_or_else(|| scalars.iter().zip(points).map(|(s, p)| *p * s).sum()))
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

/// Payload capacity of one element.
const EMBED_CAPACITY: usize = 30;
/// Offset of the counter byte in the x-coordinate.
const EMBED_COUNTER_POS: usize = 31;

/// The embedding candidate `len ‖ payload ‖ zero padding ‖ counter` (callers check the
/// payload length).
fn embed_candidate(payload: &[u8], counter: u8) -> [u8; 32] {
    let mut x = [0u8; 32];
    x[0] = payload.len() as u8;
    x[1..1 + payload.len()].copy_from_slice(payload);
    x[EMBED_COUNTER_POS] = counter;
    x
}

/// Embedding layout: the x-coordinate as a 32-byte big-endian integer is
///
/// | byte | content |
/// |---|---|
/// | 0 | payload length, 0..=30 |
/// | 1..=30 | payload, zero-padded to 30 bytes |
/// | 31 | counter |
///
/// and `y` is the even square root. The first byte is at most 30, so `x < 2^253 < p` and every
/// candidate is a canonical field element. The counter is increased from 0 until
/// `x³ − 3x + b` is a square, which each candidate is with probability ≈ 1/2, so all 256
/// counter values fail with probability ≈ 2^-256 ([`EmbedError::CounterExhausted`]). An
/// affine point is never the identity, so no payload, not even the empty one, embeds to it.
///
/// [`MessageGroup::extract`] accepts exactly the image of [`MessageGroup::embed`]: besides the
/// identity, odd `y`, a length above 30 and non-zero padding, it rejects a point whose counter
/// is not the *first* one that works for its payload (such a point is on the curve but no
/// honest sender produces it), at the cost of one Legendre symbol per smaller counter: one on
/// average for honest embeddings, at most 255 for a crafted point (a bounded cost of a few
/// milliseconds that only the sender of that element can trigger).
impl MessageGroup for Point {
    const CAPACITY: usize = EMBED_CAPACITY;

    fn embed(payload: &[u8]) -> Result<Self, EmbedError> {
        if payload.len() > EMBED_CAPACITY {
            return Err(EmbedError::PayloadTooLong {
                len: payload.len(),
                capacity: EMBED_CAPACITY,
            });
        }
        for counter in 0..=u8::MAX {
            let candidate = embed_candidate(payload, counter);
            let Some(x) = fq_from_be(&candidate) else {
                // Unreachable: the leading byte ≤ 30 keeps x below p.
                return Err(EmbedError::CounterExhausted);
            };
            if let Some(p) = lift_x(x, false) {
                return Ok(Point::from(p));
            }
        }
        Err(EmbedError::CounterExhausted)
    }

    fn extract(&self) -> Result<Vec<u8>, EmbedError> {
        let Some((x, y)) = self.0.into_affine().xy() else {
            return Err(EmbedError::Identity);
        };
        if is_odd(&y) {
            return Err(EmbedError::NotAnEmbedding);
        }
        let x_bytes = bigint_to_be(&x.into_bigint());
        let len = x_bytes[0] as usize;
        if len > EMBED_CAPACITY {
            return Err(EmbedError::NotAnEmbedding);
        }
        let (payload, padding) = x_bytes[1..EMBED_COUNTER_POS].split_at(len);
        if padding.iter().any(|&b| b != 0) {
            return Err(EmbedError::NotAnEmbedding);
        }
        for earlier in 0..x_bytes[EMBED_COUNTER_POS] {
            let candidate = embed_candidate(payload, earlier);
            let is_point = fq_from_be(&candidate).is_some_and(|x| curve_rhs(&x).legendre().is_qr());
            if is_point {
                return Err(EmbedError::NotAnEmbedding);
            }
        }
        Ok(payload.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wNAF digits reconstruct the scalar and respect the window constraints.
    #[test]
    fn wnaf_reconstructs() {
        let values = [
            Fr::ZERO,
            Fr::ONE,
            -Fr::ONE,
            Fr::from(0xdead_beef_u64),
            Fr::from(2u64).pow([255u64]),
            -Fr::from(12345u64),
        ];
        for w in [WNAF_WINDOW_VAR, WNAF_WINDOW_GEN] {
            for v in values {
                let digits = wnaf(&v.into_bigint(), w);
                let mut acc = Fr::ZERO;
                for &d in digits.iter().rev() {
                    acc.double_in_place();
                    if d >= 0 {
                        acc += Fr::from(d as u64);
                    } else {
                        acc -= Fr::from(d.unsigned_abs() as u64);
                    }
                }
                assert_eq!(acc, v, "w = {w}");
                for (i, &d) in digits.iter().enumerate() {
                    if d != 0 {
                        assert!(d % 2 != 0 && d.unsigned_abs() < (1 << (w - 1)));
                        let end = (i + w as usize).min(WNAF_LEN);
                        assert!(digits[i + 1..end].iter().all(|&e| e == 0));
                    }
                }
            }
        }
    }

    #[test]
    fn doubling_matches_arkworks() {
        let mut p = Projective::ZERO;
        double_a_minus_3(&mut p);
        assert!(p.is_zero());
        let mut p = Point::hash_to_group(b"test", b"doubling").0;
        for _ in 0..8 {
            let mut q = p;
            double_a_minus_3(&mut q);
            assert_eq!(q, p.double());
            p = q + Point::generator().0;
        }
    }

    #[test]
    fn two_pow_256_constant() {
        assert_eq!(TWO_POW_256_MOD_N, Fr::from(2u64).pow([256u64]));
    }

    #[test]
    fn small_msm_matches_pippenger() {
        let g = Point::generator();
        let points = [
            g,
            g.double() + g,
            Point::identity(),
            g * Scalar(-Fr::from(7u64)),
        ];
        let scalars = [
            Scalar(Fr::from(3u64)),
            Scalar(-Fr::ONE),
            Scalar(Fr::from(9u64)),
            Scalar(Fr::from(2u64).pow([200u64])),
        ];
        let expect: Point = scalars.iter().zip(&points).map(|(s, p)| *p * s).sum();
        assert_eq!(Point(small_msm(&scalars, &points)), expect);
        let bases = Projective::normalize_batch(&points.map(|p| p.0));
        let big: Vec<BigInt<4>> = scalars.iter().map(|s| s.0.into_bigint()).collect();
        assert_eq!(Point(Projective::msm_bigint(&bases, &big)), expect);
    }
}
