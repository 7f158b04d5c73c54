//! Forgery tests against the prover's and verifier's transcripts, and the per-equation
//! verifier's diagnostics.

use verdict_group::{Group, Scalar};

use super::prove::*;
use super::statement::*;
use super::verify::*;
use crate::ProofContext;
use crate::elgamal::KeyPair;
use crate::elgamal::{Ciphertext, CiphertextList};
use crate::error::{Check, ShuffleError};
use crate::hooks::Hooks;
use crate::simple;
use crate::transcript::append_scalars;
use crate::util::{encode_flat, random_permutation};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::Ristretto255 as G;

type S = <G as Group>::Scalar;

fn random_nonzero(rng: &mut ChaCha20Rng) -> S {
    loop {
        let s = S::random(rng);
        if !s.is_zero() {
            return s;
        }
    }
}
const SESSION: [u8; 32] = [7u8; 32];

fn setup(n: usize, rng: &mut ChaCha20Rng) -> (KeyPair<G>, Vec<G>, CiphertextList<G>) {
    let kp = KeyPair::<G>::generate(rng);
    let msgs: Vec<G> = (0..n).map(|_| G::random(rng)).collect();
    let cts = msgs
        .iter()
        .map(|m| Ciphertext::encrypt(&kp.public(), m, rng).0)
        .collect();
    (kp, msgs, CiphertextList::new(cts))
}

/// An honest shuffle of `n` fresh ciphertexts by server `server` and its proof, from a
/// generator seeded with `seed`.
struct Honest {
    h: G,
    inputs: CiphertextList<G>,
    outputs: CiphertextList<G>,
    ctx: ProofContext,
    proof: ShuffleProof<G>,
}

impl Honest {
    fn new(n: usize, seed: u64, server: u32) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let (kp, _, inputs) = setup(n, &mut rng);
        let h = kp.public();
        let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
        let ctx = ProofContext::new(SESSION, server);
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let proof = prove(&ctx, &st, &witness, &mut rng).unwrap();
        Self {
            h,
            inputs,
            outputs,
            ctx,
            proof,
        }
    }

    fn statement(&self) -> ShuffleStatement<'_, G> {
        ShuffleStatement {
            h: self.h,
            inputs: &self.inputs,
            outputs: &self.outputs,
        }
    }
}

fn both_accept(
    ctx: &ProofContext,
    st: &ShuffleStatement<'_, G>,
    proof: &ShuffleProof<G>,
    hooks: &Hooks<G>,
) -> (bool, bool) {
    (
        verify_batched_with_hooks(ctx, st, proof, hooks).is_ok(),
        verify_each_with_hooks(ctx, st, proof, hooks).is_ok(),
    )
}

/// Trap 1: a verifier that takes `R`, `S` from the prover instead of computing
/// `Rᵢ = Aᵢ + λ·Bᵢ`, `Sᵢ = Cᵢ + λ·Dᵢ` accepts *tagged* outputs `e_i·(X_{π(i)}, Y_{π(i)})`,
/// which decrypt to `e_i·M_{π(i)}` and so link every output to its input.
#[test]
fn forgery_tagged_outputs_needs_verifier_computed_r_s() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let n = 8;
    let (kp, msgs, inputs) = setup(n, &mut rng);
    let h = kp.public();
    let pi = random_permutation(n, &mut rng);
    let tags: Vec<S> = (0..n).map(|_| random_nonzero(&mut rng)).collect();
    let outputs = CiphertextList::new((0..n).map(|i| inputs[pi[i]].scale(&tags[i])).collect());
    // The attack is real: output i decrypts to a tagged copy of message π(i).
    for i in 0..n {
        assert_eq!(outputs[i].decrypt(kp.secret()), msgs[pi[i]] * tags[i]);
    }
    let st = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &outputs,
    };
    let ctx = ProofContext::new(SESSION, 0);

    // The forger.
    let mut tr = statement_transcript(&ctx, &st, &Hooks::secure());
    let gamma: S = random_nonzero(&mut rng);
    let gamma_pt = G::mul_generator(&gamma);
    let a: Vec<G> = (0..n).map(|_| G::random(&mut rng)).collect();
    let c: Vec<G> = (0..n).map(|_| G::random(&mut rng)).collect();
    let u: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
    let w: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
    let u_pts: Vec<G> = u.iter().map(G::mul_generator).collect();
    let w_pts: Vec<G> = w
        .iter()
        .map(|wi| G::mul_generator(&(gamma * *wi)))
        .collect();
    let neg_u: Vec<S> = u.iter().map(|x| -*x).collect();
    let xs: Vec<G> = inputs.iter().map(|c| c.x).collect();
    let ys: Vec<G> = inputs.iter().map(|c| c.y).collect();
    let lambda1 = G::msm_vartime(&neg_u, &xs).unwrap();
    let lambda2 = G::msm_vartime(&neg_u, &ys).unwrap();
    let first_enc = encode_first_move(&gamma_pt, &a, &c, &u_pts, &w_pts, &lambda1, &lambda2);
    tr.append_message(b"first-move", &first_enc);
    let rho = tr.challenge_scalars::<G>(b"rho", n);
    let sigma: Vec<S> = (0..n)
        .map(|i| (rho[pi[i]] - u[pi[i]]) * tags[i].invert().unwrap())
        .collect();
    let d: Vec<G> = (0..n).map(|i| gamma_pt * sigma[i] - w_pts[i]).collect();
    tr.append_message(b"D", &encode_flat(&d));
    let _lambda = tr.challenge_scalar::<G>(b"lambda");
    let tau = S::zero();
    append_scalars(&mut tr, b"sigma", &sigma);
    tr.append_scalar(b"tau", &tau);
    // An honest simple shuffle of R, S of the forger's choosing.
    let r: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
    let s: Vec<S> = pi.iter().map(|&j| gamma * r[j]).collect();
    let r_pts: Vec<G> = r.iter().map(G::mul_generator).collect();
    let s_pts: Vec<G> = s.iter().map(G::mul_generator).collect();
    let simple = {
        let mut prng = tr.witness_rng(b"forger", &[], &mut rng);
        simple::prove_core::<G>(
            &mut tr,
            &G::mul_generator_encoded,
            &gamma,
            &r,
            &s,
            &mut prng,
        )
        .unwrap()
    };
    let proof = ShuffleProof::assemble(
        gamma_pt, a, c, u_pts, w_pts, lambda1, lambda2, d, sigma, tau, simple,
    );

    let insecure = Hooks::insecure(false, Some((r_pts, s_pts)));
    assert_eq!(
        both_accept(&ctx, &st, &proof, &insecure),
        (true, true),
        "without the R,S recomputation the tagging forgery must pass (test is load-bearing)"
    );
    assert_eq!(
        both_accept(&ctx, &st, &proof, &Hooks::secure()),
        (false, false)
    );
    assert!(matches!(
        verify_each(&ctx, &st, &proof),
        Err(ShuffleError::Rejected {
            check: Check::SimpleShuffle { .. }
        })
    ));
}

/// Trap 2: if the outputs are not absorbed before the challenges, a prover can take an
/// honest proof and then pick `n − 1` outputs freely (here: tagged) and solve for the last.
#[test]
fn forgery_outputs_chosen_after_challenges_needs_statement_in_transcript() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let n = 8;
    let (kp, _msgs, inputs) = setup(n, &mut rng);
    let h = kp.public();
    let (outputs, witness) = shuffle(&h, &inputs, &mut rng);
    let ctx = ProofContext::new(SESSION, 3);
    let st = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &outputs,
    };
    let skip = Hooks::insecure(true, None);
    let proof = prove_with_hooks(&ctx, &st, &witness, &mut rng, &skip).unwrap();
    assert_eq!(both_accept(&ctx, &st, &proof, &skip), (true, true));

    // Choose outputs 0..n−2 after the fact (tag them), solve output n−1 from (34), (35).
    let mut forged = outputs.to_vec();
    for (i, o) in forged.iter_mut().enumerate().take(n - 1) {
        *o = o.scale(&S::from_u64(i as u64 + 2));
    }
    let sig = &proof.sigma;
    let last_inv = sig[n - 1].invert().unwrap();
    let mut delta = Ciphertext {
        x: G::identity(),
        y: G::identity(),
    };
    for i in 0..n - 1 {
        delta.x += (outputs[i].x - forged[i].x) * sig[i];
        delta.y += (outputs[i].y - forged[i].y) * sig[i];
    }
    forged[n - 1] = Ciphertext {
        x: outputs[n - 1].x + delta.x * last_inv,
        y: outputs[n - 1].y + delta.y * last_inv,
    };
    let forged = CiphertextList::new(forged);
    assert_ne!(forged, outputs);
    let st_forged = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &forged,
    };
    assert_eq!(
        both_accept(&ctx, &st_forged, &proof, &skip),
        (true, true),
        "without the statement in the transcript the forgery must pass (test is load-bearing)"
    );
    assert_eq!(
        both_accept(&ctx, &st_forged, &proof, &Hooks::secure()),
        (false, false)
    );
    // And with the statement absorbed, an honest proof does not transfer to the forged
    // outputs either.
    let honest = prove(&ctx, &st, &witness, &mut rng).unwrap();
    assert!(verify(&ctx, &st, &honest).is_ok());
    assert!(verify(&ctx, &st_forged, &honest).is_err());
    assert!(verify_each(&ctx, &st_forged, &honest).is_err());
}

#[test]
fn per_equation_verifier_pinpoints() {
    let honest = Honest::new(5, 13, 1);
    let (ctx, st, proof) = (&honest.ctx, honest.statement(), &honest.proof);
    verify_each(ctx, &st, proof).unwrap();
    // σ is absorbed before t, c: a tampered σ changes those challenges, but (33) is the
    // first check and pinpoints the element.
    let mut bad = proof.clone();
    bad.sigma[2] += S::one();
    assert_eq!(
        verify_each(ctx, &st, &bad),
        Err(ShuffleError::Rejected {
            check: Check::Commitment { index: 2 }
        })
    );
    let mut bad = proof.clone();
    bad.simple.alpha[3] += S::one();
    assert_eq!(
        verify_each(ctx, &st, &bad),
        Err(ShuffleError::Rejected {
            check: Check::SimpleShuffle { index: 3 }
        })
    );
    let mut bad = proof.clone();
    bad.tau += S::one();
    assert!(matches!(
        verify_each(ctx, &st, &bad),
        Err(ShuffleError::Rejected {
            check: Check::Lambda1
        })
    ));
    assert_eq!(
        verify(ctx, &st, &bad),
        Err(ShuffleError::Rejected {
            check: Check::Batched
        })
    );
}

/// The prover's secrets come from a hedged fork: the same statement, witness and caller
/// stream give the same proof (what the vectors rely on), while a caller RNG that repeats
/// across two different shuffles still gives them different `γ` (the fork binds the
/// statement and the witness), so their nonces cannot be related.
#[test]
fn prover_randomness_is_hedged_and_reproducible() {
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let (kp, _, inputs) = setup(4, &mut rng);
    let h = kp.public();
    let ctx = ProofContext::new(SESSION, 1);
    let (out_a, wit_a) = shuffle(&h, &inputs, &mut rng);
    let (out_b, wit_b) = shuffle(&h, &inputs, &mut rng);
    let proof = |outputs: &CiphertextList<G>, witness: &ShuffleWitness<G>| {
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs,
        };
        let mut stuck = ChaCha20Rng::seed_from_u64(7);
        prove(&ctx, &st, witness, &mut stuck).unwrap()
    };
    assert_eq!(proof(&out_a, &wit_a), proof(&out_a, &wit_a));
    assert_ne!(proof(&out_a, &wit_a).gamma, proof(&out_b, &wit_b).gamma);
}

/// The parallel prover and verifiers (feature `parallel`) against the serial ones: the same
/// seed gives the same proof bytes on 1 and 2 threads, and both verifiers give the same verdict
/// (and, per equation, the same failing check) on a valid and a tampered proof.
#[test]
fn one_and_two_threads_prove_and_verify_alike() {
    let run = |threads: usize| {
        verdict_group::par::with_threads(threads, || {
            let honest = Honest::new(300, 17, 2);
            let (ctx, st, proof) = (&honest.ctx, honest.statement(), &honest.proof);
            let mut bad = proof.clone();
            bad.sigma[200] += S::one();
            let verdicts = [
                verify(ctx, &st, proof),
                verify_each(ctx, &st, proof),
                verify(ctx, &st, &bad),
                verify_each(ctx, &st, &bad),
            ];
            (proof.to_bytes(), verdicts)
        })
        .unwrap()
    };
    let one = run(1);
    assert_eq!(run(2), one);
    let rejected = |check| Err(ShuffleError::Rejected { check });
    assert_eq!(
        one.1,
        [
            Ok(()),
            Ok(()),
            rejected(Check::Batched),
            rejected(Check::Commitment { index: 200 })
        ]
    );
}

/// The batched verifier builds its weighted sum in parts, one per thread, each over a range of
/// elements, the first also holding the terms in no element. Every element of a proof, in the
/// first and in the last part (and the simple shuffle's equations of both halves), must still
/// be checked: each change below is rejected on one thread (one part) and on two (two parts).
#[test]
fn every_part_of_the_batched_check_rejects_a_changed_element() {
    type Tamper = Box<dyn Fn(&mut ShuffleProof<G>) + Send + Sync>;
    let n = 80;
    let g = G::generator();
    let one = S::one();
    let mut changes: Vec<(&str, Tamper)> = Vec::new();
    for i in [0, 39, 40, n - 1] {
        changes.push(("A", Box::new(move |p| p.a[i] += g)));
        changes.push(("U", Box::new(move |p| p.u[i] += g)));
        changes.push(("C", Box::new(move |p| p.c[i] += g)));
        changes.push(("W", Box::new(move |p| p.w[i] += g)));
        changes.push(("D", Box::new(move |p| p.d[i] += g)));
        changes.push(("sigma", Box::new(move |p| p.sigma[i] += one)));
        changes.push(("Theta i", Box::new(move |p| p.simple.theta[i] += g)));
        changes.push(("Theta n+i", Box::new(move |p| p.simple.theta[n + i] += g)));
        changes.push(("alpha i", Box::new(move |p| p.simple.alpha[i] += one)));
        changes.push((
            "alpha n+i-1",
            Box::new(move |p| p.simple.alpha[n + i - 1] += one),
        ));
    }
    changes.push(("Lambda1", Box::new(move |p| p.lambda1 += g)));
    changes.push(("Lambda2", Box::new(move |p| p.lambda2 += g)));
    changes.push(("tau", Box::new(move |p| p.tau += one)));
    changes.push(("Gamma", Box::new(move |p| p.gamma += g)));
    for threads in [1, 2] {
        verdict_group::par::with_threads(threads, || {
            let honest = Honest::new(n, 23, 1);
            let (ctx, st, proof) = (&honest.ctx, honest.statement(), &honest.proof);
            assert_eq!(verify(ctx, &st, proof), Ok(()));
            for (what, change) in &changes {
                let mut bad = proof.clone();
                change(&mut bad);
                assert!(
                    verify(ctx, &st, &bad).is_err(),
                    "{what} changed, {threads} thread(s)"
                );
            }
        })
        .unwrap();
    }
}
