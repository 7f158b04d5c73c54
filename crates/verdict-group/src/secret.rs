//! Secret scalars that are wiped from memory when dropped.

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::traits::Scalar;

/// A secret scalar (a private key, a nonce, a DH-derived secret) that zeroizes on drop.
///
/// [`Scalar`] types are `Copy` so that arithmetic stays ergonomic; every copy made through
/// [`SecretScalar::expose`] is the caller's to keep short-lived. This wrapper is not `Copy`,
/// redacts itself in `Debug`, and clears its memory when dropped.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretScalar<S: Scalar>(S);

impl<S: Scalar> SecretScalar<S> {
    /// Wraps a scalar.
    pub fn new(s: S) -> Self {
        Self(s)
    }
    /// A uniformly random secret.
    pub fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self(S::random(rng))
    }
    /// The secret value. Keep the returned copy short-lived.
    pub fn expose(&self) -> &S {
        &self.0
    }
}

impl<S: Scalar> Zeroize for SecretScalar<S> {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl<S: Scalar> Drop for SecretScalar<S> {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl<S: Scalar> ZeroizeOnDrop for SecretScalar<S> {}

impl<S: Scalar> fmt::Debug for SecretScalar<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretScalar(<redacted>)")
    }
}
