//! Schnorr signatures for protocol messages, and key registration (proof of knowledge of the
//! secret key, bound to a context — the rogue-key defence).

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::Reader;
use verdict_group::{Group, Scalar, SecretScalar};
use zeroize::Zeroize;

use crate::batch::{BatchItem, BatchVerifier};
use crate::context::Context;
use crate::encoded::Encoded;
use crate::error::{DecodeError, VerifyError};
use crate::relation::{Check, Pending, Proof, Statement};
use crate::statements::Schnorr;
use crate::transcript::Transcript;

/// Protocol label of signature transcripts.
const SIGNATURE_PROTOCOL: &[u8] = b"verdict-nizk schnorr signature v1";
/// Label binding key-registration proofs (in addition to the caller's context).
const REGISTRATION_LABEL: &[u8] = b"verdict-nizk key registration v1";

/// A public key `Y = y·G` (never the identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey<G: Group> {
    point: Encoded<G>,
}

impl<G: Group> VerifyingKey<G> {
    /// Wraps a public point; `None` for the identity.
    pub fn from_point(point: G) -> Option<Self> {
        if point.is_identity() {
            None
        } else {
            Some(Self {
                point: Encoded::new(point),
            })
        }
    }
    /// The key `point`, already encoded; `None` for the identity, as [`Self::from_point`].
    pub fn from_encoded(point: Encoded<G>) -> Option<Self> {
        if point.point().is_identity() {
            None
        } else {
            Some(Self { point })
        }
    }
    /// The public point.
    pub fn point(&self) -> &G {
        self.point.point()
    }
    /// The public point with its encoding.
    pub fn encoded(&self) -> &Encoded<G> {
        &self.point
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.point.as_bytes().to_vec()
    }
    /// Decodes and validates a public key (rejects the identity and trailing bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let point = Encoded::read_nonidentity(&mut r, "public key")?;
        r.finish()?;
        Ok(Self { point })
    }

    fn transcript(&self, domain: &'static [u8], message: &[u8]) -> Transcript {
        let mut t = Transcript::new(SIGNATURE_PROTOCOL);
        t.append_message(b"domain", domain);
        t.append_message(b"group", G::NAME.as_bytes());
        t.append_encoded(b"public-key", core::slice::from_ref(&self.point));
        t.append_message(b"message", message);
        t
    }

    fn challenge(&self, domain: &'static [u8], message: &[u8], sig: &Signature<G>) -> G::Scalar {
        let mut t = self.transcript(domain, message);
        t.append_encoded(b"nonce-commitment", core::slice::from_ref(&sig.r));
        t.challenge_scalar::<G>(b"challenge")
    }

    /// Verifies a signature on `message` under the domain label `domain`.
    pub fn verify(
        &self,
        domain: &'static [u8],
        message: &[u8],
        signature: &Signature<G>,
    ) -> Result<(), VerifyError> {
        let c = self.challenge(domain, message, signature);
        // s·G − c·Y = R
        let lhs = self.point().mul_add_generator_vartime(&-c, &signature.s);
        if lhs == *signature.r.point() {
            Ok(())
        } else {
            Err(VerifyError::InvalidProof)
        }
    }
}

/// A secret signing key `y` with its public key; the secret is wiped on drop.
#[derive(Clone)]
pub struct SigningKey<G: Group> {
    secret: SecretScalar<G::Scalar>,
    public: VerifyingKey<G>,
}

impl<G: Group> core::fmt::Debug for SigningKey<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SigningKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl<G: Group> SigningKey<G> {
    /// A fresh random key pair.
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        loop {
            if let Some(k) = Self::from_secret(SecretScalar::random(rng)) {
                return k;
            }
        }
    }

    /// The key pair of a given secret; `None` for the zero scalar.
    pub fn from_secret(secret: SecretScalar<G::Scalar>) -> Option<Self> {
        let public = VerifyingKey::from_point(G::mul_generator(secret.expose()))?;
        Some(Self { secret, public })
    }

    /// The public key.
    pub fn verifying_key(&self) -> &VerifyingKey<G> {
        &self.public
    }

    /// The secret scalar.
    pub fn secret(&self) -> &SecretScalar<G::Scalar> {
        &self.secret
    }

    /// Signs `message` under the domain label `domain` (naming the message type). Nonces are
    /// hedged: derived from the transcript, the secret key and `rng`.
    pub fn sign<R: RngCore + CryptoRng + ?Sized>(
        &self,
        domain: &'static [u8],
        message: &[u8],
        rng: &mut R,
    ) -> Signature<G> {
        let mut t = self.public.transcript(domain, message);
        let mut key_bytes = self.secret.expose().to_bytes();
        let mut wrng = t.witness_rng(b"signing-key", &[key_bytes.as_ref()], rng);
        key_bytes.as_mut().zeroize();
        let mut k = G::Scalar::random(&mut wrng);
        drop(wrng);
        #[cfg(feature = "vectors")]
        crate::recording::scalars("signature-nonce", core::slice::from_ref(&k));
        let r = Encoded::new(G::mul_generator(&k));
        t.append_encoded(b"nonce-commitment", core::slice::from_ref(&r));
        let c = t.challenge_scalar::<G>(b"challenge");
        let s = k + c * self.secret.expose();
        k.zeroize();
        Signature { r, s }
    }
}

/// A Schnorr signature `(R, s)`: `R = k·G`, `s = k + c·y` with `c` the transcript challenge over
/// (domain, public key, message, `R`). Wire format: `R ‖ s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature<G: Group> {
    r: Encoded<G>,
    s: G::Scalar,
}

impl<G: Group> Signature<G> {
    /// Length of the encoding.
    pub const ENCODED_LEN: usize = G::ENCODED_LEN + <G::Scalar as Scalar>::ENCODED_LEN;

    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::ENCODED_LEN);
        out.extend_from_slice(self.r.as_bytes());
        out.extend_from_slice(self.s.to_bytes().as_ref());
        out
    }

    /// Decodes and validates (`R` must not be the identity; `s` canonical; no trailing bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let point = Encoded::read_nonidentity(&mut r, "nonce commitment")?;
        let s = r.scalar::<G::Scalar>("signature scalar")?;
        r.finish()?;
        Ok(Self { r: point, s })
    }

    /// The verification equation of this signature on `message` under `key` and `domain`, for
    /// a [`BatchVerifier`] (checked as `R − s·G + c·Y = 0`): computed apart from the batch so
    /// that many can be prepared in parallel (the challenge hash is a signature's share of the
    /// work that is not the multi-scalar multiplication).
    pub fn batch_item(
        &self,
        key: &VerifyingKey<G>,
        domain: &'static [u8],
        message: &[u8],
    ) -> BatchItem<G> {
        let c = key.challenge(domain, message, self);
        let mut pending = Pending::new();
        pending.checks_g.push(Check {
            scalars: vec![G::Scalar::one(), -self.s, c],
            points: vec![*self.r.point(), G::generator(), *key.point()],
            bases: 1,
        });
        BatchItem::from_pending(pending)
    }

    /// Builds a signature from parts (tests and tooling).
    pub fn from_parts(r: Encoded<G>, s: G::Scalar) -> Self {
        Self { r, s }
    }

    /// The nonce commitment `R`.
    pub fn r(&self) -> &Encoded<G> {
        &self.r
    }

    /// The response `s`.
    pub fn s(&self) -> &G::Scalar {
        &self.s
    }
}

impl<G: Group> BatchVerifier<G> {
    /// Adds a signature to the batch (checked as `R − s·G + c·Y = 0`). Returns its index.
    pub fn add_signature(
        &mut self,
        key: &VerifyingKey<G>,
        domain: &'static [u8],
        message: &[u8],
        signature: &Signature<G>,
    ) -> usize {
        self.add_item(signature.batch_item(key, domain, message))
    }

    /// Adds a key registration to the batch. Returns its index.
    pub fn add_key_registration(
        &mut self,
        key: &VerifyingKey<G>,
        context: &Context,
        registration: &KeyRegistration<G>,
    ) -> usize {
        self.add_item(registration.batch_item(key, context))
    }
}

/// Proof of knowledge of the secret key of a public key, bound to a [`Context`].
///
/// Registering long-term and pseudonym keys with this proof prevents rogue-key attacks (a key
/// chosen as a function of others' keys has no known secret). The context must name the
/// session, the role (`purpose` or a field, e.g. long-term vs pseudonym) and the identity
/// registering the key (`sender` or a field), so a registration cannot be replayed by someone
/// else or in another session. Wire format: the Schnorr proof `A ‖ z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRegistration<G: Group> {
    proof: Proof<G>,
}

impl<G: Group> KeyRegistration<G> {
    fn transcript(context: &Context) -> Transcript {
        let mut t = context.transcript();
        t.append_message(b"key-registration", REGISTRATION_LABEL);
        t
    }

    /// Proves knowledge of `key`'s secret in `context`.
    pub fn prove<R: RngCore + CryptoRng + ?Sized>(
        key: &SigningKey<G>,
        context: &Context,
        rng: &mut R,
    ) -> Self {
        let statement = Schnorr::with_generator(key.public.point.clone());
        let mut t = Self::transcript(context);
        let form = Statement::<G>::bind(&statement, &mut t);
        // The witness has length 1 by construction, so proving cannot fail; an error would
        // only yield an invalid proof.
        let proof = form
            .prove(&mut t, core::slice::from_ref(key.secret.expose()), rng)
            .unwrap_or_else(|_| Proof::from_parts(Vec::new(), Vec::new(), Vec::new()));
        Self { proof }
    }

    /// Verifies the registration of `key` in `context`.
    pub fn verify(&self, key: &VerifyingKey<G>, context: &Context) -> Result<(), VerifyError> {
        let statement = Schnorr::with_generator(key.encoded().clone());
        statement.verify(&mut Self::transcript(context), &self.proof)
    }

    /// The verification equations of the registration of `key` in `context`, for a
    /// [`BatchVerifier`]: computed apart from the batch so that many can be prepared in
    /// parallel (binding the statement and hashing the transcript is the part of a
    /// registration's check that is not the multi-scalar multiplication).
    pub fn batch_item(&self, key: &VerifyingKey<G>, context: &Context) -> BatchItem<G> {
        let statement = Schnorr::with_generator(key.encoded().clone());
        BatchItem::new(&statement, Self::transcript(context), &self.proof)
    }

    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.proof.to_bytes()
    }

    /// Decodes and validates.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let statement = Schnorr::<G>::with_generator(G::generator());
        Ok(Self {
            proof: Statement::<G>::decode_proof(&statement, bytes)?,
        })
    }
}
