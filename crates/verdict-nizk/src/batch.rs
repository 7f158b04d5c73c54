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
use crate::relation::{Check, Pending, Proof, Statement, Use, pending_for};
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
        let item = pending_for(statement, &mut transcript, proof, Use::Batched);
        self.push(item)
    }

    /// Adds an OR proof. Returns its index in the batch.
    pub fn add_or(
        &mut self,
        statement: &Or<'_, G, H>,
        mut transcript: Transcript,
        proof: &OrProof<G, H>,
    ) -> usize {
        let item = statement.pending_for(&mut transcript, proof, Use::Batched);
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
        // All weights in one vector, each item's a run of it: a batch of a thousand signatures
        // would otherwise allocate (and later free) a thousand one-scalar vectors.
        let count = |item: &Result<Pending<G, H>, VerifyError>| {
            item.as_ref()
                .map_or(0, |p| p.checks_g.len() + p.checks_h.len())
        };
        let mut rhos = Vec::with_capacity(self.items.iter().map(count).sum());
        let mut ends = Vec::with_capacity(self.items.len());
        for item in &self.items {
            rhos.extend((0..count(item)).map(|_| weight()));
            ends.push(rhos.len());
        }
        WeighedBatch {
            items: self.items,
            rhos,
            ends,
        }
    }
}

/// A batch with its weights drawn ([`BatchVerifier::weigh`]), ready to be checked.
#[derive(Debug)]
pub struct WeighedBatch<G: Group, H: Group<Scalar = G::Scalar> = G> {
    items: Vec<Result<Pending<G, H>, VerifyError>>,
    /// Every item's equation weights, item after item (none for an item that failed before
    /// the batch).
    rhos: Vec<G::Scalar>,
    /// Where each item's weights end in `rhos`.
    ends: Vec<usize>,
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
        let weighted = self.weighted();
        if weighted_sum_vanishes(&weighted) {
            self.failed_before()
        } else {
            self.each_on_its_own()
        }
    }

    /// Checks several batches as one: a single weighted sum over all their proofs, split over
    /// threads by terms; only if it fails is each batch checked on its own. The answers are
    /// exactly [`verify`](Self::verify)'s, batch by batch. For independent batches that are
    /// each too small to share well among threads (the signatures of one inventory each, a
    /// round's several inventories at once): one MSM of all their terms is cheaper than one
    /// per batch, and splits evenly.
    ///
    /// Sound because every equation keeps its own independent weight: the sum vanishes for an
    /// invalid equation with probability at most `2^-128`, whichever batch it is in.
    pub fn verify_together(batches: &[Self]) -> Vec<Result<(), BatchError>> {
        let all: Vec<_> = batches.iter().flat_map(Self::weighted).collect();
        if weighted_sum_vanishes(&all) {
            batches.iter().map(Self::failed_before).collect()
        } else {
            par::map(batches, Self::verify)
        }
    }

    /// The proofs with their weights, without those that failed before the batch.
    fn weighted(&self) -> Vec<Weighted<'_, G, H>> {
        self.items
            .iter()
            .zip(self.weights_of_items())
            .filter_map(|(item, rhos)| Some((item.as_ref().ok()?, rhos)))
            .collect()
    }

    /// Each item's weights (see `ends`).
    fn weights_of_items(&self) -> impl Iterator<Item = &[G::Scalar]> {
        let starts = core::iter::once(0).chain(self.ends.iter().copied());
        (starts.zip(&self.ends)).map(|(lo, &hi)| self.rhos.get(lo..hi).unwrap_or_default())
    }

    /// The answer when the weighted proofs hold: only the items that failed before the batch
    /// are invalid.
    fn failed_before(&self) -> Result<(), BatchError> {
        let invalid: Vec<usize> = (self.items.iter().enumerate())
            .filter_map(|(i, item)| item.is_err().then_some(i))
            .collect();
        if invalid.is_empty() {
            Ok(())
        } else {
            Err(BatchError { invalid })
        }
    }

    /// The answer when the weighted sum failed: every proof checked on its own (in parallel).
    fn each_on_its_own(&self) -> Result<(), BatchError> {
        let holds = par::map(&self.items, |item| item.as_ref().is_ok_and(Pending::holds));
        let invalid: Vec<usize> = holds
            .iter()
            .enumerate()
            .filter_map(|(i, ok)| (!ok).then_some(i))
            .collect();
        if invalid.is_empty() {
            Ok(())
        } else {
            Err(BatchError { invalid })
        }
    }
}

/// A proof's equations with their weights.
type Weighted<'a, G, H> = (&'a Pending<G, H>, &'a [<G as Group>::Scalar]);

/// Whether `Σ ρ · (equation)` vanishes over all the weighted proofs: consecutive runs of about
/// equal terms (see [`runs_of_terms`]), one MSM each, in parallel with the `parallel` feature.
fn weighted_sum_vanishes<G: Group, H: Group<Scalar = G::Scalar>>(
    weighted: &[Weighted<'_, G, H>],
) -> bool {
    let runs = runs_of_terms(weighted);
    par::map(&runs, |&(lo, hi)| {
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
    .all(|ok| ok)
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
        Self(pending_for(statement, &mut transcript, proof, Use::Batched))
    }

    /// Equations computed by the caller (a signature's, see `Signature::batch_item`).
    pub(crate) fn from_pending(pending: Pending<G, H>) -> Self {
        Self(Ok(pending))
    }

    /// The equations of an OR proof (as [`BatchVerifier::add_or`] computes them).
    pub fn or(statement: &Or<'_, G, H>, mut transcript: Transcript, proof: &OrProof<G, H>) -> Self {
        Self(statement.pending_for(&mut transcript, proof, Use::Batched))
    }
}

#[cfg(test)]
#[path = "tests_batch.rs"]
mod tests;
