//! The pairing-based verifiable DC-net suite on BLS12-381: no set-up, no ephemeral keys.
//!
//! Written additively (GT too: `a + b` is the `Fq12` product, `x·P` the power). Clients hold
//! `x_i` with `X_i = x_i·g₂ ∈ G2`, servers `z_j` with `Z_j = z_j·g₂`, `Z = Σ_j Z_j`. The slot's
//! pseudonym key `Y = y·g₂` lives in **G2** too: `verdict-nizk` relates at most two groups in
//! one proof (G2 for the keys, GT for the pads), so the OR branch `Y = y·g` must be in one of
//! them.
//!
//! | operation | computation |
//! |---|---|
//! | round bases | `T_{t,k} = HashToG1(session, slot, t, k)` (RFC 9380, unknown discrete log; never `g^h` with a public `h`, which let anyone compute every pad in 2013) |
//! | client pad | `x_i·e(T_{t,k}, Z)` |
//! | cover / owner | `C_k = x_i·H_k` / `C_k = x_i·H_k + Enc(chunk_k)` with `H_k = e(T_{t,k}, Z)` |
//! | client proof | `PoK{x, y : (X_i = x·g₂ ∧ ∀k C_k = x·H_k) ∨ Y = y·g₂}` (folded [`VectorDleq`] over G2/GT in [`Or`]: constant size) |
//! | server | `B_k = e(T_{t,k}, Σ_{i∈S} X_i)`, `D_{j,k} = −z_j·B_k`, proof `PoK{z : Z_j = z·g₂ ∧ ∀k D_{j,k} = z·(−B_k)}` |
//! | reveal | `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k} = Enc(chunk_k)`, decoded with [`gt_table`] |
//!
//! The pads cancel: `Σ_i x_i·e(T, Z) = (Σ_i x_i)(Σ_j z_j)·e(T, g₂) = Σ_j z_j·e(T, Σ_i X_i)`.
//!
//! # Plaintext encoding, capacity and cost
//!
//! Bytes cannot be embedded into GT on BLS12-381 (see [`gt_table`] for why the 2013 torus
//! embedding does not carry over); each 576-byte GT element carries one 16- or 24-bit chunk in
//! its exponent: **2 or 3 bytes per element** (288× or 192× expansion) and the slot carries
//! `L·b/8 − 4` message bytes. Per element (one core, optimized arkworks): a client pays one
//! pairing for `H_k` (shared by all clients of the slot, ≈ 1 ms) and one GT exponentiation
//! (≈ 0.7 ms); a server one pairing and one exponentiation; a receiver one validated GT decode
//! (≈ 0.7 ms: the subgroup check is an exponentiation by `r`); the reveal one table lookup
//! (16-bit) or up to 256 giant steps (24-bit). Plus one hash to G1 per element and round
//! (≈ 0.2 ms). That is a few hundred bytes of plaintext per second per core — this suite is here
//! for completeness and comparison; the hashing-generator suite is the fast one.
//!
//! Measured with `benches/fig5.rs` (ids `fig5/pairing-chunk16/bls12-381/<op>/<bytes>`; numbers
//! with machine and date in `docs/PERFORMANCE.md`): on one core of the 2-vCPU test VM a 256-byte
//! slot (`L` = 130) costs ≈ 0.5 s to create, ≈ 0.2 s to verify and ≈ 0.23 s to decode — about
//! 0.5 KB/s of plaintext generated and 3 KB/s batch-verified per core, against the paper's
//! ≈ 3 KB/s generation with 60 bytes per (Type-A) GT element. Small slots pay a fixed
//! ≈ 20–40 ms (multi-exponentiations in GT over a handful of elements are inefficient). The
//! decoding table takes ≈ 0.7 s to build, once per process.
//!
//! Lazy verification is possible here (unlike ElGamal): a client's pad is bound to its
//! registered key `X_i`, so a multiple of someone else's ciphertext leaves an unknown pad in the
//! reveal instead of a membership test.
//!
//! **Constant time: none** (arkworks). See `verdict_group::bls12_381`.
//!
//! # Layout
//!
//! The suite id, round bases, ciphertext types and the direct API for one slot
//! ([`PairingSlot`]) are in `slot.rs`; the [`Ciphersuite`], [`Verifiable`] and [`Aggregating`]
//! implementations, with the chunk widths as types, in `suite_impl.rs`; the GT decoding table
//! in [`gt_table`].

// The names the module documentation above links to.
#[cfg(doc)]
use crate::{Aggregating, Ciphersuite, Verifiable};
#[cfg(doc)]
use verdict_nizk::{Or, VectorDleq};

pub mod gt_table;
mod slot;
mod suite_impl;

pub use slot::{
    ClientCiphertext, Fr, PairingSlot, ServerCiphertext, client_ciphertext_len, round_bases,
    server_ciphertext_len, suite_id,
};
pub use suite_impl::{
    Chunk16, Chunk24, ChunkWidth, Pairing, PairingClientState, PairingServerState,
};
