#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
mod ops;

pub mod codec;
pub mod error;
pub mod fixed_base;
pub mod framing;
pub mod hash;
pub mod par;
mod secret;
mod traits;

pub mod bls12_381;
pub mod p256;
pub mod ristretto255;

#[cfg(feature = "testing")]
pub mod testing;

/// Design notes: notation, choice of groups, embedding, constant-time properties.
#[doc = include_str!("../docs/notes-group.md")]
pub mod notes {}

pub use codec::CodecError;
pub use error::{DecodeError, EmbedError, FrameError, GroupError};
pub use secret::SecretScalar;
pub use traits::{FixedBaseTable, Group, MessageGroup, Scalar};

/// ristretto255 (RFC 9496), the default group.
pub type Ristretto255 = ristretto255::Point;
/// NIST P-256 (secp256r1) over arkworks: SEC1 compressed encoding; secret-scalar
/// multiplications are constant time (RustCrypto `p256`), the rest is not (see [`p256`]).
pub type P256 = p256::Point;
/// BLS12-381 G1 (48-byte compressed points, RFC 9380 hashing); see [`bls12_381`].
pub type Bls12381G1 = bls12_381::G1;
/// BLS12-381 G2 (96-byte compressed points, RFC 9380 hashing); see [`bls12_381`].
pub type Bls12381G2 = bls12_381::G2;
/// BLS12-381 GT, the pairing target group (576-byte elements); see [`bls12_381`].
pub type Bls12381Gt = bls12_381::Gt;
