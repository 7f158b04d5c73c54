//! Reading this crate's types with the shared codec ([`verdict_group::codec::Reader`]):
//! encoded points (which keep the bytes they were read from, for transcripts) and proofs of a
//! known [`Shape`].
//!
//! The crates above (the DC-net suites, the shuffles) decode ciphertexts that embed proofs
//! with the same reader and [`ReaderExt`], so a proof inside a ciphertext is validated exactly
//! like a proof on its own.

use verdict_group::Group;
use verdict_group::codec::{CodecError, Reader};

use crate::encoded::Encoded;
use crate::relation::{Proof, Shape};

/// [`Reader`] methods for [`Encoded`] points and [`Proof`]s.
pub trait ReaderExt<'a> {
    /// A validated point with its encoding (the identity is accepted: it is a group element).
    fn encoded<G: Group>(&mut self, field: &'static str) -> Result<Encoded<G>, CodecError>;
    /// A validated point other than the identity, with its encoding.
    fn encoded_nonidentity<G: Group>(
        &mut self,
        field: &'static str,
    ) -> Result<Encoded<G>, CodecError>;
    /// `n` validated points with their encodings, read in order: the first missing or invalid
    /// one is the error.
    fn encoded_list<G: Group>(
        &mut self,
        field: &'static str,
        n: usize,
    ) -> Result<Vec<Encoded<G>>, CodecError>;
    /// A proof of `shape`: its commitments in `G`, then in `H`, then its responses, each
    /// validated.
    fn proof<G: Group, H: Group<Scalar = G::Scalar>>(
        &mut self,
        shape: Shape,
    ) -> Result<Proof<G, H>, CodecError>;
}

impl<'a> ReaderExt<'a> for Reader<'a> {
    fn encoded<G: Group>(&mut self, field: &'static str) -> Result<Encoded<G>, CodecError> {
        Encoded::read(self, field)
    }

    fn encoded_nonidentity<G: Group>(
        &mut self,
        field: &'static str,
    ) -> Result<Encoded<G>, CodecError> {
        Encoded::read_nonidentity(self, field)
    }

    fn encoded_list<G: Group>(
        &mut self,
        field: &'static str,
        n: usize,
    ) -> Result<Vec<Encoded<G>>, CodecError> {
        // Reserves no more than the input holds, whatever `n` the caller passes; long lists
        // decode in parallel, with the error of reading one by one.
        self.decode_items(n, G::ENCODED_LEN, |offset, item| {
            Encoded::from_bytes(item).map_err(|source| CodecError::Invalid {
                field,
                offset,
                source,
            })
        })
    }

    fn proof<G: Group, H: Group<Scalar = G::Scalar>>(
        &mut self,
        shape: Shape,
    ) -> Result<Proof<G, H>, CodecError> {
        Proof::read_from(self, shape)
    }
}
