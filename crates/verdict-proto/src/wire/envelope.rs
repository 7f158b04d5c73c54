//! The signed envelope every protocol message travels in, its header, and signed headers (the
//! transferable statement "this sender said *this* for that step").

use std::sync::Arc;

use verdict_dcnet::Party;
use verdict_group::Group;
use verdict_nizk::{Signature, SigningKey, VerifyingKey};

use super::codec::{ReadParty, Reader, WriteParty, Writer, reader};
use super::kind::Kind;
use crate::error::WireError;

/// Domain label of envelope signatures.
const ENVELOPE_DOMAIN: &[u8] = b"verdict-proto/envelope/v1";
/// Length of an envelope header.
pub const ENVELOPE_HEADER_LEN: usize = 1 + 1 + 4 + 32 + 8 + 32;

/// The signed part of a message: who said what, for which step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Message type.
    pub kind: Kind,
    /// Sender.
    pub sender: Party,
    /// Session id.
    pub session: [u8; 32],
    /// Round (0 for set-up messages).
    pub round: u64,
    /// blake3 hash of the payload.
    pub digest: [u8; 32],
}

impl Header {
    /// The 78-byte encoding (what the sender signs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u8(self.kind as u8)
            .party(self.sender)
            .raw(&self.session)
            .u64(self.round)
            .raw(&self.digest);
        w.finish()
    }

    /// Decodes the header at the start of `bytes` (of a signed header or an envelope) without
    /// looking at the rest.
    pub fn from_prefix(bytes: &[u8]) -> Result<Self, WireError> {
        Self::read(&mut reader(bytes))
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let kind = Kind::from_u8(r.u8()?).ok_or(WireError::Invalid("message kind"))?;
        let sender = r.party()?;
        let session = r.array()?;
        let round = r.u64()?;
        let digest = r.array()?;
        Ok(Self {
            kind,
            sender,
            session,
            round,
            digest,
        })
    }

    /// Whether two headers are about the same step (same kind, sender, session and round).
    pub fn same_step(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.sender == other.sender
            && self.session == other.session
            && self.round == other.round
    }
}

/// A header with the sender's signature: transferable evidence of what the sender said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedHeader<G: Group> {
    /// The header.
    pub header: Header,
    /// The sender's signature on it.
    pub signature: Signature<G>,
}

impl<G: Group> SignedHeader<G> {
    /// Encoding: header ‖ signature.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header.to_bytes();
        out.extend_from_slice(&self.signature.to_bytes());
        out
    }

    /// Decodes (the signature is validated as an encoding, not verified).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = reader(bytes);
        let s = Self::read(&mut r)?;
        r.finish()?;
        Ok(s)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let header = Header::read(r)?;
        let signature = Signature::from_bytes(r.raw(Signature::<G>::ENCODED_LEN)?)
            .map_err(|_| WireError::Invalid("signature encoding"))?;
        Ok(Self { header, signature })
    }

    /// Verifies the signature under `key`.
    pub fn verify(&self, key: &VerifyingKey<G>) -> Result<(), WireError> {
        key.verify(ENVELOPE_DOMAIN, &self.header.to_bytes(), &self.signature)
            .map_err(|_| WireError::BadSignature)
    }
}

/// Verifies many signed headers at once (one multi-scalar multiplication); on failure returns
/// the positions of exactly the invalid ones. `rng` draws the batching weights.
pub fn verify_batch<G: Group, R: rand_core::RngCore + rand_core::CryptoRng + ?Sized>(
    items: &[(&VerifyingKey<G>, &SignedHeader<G>)],
    rng: &mut R,
) -> Result<(), Vec<usize>> {
    signature_batch(items).verify(rng).map_err(|e| e.invalid)
}

/// The batch [`verify_batch`] checks, before its weights are drawn: for a caller that draws
/// the weights of several batches in one order and checks them together.
pub fn signature_batch<G: Group>(
    items: &[(&VerifyingKey<G>, &SignedHeader<G>)],
) -> verdict_nizk::BatchVerifier<G> {
    // Each signature's challenge hash on its own, in parallel with the `parallel` feature;
    // the batch's check is then one multi-scalar multiplication (split over threads too).
    let prepared = verdict_group::par::map(items, |(key, signed)| {
        signed
            .signature
            .batch_item(key, ENVELOPE_DOMAIN, &signed.header.to_bytes())
    });
    let mut batch = verdict_nizk::BatchVerifier::<G>::with_capacity(items.len());
    for item in prepared {
        batch.add_item(item);
    }
    batch
}

/// A decoded, signature-checked message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope<G: Group> {
    /// The signed header.
    pub signed: SignedHeader<G>,
    /// The payload (its hash is in the header).
    pub payload: Vec<u8>,
}

impl<G: Group> Envelope<G> {
    /// Builds and signs a message.
    pub fn seal<R: rand_core::RngCore + rand_core::CryptoRng + ?Sized>(
        key: &SigningKey<G>,
        kind: Kind,
        sender: Party,
        session: [u8; 32],
        round: u64,
        payload: Vec<u8>,
        rng: &mut R,
    ) -> Self {
        let header = Header {
            kind,
            sender,
            session,
            round,
            digest: *verdict_group::par::hash(&payload).as_bytes(),
        };
        let signature = key.sign(ENVELOPE_DOMAIN, &header.to_bytes(), rng);
        Self {
            signed: SignedHeader { header, signature },
            payload,
        }
    }

    /// The wire encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = ENVELOPE_HEADER_LEN + Signature::<G>::ENCODED_LEN + 4 + self.payload.len();
        let mut w = Writer::with_capacity(len);
        w.raw(&self.signed.to_bytes()).bytes(&self.payload);
        w.finish()
    }

    /// The wire encoding ([`Envelope::to_bytes`]'s bytes) as one shared buffer, built in the
    /// payload's own allocation: the header is moved in front of the payload in place, and
    /// the only copy is the one behind the reference count. Going through
    /// [`Envelope::to_bytes`] allocates and fills the payload's size twice (for a server's
    /// inventory, megabytes a round).
    pub fn into_shared(self) -> Arc<[u8]> {
        let mut prefix =
            Writer::with_capacity(ENVELOPE_HEADER_LEN + Signature::<G>::ENCODED_LEN + 4);
        prefix
            .raw(&self.signed.to_bytes())
            .count(self.payload.len());
        let mut bytes = self.payload;
        bytes.splice(0..0, prefix.finish());
        bytes.into()
    }

    /// Decodes a message and checks that the payload matches the header's digest. The
    /// signature is checked by [`Envelope::verify`] (the caller knows the sender's key).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let (signed, payload) = Self::parse(bytes)?;
        Ok(Self {
            signed,
            payload: payload.to_vec(),
        })
    }

    /// Like [`Envelope::from_bytes`], but the payload is returned as a slice of `bytes`
    /// instead of being copied.
    pub fn parse(bytes: &[u8]) -> Result<(SignedHeader<G>, &[u8]), WireError> {
        let mut r = reader(bytes);
        let signed = SignedHeader::read(&mut r)?;
        let payload = r.bytes()?;
        r.finish()?;
        if *verdict_group::par::hash(payload).as_bytes() != signed.header.digest {
            return Err(WireError::Invalid("payload digest"));
        }
        Ok((signed, payload))
    }

    /// The payload of an encoded envelope, neither checked against the header's digest nor
    /// with its signature decoded: for envelopes that were checked when they arrived and kept
    /// encoded.
    pub fn payload_of(bytes: &[u8]) -> Result<&[u8], WireError> {
        let mut r = reader(bytes);
        Header::read(&mut r)?;
        r.raw(Signature::<G>::ENCODED_LEN)?;
        let payload = r.bytes()?;
        r.finish()?;
        Ok(payload)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.signed.header
    }

    /// Verifies the sender's signature under `key`.
    pub fn verify(&self, key: &VerifyingKey<G>) -> Result<(), WireError> {
        self.signed.verify(key)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_group::Ristretto255;

    use super::*;
    use crate::wire::write_byte_list;
    use verdict_dcnet::ClientId;

    fn sealed(payload: Vec<u8>) -> Envelope<Ristretto255> {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let key = SigningKey::<Ristretto255>::generate(&mut rng);
        Envelope::seal(
            &key,
            Kind::Submission,
            Party::Client(ClientId(7)),
            [5; 32],
            9,
            payload,
            &mut rng,
        )
    }

    #[test]
    fn borrowed_and_copied_decodings_agree() {
        let mut w = Writer::new();
        write_byte_list(&mut w, &[b"first".to_vec(), Vec::new(), vec![0xAB; 300]]);
        let env = sealed(w.finish());
        let bytes = env.to_bytes();
        assert_eq!(Envelope::<Ristretto255>::from_bytes(&bytes).unwrap(), env);
        let (signed, payload) = Envelope::<Ristretto255>::parse(&bytes).unwrap();
        assert_eq!((&signed, payload), (&env.signed, env.payload.as_slice()));
        assert_eq!(
            Envelope::<Ristretto255>::payload_of(&bytes).unwrap(),
            env.payload
        );
        assert_eq!(Header::from_prefix(&bytes).unwrap(), env.signed.header);
        let slices = Reader::new(payload).byte_slices().unwrap();
        let list = Reader::new(payload).byte_list().unwrap();
        assert_eq!(slices, list.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert_eq!(slices.len(), 3);
    }

    #[test]
    fn the_shared_encoding_is_the_encoding() {
        for len in [0, 1, 300, 70_000] {
            let env = sealed((0..len).map(|i| (i * 7 % 251) as u8).collect());
            let shared = env.clone().into_shared();
            assert_eq!(
                &shared[..],
                env.to_bytes().as_slice(),
                "payload of {len} bytes"
            );
            assert_eq!(Envelope::<Ristretto255>::from_bytes(&shared).unwrap(), env);
        }
    }

    #[test]
    fn a_changed_payload_fails_the_digest_and_truncations_fail_cleanly() {
        let env = sealed(b"payload".to_vec());
        let mut bytes = env.to_bytes();
        for cut in 0..bytes.len() {
            let short = &bytes[..cut];
            assert!(Envelope::<Ristretto255>::parse(short).is_err(), "cut {cut}");
            assert!(
                Envelope::<Ristretto255>::payload_of(short).is_err(),
                "cut {cut}"
            );
        }
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert_eq!(
            Envelope::<Ristretto255>::parse(&bytes).map(|_| ()),
            Err(WireError::Invalid("payload digest"))
        );
        // Only for envelopes checked on receipt: it does not look at the digest.
        assert!(Envelope::<Ristretto255>::payload_of(&bytes).is_ok());
        // A count beyond the remaining bytes is an error, not an allocation.
        let mut w = Writer::new();
        w.count(u32::MAX as usize);
        assert!(Reader::new(&w.finish()).byte_slices().is_err());
    }
}
