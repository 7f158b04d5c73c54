//! Tests aimed at the mutants that ordinary completeness/soundness tests cannot see (issue 19,
//! item 6): symmetric transcript skips (only known-answer bytes catch them), the batch verifier's
//! weights and base merging (only individually-invalid proofs crafted to cancel under the wrong
//! arithmetic catch them), and programmed-challenge verification of OR proofs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use rand_core::{CryptoRng, RngCore};
use verdict_group::{Group, Scalar};
use verdict_nizk::{BatchVerifier, Dleq, Encoded, Or, OrProof, Proof, Schnorr, Statement};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Proof bytes for fixed statements, witnesses and RNG seeds. The prover hedges its nonces with
/// the transcript, and the responses depend on the challenge, so dropping any absorbed item
/// (`absorb_commitments`, a statement append) in prover *and* verifier changes these bytes.
#[test]
fn proofs_have_known_answer_bytes() {
    let x = S::from_u64(7);
    let y = S::from_u64(11);
    let h = G::mul_generator(&S::from_u64(5));
    let schnorr = Schnorr::<G>::with_generator(G::mul_generator(&x));
    let p1 = schnorr
        .prove(&mut ctx().transcript(), &[x], &mut rng(1))
        .unwrap();
    let dleq = Dleq::new(G::generator(), G::mul_generator(&x), h, h * x);
    let p2 = dleq
        .prove(&mut ctx().transcript(), &[x], &mut rng(2))
        .unwrap();
    let other = Schnorr::<G>::with_generator(G::mul_generator(&y));
    let or = Or::new(vec![&schnorr, &other]).unwrap();
    let p3 = or
        .prove(&mut ctx().transcript(), 1, &[y], &mut rng(3))
        .unwrap();
    let got = [
        hex(&p1.to_bytes()),
        hex(&p2.to_bytes()),
        hex(&p3.to_bytes()),
    ];
    let expected = [
        "04aef4721da80e0cb02cb0c08784bb0594b8472ed7d573dcc6763ec7cb4892297f5ac519bde36521b4382f822d68669ba5d7d151a7faeb70380281d2fcaee405",
        "8648493e1a81ccc5cfba92b7515777751264772ab27921f776908cf995980919064be8b3717095ed5b062dc83195bdfc0a23fdadece5a0fab4fef837a532982981909bee182c1bb34029618fc63a37652b872f592be15819fe4846ced597d107",
        "2b1d6660805b3e440a9bc066cbf5902afb84737446b3ac934f0958595d3ef70064196c0836db8619ee02d259a75d51f021f8e6a6cb5eb947cf2e1c0f01a0143fc9e0967efbcae6ebc4bd052cb0f11d69a6de5ccb6b8c1275f7ff47159f918703ea66eb4756f32462e6d6b924cf033cff4e58f0b0397bf83dfb8a87e4f858ca5425766c1d9aae978654f6ac8d45655b1986ea4f1d087face48fd7418c92f14902",
    ];
    assert_eq!(got, expected);
    // And they verify (the pins are of valid proofs).
    assert!(schnorr.verify(&mut ctx().transcript(), &p1).is_ok());
    assert!(dleq.verify(&mut ctx().transcript(), &p2).is_ok());
    assert!(or.verify(&mut ctx().transcript(), &p3).is_ok());
}

#[test]
fn or_programmed_challenge_is_checked() {
    let mut r = rng(40);
    let a = Schnorr::<G>::with_generator(G::random(&mut r));
    let b = Schnorr::<G>::with_generator(G::random(&mut r));
    let or = Or::new(vec![&a, &b]).unwrap();
    let c = scalar(&mut r);
    let sim = or.simulate(&mut ctx().transcript(), &c, &mut r);
    assert!(
        or.verify_with_challenge(&mut ctx().transcript(), &sim, &c)
            .is_ok()
    );
    assert!(
        or.verify_with_challenge(&mut ctx().transcript(), &sim, &(c + S::one()))
            .is_err()
    );
    // A branch response off by one breaks it even under the right challenge.
    let mut branches = sim.branches().to_vec();
    let z = branches[0].responses()[0] + S::one();
    branches[0] = Proof::from_parts(branches[0].commitments_g().to_vec(), vec![], vec![z]);
    let bad = OrProof::from_parts(sim.challenges().to_vec(), branches);
    assert!(
        or.verify_with_challenge(&mut ctx().transcript(), &bad, &c)
            .is_err()
    );
}

/// An RNG whose `next_u64` counts 1, 2, 3, …: the batch weights become predictable, so a test
/// can craft proofs that cancel under a *wrong* weight formula.
struct Counter(u64);
impl RngCore for Counter {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}
impl CryptoRng for Counter {}

/// Two honest Schnorr proofs over the generator, each with its response shifted by `δᵢ`: each
/// is invalid, and the batch equation's residue is `−(ρ₁δ₁ + ρ₂δ₂)·G`.
fn shifted_pair(d1: S, d2: S) -> BatchVerifier<G> {
    let mut batch = BatchVerifier::<G>::new();
    for (i, d) in [d1, d2].into_iter().enumerate() {
        let x = S::from_u64(100 + i as u64);
        let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
        let p = st
            .prove(&mut ctx().transcript(), &[x], &mut rng(50 + i as u64))
            .unwrap();
        let shifted = Proof::from_parts(
            p.commitments_g().to_vec(),
            vec![],
            vec![p.responses()[0] + d],
        );
        batch.add(&st, ctx().transcript(), &shifted);
    }
    batch
}

/// A batch-weight formula from the two 64-bit RNG outputs `(hi, lo)`.
type WeightFormula = fn(u64, u64) -> S;

/// The batch weights are full 128-bit `hi·2⁶⁴ + lo`. For each plausible wrong formula (the
/// arithmetic mutants of the weight closure), two invalid proofs whose errors cancel under that
/// formula's weights must still be rejected — they are, only if the real weights are used.
#[test]
fn batch_weights_are_full_width() {
    let two64 = S::from_u64(u64::MAX) + S::one();
    let two32 = S::from_u64(1 << 32);
    let real = |hi: u64, lo: u64| S::from_u64(hi) * two64 + S::from_u64(lo);
    // Sanity: with the real formula, the crafted pair does cancel (the weights are known).
    let (r1, r2) = (real(1, 2), real(3, 4));
    assert!(shifted_pair(r2, -r1).verify(&mut Counter(0)).is_ok());

    let wrong: [(&str, WeightFormula); 6] = [
        ("hi + 2^64 + lo", |h, l| {
            S::from_u64(h) + (S::from_u64(u64::MAX) + S::one()) + S::from_u64(l)
        }),
        ("hi·2^64 − lo", |h, l| {
            S::from_u64(h) * (S::from_u64(u64::MAX) + S::one()) - S::from_u64(l)
        }),
        ("hi·2^64·lo", |h, l| {
            S::from_u64(h) * (S::from_u64(u64::MAX) + S::one()) * S::from_u64(l)
        }),
        ("lo only (2^32 as 1>>32)", |_, l| S::from_u64(l)),
        ("hi·2^33 + lo", |h, l| {
            S::from_u64(h) * S::from_u64(1 << 33) + S::from_u64(l)
        }),
        ("hi + lo", |h, l| S::from_u64(h) + S::from_u64(l)),
    ];
    assert_eq!(two32 * two32, two64);
    for (name, w) in wrong {
        let (w1, w2) = (w(1, 2), w(3, 4));
        let result = shifted_pair(w2, -w1).verify(&mut Counter(0));
        assert_eq!(
            result.map_err(|e| e.invalid),
            Err(vec![0, 1]),
            "two invalid proofs cancelling under weights {name} were accepted"
        );
    }
}

/// Merging a base term into the previous proof's MSM slot must require the *same* base. A
/// proof made with base `B₁` but claimed for base `B₂` is invalid; if the merge ignored the base,
/// its `B₂` term would land on the previous proof's `B₁` and the forgery would pass the batch.
#[test]
fn batch_merges_only_equal_bases() {
    let mut r = rng(60);
    let b1 = G::random(&mut r);
    let b2 = G::random(&mut r);
    let x = scalar(&mut r);

    let honest = Schnorr::<G>::new(b1, b1 * x);
    let p1 = honest.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();

    // Claimed statement: base B₂, image B₁·x. Commit with B₁, take the challenge the verifier
    // derives for the claimed statement, respond with x: valid for base B₁, not for B₂.
    let forged_st = Schnorr::<G>::new(b2, b1 * x);
    let nonce = scalar(&mut r);
    let a = Encoded::new(b1 * nonce);
    let mut t = ctx().transcript();
    let _ = forged_st.bind(&mut t);
    t.append_encoded(b"commitments-g", core::slice::from_ref(&a));
    t.append_encoded::<G>(b"commitments-h", &[]);
    let c = t.challenge_scalar::<G>(b"challenge");
    let forged = Proof::from_parts(vec![a], vec![], vec![nonce + c * x]);
    // Alone it is rejected: only the base distinguishes it from a valid proof.
    assert!(forged_st.verify(&mut ctx().transcript(), &forged).is_err());

    let mut batch = BatchVerifier::<G>::new();
    batch.add(&honest, ctx().transcript(), &p1);
    batch.add(&forged_st, ctx().transcript(), &forged);
    assert_eq!(batch.len(), 2);
    assert_eq!(batch.verify(&mut r).map_err(|e| e.invalid), Err(vec![1]));
}

/// A single invalid proof in a batch is found (the batch equation itself must be checked).
#[test]
fn batch_rejects_a_lone_invalid_proof() {
    let x = S::from_u64(9);
    let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
    let p = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(70))
        .unwrap();
    let bad = Proof::from_parts(
        p.commitments_g().to_vec(),
        vec![],
        vec![p.responses()[0] + S::one()],
    );
    let mut batch = BatchVerifier::<G>::new();
    assert!(batch.is_empty());
    assert_eq!(batch.add(&st, ctx().transcript(), &bad), 0);
    assert_eq!((batch.len(), batch.is_empty()), (1, false));
    assert_eq!(
        batch.verify(&mut rng(71)).map_err(|e| e.invalid),
        Err(vec![0])
    );
}
