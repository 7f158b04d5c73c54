//! The field against `p256`'s `FieldElement` (an independent implementation of the same field)
//! on edge values and random ones, operation by operation, and against arkworks' Montgomery
//! limbs.

use ark_ff::PrimeField;
use ark_secp256r1::Fq;
use p256_rustcrypto::{FieldBytes, FieldElement};
use proptest::prelude::*;

use super::Fe;

/// `p`, big-endian.
const P_BE: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
];

/// `p + d` (`d` may be negative), big-endian, for `|d|` small.
fn p_plus(d: i64) -> [u8; 32] {
    let mut v = P_BE;
    let mut carry = d as i128;
    for byte in v.iter_mut().rev() {
        let t = i128::from(*byte) + carry;
        *byte = t.rem_euclid(256) as u8;
        carry = t.div_euclid(256);
    }
    v
}

/// Canonical edge values as integers: 0, 1, 2, 3, p − 1, p − 2, p − 2^40, 2^255, 2^224,
/// 2^192 + 2^96 and 2^255 − 1. (Their Montgomery limbs look random; [`limb_patterns`] gives the
/// limbs themselves awkward values.)
fn edges() -> Vec<[u8; 32]> {
    // Big-endian bytes: index `i` holds bits `8·(31 − i)` and up.
    let with = |bytes: &[(usize, u8)]| {
        let mut v = [0u8; 32];
        for &(i, b) in bytes {
            v[i] = b;
        }
        v
    };
    let mut below_top_bit = [0xffu8; 32];
    below_top_bit[0] = 0x7f;
    vec![
        [0u8; 32],
        with(&[(31, 1)]),
        with(&[(31, 2)]),
        with(&[(31, 3)]),
        p_plus(-1),
        p_plus(-2),
        p_plus(-(1 << 40)),
        with(&[(0, 0x80)]),
        with(&[(3, 1)]),
        with(&[(7, 1), (19, 1)]),
        below_top_bit,
    ]
}

/// Limb values where carries and borrows go wrong: 0, 1, 2^32 − 1, 2^32, 2^63, 2^64 − 1 and
/// `p`'s own limbs, with neighbours.
const AWKWARD_LIMBS: [u64; 10] = [
    0,
    1,
    0xffff_ffff,
    0x1_0000_0000,
    1 << 63,
    u64::MAX,
    u64::MAX - 1,
    0xffff_ffff_0000_0001,
    0xffff_ffff_0000_0000,
    0xffff_ffff_0000_0002,
];

/// `p`, least significant limb first.
const P_LIMBS: [u64; 4] = [u64::MAX, 0xffff_ffff, 0, 0xffff_ffff_0000_0001];

/// Whether little-endian limbs are below `p` (a valid Montgomery representation).
fn below_p(limbs: &[u64; 4]) -> bool {
    limbs.iter().rev().lt(P_LIMBS.iter().rev())
}

/// Montgomery representations with awkward limbs: every limb drawn from [`AWKWARD_LIMBS`] (the
/// ones below `p`), plus `ONE`, `R²` and `p − 1` as limbs.
fn limb_patterns() -> Vec<Fe> {
    let mut out = vec![
        Fe::ONE,
        super::R2,
        Fe([u64::MAX, 0xffff_ffff, 0, 0xffff_ffff_0000_0000]),
    ];
    // Four limbs from a small set in a fixed mixed order, enough to put every value in every
    // position and next to every other.
    for (i, &a) in AWKWARD_LIMBS.iter().enumerate() {
        for (j, &b) in AWKWARD_LIMBS.iter().enumerate() {
            let c = AWKWARD_LIMBS[(i + 2 * j + 1) % AWKWARD_LIMBS.len()];
            let d = AWKWARD_LIMBS[(3 * i + j + 5) % AWKWARD_LIMBS.len()];
            let limbs = [a, b, c, d];
            if below_p(&limbs) {
                out.push(Fe(limbs));
            }
        }
    }
    out
}

fn theirs(bytes: &[u8; 32]) -> FieldElement {
    Option::from(FieldElement::from_bytes(&FieldBytes::from(*bytes))).expect("canonical")
}

fn ours(bytes: &[u8; 32]) -> Fe {
    Fe::from_bytes(&FieldBytes::from(*bytes)).expect("canonical")
}

/// Every operation of the two fields on `a` and `b` gives the same canonical bytes.
fn agree(a: &[u8; 32], b: &[u8; 32]) {
    let (x, y) = (ours(a), ours(b));
    let (u, v) = (theirs(a), theirs(b));
    assert_eq!(x.to_bytes(), FieldBytes::from(*a), "round trip");
    assert_eq!(x.add(&y).to_bytes(), u.add(&v).to_bytes(), "add");
    assert_eq!(x.sub(&y).to_bytes(), u.sub(&v).to_bytes(), "sub");
    assert_eq!(x.double().to_bytes(), u.double().to_bytes(), "double");
    assert_eq!(x.neg().to_bytes(), u.neg().to_bytes(), "neg");
    assert_eq!(x.mul(&y).to_bytes(), u.multiply(&v).to_bytes(), "mul");
    assert_eq!(x.square().to_bytes(), u.square().to_bytes(), "square");
    assert_eq!(x.square(), x.mul(&x), "square is mul");
    let inverse = Option::from(u.invert()).unwrap_or(FieldElement::ZERO);
    assert_eq!(x.invert().to_bytes(), inverse.to_bytes(), "invert");
    assert_eq!(bool::from(x.is_zero()), bool::from(u.is_zero()), "is_zero");
}

#[test]
fn edge_values_agree_with_p256() {
    let edges = edges();
    for a in &edges {
        for b in &edges {
            agree(a, b);
        }
    }
}

/// The same with awkward limbs as the operands' Montgomery representations, which the edge
/// integers above never produce.
#[test]
fn awkward_limbs_agree_with_p256() {
    let values: Vec<[u8; 32]> = limb_patterns()
        .iter()
        .map(|x| x.to_bytes().into())
        .collect();
    assert!(values.len() > 60, "{} patterns", values.len());
    for (i, a) in values.iter().enumerate() {
        // Every pattern against a spread of others (all pairs would be ~10⁴ inversions).
        for b in values.iter().skip(i % 7).step_by(7) {
            agree(a, b);
        }
    }
    // A value's limbs survive a round trip exactly.
    for x in limb_patterns() {
        assert_eq!(ours(&x.to_bytes().into()), x);
    }
}

#[test]
fn constants_are_zero_and_one() {
    assert_eq!(Fe::ZERO.to_bytes(), FieldElement::ZERO.to_bytes());
    assert_eq!(Fe::ONE.to_bytes(), FieldElement::ONE.to_bytes());
    let mut one = [0u8; 32];
    one[31] = 1;
    assert_eq!(ours(&one), Fe::ONE);
    assert!(bool::from(Fe::ZERO.is_zero()));
    assert!(!bool::from(Fe::ONE.is_zero()));
    assert_eq!(Fe::ZERO.invert(), Fe::ZERO);
}

#[test]
fn only_canonical_encodings_decode() {
    for d in [0i64, 1, 2, 1 << 40] {
        assert!(
            Fe::from_bytes(&FieldBytes::from(p_plus(d))).is_none(),
            "p + {d}"
        );
    }
    assert!(Fe::from_bytes(&FieldBytes::from([0xffu8; 32])).is_none());
    // p + 2^128: limb 2 non-zero while the top limb equals p's.
    let mut above = P_BE;
    above[15] = 1;
    assert!(Fe::from_bytes(&FieldBytes::from(above)).is_none());
    // 2^256 − 2^224, just below p in the top limbs.
    let mut below = [0u8; 32];
    below[..4].copy_from_slice(&[0xff; 4]);
    assert!(Fe::from_bytes(&FieldBytes::from(below)).is_some());
    assert!(Fe::from_bytes(&FieldBytes::from(p_plus(-1))).is_some());
}

/// The limbs are arkworks' Montgomery limbs of the same number, so they can be handed over.
#[test]
fn limbs_are_arkworks_montgomery_limbs() {
    for a in edges() {
        let ark = Fq::from_be_bytes_mod_order(&a);
        assert_eq!(ours(&a).0, (ark.0).0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_values_agree_with_p256(a in any::<[u8; 32]>(), b in any::<[u8; 32]>()) {
        // Below p: clear the top bit (2^255 < p).
        let (mut a, mut b) = (a, b);
        a[0] &= 0x7f;
        b[0] &= 0x7f;
        agree(&a, &b);
    }

    #[test]
    fn awkward_random_limbs_agree_with_p256(
        picks in proptest::array::uniform4(0usize..AWKWARD_LIMBS.len() + 1),
        random in any::<[u64; 4]>(),
        other in any::<[u8; 32]>(),
    ) {
        // Each limb an awkward value or (the extra index) a random one.
        let limbs: [u64; 4] =
            core::array::from_fn(|i| AWKWARD_LIMBS.get(picks[i]).copied().unwrap_or(random[i]));
        prop_assume!(below_p(&limbs));
        let mut other = other;
        other[0] &= 0x7f;
        agree(&Fe(limbs).to_bytes().into(), &other);
    }

    #[test]
    fn decoding_accepts_exactly_what_p256_accepts(a in any::<[u8; 32]>()) {
        let ours = Fe::from_bytes(&FieldBytes::from(a)).map(Fe::to_bytes);
        let theirs: Option<FieldElement> = FieldElement::from_bytes(&FieldBytes::from(a)).into();
        prop_assert_eq!(ours, theirs.map(|t| t.to_bytes()));
    }
}
