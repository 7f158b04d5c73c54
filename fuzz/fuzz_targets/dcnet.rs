//! verdict-dcnet wire formats of every ciphersuite: client and server ciphertexts for a slot
//! capacity taken from the input, public keys, set-up messages and (for the suites that
//! aggregate) aggregates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::{Aggregating, Ciphersuite, HashingGenerator, SetupMessage, Xor};
use verdict_fuzz::{round_trip, split};
use verdict_group::{P256, Ristretto255};

fn common<C: Ciphersuite>(kind: u8, param: u8, bytes: &[u8]) {
    // Capacities from 0 to 1020 bytes, in steps that cross element boundaries.
    let len = usize::from(param) * 4;
    let count = usize::from(param % 8);
    match kind % 5 {
        0 => {
            round_trip(
                "client ciphertext",
                bytes,
                |b| C::decode_client_ciphertext(len, b),
                C::encode_client_ciphertext,
            );
        }
        1 => {
            round_trip(
                "server ciphertext",
                bytes,
                |b| C::decode_server_ciphertext(len, b),
                C::encode_server_ciphertext,
            );
        }
        2 => {
            round_trip(
                "public key",
                bytes,
                C::decode_public_key,
                C::encode_public_key,
            );
        }
        3 => {
            round_trip(
                "client set-up",
                bytes,
                |b| C::ClientSetup::decode(count, b),
                SetupMessage::encode,
            );
        }
        _ => {
            round_trip(
                "server set-up",
                bytes,
                |b| C::ServerSetup::decode(count, b),
                SetupMessage::encode,
            );
        }
    }
}

fn aggregating<C: Aggregating>(kind: u8, param: u8, bytes: &[u8]) {
    if kind % 6 == 5 {
        let len = usize::from(param) * 4;
        round_trip(
            "aggregate",
            bytes,
            |b| C::decode_aggregate(len, b),
            C::encode_aggregate,
        );
    } else {
        common::<C>(kind, param, bytes);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((sel, param, bytes)) = split(data) else {
        return;
    };
    let kind = sel >> 3;
    match sel % 6 {
        0 => common::<Xor<Ristretto255>>(kind, param, bytes),
        1 => common::<ElGamal<Ristretto255>>(kind, param, bytes),
        2 => common::<ElGamal<P256>>(kind, param, bytes),
        3 => aggregating::<HashingGenerator<Ristretto255>>(kind, param, bytes),
        4 => aggregating::<HashingGenerator<P256>>(kind, param, bytes),
        _ => aggregating::<Pairing<Chunk16>>(kind, param, bytes),
    }
});
