//! Fault scenarios with real processes over loopback: the test generates a group with the
//! library (as `verdict local` does), spawns each member as a `verdict` process itself, tracks
//! every PID and kills them all on drop; every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bad_input;
mod clients;
mod harness;
mod kills;
mod setup;
mod upstream_moves;
