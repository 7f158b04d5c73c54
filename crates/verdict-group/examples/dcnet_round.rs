//! One DC-net round in the exponent, written directly against `verdict-group`.
//!
//! This is the arithmetic at the heart of Verdict's hashing-generator ciphersuite, without the
//! proofs that make it verifiable (those live in `verdict-nizk` and `verdict-dcnet`):
//! every client `i` shares a secret `s_ij` with every server `j`, and for element `k` of a round
//! blinds with `σ_i · g_k` where `g_k` is hashed to the group; each server unblinds with
//! `−τ_j · g_k`. Summing everything cancels all pads and leaves the owner's embedded message.
//!
//! Run with `cargo run --release -p verdict-group --example dcnet_round`.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::framing::{decode_message, elements_needed, encode_message};
use verdict_group::{FrameError, Group, Ristretto255, Scalar};

type G = Ristretto255;
type S = <G as Group>::Scalar;

fn main() -> Result<(), FrameError> {
    let mut rng = ChaCha20Rng::seed_from_u64(2013);
    let (clients, servers) = (10usize, 3usize);
    let owner = 6;
    let message = b"Hello from an anonymous slot owner!";
    let elements = elements_needed::<G>(message.len());

    // s[i][j]: the secret client i shares with server j (in Verdict, from Diffie-Hellman).
    let s: Vec<Vec<S>> = (0..clients)
        .map(|_| (0..servers).map(|_| S::random(&mut rng)).collect())
        .collect();
    // Per-round generators with unknown discrete logs: hashed, never g^h for a public h.
    let generators: Vec<G> = (0..elements as u32)
        .map(|k| G::hash_to_group(b"verdict/example/generator", &k.to_le_bytes()))
        .collect();

    let plaintext = encode_message::<G>(message, elements)?;
    let mut reveal = vec![G::identity(); elements];
    for (i, secrets) in s.iter().enumerate() {
        let sigma: S = secrets.iter().copied().sum();
        for (k, g) in generators.iter().enumerate() {
            let pad = *g * sigma;
            reveal[k] += if i == owner { pad + plaintext[k] } else { pad };
        }
    }
    for j in 0..servers {
        let tau: S = s.iter().map(|row| row[j]).sum();
        for (k, g) in generators.iter().enumerate() {
            reveal[k] -= *g * tau;
        }
    }
    let revealed = decode_message::<G>(&reveal)?;
    println!(
        "{clients} clients, {servers} servers, {elements} elements of {} bytes",
        <G as verdict_group::MessageGroup>::CAPACITY
    );
    println!("revealed: {:?}", String::from_utf8_lossy(&revealed));
    assert_eq!(revealed, message);
    Ok(())
}
