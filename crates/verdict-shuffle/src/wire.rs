//! Wire formats with validating decoders.
//!
//! All integers are little-endian; points and scalars use the group's canonical encodings.
//! Every decoder validates every point (`Group::from_bytes`, which checks canonical form and
//! subgroup membership), rejects the identity where it is not a valid value (`Γ`), checks every
//! count against the count the caller expects, and rejects trailing bytes. No decoder panics.
//!
//! | message | layout |
//! |---|---|
//! | [`ShuffleProof`] for `n` | `Γ ‖ A[n] ‖ C[n] ‖ U[n] ‖ W[n] ‖ Λ₁ ‖ Λ₂ ‖ D[n] ‖ Θ[2n] ‖ σ[n] ‖ τ ‖ α[2n−1]` |
//! | [`CiphertextList`](crate::CiphertextList) | `X₁ ‖ Y₁ ‖ … ‖ X_n ‖ Y_n` |

use verdict_group::codec::Reader;
use verdict_group::{Group, Scalar};

use crate::error::ShuffleDecodeError;
use crate::shuffle::ShuffleProof;
use crate::simple::SimpleShuffleProof;

impl<G: Group> ShuffleProof<G> {
    /// Length in bytes of the encoding of a proof for `n` elements.
    pub const fn encoded_len(n: usize) -> usize {
        Self::point_count(n) * G::ENCODED_LEN + Self::scalar_count(n) * G::Scalar::ENCODED_LEN
    }

    /// Appends the canonical encoding (see [`crate::wire`]).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.first_enc);
        out.extend_from_slice(&self.d_enc);
        out.extend_from_slice(&self.simple.theta_enc);
        for s in &self.sigma {
            out.extend_from_slice(s.to_bytes().as_ref());
        }
        out.extend_from_slice(self.tau.to_bytes().as_ref());
        for s in &self.simple.alpha {
            out.extend_from_slice(s.to_bytes().as_ref());
        }
    }

    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::encoded_len(self.len()));
        self.write_to(&mut out);
        out
    }

    /// Decodes a proof for exactly `n` elements (`n ≥ 2`), validating every point and
    /// scalar, rejecting `Γ = identity` and trailing bytes.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, ShuffleDecodeError> {
        let mut r = Reader::new(bytes);
        let p = Self::read_from(&mut r, n)?;
        r.finish()?;
        Ok(p)
    }

    pub(crate) fn read_from(r: &mut Reader<'_>, n: usize) -> Result<Self, ShuffleDecodeError> {
        if n < 2 {
            return Err(ShuffleDecodeError::BadLength {
                len: n as u64,
                max: u32::MAX as u64,
            });
        }
        let start = r.offset();
        let gamma = r.point_nonidentity::<G>("Γ")?;
        let a = r.points::<G>("A", n)?;
        let c = r.points::<G>("C", n)?;
        let u = r.points::<G>("U", n)?;
        let w = r.points::<G>("W", n)?;
        let lambda1 = r.point::<G>("Λ₁")?;
        let lambda2 = r.point::<G>("Λ₂")?;
        let first_enc = r.since(start).to_vec();
        let (d, d_enc) = r.points_with_bytes::<G>("D", n)?;
        let (theta, theta_enc) = r.points_with_bytes::<G>("Θ", 2 * n)?;
        let sigma = r.scalars("σ", n)?;
        let tau = r.scalar("τ")?;
        let alpha = r.scalars("α", 2 * n - 1)?;
        Ok(Self {
            gamma,
            a,
            c,
            u,
            w,
            lambda1,
            lambda2,
            d,
            first_enc,
            d_enc: d_enc.to_vec(),
            sigma,
            tau,
            simple: SimpleShuffleProof {
                theta,
                theta_enc: theta_enc.to_vec(),
                alpha,
            },
        })
    }
}

impl<G: Group> SimpleShuffleProof<G> {
    /// The canonical encoding `Θ[2k] ‖ α[2k−1]`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.theta_enc.clone();
        for s in &self.alpha {
            out.extend_from_slice(s.to_bytes().as_ref());
        }
        out
    }

    /// Decodes a simple-shuffle proof for exactly `k ≥ 2` elements.
    pub fn from_bytes(bytes: &[u8], k: usize) -> Result<Self, ShuffleDecodeError> {
        if k < 2 {
            return Err(ShuffleDecodeError::BadLength {
                len: k as u64,
                max: u32::MAX as u64,
            });
        }
        let mut r = Reader::new(bytes);
        let (theta, theta_enc) = r.points_with_bytes::<G>("Θ", 2 * k)?;
        let alpha = r.scalars("α", 2 * k - 1)?;
        r.finish()?;
        Ok(Self {
            theta,
            theta_enc: theta_enc.to_vec(),
            alpha,
        })
    }
}
