//! Recording of transcript internals for the known-answer vectors (feature `vectors`; test
//! support, never enabled by a deployment).
//!
//! Inside [`record`], every [`Transcript`](crate::Transcript) created on this thread keeps a
//! copy of the bytes it feeds blake3, and reports, in order: each challenge (everything hashed
//! up to and including the challenge operation, and the XOF output: 32 ratchet bytes, then the
//! challenge bytes), each prover-RNG fork (the fork's whole hashed input — the transcript, the
//! secret witness, the caller's 32 entropy bytes — and those entropy bytes), and the secret
//! scalars drawn from a prover RNG (proof nonces, an OR proof's simulated challenges, a
//! signature nonce). These are secrets: that is the point (another implementation reproduces a
//! proof bit for bit from them), and why this exists only behind a feature. Outside
//! [`record`] nothing is kept, so a build with the feature behaves as one without.

use std::cell::RefCell;

/// One recorded step, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Record {
    /// A challenge was squeezed.
    Challenge {
        /// The challenge operation's label.
        label: Vec<u8>,
        /// Every byte the transcript fed blake3 (key-derivation mode, context
        /// [`TRANSCRIPT_DOMAIN`](crate::transcript::TRANSCRIPT_DOMAIN)) up to and including
        /// the challenge operation's frame: the transcript state before the challenge.
        absorbed: Vec<u8>,
        /// The XOF output read: 32 ratchet bytes, then the challenge bytes (64 per scalar).
        output: Vec<u8>,
    },
    /// A prover RNG was forked ([`Transcript::witness_rng`](crate::Transcript::witness_rng)).
    ProverRng {
        /// The witness operation's label.
        label: Vec<u8>,
        /// The fork's whole hashed input: the transcript so far, the witness frame and the rng
        /// frame (its XOF output is the prover RNG's stream).
        absorbed: Vec<u8>,
        /// The 32 bytes drawn from the caller's RNG.
        entropy: [u8; 32],
    },
    /// Secret scalars drawn from a prover RNG, in order (canonical encodings).
    Scalars {
        /// What they are: `nonces`, `or-nonces`, `or-simulated-challenges`,
        /// `signature-nonce`; from other crates' provers (through
        /// [`TranscriptRng::draw_scalars`](crate::TranscriptRng::draw_scalars)) `shuffle-gamma`,
        /// `shuffle-nonces`, `simple-shuffle-nonces` and `encryption-randomness`.
        what: &'static str,
        /// The encodings.
        scalars: Vec<Vec<u8>>,
    },
}

thread_local! {
    static LOG: RefCell<Option<Vec<Record>>> = const { RefCell::new(None) };
}

/// Runs `f`, returning its result and everything recorded meanwhile on this thread (nested
/// calls record into the outermost).
pub fn record<T>(f: impl FnOnce() -> T) -> (T, Vec<Record>) {
    let outer = LOG.with(|l| l.borrow().is_some());
    if outer {
        return (f(), Vec::new());
    }
    LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
    let out = f();
    let records = LOG.with(|l| l.borrow_mut().take()).unwrap_or_default();
    (out, records)
}

/// Whether a recording is running on this thread.
pub(crate) fn active() -> bool {
    LOG.with(|l| l.borrow().is_some())
}

/// Appends a record to the running recording, if any.
pub(crate) fn push(r: Record) {
    LOG.with(|l| {
        if let Some(log) = l.borrow_mut().as_mut() {
            log.push(r);
        }
    });
}

/// Records scalars drawn from a prover RNG.
pub(crate) fn scalars<S: verdict_group::Scalar>(what: &'static str, s: &[S]) {
    if active() {
        push(Record::Scalars {
            what,
            scalars: s.iter().map(|x| x.to_bytes().as_ref().to_vec()).collect(),
        });
    }
}
