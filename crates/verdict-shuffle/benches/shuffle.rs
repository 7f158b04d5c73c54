//! Criterion benches: Neff shuffle prove / verify and the full pseudonym-key shuffle.
//!
//! Short sanity run: `cargo bench -p verdict-shuffle --bench shuffle -- 'ristretto255/n=1024'
//! --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{Group, P256, Ristretto255};
use verdict_shuffle::{
    Ciphertext, CiphertextList, KeyPair, ProofContext, ShuffleStatement, prove, shuffle, verify,
    verify_each,
};

const SIZES: [usize; 4] = [64, 256, 1024, 4096];

fn neff<G: Group>(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(42);
    let mut grp = c.benchmark_group(format!("neff/{}", G::NAME));
    grp.sample_size(10);
    let kp = KeyPair::<G>::generate(&mut rng);
    let h = kp.public();
    let ctx = ProofContext::new([1u8; 32], 0);
    for n in SIZES {
        let inputs = CiphertextList::new(
            (0..n)
                .map(|_| Ciphertext::encrypt(&h, &G::random(&mut rng), &mut rng).0)
                .collect(),
        );
        let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        grp.bench_with_input(BenchmarkId::new("shuffle", n), &n, |b, _| {
            b.iter(|| shuffle(&h, &inputs, &mut rng))
        });
        grp.bench_with_input(BenchmarkId::new("prove", n), &n, |b, _| {
            b.iter(|| prove(&ctx, &st, &witness, &mut rng).unwrap())
        });
        let proof = prove(&ctx, &st, &witness, &mut rng).unwrap();
        grp.bench_with_input(BenchmarkId::new("verify", n), &n, |b, _| {
            b.iter(|| verify(&ctx, &st, &proof).unwrap())
        });
        if n <= 1024 {
            grp.bench_with_input(BenchmarkId::new("verify_each", n), &n, |b, _| {
                b.iter(|| verify_each(&ctx, &st, &proof).unwrap())
            });
        }
    }
    grp.finish();
}

/// The full pseudonym-key shuffle: N = 1024 clients, M = 8 servers, as seen by one observer
/// that verifies everything (servers' proving included).
fn key_shuffle(c: &mut Criterion) {
    use verdict_shuffle::keyshuffle::client_submit;
    use verdict_shuffle::{KeyShuffle, KeyShuffleParams};
    let (n, m) = (1024usize, 8usize);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let servers: Vec<KeyPair<Ristretto255>> = (0..m).map(|_| KeyPair::generate(&mut rng)).collect();
    let params =
        KeyShuffleParams::new([2u8; 32], servers.iter().map(KeyPair::public).collect(), n).unwrap();
    let subs: Vec<Vec<u8>> = (0..n as u32)
        .map(|i| client_submit(&params, i, &mut rng).unwrap().1.to_bytes())
        .collect();
    let mut grp = c.benchmark_group("key_shuffle/ristretto255");
    grp.sample_size(10);
    grp.bench_function(BenchmarkId::new("full", format!("N={n},M={m}")), |b| {
        b.iter(|| {
            let mut ks = KeyShuffle::new(params.clone());
            for (i, s) in subs.iter().enumerate() {
                ks.receive_submission(i as u32, s).unwrap();
            }
            ks.close_submissions().unwrap();
            for j in 0..m as u32 {
                let msg = ks.make_shuffle(j, &mut rng).unwrap();
                ks.receive_shuffle(j, &msg).unwrap();
            }
            for j in 0..m as u32 {
                let msg = ks
                    .make_decryption(j, &servers[j as usize], &mut rng)
                    .unwrap();
                ks.receive_decryption(j, &msg).unwrap();
            }
            ks.slots().unwrap().len()
        })
    });
    grp.finish();
}

criterion_group!(benches, neff::<Ristretto255>, neff::<P256>, key_shuffle);
criterion_main!(benches);
