//! Verdict's pseudonym-key shuffle (session set-up step 3), sans-IO.
//!
//! 1. **Submission.** Client `c` makes a fresh pseudonym key pair `(y, Y = y·g)` and sends
//!    `(X, Z) = (r·g, r·h + Y)` under the servers' joint key `h = Σ h_j`, with a proof of
//!    knowledge `PoK{r, y : X = r·g ∧ Z = r·h + y·g}` bound to the session and to `c`. Nobody
//!    can resubmit (or re-randomize) another client's ciphertext: they know neither `r` nor `y`.
//! 2. **Shuffle.** Servers `0..M` in turn re-randomize and permute the current list and prove
//!    it with Neff's ElGamal shuffle ([`crate::shuffle`](mod@crate::shuffle)), bound to the session and to the
//!    server's index.
//! 3. **Decryption.** Each server `j` publishes `D_{ij} = s_j·X_i` for the final list with one
//!    vector DLEQ proof `PoK{s_j : h_j = s_j·g ∧ ∀i D_{ij} = s_j·X_i}` against its own key.
//! 4. **Slots.** `Y_i = Z_i − Σ_j D_{ij}`; sorted by encoding, slot `s` belongs to `Y_s`.
//!
//! Every participant (client, server or observer) runs the same [`KeyShuffle`] state machine
//! over the same messages and verifies every step; a step that fails names its sender.
//! [`KeyShuffle`] never does I/O and never reads the clock: messages in, messages out.
//!
//! The module is split by step: the public parameters and proof contexts (`params.rs`),
//! submissions (`submission.rs`), shuffle and decryption steps (`steps.rs`) and the state
//! machine over all of them (`machine.rs`).

mod machine;
mod params;
mod steps;
mod submission;

pub use machine::{KeyShuffle, Phase};
pub use params::KeyShuffleParams;
pub use steps::{
    DecryptionStep, ShuffleStep, server_decrypt, server_shuffle, verify_decryption_step,
    verify_shuffle_step,
};
pub use submission::{Submission, client_submit, submit_pseudonym, verify_submission};
