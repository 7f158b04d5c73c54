//! P-256 through `verdict-group` and directly through arkworks 0.6.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{BigInteger, PrimeField, UniformRand};
use ark_secp256r1::{Affine, Fr, Projective};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use verdict_group::fixed_base::RadixTable;
use verdict_group::{FixedBaseTable, Group, P256, Scalar as _};

fn raw(c: &mut Criterion) {
    let mut rng = common::rng();
    let mut g = c.benchmark_group("p256/raw");
    let p = Projective::rand(&mut rng);
    let q = Projective::rand(&mut rng);
    let s = Fr::rand(&mut rng);
    g.bench_function("add", |b| b.iter(|| black_box(p) + black_box(q)));
    g.bench_function("scalar_mul", |b| b.iter(|| black_box(p) * black_box(s)));
    g.bench_function("mul_generator", |b| {
        b.iter(|| Projective::generator() * black_box(s))
    });
    g.bench_function("encode", |b| {
        b.iter(|| {
            let mut out = [0u8; 33];
            black_box(p)
                .into_affine()
                .serialize_compressed(&mut out[..])
                .unwrap();
            out
        })
    });
    let mut enc = Vec::new();
    p.into_affine().serialize_compressed(&mut enc).unwrap();
    g.bench_function("decode_validated", |b| {
        b.iter(|| Affine::deserialize_compressed(black_box(&enc[..])))
    });
    for n in common::MSM_SIZES {
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let points: Vec<Projective> = (0..n).map(|_| Projective::rand(&mut rng)).collect();
        let bases = Projective::normalize_batch(&points);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("msm_vartime", n), &n, |b, _| {
            b.iter(|| Projective::msm(black_box(&bases), black_box(&scalars)))
        });
        // The same inputs the wrapper gets: projective points, normalized inside the timing.
        g.bench_with_input(BenchmarkId::new("msm_from_projective", n), &n, |b, _| {
            b.iter(|| {
                let bases = Projective::normalize_batch(black_box(&points));
                Projective::msm(&bases, black_box(&scalars))
            })
        });
    }
    g.finish();
}

/// Secret-scalar multiplications, constant time (RustCrypto `p256`, the default since the
/// secret-hygiene work) beside the variable-time arkworks paths they replaced, on the same
/// inputs: `ct/...` against `vartime/...`.
fn secret_vs_public(c: &mut Criterion) {
    let mut rng = common::rng();
    let mut g = c.benchmark_group("p256/secret");
    let p = P256::random(&mut rng);
    let s = <P256 as Group>::Scalar::random(&mut rng);
    g.bench_function("ct/mul", |b| b.iter(|| black_box(p) * black_box(&s)));
    g.bench_function("vartime/mul", |b| {
        b.iter(|| black_box(p).mul_vartime(black_box(&s)))
    });
    // The raw constant-time library on the same point and scalar: RustCrypto `p256` 0.13's
    // fixed-window ladder and its normalization (one inversion), what `ct/mul` ran on before
    // its Jacobian ladder. Item 3 of issue 17 reports `ct/mul` as a ratio against this row.
    let rc_point = rustcrypto_point(&p);
    let rc_scalar = <p256_rustcrypto::Scalar as p256_rustcrypto::elliptic_curve::ops::Reduce<
        p256_rustcrypto::U256,
    >>::reduce_bytes(&s.to_bytes().into());
    g.bench_function("raw-rustcrypto/mul", |b| {
        b.iter(|| (black_box(rc_point) * black_box(rc_scalar)).to_affine())
    });
    g.bench_function("ct/mul_generator", |b| {
        b.iter(|| P256::mul_generator(black_box(&s)))
    });
    let radix = RadixTable::new(&P256::generator());
    g.bench_function("vartime/mul_generator", |b| {
        b.iter(|| radix.mul(black_box(&s)))
    });
    // The hashing-generator client's inner loop: one secret σ times L per-round generators.
    let n = 64;
    let bases: Vec<P256> = (0..n).map(|_| P256::random(&mut rng)).collect();
    g.throughput(Throughput::Elements(n as u64));
    g.bench_with_input(BenchmarkId::new("ct/mul_each_encoded", n), &n, |b, _| {
        b.iter(|| P256::mul_each_encoded(black_box(&bases), black_box(&s)))
    });
    g.bench_with_input(
        BenchmarkId::new("vartime/mul_each_encoded", n),
        &n,
        |b, _| {
            b.iter(|| {
                let points: Vec<P256> = bases.iter().map(|q| q.mul_vartime(&s)).collect();
                P256::batch_to_bytes(&points)
            })
        },
    );
    g.finish();
}

/// A verdict-group P-256 point as a RustCrypto `p256` point, through its uncompressed
/// coordinates (both libraries use SEC1).
fn rustcrypto_point(p: &P256) -> p256_rustcrypto::ProjectivePoint {
    use p256_rustcrypto::elliptic_curve::sec1::FromEncodedPoint;
    let affine = p.0.into_affine();
    let mut x = [0u8; 32];
    let mut y = [0u8; 32];
    x.copy_from_slice(&affine.x.into_bigint().to_bytes_be());
    y.copy_from_slice(&affine.y.into_bigint().to_bytes_be());
    let encoded =
        p256_rustcrypto::EncodedPoint::from_affine_coordinates(&x.into(), &y.into(), false);
    p256_rustcrypto::AffinePoint::from_encoded_point(&encoded)
        .unwrap()
        .into()
}

fn wrapper(c: &mut Criterion) {
    common::bench_group::<P256>(c);
    common::bench_batches::<P256>(c);
    common::bench_message_group::<P256>(c);
}

criterion_group!(benches, wrapper, raw, secret_vs_public);
criterion_main!(benches);
