//! Transport keys and the Noise handshake.
//!
//! Each member has an X25519 transport key separate from its Verdict keys: compromising a
//! TLS-like session key store must not hand out protocol signing keys, and a transport key can
//! be rotated by re-registering it. The roster lists each member's transport public key with a
//! certificate: a Schnorr signature by the member's Verdict signing key, under its own domain
//! label, over the group nonce, the member's role and index, and the transport key. The
//! handshake is `Noise_XX_25519_ChaChaPoly_BLAKE2s` with the session id as prologue, so peers
//! configured with different groups fail the handshake instead of exchanging messages.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::Party;
use verdict_group::Group;
use verdict_nizk::{Signature, SigningKey, VerifyingKey};
use zeroize::Zeroizing;

/// The Noise protocol every link runs.
pub const NOISE_PARAMS: &str = "Noise_XX_25519_ChaChaPoly_BLAKE2s";

/// Domain label of transport-key certificates.
const CERT_DOMAIN: &[u8] = b"verdict-node/transport-key/v1";

/// An X25519 transport key pair (the secret is wiped on drop).
#[derive(Clone)]
pub struct TransportKey {
    secret: Zeroizing<[u8; 32]>,
    public: [u8; 32],
}

impl TransportKey {
    /// A fresh key.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        let key = Self::from_secret(secret);
        zeroize::Zeroize::zeroize(&mut secret);
        key
    }

    /// The key with this secret (X25519 clamps it).
    pub fn from_secret(secret: [u8; 32]) -> Self {
        let public = curve25519_dalek::MontgomeryPoint::mul_base_clamped(secret).to_bytes();
        Self {
            secret: Zeroizing::new(secret),
            public,
        }
    }

    /// The public key.
    pub fn public(&self) -> [u8; 32] {
        self.public
    }

    /// The secret key bytes (for the key file and the handshake only).
    pub fn secret(&self) -> &[u8; 32] {
        &self.secret
    }
}

fn cert_message(nonce: &[u8; 32], member: Party, transport: &[u8; 32]) -> Vec<u8> {
    let (role, index) = match member {
        Party::Server(s) => (0u8, s.0),
        Party::Client(c) => (1u8, c.0),
    };
    let mut m = Vec::with_capacity(32 + 1 + 4 + 32);
    m.extend_from_slice(nonce);
    m.push(role);
    m.extend_from_slice(&index.to_le_bytes());
    m.extend_from_slice(transport);
    m
}

/// Signs `transport` as `member`'s transport key in the group with `nonce`.
pub fn certify<G: Group, R: RngCore + CryptoRng>(
    signing: &SigningKey<G>,
    nonce: &[u8; 32],
    member: Party,
    transport: &[u8; 32],
    rng: &mut R,
) -> Vec<u8> {
    signing
        .sign(CERT_DOMAIN, &cert_message(nonce, member, transport), rng)
        .to_bytes()
}

/// Checks a transport-key certificate against the member's Verdict signing key.
pub fn verify_cert<G: Group>(
    key: &VerifyingKey<G>,
    nonce: &[u8; 32],
    member: Party,
    transport: &[u8; 32],
    cert: &[u8],
) -> bool {
    Signature::<G>::from_bytes(cert).is_ok_and(|sig| {
        key.verify(CERT_DOMAIN, &cert_message(nonce, member, transport), &sig)
            .is_ok()
    })
}

/// A Noise handshake state for `key`, bound to the session (`prologue`).
pub fn handshake(
    key: &TransportKey,
    prologue: &[u8],
    initiator: bool,
) -> Result<snow::HandshakeState, snow::Error> {
    let params: snow::params::NoiseParams = NOISE_PARAMS.parse()?;
    let builder = snow::Builder::new(params)
        .local_private_key(key.secret())
        .prologue(prologue);
    if initiator {
        builder.build_initiator()
    } else {
        builder.build_responder()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_dcnet::{ClientId, ServerId};
    use verdict_group::Ristretto255;

    #[test]
    fn certificates_bind_member_and_key() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let signing = SigningKey::<Ristretto255>::generate(&mut rng);
        let t = TransportKey::generate(&mut rng).public();
        let other = TransportKey::generate(&mut rng).public();
        let nonce = [9; 32];
        let me = Party::Client(ClientId(3));
        let cert = certify(&signing, &nonce, me, &t, &mut rng);
        let vk = signing.verifying_key();
        assert!(verify_cert(vk, &nonce, me, &t, &cert));
        assert!(!verify_cert(vk, &nonce, me, &other, &cert));
        assert!(!verify_cert(
            vk,
            &nonce,
            Party::Server(ServerId(3)),
            &t,
            &cert
        ));
        assert!(!verify_cert(vk, &[8; 32], me, &t, &cert));
        assert!(!verify_cert(vk, &nonce, me, &t, &cert[1..]));
    }

    #[test]
    fn public_key_matches_snow() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let k = TransportKey::generate(&mut rng);
        let mut a = handshake(&k, b"p", true).unwrap();
        let b_key = TransportKey::generate(&mut rng);
        let mut b = handshake(&b_key, b"p", false).unwrap();
        let mut buf = [0u8; 1024];
        let mut out = [0u8; 1024];
        let n = a.write_message(&[], &mut buf).unwrap();
        b.read_message(&buf[..n], &mut out).unwrap();
        let n = b.write_message(&[], &mut buf).unwrap();
        a.read_message(&buf[..n], &mut out).unwrap();
        let n = a.write_message(&[], &mut buf).unwrap();
        b.read_message(&buf[..n], &mut out).unwrap();
        assert_eq!(b.get_remote_static(), Some(&k.public()[..]));
        assert_eq!(a.get_remote_static(), Some(&b_key.public()[..]));
    }
}
