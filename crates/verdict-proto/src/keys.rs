//! Long-term keys: one key per use, all derived from one secret seed.
//!
//! A member uses long-term secrets for four unrelated jobs: signing protocol messages, the
//! Diffie–Hellman secrets of the verifiable DC-net (hashing-generator pairwise secrets, ElGamal
//! decryption, pairing pads), those of the XOR DC-net (hybrid mode), and — for servers — the
//! decryption of the pseudonym shuffle. Each job hands an adversary a different interface to the
//! secret: an ElGamal server multiplies its secret with points clients choose, a blame rebuttal
//! publishes a DH value, the shuffle publishes decryption shares. With one key for everything,
//! one interface becomes an oracle for another (the review's example: an ElGamal DC-net server's
//! `−z·ΣR` over a client-chosen `R = X_c` yields the shuffle decryption share of client `c`'s
//! pseudonym submission, and with it `c`'s slot). So every use has its own key.
//!
//! The four secrets are derived from one 32-byte seed (the only thing a member stores), with a
//! key-derivation context per use: knowing any subset of the derived secrets reveals nothing
//! about the others or the seed. Each public key is registered in the roster separately, with a
//! proof of knowledge bound to its use ([`crate::Member`]).

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use verdict_group::{Group, Scalar, SecretScalar};
use verdict_nizk::{SigningKey, VerifyingKey};
use zeroize::Zeroizing;

use crate::error::ConfigError;

const DERIVATION_CONTEXT: &str = "verdict-proto long-term key derivation v1";

/// What a long-term key is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyUse {
    /// Signing protocol envelopes (the identity every message is checked against).
    Signing,
    /// Diffie–Hellman secrets of the session's verifiable DC-net suite.
    DcNet,
    /// Diffie–Hellman secrets of the XOR DC-net (hybrid mode; its pad bits can be revealed in a
    /// blame rebuttal without touching the verifiable suite's secrets).
    Xor,
    /// Decryption of the pseudonym shuffle (servers).
    Shuffle,
}

impl KeyUse {
    /// Every use, in canonical order.
    pub const ALL: [KeyUse; 4] = [Self::Signing, Self::DcNet, Self::Xor, Self::Shuffle];

    /// The label bound into the key derivation and the registration proof.
    pub fn label(self) -> &'static [u8] {
        match self {
            Self::Signing => b"signing",
            Self::DcNet => b"dcnet",
            Self::Xor => b"xor",
            Self::Shuffle => b"shuffle",
        }
    }
}

/// A member's long-term secret keys, one per [`KeyUse`], derived from one seed (zeroized on
/// drop; `Debug` shows the public keys only).
pub struct SecretKeys<G: Group> {
    seed: Zeroizing<[u8; 32]>,
    signing: SigningKey<G>,
    dcnet: SigningKey<G>,
    xor: SigningKey<G>,
    shuffle: SigningKey<G>,
}

impl<G: Group> Clone for SecretKeys<G> {
    fn clone(&self) -> Self {
        Self {
            seed: self.seed.clone(),
            signing: self.signing.clone(),
            dcnet: self.dcnet.clone(),
            xor: self.xor.clone(),
            shuffle: self.shuffle.clone(),
        }
    }
}

impl<G: Group> fmt::Debug for SecretKeys<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKeys")
            .field("signing", self.signing.verifying_key())
            .finish_non_exhaustive()
    }
}

/// The key for `use_`: blake3 in key-derivation mode over `seed ‖ label`, 64 output bytes
/// reduced to a scalar (bias below 2^-128).
fn derive<G: Group>(seed: &[u8; 32], use_: KeyUse) -> Option<SigningKey<G>> {
    let mut h = blake3::Hasher::new_derive_key(DERIVATION_CONTEXT);
    h.update(seed);
    h.update(use_.label());
    let mut wide = Zeroizing::new([0u8; 64]);
    h.finalize_xof().fill(wide.as_mut());
    let s = SecretScalar::new(G::Scalar::from_uniform_bytes(&wide));
    if s.expose().is_zero() {
        return None;
    }
    SigningKey::from_secret(s)
}

impl<G: Group> SecretKeys<G> {
    /// Fresh keys from a random seed.
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        loop {
            let mut seed = Zeroizing::new([0u8; 32]);
            rng.fill_bytes(seed.as_mut());
            // A seed deriving a zero scalar has probability ~2^-250; draw again.
            if let Ok(keys) = Self::from_seed(&seed) {
                return keys;
            }
        }
    }

    /// The keys derived from `seed` (what a key file stores).
    pub fn from_seed(seed: &[u8; 32]) -> Result<Self, ConfigError> {
        let bad = ConfigError::Policy("key seed derives a zero scalar");
        Ok(Self {
            seed: Zeroizing::new(*seed),
            signing: derive(seed, KeyUse::Signing).ok_or(bad.clone())?,
            dcnet: derive(seed, KeyUse::DcNet).ok_or(bad.clone())?,
            xor: derive(seed, KeyUse::Xor).ok_or(bad.clone())?,
            shuffle: derive(seed, KeyUse::Shuffle).ok_or(bad)?,
        })
    }

    /// The seed (to write a key file; handle as a secret).
    pub fn seed(&self) -> &[u8; 32] {
        &self.seed
    }

    /// The key for `use_`.
    pub fn key(&self, use_: KeyUse) -> &SigningKey<G> {
        match use_ {
            KeyUse::Signing => &self.signing,
            KeyUse::DcNet => &self.dcnet,
            KeyUse::Xor => &self.xor,
            KeyUse::Shuffle => &self.shuffle,
        }
    }

    /// The envelope-signing key.
    pub fn signing(&self) -> &SigningKey<G> {
        &self.signing
    }

    /// The verifiable DC-net key.
    pub fn dcnet(&self) -> &SigningKey<G> {
        &self.dcnet
    }

    /// The XOR DC-net key.
    pub fn xor(&self) -> &SigningKey<G> {
        &self.xor
    }

    /// The pseudonym-shuffle decryption key (servers).
    pub fn shuffle(&self) -> &SigningKey<G> {
        &self.shuffle
    }

    /// The public key for `use_`.
    pub fn public(&self, use_: KeyUse) -> &VerifyingKey<G> {
        self.key(use_).verifying_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_group::Ristretto255;

    #[test]
    fn every_use_gets_its_own_key_and_the_seed_determines_them() {
        let keys = SecretKeys::<Ristretto255>::generate(&mut ChaCha20Rng::seed_from_u64(1));
        let publics: Vec<_> = KeyUse::ALL
            .iter()
            .map(|u| keys.public(*u).clone())
            .collect();
        for (i, a) in publics.iter().enumerate() {
            for b in &publics[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let again = SecretKeys::<Ristretto255>::from_seed(keys.seed()).unwrap();
        for u in KeyUse::ALL {
            assert_eq!(keys.public(u), again.public(u));
        }
        let other = SecretKeys::<Ristretto255>::from_seed(&[7; 32]).unwrap();
        assert_ne!(other.public(KeyUse::Signing), keys.public(KeyUse::Signing));
        assert!(!format!("{keys:?}").contains(&format!("{:?}", keys.seed())));
    }
}
