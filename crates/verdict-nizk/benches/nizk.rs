//! Criterion benchmarks: prove/verify for Schnorr, DLEQ, vector DLEQ (L = 1…1024), an OR of two
//! branches, and batch verification of 1,000 DLEQ proofs against one-by-one verification.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_group::{Group, Scalar};
use verdict_nizk::{BatchVerifier, Context, Dleq, Encoded, Or, Schnorr, Statement, VectorDleq};

fn ctx() -> Context {
    Context::new(b"verdict-nizk/bench", [9; 32])
        .with_round(1)
        .with_slot(2)
        .with_sender(3)
}

fn vector_instance<G: Group>(len: usize, rng: &mut ChaCha20Rng) -> (VectorDleq<G>, G::Scalar) {
    let x = G::Scalar::random(rng);
    let hs: Vec<G> = (0..len).map(|_| G::random(rng)).collect();
    let cs: Vec<G> = hs.iter().map(|h| *h * x).collect();
    let st = VectorDleq::new(
        G::generator(),
        G::mul_generator(&x),
        Encoded::batch_new(&hs),
        Encoded::batch_new(&cs),
    )
    .unwrap();
    (st, x)
}

fn bench_group<G: Group>(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let name = G::NAME;

    let x = G::Scalar::random(&mut rng);
    let schnorr = Schnorr::<G>::with_generator(G::mul_generator(&x));
    let proof = schnorr
        .prove(&mut ctx().transcript(), &[x], &mut rng)
        .unwrap();
    let mut g = c.benchmark_group(format!("schnorr/{name}"));
    g.bench_function("prove", |b| {
        b.iter(|| {
            schnorr
                .prove(&mut ctx().transcript(), &[x], &mut rng)
                .unwrap()
        })
    });
    g.bench_function("verify", |b| {
        b.iter(|| schnorr.verify(&mut ctx().transcript(), &proof).unwrap())
    });
    g.finish();

    let h = G::random(&mut rng);
    let dleq = Dleq::<G>::new(G::generator(), G::mul_generator(&x), h, h * x);
    let proof = dleq.prove(&mut ctx().transcript(), &[x], &mut rng).unwrap();
    let mut g = c.benchmark_group(format!("dleq/{name}"));
    g.bench_function("prove", |b| {
        b.iter(|| dleq.prove(&mut ctx().transcript(), &[x], &mut rng).unwrap())
    });
    g.bench_function("verify", |b| {
        b.iter(|| dleq.verify(&mut ctx().transcript(), &proof).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("vector-dleq/{name}"));
    g.sample_size(10);
    for len in [1usize, 4, 16, 64, 256, 1024] {
        let (st, w) = vector_instance::<G>(len, &mut rng);
        let proof = st.prove(&mut ctx().transcript(), &[w], &mut rng).unwrap();
        g.bench_with_input(BenchmarkId::new("prove", len), &len, |b, _| {
            b.iter(|| st.prove(&mut ctx().transcript(), &[w], &mut rng).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("verify", len), &len, |b, _| {
            b.iter(|| st.verify(&mut ctx().transcript(), &proof).unwrap())
        });
    }
    g.finish();

    // (U = σ·G ∧ C = σ·H) ∨ (Y = y·G), proved by the owner (branch 1) and by a cover client.
    let (vd, sigma) = vector_instance::<G>(1, &mut rng);
    let y = G::Scalar::random(&mut rng);
    let sch = Schnorr::<G>::with_generator(G::mul_generator(&y));
    let or = Or::new(vec![&vd as &dyn Statement<G>, &sch]).unwrap();
    let proof = or
        .prove(&mut ctx().transcript(), 0, &[sigma], &mut rng)
        .unwrap();
    let mut g = c.benchmark_group(format!("or2/{name}"));
    g.bench_function("prove", |b| {
        b.iter(|| {
            or.prove(&mut ctx().transcript(), 0, &[sigma], &mut rng)
                .unwrap()
        })
    });
    g.bench_function("verify", |b| {
        b.iter(|| or.verify(&mut ctx().transcript(), &proof).unwrap())
    });
    g.finish();

    // 1,000 DLEQ proofs over common bases (G, H), distinct statements.
    let n = 1000;
    let items: Vec<(Dleq<G>, verdict_nizk::Proof<G>)> = (0..n)
        .map(|_| {
            let x = G::Scalar::random(&mut rng);
            let st = Dleq::<G>::new(G::generator(), G::mul_generator(&x), h, h * x);
            let p = st.prove(&mut ctx().transcript(), &[x], &mut rng).unwrap();
            (st, p)
        })
        .collect();
    let mut g = c.benchmark_group(format!("batch-dleq-1000/{name}"));
    g.sample_size(10);
    g.bench_function("one-by-one", |b| {
        b.iter(|| {
            for (st, p) in &items {
                st.verify(&mut ctx().transcript(), p).unwrap();
            }
        })
    });
    g.bench_function("batch", |b| {
        b.iter_batched(
            || ChaCha20Rng::seed_from_u64(7),
            |mut r| {
                let mut batch = BatchVerifier::<G>::with_capacity(n);
                for (st, p) in &items {
                    batch.add(st, ctx().transcript(), p);
                }
                batch.verify(&mut r).unwrap();
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_group::<verdict_group::Ristretto255>(c);
    bench_group::<verdict_group::P256>(c);
}

criterion_group!(nizk, benches);
criterion_main!(nizk);
