//! Benchmarks shared by every group: the same operations through the `Group` trait, so each
//! per-group bench file can set them beside the raw-library calls and show the wrapper overhead.
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use verdict_group::{FixedBaseTable, Group, MessageGroup, Scalar};

pub const MSM_SIZES: [usize; 3] = [16, 256, 4096];

pub fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(0xbe9c)
}

/// Group operations through the trait, in group `{G::NAME}/wrapper/...`.
pub fn bench_group<G: Group>(c: &mut Criterion) {
    let mut rng = rng();
    let mut g = c.benchmark_group(format!("{}/wrapper", G::NAME));
    let p = G::random(&mut rng);
    let q = G::random(&mut rng);
    let s = G::Scalar::random(&mut rng);
    let t = G::Scalar::random(&mut rng);
    g.bench_function("add", |b| b.iter(|| black_box(p) + black_box(q)));
    g.bench_function("scalar_mul", |b| b.iter(|| black_box(p) * black_box(&s)));
    g.bench_function("scalar_mul_vartime", |b| {
        b.iter(|| black_box(p).mul_vartime(black_box(&s)))
    });
    g.bench_function("mul_generator", |b| {
        b.iter(|| G::mul_generator(black_box(&s)))
    });
    g.bench_function("double_base_vartime", |b| {
        b.iter(|| black_box(p).mul_add_generator_vartime(black_box(&s), black_box(&t)))
    });
    let table = p.precompute();
    g.bench_function("fixed_base_table_mul", |b| {
        b.iter(|| table.mul(black_box(&s)))
    });
    g.bench_function("precompute_table", |b| b.iter(|| black_box(p).precompute()));
    let enc = p.to_bytes();
    g.bench_function("encode", |b| b.iter(|| black_box(p).to_bytes()));
    g.bench_function("decode_validated", |b| {
        b.iter(|| G::from_bytes(black_box(enc.as_ref())))
    });
    g.bench_function("hash_to_group", |b| {
        b.iter(|| G::hash_to_group(b"verdict-bench", black_box(b"session 1 slot 2 round 3 k 4")))
    });
    let mut wide = [0u8; 64];
    rand::RngCore::fill_bytes(&mut rng, &mut wide);
    g.bench_function("scalar_from_uniform_bytes", |b| {
        b.iter(|| G::Scalar::from_uniform_bytes(black_box(&wide)))
    });
    for n in MSM_SIZES {
        let scalars: Vec<_> = (0..n).map(|_| G::Scalar::random(&mut rng)).collect();
        let points: Vec<_> = (0..n).map(|_| G::random(&mut rng)).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("msm_vartime", n), &n, |b, _| {
            b.iter(|| G::msm_vartime(black_box(&scalars), black_box(&points)))
        });
        g.bench_with_input(BenchmarkId::new("msm_secret", n), &n, |b, _| {
            b.iter(|| G::msm(black_box(&scalars), black_box(&points)))
        });
    }
    g.finish();
}

/// Batched operations of a prover, in group `{G::NAME}/wrapper/...`: one base times many
/// public scalars, and doubling with batch encoding. Per-element throughput at `n = 1024`.
pub fn bench_batches<G: Group>(c: &mut Criterion) {
    let n = 1024;
    let mut rng = rng();
    let mut g = c.benchmark_group(format!("{}/wrapper", G::NAME));
    let base = G::random(&mut rng);
    let scalars: Vec<_> = (0..n).map(|_| G::Scalar::random(&mut rng)).collect();
    let points: Vec<_> = (0..n).map(|_| G::random(&mut rng)).collect();
    g.throughput(Throughput::Elements(n as u64));
    g.bench_with_input(BenchmarkId::new("mul_many_vartime", n), &n, |b, _| {
        b.iter(|| black_box(base).mul_many_vartime(black_box(&scalars)))
    });
    g.bench_with_input(BenchmarkId::new("mul_generator_encoded", n), &n, |b, _| {
        b.iter(|| G::mul_generator_encoded(black_box(&scalars)))
    });
    g.bench_with_input(BenchmarkId::new("double_each_encoded", n), &n, |b, _| {
        b.iter(|| G::double_each_encoded(black_box(&points)))
    });
    g.finish();
}

/// Message embedding through the trait, in group `{G::NAME}/wrapper/...`.
pub fn bench_message_group<G: MessageGroup>(c: &mut Criterion) {
    let mut rng = rng();
    let mut g = c.benchmark_group(format!("{}/wrapper", G::NAME));
    let mut payload = vec![0u8; G::CAPACITY];
    rand::RngCore::fill_bytes(&mut rng, &mut payload);
    let e = G::embed(&payload).unwrap();
    g.bench_function("embed", |b| b.iter(|| G::embed(black_box(&payload))));
    g.bench_function("extract", |b| b.iter(|| black_box(e).extract()));
    g.finish();
}
