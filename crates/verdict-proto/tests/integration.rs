//! Every integration test of verdict-proto, in one test binary.
//!
//! Each file under `tests/` is a module of this crate rather than a crate of its own: every
//! binary instantiated the simulator's generic code for itself, so the 19 binaries took
//! 2,174 s of compile time on a 2-core machine (`cargo test --no-run --timings`, a clean
//! build) and this one takes 85 s. Run one file's tests with a filter:
//! `cargo test -p verdict-proto --test integration invariants::`.

// Tests may panic on what they check; the modules say so too, this covers `common`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod adversaries;
mod after_verdict;
#[path = "attacks/main.rs"]
mod attacks;
mod basic;
mod blame_statement;
mod catch_up;
mod common;
mod held_inventories;
mod invariants;
mod malformed;
mod parallel;
mod properties;
mod rebuttals;
mod restart;
mod setup_absent;
mod setup_lost;
mod silence_attribution;
mod upstream;
mod upstream_abuse;
mod workers;
