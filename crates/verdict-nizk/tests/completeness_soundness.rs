//! Completeness and soundness of every protocol and composition, and context binding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use verdict_group::{Group, Scalar};
use verdict_nizk::{
    Context, Dleq, Encoded, LinearRelation, Or, Proof, RelationError, Schnorr, Statement,
    VectorDleq, VerifyError,
};

fn schnorr_instance(seed: u64) -> (Schnorr<G>, S) {
    let mut r = rng(seed);
    let x = scalar(&mut r);
    (Schnorr::with_generator(G::mul_generator(&x)), x)
}

fn dleq_instance(seed: u64) -> (Dleq<G>, S) {
    let mut r = rng(seed);
    let x = scalar(&mut r);
    let h = G::random(&mut r);
    (Dleq::new(G::generator(), G::mul_generator(&x), h, h * x), x)
}

fn vector_instance(seed: u64, len: usize) -> (VectorDleq<G>, S, Vec<Encoded<G>>) {
    let mut r = rng(seed);
    let x = scalar(&mut r);
    let hs = random_points::<G>(len, &mut r);
    let cs: Vec<Encoded<G>> = hs.iter().map(|h| Encoded::new(*h.point() * x)).collect();
    (
        VectorDleq::new(G::generator(), G::mul_generator(&x), hs.clone(), cs.clone()).unwrap(),
        x,
        cs,
    )
}

/// Tampers each commitment and each response in turn; every variant must be rejected.
fn assert_tamper_rejected<St: Statement<G>>(st: &St, proof: &Proof<G>) {
    for i in 0..proof.commitments_g().len() {
        let mut cg = proof.commitments_g().to_vec();
        cg[i] = Encoded::new(*cg[i].point() + G::generator());
        let bad = Proof::from_parts(
            cg,
            proof.commitments_h().to_vec(),
            proof.responses().to_vec(),
        );
        assert_eq!(
            st.verify(&mut ctx().transcript(), &bad),
            Err(VerifyError::InvalidProof)
        );
    }
    for i in 0..proof.commitments_h().len() {
        let mut ch = proof.commitments_h().to_vec();
        ch[i] = Encoded::new(*ch[i].point() + G::generator());
        let bad = Proof::from_parts(
            proof.commitments_g().to_vec(),
            ch,
            proof.responses().to_vec(),
        );
        assert_eq!(
            st.verify(&mut ctx().transcript(), &bad),
            Err(VerifyError::InvalidProof)
        );
    }
    for i in 0..proof.responses().len() {
        let mut z = proof.responses().to_vec();
        z[i] += S::one();
        let bad = Proof::from_parts(
            proof.commitments_g().to_vec(),
            proof.commitments_h().to_vec(),
            z,
        );
        assert_eq!(
            st.verify(&mut ctx().transcript(), &bad),
            Err(VerifyError::InvalidProof)
        );
    }
    // Wrong shape.
    let short = Proof::from_parts(
        proof.commitments_g().to_vec(),
        proof.commitments_h().to_vec(),
        vec![],
    );
    assert_eq!(
        st.verify(&mut ctx().transcript(), &short),
        Err(VerifyError::ShapeMismatch)
    );
}

/// Every single-field change of the context breaks verification.
fn assert_context_bound<St: Statement<G>>(st: &St, proof: &Proof<G>) {
    let base = ctx();
    let variants = [
        Context {
            purpose: b"verdict-nizk/other",
            ..base.clone()
        },
        Context {
            session: [8u8; 32],
            ..base.clone()
        },
        Context {
            round: Some(4),
            ..base.clone()
        },
        Context {
            round: None,
            ..base.clone()
        },
        Context {
            slot: Some(6),
            ..base.clone()
        },
        Context {
            slot: None,
            ..base.clone()
        },
        Context {
            sender: Some(12),
            ..base.clone()
        },
        base.clone().with_field(b"role", b"server"),
    ];
    assert!(st.verify(&mut base.transcript(), proof).is_ok());
    for v in variants {
        assert_eq!(
            st.verify(&mut v.transcript(), proof),
            Err(VerifyError::InvalidProof),
            "context {v:?} accepted"
        );
    }
}

#[test]
fn schnorr_complete_sound_bound() {
    let (st, x) = schnorr_instance(1);
    let proof = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(2))
        .unwrap();
    assert!(st.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&st, &proof);
    assert_context_bound(&st, &proof);
    // A prover without the witness.
    let bad = st
        .prove(&mut ctx().transcript(), &[x + S::one()], &mut rng(3))
        .unwrap();
    assert!(st.verify(&mut ctx().transcript(), &bad).is_err());
    // Proof for another statement.
    let (other, _) = schnorr_instance(4);
    assert!(other.verify(&mut ctx().transcript(), &proof).is_err());
    // Wrong witness length.
    assert_eq!(
        st.prove(&mut ctx().transcript(), &[x, x], &mut rng(2)),
        Err(RelationError::LengthMismatch {
            expected: 1,
            actual: 2
        })
    );
}

#[test]
fn schnorr_arbitrary_base() {
    let mut r = rng(5);
    let b = G::random(&mut r);
    let x = scalar(&mut r);
    let st = Schnorr::new(b, b * x);
    let proof = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert!(st.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&st, &proof);
}

#[test]
fn dleq_complete_sound_bound() {
    let (st, x) = dleq_instance(10);
    let proof = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(11))
        .unwrap();
    assert!(st.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&st, &proof);
    assert_context_bound(&st, &proof);
    // Unequal logs: X = x·G, Y = (x+1)·H; the prover knows x but the statement is false.
    let mut r = rng(12);
    let h = G::random(&mut r);
    let false_st = Dleq::new(G::generator(), G::mul_generator(&x), h, h * (x + S::one()));
    let p = false_st
        .prove(&mut ctx().transcript(), &[x], &mut r)
        .unwrap();
    assert!(false_st.verify(&mut ctx().transcript(), &p).is_err());
}

#[test]
fn dleq_two_group_code_path() {
    // The (G, H) path with ristretto255 in both roles; BLS12-381 (G2, GT) uses the same code.
    let mut r = rng(13);
    let x = scalar(&mut r);
    let h = G::random(&mut r);
    let st: Dleq<G, G> = Dleq::new_in_pair(G::generator(), G::mul_generator(&x), h, h * x);
    let proof = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert_eq!(proof.commitments_h().len(), 1);
    assert!(st.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&st, &proof);
}

#[test]
fn vector_dleq_complete_sound_bound() {
    for len in [1, 2, 7, 33] {
        let (st, x, _) = vector_instance(20 + len as u64, len);
        assert_eq!((st.len(), st.is_empty()), (len, false));
        let proof = st
            .prove(&mut ctx().transcript(), &[x], &mut rng(21))
            .unwrap();
        assert!(
            st.verify(&mut ctx().transcript(), &proof).is_ok(),
            "L = {len}"
        );
        assert_tamper_rejected(&st, &proof);
        assert_context_bound(&st, &proof);
    }
}

/// Every position of 8 elements, and the ends and middle of 40 (long enough that a proof
/// checked alone folds its combinations first).
#[test]
fn vector_dleq_one_bad_element_rejected() {
    let mut r = rng(30);
    let x = scalar(&mut r);
    let long = random_points::<G>(40, &mut r);
    for bad in [0, 20, 39] {
        let mut cs: Vec<Encoded<G>> = long.iter().map(|h| Encoded::new(*h.point() * x)).collect();
        cs[bad] = Encoded::new(*cs[bad].point() + G::generator());
        let st = VectorDleq::new(G::generator(), G::mul_generator(&x), long.clone(), cs).unwrap();
        let proof = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
        assert!(
            st.verify(&mut ctx().transcript(), &proof).is_err(),
            "L = 40, bad {bad}"
        );
    }
    let hs = random_points::<G>(8, &mut r);
    for bad in 0..8 {
        let mut cs: Vec<Encoded<G>> = hs.iter().map(|h| Encoded::new(*h.point() * x)).collect();
        cs[bad] = Encoded::new(*cs[bad].point() + G::generator());
        let st = VectorDleq::new(G::generator(), G::mul_generator(&x), hs.clone(), cs).unwrap();
        let proof = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
        assert!(st.verify(&mut ctx().transcript(), &proof).is_err());
    }
    assert_eq!(
        VectorDleq::new(G::generator(), G::generator(), hs.clone(), hs[..3].to_vec()),
        Err(RelationError::LengthMismatch {
            expected: 8,
            actual: 3
        })
    );
    assert_eq!(
        VectorDleq::<G>::new(G::generator(), G::generator(), vec![], vec![]),
        Err(RelationError::EmptyStatement)
    );
}

/// Two errors that cancel under equal (or any fixed, proportional) weights: `C_i = x·H_i + E`
/// and `C_j = x·H_j − E`. Only weights drawn independently per element, after the statement,
/// reject it; a fold with a constant weight, or one weight for all, would accept.
///
/// Run on 6 elements and on 40, where a proof checked alone evaluates the folds `H*`, `C*`
/// before its equation instead of expanding them (verdict-nizk's `FOLD_MIN` is 32).
#[test]
fn vector_dleq_compensating_errors_rejected() {
    let mut r = rng(33);
    let x = scalar(&mut r);
    let e = G::mul_generator(&scalar(&mut r));
    for (len, i, j) in [(6, 0, 1), (6, 2, 5), (6, 4, 3), (40, 0, 39), (40, 17, 3)] {
        let hs = random_points::<G>(len, &mut r);
        let mut cs: Vec<Encoded<G>> = hs.iter().map(|h| Encoded::new(*h.point() * x)).collect();
        cs[i] = Encoded::new(*cs[i].point() + e);
        cs[j] = Encoded::new(*cs[j].point() - e);
        let st = VectorDleq::new(G::generator(), G::mul_generator(&x), hs.clone(), cs).unwrap();
        let proof = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
        assert!(
            st.verify(&mut ctx().transcript(), &proof).is_err(),
            "errors at {i} and {j} cancelled"
        );
    }
}

#[test]
fn vector_dleq_replaced_element_rejected() {
    // Proof for one vector must not verify for a vector with one element changed.
    let (st, x, cs) = vector_instance(31, 5);
    let proof = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(32))
        .unwrap();
    let mut r = rng(33);
    let hs = random_points::<G>(5, &mut r);
    let other = VectorDleq::new(G::generator(), G::mul_generator(&x), hs, cs).unwrap();
    assert!(other.verify(&mut ctx().transcript(), &proof).is_err());
}

#[test]
fn representation_and_and_composition() {
    let mut r = rng(40);
    // Pedersen-style representation P = a·G + b·H, AND Q = a·K (shared witness a).
    let (a, b) = (scalar(&mut r), scalar(&mut r));
    let (h, k) = (G::random(&mut r), G::random(&mut r));
    let p = G::mul_generator(&a) + h * b;
    let q = k * a;
    let mut rel = LinearRelation::<G>::new(2);
    rel.add_equation(p, [(0, G::generator()), (1, h)]).unwrap();
    rel.add_equation(q, [(0, k)]).unwrap();
    let proof = rel.prove(&mut ctx().transcript(), &[a, b], &mut r).unwrap();
    assert!(rel.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&rel, &proof);
    assert_context_bound(&rel, &proof);
    // Swapped witnesses fail.
    let bad = rel.prove(&mut ctx().transcript(), &[b, a], &mut r).unwrap();
    assert!(rel.verify(&mut ctx().transcript(), &bad).is_err());
    // Builder errors.
    assert_eq!(rel.num_witnesses(), 2);
    assert_eq!(
        rel.add_equation(p, [(2, h)]).err(),
        Some(RelationError::WitnessIndexOutOfRange {
            index: 2,
            num_witnesses: 2
        })
    );
    assert_eq!(
        rel.add_equation(p, Vec::<(usize, G)>::new()).err(),
        Some(RelationError::EmptyEquation)
    );
}

#[test]
fn elgamal_style_and_of_many_witnesses() {
    // ∧_k (R_k = r_k·G ∧ C_k = r_k·Z)
    let mut r = rng(41);
    let z = G::random(&mut r);
    let rs: Vec<S> = (0..4).map(|_| scalar(&mut r)).collect();
    let mut rel = LinearRelation::<G>::new(4);
    for (k, rk) in rs.iter().enumerate() {
        rel.add_equation(G::mul_generator(rk), [(k, G::generator())])
            .unwrap();
        rel.add_equation(z * rk, [(k, z)]).unwrap();
    }
    let proof = rel.prove(&mut ctx().transcript(), &rs, &mut r).unwrap();
    assert!(rel.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&rel, &proof);
}

#[test]
fn two_group_linear_relation() {
    let mut r = rng(42);
    let x = scalar(&mut r);
    let (h, k) = (G::random(&mut r), G::random(&mut r));
    let mut rel = LinearRelation::<G, G>::new_in_pair(1);
    rel.add_equation(G::mul_generator(&x), [(0, G::generator())])
        .unwrap();
    rel.add_equation_h(h * x, [(0, h)]).unwrap();
    rel.add_equation_h(k * x, [(0, k)]).unwrap();
    let proof = rel.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert_eq!(proof.commitments_h().len(), 2);
    assert!(rel.verify(&mut ctx().transcript(), &proof).is_ok());
    assert_tamper_rejected(&rel, &proof);
}

/// The ciphersuite shape `(U = σ·G ∧ ∀k C_k = σ·G_k) ∨ (Y = y·G)`.
fn suite_or(seed: u64, len: usize) -> (VectorDleq<G>, Schnorr<G>, S, S) {
    let (vd, sigma, _) = vector_instance(seed, len);
    let mut r = rng(seed + 1000);
    let y = scalar(&mut r);
    (vd, Schnorr::with_generator(G::mul_generator(&y)), sigma, y)
}

#[test]
fn or_complete_for_either_branch() {
    let (vd, sch, sigma, y) = suite_or(50, 6);
    let or = Or::new(vec![&vd, &sch]).unwrap();
    for (known, w) in [(0, sigma), (1, y)] {
        let proof = or
            .prove(&mut ctx().transcript(), known, &[w], &mut rng(51))
            .unwrap();
        assert!(
            or.verify(&mut ctx().transcript(), &proof).is_ok(),
            "branch {known}"
        );
    }
}

#[test]
fn or_sound_and_bound() {
    let (vd, sch, sigma, y) = suite_or(52, 3);
    let or = Or::new(vec![&vd, &sch]).unwrap();
    let proof = or
        .prove(&mut ctx().transcript(), 1, &[y], &mut rng(53))
        .unwrap();
    // Tampered challenge.
    let mut ch = proof.challenges().to_vec();
    ch[0] += S::one();
    let bad = verdict_nizk::OrProof::from_parts(ch, proof.branches().to_vec());
    assert_eq!(
        or.verify(&mut ctx().transcript(), &bad),
        Err(VerifyError::InvalidProof)
    );
    // Tampered commitment / response in each branch.
    for b in 0..2 {
        let mut branches = proof.branches().to_vec();
        let p = &branches[b];
        let mut z = p.responses().to_vec();
        z[0] += S::one();
        branches[b] = Proof::from_parts(p.commitments_g().to_vec(), p.commitments_h().to_vec(), z);
        let bad = verdict_nizk::OrProof::from_parts(proof.challenges().to_vec(), branches);
        assert!(or.verify(&mut ctx().transcript(), &bad).is_err());

        let mut branches = proof.branches().to_vec();
        let p = &branches[b];
        let mut cg = p.commitments_g().to_vec();
        cg[0] = Encoded::new(*cg[0].point() + G::generator());
        branches[b] = Proof::from_parts(cg, p.commitments_h().to_vec(), p.responses().to_vec());
        let bad = verdict_nizk::OrProof::from_parts(proof.challenges().to_vec(), branches);
        assert!(or.verify(&mut ctx().transcript(), &bad).is_err());
    }
    // Missing challenge.
    let bad = verdict_nizk::OrProof::from_parts(vec![], proof.branches().to_vec());
    assert_eq!(
        or.verify(&mut ctx().transcript(), &bad),
        Err(VerifyError::ShapeMismatch)
    );
    // Context binding.
    let other = Context {
        slot: Some(99),
        ..ctx()
    };
    assert!(or.verify(&mut other.transcript(), &proof).is_err());
    // Branch order is part of the statement.
    let swapped = Or::new(vec![&sch as &dyn Statement<G>, &vd]).unwrap();
    assert!(swapped.verify(&mut ctx().transcript(), &proof).is_err());
    // Without any branch's witness: claim either branch with a wrong witness.
    for known in 0..2 {
        let bad = or
            .prove(&mut ctx().transcript(), known, &[sigma + y], &mut rng(54))
            .unwrap();
        assert!(or.verify(&mut ctx().transcript(), &bad).is_err());
    }
    assert_eq!(
        or.prove(&mut ctx().transcript(), 2, &[y], &mut rng(54))
            .err(),
        Some(RelationError::BranchOutOfRange {
            index: 2,
            branches: 2
        })
    );
}

#[test]
fn or_of_three_and_one_branches() {
    let (s0, x0) = schnorr_instance(60);
    let (d1, x1) = dleq_instance(61);
    let (v2, x2, _) = vector_instance(62, 4);
    let or = Or::new(vec![&s0 as &dyn Statement<G>, &d1, &v2]).unwrap();
    // The accessors describe the branches, in order: what a caller sizes a proof by.
    assert_eq!((or.len(), or.is_empty()), (3, false));
    assert_eq!(or.shapes(), vec![s0.shape(), d1.shape(), v2.shape()]);
    assert_eq!(format!("{or:?}"), "Or { branches: 3 }");
    for (known, w) in [(0, x0), (1, x1), (2, x2)] {
        let proof = or
            .prove(&mut ctx().transcript(), known, &[w], &mut rng(63))
            .unwrap();
        assert_eq!(proof.challenges().len(), 2);
        assert!(or.verify(&mut ctx().transcript(), &proof).is_ok());
        let wrong = or
            .prove(&mut ctx().transcript(), (known + 1) % 3, &[w], &mut rng(63))
            .unwrap();
        assert!(or.verify(&mut ctx().transcript(), &wrong).is_err());
    }
    let single = Or::new(vec![&s0 as &dyn Statement<G>]).unwrap();
    assert_eq!((single.len(), single.is_empty()), (1, false));
    let proof = single
        .prove(&mut ctx().transcript(), 0, &[x0], &mut rng(64))
        .unwrap();
    assert!(single.verify(&mut ctx().transcript(), &proof).is_ok());
    assert!(Or::<G>::new(vec![]).is_err());
}

#[test]
fn or_two_group_pairing_shape() {
    // (X = x·g2 ∧ ∀k C_k = x·T_k in the second group) ∨ (Y = y·g2): the pairing suite's shape,
    // run with ristretto255 in both roles until BLS12-381 G2/GT land.
    let mut r = rng(70);
    let x = scalar(&mut r);
    let y = scalar(&mut r);
    let ts = random_points::<G>(3, &mut r);
    let cs: Vec<Encoded<G>> = ts.iter().map(|t| Encoded::new(*t.point() * x)).collect();
    let vd: VectorDleq<G, G> =
        VectorDleq::new_in_pair(G::generator(), G::mul_generator(&x), ts, cs).unwrap();
    let sch = Schnorr::with_generator(G::mul_generator(&y)).in_pair::<G>();
    let or: Or<'_, G, G> = Or::new(vec![&vd, &sch]).unwrap();
    for (known, w) in [(0, x), (1, y)] {
        let proof = or
            .prove(&mut ctx().transcript(), known, &[w], &mut r)
            .unwrap();
        assert!(or.verify(&mut ctx().transcript(), &proof).is_ok());
        assert_eq!(proof.branches()[0].commitments_h().len(), 1);
    }
}

#[test]
fn proofs_are_randomized_but_hedged() {
    let (st, x) = schnorr_instance(80);
    let p1 = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(81))
        .unwrap();
    let p2 = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(81))
        .unwrap();
    let p3 = st
        .prove(&mut ctx().transcript(), &[x], &mut rng(82))
        .unwrap();
    assert_eq!(
        p1, p2,
        "same transcript, witness and RNG output: same nonce"
    );
    assert_ne!(p1, p3);
}
