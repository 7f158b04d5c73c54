//! The payloads of the protocol messages, each a type with its encoding and a decoder both
//! roles use. Decoders borrow from the envelope (an inventory carries megabytes) and check the
//! framing only; what the fields mean is checked by the state machines. The blame payloads are
//! in [`crate::blame`].

use super::codec::Writer;
use crate::error::WireError;

/// [`super::Kind::ClientSetup`]: a client's pseudonym-shuffle submission and its suite set-up
/// message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientSetup<'a> {
    /// The encoded key-shuffle submission.
    pub submission: &'a [u8],
    /// The encoded suite set-up message.
    pub suite: &'a [u8],
}

impl<'a> ClientSetup<'a> {
    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(self.submission).bytes(self.suite);
        w.finish()
    }

    /// Decodes.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let out = Self {
            submission: r.bytes()?,
            suite: r.bytes()?,
        };
        r.finish()?;
        Ok(out)
    }
}

/// [`super::Kind::SetupInventory`]: a server's suite set-up message and its clients' signed
/// set-up envelopes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupInventory<'a> {
    /// The encoded suite set-up message of the server.
    pub suite: &'a [u8],
    /// Its clients' signed `ClientSetup` envelopes.
    pub clients: Vec<&'a [u8]>,
}

impl<'a> SetupInventory<'a> {
    /// The encoding of a server's suite set-up and its clients' envelopes.
    pub fn encode<T: AsRef<[u8]>>(suite: &[u8], clients: &[T]) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(suite).byte_list(clients);
        w.finish()
    }

    /// Decodes.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let suite = r.bytes()?;
        let clients = r.byte_slices()?;
        r.finish()?;
        Ok(Self { suite, clients })
    }
}

/// A list of byte strings: [`super::Kind::Submission`] (one ciphertext per open slot),
/// [`super::Kind::ServerCiphertexts`] (likewise), [`super::Kind::SetupTranscript`] (every
/// signed set-up envelope), [`super::Kind::Echo`] (signed headers), [`super::Kind::Dispute`]
/// (DH reveals).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteList<'a>(pub Vec<&'a [u8]>);

impl<'a> ByteList<'a> {
    /// The encoding of `items`.
    pub fn encode<T: AsRef<[u8]>>(items: &[T]) -> Vec<u8> {
        let mut w = Writer::new();
        w.byte_list(items);
        w.finish()
    }

    /// Decodes.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let items = r.byte_slices()?;
        r.finish()?;
        Ok(Self(items))
    }
}

/// [`super::Kind::Inventory`]: the signed submissions a server accepted, those it rejected for
/// an invalid proof, and per open slot the sum of its accepted clients' ciphertexts (empty for
/// slots that are not aggregated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inventory<'a> {
    /// Accepted signed submissions.
    pub accepted: Vec<&'a [u8]>,
    /// Rejected signed submissions.
    pub rejected: Vec<&'a [u8]>,
    /// One encoded aggregate per open slot.
    pub aggregates: Vec<&'a [u8]>,
}

impl<'a> Inventory<'a> {
    /// The encoding.
    pub fn encode<T: AsRef<[u8]>>(
        accepted: &[T],
        rejected: &[T],
        aggregates: &[Vec<u8>],
    ) -> Vec<u8> {
        // Megabytes at scale: one allocation of the exact size, not a doubling series of
        // copies (3 counts, a length per item).
        let items = accepted.iter().chain(rejected).map(AsRef::as_ref);
        let len = 12
            + items
                .chain(aggregates.iter().map(Vec::as_slice))
                .map(|b| 4 + b.len())
                .sum::<usize>();
        let mut w = Writer::with_capacity(len);
        w.byte_list(accepted)
            .byte_list(rejected)
            .byte_list(aggregates);
        w.finish()
    }

    /// Decodes without copying the submissions.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let out = Self {
            accepted: r.byte_slices()?,
            rejected: r.byte_slices()?,
            aggregates: r.byte_slices()?,
        };
        r.finish()?;
        Ok(out)
    }
}

/// [`super::Kind::RoundOutput`]: the encoded [`crate::RoundResult`] and every server's signed
/// `OutputSignature` envelope on its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundOutput<'a> {
    /// The encoded round result.
    pub result: &'a [u8],
    /// The `M` signed output signatures.
    pub signatures: Vec<&'a [u8]>,
}

impl<'a> RoundOutput<'a> {
    /// The encoding.
    pub fn encode<T: AsRef<[u8]>>(result: &[u8], signatures: &[T]) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(result).byte_list(signatures);
        w.finish()
    }

    /// Decodes.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut r = crate::wire::reader(bytes);
        let result = r.bytes()?;
        let signatures = r.byte_slices()?;
        r.finish()?;
        Ok(Self { result, signatures })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoding `enc` succeeds, and fails for every truncation and for a trailing byte.
    fn strict<T>(enc: &[u8], decode: impl Fn(&[u8]) -> Result<T, WireError>) -> T {
        for cut in 0..enc.len() {
            assert!(decode(&enc[..cut]).is_err(), "truncated at {cut}");
        }
        let mut extra = enc.to_vec();
        extra.push(0);
        assert_eq!(decode(&extra).err(), Some(WireError::TrailingBytes));
        decode(enc).unwrap()
    }

    #[test]
    fn payloads_round_trip_and_are_canonical() {
        let items = vec![b"one".to_vec(), Vec::new(), vec![7; 40]];
        let inv = Inventory::encode(&items, &items[..1], &items[1..]);
        let d = strict(&inv, |b| {
            Inventory::decode(b).map(|d| {
                (
                    d.accepted.len(),
                    d.rejected.iter().map(|x| x.to_vec()).collect::<Vec<_>>(),
                    d.aggregates.len(),
                )
            })
        });
        assert_eq!(d, (3, vec![b"one".to_vec()], 2));
        let out = RoundOutput::encode(b"result", &items);
        let d = strict(&out, |b| {
            RoundOutput::decode(b).map(|d| (d.result.to_vec(), d.signatures.len()))
        });
        assert_eq!(d, (b"result".to_vec(), 3));
        let setup = SetupInventory::encode(b"suite", &items);
        let d = strict(&setup, |b| {
            SetupInventory::decode(b).map(|d| (d.suite.to_vec(), d.clients.len()))
        });
        assert_eq!(d, (b"suite".to_vec(), 3));
        let cs = ClientSetup {
            submission: b"sub",
            suite: b"suite",
        };
        let enc = cs.to_bytes();
        let d = strict(&enc, |b| {
            ClientSetup::decode(b).map(|d| (d.submission.to_vec(), d.suite.to_vec()))
        });
        assert_eq!(d, (b"sub".to_vec(), b"suite".to_vec()));
        let list = ByteList::encode(&items);
        let d = strict(&list, |b| {
            ByteList::decode(b).map(|d| d.0.iter().map(|x| x.to_vec()).collect::<Vec<_>>())
        });
        assert_eq!(d, items);
    }
}
