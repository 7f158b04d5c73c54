#![doc = include_str!("../README.md")]

pub mod aggregate;
pub mod dh;
pub mod elgamal;
pub mod error;
pub mod hashing_generator;
pub mod ids;
pub mod pairing;
mod server_dleq;
mod shared;
pub mod sizes;
pub mod suite;
pub mod testing;
pub mod verifiable;
pub mod wire;
pub mod xor;

/// Design notes: every suite's formulas, costs, proof shapes, batching, churn, disputes, the
/// XOR pad layout and constant-time properties.
#[doc = include_str!("../docs/notes-dcnet.md")]
pub mod notes {}

pub use aggregate::{Aggregating, ElementSum};
pub use dh::DhReveal;
pub use error::{DcDecodeError, DcError, Liar, SetupError};
pub use hashing_generator::HashingGenerator;
pub use ids::{ClientId, Party, ServerId, SessionId, SlotRound, SuiteId};
pub use suite::{
    Ciphersuite, MAX_SLOT_LEN, PreparedSlot, PublicKey, Roster, SecretKey, Session, SetupMessage,
    Verifiable,
};
pub use xor::Xor;
