//! Wire formats: a small length-framed codec, the signed [`Envelope`] every protocol message
//! travels in, and the message kinds.
//!
//! Every message is `header ‖ signature ‖ u32 payload length ‖ payload`, where the 78-byte
//! header is `kind ‖ sender role ‖ sender index ‖ session ‖ round ‖ blake3(payload)` and the
//! signature is the sender's long-term Schnorr signature over the header (domain
//! `verdict-proto/envelope/v1`). Because the header commits to the payload, a header with its
//! signature (a [`SignedHeader`], 78 bytes plus one signature) is a compact, transferable
//! statement "this sender said *this* for that step": servers echo them to each other to
//! detect equivocation, and two conflicting signed headers are the evidence.

use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_group::Group;
use verdict_nizk::{Signature, SigningKey, VerifyingKey};

use crate::error::WireError;

/// Domain label of envelope signatures.
const ENVELOPE_DOMAIN: &[u8] = b"verdict-proto/envelope/v1";
/// Length of an envelope header.
pub const HEADER_LEN: usize = 1 + 1 + 4 + 32 + 8 + 32;
/// Upper bound on any list length or byte-string length a decoder accepts (64 MiB): protects
/// against allocation bombs from a hostile length prefix.
pub const MAX_FIELD: usize = 1 << 26;

/// The type of a protocol message (the first header byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// Client → upstream server: pseudonym-shuffle submission and suite set-up.
    ClientSetup = 1,
    /// Server → servers: the server's suite set-up and its clients' signed set-up messages.
    SetupInventory = 2,
    /// Server → servers: a pseudonym shuffle step.
    ShuffleStep = 3,
    /// Server → servers: decryption shares of the shuffled list.
    Decryption = 4,
    /// Server → its clients: every signed set-up message, for clients to verify themselves.
    SetupTranscript = 5,
    /// Server → servers: DH reveals settling disputed set-up commitments.
    Dispute = 6,
    /// Client → upstream server: one ciphertext per open slot.
    Submission = 10,
    /// Server → servers: the signed submissions this server accepted.
    Inventory = 11,
    /// Server → servers: hash of the server ciphertexts to come (XOR slots).
    Commit = 12,
    /// Server → servers: one server ciphertext per open slot.
    ServerCiphertexts = 13,
    /// Server → servers: signature on the round's output.
    OutputSignature = 14,
    /// Server → its clients: the round output with every server's signature.
    RoundOutput = 15,
    /// Server → servers: the signed headers this server received for one step.
    Echo = 16,
    /// Server → servers: this server's pad bits for an accusation (hybrid blame).
    BlameBits = 20,
    /// Server → suspect client: the published pad bits, to rebut.
    RebuttalRequest = 21,
    /// Suspect client → servers: a DH reveal showing a server lied, or nothing.
    Rebuttal = 22,
    /// Server → servers: this server's verdict on an accusation.
    Verdict = 23,
    /// Server → servers: a server fault with its evidence; the session halts.
    Alert = 30,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 18] = [
        Self::ClientSetup,
        Self::SetupInventory,
        Self::ShuffleStep,
        Self::Decryption,
        Self::SetupTranscript,
        Self::Dispute,
        Self::Submission,
        Self::Inventory,
        Self::Commit,
        Self::ServerCiphertexts,
        Self::OutputSignature,
        Self::RoundOutput,
        Self::Echo,
        Self::BlameBits,
        Self::RebuttalRequest,
        Self::Rebuttal,
        Self::Verdict,
        Self::Alert,
    ];

    /// A human-readable name (for errors and logs).
    pub fn name(self) -> &'static str {
        match self {
            Kind::ClientSetup => "client set-up",
            Kind::SetupInventory => "set-up inventory",
            Kind::ShuffleStep => "shuffle step",
            Kind::Decryption => "decryption shares",
            Kind::SetupTranscript => "set-up transcript",
            Kind::Dispute => "dispute reveals",
            Kind::Submission => "submission",
            Kind::Inventory => "inventory",
            Kind::Commit => "commit",
            Kind::ServerCiphertexts => "server ciphertexts",
            Kind::OutputSignature => "output signature",
            Kind::RoundOutput => "round output",
            Kind::Echo => "echo",
            Kind::BlameBits => "blame bits",
            Kind::RebuttalRequest => "rebuttal request",
            Kind::Rebuttal => "rebuttal",
            Kind::Verdict => "verdict",
            Kind::Alert => "alert",
        }
    }

    fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            1 => Self::ClientSetup,
            2 => Self::SetupInventory,
            3 => Self::ShuffleStep,
            4 => Self::Decryption,
            5 => Self::SetupTranscript,
            6 => Self::Dispute,
            10 => Self::Submission,
            11 => Self::Inventory,
            12 => Self::Commit,
            13 => Self::ServerCiphertexts,
            14 => Self::OutputSignature,
            15 => Self::RoundOutput,
            16 => Self::Echo,
            20 => Self::BlameBits,
            21 => Self::RebuttalRequest,
            22 => Self::Rebuttal,
            23 => Self::Verdict,
            30 => Self::Alert,
            _ => return None,
        })
    }
}

/// Appends length-framed fields.
#[derive(Default, Debug)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    /// Appends a little-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a little-endian `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends raw bytes of a length the reader knows.
    pub fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(v);
        self
    }
    /// Appends a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.count(v.len());
        self.buf.extend_from_slice(v);
        self
    }
    /// Appends a `u32` length prefix (lengths here are bounded far below `u32::MAX`).
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }
    /// Appends a party (role byte and index).
    pub fn party(&mut self, p: Party) -> &mut Self {
        match p {
            Party::Client(c) => self.u8(0).u32(c.0),
            Party::Server(s) => self.u8(1).u32(s.0),
        }
    }
    /// The encoding.
    pub fn finish(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.buf)
    }
}

/// Reads length-framed fields; every read is bounds-checked.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }
    /// Takes `n` raw bytes.
    pub fn raw(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(WireError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    /// Takes `N` raw bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.raw(N)?);
        Ok(out)
    }
    /// Reads a byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.array::<1>()?[0])
    }
    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// Reads a little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Reads a length prefix, bounded by [`MAX_FIELD`] and by the remaining input (every
    /// element takes at least one byte), so hostile lengths cannot trigger huge allocations.
    pub fn count(&mut self) -> Result<usize, WireError> {
        let n = self.u32()? as usize;
        if n > MAX_FIELD || n > self.bytes.len() {
            return Err(WireError::Truncated);
        }
        Ok(n)
    }
    /// Reads a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.count()?;
        self.raw(n)
    }
    /// Reads a list of byte strings.
    pub fn byte_list(&mut self) -> Result<Vec<Vec<u8>>, WireError> {
        Ok(self
            .byte_slices()?
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect())
    }
    /// Reads a list of byte strings without copying them (an inventory carries megabytes).
    pub fn byte_slices(&mut self) -> Result<Vec<&'a [u8]>, WireError> {
        let n = self.count()?;
        (0..n).map(|_| self.bytes()).collect()
    }
    /// Reads a party.
    pub fn party(&mut self) -> Result<Party, WireError> {
        match self.u8()? {
            0 => Ok(Party::Client(ClientId(self.u32()?))),
            1 => Ok(Party::Server(ServerId(self.u32()?))),
            _ => Err(WireError::Invalid("party role")),
        }
    }
    /// Fails unless all input was consumed (no trailing bytes: encodings are canonical).
    pub fn finish(&self) -> Result<(), WireError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(WireError::TrailingBytes)
        }
    }
}

/// Writes a list of byte strings.
pub fn write_byte_list(w: &mut Writer, items: &[Vec<u8>]) {
    w.count(items.len());
    for i in items {
        w.bytes(i);
    }
}

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
        Self::read(&mut Reader::new(bytes))
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
        let mut r = Reader::new(bytes);
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
    let mut batch = verdict_nizk::BatchVerifier::<G>::with_capacity(items.len());
    for (key, signed) in items {
        batch.add_signature(
            key,
            ENVELOPE_DOMAIN,
            &signed.header.to_bytes(),
            &signed.signature,
        );
    }
    batch.verify(rng).map_err(|e| e.invalid)
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
            digest: *blake3::hash(&payload).as_bytes(),
        };
        let signature = key.sign(ENVELOPE_DOMAIN, &header.to_bytes(), rng);
        Self {
            signed: SignedHeader { header, signature },
            payload,
        }
    }

    /// The wire encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(&self.signed.to_bytes()).bytes(&self.payload);
        w.finish()
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
        let mut r = Reader::new(bytes);
        let signed = SignedHeader::read(&mut r)?;
        let payload = r.bytes()?;
        r.finish()?;
        if *blake3::hash(payload).as_bytes() != signed.header.digest {
            return Err(WireError::Invalid("payload digest"));
        }
        Ok((signed, payload))
    }

    /// The payload of an encoded envelope, neither checked against the header's digest nor
    /// with its signature decoded: for envelopes that were checked when they arrived and kept
    /// encoded.
    pub fn payload_of(bytes: &[u8]) -> Result<&[u8], WireError> {
        let mut r = Reader::new(bytes);
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
