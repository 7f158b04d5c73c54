#![doc = include_str!("../README.md")]

pub mod blame;
pub mod client;
pub mod config;
pub mod encoding;
pub mod error;
pub mod event;
pub(crate) mod fork;
pub mod keys;
pub mod policy;
pub mod schedule;
pub mod server;
pub(crate) mod setup;
pub mod sim;
pub mod slot;
pub mod suite;
pub mod wire;

/// Protocol notes: message flow, who verifies what, hybrid blame, slot schedule, timing, and
/// known limitations.
#[doc = include_str!("../docs/notes-proto.md")]
pub mod notes {}

pub use client::{
    Checkpoint, Client, ClientPhase, LeftOutStreak, ResumeError, SetupCache, SetupSeed,
    SwitchError, next_upstream,
};
pub use config::{GroupConfig, Member, Registered, generate_group};
pub use error::SetupFailure;
pub use error::{ApiError, ConfigError, ExclusionReason, MessageError, ServerFault, WireError};
pub use event::{Event, Transmit};
pub use keys::{KeyUse, SecretKeys};
pub use policy::{Mode, Policy, Verification, WindowPolicy};
pub use schedule::Schedule;
pub use server::{
    Footprint, Server, ServerPhase, ShardError, ShardRefusal, ShardSums, ShardWorker,
};
pub use slot::{Accusation, OpenSlot, RoundResult, SlotKind, SlotOutput};
pub use suite::ProtoSuite;
pub use verdict_dcnet::{ClientId, Party, ServerId, SessionId};
pub use wire::{Received, SharedBytes};
