//! Tests of batch verification (`batch.rs`): merging, splitting, weights drawn apart, and
//! batches checked together.

use super::*;
use crate::{Context, Schnorr, Shape};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_group::Ristretto255 as G;

type S = <G as Group>::Scalar;

/// The point of batching is one MSM over the *merged* bases: two Schnorr proofs over the
/// generator give five MSM terms (two commitments, one shared generator, two public keys),
/// not six, and the merged equation still holds. (Merging is otherwise invisible: a batch
/// that never merged would accept and reject exactly the same proofs, only slower.)
#[test]
fn equal_bases_of_consecutive_proofs_share_one_term() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let ctx = Context::new(b"verdict-nizk/batch-test", [2u8; 32]);
    let mut acc = Accumulator::<G>::new();
    for i in 0..2u64 {
        let x = S::from_u64(10 + i);
        let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
        let proof = st.prove(&mut ctx.transcript(), &[x], &mut rng).unwrap();
        let pending = pending_for(&st, &mut ctx.transcript(), &proof, Use::Batched).unwrap();
        assert_eq!(pending.checks_g.len(), 1);
        acc.add(&pending.checks_g[0], &S::from_u64(3 + i));
        acc.next_proof();
    }
    assert_eq!(acc.points.len(), 5);
    assert_eq!(acc.points[1], G::generator());
    assert!(acc.holds());
}

/// Only bases are candidates for merging: a statement's public image is not compared with
/// the previous proof's (two proofs about one image are rare, and each comparison costs an
/// equality test per term), so two proofs of the same statement still give 5 terms: 2
/// commitments, 1 merged generator, 2 images.
#[test]
fn images_are_never_merged() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let ctx = Context::new(b"verdict-nizk/batch-test", [4u8; 32]);
    let x = S::from_u64(10);
    let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
    let mut acc = Accumulator::<G>::new();
    for i in 0..2u64 {
        let proof = st.prove(&mut ctx.transcript(), &[x], &mut rng).unwrap();
        let pending = pending_for(&st, &mut ctx.transcript(), &proof, Use::Batched).unwrap();
        assert_eq!(pending.checks_g[0].bases, 1);
        acc.add(&pending.checks_g[0], &S::from_u64(3 + i));
        acc.next_proof();
    }
    assert_eq!(acc.points.len(), 5);
    assert!(acc.holds());
}

/// `count` Schnorr proofs of knowledge of `first_secret + i` (proof `i`), drawn from a
/// generator seeded with `seed`; those at `wrong` prove the secret plus one instead.
fn schnorr_proofs(
    ctx: &Context,
    seed: u64,
    count: u64,
    first_secret: u64,
    wrong: &[u64],
) -> Vec<(Schnorr<G>, Proof<G>)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let x = S::from_u64(first_secret + i);
            let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
            let w = if wrong.contains(&i) { x + S::one() } else { x };
            let proof = st.prove(&mut ctx.transcript(), &[w], &mut rng).unwrap();
            (st, proof)
        })
        .collect()
}

/// A batch of 64 proofs with invalid ones at both ends of the runs the parallel path splits
/// into, and a malformed one: 1 and 2 threads name the same proofs, draw the same weights
/// (the RNG is left in the same state), and items made apart and weights drawn apart
/// ([`BatchVerifier::weigh`]) give what items added in place and checked at once give.
#[test]
fn one_and_two_threads_name_the_same_invalid_proofs() {
    let ctx = Context::new(b"verdict-nizk/batch-test", [3u8; 32]);
    // Proofs 0, 31, 32 and 63 prove the wrong secret.
    let cases = schnorr_proofs(&ctx, 2, 64, 100, &[0, 31, 32, 63]);
    let run = |threads: usize, apart: bool| {
        verdict_group::par::with_threads(threads, || {
            let mut batch = BatchVerifier::<G>::new();
            for (st, proof) in &cases {
                if apart {
                    batch.add_item(BatchItem::new(st, ctx.transcript(), proof));
                } else {
                    batch.add(st, ctx.transcript(), proof);
                }
            }
            // A proof of the wrong shape (two responses): an `Err` item at index 64.
            let (st, proof) = &cases[1];
            let mut bytes = proof.to_bytes();
            bytes.extend_from_within(32..);
            let bad_shape = Shape {
                commitments_g: 1,
                commitments_h: 0,
                responses: 2,
            };
            let odd = Proof::<G>::from_bytes(&bytes, bad_shape).unwrap();
            batch.add(st, ctx.transcript(), &odd);
            let mut weights = ChaCha20Rng::seed_from_u64(9);
            if apart {
                // Weights drawn first, the batch checked after the generator moved on.
                let weighed = batch.weigh(&mut weights);
                let next = weights.next_u64();
                (weighed.verify(), next)
            } else {
                let out = batch.verify(&mut weights);
                (out, weights.next_u64())
            }
        })
        .unwrap()
    };
    let serial = run(1, false);
    assert_eq!(
        serial.0,
        Err(BatchError {
            invalid: vec![0, 31, 32, 63, 64]
        })
    );
    assert_eq!(run(2, false), serial);
    assert_eq!(run(2, true), serial);
    assert_eq!(run(1, true), serial);
}

/// Batches checked together answer what each checked alone answers: all valid; one
/// batch with an invalid proof (the others still `Ok`); one with a proof that failed
/// before the batch; at 1 and 2 threads.
#[test]
fn batches_checked_together_answer_as_each_alone() {
    let ctx = Context::new(b"verdict-nizk/batch-test", [6u8; 32]);
    let proofs = schnorr_proofs(&ctx, 6, 90, 300, &[47]);
    let batches = |ranges: &[core::ops::Range<usize>], malformed: bool| {
        let mut weights = ChaCha20Rng::seed_from_u64(7);
        ranges
            .iter()
            .map(|r| {
                let mut batch = BatchVerifier::<G>::new();
                for (st, proof) in &proofs[r.clone()] {
                    batch.add(st, ctx.transcript(), proof);
                }
                if malformed && r.start == 0 {
                    batch.push(Err(VerifyError::ShapeMismatch));
                }
                batch.weigh(&mut weights)
            })
            .collect::<Vec<_>>()
    };
    for (ranges, malformed) in [
        (vec![0..30, 48..90], false),
        (vec![0..30, 30..60, 60..90], false),
        (vec![0..30, 48..90], true),
    ] {
        let alone: Vec<_> = batches(&ranges, malformed)
            .iter()
            .map(WeighedBatch::verify)
            .collect();
        for threads in [1, 2] {
            let together = par::with_threads(threads, || {
                WeighedBatch::verify_together(&batches(&ranges, malformed))
            })
            .unwrap();
            assert_eq!(together, alone, "{ranges:?}, {threads} thread(s)");
        }
        let expect_invalid = ranges.contains(&(30..60)) || malformed;
        assert_eq!(
            alone.iter().any(Result::is_err),
            expect_invalid,
            "{ranges:?}"
        );
    }
    let invalid_middle = &batches(&[0..30, 30..60, 60..90], false);
    assert_eq!(
        WeighedBatch::verify_together(invalid_middle),
        vec![Ok(()), Err(BatchError { invalid: vec![17] }), Ok(())]
    );
}

/// Runs are cut by terms, not by proofs: they cover every proof once, in order; a batch
/// under two runs' worth of terms is one run; a batch whose first proof is as large as all
/// the others together is cut right after it.
#[test]
fn runs_split_the_terms_not_the_proofs() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let ctx = Context::new(b"verdict-nizk/batch-test", [5u8; 32]);
    let schnorr = |i: u64, rng: &mut ChaCha20Rng| {
        let x = S::from_u64(20 + i);
        let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
        let proof = st.prove(&mut ctx.transcript(), &[x], rng).unwrap();
        pending_for(&st, &mut ctx.transcript(), &proof, Use::Batched).unwrap()
    };
    let small: Vec<Pending<G, G>> = (0..100).map(|i| schnorr(i, &mut rng)).collect();
    assert_eq!(small[0].terms(), 3);
    let runs = |p: &[Pending<G, G>], threads: usize| {
        let weighted: Vec<(&Pending<G, G>, ())> = p.iter().map(|p| (p, ())).collect();
        par::with_threads(threads, || runs_of_terms(&weighted)).unwrap()
    };
    // Whether a two-thread pool splits work here (verdict-group's `parallel` feature, which the
    // tests' dev-dependency turns on).
    assert!(
        par::with_threads(2, par::enabled).unwrap(),
        "the tests run with verdict-group's `parallel` feature"
    );
    assert_eq!(runs(&small, 1), vec![(0, 100)]);
    assert_eq!(runs(&small[..40], 2), vec![(0, 40)], "120 terms: one run");
    assert_eq!(runs(&small, 2), vec![(0, 50), (50, 100)]);
    // One check of 300 terms first, then 100 proofs of 3 terms.
    let mut big = small[0].clone();
    let check = &mut big.checks_g[0];
    check.scalars = vec![S::one(); 300];
    check.points = vec![G::generator(); 300];
    let mut mixed = vec![big];
    mixed.extend(small.iter().cloned());
    assert_eq!(runs(&mixed, 2), vec![(0, 1), (1, 101)]);
    assert_eq!(runs(&[], 2), vec![(0, 0)]);
}
