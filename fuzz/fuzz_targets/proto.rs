//! verdict-proto wire formats: envelopes (header, signed header, whole envelope), every
//! message payload, accusations, round results and the blame payloads, and whole envelopes with
//! their payload decoded by kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict_fuzz::{measured, round_trip};
use verdict_group::Ristretto255;
use verdict_proto::blame::{BlameBits, Rebuttal, RebuttalRequest, Verdict};
use verdict_proto::wire::payloads::{
    ByteList, ClientSetup, Inventory, RoundOutput, SetupInventory,
};
use verdict_proto::wire::{Envelope, Header, Kind, SignedHeader};
use verdict_proto::{Accusation, RoundResult};

type G = Ristretto255;

/// The round-trip contract for the payload decoders that borrow from their input (their
/// lifetimes do not fit `round_trip`'s closure bounds).
macro_rules! borrowed {
    ($what:expr, $bytes:expr, $ty:ident, |$v:ident| $encode:expr) => {{
        let bytes: &[u8] = $bytes;
        if let Ok($v) = measured($what, bytes.len(), || $ty::decode(bytes)) {
            let encoded: Vec<u8> = $encode;
            assert_eq!(
                encoded, bytes,
                "{}: accepted a non-canonical encoding",
                $what
            );
            assert_eq!($ty::decode(&encoded).ok().as_ref(), Some(&$v), "{}", $what);
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    match sel % 15 {
        0 => {
            // A header is read as a prefix: its own encoding must be a prefix of the input.
            if let Ok(h) = Header::from_prefix(bytes) {
                let enc = h.to_bytes();
                assert_eq!(
                    &bytes[..enc.len()],
                    &enc[..],
                    "header: non-canonical prefix"
                );
                assert_eq!(Header::from_prefix(&enc).ok(), Some(h));
            }
        }
        1 => {
            round_trip(
                "signed header",
                bytes,
                SignedHeader::<G>::from_bytes,
                SignedHeader::to_bytes,
            );
        }
        2 => {
            if round_trip(
                "envelope",
                bytes,
                Envelope::<G>::from_bytes,
                Envelope::to_bytes,
            )
            .is_some()
            {
                let payload = Envelope::<G>::payload_of(bytes).ok();
                let parsed = Envelope::<G>::parse(bytes).ok().map(|(_, p)| p);
                assert_eq!(payload, parsed, "envelope: payload_of and parse disagree");
            }
        }
        3 => {
            borrowed!("client set-up payload", bytes, ClientSetup, |v| v
                .to_bytes());
        }
        4 => {
            borrowed!("set-up inventory", bytes, SetupInventory, |v| {
                let clients: Vec<Vec<u8>> = v.clients.iter().map(|c| c.to_vec()).collect();
                SetupInventory::encode(v.suite, &clients)
            });
        }
        5 => {
            borrowed!("byte list", bytes, ByteList, |v| {
                ByteList::encode(&v.0.iter().map(|c| c.to_vec()).collect::<Vec<_>>())
            });
        }
        6 => {
            borrowed!("inventory", bytes, Inventory, |v| {
                let own = |l: &[&[u8]]| l.iter().map(|c| c.to_vec()).collect::<Vec<_>>();
                Inventory::encode(&own(&v.accepted), &own(&v.rejected), &own(&v.aggregates))
            });
        }
        7 => {
            borrowed!("round output", bytes, RoundOutput, |v| {
                let sigs: Vec<Vec<u8>> = v.signatures.iter().map(|c| c.to_vec()).collect();
                RoundOutput::encode(v.result, &sigs)
            });
        }
        8 => {
            round_trip(
                "accusation",
                bytes,
                Accusation::from_bytes,
                Accusation::to_bytes,
            );
        }
        9 => {
            round_trip(
                "round result",
                bytes,
                RoundResult::from_bytes,
                RoundResult::to_bytes,
            );
        }
        10 => {
            round_trip(
                "blame bits",
                bytes,
                BlameBits::from_bytes,
                BlameBits::to_bytes,
            );
        }
        11 => {
            round_trip(
                "rebuttal request",
                bytes,
                RebuttalRequest::from_bytes,
                RebuttalRequest::to_bytes,
            );
        }
        12 => {
            round_trip("rebuttal", bytes, Rebuttal::from_bytes, Rebuttal::to_bytes);
        }
        13 => {
            round_trip("verdict", bytes, Verdict::from_bytes, Verdict::to_bytes);
        }
        _ => {
            // A whole envelope, then its payload through the decoder its kind names: seeded
            // with every envelope of the recorded session (test-vectors/protocol-*.json), so
            // mutations start from real messages of every kind.
            if let Ok((signed, payload)) = Envelope::<G>::parse(bytes) {
                payload_by_kind(signed.header.kind, payload);
            }
        }
    }
});

/// The payload decoder (and its round-trip contract) for a message of `kind`.
fn payload_by_kind(kind: Kind, bytes: &[u8]) {
    match kind {
        Kind::ClientSetup => borrowed!("client set-up payload", bytes, ClientSetup, |v| v
            .to_bytes()),
        Kind::SetupInventory => borrowed!("set-up inventory", bytes, SetupInventory, |v| {
            let clients: Vec<Vec<u8>> = v.clients.iter().map(|c| c.to_vec()).collect();
            SetupInventory::encode(v.suite, &clients)
        }),
        Kind::Inventory => borrowed!("inventory", bytes, Inventory, |v| {
            let own = |l: &[&[u8]]| l.iter().map(|c| c.to_vec()).collect::<Vec<_>>();
            Inventory::encode(&own(&v.accepted), &own(&v.rejected), &own(&v.aggregates))
        }),
        Kind::RoundOutput => borrowed!("round output", bytes, RoundOutput, |v| {
            let sigs: Vec<Vec<u8>> = v.signatures.iter().map(|c| c.to_vec()).collect();
            RoundOutput::encode(v.result, &sigs)
        }),
        Kind::BlameBits => {
            round_trip(
                "blame bits",
                bytes,
                BlameBits::from_bytes,
                BlameBits::to_bytes,
            );
        }
        Kind::RebuttalRequest => {
            round_trip(
                "rebuttal request",
                bytes,
                RebuttalRequest::from_bytes,
                RebuttalRequest::to_bytes,
            );
        }
        Kind::Rebuttal => {
            round_trip("rebuttal", bytes, Rebuttal::from_bytes, Rebuttal::to_bytes);
        }
        Kind::Verdict => {
            round_trip("verdict", bytes, Verdict::from_bytes, Verdict::to_bytes);
        }
        // The other kinds carry suite or shuffle payloads (the dcnet and shuffle targets decode
        // those) framed as byte lists.
        _ => borrowed!("byte list", bytes, ByteList, |v| {
            ByteList::encode(&v.0.iter().map(|c| c.to_vec()).collect::<Vec<_>>())
        }),
    }
}
