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
//!   arithmetic, converting points at the boundary (the private module `ct` explains why arkworks
//!   cannot do this and what exactly is covered). `Mul` and
//!   [`Group::mul_each_encoded`] are a signed 5-bit window ladder in Jacobian coordinates
//!   (`ladder.rs`, points in `jacobian.rs`) on a constant-time field of this crate with a
//!   dedicated squaring (`field.rs`), a batch adding affine table entries and sharing its
//!   inversions (`normalize.rs`); the generator and [`Group::precompute`] use a signed radix-16 [`Table`] read with
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

//!
//! The module is split by concern: [`Scalar`] and its encoding (`scalar.rs`), [`Point`], its
//! SEC1 encoding and validation (`point.rs`), the [`Group`] implementation with the
//! secret-scalar multiplications (`group.rs`), which run on the constant-time backend
//! (`ct.rs`, [`Table`], the ladder in `ladder.rs` with its points in `jacobian.rs`, lanes in
//! `lanes.rs`, batch normalization in `normalize.rs` and field in `field.rs`), the
//! variable-time interleaved wNAF (`wnaf.rs`) and the message
//! embedding (`embed.rs`).

// The names the module documentation above links to.
#[cfg(doc)]
use crate::{DecodeError, Group, MessageGroup};
#[cfg(doc)]
use ark_ec::VariableBaseMSM;

mod ct;
mod embed;
mod field;
mod group;
mod jacobian;
mod ladder;
mod lanes;
mod normalize;
mod point;
mod scalar;
mod wnaf;

#[cfg(test)]
mod tests;

pub use ct::Table;
pub use point::{IDENTITY_ENCODING, Point};
pub use scalar::Scalar;
