//! ristretto255 through `verdict-group` and directly through curve25519-dalek.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use curve25519_dalek::constants::{
    ED25519_BASEPOINT_POINT, RISTRETTO_BASEPOINT_POINT, RISTRETTO_BASEPOINT_TABLE,
};
use curve25519_dalek::edwards::{
    EdwardsBasepointTable, EdwardsBasepointTableRadix32, EdwardsBasepointTableRadix64,
    EdwardsBasepointTableRadix128, EdwardsBasepointTableRadix256,
};
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{BasepointTable, MultiscalarMul, VartimeMultiscalarMul};
use std::hint::black_box;
use verdict_group::Ristretto255;

fn raw(c: &mut Criterion) {
    let mut rng = common::rng();
    let mut g = c.benchmark_group("ristretto255/raw");
    let p = RistrettoPoint::random(&mut rng);
    let q = RistrettoPoint::random(&mut rng);
    let s = Scalar::random(&mut rng);
    g.bench_function("add", |b| b.iter(|| black_box(p) + black_box(q)));
    g.bench_function("scalar_mul", |b| b.iter(|| black_box(p) * black_box(s)));
    g.bench_function("mul_generator", |b| {
        b.iter(|| RISTRETTO_BASEPOINT_TABLE * black_box(&s))
    });
    // dalek's larger-radix constant-time tables exist only for Edwards points (no public
    // ristretto255 conversion); measured to show whether a larger radix would pay off.
    let e = ED25519_BASEPOINT_POINT;
    let (e16, e32, e64) = (
        EdwardsBasepointTable::create(&e),
        EdwardsBasepointTableRadix32::create(&e),
        EdwardsBasepointTableRadix64::create(&e),
    );
    let (e128, e256) = (
        EdwardsBasepointTableRadix128::create(&e),
        EdwardsBasepointTableRadix256::create(&e),
    );
    g.bench_function("edwards_table_radix16", |b| {
        b.iter(|| e16.mul_base(black_box(&s)))
    });
    g.bench_function("edwards_table_radix32", |b| {
        b.iter(|| e32.mul_base(black_box(&s)))
    });
    g.bench_function("edwards_table_radix64", |b| {
        b.iter(|| e64.mul_base(black_box(&s)))
    });
    g.bench_function("edwards_table_radix128", |b| {
        b.iter(|| e128.mul_base(black_box(&s)))
    });
    g.bench_function("edwards_table_radix256", |b| {
        b.iter(|| e256.mul_base(black_box(&s)))
    });
    let enc = p.compress().to_bytes();
    g.bench_function("encode", |b| b.iter(|| black_box(p).compress()));
    g.bench_function("decode_validated", |b| {
        b.iter(|| CompressedRistretto(black_box(enc)).decompress())
    });
    let mut wide = [0u8; 64];
    rand::RngCore::fill_bytes(&mut rng, &mut wide);
    g.bench_function("from_uniform_bytes", |b| {
        b.iter(|| RistrettoPoint::from_uniform_bytes(black_box(&wide)))
    });
    let _ = RISTRETTO_BASEPOINT_POINT;
    for n in common::MSM_SIZES {
        let scalars: Vec<_> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let points: Vec<_> = (0..n).map(|_| RistrettoPoint::random(&mut rng)).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("msm_vartime", n), &n, |b, _| {
            b.iter(|| {
                RistrettoPoint::vartime_multiscalar_mul(black_box(&scalars), black_box(&points))
            })
        });
        g.bench_with_input(BenchmarkId::new("msm_constant_time", n), &n, |b, _| {
            b.iter(|| RistrettoPoint::multiscalar_mul(black_box(&scalars), black_box(&points)))
        });
    }
    g.finish();
}

fn wrapper(c: &mut Criterion) {
    common::bench_group::<Ristretto255>(c);
    common::bench_batches::<Ristretto255>(c);
    common::bench_message_group::<Ristretto255>(c);
}

criterion_group!(benches, wrapper, raw);
criterion_main!(benches);
