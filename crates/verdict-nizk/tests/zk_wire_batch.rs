//! Zero knowledge (simulators), wire format, signatures, key registration, batch verification.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use proptest::prelude::*;
use rand::Rng;
use verdict_group::{Group, Scalar};
use verdict_nizk::{
    BatchVerifier, Context, DecodeError, Dleq, Encoded, KeyRegistration, LinearRelation, Or, Proof,
    Schnorr, Signature, SigningKey, Statement, VectorDleq, VerifyingKey,
};

fn vd(seed: u64, len: usize) -> (VectorDleq<G>, S) {
    let mut r = rng(seed);
    let x = scalar(&mut r);
    let hs = random_points::<G>(len, &mut r);
    let cs = hs.iter().map(|h| Encoded::new(*h.point() * x)).collect();
    (
        VectorDleq::new(G::generator(), G::mul_generator(&x), hs, cs).unwrap(),
        x,
    )
}

fn check_simulator<St: Statement<G>>(st: &St, seed: u64) {
    let mut r = rng(seed);
    let c = scalar(&mut r);
    let sim = st.simulate(&mut ctx().transcript(), &c, &mut r);
    assert!(
        st.verify_with_challenge(&mut ctx().transcript(), &sim, &c)
            .is_ok()
    );
    // The programmed challenge is what makes it verify.
    assert!(
        st.verify_with_challenge(&mut ctx().transcript(), &sim, &(c + S::one()))
            .is_err()
    );
    assert!(st.verify(&mut ctx().transcript(), &sim).is_err());
}

#[test]
fn simulators_verify_with_programmed_challenges() {
    // Statements for which nobody knows a witness (random public points) still simulate.
    let mut r = rng(100);
    check_simulator(&Schnorr::<G>::with_generator(G::random(&mut r)), 101);
    check_simulator(
        &Dleq::new(
            G::generator(),
            G::random(&mut r),
            G::random(&mut r),
            G::random(&mut r),
        ),
        102,
    );
    let hs = random_points::<G>(5, &mut r);
    let cs = random_points::<G>(5, &mut r);
    check_simulator(
        &VectorDleq::new(G::generator(), G::random(&mut r), hs, cs).unwrap(),
        103,
    );
    let mut rel = LinearRelation::<G>::new(2);
    rel.add_equation(
        G::random(&mut r),
        [(0, G::random(&mut r)), (1, G::random(&mut r))],
    )
    .unwrap();
    rel.add_equation(G::random(&mut r), [(1, G::random(&mut r))])
        .unwrap();
    check_simulator(&rel, 104);
    let mut pair = LinearRelation::<G, G>::new_in_pair(1);
    pair.add_equation_h(G::random(&mut r), [(0, G::random(&mut r))])
        .unwrap();
    let mut rr = rng(105);
    let c = scalar(&mut rr);
    let sim = pair.simulate(&mut ctx().transcript(), &c, &mut rr);
    assert!(
        pair.verify_with_challenge(&mut ctx().transcript(), &sim, &c)
            .is_ok()
    );
}

#[test]
fn or_simulator_and_real_proofs_look_alike() {
    let (v, _) = vd(110, 4);
    let mut r = rng(111);
    let sch = Schnorr::<G>::with_generator(G::random(&mut r));
    let or = Or::new(vec![&v as &dyn Statement<G>, &sch]).unwrap();
    let c = scalar(&mut r);
    let sim = or.simulate(&mut ctx().transcript(), &c, &mut r);
    assert!(
        or.verify_with_challenge(&mut ctx().transcript(), &sim, &c)
            .is_ok()
    );
    assert!(or.verify(&mut ctx().transcript(), &sim).is_err());
    // Same shape and encoding length as a real proof.
    let (v2, x) = vd(112, 4);
    let or2 = Or::new(vec![&v2 as &dyn Statement<G>, &sch]).unwrap();
    let real = or2.prove(&mut ctx().transcript(), 0, &[x], &mut r).unwrap();
    assert_eq!(real.to_bytes().len(), sim.to_bytes().len());
}

#[test]
fn wire_round_trip_and_rejections() {
    let (v, x) = vd(120, 3);
    let proof = v
        .prove(&mut ctx().transcript(), &[x], &mut rng(121))
        .unwrap();
    let bytes = proof.to_bytes();
    assert_eq!(bytes.len(), 2 * 32 + 32);
    assert_eq!(bytes.len(), v.shape().encoded_len::<G, G>());
    let back = v.decode_proof(&bytes).unwrap();
    assert_eq!(back, proof);
    assert!(v.verify(&mut ctx().transcript(), &back).is_ok());

    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        v.decode_proof(&long),
        Err(DecodeError::TrailingBytes { extra: 1 })
    );
    for cut in 0..bytes.len() {
        assert!(matches!(
            v.decode_proof(&bytes[..cut]),
            Err(DecodeError::Truncated { .. })
        ));
    }
    // Non-canonical point (negative ristretto encoding) in the first commitment.
    let mut bad = bytes.clone();
    bad[0] |= 1;
    assert!(matches!(
        v.decode_proof(&bad),
        Err(DecodeError::Field {
            field: "commitment",
            ..
        })
    ));
    // Non-canonical scalar (≥ ℓ) in the response.
    let mut bad = bytes.clone();
    bad[64..96].fill(0xff);
    assert!(matches!(
        v.decode_proof(&bad),
        Err(DecodeError::Field {
            field: "response",
            ..
        })
    ));

    // OR proofs.
    let sch = Schnorr::<G>::with_generator(G::random(&mut rng(122)));
    let or = Or::new(vec![&v as &dyn Statement<G>, &sch]).unwrap();
    let op = or
        .prove(&mut ctx().transcript(), 0, &[x], &mut rng(123))
        .unwrap();
    let ob = op.to_bytes();
    assert_eq!(ob.len(), 32 + (2 * 32 + 32) + (32 + 32));
    assert_eq!(or.decode_proof(&ob).unwrap(), op);
    let mut ob_long = ob.clone();
    ob_long.extend_from_slice(&[0; 3]);
    assert_eq!(
        or.decode_proof(&ob_long),
        Err(DecodeError::TrailingBytes { extra: 3 })
    );
    let mut bad = ob.clone();
    bad[..32].fill(0xff);
    assert!(matches!(
        or.decode_proof(&bad),
        Err(DecodeError::Field {
            field: "challenge",
            ..
        })
    ));
    assert!(or.decode_proof(&ob[..ob.len() - 1]).is_err());
}

#[test]
fn signatures() {
    let mut r = rng(130);
    let sk = SigningKey::<G>::generate(&mut r);
    let vk = sk.verifying_key().clone();
    let sig = sk.sign(b"verdict/test-message", b"hello", &mut r);
    assert!(vk.verify(b"verdict/test-message", b"hello", &sig).is_ok());
    assert!(vk.verify(b"verdict/test-message", b"hellp", &sig).is_err());
    assert!(vk.verify(b"verdict/other-message", b"hello", &sig).is_err());
    let other = SigningKey::<G>::generate(&mut r);
    assert!(
        other
            .verifying_key()
            .verify(b"verdict/test-message", b"hello", &sig)
            .is_err()
    );
    let tampered = Signature::from_parts(sig.r().clone(), *sig.s() + S::one());
    assert!(
        vk.verify(b"verdict/test-message", b"hello", &tampered)
            .is_err()
    );
    let tampered = Signature::from_parts(Encoded::new(*sig.r().point() + G::generator()), *sig.s());
    assert!(
        vk.verify(b"verdict/test-message", b"hello", &tampered)
            .is_err()
    );

    let bytes = sig.to_bytes();
    assert_eq!(bytes.len(), Signature::<G>::ENCODED_LEN);
    assert_eq!(Signature::<G>::from_bytes(&bytes).unwrap(), sig);
    assert!(Signature::<G>::from_bytes(&bytes[..63]).is_err());
    assert!(Signature::<G>::from_bytes(&[bytes.clone(), vec![0]].concat()).is_err());
    let mut id = bytes.clone();
    id[..32].fill(0);
    assert!(matches!(
        Signature::<G>::from_bytes(&id),
        Err(DecodeError::Field {
            source: verdict_group::DecodeError::Identity,
            ..
        })
    ));

    let vb = vk.to_bytes();
    assert_eq!(VerifyingKey::<G>::from_bytes(&vb).unwrap(), vk);
    assert!(VerifyingKey::<G>::from_bytes(&[0u8; 32]).is_err());
    assert!(VerifyingKey::<G>::from_bytes(&[vb.clone(), vec![1]].concat()).is_err());
    // From an encoded point: the same key as from the point, and never the identity.
    assert_eq!(
        VerifyingKey::from_encoded(Encoded::new(*vk.point())),
        VerifyingKey::from_point(*vk.point())
    );
    assert_eq!(
        VerifyingKey::from_encoded(Encoded::new(*vk.point())),
        Some(vk.clone())
    );
    assert!(VerifyingKey::<G>::from_encoded(Encoded::new(G::identity())).is_none());
    assert!(SigningKey::<G>::from_secret(verdict_group::SecretScalar::new(S::zero())).is_none());
    // A signing key prints as its public half, never its secret (logs see it).
    assert!(!format!("{sk:?}").contains(&format!("{:?}", sk.secret().expose())));
    assert_eq!(
        format!("{sk:?}"),
        format!("SigningKey {{ public: {vk:?}, .. }}")
    );
    // The accessors are the key's and the signature's real parts: `x·G = Y`, `R ‖ s` is the
    // encoding.
    assert_eq!(G::mul_generator(sk.secret().expose()), *vk.point());
    let encoded = [sig.r().as_bytes(), sig.s().to_bytes().as_ref()].concat();
    assert_eq!(sig.to_bytes(), encoded);
}

#[test]
fn key_registration() {
    let mut r = rng(140);
    let sk = SigningKey::<G>::generate(&mut r);
    let vk = sk.verifying_key();
    let c = Context::new(b"verdict/register/long-term", [1; 32]).with_sender(4);
    let reg = KeyRegistration::prove(&sk, &c, &mut r);
    assert!(reg.verify(vk, &c).is_ok());
    assert!(reg.verify(vk, &c.clone().with_round(1)).is_err());
    assert!(
        reg.verify(
            vk,
            &Context {
                sender: Some(5),
                ..c.clone()
            }
        )
        .is_err()
    );
    assert!(
        reg.verify(
            vk,
            &Context {
                purpose: b"verdict/register/pseudonym",
                ..c.clone()
            }
        )
        .is_err()
    );
    // A plain Schnorr proof in the same context is not a registration.
    let st = Schnorr::with_generator(*vk.point());
    let plain = st
        .prove(&mut c.transcript(), &[*sk.secret().expose()], &mut r)
        .unwrap();
    assert_ne!(plain.to_bytes(), reg.to_bytes());
    assert!(
        KeyRegistration::<G>::from_bytes(&plain.to_bytes())
            .unwrap()
            .verify(vk, &c)
            .is_err()
    );
    // Another key.
    let other = SigningKey::<G>::generate(&mut r);
    assert!(reg.verify(other.verifying_key(), &c).is_err());
    let b = reg.to_bytes();
    assert_eq!(KeyRegistration::<G>::from_bytes(&b).unwrap(), reg);
    assert!(KeyRegistration::<G>::from_bytes(&b[1..]).is_err());
}

/// A mix of proof kinds, some corrupted; the batch must agree with individual verification.
#[test]
fn batch_agrees_with_individual_verification() {
    let mut r = rng(150);
    for round in 0..12 {
        let mut batch = BatchVerifier::<G>::new();
        let mut expected_bad = Vec::new();
        let mut individually_ok = Vec::new();
        let common_h = G::random(&mut r);
        let n = r.gen_range(1..30);
        for i in 0..n {
            let corrupt = r.gen_bool(0.25);
            let x = scalar(&mut r);
            let ok = match r.gen_range(0..5) {
                0 => {
                    let st =
                        Dleq::new(G::generator(), G::mul_generator(&x), common_h, common_h * x);
                    let w = if corrupt { x + S::one() } else { x };
                    let p = st.prove(&mut ctx().transcript(), &[w], &mut r).unwrap();
                    batch.add(&st, ctx().transcript(), &p);
                    st.verify(&mut ctx().transcript(), &p).is_ok()
                }
                1 => {
                    let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
                    let p = st.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
                    let t = if corrupt {
                        Context {
                            round: Some(9),
                            ..ctx()
                        }
                    } else {
                        ctx()
                    };
                    batch.add(&st, t.transcript(), &p);
                    st.verify(&mut t.transcript(), &p).is_ok()
                }
                2 => {
                    let (v, x) = vd(1000 + i, 3);
                    let mut p = v.prove(&mut ctx().transcript(), &[x], &mut r).unwrap();
                    if corrupt {
                        let mut z = p.responses().to_vec();
                        z[0] += S::one();
                        p = Proof::from_parts(
                            p.commitments_g().to_vec(),
                            p.commitments_h().to_vec(),
                            z,
                        );
                    }
                    batch.add(&v, ctx().transcript(), &p);
                    v.verify(&mut ctx().transcript(), &p).is_ok()
                }
                3 => {
                    let (v, s) = vd(2000 + i, 2);
                    let sch = Schnorr::<G>::with_generator(G::random(&mut r));
                    let or = Or::new(vec![&v as &dyn Statement<G>, &sch]).unwrap();
                    let w = if corrupt { s + S::one() } else { s };
                    let p = or.prove(&mut ctx().transcript(), 0, &[w], &mut r).unwrap();
                    batch.add_or(&or, ctx().transcript(), &p);
                    or.verify(&mut ctx().transcript(), &p).is_ok()
                }
                _ => {
                    let sk = SigningKey::<G>::generate(&mut r);
                    let sig = sk.sign(b"verdict/test", b"m", &mut r);
                    let msg: &[u8] = if corrupt { b"n" } else { b"m" };
                    batch.add_signature(sk.verifying_key(), b"verdict/test", msg, &sig);
                    sk.verifying_key()
                        .verify(b"verdict/test", msg, &sig)
                        .is_ok()
                }
            };
            assert_eq!(ok, !corrupt, "round {round} item {i}");
            individually_ok.push(ok);
            if !ok {
                expected_bad.push(i as usize);
            }
        }
        // Structurally invalid item (wrong shape) too.
        if round % 3 == 0 {
            let st = Schnorr::<G>::with_generator(G::random(&mut r));
            let p = Proof::from_parts(vec![], vec![], vec![]);
            expected_bad.push(batch.add(&st, ctx().transcript(), &p));
        }
        let result = batch.verify(&mut r);
        if expected_bad.is_empty() {
            assert!(result.is_ok(), "round {round}");
        } else {
            assert_eq!(result.unwrap_err().invalid, expected_bad, "round {round}");
        }
    }
    assert!(BatchVerifier::<G>::new().verify(&mut r).is_ok());
}

#[test]
fn batch_key_registrations() {
    let mut r = rng(160);
    let mut batch = BatchVerifier::<G>::new();
    for i in 0..6u32 {
        let sk = SigningKey::<G>::generate(&mut r);
        let c = Context::new(b"verdict/register", [2; 32]).with_sender(i);
        let reg = KeyRegistration::prove(&sk, &c, &mut r);
        let verify_ctx = if i == 4 {
            Context {
                sender: Some(40),
                ..c
            }
        } else {
            c
        };
        batch.add_key_registration(sk.verifying_key(), &verify_ctx, &reg);
    }
    assert_eq!(batch.verify(&mut r).unwrap_err().invalid, vec![4]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..260)) {
        let (v, _) = vd(170, 2);
        let sch = Schnorr::<G>::with_generator(G::generator());
        let or = Or::new(vec![&v as &dyn Statement<G>, &sch]).unwrap();
        let _ = v.decode_proof(&bytes);
        let _ = Statement::<G>::decode_proof(&sch, &bytes);
        let _ = or.decode_proof(&bytes);
        let _ = Signature::<G>::from_bytes(&bytes);
        let _ = VerifyingKey::<G>::from_bytes(&bytes);
        let _ = KeyRegistration::<G>::from_bytes(&bytes);
    }

    #[test]
    fn round_trip_random_proofs(seed in any::<u64>()) {
        let (v, x) = vd(seed, 2);
        let p = v.prove(&mut ctx().transcript(), &[x], &mut rng(seed)).unwrap();
        prop_assert_eq!(v.decode_proof(&p.to_bytes()).unwrap(), p);
    }
}
