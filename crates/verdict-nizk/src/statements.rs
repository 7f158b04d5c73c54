//! The statements the ciphersuites, the shuffle and the protocol prove.
//!
//! | type | statement (Camenisch–Stadler) |
//! |---|---|
//! | [`Schnorr`] | `PoK{x : X = x·B}` |
//! | [`Dleq`] | `PoK{x : X = x·G ∧ Y = x·H}` (Chaum–Pedersen; `H`, `Y` may live in a second group) |
//! | [`VectorDleq`] | `PoK{x : X = x·G ∧ ∀k C_k = x·H_k}`, folded to one DLEQ |
//! | [`LinearRelation`] | `PoK{w_1..w_n : ∀i P_i = Σ_j w_{k(i,j)}·B_{i,j}}` (AND = shared indices) |

use core::marker::PhantomData;

use verdict_group::Group;

use crate::encoded::Encoded;
use crate::error::RelationError;
use crate::relation::{Eqn, Lin, LinearForm, Shape, Statement};
use crate::transcript::Transcript;

/// `PoK{x : X = x·B}` — Schnorr's proof of knowledge of a discrete logarithm.
///
/// The statement lives in `G`. The parameter `H` only says which two-group proofs it can be a
/// branch of (see [`Schnorr::in_pair`]); leave it at its default otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schnorr<G: Group, H: Group<Scalar = G::Scalar> = G> {
    base: Encoded<G>,
    public: Encoded<G>,
    pair: PhantomData<H>,
}

impl<G: Group> Schnorr<G> {
    /// `X = x·B` for a given base `B`.
    pub fn new(base: impl Into<Encoded<G>>, public: impl Into<Encoded<G>>) -> Self {
        Self {
            base: base.into(),
            public: public.into(),
            pair: PhantomData,
        }
    }
    /// `X = x·G` for the group's generator.
    pub fn with_generator(public: impl Into<Encoded<G>>) -> Self {
        Self::new(Encoded::generator(), public)
    }
    /// The same statement, typed for use next to statements over `(G, H)` (e.g. as an OR
    /// branch beside a BLS12-381 G2/GT DLEQ).
    pub fn in_pair<H: Group<Scalar = G::Scalar>>(self) -> Schnorr<G, H> {
        Schnorr {
            base: self.base,
            public: self.public,
            pair: PhantomData,
        }
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Schnorr<G, H> {
    /// The base `B`.
    pub fn base(&self) -> &Encoded<G> {
        &self.base
    }
    /// The public element `X`.
    pub fn public(&self) -> &Encoded<G> {
        &self.public
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Statement<G, H> for Schnorr<G, H> {
    fn bind(&self, t: &mut Transcript) -> LinearForm<G, H> {
        t.append_message(b"statement", b"schnorr");
        t.append_message(b"group", G::NAME.as_bytes());
        t.append_message_parts(
            b"base+public",
            &[self.base.as_bytes(), self.public.as_bytes()],
        );
        LinearForm {
            num_witnesses: 1,
            eqs_g: vec![Eqn {
                image: Lin::Point(*self.public.point()),
                terms: vec![(0, Lin::Point(*self.base.point()))],
            }],
            eqs_h: Vec::new(),
        }
    }
    fn shape(&self) -> Shape {
        Shape {
            commitments_g: 1,
            commitments_h: 0,
            responses: 1,
        }
    }
}

/// `PoK{x : X = x·G ∧ Y = x·H}` — Chaum–Pedersen equality of discrete logarithms.
///
/// `G`, `X` are in the first group and `H`, `Y` in the second (the same group by default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dleq<G: Group, H: Group<Scalar = G::Scalar> = G> {
    g: Encoded<G>,
    x: Encoded<G>,
    h: Encoded<H>,
    y: Encoded<H>,
}

impl<G: Group> Dleq<G> {
    /// `X = x·g ∧ Y = x·h` in one group.
    pub fn new(
        g: impl Into<Encoded<G>>,
        x: impl Into<Encoded<G>>,
        h: impl Into<Encoded<G>>,
        y: impl Into<Encoded<G>>,
    ) -> Self {
        Self::new_in_pair(g, x, h, y)
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Dleq<G, H> {
    /// `X = x·g` in `G` and `Y = x·h` in `H`.
    pub fn new_in_pair(
        g: impl Into<Encoded<G>>,
        x: impl Into<Encoded<G>>,
        h: impl Into<Encoded<H>>,
        y: impl Into<Encoded<H>>,
    ) -> Self {
        Self {
            g: g.into(),
            x: x.into(),
            h: h.into(),
            y: y.into(),
        }
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Statement<G, H> for Dleq<G, H> {
    fn bind(&self, t: &mut Transcript) -> LinearForm<G, H> {
        t.append_message(b"statement", b"dleq");
        t.append_message_parts(b"groups", &[G::NAME.as_bytes(), b"/", H::NAME.as_bytes()]);
        t.append_message_parts(b"g+x", &[self.g.as_bytes(), self.x.as_bytes()]);
        t.append_message_parts(b"h+y", &[self.h.as_bytes(), self.y.as_bytes()]);
        LinearForm {
            num_witnesses: 1,
            eqs_g: vec![Eqn {
                image: Lin::Point(*self.x.point()),
                terms: vec![(0, Lin::Point(*self.g.point()))],
            }],
            eqs_h: vec![Eqn {
                image: Lin::Point(*self.y.point()),
                terms: vec![(0, Lin::Point(*self.h.point()))],
            }],
        }
    }
    fn shape(&self) -> Shape {
        Shape {
            commitments_g: 1,
            commitments_h: 1,
            responses: 1,
        }
    }
}

/// `PoK{x : X = x·G ∧ ∀k C_k = x·H_k}` for `k = 1..L`: one witness, many bases.
///
/// Bound as follows: absorb `G, X` and all `(H_k, C_k)`, squeeze independent 128-bit weights
/// `w_k`, and prove the single DLEQ `X = x·G ∧ C* = x·H*` with `C* = Σ w_k C_k`,
/// `H* = Σ w_k H_k`. If some `C_k ≠ x·H_k`, the folded equation holds with probability at most
/// `2⁻¹²⁸` per weight draw (see the notes). Proofs have the size of a DLEQ proof, independent
/// of `L`. The weights are half width because the prover evaluates both folds (an honest
/// prover's `C*` and `H*`, whichever branch of an OR it knows): half-width weights halve those
/// multi-scalar multiplications.
///
/// In a batch the check is expanded into terms over the `H_k` and `C_k`, and the batch merges
/// the `H_k` common to all proofs (e.g. a round's per-slot generators). A proof checked alone
/// with `L` of at least 32 evaluates `H*` and `C*` first, as the prover does (half-width
/// weights, the two side by side with the `parallel` feature): the same equation, about a
/// third less work than its expansion at `L = 1024`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorDleq<G: Group, H: Group<Scalar = G::Scalar> = G> {
    g: Encoded<G>,
    x: Encoded<G>,
    hs: Vec<Encoded<H>>,
    cs: Vec<Encoded<H>>,
}

impl<G: Group> VectorDleq<G> {
    /// `X = x·g ∧ ∀k C_k = x·H_k` in one group; `hs` and `cs` must have the same, non-zero
    /// length.
    pub fn new(
        g: impl Into<Encoded<G>>,
        x: impl Into<Encoded<G>>,
        hs: Vec<Encoded<G>>,
        cs: Vec<Encoded<G>>,
    ) -> Result<Self, RelationError> {
        Self::new_in_pair(g, x, hs, cs)
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> VectorDleq<G, H> {
    /// `X = x·g` in `G` and `∀k C_k = x·H_k` in `H`.
    pub fn new_in_pair(
        g: impl Into<Encoded<G>>,
        x: impl Into<Encoded<G>>,
        hs: Vec<Encoded<H>>,
        cs: Vec<Encoded<H>>,
    ) -> Result<Self, RelationError> {
        if hs.is_empty() {
            return Err(RelationError::EmptyStatement);
        }
        if hs.len() != cs.len() {
            return Err(RelationError::LengthMismatch {
                expected: hs.len(),
                actual: cs.len(),
            });
        }
        Ok(Self {
            g: g.into(),
            x: x.into(),
            hs,
            cs,
        })
    }
    /// The vector length `L`.
    pub fn len(&self) -> usize {
        self.hs.len()
    }
    /// Always `false` (construction rejects empty vectors).
    pub fn is_empty(&self) -> bool {
        self.hs.is_empty()
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Statement<G, H> for VectorDleq<G, H> {
    fn bind(&self, t: &mut Transcript) -> LinearForm<G, H> {
        t.append_message(b"statement", b"vector-dleq-w128");
        t.append_message_parts(b"groups", &[G::NAME.as_bytes(), b"/", H::NAME.as_bytes()]);
        t.append_message_parts(b"g+x", &[self.g.as_bytes(), self.x.as_bytes()]);
        t.append_u64(b"len", self.hs.len() as u64);
        t.append_encoded(b"bases", &self.hs);
        t.append_encoded(b"images", &self.cs);
        let weights = t.challenge_weights::<G>(b"fold-weights", self.hs.len());
        LinearForm {
            num_witnesses: 1,
            eqs_g: vec![Eqn {
                image: Lin::Point(*self.x.point()),
                terms: vec![(0, Lin::Point(*self.g.point()))],
            }],
            eqs_h: vec![Eqn {
                image: Lin::Combo {
                    weights: weights.clone(),
                    points: self.cs.iter().map(|c| *c.point()).collect(),
                },
                terms: vec![(
                    0,
                    Lin::Combo {
                        weights,
                        points: self.hs.iter().map(|h| *h.point()).collect(),
                    },
                )],
            }],
        }
    }
    fn shape(&self) -> Shape {
        Shape {
            commitments_g: 1,
            commitments_h: 1,
            responses: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct EncEqn<G: Group> {
    image: Encoded<G>,
    terms: Vec<(usize, Encoded<G>)>,
}

/// A general linear relation `PoK{w_1..w_n : ∀i P_i = Σ_j w_{k(i,j)}·B_{i,j}}` over `G` and
/// (optionally) a second group `H` of the same order.
///
/// Representation proofs (`P = w_1·B_1 + w_2·B_2`) are one equation with two terms; AND
/// composition is several equations sharing witness indices. Example, the ElGamal suite's
/// first branch `∧_k (R_k = r_k·G ∧ C_k = r_k·Z)`: witnesses `r_1..r_L`, equations
/// `R_k = r_k·G` and `C_k = r_k·Z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearRelation<G: Group, H: Group<Scalar = G::Scalar> = G> {
    num_witnesses: usize,
    eqs_g: Vec<EncEqn<G>>,
    eqs_h: Vec<EncEqn<H>>,
}

fn enc_eqn<G: Group, P: Into<Encoded<G>>>(
    num_witnesses: usize,
    image: impl Into<Encoded<G>>,
    terms: impl IntoIterator<Item = (usize, P)>,
) -> Result<EncEqn<G>, RelationError> {
    let terms: Vec<(usize, Encoded<G>)> = terms.into_iter().map(|(k, b)| (k, b.into())).collect();
    if terms.is_empty() {
        return Err(RelationError::EmptyEquation);
    }
    if let Some(&(index, _)) = terms.iter().find(|(k, _)| *k >= num_witnesses) {
        return Err(RelationError::WitnessIndexOutOfRange {
            index,
            num_witnesses,
        });
    }
    Ok(EncEqn {
        image: image.into(),
        terms,
    })
}

impl<G: Group> LinearRelation<G> {
    /// An empty single-group relation over `num_witnesses` witnesses.
    pub fn new(num_witnesses: usize) -> Self {
        Self::new_in_pair(num_witnesses)
    }
}

impl<G: Group, H: Group<Scalar = G::Scalar>> LinearRelation<G, H> {
    /// An empty relation over `num_witnesses` witnesses with equations in `G` and `H`.
    pub fn new_in_pair(num_witnesses: usize) -> Self {
        Self {
            num_witnesses,
            eqs_g: Vec::new(),
            eqs_h: Vec::new(),
        }
    }

    /// Adds `image = Σ w_k · base` in `G`, given `terms` as `(k, base)` pairs.
    pub fn add_equation<P: Into<Encoded<G>>>(
        &mut self,
        image: impl Into<Encoded<G>>,
        terms: impl IntoIterator<Item = (usize, P)>,
    ) -> Result<&mut Self, RelationError> {
        self.eqs_g.push(enc_eqn(self.num_witnesses, image, terms)?);
        Ok(self)
    }

    /// Adds `image = Σ w_k · base` in the second group `H`.
    pub fn add_equation_h<P: Into<Encoded<H>>>(
        &mut self,
        image: impl Into<Encoded<H>>,
        terms: impl IntoIterator<Item = (usize, P)>,
    ) -> Result<&mut Self, RelationError> {
        self.eqs_h.push(enc_eqn(self.num_witnesses, image, terms)?);
        Ok(self)
    }

    /// Number of witnesses.
    pub fn num_witnesses(&self) -> usize {
        self.num_witnesses
    }
}

fn bind_eqs<G: Group>(t: &mut Transcript, eqs: &[EncEqn<G>]) -> Vec<Eqn<G>> {
    t.append_u64(b"equations", eqs.len() as u64);
    for eq in eqs {
        let shape: Vec<u8> = eq
            .terms
            .iter()
            .flat_map(|(k, _)| (*k as u64).to_le_bytes())
            .collect();
        t.append_message(b"witness-indices", &shape);
        let parts: Vec<&[u8]> = core::iter::once(eq.image.as_bytes())
            .chain(eq.terms.iter().map(|(_, b)| b.as_bytes()))
            .collect();
        t.append_message_parts(b"image+bases", &parts);
    }
    eqs.iter()
        .map(|eq| Eqn {
            image: Lin::Point(*eq.image.point()),
            terms: eq
                .terms
                .iter()
                .map(|(k, b)| (*k, Lin::Point(*b.point())))
                .collect(),
        })
        .collect()
}

impl<G: Group, H: Group<Scalar = G::Scalar>> Statement<G, H> for LinearRelation<G, H> {
    fn bind(&self, t: &mut Transcript) -> LinearForm<G, H> {
        t.append_message(b"statement", b"linear-relation");
        t.append_message_parts(b"groups", &[G::NAME.as_bytes(), b"/", H::NAME.as_bytes()]);
        t.append_u64(b"witnesses", self.num_witnesses as u64);
        let eqs_g = bind_eqs(t, &self.eqs_g);
        let eqs_h = bind_eqs(t, &self.eqs_h);
        LinearForm {
            num_witnesses: self.num_witnesses,
            eqs_g,
            eqs_h,
        }
    }
    fn shape(&self) -> Shape {
        Shape {
            commitments_g: self.eqs_g.len(),
            commitments_h: self.eqs_h.len(),
            responses: self.num_witnesses,
        }
    }
}
