//! OR composition (Cramer–Damgård–Schoenmakers): the prover knows a witness for one branch
//! and simulates the others.

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::Reader;
use verdict_group::{Group, Scalar};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{DecodeError, RelationError, VerifyError};
use crate::relation::{LinearForm, Pending, Proof, Shape, Statement, Use};
use crate::transcript::Transcript;

/// `S_1 ∨ S_2 ∨ … ∨ S_n` over statements in `G` (and `H`).
///
/// The ciphersuite shape `(U = σ·G ∧ ∀k C_k = σ·G_k) ∨ (Y = y·G)` is
/// `Or::new(vec![&vector_dleq, &schnorr])` with [`crate::VectorDleq`] and [`crate::Schnorr`];
/// a cover client proves branch 0 with `σ`, the slot owner branch 1 with `y`.
///
/// Proving: for every branch `b ≠ β` (β = the known branch) draw a challenge `c_b` and
/// responses and solve for the commitments; commit honestly in branch β; hash everything to
/// `c`; set `c_β = c − Σ_{b≠β} c_b`. Every branch's commitment is computed with the same
/// sequence of constant-time group operations (`Σ s·B − e·P`, with `e = 0` in the real branch),
/// so the known branch is not revealed by which group operations run.
pub struct Or<'a, G: Group, H: Group<Scalar = G::Scalar> = G> {
    branches: Vec<&'a dyn Statement<G, H>>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> core::fmt::Debug for Or<'_, G, H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Or")
            .field("branches", &self.branches.len())
            .finish()
    }
}

/// A proof for an [`Or`] statement.
///
/// Canonical form: the challenges `c_1 … c_{n−1}` of all branches but the last (the last is
/// `c − Σ c_b`, recomputed by the verifier, so the challenges sum to the hash by construction),
/// then each branch's [`Proof`]. Wire format: `c_1 ‖ … ‖ c_{n−1} ‖ proof_1 ‖ … ‖ proof_n`, all
/// sizes fixed by the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrProof<G: Group, H: Group<Scalar = G::Scalar> = G> {
    pub(crate) challenges: Vec<G::Scalar>,
    pub(crate) branches: Vec<Proof<G, H>>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> OrProof<G, H> {
    /// The transmitted branch challenges (all but the last).
    pub fn challenges(&self) -> &[G::Scalar] {
        &self.challenges
    }
    /// The branch proofs.
    pub fn branches(&self) -> &[Proof<G, H>] {
        &self.branches
    }
    /// Builds a proof from parts (for tests and tooling; verification checks everything).
    pub fn from_parts(challenges: Vec<G::Scalar>, branches: Vec<Proof<G, H>>) -> Self {
        Self {
            challenges,
            branches,
        }
    }
    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for c in &self.challenges {
            out.extend_from_slice(c.to_bytes().as_ref());
        }
        for b in &self.branches {
            b.write_to(&mut out);
        }
        out
    }
}

impl<'a, G: Group, H: Group<Scalar = G::Scalar>> Or<'a, G, H> {
    /// The disjunction of `branches` (at least one).
    pub fn new(branches: Vec<&'a dyn Statement<G, H>>) -> Result<Self, RelationError> {
        if branches.is_empty() {
            return Err(RelationError::EmptyStatement);
        }
        Ok(Self { branches })
    }

    /// Number of branches.
    pub fn len(&self) -> usize {
        self.branches.len()
    }

    /// Always `false` (construction rejects empty disjunctions).
    pub fn is_empty(&self) -> bool {
        self.branches.is_empty()
    }

    /// Shapes of the branch proofs.
    pub fn shapes(&self) -> Vec<Shape> {
        self.branches.iter().map(|b| b.shape()).collect()
    }

    fn bind(&self, t: &mut Transcript) -> Vec<LinearForm<G, H>> {
        t.append_message(b"statement", b"or");
        t.append_u64(b"branches", self.branches.len() as u64);
        self.branches.iter().map(|b| b.bind(t)).collect()
    }

    /// Proves the disjunction knowing `witness` for branch `known`.
    pub fn prove<R: RngCore + CryptoRng + ?Sized>(
        &self,
        t: &mut Transcript,
        known: usize,
        witness: &[G::Scalar],
        rng: &mut R,
    ) -> Result<OrProof<G, H>, RelationError> {
        let forms = self.bind(t);
        let n = forms.len();
        let Some(real) = forms.get(known) else {
            return Err(RelationError::BranchOutOfRange {
                index: known,
                branches: n,
            });
        };
        real.check_witness_len(witness)?;

        let mut wrng = {
            let mut reprs: Vec<_> = witness.iter().map(Scalar::to_bytes).collect();
            let index = (known as u64).to_le_bytes();
            let parts: Vec<&[u8]> = core::iter::once(&index[..])
                .chain(reprs.iter().map(|r| r.as_ref()))
                .collect();
            let wrng = t.witness_rng(b"or-witness", &parts, rng);
            for r in &mut reprs {
                r.as_mut().zeroize();
            }
            wrng
        };
        // Same randomness consumption whatever the known branch is.
        // Wiped on every path out (the real branch's nonces reveal the witness).
        let nonces: Zeroizing<Vec<Vec<G::Scalar>>> = Zeroizing::new(
            forms
                .iter()
                .map(|f| {
                    (0..f.num_witnesses)
                        .map(|_| G::Scalar::random(&mut wrng))
                        .collect()
                })
                .collect(),
        );
        let mut challenges: Vec<G::Scalar> = (0..n).map(|_| G::Scalar::random(&mut wrng)).collect();
        drop(wrng);
        #[cfg(feature = "vectors")]
        {
            crate::recording::scalars("or-nonces", &nonces.concat());
            crate::recording::scalars("or-simulated-challenges", &challenges);
        }

        let zero = G::Scalar::zero();
        let mut proofs: Vec<Proof<G, H>> = forms
            .iter()
            .enumerate()
            .map(|(b, f)| {
                let e = if b == known { &zero } else { &challenges[b] };
                f.commit(&nonces[b], Some(e))
            })
            .collect();
        for p in &proofs {
            p.absorb_commitments(t);
        }
        let c = t.challenge_scalar::<G>(b"challenge");
        let mut others = zero;
        for (b, e) in challenges.iter().enumerate() {
            others += if b == known { zero } else { *e };
        }
        challenges[known] = c - others;
        for (b, p) in proofs.iter_mut().enumerate() {
            let cb = challenges[b];
            p.responses = nonces[b]
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let w = if b == known { witness[k] } else { zero };
                    *s + cb * w
                })
                .collect();
        }
        challenges.truncate(n - 1);
        Ok(OrProof {
            challenges,
            branches: proofs,
        })
    }

    fn pending(
        &self,
        forms: &[LinearForm<G, H>],
        proof: &OrProof<G, H>,
        c: G::Scalar,
        use_: Use,
    ) -> Result<Pending<G, H>, VerifyError> {
        if proof.branches.len() != forms.len() || proof.challenges.len() + 1 != forms.len() {
            return Err(VerifyError::ShapeMismatch);
        }
        let last = c - proof.challenges.iter().copied().sum::<G::Scalar>();
        let mut pending = Pending::new();
        for (b, (form, p)) in forms.iter().zip(&proof.branches).enumerate() {
            let cb = proof.challenges.get(b).copied().unwrap_or(last);
            pending.add(form, p, cb, use_)?;
        }
        Ok(pending)
    }

    /// The verification equations of `proof`, built for single or batch verification.
    pub(crate) fn pending_for(
        &self,
        t: &mut Transcript,
        proof: &OrProof<G, H>,
        use_: Use,
    ) -> Result<Pending<G, H>, VerifyError> {
        let forms = self.bind(t);
        if proof.branches.len() != forms.len() {
            return Err(VerifyError::ShapeMismatch);
        }
        for p in &proof.branches {
            p.absorb_commitments(t);
        }
        let c = t.challenge_scalar::<G>(b"challenge");
        self.pending(&forms, proof, c, use_)
    }

    /// Verifies `proof`.
    pub fn verify(&self, t: &mut Transcript, proof: &OrProof<G, H>) -> Result<(), VerifyError> {
        if self.pending_for(t, proof, Use::Alone)?.holds() {
            Ok(())
        } else {
            Err(VerifyError::InvalidProof)
        }
    }

    /// Zero-knowledge simulator for the programmed challenge `c` (no witness at all).
    pub fn simulate<R: RngCore + CryptoRng + ?Sized>(
        &self,
        t: &mut Transcript,
        challenge: &G::Scalar,
        rng: &mut R,
    ) -> OrProof<G, H> {
        let forms = self.bind(t);
        let n = forms.len();
        let mut challenges: Vec<G::Scalar> =
            (0..n - 1).map(|_| G::Scalar::random(&mut *rng)).collect();
        let last = *challenge - challenges.iter().copied().sum::<G::Scalar>();
        challenges.push(last);
        let branches = forms
            .iter()
            .zip(&challenges)
            .map(|(f, c)| f.simulate(c, &mut *rng))
            .collect();
        challenges.truncate(n - 1);
        OrProof {
            challenges,
            branches,
        }
    }

    /// Verifies `proof` against a programmed challenge (zero-knowledge tests only).
    pub fn verify_with_challenge(
        &self,
        t: &mut Transcript,
        proof: &OrProof<G, H>,
        challenge: &G::Scalar,
    ) -> Result<(), VerifyError> {
        let forms = self.bind(t);
        if self.pending(&forms, proof, *challenge, Use::Alone)?.holds() {
            Ok(())
        } else {
            Err(VerifyError::InvalidProof)
        }
    }

    /// Decodes a proof for this disjunction (validated, no trailing bytes).
    pub fn decode_proof(&self, bytes: &[u8]) -> Result<OrProof<G, H>, DecodeError> {
        let mut r = Reader::new(bytes);
        let n = self.branches.len();
        let challenges = (0..n - 1)
            .map(|_| r.scalar::<G::Scalar>("challenge"))
            .collect::<Result<_, _>>()?;
        let branches = self
            .branches
            .iter()
            .map(|b| Proof::read_from(&mut r, b.shape()))
            .collect::<Result<_, _>>()?;
        r.finish()?;
        Ok(OrProof {
            challenges,
            branches,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Encoded, Schnorr, VectorDleq};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use verdict_group::{Group, Ristretto255 as G, par};

    /// The hashing-generator client's proof, `VectorDleq ∨ Schnorr`, proven for either known
    /// branch with the same randomness on one and on two threads: the same bytes, which verify.
    /// (Its commitment evaluates the two sides of the folded equation at the same time.)
    #[test]
    fn or_proofs_are_the_same_bytes_on_one_and_two_threads() {
        let mut r = ChaCha20Rng::seed_from_u64(17);
        let ctx = Context::new(b"verdict-nizk/or-threads-test", [4u8; 32]);
        let sigma = <G as Group>::Scalar::random(&mut r);
        let y = <G as Group>::Scalar::random(&mut r);
        let gens: Vec<Encoded<G>> = (0..40).map(|_| Encoded::new(G::random(&mut r))).collect();
        let elements: Vec<Encoded<G>> = gens
            .iter()
            .map(|g| Encoded::new(*g.point() * sigma))
            .collect();
        let prove = |known: usize, witness: <G as Group>::Scalar, threads: usize| {
            par::with_threads(threads, || {
                // Two real threads (the dev-dependency turns the feature on), or the
                // comparison below could not fail.
                assert_eq!(par::threads(), threads);
                let vd = VectorDleq::new(
                    Encoded::<G>::generator(),
                    Encoded::new(G::mul_generator(&sigma)),
                    gens.clone(),
                    elements.clone(),
                )
                .unwrap();
                let schnorr = Schnorr::with_generator(G::mul_generator(&y));
                let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr]).unwrap();
                let mut rng = ChaCha20Rng::seed_from_u64(99);
                let proof = or
                    .prove(&mut ctx.transcript(), known, &[witness], &mut rng)
                    .unwrap();
                assert!(or.verify(&mut ctx.transcript(), &proof).is_ok());
                proof.to_bytes()
            })
            .unwrap()
        };
        for (known, witness) in [(0, sigma), (1, y)] {
            assert_eq!(
                prove(known, witness, 1),
                prove(known, witness, 2),
                "branch {known}"
            );
        }
    }
}
