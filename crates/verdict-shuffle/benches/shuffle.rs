//! Criterion benches: Neff shuffle prove / verify and the full pseudonym-key shuffle.
//!
//! Short sanity run: `cargo bench -p verdict-shuffle --bench shuffle -- 'ristretto255/n=1024'
//! --warm-up-time 1 --measurement-time 3`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{Group, Ristretto255};
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

criterion_group!(benches, neff::<Ristretto255>);
criterion_main!(benches);
