//! The authenticated network: Noise over TCP with length-delimited frames.
//!
//! - [`noise`]: transport keys, their certificates (signed by the member's Verdict key), and the
//!   `Noise_XX_25519_ChaChaPoly_BLAKE2s` handshake whose prologue is the session id;
//! - [`link`]: one connection bound to one roster party, its reader and writer halves, message
//!   chunking under Noise's 65,535-byte limit, and per-link-kind size limits;
//! - [`peers`]: the per-peer bounded outbound queues, the listener that admits only roster
//!   keys, and the dialer with exponential backoff.

pub mod link;
pub mod noise;
pub mod peers;
