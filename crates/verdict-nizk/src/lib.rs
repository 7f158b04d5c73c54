#![doc = include_str!("../README.md")]

pub mod batch;
pub mod context;
pub mod encoded;
pub mod error;
pub mod or;
#[cfg(feature = "vectors")]
pub mod recording;
pub mod relation;
pub mod sig;
pub mod statements;
pub mod transcript;
pub mod wire;

/// Design notes: notation, statements, transcript layout, batching and its soundness error,
/// constant-time properties.
#[doc = include_str!("../docs/notes-nizk.md")]
pub mod notes {}

pub use batch::{BatchItem, BatchVerifier, WeighedBatch};
pub use context::Context;
pub use encoded::Encoded;
pub use error::{BatchError, DecodeError, RelationError, VerifyError};
pub use or::{Or, OrProof};
pub use relation::{LinearForm, Proof, Shape, Statement};
pub use sig::{KeyRegistration, Signature, SigningKey, VerifyingKey};
pub use statements::{Dleq, LinearRelation, Schnorr, VectorDleq};
pub use transcript::{Transcript, TranscriptRng};
