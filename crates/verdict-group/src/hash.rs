//! Domain-separated hashing with blake3: the XOF every group uses, and hashing to scalars.
//!
//! Inputs are framed as `len(dst) ‖ dst ‖ len(msg) ‖ msg` (lengths as 8-byte little-endian
//! integers) under blake3's key-derivation mode with a context string fixed for this crate, so
//! no two distinct `(dst, msg)` pairs hash the same input and nothing here collides with other
//! blake3 users.

use zeroize::{Zeroize, Zeroizing};

use crate::traits::Scalar;

/// The blake3 key-derivation context for every hash in this crate.
const CONTEXT: &str = "verdict-group v1 domain-separated hash";

/// A blake3 XOF reader over the framed `(dst, msg)`.
///
/// `msg` may be secret (a pairwise DH value hashed to a scalar), so the hasher, which keeps the
/// last partial block of input, is wiped before returning. The reader holds the output state;
/// a caller hashing a secret wipes it too (`OutputReader` implements `Zeroize`).
pub fn xof(dst: &[u8], msg: &[u8]) -> blake3::OutputReader {
    let mut h = blake3::Hasher::new_derive_key(CONTEXT);
    h.update(&(dst.len() as u64).to_le_bytes());
    h.update(dst);
    h.update(&(msg.len() as u64).to_le_bytes());
    h.update(msg);
    let reader = h.finalize_xof();
    h.zeroize();
    reader
}

/// 64 uniform bytes derived from `(dst, msg)`; the reader that produced them is wiped.
pub fn uniform_bytes(dst: &[u8], msg: &[u8]) -> [u8; 64] {
    let mut out = [0u8; 64];
    let mut reader = xof(dst, msg);
    reader.fill(&mut out);
    reader.zeroize();
    out
}

/// Hashes `(dst, msg)` to a uniformly distributed scalar by wide reduction of 64 bytes.
///
/// The 64 intermediate bytes determine the scalar, which may be secret (a pairwise `s_ij`),
/// so they are wiped after the reduction.
pub fn hash_to_scalar<S: Scalar>(dst: &[u8], msg: &[u8]) -> S {
    let wide = Zeroizing::new(uniform_bytes(dst, msg));
    S::from_uniform_bytes(&wide)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_separates_dst_and_msg() {
        // Without length framing, ("ab", "c") and ("a", "bc") would hash identically.
        assert_ne!(uniform_bytes(b"ab", b"c"), uniform_bytes(b"a", b"bc"));
        assert_ne!(uniform_bytes(b"", b"x"), uniform_bytes(b"x", b""));
        assert_eq!(uniform_bytes(b"d", b"m"), uniform_bytes(b"d", b"m"));
    }
}
