//! Fiat–Shamir helpers on top of `verdict-nizk`'s [`Transcript`].

use verdict_group::{Group, Scalar};
pub(crate) use verdict_nizk::{Transcript, TranscriptRng};

/// Absorbs a list of scalars as one framed message (the count is implied by the length).
pub(crate) fn append_scalars<S: Scalar>(t: &mut Transcript, label: &'static [u8], ss: &[S]) {
    let reprs: Vec<S::Repr> = ss.iter().map(Scalar::to_bytes).collect();
    let parts: Vec<&[u8]> = reprs.iter().map(AsRef::as_ref).collect();
    t.append_message_parts(label, &parts);
}

/// `n` challenge scalars below `2^128` (random weights for batch verification).
///
/// Not the same bytes as `verdict_nizk::Transcript::challenge_weights`: this one is one
/// `challenge_bytes` of `16·n` bytes (its frame carries the byte count, spec/shuffle.md), that
/// one frames the weight count. Each is fixed by its specification; do not merge them.
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
