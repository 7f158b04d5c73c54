//! Negative cases for the simple k-shuffle's checks: a proof that satisfies every equation but
//! the last, malformed shapes, too-small statements, and the challenges' dependence on every
//! statement element (issue 19, item 6).

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{Group, Ristretto255 as G, Scalar};

use super::*;
use crate::error::{Check, ShuffleError};

type S = <G as Group>::Scalar;
const SESSION: [u8; 32] = [9u8; 32];

fn ctx() -> ProofContext {
    ProofContext::new(SESSION, 1)
}

/// An honest standalone statement of size `k` with its witness.
struct Honest {
    base: G,
    gamma: S,
    xlogs: Vec<S>,
    x: Vec<G>,
    y: Vec<G>,
    perm: Vec<usize>,
}

fn honest(k: usize, seed: u64) -> Honest {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let base = G::random(&mut rng);
    let gamma = S::random(&mut rng);
    let xlogs: Vec<S> = (0..k).map(|_| S::random(&mut rng)).collect();
    let x: Vec<G> = xlogs.iter().map(|s| base * s).collect();
    let perm: Vec<usize> = (0..k).map(|i| (i + 1) % k).collect();
    let y: Vec<G> = perm.iter().map(|&j| x[j] * gamma).collect();
    Honest {
        base,
        gamma,
        xlogs,
        x,
        y,
        perm,
    }
}

impl Honest {
    fn statement(&self) -> SimpleStatement<'_, G> {
        SimpleStatement {
            base: self.base,
            gamma: self.base * self.gamma,
            x: &self.x,
            y: &self.y,
        }
    }
    fn prove(&self) -> SimpleShuffleProof<G> {
        let mut rng = ChaCha20Rng::seed_from_u64(99);
        prove_simple(
            &ctx(),
            &self.statement(),
            &self.gamma,
            &self.xlogs,
            &self.perm,
            &mut rng,
        )
        .unwrap()
    }
}

/// A *false* statement (`Y` random, not a shuffle of `γ·X`) with a proof that satisfies the
/// first `2k − 1` equations (12): the system is triangular in `α`, so a forger who picks `Θ`
/// first can solve for every `α` but cannot satisfy the last equation, `Θ_{2k} = α_{2k−1}·Γ −
/// c·G`. Only that equation stands between this forgery and acceptance; a verifier that skips
/// any of the second block's equations (e.g. a loop bound `k..2 + k` for `k..2·k`) accepts it.
#[test]
fn all_but_the_last_equation_is_not_enough() {
    for k in [3usize, 4, 6] {
        let mut rng = ChaCha20Rng::seed_from_u64(k as u64);
        let base = G::random(&mut rng);
        let gamma = S::random(&mut rng);
        let xl: Vec<S> = (0..k).map(|_| S::random(&mut rng)).collect();
        let yl: Vec<S> = (0..k).map(|_| S::random(&mut rng)).collect();
        let x: Vec<G> = xl.iter().map(|s| base * s).collect();
        let y: Vec<G> = yl.iter().map(|s| base * s).collect();
        let st = SimpleStatement {
            base,
            gamma: base * gamma,
            x: &x,
            y: &y,
        };
        let thl: Vec<S> = (0..2 * k).map(|_| S::random(&mut rng)).collect();
        let theta: Vec<G> = thl.iter().map(|s| base * s).collect();
        let probe = SimpleShuffleProof::<G>::from_parts(theta.clone(), vec![]);
        let mut tr = simple_transcript(&ctx(), &st).unwrap();
        let (t, c) = replay(&mut tr, &probe);
        // Solve equations 1..2k−1 (0-based 0..2k−2) for α, in logarithms to the base.
        let mut alpha: Vec<S> = Vec::with_capacity(2 * k - 1);
        for i in 0..k {
            let xh = xl[i] - t;
            let yh = yl[i] - gamma * t;
            let e = if i == 0 { c } else { alpha[i - 1] };
            alpha.push((e * xh - thl[i]) * yh.invert().unwrap());
        }
        for i in k..2 * k - 1 {
            alpha.push(alpha[i - 1] * gamma - thl[i]);
        }
        let forged = SimpleShuffleProof::from_parts(theta, alpha);
        assert_eq!(
            verify_simple(&ctx(), &st, &forged),
            Err(ShuffleError::Rejected {
                check: Check::SimpleShuffle { index: 2 * k - 1 }
            }),
            "k = {k}"
        );
        assert!(verify_simple_batched(&ctx(), &st, &forged).is_err());
    }
}

#[test]
fn short_or_long_proofs_are_typed_errors() {
    let h = honest(4, 1);
    let st = h.statement();
    let p = h.prove();
    assert_eq!(verify_simple(&ctx(), &st, &p), Ok(()));
    assert_eq!(verify_simple_batched(&ctx(), &st, &p), Ok(()));
    let variants = [
        (p.theta[..7].to_vec(), p.alpha.clone()),
        (p.theta.clone(), p.alpha[..6].to_vec()),
        ([p.theta.clone(), vec![h.base]].concat(), p.alpha.clone()),
        (p.theta.clone(), [p.alpha.clone(), vec![S::one()]].concat()),
        (vec![], vec![]),
    ];
    for (theta, alpha) in variants {
        let bad = SimpleShuffleProof::from_parts(theta, alpha);
        for result in [
            verify_simple(&ctx(), &st, &bad),
            verify_simple_batched(&ctx(), &st, &bad),
        ] {
            assert!(
                matches!(result, Err(ShuffleError::LengthMismatch { .. })),
                "{result:?}"
            );
        }
    }
}

#[test]
fn fewer_than_two_elements_are_rejected_and_two_work() {
    let h = honest(2, 2);
    let p = h.prove();
    assert_eq!(verify_simple(&ctx(), &h.statement(), &p), Ok(()));
    assert_eq!(verify_simple_batched(&ctx(), &h.statement(), &p), Ok(()));
    let empty = SimpleShuffleProof::<G>::from_parts(vec![], vec![]);
    for k in [0usize, 1] {
        let st = SimpleStatement {
            x: &h.x[..k],
            y: &h.y[..k],
            ..h.statement()
        };
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let proved = prove_simple(&ctx(), &st, &h.gamma, &h.xlogs[..k], &[0][..k], &mut rng);
        assert_eq!(proved, Err(ShuffleError::TooFew { n: k }));
        assert_eq!(
            verify_simple(&ctx(), &st, &empty),
            Err(ShuffleError::TooFew { n: k })
        );
        assert_eq!(
            verify_simple_batched(&ctx(), &st, &empty),
            Err(ShuffleError::TooFew { n: k })
        );
    }
}

/// Both challenges depend on every statement element (`G`, `Γ`, each `Xᵢ`, each `Yᵢ`) and `t`
/// precedes `Θ` while `c` follows it. Prover and verifier build the same transcript, so a
/// symmetric omission (e.g. `append_points` doing nothing) is invisible to completeness tests.
#[test]
fn challenges_cover_the_whole_statement() {
    let h = honest(3, 4);
    let p = h.prove();
    let challenges = |st: &SimpleStatement<'_, G>, proof: &SimpleShuffleProof<G>| {
        let mut tr = simple_transcript(&ctx(), st).unwrap();
        replay(&mut tr, proof)
    };
    let (t0, c0) = challenges(&h.statement(), &p);
    let other = G::random(&mut ChaCha20Rng::seed_from_u64(5));
    let mut changed = Vec::new();
    changed.push(SimpleStatement {
        base: other,
        ..h.statement()
    });
    changed.push(SimpleStatement {
        gamma: other,
        ..h.statement()
    });
    let xs: Vec<Vec<G>> = (0..3)
        .map(|i| {
            let mut x = h.x.clone();
            x[i] = other;
            x
        })
        .collect();
    let ys: Vec<Vec<G>> = (0..3)
        .map(|i| {
            let mut y = h.y.clone();
            y[i] = other;
            y
        })
        .collect();
    for x in &xs {
        changed.push(SimpleStatement { x, ..h.statement() });
    }
    for y in &ys {
        changed.push(SimpleStatement { y, ..h.statement() });
    }
    for st in &changed {
        let (t, c) = challenges(st, &p);
        assert_ne!(t, t0);
        assert_ne!(c, c0);
    }
    // Another Θ changes c but not t.
    let mut theta = p.theta.clone();
    theta.swap(0, 1);
    let (t, c) = challenges(
        &h.statement(),
        &SimpleShuffleProof::from_parts(theta, vec![]),
    );
    assert_eq!(t, t0);
    assert_ne!(c, c0);
}
