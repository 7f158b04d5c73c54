//! Every integration test of verdict-dcnet, in one test binary.
//!
//! Each file under `tests/` is a module of this crate rather than a crate of its own, so the
//! ciphersuites' generic code is compiled once instead of once per file: 14 binaries took
//! 210 s of compile time on a 2-core machine, this one 39 s. Run one file's tests with a
//! filter: `cargo test -p verdict-dcnet --test integration xor::`.

// Tests may panic on what they check; the modules say so too, this covers `common`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod aggregate;
mod eager;
mod elgamal;
mod elgamal_direct;
mod hashing_generator;
mod pairing;
mod pairing_direct;
mod parallel;
mod setup_counts;
mod sizes;
mod wire;
mod wire_elgamal_pairing;
mod xor;
mod xor_forgery;
