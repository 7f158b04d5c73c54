//! Canonical byte layouts: a bounds-checked reader that validates every field.

use verdict_group::{Group, Scalar};

use crate::encoded::Encoded;
use crate::error::DecodeError;

/// Reads fixed-size fields from untrusted bytes; never panics.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.buf.len() < n {
            return Err(DecodeError::Truncated {
                needed: n,
                available: self.buf.len(),
            });
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    pub(crate) fn point<G: Group>(
        &mut self,
        field: &'static str,
    ) -> Result<Encoded<G>, DecodeError> {
        Encoded::from_bytes(self.take(G::ENCODED_LEN)?)
            .map_err(|source| DecodeError::Field { field, source })
    }

    pub(crate) fn point_nonidentity<G: Group>(
        &mut self,
        field: &'static str,
    ) -> Result<Encoded<G>, DecodeError> {
        Encoded::from_bytes_nonidentity(self.take(G::ENCODED_LEN)?)
            .map_err(|source| DecodeError::Field { field, source })
    }

    pub(crate) fn scalar<S: Scalar>(&mut self, field: &'static str) -> Result<S, DecodeError> {
        S::from_bytes(self.take(S::ENCODED_LEN)?)
            .map_err(|source| DecodeError::Field { field, source })
    }

    pub(crate) fn finish(self) -> Result<(), DecodeError> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                extra: self.buf.len(),
            })
        }
    }
}
