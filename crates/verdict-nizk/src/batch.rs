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
use verdict_group::{Group, Scalar, par};

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

    /// Adds an item prepared apart ([`BatchItem`]). Returns its index in the batch.
    pub fn add_item(&mut self, item: BatchItem<G, H>) -> usize {
        self.push(item.0)
    }

    /// Verifies all proofs: `Ok` if every one is valid, otherwise the indices of exactly the
    /// invalid ones. `rng` draws the batching weights (it must be unpredictable to provers).
    ///
    /// The weights are drawn first, in the order of the proofs and their equations, whatever
    /// the thread count; with the `parallel` feature the weighted proofs are then split into
    /// consecutive runs, one multi-scalar multiplication each, computed in parallel (the batch
    /// holds iff every run's sum vanishes), and a failed batch checks each proof on its own in
    /// parallel. The answer is the same as the serial one. Same as
    /// [`weigh`](Self::weigh) then [`WeighedBatch::verify`].
    pub fn verify<R: RngCore + CryptoRng + ?Sized>(self, rng: &mut R) -> Result<(), BatchError> {
        self.weigh(rng).verify()
    }

    /// Draws the batching weights (exactly the draws [`verify`](Self::verify) makes), leaving
    /// the check, which needs no randomness, for [`WeighedBatch::verify`]: a caller with many
    /// batches can draw their weights from one generator in a fixed order and check the
    /// batches in any order, or all at once in parallel.
    pub fn weigh<R: RngCore + CryptoRng + ?Sized>(self, rng: &mut R) -> WeighedBatch<G, H> {
        let two32 = G::Scalar::from_u64(1 << 32);
        let two64 = two32 * two32;
        let mut weight =
            || G::Scalar::from_u64(rng.next_u64()) * two64 + G::Scalar::from_u64(rng.next_u64());
        let rhos = self
            .items
            .iter()
            .map(|item| match item {
                Err(_) => Vec::new(),
                Ok(p) => (0..p.checks_g.len() + p.checks_h.len())
                    .map(|_| weight())
                    .collect(),
            })
            .collect();
        WeighedBatch {
            items: self.items,
            rhos,
        }
    }
}

/// A batch with its weights drawn ([`BatchVerifier::weigh`]), ready to be checked.
#[derive(Debug)]
pub struct WeighedBatch<G: Group, H: Group<Scalar = G::Scalar> = G> {
    items: Vec<Result<Pending<G, H>, VerifyError>>,
    /// Each item's equation weights (none for an item that failed before the batch).
    rhos: Vec<Vec<G::Scalar>>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> WeighedBatch<G, H> {
    /// Number of proofs in the batch.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the batch holds no proof.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Checks every proof (see [`BatchVerifier::verify`]): `Ok` if all are valid, otherwise the
    /// indices of exactly the invalid ones.
    pub fn verify(&self) -> Result<(), BatchError> {
        let mut invalid = Vec::new();
        let mut weighted = Vec::with_capacity(self.items.len());
        for (i, (item, rhos)) in self.items.iter().zip(&self.rhos).enumerate() {
            match item {
                Err(_) => invalid.push(i),
                Ok(p) => weighted.push((p, rhos)),
            }
        }
        let runs = runs_of_terms(&weighted);
        let batch_ok = par::map(&runs, |&(lo, hi)| {
            let run = weighted.get(lo..hi).unwrap_or_default();
            let mut acc_g = Accumulator::<G>::new();
            let mut acc_h = Accumulator::<H>::new();
            for (p, rhos) in run {
                let (rho_g, rho_h) = rhos.split_at(p.checks_g.len());
                for (check, rho) in p.checks_g.iter().zip(rho_g) {
                    acc_g.add(check, rho);
                }
                for (check, rho) in p.checks_h.iter().zip(rho_h) {
                    // When both groups are the same type (`H = G`), one MSM over all terms
                    // is cheaper than two.
                    match (check as &dyn Any).downcast_ref::<Check<G>>() {
                        Some(same) => acc_g.add(same, rho),
                        None => acc_h.add(check, rho),
                    }
                }
                acc_g.next_proof();
                acc_h.next_proof();
            }
            acc_g.holds() && acc_h.holds()
        })
        .into_iter()
        .all(|ok| ok);
        if !batch_ok {
            let holds = par::map(&self.items, |item| item.as_ref().is_ok_and(Pending::holds));
            for (i, (item, ok)) in self.items.iter().zip(holds).enumerate() {
                if item.is_ok() && !ok {
                    invalid.push(i);
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

/// MSM terms per run below which a batch is not split across threads. A run of 128 terms
/// is a few hundred microseconds of work (a split costs a thread hand-off and the bases merged
/// across the boundary); 43 signatures (3 terms each), or 16 server DLEQs of a 256-byte slot
/// split in two.
const MIN_TERMS_PER_MSM: usize = 128;

/// Consecutive runs `[lo, hi)` of the weighted proofs, one per thread at most and none under
/// [`MIN_TERMS_PER_MSM`] terms, of about equal terms: proofs differ in size (an OR proof over a
/// 4 KB slot against a signature), so counting proofs would leave one thread the long tail.
/// Only the timing depends on the split: the batch holds iff every run's sum vanishes.
fn runs_of_terms<G: Group, H: Group<Scalar = G::Scalar>, W>(
    weighted: &[(&Pending<G, H>, W)],
) -> Vec<(usize, usize)> {
    let terms: Vec<usize> = weighted.iter().map(|(p, _)| p.terms()).collect();
    let total: usize = terms.iter().sum();
    let runs = par::chunk_count(total, MIN_TERMS_PER_MSM)
        .min(weighted.len())
        .max(1);
    let mut out = Vec::with_capacity(runs);
    let (mut lo, mut acc) = (0, 0);
    for (i, t) in terms.iter().enumerate() {
        acc += t;
        // Close the current run once it holds its share of the terms (the last run takes
        // whatever is left).
        if out.len() + 1 < runs && acc * runs >= total * (out.len() + 1) {
            out.push((lo, i + 1));
            lo = i + 1;
        }
    }
    out.push((lo, weighted.len()));
    out
}

/// One proof's verification equations, computed apart from any batch so that callers can
/// compute many in parallel (binding a statement and hashing its transcript is a proof's
/// share of the work that is not the multi-scalar multiplication) and then add them to a
/// [`BatchVerifier`] in order with [`BatchVerifier::add_item`].
#[derive(Debug)]
pub struct BatchItem<G: Group, H: Group<Scalar = G::Scalar> = G>(
    Result<Pending<G, H>, VerifyError>,
);

impl<G: Group, H: Group<Scalar = G::Scalar>> BatchItem<G, H> {
    /// The equations of a proof of `statement` (as [`BatchVerifier::add`] computes them).
    pub fn new<St: Statement<G, H> + ?Sized>(
        statement: &St,
        mut transcript: Transcript,
        proof: &Proof<G, H>,
    ) -> Self {
        Self(pending_for(statement, &mut transcript, proof))
    }

    /// Equations computed by the caller (a signature's, see `Signature::batch_item`).
    pub(crate) fn from_pending(pending: Pending<G, H>) -> Self {
        Self(Ok(pending))
    }

    /// The equations of an OR proof (as [`BatchVerifier::add_or`] computes them).
    pub fn or(statement: &Or<'_, G, H>, mut transcript: Transcript, proof: &OrProof<G, H>) -> Self {
        Self(statement.pending_for(&mut transcript, proof))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Schnorr, Shape};
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

    /// Only bases are candidates for merging: a statement's public image is not compared with
    /// the previous proof's (two proofs about one image are rare, and each comparison costs an
    /// equality test per term), so two proofs of the same statement still give 5 terms: 2
    /// commitments, 1 merged generator, 2 images.
    #[test]
    fn images_are_never_merged() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let ctx = Context::new(b"verdict-nizk/batch-test", [4u8; 32]);
        let x = S::from_u64(10);
        let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
        let mut acc = Accumulator::<G>::new();
        for i in 0..2u64 {
            let proof = st.prove(&mut ctx.transcript(), &[x], &mut rng).unwrap();
            let pending = pending_for(&st, &mut ctx.transcript(), &proof).unwrap();
            assert_eq!(pending.checks_g[0].bases, 1);
            acc.add(&pending.checks_g[0], &S::from_u64(3 + i));
            acc.next_proof();
        }
        assert_eq!(acc.points.len(), 5);
        assert!(acc.holds());
    }

    /// A batch of 64 proofs with invalid ones at both ends of the runs the parallel path splits
    /// into, and a malformed one: 1 and 2 threads name the same proofs, draw the same weights
    /// (the RNG is left in the same state), and items made apart and weights drawn apart
    /// ([`BatchVerifier::weigh`]) give what items added in place and checked at once give.
    #[test]
    fn one_and_two_threads_name_the_same_invalid_proofs() {
        let ctx = Context::new(b"verdict-nizk/batch-test", [3u8; 32]);
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let mut cases = Vec::new();
        for i in 0..64u64 {
            let x = S::from_u64(100 + i);
            let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
            // Proofs 0, 31, 32 and 63 prove the wrong secret.
            let w = if [0, 31, 32, 63].contains(&i) {
                x + S::one()
            } else {
                x
            };
            let proof = st.prove(&mut ctx.transcript(), &[w], &mut rng).unwrap();
            cases.push((st, proof));
        }
        let run = |threads: usize, apart: bool| {
            verdict_group::par::with_threads(threads, || {
                let mut batch = BatchVerifier::<G>::new();
                for (st, proof) in &cases {
                    if apart {
                        batch.add_item(BatchItem::new(st, ctx.transcript(), proof));
                    } else {
                        batch.add(st, ctx.transcript(), proof);
                    }
                }
                // A proof of the wrong shape (two responses): an `Err` item at index 64.
                let (st, proof) = &cases[1];
                let mut bytes = proof.to_bytes();
                bytes.extend_from_within(32..);
                let bad_shape = Shape {
                    commitments_g: 1,
                    commitments_h: 0,
                    responses: 2,
                };
                let odd = Proof::<G>::from_bytes(&bytes, bad_shape).unwrap();
                batch.add(st, ctx.transcript(), &odd);
                let mut weights = ChaCha20Rng::seed_from_u64(9);
                if apart {
                    // Weights drawn first, the batch checked after the generator moved on.
                    let weighed = batch.weigh(&mut weights);
                    let next = weights.next_u64();
                    (weighed.verify(), next)
                } else {
                    let out = batch.verify(&mut weights);
                    (out, weights.next_u64())
                }
            })
            .unwrap()
        };
        let serial = run(1, false);
        assert_eq!(
            serial.0,
            Err(BatchError {
                invalid: vec![0, 31, 32, 63, 64]
            })
        );
        assert_eq!(run(2, false), serial);
        assert_eq!(run(2, true), serial);
        assert_eq!(run(1, true), serial);
    }

    /// Runs are cut by terms, not by proofs: they cover every proof once, in order; a batch
    /// under two runs' worth of terms is one run; a batch whose first proof is as large as all
    /// the others together is cut right after it.
    #[test]
    fn runs_split_the_terms_not_the_proofs() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let ctx = Context::new(b"verdict-nizk/batch-test", [5u8; 32]);
        let schnorr = |i: u64, rng: &mut ChaCha20Rng| {
            let x = S::from_u64(20 + i);
            let st = Schnorr::<G>::with_generator(G::mul_generator(&x));
            let proof = st.prove(&mut ctx.transcript(), &[x], rng).unwrap();
            pending_for(&st, &mut ctx.transcript(), &proof).unwrap()
        };
        let small: Vec<Pending<G, G>> = (0..100).map(|i| schnorr(i, &mut rng)).collect();
        assert_eq!(small[0].terms(), 3);
        let runs = |p: &[Pending<G, G>], threads: usize| {
            let weighted: Vec<(&Pending<G, G>, ())> = p.iter().map(|p| (p, ())).collect();
            par::with_threads(threads, || runs_of_terms(&weighted)).unwrap()
        };
        let parallel = cfg!(feature = "parallel");
        assert_eq!(runs(&small, 1), vec![(0, 100)]);
        assert_eq!(runs(&small[..40], 2), vec![(0, 40)], "120 terms: one run");
        let two = if parallel {
            vec![(0, 50), (50, 100)]
        } else {
            vec![(0, 100)]
        };
        assert_eq!(runs(&small, 2), two);
        // One check of 300 terms first, then 100 proofs of 3 terms.
        let mut big = small[0].clone();
        let check = &mut big.checks_g[0];
        check.scalars = vec![S::one(); 300];
        check.points = vec![G::generator(); 300];
        let mut mixed = vec![big];
        mixed.extend(small.iter().cloned());
        let two = if parallel {
            vec![(0, 1), (1, 101)]
        } else {
            vec![(0, 101)]
        };
        assert_eq!(runs(&mixed, 2), two);
        assert_eq!(runs(&[], 2), vec![(0, 0)]);
    }
}
