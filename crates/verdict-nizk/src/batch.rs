//! Batch verification: many proofs, one multi-scalar multiplication per group.
//!
//! Every proof contributes verification equations `Σ_i s_i · P_i = 0` (see
//! [`crate::relation`]). The batch multiplies each equation by an independent random 128-bit
//! weight `ρ` and checks `Σ_eq ρ_eq · (Σ_i s_i P_i) = 0` with one MSM, after merging equal
//! *bases* that occur at the same position in consecutive proofs (a shared generator, the
//! common bases `H`, a round's per-slot generators). If a single equation is false, the
//! combination vanishes with probability at most `2^-128`.
//!
//! If the batch equation fails, every proof is checked on its own and the result names exactly
//! the invalid ones.

use core::any::Any;

use rand_core::{CryptoRng, RngCore};
use verdict_group::{Group, Scalar};

use crate::error::{BatchError, VerifyError};
use crate::or::{Or, OrProof};
use crate::relation::{Check, Pending, Proof, Statement, pending_for};
use crate::transcript::Transcript;

/// Collects proofs (of any statement type over `G`, `H`) and verifies them together.
#[derive(Debug)]
pub struct BatchVerifier<G: Group, H: Group<Scalar = G::Scalar> = G> {
    items: Vec<Result<Pending<G, H>, VerifyError>>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Default for BatchVerifier<G, H> {
    fn default() -> Self {
        Self { items: Vec::new() }
    }
}

/// Merges the terms of one check, weighted by `rho`, into the batch MSM.
struct Accumulator<G: Group> {
    scalars: Vec<G::Scalar>,
    points: Vec<G>,
    /// MSM index of each term position of the previous proof.
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl<G: Group> Accumulator<G> {
    fn new() -> Self {
        Self {
            scalars: Vec::new(),
            points: Vec::new(),
            prev: Vec::new(),
            cur: Vec::new(),
        }
    }

    fn add(&mut self, check: &Check<G>, rho: &G::Scalar) {
        let mut terms = check.scalars.iter().zip(&check.points);
        // The first term of every check is a fresh commitment with coefficient 1: it never
        // merges, and its batch coefficient is the short weight `ρ` itself.
        if let Some((_, a)) = terms.next() {
            self.scalars.push(*rho);
            self.points.push(*a);
        }
        for (t, (s, p)) in terms.enumerate() {
            let coeff = *rho * s;
            if t >= check.bases {
                // Public images (per-proof statements) are not merged.
                self.scalars.push(coeff);
                self.points.push(*p);
                continue;
            }
            let pos = self.cur.len();
            match self.prev.get(pos) {
                Some(&j) if self.points[j] == *p => {
                    self.scalars[j] += coeff;
                    self.cur.push(j);
                }
                _ => {
                    self.scalars.push(coeff);
                    self.points.push(*p);
                    self.cur.push(self.points.len() - 1);
                }
            }
        }
    }

    fn next_proof(&mut self) {
        core::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
    }

    fn holds(&self) -> bool {
        G::msm_vartime(&self.scalars, &self.points).is_ok_and(|p| p.is_identity())
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> BatchVerifier<G, H> {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `n` proofs.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            items: Vec::with_capacity(n),
        }
    }

    /// Number of proofs added.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no proof was added.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn push(&mut self, item: Result<Pending<G, H>, VerifyError>) -> usize {
        self.items.push(item);
        self.items.len() - 1
    }

    /// Adds a proof of `statement`; `transcript` must hold the proof's context (as for
    /// [`Statement::verify`]). Returns the proof's index in the batch.
    pub fn add<St: Statement<G, H> + ?Sized>(
        &mut self,
        statement: &St,
        mut transcript: Transcript,
        proof: &Proof<G, H>,
    ) -> usize {
        let item = pending_for(statement, &mut transcript, proof);
        self.push(item)
    }

    /// Adds an OR proof. Returns its index in the batch.
    pub fn add_or(
        &mut self,
        statement: &Or<'_, G, H>,
        mut transcript: Transcript,
        proof: &OrProof<G, H>,
    ) -> usize {
        let item = statement.pending_for(&mut transcript, proof);
        self.push(item)
    }

    /// Verifies all proofs: `Ok` if every one is valid, otherwise the indices of exactly the
    /// invalid ones. `rng` draws the batching weights (it must be unpredictable to provers).
    pub fn verify<R: RngCore + CryptoRng + ?Sized>(self, rng: &mut R) -> Result<(), BatchError> {
        let mut invalid = Vec::new();
        let mut acc_g = Accumulator::<G>::new();
        let mut acc_h = Accumulator::<H>::new();
        let two32 = G::Scalar::from_u64(1 << 32);
        let two64 = two32 * two32;
        let mut weight =
            || G::Scalar::from_u64(rng.next_u64()) * two64 + G::Scalar::from_u64(rng.next_u64());
        for (i, item) in self.items.iter().enumerate() {
            match item {
                Err(_) => invalid.push(i),
                Ok(p) => {
                    for check in &p.checks_g {
                        acc_g.add(check, &weight());
                    }
                    for check in &p.checks_h {
                        let rho = weight();
                        // When both groups are the same type (`H = G`), one MSM over all terms
                        // is cheaper than two.
                        match (check as &dyn Any).downcast_ref::<Check<G>>() {
                            Some(same) => acc_g.add(same, &rho),
                            None => acc_h.add(check, &rho),
                        }
                    }
                    acc_g.next_proof();
                    acc_h.next_proof();
                }
            }
        }
        let batch_ok = acc_g.holds() && acc_h.holds();
        if !batch_ok {
            for (i, item) in self.items.iter().enumerate() {
                if let Ok(p) = item {
                    if !p.holds() {
                        invalid.push(i);
                    }
                }
            }
            invalid.sort_unstable();
        }
        if invalid.is_empty() {
            Ok(())
        } else {
            Err(BatchError { invalid })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Schnorr};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_group::Ristretto255 as G;

    type S = <G as Group>::Scalar;

    /// The point of batching is one MSM over the *merged* bases: two Schnorr proofs over the
    /// generator give five MSM terms (two commitments, one shared generator, two public keys),
    /// not six, and the merged equation still holds. (Merging is otherwise invisible: a batch
    /// that never merged would accept and reject exactly the same proofs, only slower.)
    #[test]
    fn equal_bases_of_consecutive_proofs_share_one_term() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let ctx = Context::new(b"verdict-nizk/batch-test", [2u8; 32]);
        let mut acc = Accumulator::<G>::new();
        for i in 0..2u64 {
            let x = S::from_u64(10 + i);
            let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
            let proof = st.prove(&mut ctx.transcript(), &[x], &mut rng).unwrap();
            let pending = pending_for(&st, &mut ctx.transcript(), &proof).unwrap();
            assert_eq!(pending.checks_g.len(), 1);
            acc.add(&pending.checks_g[0], &S::from_u64(3 + i));
            acc.next_proof();
        }
        assert_eq!(acc.points.len(), 5);
        assert_eq!(acc.points[1], G::generator());
        assert!(acc.holds());
    }
}
