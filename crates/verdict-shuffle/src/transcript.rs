//! The Fiat–Shamir seam: the few transcript operations the shuffle proofs need.
//!
//! Temporary: this wraps a minimal blake3 transcript until `verdict-nizk`'s `Transcript` is
//! merged, at which point the struct below becomes a thin wrapper over it. Every proof in this
//! crate talks to the transcript only through [`Transcript`]'s methods, so the swap does not
//! touch the protocol code.

use verdict_group::{Group, Scalar};

/// Key-derivation context of the temporary transcript.
const CONTEXT: &str = "verdict-shuffle v1 transcript (temporary seam)";

/// A running Fiat–Shamir transcript: absorbs labelled messages, squeezes labelled challenges.
///
/// Every absorb is framed as `len(label) ‖ label ‖ len(msg) ‖ msg` so distinct sequences of
/// operations never hash the same input; every challenge is absorbed back (ratchet) so two
/// challenges with the same label differ.
#[derive(Clone)]
pub(crate) struct Transcript {
    state: blake3::Hasher,
}

impl Transcript {
    /// A transcript for the protocol named by `label`.
    pub(crate) fn new(label: &'static [u8]) -> Self {
        let mut t = Self {
            state: blake3::Hasher::new_derive_key(CONTEXT),
        };
        t.append_message(b"dom-sep", label);
        t
    }

    fn frame(&mut self, op: u8, label: &[u8], msg: &[u8]) {
        self.state.update(&[op]);
        self.state.update(&(label.len() as u64).to_le_bytes());
        self.state.update(label);
        self.state.update(&(msg.len() as u64).to_le_bytes());
        self.state.update(msg);
    }

    /// Absorbs a byte string.
    pub(crate) fn append_message(&mut self, label: &'static [u8], msg: &[u8]) {
        self.frame(0, label, msg);
    }

    /// Absorbs an integer.
    pub(crate) fn append_u64(&mut self, label: &'static [u8], v: u64) {
        self.frame(0, label, &v.to_le_bytes());
    }

    /// Absorbs one group element (canonical encoding).
    pub(crate) fn append_point<G: Group>(&mut self, label: &'static [u8], p: &G) {
        self.frame(0, label, p.to_bytes().as_ref());
    }

    /// Absorbs a list of group elements, with its length.
    pub(crate) fn append_points<G: Group>(&mut self, label: &'static [u8], ps: &[G]) {
        self.append_u64(label, ps.len() as u64);
        for enc in G::batch_to_bytes(ps) {
            self.state.update(enc.as_ref());
        }
    }

    /// Absorbs one scalar.
    pub(crate) fn append_scalar<S: Scalar>(&mut self, label: &'static [u8], s: &S) {
        self.frame(0, label, s.to_bytes().as_ref());
    }

    /// Absorbs a list of scalars, with its length.
    pub(crate) fn append_scalars<S: Scalar>(&mut self, label: &'static [u8], ss: &[S]) {
        self.append_u64(label, ss.len() as u64);
        for s in ss {
            self.state.update(s.to_bytes().as_ref());
        }
    }

    /// Fills `out` with challenge bytes bound to everything absorbed so far, then absorbs them.
    pub(crate) fn challenge_bytes(&mut self, label: &'static [u8], out: &mut [u8]) {
        let mut h = self.state.clone();
        h.update(&[1u8]);
        h.update(&(label.len() as u64).to_le_bytes());
        h.update(label);
        h.update(&(out.len() as u64).to_le_bytes());
        h.finalize_xof().fill(out);
        self.frame(2, label, out);
    }

    /// A uniformly distributed challenge scalar.
    pub(crate) fn challenge_scalar<G: Group>(&mut self, label: &'static [u8]) -> G::Scalar {
        let mut wide = [0u8; 64];
        self.challenge_bytes(label, &mut wide);
        G::Scalar::from_uniform_bytes(&wide)
    }
}

/// `n` uniformly distributed challenge scalars from one squeeze.
pub(crate) fn challenge_scalars<G: Group>(
    t: &mut Transcript,
    label: &'static [u8],
    n: usize,
) -> Vec<G::Scalar> {
    let mut bytes = vec![0u8; 64 * n];
    t.challenge_bytes(label, &mut bytes);
    bytes
        .chunks_exact(64)
        .map(|c| {
            let mut wide = [0u8; 64];
            wide.copy_from_slice(c);
            G::Scalar::from_uniform_bytes(&wide)
        })
        .collect()
}

/// `n` challenge scalars below `2^128` (random weights for batch verification).
pub(crate) fn challenge_weights<G: Group>(
    t: &mut Transcript,
    label: &'static [u8],
    n: usize,
) -> Vec<G::Scalar> {
    let mut bytes = vec![0u8; 16 * n];
    t.challenge_bytes(label, &mut bytes);
    let two32 = G::Scalar::from_u64(1 << 32);
    let two64 = two32 * two32;
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut lo = [0u8; 8];
            let mut hi = [0u8; 8];
            lo.copy_from_slice(&c[..8]);
            hi.copy_from_slice(&c[8..]);
            G::Scalar::from_u64(u64::from_le_bytes(hi)) * two64
                + G::Scalar::from_u64(u64::from_le_bytes(lo))
        })
        .collect()
}
