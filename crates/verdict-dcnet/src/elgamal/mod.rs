//! The ElGamal-style verifiable DC-net suite (eager verification only), generic over any
//! [`MessageGroup`] (ristretto255, P-256).
//!
//! Written additively (`r·g` for `g^r`). Servers `j` hold `z_j` with `Z_j = z_j·g`; the joint
//! key is `Z = Σ_j Z_j`. The slot's pseudonym key is `Y = y·g`.
//!
//! | operation | computation |
//! |---|---|
//! | cover create | fresh `r_k`; `R_k = r_k·g`, `C_k = r_k·Z`; proof branch 0 with `r_1..r_L` |
//! | owner create | same with `C_k = r_k·Z + M_k` (`M` = the framed message); proof branch 1 with `y, r_1..r_L` |
//! | client proof | `PoK{r_1..r_L, y : (∀k R_k = r_k·g ∧ C_k = r_k·Z) ∨ (Y = y·g ∧ ∀k R_k = r_k·g)}` ([`Or`] of two [`LinearRelation`]s: `L` witnesses and `2L` equations, `L + 1` witnesses and `L + 1` equations) |
//! | server create | `P_k = Σ_{i∈S} R_{i,k}`, `D_{j,k} = −z_j·P_k`, proof `PoK{z : Z_j = z·g ∧ ∀k D_{j,k} = z·(−P_k)}` ([`VectorDleq`]) |
//! | reveal | `M_k = Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}`, then [`verdict_group::framing::decode_message`] |
//!
//! Correctness: `Σ_i C_{i,k} = (Σ_i r_{i,k})·Z + M_k` and `Σ_j D_{j,k} = −(Σ_j z_j)(Σ_i r_{i,k})·g`.
//!
//! # Why it must be verified eagerly
//!
//! ElGamal ciphertexts are malleable and, unlike the hashing-generator and pairing pads, not
//! bound to a long-term key: the servers strip `z·Σ R` from *whatever* pairs `(R, C)` they
//! receive. A dishonest client can therefore submit a multiple `(λ·R_i, λ·C_i)` of an honest
//! client `i`'s ciphertext; it contributes `λ·(C_i − Z·r_i) = λ·M_i` to the reveal, so the slot
//! reveals `(1 + λ)·M` if client `i` owns it and `M` otherwise — a targeted de-anonymization.
//! Only the proof of knowledge of the `r_k` (which the attacker, not knowing `λ·r_{i,k}`,
//! cannot make) stops this, and it must be checked **before** the servers publish their
//! ciphertexts: lazy verification (check proofs only when the owner's signature fails after the
//! reveal) would detect the attack after anonymity is already lost, and the plaintext is not
//! bound to the pseudonym otherwise.
//!
//! The suite says so with [`Ciphersuite::EAGER_ONLY`] `= true` (the other suites are `false`).
//!
//! # Why the owner branch proves the `r_k` too (suite version 2)
//!
//! Version 1 proved `(∧_k C_k = r_k·Z ∧ R_k = r_k·g) ∨ Y = y·g`: the owner branch left every
//! `R_k` unconstrained. The slot owner (who knows `y`) could put *any* point `P` in its `R_k`
//! — typically `R'_{i,k}` copied from an honest client's ciphertext of an earlier round — and
//! eager verification accepted it. Each server then publishes `D_{j,k} = −z_j·Σ_{i∈S} R_{i,k}`,
//! the honest clients' parts cancel, and the reveal is
//! `Σ_i C_{i,k} + Σ_j D_{j,k} = C_k − (Σ_j z_j)·P` with `C_k` chosen by the attacker: the
//! servers act as a static Diffie–Hellman oracle on their keys. With `P = R'_{i,k}` the
//! answer is `r'·Z`, the victim's pad, and `C'_{i,k} − r'·Z` is its past plaintext element
//! (the identity for a cover, a message for an owner): the victim is de-anonymized, in eager
//! mode, by an attacker who needs only the raw sums (one colluding server, which also learns
//! `z_h·P` for each honest server `h` by removing the colluders' shares).
//!
//! Version 2 adds `∀k R_k = r_k·g` to the owner branch. Whichever branch is real, the
//! submitter now proves knowledge of every `r_k` (the knowledge extractor of the OR proof
//! yields them from either branch), so every `z_j·R_{i,k}` the servers help compute is
//! `r_{i,k}·Z_j`, which its sender could compute alone: the servers answer only questions
//! whose answers the asker already has. The owner knows its `r_k` (it drew them), so honest
//! owners lose nothing; the test `owner_branch_is_not_a_dh_oracle` runs the attack and checks
//! that the forged ciphertext is rejected, alone and in a batch, naming its sender.
//!
//! # Sizes (Figure 6 of the paper: 3L + O(1))
//!
//! A client ciphertext is `2L` elements (`R_k`, `C_k`) plus the OR proof. The proofs of
//! `verdict-nizk` carry their commitments explicitly (so that servers can batch-verify N
//! clients with one MSM and name culprits): the cover branch has `2L` commitments and `L`
//! responses, the owner branch `L + 1` and `L + 1`, plus one challenge — `5L + 1` elements and
//! `2L + 2` scalars on the wire in total (ristretto255: `32·(7L + 3)` bytes; P-256:
//! `229·L + 97`). Version 1 had `4L + 1` elements and `L + 2` scalars (ristretto255:
//! `32·(5L + 3)` bytes): the fix costs `L` commitments and `L` responses, ≈ 1.4× the client
//! ciphertext. The paper's `3L + O(1)` is `2L` elements plus `L` responses in the compact
//! `(challenge, responses)` form — the shape of version 1's proof, whose owner branch has no
//! per-element witnesses; the compact form of this proof would be `2L` elements plus `2L + 1`
//! responses and a challenge, `4L + O(1)`.
//! [`client_ciphertext_len`] gives the exact byte count.
//!
//! # Measured cost
//!
//! `benches/fig5.rs` (ids `fig5/elgamal/<group>/<op>/<bytes>`); numbers with the machine and
//! date in `docs/PERFORMANCE.md`. Per element a client pays two constant-time multiplications
//! (`r_k·g`, `r_k·Z`) plus its share of the OR proof (`3L + 1` commitments, one branch real
//! and one simulated); a verifier checks `3L + 1` equations. Against version 1 (`2L + 1`) that
//! made generation ≈ 1.1–1.5× and verification ≈ 1.3–1.5× slower (A/B of short criterion runs
//! on the shared 2-vCPU test VM). At 1 KB slots, ristretto255: cover ≈ 7.1 ms (≈ 145 KB/s of
//! plaintext), owner ≈ 8.0 ms, verify ≈ 3.5 ms, a batch of 32 ≈ 27 ms (≈ 1.2 MB/s); P-256:
//! cover ≈ 9.9 ms (≈ 100 KB/s, still ≈ 5× the 2013 prototype's 18 KB/s), owner ≈ 12.3 ms,
//! verify ≈ 9.5 ms, a batch of 32 ≈ 44 ms.
//!
//! # Constant time
//! The secret scalars (`r_k`, `y`, `z_j`) are multiplied with the group's constant-time
//! operations where the backend has them (ristretto255); P-256 is variable time
//! (see `verdict_group`'s notes). Message embedding is variable time in the plaintext.
//!
//! # Layout
//!
//! The suite id, the ciphertexts and their wire format are in `ciphertext.rs`, the direct API
//! for one slot ([`ElGamalSlot`]: create, verify, server create and verify, reveal) in
//! `slot.rs`, and the [`Ciphersuite`] and [`Verifiable`] implementations in `suite_impl.rs`.

// The names the module documentation above links to.
#[cfg(doc)]
use crate::{Ciphersuite, Verifiable};
#[cfg(doc)]
use verdict_group::MessageGroup;
#[cfg(doc)]
use verdict_nizk::{LinearRelation, Or, VectorDleq};

mod ciphertext;
mod slot;
mod suite_impl;

#[cfg(test)]
mod tests;

pub use ciphertext::{
    ClientCiphertext, ServerCiphertext, client_ciphertext_len, server_ciphertext_len, suite_id,
};
pub use slot::ElGamalSlot;
pub use suite_impl::{ElGamal, ElGamalClientState, ElGamalServerState};
