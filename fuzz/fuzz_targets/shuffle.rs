//! verdict-shuffle wire formats: ElGamal ciphertext lists, Neff shuffle proofs and simple
//! k-shuffle proofs for small sizes, and the key-shuffle messages (submissions, shuffle steps,
//! decryption steps), on ristretto255 and P-256.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict_fuzz::{round_trip, split};
use verdict_group::{Group, P256, Ristretto255};
use verdict_shuffle::keyshuffle::{DecryptionStep, ShuffleStep, Submission};
use verdict_shuffle::{CiphertextList, ShuffleProof, SimpleShuffleProof};

fn run<G: Group>(kind: u8, param: u8, bytes: &[u8]) {
    // Sizes 0..=5 include the degenerate ones (0, 1) every decoder must refuse cleanly.
    let n = usize::from(param % 6);
    match kind % 7 {
        0 | 1 => {
            round_trip(
                "ciphertext list",
                bytes,
                CiphertextList::<G>::from_bytes,
                |l| l.as_bytes().to_vec(),
            );
        }
        2 => {
            round_trip(
                "shuffle proof",
                bytes,
                |b| ShuffleProof::<G>::from_bytes(b, n),
                ShuffleProof::to_bytes,
            );
        }
        3 => {
            round_trip(
                "simple shuffle proof",
                bytes,
                |b| SimpleShuffleProof::<G>::from_bytes(b, n),
                SimpleShuffleProof::to_bytes,
            );
        }
        4 => {
            round_trip(
                "submission",
                bytes,
                Submission::<G>::from_bytes,
                Submission::to_bytes,
            );
        }
        5 => {
            round_trip(
                "shuffle step",
                bytes,
                |b| ShuffleStep::<G>::from_bytes(b, n),
                ShuffleStep::to_bytes,
            );
        }
        _ => {
            round_trip(
                "decryption step",
                bytes,
                |b| DecryptionStep::<G>::from_bytes(b, n),
                DecryptionStep::to_bytes,
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((sel, param, bytes)) = split(data) else {
        return;
    };
    if sel & 0x80 == 0 {
        run::<Ristretto255>(sel, param, bytes);
    } else {
        run::<P256>(sel, param, bytes);
    }
});
