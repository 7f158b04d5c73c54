//! Neff's verifiable shuffle of ElGamal pairs (2004, §4), non-interactive.
//!
//! Statement: encryption parameters `g` (the group generator) and `h`, inputs `(Xᵢ, Yᵢ)` and
//! outputs `(X̄ᵢ, Ȳᵢ) = (X_{π(i)} + β_{π(i)}·g, Y_{π(i)} + β_{π(i)}·h)`. The proof is the
//! transcript of protocol EGA with the verifier's moves replaced by Fiat–Shamir challenges over
//! one transcript that first absorbs label, version, group, session, prover index, `n`, `g`,
//! `h`, every input and every output:
//!
//! | move | prover sends | challenge |
//! |---|---|---|
//! | EGA.1 | `Γ, A, C, U, W, Λ₁, Λ₂` | `ρ₁..ρ_n` |
//! | EGA.3 | `D` | `λ` |
//! | EGA.5 | `σ, τ` | `t` (SS_k) |
//! | SS_k | `Θ₁..Θ_{2n}` | `c` |
//! | SS_k | `α₁..α_{2n−1}` | — |
//!
//! The verifier computes `Bᵢ = ρᵢ·g − Uᵢ`, `Rᵢ = Aᵢ + λ·Bᵢ` and `Sᵢ = Cᵢ + λ·Dᵢ` itself;
//! nothing of the prover's stands in for them. Proof size: `7n + 3` points and `3n` scalars.
//!
//! The module is split by role: the statement, witness and proof types with the transcript
//! both sides build (`statement.rs`), the prover (`prove.rs`) and the two verifiers, equation by
//! equation and batched (`verify.rs`).

mod prove;
mod statement;
mod verify;

#[cfg(test)]
mod tests;

pub use prove::prove;
pub use statement::{ShuffleProof, ShuffleStatement, ShuffleWitness, shuffle};
pub use verify::{verify, verify_each};
