//! Neff shuffle: completeness, rejection of bad outputs and proofs, binding, wire decoding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{Group, Ristretto255 as G, Scalar};
use verdict_shuffle::{
    Check, Ciphertext, CiphertextList, KeyPair, ProofContext, ShuffleDecodeError, ShuffleError,
    ShuffleProof, ShuffleStatement, SimpleStatement, prove, prove_simple, shuffle, verify,
    verify_each, verify_simple, verify_simple_batched,
};

type S = <G as Group>::Scalar;
const SESSION: [u8; 32] = [9u8; 32];

struct Fixture {
    h: G,
    inputs: CiphertextList<G>,
    outputs: CiphertextList<G>,
    proof: ShuffleProof<G>,
    ctx: ProofContext,
}

fn fixture(n: usize, seed: u64) -> Fixture {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let h = KeyPair::<G>::generate(&mut rng).public();
    let inputs = CiphertextList::new(
        (0..n)
            .map(|_| Ciphertext::encrypt(&h, &G::random(&mut rng), &mut rng).0)
            .collect(),
    );
    let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
    let ctx = ProofContext::new(SESSION, 2);
    let st = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &outputs,
    };
    let proof = prove(&ctx, &st, &witness, &mut rng).unwrap();
    Fixture {
        h,
        inputs,
        outputs,
        proof,
        ctx,
    }
}

/// Both verifiers, which must agree.
fn check(
    f: &Fixture,
    outputs: &CiphertextList<G>,
    proof: &ShuffleProof<G>,
    ctx: &ProofContext,
) -> bool {
    let st = ShuffleStatement {
        h: f.h,
        inputs: &f.inputs,
        outputs,
    };
    let a = verify(ctx, &st, proof).is_ok();
    let b = verify_each(ctx, &st, proof).is_ok();
    assert_eq!(a, b, "batched and per-equation verifiers disagree");
    a
}

#[test]
fn completeness_and_proof_size() {
    for (n, seed) in [(2, 1), (3, 2), (10, 3), (100, 4), (1000, 5)] {
        let f = fixture(n, seed);
        assert!(check(&f, &f.outputs, &f.proof, &f.ctx), "n = {n}");
        let bytes = f.proof.to_bytes();
        assert_eq!(
            bytes.len(),
            (7 * n + 3) * 32 + 3 * n * 32,
            "proof size n = {n}"
        );
        assert_eq!(bytes.len(), ShuffleProof::<G>::encoded_len(n));
        let decoded = ShuffleProof::<G>::from_bytes(&bytes, n).unwrap();
        assert_eq!(decoded, f.proof);
        assert!(check(&f, &f.outputs, &decoded, &f.ctx));
    }
}

#[test]
fn rejects_modified_outputs() {
    let f = fixture(10, 7);
    let out = f.outputs.to_vec();
    let with = |v: Vec<Ciphertext<G>>| CiphertextList::new(v);
    // swapped
    let mut v = out.clone();
    v.swap(0, 1);
    assert!(!check(&f, &with(v), &f.proof, &f.ctx));
    // duplicated
    let mut v = out.clone();
    v[1] = v[0];
    assert!(!check(&f, &with(v), &f.proof, &f.ctx));
    // replaced by a fresh encryption
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let mut v = out.clone();
    v[3] = Ciphertext::encrypt(&f.h, &G::random(&mut rng), &mut rng).0;
    assert!(!check(&f, &with(v), &f.proof, &f.ctx));
    // re-randomized once more (same plaintexts, but not what was proved)
    let mut v = out.clone();
    v[4] = v[4].rerandomize(&f.h, &S::random(&mut rng));
    assert!(!check(&f, &with(v), &f.proof, &f.ctx));
    // tagged
    let v: Vec<_> = out.iter().map(|c| c.scale(&S::from_u64(5))).collect();
    assert!(!check(&f, &with(v), &f.proof, &f.ctx));
    // dropped: a length mismatch, reported as such
    let v = out[..9].to_vec();
    let st = ShuffleStatement {
        h: f.h,
        inputs: &f.inputs,
        outputs: &with(v),
    };
    assert!(matches!(
        verify(&f.ctx, &st, &f.proof),
        Err(ShuffleError::LengthMismatch { .. })
    ));
    assert!(matches!(
        verify_each(&f.ctx, &st, &f.proof),
        Err(ShuffleError::LengthMismatch { .. })
    ));
    // wrong key
    let st = ShuffleStatement {
        h: f.h + G::generator(),
        inputs: &f.inputs,
        outputs: &f.outputs,
    };
    assert!(verify(&f.ctx, &st, &f.proof).is_err());
}

#[test]
fn proofs_are_bound_to_session_and_prover() {
    let f = fixture(6, 9);
    let other_session = ProofContext::new([1u8; 32], f.ctx.prover);
    let other_prover = ProofContext::new(f.ctx.session, f.ctx.prover + 1);
    assert!(!check(&f, &f.outputs, &f.proof, &other_session));
    assert!(!check(&f, &f.outputs, &f.proof, &other_prover));
}

#[test]
fn shape_errors_never_panic() {
    let f = fixture(4, 10);
    let st = ShuffleStatement {
        h: f.h,
        inputs: &f.inputs,
        outputs: &f.outputs,
    };
    // n < 2
    let one = CiphertextList::new(f.inputs[..1].to_vec());
    let st1 = ShuffleStatement {
        h: f.h,
        inputs: &one,
        outputs: &one,
    };
    assert_eq!(
        verify(&f.ctx, &st1, &f.proof),
        Err(ShuffleError::TooFew { n: 1 })
    );
    let empty = CiphertextList::<G>::new(vec![]);
    let st0 = ShuffleStatement {
        h: f.h,
        inputs: &empty,
        outputs: &empty,
    };
    assert_eq!(
        verify_each(&f.ctx, &st0, &f.proof),
        Err(ShuffleError::TooFew { n: 0 })
    );
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (_, w) = shuffle(&f.h, &one, &mut rng);
    assert_eq!(
        prove(&f.ctx, &st1, &w, &mut rng).unwrap_err(),
        ShuffleError::TooFew { n: 1 }
    );
    // witness of the wrong length
    let (_, w3) = shuffle(&f.h, &f.inputs[..3], &mut rng);
    assert!(matches!(
        prove(&f.ctx, &st, &w3, &mut rng),
        Err(ShuffleError::LengthMismatch { .. })
    ));
    // proof for another n
    let f5 = fixture(5, 11);
    assert!(matches!(
        verify(&f.ctx, &st, &f5.proof),
        Err(ShuffleError::LengthMismatch { .. })
    ));
    // identity key
    let sti = ShuffleStatement {
        h: G::identity(),
        inputs: &f.inputs,
        outputs: &f.outputs,
    };
    assert!(matches!(
        verify(&f.ctx, &sti, &f.proof),
        Err(ShuffleError::Identity { .. })
    ));
}

#[test]
fn wire_decoder_validates() {
    let f = fixture(3, 12);
    let bytes = f.proof.to_bytes();
    // truncated, trailing, wrong n
    assert!(matches!(
        ShuffleProof::<G>::from_bytes(&bytes[..bytes.len() - 1], 3),
        Err(ShuffleDecodeError::Truncated { .. })
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        ShuffleProof::<G>::from_bytes(&long, 3),
        Err(ShuffleDecodeError::TrailingBytes { extra: 1 })
    ));
    assert!(ShuffleProof::<G>::from_bytes(&bytes, 4).is_err());
    assert!(ShuffleProof::<G>::from_bytes(&bytes, 1).is_err());
    // Γ = identity
    let mut b = bytes.clone();
    b[..32].copy_from_slice(&[0u8; 32]);
    assert!(matches!(
        ShuffleProof::<G>::from_bytes(&b, 3),
        Err(ShuffleDecodeError::Element { what: "Γ", .. })
    ));
    // invalid encodings (RFC 9496: negative s, s ≥ p, not on the curve) anywhere in the proof
    for bad in [
        {
            let mut e = [0u8; 32];
            e[0] = 1; // negative field element
            e
        },
        [0xff; 32], // non-canonical
        {
            let mut e = [0u8; 32];
            e[0] = 0x08; // decodes to no ristretto point? (probabilistic: checked below)
            e[1] = 0x01;
            e
        },
    ] {
        for offset in [0usize, 32 * 5, 32 * (7 * 3 + 2)] {
            let mut b = bytes.clone();
            b[offset..offset + 32].copy_from_slice(&bad);
            if G::from_bytes(&bad).is_err() {
                assert!(matches!(
                    ShuffleProof::<G>::from_bytes(&b, 3),
                    Err(ShuffleDecodeError::Element { .. })
                ));
            }
        }
    }
    // a non-canonical scalar (≥ q)
    let mut b = bytes.clone();
    let at = (7 * 3 + 3) * 32;
    b[at..at + 32].copy_from_slice(&[0xff; 32]);
    assert!(matches!(
        ShuffleProof::<G>::from_bytes(&b, 3),
        Err(ShuffleDecodeError::Element { what: "σ", .. })
    ));
    // ciphertext lists: odd length and invalid points
    assert!(CiphertextList::<G>::from_bytes(&[0u8; 63]).is_err());
    assert!(CiphertextList::<G>::from_bytes(&[0xffu8; 64]).is_err());
    let l = CiphertextList::<G>::from_bytes(f.outputs.as_bytes()).unwrap();
    assert_eq!(l, f.outputs);
}

#[test]
fn simple_shuffle_standalone() {
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let k = 20;
    let base = G::random(&mut rng);
    let gamma = S::random(&mut rng);
    let xlogs: Vec<S> = (0..k).map(|_| S::random(&mut rng)).collect();
    let x: Vec<G> = xlogs.iter().map(|s| base * s).collect();
    let perm: Vec<usize> = (0..k).map(|i| (i * 7 + 3) % k).collect();
    let y: Vec<G> = perm.iter().map(|&j| x[j] * gamma).collect();
    let st = SimpleStatement {
        base,
        gamma: base * gamma,
        x: &x,
        y: &y,
    };
    let ctx = ProofContext::new(SESSION, 0);
    let proof = prove_simple(&ctx, &st, &gamma, &xlogs, &perm, &mut rng).unwrap();
    verify_simple(&ctx, &st, &proof).unwrap();
    verify_simple_batched(&ctx, &st, &proof).unwrap();
    // Y not a permutation of X^γ: both reject.
    let mut y2 = y.clone();
    y2[0] += base;
    let st2 = SimpleStatement { y: &y2, ..st };
    assert!(matches!(
        verify_simple(&ctx, &st2, &proof),
        Err(ShuffleError::Rejected {
            check: Check::SimpleShuffle { .. }
        })
    ));
    assert!(verify_simple_batched(&ctx, &st2, &proof).is_err());
    // bad permutation witness
    let mut bad = perm.clone();
    bad[0] = bad[1];
    assert_eq!(
        prove_simple(&ctx, &st, &gamma, &xlogs, &bad, &mut rng).unwrap_err(),
        ShuffleError::InvalidPermutation
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random single-byte corruptions of an encoded proof: either the decoder rejects it, or
    /// both verifiers reject it, and they always agree.
    #[test]
    fn verifiers_agree_on_corrupted_proofs(pos in 0usize..((7 * 4 + 3) * 32 + 12 * 32), bit in 0u8..8) {
        let f = fixture(4, 99);
        let mut bytes = f.proof.to_bytes();
        bytes[pos] ^= 1 << bit;
        if let Ok(p) = ShuffleProof::<G>::from_bytes(&bytes, 4) {
            prop_assert!(!check(&f, &f.outputs, &p, &f.ctx));
        }
    }
}

/// The shuffle and the key shuffle are generic: run them on P-256 too.
#[test]
fn p256_completeness_and_rejection() {
    use verdict_group::P256;
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let h = KeyPair::<P256>::generate(&mut rng).public();
    let inputs = CiphertextList::new(
        (0..6)
            .map(|_| Ciphertext::encrypt(&h, &P256::random(&mut rng), &mut rng).0)
            .collect(),
    );
    let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
    let ctx = ProofContext::new(SESSION, 0);
    let st = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &outputs,
    };
    let proof = prove(&ctx, &st, &witness, &mut rng).unwrap();
    verify(&ctx, &st, &proof).unwrap();
    verify_each(&ctx, &st, &proof).unwrap();
    let bytes = proof.to_bytes();
    assert_eq!(ShuffleProof::<P256>::from_bytes(&bytes, 6).unwrap(), proof);
    let mut v = outputs.to_vec();
    v.swap(0, 1);
    let swapped = CiphertextList::new(v);
    let st2 = ShuffleStatement {
        outputs: &swapped,
        ..st
    };
    assert!(verify(&ctx, &st2, &proof).is_err());
    assert!(verify_each(&ctx, &st2, &proof).is_err());
}
