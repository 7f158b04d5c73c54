//! The tokio drivers: one task owns each state machine and runs its loop — inbound messages,
//! `sleep_until(poll_timeout)`, application input, shutdown — flushing transmissions into the
//! per-peer queues and events to stdout (and, at servers, to the durable history).

mod catch_up;
pub mod client;
mod input;
pub mod jammer;
pub mod server;
mod upstream;

use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, SeedableRng};

use crate::error::NodeError;

/// A state machine's RNG: ChaCha20 seeded from the OS.
pub fn rng() -> Result<ChaCha20Rng, NodeError> {
    ChaCha20Rng::from_rng(OsRng).map_err(|e| NodeError::Usage(format!("OS randomness: {e}")))
}
