//! The engine: linear relations over one or two groups of the same prime order, their
//! Σ-protocol (commit, challenge, respond), simulation and verification equations.
//!
//! A statement is compiled ("bound") into a [`LinearForm`]: equations
//! `P_i = Σ_j w_{k(i,j)} · B_{i,j}` where the `w_k` are secret witnesses and every `P_i`, `B_{i,j}`
//! is public. Equations live either in `G` or in `H` (`H = G` by default); both groups share the
//! scalar field, so one witness can appear in both (e.g. BLS12-381 G2 and GT).
//!
//! Proofs carry their commitments explicitly: `(A_i)_i, (z_k)_k`, checked as
//! `A_i − Σ_j z_{k(i,j)} B_{i,j} + c · P_i = 0`. Each check is linear in the points, which is
//! what makes batch verification ([`crate::BatchVerifier`]) one multi-scalar multiplication.

use rand_core::{CryptoRng, RngCore};
use verdict_group::codec::{CodecError, Reader};
use verdict_group::{Group, Scalar};
use zeroize::{Zeroize, Zeroizing};

use crate::encoded::Encoded;
use crate::error::{DecodeError, RelationError, VerifyError};
use crate::transcript::Transcript;

mod pending;
pub(crate) use pending::{Check, Pending, Use};

/// A public point, or a public linear combination `Σ w_k P_k` kept unevaluated so that a
/// verifier can expand it into its multi-scalar multiplication (and merge common `P_k` across
/// a batch).
#[derive(Clone, Debug)]
pub(crate) enum Lin<G: Group> {
    Point(G),
    Combo {
        weights: Vec<G::Scalar>,
        points: Vec<G>,
    },
}

impl<G: Group> Lin<G> {
    /// The value (variable time: the combination is public).
    fn eval(&self) -> G {
        match self {
            Lin::Point(p) => *p,
            // Lengths are equal by construction; the fallback only avoids a panic path.
            Lin::Combo { weights, points } => {
                G::msm_vartime(weights, points).unwrap_or_else(|_| {
                    weights
                        .iter()
                        .zip(points)
                        .map(|(w, p)| p.mul_vartime(w))
                        .sum()
                })
            }
        }
    }

    /// The value, a combination's multi-scalar multiplication split over the threads.
    fn eval_split(&self) -> G {
        match self {
            Lin::Point(p) => *p,
            Lin::Combo { weights, points } => {
                verdict_group::par::msm_vartime(weights, points).unwrap_or_else(|_| self.eval())
            }
        }
    }

    fn push_terms(&self, coeff: G::Scalar, out: &mut Check<G>) {
        match self {
            Lin::Point(p) => {
                out.scalars.push(coeff);
                out.points.push(*p);
            }
            Lin::Combo { weights, points } => {
                out.scalars.extend(weights.iter().map(|w| coeff * w));
                out.points.extend_from_slice(points);
            }
        }
    }
}

/// One equation `image = Σ_j w_{k_j} · base_j`.
#[derive(Clone, Debug)]
pub(crate) struct Eqn<G: Group> {
    pub(crate) image: Lin<G>,
    pub(crate) terms: Vec<(usize, Lin<G>)>,
}

/// A statement compiled to linear form: the input of the Σ-protocol engine.
///
/// Obtained from [`Statement::bind`]; opaque.
#[derive(Clone, Debug)]
pub struct LinearForm<G: Group, H: Group<Scalar = G::Scalar> = G> {
    pub(crate) num_witnesses: usize,
    pub(crate) eqs_g: Vec<Eqn<G>>,
    pub(crate) eqs_h: Vec<Eqn<H>>,
}

/// The number of commitments (in each group) and responses of a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Commitments in the first group `G` (one per `G` equation).
    pub commitments_g: usize,
    /// Commitments in the second group `H` (one per `H` equation).
    pub commitments_h: usize,
    /// Responses (one per witness).
    pub responses: usize,
}

impl Shape {
    /// Length in bytes of a proof of this shape.
    pub fn encoded_len<G: Group, H: Group>(&self) -> usize {
        self.commitments_g * G::ENCODED_LEN
            + self.commitments_h * H::ENCODED_LEN
            + self.responses * <G::Scalar as Scalar>::ENCODED_LEN
    }
}

/// A Σ-protocol proof for a linear relation: commitments (explicit, for batching) and
/// responses.
///
/// Wire format: `A_1 ‖ … ‖ A_m` (group `G` commitments, canonical encodings), then the `H`
/// commitments, then `z_1 ‖ … ‖ z_n` (canonical scalars). All counts are fixed by the
/// statement, so there are no length fields; decode with [`Statement::decode_proof`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof<G: Group, H: Group<Scalar = G::Scalar> = G> {
    pub(crate) commitments_g: Vec<Encoded<G>>,
    pub(crate) commitments_h: Vec<Encoded<H>>,
    pub(crate) responses: Vec<G::Scalar>,
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Proof<G, H> {
    /// The commitments in `G`.
    pub fn commitments_g(&self) -> &[Encoded<G>] {
        &self.commitments_g
    }
    /// The commitments in `H`.
    pub fn commitments_h(&self) -> &[Encoded<H>] {
        &self.commitments_h
    }
    /// The responses.
    pub fn responses(&self) -> &[G::Scalar] {
        &self.responses
    }
    /// The proof's shape.
    pub fn shape(&self) -> Shape {
        Shape {
            commitments_g: self.commitments_g.len(),
            commitments_h: self.commitments_h.len(),
            responses: self.responses.len(),
        }
    }

    /// Builds a proof from parts (for tests and tooling; verification checks everything).
    pub fn from_parts(
        commitments_g: Vec<Encoded<G>>,
        commitments_h: Vec<Encoded<H>>,
        responses: Vec<G::Scalar>,
    ) -> Self {
        Self {
            commitments_g,
            commitments_h,
            responses,
        }
    }

    /// Appends the canonical encoding to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        for a in &self.commitments_g {
            out.extend_from_slice(a.as_bytes());
        }
        for a in &self.commitments_h {
            out.extend_from_slice(a.as_bytes());
        }
        for z in &self.responses {
            out.extend_from_slice(z.to_bytes().as_ref());
        }
    }

    /// The canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.shape().encoded_len::<G, H>());
        self.write_to(&mut out);
        out
    }

    /// Reads a proof of `shape` (see [`crate::wire::ReaderExt::proof`]); every point and scalar
    /// is validated, in order.
    pub(crate) fn read_from(r: &mut Reader<'_>, shape: Shape) -> Result<Self, CodecError> {
        let commitments_g = (0..shape.commitments_g)
            .map(|_| Encoded::read(r, "commitment"))
            .collect::<Result<_, _>>()?;
        let commitments_h = (0..shape.commitments_h)
            .map(|_| Encoded::read(r, "commitment"))
            .collect::<Result<_, _>>()?;
        let responses = (0..shape.responses)
            .map(|_| r.scalar::<G::Scalar>("response"))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            commitments_g,
            commitments_h,
            responses,
        })
    }

    /// Decodes a proof of the given shape, validating every point and scalar and rejecting
    /// trailing bytes.
    pub fn from_bytes(bytes: &[u8], shape: Shape) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let p = Self::read_from(&mut r, shape)?;
        r.finish()?;
        Ok(p)
    }

    pub(crate) fn absorb_commitments(&self, t: &mut Transcript) {
        t.append_encoded(b"commitments-g", &self.commitments_g);
        t.append_encoded(b"commitments-h", &self.commitments_h);
    }
}

/// `Σ_j s_{k_j} · B_j − e · P` for every equation, with constant-time multiplications (the
/// scalars may be secret nonces; `e` may be a secret-dependent choice in OR proofs).
///
/// The equations are independent (a vector DLEQ has one per slot element, each a full
/// constant-time multiplication): with the `parallel` feature they are computed in parallel.
fn commit_eqs<G: Group>(eqs: &[Eqn<G>], s: &[G::Scalar], e: Option<&G::Scalar>) -> Vec<G> {
    verdict_group::par::map(eqs, |eq| commit_eq(eq, s, e))
}

/// One equation of [`commit_eqs`]. Its two sides are independent and run in parallel: in a
/// folded vector DLEQ each side is a multi-scalar multiplication over the slot's `L` points
/// (`H* = Σ w_k H_k`, `C* = Σ w_k C_k`) followed by a constant-time multiplication, and a
/// hashing-generator client's OR proof evaluates both sides whichever branch it knows (the
/// known branch with `e = 0`), so that its time does not say which.
fn commit_eq<G: Group>(eq: &Eqn<G>, s: &[G::Scalar], e: Option<&G::Scalar>) -> G {
    let generator = G::generator();
    let (terms, image) = verdict_group::par::join(
        || {
            eq.terms.iter().fold(G::identity(), |acc, (k, base)| {
                let b = base.eval();
                acc + if b == generator {
                    G::mul_generator(&s[*k])
                } else {
                    b * s[*k]
                }
            })
        },
        || e.map(|e| eq.image.eval() * e),
    );
    match image {
        Some(image) => terms - image,
        None => terms,
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> LinearForm<G, H> {
    /// The shape of proofs for this form.
    pub fn shape(&self) -> Shape {
        Shape {
            commitments_g: self.eqs_g.len(),
            commitments_h: self.eqs_h.len(),
            responses: self.num_witnesses,
        }
    }

    /// Commitments `Σ s B − e P` in both groups, encoded.
    pub(crate) fn commit(&self, s: &[G::Scalar], e: Option<&G::Scalar>) -> Proof<G, H> {
        Proof {
            commitments_g: Encoded::batch_new(&commit_eqs(&self.eqs_g, s, e)),
            commitments_h: Encoded::batch_new(&commit_eqs(&self.eqs_h, s, e)),
            responses: Vec::new(),
        }
    }

    pub(crate) fn check_witness_len(&self, witness: &[G::Scalar]) -> Result<(), RelationError> {
        if witness.len() != self.num_witnesses {
            return Err(RelationError::LengthMismatch {
                expected: self.num_witnesses,
                actual: witness.len(),
            });
        }
        Ok(())
    }

    /// Proves knowledge of `witness`; `t` must already hold the context and the statement.
    pub(crate) fn prove<R: RngCore + CryptoRng + ?Sized>(
        &self,
        t: &mut Transcript,
        witness: &[G::Scalar],
        rng: &mut R,
    ) -> Result<Proof<G, H>, RelationError> {
        self.check_witness_len(witness)?;
        // The nonces are as secret as the witness (either reveals the other given a response):
        // held in `Zeroizing`, they are wiped on every path out of this function.
        let nonces = {
            let mut reprs: Vec<_> = witness.iter().map(Scalar::to_bytes).collect();
            let parts: Vec<&[u8]> = reprs.iter().map(|r| r.as_ref()).collect();
            let mut wrng = t.witness_rng(b"witness", &parts, rng);
            for r in &mut reprs {
                r.as_mut().zeroize();
            }
            Zeroizing::new(
                (0..self.num_witnesses)
                    .map(|_| G::Scalar::random(&mut wrng))
                    .collect::<Vec<_>>(),
            )
        };
        #[cfg(feature = "vectors")]
        crate::recording::scalars("nonces", &nonces);
        let mut proof = self.commit(&nonces, None);
        proof.absorb_commitments(t);
        let c = t.challenge_scalar::<G>(b"challenge");
        proof.responses = nonces
            .iter()
            .zip(witness)
            .map(|(r, w)| *r + c * w)
            .collect();
        Ok(proof)
    }

    /// A simulated proof for the programmed challenge `c` (uniform responses, commitments
    /// solved from the verification equations).
    pub(crate) fn simulate<R: RngCore + CryptoRng + ?Sized>(
        &self,
        c: &G::Scalar,
        rng: &mut R,
    ) -> Proof<G, H> {
        let z: Vec<G::Scalar> = (0..self.num_witnesses)
            .map(|_| G::Scalar::random(rng))
            .collect();
        let mut proof = self.commit(&z, Some(c));
        proof.responses = z;
        proof
    }
}

/// A statement provable with the linear Σ-protocol engine.
///
/// Implemented by [`crate::Schnorr`], [`crate::Dleq`], [`crate::VectorDleq`] and
/// [`crate::LinearRelation`]; statements are the branches of [`crate::Or`]. The provided
/// methods take a transcript that already holds the [`crate::Context`]
/// (see [`crate::Context::transcript`]); they absorb the statement in full, then the
/// commitments, then squeeze the challenge.
pub trait Statement<G: Group, H: Group<Scalar = G::Scalar> = G> {
    /// Absorbs the whole statement into `t` and compiles it to linear form (folding vectors
    /// with weights squeezed from `t` after the vectors are absorbed).
    fn bind(&self, t: &mut Transcript) -> LinearForm<G, H>;

    /// The shape of this statement's proofs.
    fn shape(&self) -> Shape;

    /// Proves the statement with `witness` (one scalar per witness index).
    fn prove<R: RngCore + CryptoRng + ?Sized>(
        &self,
        t: &mut Transcript,
        witness: &[G::Scalar],
        rng: &mut R,
    ) -> Result<Proof<G, H>, RelationError>
    where
        Self: Sized,
    {
        let form = self.bind(t);
        form.prove(t, witness, rng)
    }

    /// Verifies `proof`.
    fn verify(&self, t: &mut Transcript, proof: &Proof<G, H>) -> Result<(), VerifyError>
    where
        Self: Sized,
    {
        if pending_for(self, t, proof, Use::Alone)?.holds() {
            Ok(())
        } else {
            Err(VerifyError::InvalidProof)
        }
    }

    /// Zero-knowledge simulator: a proof that verifies under the *programmed* challenge `c`
    /// (see [`Statement::verify_with_challenge`]), made without the witness.
    fn simulate<R: RngCore + CryptoRng + ?Sized>(
        &self,
        t: &mut Transcript,
        challenge: &G::Scalar,
        rng: &mut R,
    ) -> Proof<G, H>
    where
        Self: Sized,
    {
        self.bind(t).simulate(challenge, rng)
    }

    /// Verifies `proof` against a programmed challenge instead of the transcript's (the
    /// random-oracle programming of zero-knowledge proofs; never use it to accept real proofs).
    fn verify_with_challenge(
        &self,
        t: &mut Transcript,
        proof: &Proof<G, H>,
        challenge: &G::Scalar,
    ) -> Result<(), VerifyError>
    where
        Self: Sized,
    {
        let form = self.bind(t);
        let mut pending = Pending::new();
        pending.add(&form, proof, *challenge, Use::Alone)?;
        if pending.holds() {
            Ok(())
        } else {
            Err(VerifyError::InvalidProof)
        }
    }

    /// Decodes a proof for this statement (validated, no trailing bytes).
    fn decode_proof(&self, bytes: &[u8]) -> Result<Proof<G, H>, DecodeError>
    where
        Self: Sized,
    {
        Proof::from_bytes(bytes, self.shape())
    }
}

/// Binds `statement`, absorbs the commitments of `proof`, squeezes the challenge and returns the
/// verification equations, built for `use_`.
pub(crate) fn pending_for<G: Group, H: Group<Scalar = G::Scalar>>(
    statement: &(impl Statement<G, H> + ?Sized),
    t: &mut Transcript,
    proof: &Proof<G, H>,
    use_: Use,
) -> Result<Pending<G, H>, VerifyError> {
    let form = statement.bind(t);
    if proof.shape() != form.shape() {
        return Err(VerifyError::ShapeMismatch);
    }
    proof.absorb_commitments(t);
    let c = t.challenge_scalar::<G>(b"challenge");
    let mut pending = Pending::new();
    pending.add(&form, proof, c, use_)?;
    Ok(pending)
}
