//! BLS12-381 through `verdict-group` and directly through arkworks 0.6.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use ark_bls12_381::{Bls12_381, Fr, G1Affine, G1Projective, G2Affine, G2Projective, g1};
use ark_ec::hashing::HashToCurve;
use ark_ec::hashing::curve_maps::wb::WBMap;
use ark_ec::hashing::map_to_curve_hasher::MapToCurveBasedHasher;
use ark_ec::pairing::Pairing;
use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::field_hashers::DefaultFieldHasher;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use verdict_group::bls12_381::{Scalar, multi_pairing, pairing};
use verdict_group::{Bls12381G1, Bls12381G2, Bls12381Gt, Group, Scalar as _};

/// A uniformly random arkworks scalar from the bench RNG (through our wide reduction, so the
/// raw benches need no second RNG ecosystem).
fn fr(rng: &mut impl rand::RngCore) -> Fr {
    let mut wide = [0u8; 64];
    rng.fill_bytes(&mut wide);
    Scalar::from_uniform_bytes(&wide).0
}

fn raw(c: &mut Criterion) {
    let mut rng = common::rng();
    let mut g = c.benchmark_group("bls12_381/raw");
    let p = G1Projective::generator() * fr(&mut rng);
    let q = G1Projective::generator() * fr(&mut rng);
    let p2 = G2Projective::generator() * fr(&mut rng);
    let s = fr(&mut rng);
    g.bench_function("g1_add", |b| b.iter(|| black_box(p) + black_box(q)));
    g.bench_function("g1_scalar_mul", |b| b.iter(|| black_box(p) * black_box(s)));
    g.bench_function("g2_scalar_mul", |b| b.iter(|| black_box(p2) * black_box(s)));
    let mut enc1 = Vec::new();
    p.into_affine().serialize_compressed(&mut enc1).unwrap();
    let mut enc2 = Vec::new();
    p2.into_affine().serialize_compressed(&mut enc2).unwrap();
    g.bench_function("g1_encode", |b| {
        b.iter(|| {
            let mut v = [0u8; 48];
            black_box(p)
                .into_affine()
                .serialize_compressed(&mut v[..])
                .unwrap();
            v
        })
    });
    g.bench_function("g1_decode_validated", |b| {
        b.iter(|| G1Affine::deserialize_compressed(black_box(&enc1[..])))
    });
    g.bench_function("g2_decode_validated", |b| {
        b.iter(|| G2Affine::deserialize_compressed(black_box(&enc2[..])))
    });
    g.bench_function("hash_to_g1", |b| {
        b.iter(|| {
            let h = MapToCurveBasedHasher::<
                G1Projective,
                DefaultFieldHasher<sha2::Sha256, 128>,
                WBMap<g1::Config>,
            >::new(b"verdict-bench")
            .unwrap();
            h.hash(black_box(b"session 1 slot 2 round 3 k 4"))
        })
    });
    g.bench_function("pairing", |b| {
        b.iter(|| Bls12_381::pairing(black_box(p), black_box(p2)))
    });
    let e = Bls12_381::pairing(p, p2);
    g.bench_function("gt_exp", |b| b.iter(|| black_box(e) * black_box(s)));
    let mut enc_t = Vec::new();
    e.serialize_compressed(&mut enc_t).unwrap();
    g.bench_function("gt_decode_validated", |b| {
        b.iter(|| {
            ark_ec::pairing::PairingOutput::<Bls12_381>::deserialize_compressed(black_box(
                &enc_t[..],
            ))
        })
    });
    for n in common::MSM_SIZES {
        let scalars: Vec<_> = (0..n).map(|_| fr(&mut rng)).collect();
        let points: Vec<_> = (0..n)
            .map(|_| (G1Projective::generator() * fr(&mut rng)).into_affine())
            .collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("g1_msm", n), &n, |b, _| {
            b.iter(|| G1Projective::msm_unchecked(black_box(&points), black_box(&scalars)))
        });
        // The same inputs the wrapper gets: projective points, normalized inside the timing.
        let projective: Vec<G1Projective> = points.iter().map(|p| (*p).into()).collect();
        g.bench_with_input(BenchmarkId::new("g1_msm_from_projective", n), &n, |b, _| {
            b.iter(|| {
                let affine = G1Projective::normalize_batch(black_box(&projective));
                G1Projective::msm_unchecked(&affine, black_box(&scalars))
            })
        });
    }
    g.finish();
}

fn wrapper(c: &mut Criterion) {
    common::bench_group::<Bls12381G1>(c);
    common::bench_group::<Bls12381G2>(c);

    // GT: the operations the pairing-based suite uses (the full `bench_group` would spend
    // minutes on 4096-element GT MSMs).
    let mut rng = common::rng();
    let mut g = c.benchmark_group("bls12-381-gt/wrapper");
    let t = Bls12381Gt::random(&mut rng);
    let u = Bls12381Gt::random(&mut rng);
    let s = Scalar::random(&mut rng);
    g.bench_function("add", |b| b.iter(|| black_box(t) + black_box(u)));
    g.bench_function("scalar_mul", |b| b.iter(|| black_box(t) * black_box(&s)));
    g.bench_function("mul_generator", |b| {
        b.iter(|| Bls12381Gt::mul_generator(black_box(&s)))
    });
    let enc = t.to_bytes();
    g.bench_function("encode", |b| b.iter(|| black_box(t).to_bytes()));
    g.bench_function("decode_validated", |b| {
        b.iter(|| Bls12381Gt::from_bytes(black_box(enc.as_ref())))
    });
    g.bench_function("hash_to_group", |b| {
        b.iter(|| {
            Bls12381Gt::hash_to_group(b"verdict-bench", black_box(b"session 1 slot 2 round 3 k 4"))
        })
    });
    let p = Bls12381G1::random(&mut rng);
    let q = Bls12381G2::random(&mut rng);
    g.bench_function("pairing", |b| {
        b.iter(|| pairing(black_box(&p), black_box(&q)))
    });
    let ps: Vec<_> = (0..4).map(|_| Bls12381G1::random(&mut rng)).collect();
    let qs: Vec<_> = (0..4).map(|_| Bls12381G2::random(&mut rng)).collect();
    g.bench_function("multi_pairing_4", |b| {
        b.iter(|| multi_pairing(black_box(&ps), black_box(&qs)))
    });
    for n in [16usize, 64] {
        let scalars: Vec<_> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let points: Vec<_> = (0..n).map(|_| Bls12381Gt::random(&mut rng)).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("msm_vartime", n), &n, |b, _| {
            b.iter(|| Bls12381Gt::msm_vartime(black_box(&scalars), black_box(&points)))
        });
    }
    g.finish();
}

criterion_group!(benches, wrapper, raw);
criterion_main!(benches);
