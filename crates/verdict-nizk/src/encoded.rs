//! Group elements that remember their canonical encoding.
//!
//! Hashing a statement or a proof into a transcript needs canonical encodings, and encoding a
//! point is not free (ristretto255: one inverse square root, ≈3 µs — as much as a multi-scalar
//! multiplication term). Points that arrive over the wire already come with their encoding, and
//! points the prover computes are encoded once. [`Encoded`] carries both so that no point is
//! ever encoded twice.

use verdict_group::codec::{CodecError, Reader};
use verdict_group::{DecodeError, Group};
use zeroize::Zeroize;

/// A group element together with its canonical encoding.
///
/// Invariant: `bytes == point.to_bytes()`. It holds by construction: the only constructors
/// encode a point or decode (and validate) bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded<G: Group> {
    point: G,
    bytes: Box<[u8]>,
}

impl<G: Group> Encoded<G> {
    /// Encodes `point`.
    pub fn new(point: G) -> Self {
        Self {
            point,
            bytes: point.to_bytes().as_ref().into(),
        }
    }

    /// Encodes many points at once with [`Group::batch_to_bytes`].
    /// (In parallel chunks with the `parallel` feature; the encodings are canonical, so the
    /// split changes nothing but the time.)
    pub fn batch_new(points: &[G]) -> Vec<Self> {
        verdict_group::par::chunked(points, 16, G::batch_to_bytes)
            .concat()
            .iter()
            .zip(points)
            .map(|(r, p)| Self {
                point: *p,
                bytes: r.as_ref().into(),
            })
            .collect()
    }

    /// `sᵢ·G` for each scalar, multiplied and encoded in one batch
    /// ([`Group::mul_generator_encoded`]).
    pub fn mul_generator_batch(scalars: &[G::Scalar]) -> Vec<Self> {
        let (points, reprs) = verdict_group::par::mul_generator_encoded(scalars);
        Self::zip(points, reprs)
    }

    /// `s·Bᵢ` for each base, multiplied and encoded in one batch ([`Group::mul_each_encoded`]).
    pub fn mul_each(bases: &[G], s: &G::Scalar) -> Vec<Self> {
        let (points, reprs) = verdict_group::par::mul_each_encoded(bases, s);
        Self::zip(points, reprs)
    }

    /// `2·Pᵢ` for each point, doubled and encoded in one batch ([`Group::double_each_encoded`]).
    pub fn double_each(points: &[G]) -> Vec<Self> {
        let (points, reprs) = G::double_each_encoded(points);
        Self::zip(points, reprs)
    }

    /// Pairs points with the encodings a `Group` method computed for them.
    fn zip(points: Vec<G>, reprs: Vec<G::Repr>) -> Vec<Self> {
        points
            .into_iter()
            .zip(reprs)
            .map(|(point, r)| Self {
                point,
                bytes: r.as_ref().into(),
            })
            .collect()
    }

    /// Decodes and validates an encoding ([`Group::from_bytes`]; the identity is accepted).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self {
            point: G::from_bytes(bytes)?,
            bytes: bytes.into(),
        })
    }

    /// Decodes and validates an encoding, rejecting the identity
    /// ([`Group::from_bytes_nonidentity`]).
    pub fn from_bytes_nonidentity(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self {
            point: G::from_bytes_nonidentity(bytes)?,
            bytes: bytes.into(),
        })
    }

    /// Reads and validates the next encoding from `r` (see [`crate::wire::ReaderExt`]).
    pub(crate) fn read(r: &mut Reader<'_>, field: &'static str) -> Result<Self, CodecError> {
        let offset = r.offset();
        Self::from_bytes(r.raw(G::ENCODED_LEN)?).map_err(|source| CodecError::Invalid {
            field,
            offset,
            source,
        })
    }

    /// Reads and validates the next encoding from `r`, rejecting the identity.
    pub(crate) fn read_nonidentity(
        r: &mut Reader<'_>,
        field: &'static str,
    ) -> Result<Self, CodecError> {
        let offset = r.offset();
        Self::from_bytes_nonidentity(r.raw(G::ENCODED_LEN)?).map_err(|source| CodecError::Invalid {
            field,
            offset,
            source,
        })
    }

    /// The group's generator, encoded.
    pub fn generator() -> Self {
        Self::new(G::generator())
    }

    /// The element.
    pub fn point(&self) -> &G {
        &self.point
    }

    /// Its canonical encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Most encoded points are public, so `Encoded` does not wipe itself on drop; one that holds a
/// secret (a Diffie–Hellman value before it is hashed) is kept in a [`zeroize::Zeroizing`],
/// which wipes the point and its encoding.
impl<G: Group> Zeroize for Encoded<G> {
    fn zeroize(&mut self) {
        self.point.zeroize();
        self.bytes.zeroize();
    }
}

impl<G: Group> From<G> for Encoded<G> {
    fn from(point: G) -> Self {
        Self::new(point)
    }
}

impl<G: Group> From<&G> for Encoded<G> {
    fn from(point: &G) -> Self {
        Self::new(*point)
    }
}

impl<G: Group> From<&Encoded<G>> for Encoded<G> {
    fn from(e: &Encoded<G>) -> Self {
        e.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_group::Ristretto255 as G;

    /// A wiped `Encoded` holds neither the point nor its bytes (the identity's encoding of
    /// ristretto255 is all zeros, so both fields end up equal to the identity's).
    #[test]
    fn zeroize_wipes_point_and_bytes() {
        let mut e = Encoded::new(G::generator().double());
        assert!(e.as_bytes().iter().any(|&b| b != 0));
        e.zeroize();
        assert!(e.as_bytes().iter().all(|&b| b == 0));
        assert_eq!(
            e.as_bytes().len(),
            32,
            "the length is kept, only the bytes are wiped"
        );
        assert!(e.point().is_identity());
    }
}
