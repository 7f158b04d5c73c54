//! A proof's verification equations (`A_i − Σ_j z_{k(i,j)} B_{i,j} + c · P_i = 0`), built for
//! checking the proof alone or for folding it into a batch.
//!
//! # Alone, a long combination is evaluated first
//!
//! A folded vector statement ([`crate::VectorDleq`]) has public combinations `Σ w_k P_k` with
//! 128-bit weights on both sides of its second equation. In a batch each is expanded into its
//! terms (coefficient times weight, full width) so that the batch can merge the bases its
//! proofs share. Checked alone there is nothing to merge, and expanding doubles the width of
//! every scalar: a combination of at least [`FOLD_MIN`] points is cheaper evaluated with its
//! half-width weights, as the prover does, and entered as one term. For a key shuffle's
//! decryption proof (1,024 shares) the check falls from one 2,049-term multi-scalar
//! multiplication to two 1,024-term ones with half-width scalars, about a third less work,
//! and the two run side by side with the `parallel` feature instead of one being split (a
//! split multi-scalar multiplication pays Pippenger's bucket sums once per part). The
//! equation checked is the same sum: only the order of the arithmetic changes.

use verdict_group::{Group, Scalar, par};

use super::{Eqn, Lin, LinearForm, Proof};
use crate::encoded::Encoded;
use crate::error::VerifyError;

/// Points from which a public combination checked alone is evaluated with its half-width
/// weights instead of expanded (see the module notes). Measured on ristretto255, one thread,
/// a vector DLEQ's equation over `L` bases: folded ÷ expanded is 1.27 at `L = 8`, 0.96 at 16,
/// 0.77 at 32 and 0.63–0.78 from 64 to 1,024 (each fold pays its own doublings, which only
/// long combinations amortise).
pub(crate) const FOLD_MIN: usize = 32;

/// How a verifier builds a proof's equations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// Checked on its own: long combinations are evaluated first (see the module notes).
    Alone,
    /// Folded into a batch: every combination expanded into its terms.
    Batched,
}

/// One verification equation `Σ s_i · P_i = 0`.
///
/// Term order: the commitment (coefficient 1), then `bases` base terms (candidates for merging
/// across a batch: generators, common bases), then the public images.
#[derive(Clone, Debug)]
pub(crate) struct Check<G: Group> {
    pub(crate) scalars: Vec<G::Scalar>,
    pub(crate) points: Vec<G>,
    pub(crate) bases: usize,
}

impl<G: Group> Check<G> {
    fn with_capacity(n: usize) -> Self {
        Self {
            scalars: Vec::with_capacity(n),
            points: Vec::with_capacity(n),
            bases: 0,
        }
    }
    /// Whether the equation holds. A long one (a batch, or a folded vector DLEQ expanded) is
    /// split over threads with the `parallel` feature; short ones stay one multi-scalar
    /// multiplication (`par` does not split below its minimum).
    pub(crate) fn holds(&self) -> bool {
        par::msm_vartime(&self.scalars, &self.points).is_ok_and(|p| p.is_identity())
    }

    /// Appends `coeff · lin`: expanded, or as one term, the value `folded` of `lin`.
    fn push(&mut self, lin: &Lin<G>, coeff: G::Scalar, folded: Option<G>) {
        match folded {
            Some(value) => {
                self.scalars.push(coeff);
                self.points.push(value);
            }
            None => lin.push_terms(coeff, self),
        }
    }
}

/// Whether `lin` is evaluated before a proof is checked alone.
fn is_long<G: Group>(lin: &Lin<G>) -> bool {
    matches!(lin, Lin::Combo { points, .. } if points.len() >= FOLD_MIN)
}

/// The value of every long combination of `eqs` (see [`is_long`]), in equation order, each
/// equation's base terms before its image; nothing under [`Use::Batched`]. With at least as
/// many combinations as threads, each is one task and stays whole; fewer are each split over
/// the threads.
fn folds<G: Group>(eqs: &[Eqn<G>], use_: Use) -> Vec<G> {
    if use_ == Use::Batched {
        return Vec::new();
    }
    let long: Vec<&Lin<G>> = eqs
        .iter()
        .flat_map(|eq| eq.terms.iter().map(|(_, b)| b).chain([&eq.image]))
        .filter(|l| is_long(l))
        .collect();
    if long.len() >= par::threads() {
        par::map(&long, |l| l.eval())
    } else {
        long.iter().map(|l| l.eval_split()).collect()
    }
}

/// The verification equations of one proof (possibly several relations, e.g. OR branches),
/// ready to be checked alone or folded into a batch.
#[derive(Clone, Debug)]
pub(crate) struct Pending<G: Group, H: Group<Scalar = G::Scalar>> {
    pub(crate) checks_g: Vec<Check<G>>,
    pub(crate) checks_h: Vec<Check<H>>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Pending<G, H> {
    pub(crate) fn new() -> Self {
        Self {
            checks_g: Vec::new(),
            checks_h: Vec::new(),
        }
    }

    /// Adds the checks `A_i − Σ_j z_{k(i,j)} B_{i,j} + c · P_i = 0` of `form` for `proof`,
    /// built for `use_`.
    pub(crate) fn add(
        &mut self,
        form: &LinearForm<G, H>,
        proof: &Proof<G, H>,
        challenge: G::Scalar,
        use_: Use,
    ) -> Result<(), VerifyError> {
        if proof.shape() != form.shape() {
            return Err(VerifyError::ShapeMismatch);
        }
        fn eqs<G: Group>(
            eqs: &[Eqn<G>],
            commitments: &[Encoded<G>],
            z: &[G::Scalar],
            c: G::Scalar,
            use_: Use,
            out: &mut Vec<Check<G>>,
        ) {
            let mut folds = folds(eqs, use_).into_iter();
            let mut folded = |lin: &Lin<G>| {
                if use_ == Use::Alone && is_long(lin) {
                    folds.next()
                } else {
                    None
                }
            };
            for (eq, a) in eqs.iter().zip(commitments) {
                let mut check = Check::with_capacity(eq.terms.len() + 2);
                check.scalars.push(G::Scalar::one());
                check.points.push(*a.point());
                for (k, base) in &eq.terms {
                    check.push(base, -z[*k], folded(base));
                }
                check.bases = check.points.len() - 1;
                check.push(&eq.image, c, folded(&eq.image));
                out.push(check);
            }
        }
        eqs(
            &form.eqs_g,
            &proof.commitments_g,
            &proof.responses,
            challenge,
            use_,
            &mut self.checks_g,
        );
        eqs(
            &form.eqs_h,
            &proof.commitments_h,
            &proof.responses,
            challenge,
            use_,
            &mut self.checks_h,
        );
        Ok(())
    }

    pub(crate) fn holds(&self) -> bool {
        self.checks_g.iter().all(Check::holds) && self.checks_h.iter().all(Check::holds)
    }

    /// MSM terms over all equations (what batching them costs).
    pub(crate) fn terms(&self) -> usize {
        let g: usize = self.checks_g.iter().map(|c| c.scalars.len()).sum();
        let h: usize = self.checks_h.iter().map(|c| c.scalars.len()).sum();
        g + h
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_group::Ristretto255 as G;

    use super::*;
    use crate::relation::{Statement, pending_for};
    use crate::{Context, Encoded, VectorDleq};

    type S = <G as Group>::Scalar;

    /// A vector DLEQ over `len` bases with a proof; with `bad`, the statement's element at
    /// that index is off by the generator (the proof is made anyway and must not verify).
    fn instance(len: usize, bad: Option<usize>, seed: u64) -> (VectorDleq<G>, Proof<G>) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let x = S::random(&mut rng);
        let hs: Vec<G> = (0..len).map(|_| G::random(&mut rng)).collect();
        let mut cs: Vec<G> = hs.iter().map(|h| *h * x).collect();
        if let Some(i) = bad {
            cs[i] += G::generator();
        }
        let st = VectorDleq::new(
            G::generator(),
            G::mul_generator(&x),
            Encoded::batch_new(&hs),
            Encoded::batch_new(&cs),
        )
        .unwrap();
        let proof = st.prove(&mut ctx().transcript(), &[x], &mut rng).unwrap();
        (st, proof)
    }

    fn ctx() -> Context {
        Context::new(b"verdict-nizk/pending-test", [7u8; 32])
    }

    fn pending(st: &VectorDleq<G>, proof: &Proof<G>, use_: Use) -> Pending<G, G> {
        pending_for(st, &mut ctx().transcript(), proof, use_).unwrap()
    }

    /// Alone, a long combination enters its equation as one term (both sides of the second
    /// equation folded: commitment, `H*`, `C*`), a short one stays expanded; either way the
    /// equations hold exactly when the batched (always expanded) ones do, valid or not, on one
    /// thread and two.
    #[test]
    fn a_proof_checked_alone_folds_long_combinations_and_agrees_with_the_expansion() {
        for threads in [1, 2] {
            par::with_threads(threads, || {
                for (len, seed) in [(FOLD_MIN - 1, 1), (FOLD_MIN, 2), (100, 3)] {
                    for bad in [None, Some(0), Some(len - 1)] {
                        let (st, proof) = instance(len, bad, seed);
                        let alone = pending(&st, &proof, Use::Alone);
                        let batched = pending(&st, &proof, Use::Batched);
                        assert_eq!(batched.checks_h[0].scalars.len(), 2 * len + 1);
                        let folded_len = if len >= FOLD_MIN { 3 } else { 2 * len + 1 };
                        assert_eq!(alone.checks_h[0].scalars.len(), folded_len, "L = {len}");
                        assert_eq!(alone.checks_g[0].scalars.len(), 3);
                        assert_eq!(alone.holds(), bad.is_none(), "L = {len}, bad {bad:?}");
                        assert_eq!(batched.holds(), bad.is_none());
                        assert_eq!(
                            st.verify(&mut ctx().transcript(), &proof).is_ok(),
                            bad.is_none()
                        );
                    }
                }
            })
            .unwrap();
        }
    }
}
