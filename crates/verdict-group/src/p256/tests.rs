//! Unit tests of the P-256 internals (wNAF recoding, doubling, constants, small MSMs).

use ark_ec::{AdditiveGroup, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, Field, PrimeField, Zero};
use ark_secp256r1::{Fr, Projective};

use super::point::*;
use super::scalar::*;
use super::wnaf::*;
use crate::traits::Group;

/// The wNAF digits reconstruct the scalar and respect the window constraints.
#[test]
fn wnaf_reconstructs() {
    let values = [
        Fr::ZERO,
        Fr::ONE,
        -Fr::ONE,
        Fr::from(0xdead_beef_u64),
        Fr::from(2u64).pow([255u64]),
        -Fr::from(12345u64),
    ];
    for w in [WNAF_WINDOW_VAR, WNAF_WINDOW_GEN] {
        for v in values {
            let digits = wnaf(&v.into_bigint(), w);
            let mut acc = Fr::ZERO;
            for &d in digits.iter().rev() {
                acc.double_in_place();
                if d >= 0 {
                    acc += Fr::from(d as u64);
                } else {
                    acc -= Fr::from(d.unsigned_abs() as u64);
                }
            }
            assert_eq!(acc, v, "w = {w}");
            for (i, &d) in digits.iter().enumerate() {
                if d != 0 {
                    assert!(d % 2 != 0 && d.unsigned_abs() < (1 << (w - 1)));
                    let end = (i + w as usize).min(WNAF_LEN);
                    assert!(digits[i + 1..end].iter().all(|&e| e == 0));
                }
            }
        }
    }
}

#[test]
fn doubling_matches_arkworks() {
    let mut p = Projective::ZERO;
    double_a_minus_3(&mut p);
    assert!(p.is_zero());
    let mut p = Point::hash_to_group(b"test", b"doubling").0;
    for _ in 0..8 {
        let mut q = p;
        double_a_minus_3(&mut q);
        assert_eq!(q, p.double());
        p = q + Point::generator().0;
    }
}

#[test]
fn two_pow_256_constant() {
    assert_eq!(TWO_POW_256_MOD_N, Fr::from(2u64).pow([256u64]));
}

#[test]
fn small_msm_matches_pippenger() {
    let g = Point::generator();
    let points = [
        g,
        g.double() + g,
        Point::identity(),
        g * Scalar(-Fr::from(7u64)),
    ];
    let scalars = [
        Scalar(Fr::from(3u64)),
        Scalar(-Fr::ONE),
        Scalar(Fr::from(9u64)),
        Scalar(Fr::from(2u64).pow([200u64])),
    ];
    let expect: Point = scalars.iter().zip(&points).map(|(s, p)| *p * s).sum();
    assert_eq!(Point(small_msm(&scalars, &points)), expect);
    let bases = Projective::normalize_batch(&points.map(|p| p.0));
    let big: Vec<BigInt<4>> = scalars.iter().map(|s| s.0.into_bigint()).collect();
    assert_eq!(Point(Projective::msm_bigint(&bases, &big)), expect);
}
