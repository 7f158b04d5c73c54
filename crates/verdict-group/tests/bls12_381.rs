//! BLS12-381: the conformance suite for G1, G2 and GT, invalid encodings, RFC 9380 and
//! zkcrypto known-answer vectors, the pairing, and decode robustness.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ark_bls12_381::{Fq, Fq2, Fq12, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, Field, One, PrimeField};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use sha2::{Digest, Sha256};
use verdict_group::bls12_381::{self, Scalar};
use verdict_group::{
    Bls12381G1, Bls12381G2, Bls12381Gt, DecodeError, Group, GroupError, Scalar as _, testing,
};

#[test]
fn conformance_g1() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4231_0001);
    testing::check_group::<Bls12381G1, _>(&mut rng);
}

#[test]
fn conformance_g2() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4231_0002);
    testing::check_group::<Bls12381G2, _>(&mut rng);
}

#[test]
fn conformance_gt() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4231_0003);
    testing::check_group::<Bls12381Gt, _>(&mut rng);
}

// ---------------------------------------------------------------------------------------------
// Invalid encodings
// ---------------------------------------------------------------------------------------------

fn fq_be(x: &Fq) -> Vec<u8> {
    x.into_bigint().to_bytes_be()
}

/// A G1 point on the curve but outside the order-r subgroup: x counting up from 5 until
/// x³ + 4 is a square; with cofactor ≈ 2^126 the first such point is a torsion point.
fn g1_torsion_point() -> G1Affine {
    let mut x = Fq::from(5u64);
    loop {
        if let Some(p) = G1Affine::get_point_from_x_unchecked(x, false) {
            assert!(p.is_on_curve());
            assert!(!p.is_in_correct_subgroup_assuming_on_curve());
            return p;
        }
        x += Fq::ONE;
    }
}

/// An x with x³ + 4 not a square (no point on E).
fn g1_x_off_curve() -> Fq {
    let mut x = Fq::from(5u64);
    while G1Affine::get_point_from_x_unchecked(x, false).is_some() {
        x += Fq::ONE;
    }
    x
}

fn g2_torsion_point() -> G2Affine {
    let mut c0 = Fq::from(5u64);
    loop {
        let x = Fq2::new(c0, Fq::ONE);
        if let Some(p) = G2Affine::get_point_from_x_unchecked(x, false) {
            assert!(p.is_on_curve());
            assert!(!p.is_in_correct_subgroup_assuming_on_curve());
            return p;
        }
        c0 += Fq::ONE;
    }
}

fn g2_x_off_curve() -> Fq2 {
    let mut c0 = Fq::from(5u64);
    loop {
        let x = Fq2::new(c0, Fq::ONE);
        if G2Affine::get_point_from_x_unchecked(x, false).is_none() {
            return x;
        }
        c0 += Fq::ONE;
    }
}

/// Compressed encoding of an x coordinate with the "compressed" flag and the sort flag clear.
fn g1_enc_x(x: &Fq) -> Vec<u8> {
    let mut v = fq_be(x);
    v[0] |= 0x80;
    v
}

fn g2_enc_x(x: &Fq2) -> Vec<u8> {
    let mut v = fq_be(&x.c1);
    v.extend(fq_be(&x.c0));
    v[0] |= 0x80;
    v
}

#[test]
fn identity_encodings() {
    let mut id1 = [0u8; 48];
    id1[0] = 0xc0;
    assert_eq!(Bls12381G1::identity().to_bytes(), id1);
    assert_eq!(Bls12381G1::from_bytes(&id1), Ok(Bls12381G1::identity()));
    let mut id2 = [0u8; 96];
    id2[0] = 0xc0;
    assert_eq!(Bls12381G2::identity().to_bytes(), id2);
    assert_eq!(Bls12381G2::from_bytes(&id2), Ok(Bls12381G2::identity()));
    let mut one = vec![0u8; 576];
    one[0] = 1;
    assert_eq!(Bls12381Gt::identity().to_bytes().to_vec(), one);
}

#[test]
fn g1_rejects() {
    use DecodeError::*;
    let valid = Bls12381G1::generator().to_bytes();
    let mut no_compression = valid;
    no_compression[0] &= 0x7f;
    let mut inf_nonzero = [0u8; 48];
    inf_nonzero[0] = 0xc0;
    inf_nonzero[47] = 1;
    let mut inf_high_bits = [0u8; 48];
    inf_high_bits[0] = 0xc1;
    let mut inf_sorted = [0u8; 48];
    inf_sorted[0] = 0xe0;
    let mut uncompressed_inf = [0u8; 48];
    uncompressed_inf[0] = 0x40;
    let mut all_zero_point = [0u8; 48];
    all_zero_point[0] = 0x80; // x = 0: 0 + 4 = 4 is a square, so (0, ±2) is on the curve.
    let mut x_eq_q = Fq::MODULUS.to_bytes_be();
    x_eq_q[0] |= 0x80;
    let mut x_max = vec![0xffu8; 48];
    x_max[0] = 0x9f;
    let off = g1_enc_x(&g1_x_off_curve());
    let torsion = g1_torsion_point();
    let torsion_enc = g1_enc_x(&torsion.x().unwrap());
    let mut torsion_enc_sorted = torsion_enc.clone();
    torsion_enc_sorted[0] |= 0x20;

    testing::check_rejects::<Bls12381G1>(&[
        (
            &[],
            WrongLength {
                expected: 48,
                actual: 0,
            },
        ),
        (
            &valid[..47],
            WrongLength {
                expected: 48,
                actual: 47,
            },
        ),
        (
            &[valid.as_slice(), &[0]].concat(),
            WrongLength {
                expected: 48,
                actual: 49,
            },
        ),
        (
            &[0u8; 96],
            WrongLength {
                expected: 48,
                actual: 96,
            },
        ),
        (&no_compression, NonCanonical),
        (&[0u8; 48], NonCanonical),
        (&inf_nonzero, NonCanonical),
        (&inf_high_bits, NonCanonical),
        (&inf_sorted, NonCanonical),
        (&uncompressed_inf, NonCanonical),
        (&x_eq_q, NonCanonical),
        (&x_max, NonCanonical),
        (&off, NotOnCurve),
        (&torsion_enc, NotInSubgroup),
        (&torsion_enc_sorted, NotInSubgroup),
    ]);
    // (0, ±2) has order 3: on the curve, not in G1.
    assert_eq!(Bls12381G1::from_bytes(&all_zero_point), Err(NotInSubgroup));
}

#[test]
fn g2_rejects() {
    use DecodeError::*;
    let valid = Bls12381G2::generator().to_bytes();
    let mut no_compression = valid;
    no_compression[0] &= 0x7f;
    let mut inf_nonzero = [0u8; 96];
    inf_nonzero[0] = 0xc0;
    inf_nonzero[95] = 1; // in x.c0
    let mut inf_nonzero_c1 = [0u8; 96];
    inf_nonzero_c1[0] = 0xc0;
    inf_nonzero_c1[47] = 1;
    let mut inf_sorted = [0u8; 96];
    inf_sorted[0] = 0xe0;
    // x.c1 = q
    let mut c1_eq_q = Fq::MODULUS.to_bytes_be();
    c1_eq_q[0] |= 0x80;
    c1_eq_q.extend(vec![0u8; 48]);
    // x.c0 = q
    let mut c0_eq_q = vec![0u8; 48];
    c0_eq_q[0] = 0x80;
    c0_eq_q.extend(Fq::MODULUS.to_bytes_be());
    let off = g2_enc_x(&g2_x_off_curve());
    let torsion = g2_torsion_point();
    let torsion_enc = g2_enc_x(&torsion.x().unwrap());
    let mut torsion_enc_sorted = torsion_enc.clone();
    torsion_enc_sorted[0] |= 0x20;

    testing::check_rejects::<Bls12381G2>(&[
        (
            &[],
            WrongLength {
                expected: 96,
                actual: 0,
            },
        ),
        (
            &valid[..48],
            WrongLength {
                expected: 96,
                actual: 48,
            },
        ),
        (
            &[valid.as_slice(), &[0]].concat(),
            WrongLength {
                expected: 96,
                actual: 97,
            },
        ),
        (&no_compression, NonCanonical),
        (&[0u8; 96], NonCanonical),
        (&inf_nonzero, NonCanonical),
        (&inf_nonzero_c1, NonCanonical),
        (&inf_sorted, NonCanonical),
        (&c1_eq_q, NonCanonical),
        (&c0_eq_q, NonCanonical),
        (&[0xffu8; 96], NonCanonical),
        (&off, NotOnCurve),
        (&torsion_enc, NotInSubgroup),
        (&torsion_enc_sorted, NotInSubgroup),
    ]);
}

fn fq12_bytes(f: &Fq12) -> Vec<u8> {
    f.to_base_prime_field_elements()
        .flat_map(|c| c.into_bigint().to_bytes_le())
        .collect()
}

#[test]
fn gt_rejects() {
    use DecodeError::*;
    let g = Bls12381Gt::generator().to_bytes();
    // A coefficient ≥ q.
    let mut coeff_q = g;
    coeff_q[48..96].copy_from_slice(&Fq::MODULUS.to_bytes_le());
    let mut coeff_ff = g;
    coeff_ff[528..].fill(0xff);
    // An arbitrary Fq12 element: not even in the cyclotomic subgroup.
    let arbitrary =
        Fq12::from_base_prime_field_elems((0..12u64).map(|i| Fq::from(i * i + 7))).unwrap();
    // In the cyclotomic subgroup but not of order r: the easy part of the final
    // exponentiation, f^((q⁶ − 1)(q² + 1)).
    let mut conj = arbitrary;
    conj.conjugate_in_place();
    let mut easy = conj * arbitrary.inverse().unwrap();
    let mut e2 = easy;
    e2.frobenius_map_in_place(2);
    easy *= e2;
    assert!(!easy.pow(Fr::MODULUS).is_one());
    // −1 has order 2.
    let minus_one = -Fq12::ONE;
    testing::check_rejects::<Bls12381Gt>(&[
        (
            &[],
            WrongLength {
                expected: 576,
                actual: 0,
            },
        ),
        (
            &g[..575],
            WrongLength {
                expected: 576,
                actual: 575,
            },
        ),
        (
            &[0u8; 577],
            WrongLength {
                expected: 576,
                actual: 577,
            },
        ),
        (&coeff_q, NonCanonical),
        (&coeff_ff, NonCanonical),
        (&[0u8; 576], NotInSubgroup),
        (&fq12_bytes(&arbitrary), NotInSubgroup),
        (&fq12_bytes(&easy), NotInSubgroup),
        (&fq12_bytes(&minus_one), NotInSubgroup),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Known-answer vectors
// ---------------------------------------------------------------------------------------------

fn load_json(name: &str) -> Value {
    let path = format!("{}/tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect(&path)).unwrap()
}

fn fq_hex(s: &str) -> Fq {
    let bytes = hex::decode(s.trim().trim_start_matches("0x")).unwrap();
    let f = Fq::from_be_bytes_mod_order(&bytes);
    assert_eq!(fq_be(&f), bytes, "vector coordinate is canonical");
    f
}

fn fq2_hex(s: &str) -> Fq2 {
    let (c0, c1) = s.split_once(',').unwrap();
    Fq2::new(fq_hex(c0), fq_hex(c1))
}

fn point_g1(v: &Value) -> G1Affine {
    let p = G1Affine::new_unchecked(
        fq_hex(v["x"].as_str().unwrap()),
        fq_hex(v["y"].as_str().unwrap()),
    );
    assert!(p.is_on_curve());
    p
}

fn point_g2(v: &Value) -> G2Affine {
    let p = G2Affine::new_unchecked(
        fq2_hex(v["x"].as_str().unwrap()),
        fq2_hex(v["y"].as_str().unwrap()),
    );
    assert!(p.is_on_curve());
    p
}

#[test]
fn rfc9380_hash_to_g1() {
    let suite = load_json("BLS12381G1_XMD-SHA-256_SSWU_RO_.json");
    assert_eq!(suite["ciphersuite"], "BLS12381G1_XMD:SHA-256_SSWU_RO_");
    let dst = suite["dst"].as_str().unwrap();
    assert_eq!(dst, "QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_");
    let vectors = suite["vectors"].as_array().unwrap();
    let msgs: Vec<&str> = vectors.iter().map(|v| v["msg"].as_str().unwrap()).collect();
    assert_eq!(&msgs[..3], &["", "abc", "abcdef0123456789"]);
    assert!(msgs[3].starts_with("q128_") && msgs[4].starts_with("a512_"));
    for v in vectors {
        let msg = v["msg"].as_str().unwrap();
        let expect = point_g1(&v["P"]);
        // The vector is self-consistent: P = clear_cofactor(Q0 + Q1).
        let q = (point_g1(&v["Q0"]) + point_g1(&v["Q1"])).into_affine();
        assert_eq!(q.clear_cofactor(), expect, "Q0 + Q1 for {msg:?}");
        let got = Bls12381G1::hash_to_group(dst.as_bytes(), msg.as_bytes());
        assert_eq!(got.0.into_affine(), expect, "hash_to_G1({msg:?})");
        assert_eq!(Bls12381G1::from_bytes(got.to_bytes().as_ref()), Ok(got));
    }
}

#[test]
fn rfc9380_hash_to_g2() {
    let suite = load_json("BLS12381G2_XMD-SHA-256_SSWU_RO_.json");
    assert_eq!(suite["ciphersuite"], "BLS12381G2_XMD:SHA-256_SSWU_RO_");
    let dst = suite["dst"].as_str().unwrap();
    assert_eq!(dst, "QUUX-V01-CS02-with-BLS12381G2_XMD:SHA-256_SSWU_RO_");
    let vectors = suite["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 5);
    for v in vectors {
        let msg = v["msg"].as_str().unwrap();
        let expect = point_g2(&v["P"]);
        let q = (point_g2(&v["Q0"]) + point_g2(&v["Q1"])).into_affine();
        assert_eq!(q.clear_cofactor(), expect, "Q0 + Q1 for {msg:?}");
        let got = Bls12381G2::hash_to_group(dst.as_bytes(), msg.as_bytes());
        assert_eq!(got.0.into_affine(), expect, "hash_to_G2({msg:?})");
        assert_eq!(Bls12381G2::from_bytes(got.to_bytes().as_ref()), Ok(got));
    }
}

/// RFC 9380 §5.3.3: a DST longer than 255 bytes is replaced by
/// `SHA-256("H2C-OVERSIZE-DST-" ‖ DST)`.
#[test]
fn oversize_dst() {
    let long = vec![b'D'; 300];
    let mut h = Sha256::new();
    h.update(b"H2C-OVERSIZE-DST-");
    h.update(&long);
    let short = h.finalize();
    assert_eq!(
        Bls12381G1::hash_to_group(&long, b"msg"),
        Bls12381G1::hash_to_group(&short, b"msg")
    );
    assert_eq!(
        Bls12381G2::hash_to_group(&long, b"msg"),
        Bls12381G2::hash_to_group(&short, b"msg")
    );
    // 255 bytes is still used as is; the empty DST works too (the RFC discourages it, but
    // hashing must not fail).
    let d255 = vec![b'D'; 255];
    assert!(!Bls12381G1::hash_to_group(&d255, b"msg").is_identity());
    assert!(!Bls12381G1::hash_to_group(b"", b"").is_identity());
    assert!(!Bls12381G2::hash_to_group(b"", &[0u8; 10_000]).is_identity());
}

fn check_multiples<G: Group>(data: &[u8]) {
    let len = G::ENCODED_LEN;
    assert_eq!(data.len(), 1000 * len);
    let mut acc = G::identity();
    for (k, chunk) in data.chunks(len).enumerate() {
        assert_eq!(
            acc.to_bytes().as_ref(),
            chunk,
            "{}: {k} · g encoding",
            G::NAME
        );
        assert_eq!(
            G::from_bytes(chunk),
            Ok(acc),
            "{}: {k} · g decoding",
            G::NAME
        );
        acc += G::generator();
    }
}

#[test]
fn zkcrypto_compressed_vectors() {
    let dir = format!("{}/tests/vectors", env!("CARGO_MANIFEST_DIR"));
    let g1 = std::fs::read(format!("{dir}/g1_compressed_valid_test_vectors.dat")).unwrap();
    check_multiples::<Bls12381G1>(&g1);
    let g2 = std::fs::read(format!("{dir}/g2_compressed_valid_test_vectors.dat")).unwrap();
    check_multiples::<Bls12381G2>(&g2);
}

#[test]
fn batch_encoding_with_identity() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let pts = vec![
        Bls12381G1::random(&mut rng),
        Bls12381G1::identity(),
        Bls12381G1::generator(),
    ];
    let batch = Bls12381G1::batch_to_bytes(&pts);
    for (p, b) in pts.iter().zip(&batch) {
        assert_eq!(&p.to_bytes(), b);
    }
    let pts2 = vec![Bls12381G2::identity(), Bls12381G2::random(&mut rng)];
    let batch2 = Bls12381G2::batch_to_bytes(&pts2);
    for (p, b) in pts2.iter().zip(&batch2) {
        assert_eq!(&p.to_bytes(), b);
    }
}

#[test]
fn scalar_encoding_big_endian() {
    let r_minus_1 = -Scalar::one();
    let mut expect = Fr::MODULUS.to_bytes_be();
    *expect.last_mut().unwrap() -= 1;
    assert_eq!(r_minus_1.to_bytes().to_vec(), expect);
    // from_uniform_bytes reads a big-endian 512-bit integer: 2^256 + 5.
    let mut wide = [0u8; 64];
    wide[31] = 1;
    wide[63] = 5;
    let two_256 = Scalar(Fr::from(2u64).pow([256u64]));
    assert_eq!(
        Scalar::from_uniform_bytes(&wide),
        two_256 + Scalar::from_u64(5)
    );
}

#[test]
fn tables_and_identity_base() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let s = Scalar::random(&mut rng);
    let t = Bls12381G1::identity().precompute();
    assert!(verdict_group::FixedBaseTable::mul(&t, &s).is_identity());
    let t2 = Bls12381G2::identity().precompute();
    assert!(verdict_group::FixedBaseTable::mul(&t2, &s).is_identity());
    assert_eq!(
        Bls12381G2::mul_generator(&s),
        bls12_381::G2(G2Projective::generator() * s.0)
    );
    assert_eq!(
        Bls12381G1::mul_generator(&s),
        bls12_381::G1(G1Projective::generator() * s.0)
    );
}

// ---------------------------------------------------------------------------------------------
// The pairing
// ---------------------------------------------------------------------------------------------

#[test]
fn pairing_properties() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4231_0004);
    let g1 = Bls12381G1::generator();
    let g2 = Bls12381G2::generator();
    let e = bls12_381::pairing(&g1, &g2);
    assert_eq!(e, Bls12381Gt::generator(), "GT generator is e(g1, g2)");
    assert!(!e.is_identity(), "non-degenerate");
    assert!(bls12_381::pairing(&Bls12381G1::identity(), &g2).is_identity());
    assert!(bls12_381::pairing(&g1, &Bls12381G2::identity()).is_identity());

    let a = Scalar::random(&mut rng);
    let b = Scalar::random(&mut rng);
    let p = Bls12381G1::random(&mut rng);
    let q = Bls12381G2::random(&mut rng);
    let epq = bls12_381::pairing(&p, &q);
    assert_eq!(
        bls12_381::pairing(&(p * a), &(q * b)),
        epq * (a * b),
        "bilinear"
    );
    assert_eq!(
        bls12_381::pairing(&(p * a), &q),
        bls12_381::pairing(&p, &(q * a))
    );
    assert_eq!(
        bls12_381::pairing(&(p + g1), &q),
        epq + bls12_381::pairing(&g1, &q),
        "additive in G1"
    );
    assert_eq!(bls12_381::pairing(&-p, &q), -epq);

    let ps: Vec<_> = (0..4).map(|_| Bls12381G1::random(&mut rng)).collect();
    let qs: Vec<_> = (0..4).map(|_| Bls12381G2::random(&mut rng)).collect();
    let product: Bls12381Gt = ps
        .iter()
        .zip(&qs)
        .map(|(p, q)| bls12_381::pairing(p, q))
        .sum();
    assert_eq!(bls12_381::multi_pairing(&ps, &qs), Ok(product));
    assert_eq!(
        bls12_381::multi_pairing(&[], &[]),
        Ok(Bls12381Gt::identity())
    );
    assert_eq!(
        bls12_381::multi_pairing(&ps, &qs[..3]),
        Err(GroupError::LengthMismatch { left: 4, right: 3 })
    );
    // e(aP, Q) · e(−P, aQ) = 1: the shape of a pairing-based verification equation.
    assert!(
        bls12_381::multi_pairing(&[p * a, -p], &[q, q * a])
            .unwrap()
            .is_identity()
    );

    // GT hashing is e(HashToG1, g2).
    let h1 = Bls12381G1::hash_to_group(b"verdict-test", b"slot 3");
    assert_eq!(
        Bls12381Gt::hash_to_group(b"verdict-test", b"slot 3"),
        bls12_381::pairing(&h1, &g2)
    );
    // The pairing output survives the wire.
    assert_eq!(Bls12381Gt::from_bytes(epq.to_bytes().as_ref()), Ok(epq));
}

// ---------------------------------------------------------------------------------------------
// Robustness: decoding arbitrary bytes never panics
// ---------------------------------------------------------------------------------------------

/// A canonical-looking GT candidate: 12 coefficients each < 2^380 (< q), so decoding reaches
/// the subgroup check.
fn canonical_fq12_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 576).prop_map(|mut v| {
        for chunk in v.chunks_mut(48) {
            chunk[47] &= 0x0f;
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn g1_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 40..=56)) {
        if let Ok(p) = Bls12381G1::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes.clone());
        }
    }

    #[test]
    fn g1_decode_flagged_x(mut bytes in proptest::collection::vec(any::<u8>(), 48)) {
        // Force the compressed flag and a canonical-size x so the curve/subgroup paths run.
        bytes[0] = (bytes[0] & 0x2f) | 0x80;
        if let Ok(p) = Bls12381G1::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes.clone());
        }
    }

    #[test]
    fn g2_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 88..=104)) {
        if let Ok(p) = Bls12381G2::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes.clone());
        }
    }

    #[test]
    fn g2_decode_flagged_x(mut bytes in proptest::collection::vec(any::<u8>(), 96)) {
        bytes[0] = (bytes[0] & 0x2f) | 0x80;
        bytes[48] &= 0x0f;
        if let Ok(p) = Bls12381G2::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes.clone());
        }
    }

    #[test]
    fn scalar_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 28..=36)) {
        if let Ok(s) = Scalar::from_bytes(&bytes) {
            prop_assert_eq!(s.to_bytes().to_vec(), bytes.clone());
        }
    }
}

proptest! {
    // GT candidates that pass the canonicity check cost a subgroup check each: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn gt_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 568..=584)) {
        if let Ok(p) = Bls12381Gt::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes.clone());
        }
    }

    #[test]
    fn gt_decode_canonical_candidates(bytes in canonical_fq12_bytes()) {
        prop_assert_eq!(Bls12381Gt::from_bytes(&bytes), Err(DecodeError::NotInSubgroup));
    }
}

/// The wrappers expose the arkworks values they wrap.
#[test]
fn inner_values_are_the_wrapped_ones() {
    let s = Scalar::from_u64(77);
    assert_eq!(s.inner(), &s.0);
    assert_eq!(*s.inner(), Fr::from(77u64));
    let g1 = Bls12381G1::generator() * s;
    assert_eq!(g1.inner(), &g1.0);
    assert_eq!(*g1.inner(), G1Projective::generator() * Fr::from(77u64));
    let g2 = Bls12381G2::generator() * s;
    assert_eq!(g2.inner(), &g2.0);
    assert_eq!(*g2.inner(), G2Projective::generator() * Fr::from(77u64));
    let gt = Bls12381Gt::generator();
    assert_eq!(gt.inner(), &gt.0);
    let e = <ark_bls12_381::Bls12_381 as ark_ec::pairing::Pairing>::pairing(
        G1Projective::generator(),
        G2Projective::generator(),
    );
    assert_eq!(*gt.inner(), e);
}
