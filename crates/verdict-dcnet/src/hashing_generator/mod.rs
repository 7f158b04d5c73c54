//! The hashing-generator suite: verifiable, `L + O(1)` elements per ciphertext, generic over any
//! [`MessageGroup`] (ristretto255 by default, P-256 for the paper's comparison).
//!
//! Written additively (constructions.md writes `g^x`):
//! - set-up: `s_ij = H_q(suite ‖ session ‖ DH(x_i, Z_j) ‖ i ‖ j)`; client `i` and server `j`
//!   both publish `K_ij = s_ij·G`; [`Session::establish`] cross-checks the two copies, and a
//!   disagreement is settled by [`HashingGenerator::resolve_dispute`], which names the liar.
//!   `σ_i = Σ_j s_ij`, `U_i = Σ_j K_ij`.
//! - generators: `g_k = 2·H_𝔾(dst, suite ‖ session ‖ slot ‖ round ‖ len ‖ k)`, cached per slot in
//!   [`PreparedSlot`].
//! - client: `C_k = σ_i·g_k (+ M_k if owner)`, proof
//!   `PoK{σ, y : (U_i = σ·G ∧ ∀k C_k = σ·g_k) ∨ Y_slot = y·G}` (nizk `Or[VectorDleq, Schnorr]`).
//! - server `j` over the accepted set `S`: `τ = Σ_{i∈S} s_ij`, `D_k = −τ·g_k`, proof
//!   `PoK{τ : V = τ·G ∧ ∀k D_k = τ·(−g_k)}` with `V = Σ_{i∈S} K_ij` recomputed by verifiers.
//! - reveal: `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k} = M_k`, then [`framing::decode_message`].
//!
//! See [`crate::notes`] for costs, batching and the dispute procedure.
//!
//! # Layout
//!
//! The suite's types (session data, states, slot data, ciphertexts) and the pair secret are
//! in `types.rs`, the commitment disputes in `dispute.rs`, the client and server proof
//! statements and transcripts in `proofs.rs`, the [`Ciphersuite`] and [`Verifiable`]
//! implementations in `suite_impl.rs` and the [`Aggregating`] one (server create and verify
//! over ids, the batched check of several slots, the reveal from aggregates) in
//! `aggregate.rs`.

// The names the module documentation above links to.
#[cfg(doc)]
use crate::{Aggregating, Ciphersuite, PreparedSlot, Session, Verifiable};
#[cfg(doc)]
use verdict_group::{MessageGroup, framing};

mod aggregate;
mod dispute;
mod proofs;
mod suite_impl;
mod types;

pub use types::{
    Commitments, HashingGenerator, HgClientCiphertext, HgClientState, HgServerCiphertext,
    HgServerState, HgSessionPublic, HgSlot,
};

#[cfg(test)]
mod tests;
