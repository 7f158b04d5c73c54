//! The protocols on every group of `verdict-group`, and the pairing suite's two-group OR on
//! BLS12-381 (G2 and GT).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ctx, rng};
use rand_chacha::ChaCha20Rng;
use verdict_group::{Bls12381G1, Bls12381G2, Bls12381Gt, Group, P256, Ristretto255, Scalar};
use verdict_nizk::{
    BatchVerifier, Dleq, Encoded, Or, Proof, Schnorr, SigningKey, Statement, VectorDleq,
};

fn vector<Gr: Group>(len: usize, r: &mut ChaCha20Rng) -> (VectorDleq<Gr>, Gr::Scalar) {
    let x = Gr::Scalar::random(r);
    let hs: Vec<Gr> = (0..len).map(|_| Gr::random(r)).collect();
    let cs: Vec<Gr> = hs.iter().map(|h| *h * x).collect();
    let st = VectorDleq::new(
        Gr::generator(),
        Gr::mul_generator(&x),
        Encoded::batch_new(&hs),
        Encoded::batch_new(&cs),
    )
    .unwrap();
    (st, x)
}

fn exercise<Gr: Group>(seed: u64) {
    let mut r = rng(seed);
    let x = Gr::Scalar::random(&mut r);
    let sch = Schnorr::<Gr>::with_generator(Gr::mul_generator(&x));
    let p = sch.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert!(sch.verify(&mut ctx().transcript(), &p).is_ok());
    assert_eq!(
        Statement::<Gr>::decode_proof(&sch, &p.to_bytes()).unwrap(),
        p
    );

    let h = Gr::random(&mut r);
    let dleq = Dleq::<Gr>::new(Gr::generator(), Gr::mul_generator(&x), h, h * x);
    let p = dleq.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert!(dleq.verify(&mut ctx().transcript(), &p).is_ok());
    let bad = dleq
        .prove(&mut ctx().transcript(), &[x + Gr::Scalar::one()], &mut r)
        .unwrap();
    assert!(dleq.verify(&mut ctx().transcript(), &bad).is_err());

    let (vd, s) = vector::<Gr>(3, &mut r);
    let y = Gr::Scalar::random(&mut r);
    let owner = Schnorr::<Gr>::with_generator(Gr::mul_generator(&y));
    let or = Or::new(vec![&vd as &dyn Statement<Gr>, &owner]).unwrap();
    let mut batch = BatchVerifier::<Gr>::new();
    for (known, w) in [(0, s), (1, y), (0, y)] {
        let p = or
            .prove(&mut ctx().transcript(), known, &[w], &mut r)
            .unwrap();
        let ok = or.verify(&mut ctx().transcript(), &p).is_ok();
        assert_eq!(ok, !(known == 0 && w == y));
        assert_eq!(or.decode_proof(&p.to_bytes()).unwrap(), p);
        batch.add_or(&or, ctx().transcript(), &p);
    }
    let sk = SigningKey::<Gr>::generate(&mut r);
    let sig = sk.sign(b"verdict/test", b"msg", &mut r);
    assert!(
        sk.verifying_key()
            .verify(b"verdict/test", b"msg", &sig)
            .is_ok()
    );
    batch.add_signature(sk.verifying_key(), b"verdict/test", b"msg", &sig);
    batch.add_signature(sk.verifying_key(), b"verdict/test", b"other", &sig);
    assert_eq!(batch.verify(&mut r).unwrap_err().invalid, vec![2, 4]);
}

#[test]
fn ristretto255() {
    exercise::<Ristretto255>(1);
}

#[test]
fn p256() {
    exercise::<P256>(2);
}

#[test]
fn bls12_381_g1() {
    exercise::<Bls12381G1>(3);
}

/// The pairing suite's client proof:
/// `PoK{x, y : (X = x·g2 ∧ ∀k C_k = x·e(T_k, Z)) ∨ Y = y·g2}` with `X`, `Y` in G2 and `C_k` in GT.
#[test]
fn bls12_381_g2_gt_or() {
    let mut r = rng(4);
    type S = <Bls12381G2 as Group>::Scalar;
    let x = S::random(&mut r);
    let y = S::random(&mut r);
    let z = Bls12381G2::random(&mut r);
    let bases: Vec<Bls12381Gt> = (0..2u8)
        .map(|k| {
            let t = Bls12381G1::hash_to_group(b"verdict-nizk test T", &[k]);
            verdict_group::bls12_381::pairing(&t, &z)
        })
        .collect();
    let cs: Vec<Bls12381Gt> = bases.iter().map(|b| *b * x).collect();
    let vd: VectorDleq<Bls12381G2, Bls12381Gt> = VectorDleq::new_in_pair(
        Bls12381G2::generator(),
        Bls12381G2::mul_generator(&x),
        Encoded::batch_new(&bases),
        Encoded::batch_new(&cs),
    )
    .unwrap();
    let owner = Schnorr::with_generator(Bls12381G2::mul_generator(&y)).in_pair::<Bls12381Gt>();
    let or: Or<'_, Bls12381G2, Bls12381Gt> = Or::new(vec![&vd, &owner]).unwrap();

    let mut batch = BatchVerifier::<Bls12381G2, Bls12381Gt>::new();
    for (known, w) in [(0, x), (1, y)] {
        let p = or
            .prove(&mut ctx().transcript(), known, &[w], &mut r)
            .unwrap();
        assert!(or.verify(&mut ctx().transcript(), &p).is_ok());
        let bytes = p.to_bytes();
        assert_eq!(or.decode_proof(&bytes).unwrap(), p);
        batch.add_or(&or, ctx().transcript(), &p);
    }
    // A wrong witness fails, alone and in the batch.
    let bad = or.prove(&mut ctx().transcript(), 0, &[y], &mut r).unwrap();
    assert!(or.verify(&mut ctx().transcript(), &bad).is_err());
    batch.add_or(&or, ctx().transcript(), &bad);
    assert_eq!(batch.verify(&mut r).unwrap_err().invalid, vec![2]);

    // The single-branch statement too, with a tampered GT commitment.
    let p = vd.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
    assert!(vd.verify(&mut ctx().transcript(), &p).is_ok());
    let tampered = Proof::from_parts(
        p.commitments_g().to_vec(),
        vec![Encoded::new(*p.commitments_h()[0].point() + bases[0])],
        p.responses().to_vec(),
    );
    assert!(vd.verify(&mut ctx().transcript(), &tampered).is_err());
}
