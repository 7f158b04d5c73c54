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

use verdict_group::{DecodeError, Group, Scalar};

use crate::error::WireError;
use crate::shuffle::ShuffleProof;
use crate::simple::SimpleShuffleProof;

/// A bounds-checked cursor over a message.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    pub(crate) fn take(&mut self, len: usize) -> Result<&'a [u8], WireError> {
        let rest = &self.bytes[self.pos..];
        if rest.len() < len {
            return Err(WireError::Truncated {
                offset: self.pos,
                needed: len - rest.len(),
            });
        }
        let out = &rest[..len];
        self.pos += len;
        Ok(out)
    }

    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    pub(crate) fn tag(&mut self, tag: &[u8; 4]) -> Result<(), WireError> {
        if self.take(4)? == tag {
            Ok(())
        } else {
            Err(WireError::BadTag)
        }
    }

    pub(crate) fn u32(&mut self) -> Result<u32, WireError> {
        let mut b = [0u8; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(b))
    }

    fn element_err(what: &'static str, offset: usize) -> impl Fn(DecodeError) -> WireError {
        move |source| WireError::Element {
            what,
            offset,
            source,
        }
    }

    pub(crate) fn point<G: Group>(&mut self, what: &'static str) -> Result<G, WireError> {
        let offset = self.pos;
        G::from_bytes(self.take(G::ENCODED_LEN)?).map_err(Self::element_err(what, offset))
    }

    pub(crate) fn point_nonidentity<G: Group>(
        &mut self,
        what: &'static str,
    ) -> Result<G, WireError> {
        let offset = self.pos;
        G::from_bytes_nonidentity(self.take(G::ENCODED_LEN)?)
            .map_err(Self::element_err(what, offset))
    }

    /// `n` points, returned with their encodings.
    pub(crate) fn points<G: Group>(
        &mut self,
        what: &'static str,
        n: usize,
    ) -> Result<(Vec<G>, &'a [u8]), WireError> {
        let start = self.pos;
        let len = n.checked_mul(G::ENCODED_LEN).ok_or(WireError::BadLength {
            len: n as u64,
            max: (usize::MAX / G::ENCODED_LEN) as u64,
        })?;
        let bytes = self.take(len)?;
        let pts = bytes
            .chunks_exact(G::ENCODED_LEN)
            .enumerate()
            .map(|(i, c)| {
                G::from_bytes(c).map_err(Self::element_err(what, start + i * G::ENCODED_LEN))
            })
            .collect::<Result<Vec<G>, _>>()?;
        Ok((pts, bytes))
    }

    pub(crate) fn scalar<S: Scalar>(&mut self, what: &'static str) -> Result<S, WireError> {
        let offset = self.pos;
        S::from_bytes(self.take(S::ENCODED_LEN)?).map_err(Self::element_err(what, offset))
    }

    pub(crate) fn scalars<S: Scalar>(
        &mut self,
        what: &'static str,
        n: usize,
    ) -> Result<Vec<S>, WireError> {
        (0..n).map(|_| self.scalar(what)).collect()
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let out = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        out
    }

    pub(crate) fn finish(self) -> Result<(), WireError> {
        let extra = self.bytes.len() - self.pos;
        if extra == 0 {
            Ok(())
        } else {
            Err(WireError::TrailingBytes { extra })
        }
    }
}

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
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, WireError> {
        let mut r = Reader::new(bytes);
        let p = Self::read_from(&mut r, n)?;
        r.finish()?;
        Ok(p)
    }

    pub(crate) fn read_from(r: &mut Reader<'_>, n: usize) -> Result<Self, WireError> {
        if n < 2 {
            return Err(WireError::BadLength {
                len: n as u64,
                max: u32::MAX as u64,
            });
        }
        let start = r.offset();
        let gamma = r.point_nonidentity::<G>("Γ")?;
        let (a, _) = r.points::<G>("A", n)?;
        let (c, _) = r.points::<G>("C", n)?;
        let (u, _) = r.points::<G>("U", n)?;
        let (w, _) = r.points::<G>("W", n)?;
        let lambda1 = r.point::<G>("Λ₁")?;
        let lambda2 = r.point::<G>("Λ₂")?;
        let first_len = r.offset() - start;
        let (d, d_enc) = r.points::<G>("D", n)?;
        let (theta, theta_enc) = r.points::<G>("Θ", 2 * n)?;
        let sigma = r.scalars("σ", n)?;
        let tau = r.scalar("τ")?;
        let alpha = r.scalars("α", 2 * n - 1)?;
        // Keep the first move's (validated) bytes: they are what the transcript absorbs.
        let first_enc = r.bytes[start..start + first_len].to_vec();
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
    pub fn from_bytes(bytes: &[u8], k: usize) -> Result<Self, WireError> {
        if k < 2 {
            return Err(WireError::BadLength {
                len: k as u64,
                max: u32::MAX as u64,
            });
        }
        let mut r = Reader::new(bytes);
        let (theta, theta_enc) = r.points::<G>("Θ", 2 * k)?;
        let alpha = r.scalars("α", 2 * k - 1)?;
        r.finish()?;
        Ok(Self {
            theta,
            theta_enc: theta_enc.to_vec(),
            alpha,
        })
    }
}
