//! ElGamal over any prime-order [`Group`], written additively.
//!
//! A ciphertext of a message element `M` under public key `h = s·g` is the pair
//! `(X, Y) = (r·g, r·h + M)` (Neff's `(g^r, h^r·m)`); it decrypts to `Y − s·X`.
//! Re-randomization adds an encryption of the identity: `(X + β·g, Y + β·h)`.
//! With `M` servers holding `sᵢ`, the joint key is `h = Σ sᵢ·g` (no threshold: every server
//! must contribute its decryption share `sᵢ·X`).

use rand_core::{CryptoRng, RngCore};
use verdict_group::{FixedBaseTable, Group, Scalar, SecretScalar};

/// An ElGamal ciphertext `(X, Y) = (r·g, r·h + M)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ciphertext<G: Group> {
    /// `X = r·g`.
    pub x: G,
    /// `Y = r·h + M`.
    pub y: G,
}

impl<G: Group> Ciphertext<G> {
    /// Encrypts `m` under `h` with the given randomness `r`.
    pub fn encrypt_with(h: &G, m: &G, r: &G::Scalar) -> Self {
        Self {
            x: G::mul_generator(r),
            y: *h * r + *m,
        }
    }

    /// Encrypts `m` under `h` with fresh randomness, which is returned (it is the witness for
    /// a proof of knowledge of the plaintext).
    pub fn encrypt<R: RngCore + CryptoRng + ?Sized>(
        h: &G,
        m: &G,
        rng: &mut R,
    ) -> (Self, SecretScalar<G::Scalar>) {
        let r = SecretScalar::random(rng);
        (Self::encrypt_with(h, m, r.expose()), r)
    }

    /// The re-encryption `(X + β·g, Y + β·h)` of the same plaintext.
    pub fn rerandomize(&self, h: &G, beta: &G::Scalar) -> Self {
        Self {
            x: self.x + G::mul_generator(beta),
            y: self.y + *h * beta,
        }
    }

    /// As [`Ciphertext::rerandomize`], with a precomputed table for `h`.
    pub fn rerandomize_table(&self, h: &G::Table, beta: &G::Scalar) -> Self {
        Self {
            x: self.x + G::mul_generator(beta),
            y: self.y + h.mul(beta),
        }
    }

    /// Decrypts with the full secret key `s` (`h = s·g`): `Y − s·X`.
    pub fn decrypt(&self, s: &SecretScalar<G::Scalar>) -> G {
        self.y - self.x * s.expose()
    }

    /// This ciphertext scaled by `e` in both components (decrypts to `e·M`).
    pub fn scale(&self, e: &G::Scalar) -> Self {
        Self {
            x: self.x * e,
            y: self.y * e,
        }
    }
}

/// A list of ciphertexts together with their canonical encoding `X₁‖Y₁‖X₂‖Y₂‖…`.
///
/// Hashing a shuffle statement needs the encodings, and encoding a point costs about as much
/// as a multi-scalar-multiplication term; lists that arrive over the wire keep the bytes they
/// were decoded from, and lists made locally are encoded once. Invariant (by construction):
/// `bytes` is the canonical encoding of `cts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiphertextList<G: Group> {
    cts: Vec<Ciphertext<G>>,
    bytes: Vec<u8>,
}

impl<G: Group> CiphertextList<G> {
    /// Encodes `cts`.
    pub fn new(cts: Vec<Ciphertext<G>>) -> Self {
        let flat: Vec<G> = cts.iter().flat_map(|c| [c.x, c.y]).collect();
        let bytes = crate::util::encode_flat(&flat);
        Self { cts, bytes }
    }

    /// Decodes and validates `n` ciphertexts (exactly `2·n·G::ENCODED_LEN` bytes; every point
    /// must be a valid group element; the identity is allowed).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, crate::ShuffleDecodeError> {
        let len = G::ENCODED_LEN;
        if bytes.len() % (2 * len) != 0 {
            return Err(crate::ShuffleDecodeError::Truncated {
                offset: bytes.len() - bytes.len() % (2 * len),
                needed: 2 * len - bytes.len() % (2 * len),
            });
        }
        // Two square roots per ciphertext, thousands of ciphertexts per shuffle step: decoded
        // in parallel with the `parallel` feature (the first invalid element is still named).
        let cts = verdict_group::par::try_decode_items(
            bytes,
            2 * len,
            verdict_group::par::POINTS_PER_TASK / 2,
            |i, pair| {
                let point = |j: usize| {
                    G::from_bytes(pair.get(j * len..(j + 1) * len).unwrap_or_default()).map_err(
                        |source| crate::ShuffleDecodeError::Element {
                            what: "ciphertext",
                            offset: (2 * i + j) * len,
                            source,
                        },
                    )
                };
                Ok::<_, crate::ShuffleDecodeError>(Ciphertext {
                    x: point(0)?,
                    y: point(1)?,
                })
            },
        )?;
        Ok(Self {
            cts,
            bytes: bytes.to_vec(),
        })
    }

    /// The ciphertexts.
    pub fn as_slice(&self) -> &[Ciphertext<G>] {
        &self.cts
    }

    /// The canonical encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Number of ciphertexts.
    pub fn len(&self) -> usize {
        self.cts.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.cts.is_empty()
    }

    /// The ciphertexts, consuming the list.
    pub fn into_vec(self) -> Vec<Ciphertext<G>> {
        self.cts
    }
}

impl<G: Group> core::ops::Deref for CiphertextList<G> {
    type Target = [Ciphertext<G>];
    fn deref(&self) -> &[Ciphertext<G>] {
        &self.cts
    }
}

/// A server's ElGamal key pair; the secret is zeroized on drop.
#[derive(Debug, Clone)]
pub struct KeyPair<G: Group> {
    secret: SecretScalar<G::Scalar>,
    public: G,
}

impl<G: Group> KeyPair<G> {
    /// A fresh key pair (the secret is never zero).
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        loop {
            let secret = SecretScalar::<G::Scalar>::random(rng);
            if !secret.expose().is_zero() {
                return Self::from_secret(secret);
            }
        }
    }

    /// The key pair for a given secret.
    pub fn from_secret(secret: SecretScalar<G::Scalar>) -> Self {
        let public = G::mul_generator(secret.expose());
        Self { secret, public }
    }

    /// The public key `s·g`.
    pub fn public(&self) -> G {
        self.public
    }

    /// The secret key.
    pub fn secret(&self) -> &SecretScalar<G::Scalar> {
        &self.secret
    }
}

/// The joint public key `Σ hᵢ` of all servers: decryption needs every server's share.
///
/// Rogue-key attacks (a server choosing `h_M = s·g − Σ_{i<M} hᵢ`) are prevented by the roster,
/// where each key is registered with a proof of knowledge of its secret.
pub fn joint_key<G: Group>(keys: &[G]) -> G {
    keys.iter().copied().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use verdict_group::Ristretto255 as G;

    #[test]
    fn encrypt_rerandomize_decrypt() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let kps: Vec<KeyPair<G>> = (0..3).map(|_| KeyPair::generate(&mut rng)).collect();
        let h = joint_key(&kps.iter().map(KeyPair::public).collect::<Vec<_>>());
        let s = SecretScalar::new(kps.iter().map(|k| *k.secret().expose()).sum());
        let m = G::random(&mut rng);
        let (ct, _) = Ciphertext::encrypt(&h, &m, &mut rng);
        assert_eq!(ct.decrypt(&s), m);
        let beta = <G as Group>::Scalar::random(&mut rng);
        let ct2 = ct.rerandomize(&h, &beta);
        assert_ne!(ct2, ct);
        assert_eq!(ct2.decrypt(&s), m);
        assert_eq!(ct.rerandomize_table(&h.precompute(), &beta), ct2);
        // Partial decryption with one server's key leaves the others' layers on.
        let partial = ct.decrypt(kps[0].secret());
        assert_ne!(partial, m);
    }
}
