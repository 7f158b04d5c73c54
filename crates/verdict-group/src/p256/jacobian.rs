//! P-256 points for the constant-time ladder (`ladder.rs`): Jacobian coordinates on the
//! constant-time field of `field.rs`, the `a = −3` doubling, the mixed addition of an affine
//! point (table entries, and the base while its table is built) and the general addition (the
//! table entries of a single product), all computed in lanes (`lanes.rs`).
//!
//! # Why Jacobian coordinates, and affine tables
//!
//! `p256` 0.13 multiplies with complete Renes–Costello–Batina formulas in homogeneous
//! coordinates: about 13 field multiplications per doubling and 14 per addition. The `a = −3`
//! Jacobian doubling costs 3M + 5S, and doublings are most of a ladder. The ladder's additions
//! take their addend from a table of the base's multiples; the base is public, so its table
//! is too, and it is brought to affine coordinates once (`normalize.rs`), which makes every
//! ladder addition a mixed addition: 7M + 4S instead of 11M + 5S, and a table entry two field
//! elements instead of three.
//!
//! # Why incomplete addition formulas are safe here
//!
//! Both additions below are the general formulas, which are wrong for `P = Q` and for an
//! identity operand. The identity cases are handled by constant-time selection (`Z = 0` for a
//! Jacobian point, a flag for an affine one). `P + (−P)` comes out as the identity by itself
//! (`H = 0` gives `Z₃ = 0`). `P = Q` never reaches it: `ladder.rs` shows why for the ladder,
//! and a table is built by adding `2j·P + P` for `2j ≤ 14`, distinct because `P` is never the
//! identity (the ladder substitutes a stand-in) and has prime order `n > 14`. Debug builds
//! check it at every addition (a branch on secret data that release builds do not contain), so
//! every test of the ladder also tests the argument.
//!
//! # Constant time
//!
//! Every field operation is `field.rs`'s (Montgomery arithmetic with borrow masks). The formulas
//! run the same operations whatever the points; the identity cases and negation are
//! conditional selections.

use p256_rustcrypto::FieldBytes;
use p256_rustcrypto::elliptic_curve::subtle::Choice;
use zeroize::Zeroize;

use super::field::Fe;
use super::lanes::{LaneMask, Lanes};

/// Table entries `1·P … 16·P`: the magnitudes of the ladder's signed 5-bit digits.
pub(super) const TABLE: usize = 16;

/// `L` points `(X : Y : Z)`, each standing for `(X/Z², Y/Z³)`, advanced in lockstep; `Z = 0`
/// is the identity. `Jacobian` (one lane) is what the rest of the module passes around.
#[derive(Clone, Copy)]
pub(super) struct JacobianLanes<const L: usize> {
    x: Lanes<L>,
    y: Lanes<L>,
    z: Lanes<L>,
}

/// One point.
pub(super) type Jacobian = JacobianLanes<1>;

impl<const L: usize> Zeroize for JacobianLanes<L> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl Jacobian {
    /// `(X, Y, Z)`.
    pub(super) fn coordinates(&self) -> (Fe, Fe, Fe) {
        (self.x.0[0], self.y.0[0], self.z.0[0])
    }
}

impl<const L: usize> JacobianLanes<L> {
    pub(super) const IDENTITY: Self = Self {
        x: Lanes::ONE,
        y: Lanes::ONE,
        z: Lanes::ZERO,
    };

    /// Each lane as a point of its own.
    pub(super) fn scatter(&self) -> [Jacobian; L] {
        core::array::from_fn(|i| Jacobian {
            x: Lanes([self.x.0[i]]),
            y: Lanes([self.y.0[i]]),
            z: Lanes([self.z.0[i]]),
        })
    }

    /// `b` in the lanes where `mask` holds, `a` elsewhere.
    pub(super) fn select_where(a: &Self, b: &Self, mask: LaneMask<L>) -> Self {
        Self {
            x: Lanes::select(&a.x, &b.x, mask),
            y: Lanes::select(&a.y, &b.y, mask),
            z: Lanes::select(&a.z, &b.z, mask),
        }
    }

    /// Every lane negated where `choice` holds.
    pub(super) fn conditional_negate(&mut self, choice: Choice) {
        let negated = self.y.neg();
        self.y = Lanes::select(&self.y, &negated, LaneMask::splat(choice));
    }

    /// `2·P` (dbl-2001-b for `a = −3`, 3M + 5S); the identity stays the identity (`Z₃ = 2YZ`).
    // Out of line, like `add_affine`: inlined into the ladder (the compiler's choice once the
    // mixed addition arrived) the two formulas made 124 products 7 % slower than kept apart, on
    // 5 % fewer instructions (`docs/PERFORMANCE.md`, 2026-12-07 afternoon).
    #[inline(never)]
    pub(super) fn double(&self) -> Self {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x.mul(&gamma);
        let t = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = t.double().add(&t);
        let beta4 = beta.double().double();
        let x3 = alpha.square().sub(&beta4.double());
        let z3 = self.y.add(&self.z).square().sub(&gamma).sub(&delta);
        let gamma8 = gamma.square().double().double().double();
        let y3 = alpha.mul(&beta4.sub(&x3)).sub(&gamma8);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// `P + Q` (add-2007-bl, 11M + 5S) with the identity cases selected in constant time.
    /// **Wrong for `P = Q` ≠ identity**, like the mixed addition. For a single product, whose
    /// table would cost an inversion of its own to make affine (`ladder.rs`).
    // Out of line: see `double`.
    #[inline(never)]
    pub(super) fn add(&self, other: &Self) -> Self {
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let u1 = self.x.mul(&z2z2);
        let u2 = other.x.mul(&z1z1);
        let s1 = self.y.mul(&other.z).mul(&z2z2);
        let s2 = other.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let i = h.double().square();
        let j = h.mul(&i);
        let r = s2.sub(&s1).double();
        let v = u1.mul(&i);
        let x3 = r.square().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&s1.mul(&j).double());
        let z3 = self.z.add(&other.z).square().sub(&z1z1).sub(&z2z2).mul(&h);
        let sum = [x3, y3, z3];
        let operands = [(self, self.z.is_zero()), (other, other.z.is_zero())];
        Self::finish(sum, operands, (&h, &r), "general")
    }

    /// The last step of both additions: the sum `(X₃, Y₃, Z₃)`, unless an operand is the
    /// identity, for which the general formulas compute garbage; then the other operand. Debug
    /// builds also refuse the formulas' one other wrong case, `P = Q` ≠ identity (`H = 0` and
    /// `r = 0`): a branch on secret data that release builds do not contain. `ladder.rs` shows
    /// why the ladder never reaches it, and this makes every test of the ladder a test of that
    /// argument.
    fn finish(
        [x, y, z]: [Lanes<L>; 3],
        [(p, p_zero), (q, q_zero)]: [(&Self, LaneMask<L>); 2],
        (h, r): (&Lanes<L>, &Lanes<L>),
        formula: &str,
    ) -> Self {
        #[cfg(debug_assertions)]
        {
            let doubling = p_zero
                .not()
                .and(q_zero.not())
                .and(h.is_zero())
                .and(r.is_zero());
            assert!(!doubling.any(), "P + P through the {formula} addition");
        }
        #[cfg(not(debug_assertions))]
        let _ = (h, r, formula);
        let sum = Self::select_where(&Self { x, y, z }, q, p_zero);
        Self::select_where(&sum, p, q_zero)
    }

    /// `P + Q` for an affine `Q` (madd-2007-bl, 7M + 4S), `Q` taken as the identity where
    /// `q_is_identity` holds (every lane reads the same table entry, so one flag serves them
    /// all), and the identity `P` selected in constant time. **Wrong for `P = Q` ≠ identity**,
    /// see the module documentation for why the ladder never asks for that.
    // Out of line: see `double`.
    #[inline(never)]
    pub(super) fn add_affine(&self, q: &AffineLanes<L>, q_is_identity: Choice) -> Self {
        let z1z1 = self.z.square();
        let u2 = q.x.mul(&z1z1);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&self.x);
        let hh = h.square();
        let i = hh.double().double();
        let j = h.mul(&i);
        let r = s2.sub(&self.y).double();
        let v = self.x.mul(&i);
        let x3 = r.square().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&self.y.mul(&j).double());
        let z3 = self.z.add(&h).square().sub(&z1z1).sub(&hh);
        let sum = [x3, y3, z3];
        let q = q.to_jacobian();
        let operands = [
            (self, self.z.is_zero()),
            (&q, LaneMask::splat(q_is_identity)),
        ];
        Self::finish(sum, operands, (&h, &r), "mixed")
    }
}

/// `L` affine points `(x, y)` advanced in lockstep: the entries of a public table, never the
/// identity.
#[derive(Clone, Copy)]
pub(super) struct AffineLanes<const L: usize> {
    x: Lanes<L>,
    y: Lanes<L>,
}

/// One affine point.
pub(super) type Affine = AffineLanes<1>;

/// The affine multiples `1·B … 16·B` of one public base.
pub(super) type Table = [Affine; TABLE];

impl Affine {
    pub(super) fn new(x: Fe, y: Fe) -> Self {
        Self {
            x: Lanes([x]),
            y: Lanes([y]),
        }
    }

    /// The point `(x, y)`, given as canonical big-endian coordinates; `None` if a coordinate
    /// is not below `p`. Whether the point is on the curve is the caller's concern.
    pub(super) fn from_bytes(x: &FieldBytes, y: &FieldBytes) -> Option<Self> {
        Some(Self::new(Fe::from_bytes(x)?, Fe::from_bytes(y)?))
    }

    /// `1·P … 16·P`: doublings for the even multiples, `2j·P + P` for the odd ones, a mixed
    /// addition since `P` is affine (`2j ≢ 1 mod n`, so the addition never doubles).
    pub(super) fn multiples(&self) -> [Jacobian; TABLE] {
        let mut t = [self.to_jacobian(); TABLE];
        for m in 2..=TABLE {
            t[m - 1] = if m % 2 == 0 {
                t[m / 2 - 1].double()
            } else {
                t[m - 2].add_affine(self, Choice::from(0))
            };
        }
        t
    }
}

impl<const L: usize> AffineLanes<L> {
    /// The points `points` as the lanes of one value.
    pub(super) fn gather(points: &[Affine; L]) -> Self {
        Self {
            x: Lanes(core::array::from_fn(|i| points[i].x.0[0])),
            y: Lanes(core::array::from_fn(|i| points[i].y.0[0])),
        }
    }

    /// `b` in every lane where `choice` holds, `a` elsewhere.
    pub(super) fn select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mask = LaneMask::splat(choice);
        Self {
            x: Lanes::select(&a.x, &b.x, mask),
            y: Lanes::select(&a.y, &b.y, mask),
        }
    }

    /// Every lane negated where `choice` holds.
    pub(super) fn conditional_negate(&mut self, choice: Choice) {
        let negated = self.y.neg();
        self.y = Lanes::select(&self.y, &negated, LaneMask::splat(choice));
    }

    /// The same points with `Z = 1`.
    pub(super) fn to_jacobian(self) -> JacobianLanes<L> {
        JacobianLanes {
            x: self.x,
            y: self.y,
            z: Lanes::ONE,
        }
    }
}

impl<const L: usize> Zeroize for AffineLanes<L> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `k·G` for a small `k`, normalized by `p256`.
    fn multiple(k: u64) -> Affine {
        use p256_rustcrypto::elliptic_curve::sec1::ToEncodedPoint;
        let p = (p256_rustcrypto::ProjectivePoint::GENERATOR * p256_rustcrypto::Scalar::from(k))
            .to_affine()
            .to_encoded_point(false);
        let (Some(x), Some(y)) = (p.x(), p.y()) else {
            panic!("a non-zero multiple has coordinates");
        };
        Affine::from_bytes(x, y).expect("canonical coordinates")
    }

    /// Whether a Jacobian point is the affine point `q` (or the identity, for `None`).
    fn is(p: &Jacobian, q: Option<&Affine>) -> bool {
        let (x, y, z) = p.coordinates();
        match q {
            None => bool::from(z.is_zero()),
            // X = x·Z² and Y = y·Z³.
            Some(q) => {
                !bool::from(z.is_zero())
                    && x == q.x.0[0].mul(&z.square())
                    && y == q.y.0[0].mul(&z.square().mul(&z))
            }
        }
    }

    /// The checks behind the ladder's argument are live in debug builds: both additions refuse
    /// `P + P` instead of returning the identity.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "P + P through the general addition")]
    fn general_addition_refuses_a_doubling() {
        let g = multiple(1).to_jacobian();
        let _ = g.add(&g);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "P + P through the mixed addition")]
    fn mixed_addition_refuses_a_doubling() {
        let g = multiple(1);
        let _ = g.to_jacobian().add_affine(&g, Choice::from(0));
    }

    /// The mixed addition on a Jacobian `P` with `Z ≠ 1`, and its identity cases: `O + Q = Q`,
    /// `P + O = P` (flag), `O + O = O`, and `P + (−P) = O`; the doubling.
    #[test]
    fn mixed_addition_and_doubling_match_p256() {
        let (g, g3) = (multiple(1), multiple(3));
        let g4 = g.to_jacobian().double().double();
        assert!(is(&g4, Some(&multiple(4))), "2·2·G");
        let no = Choice::from(0);
        let yes = Choice::from(1);
        assert!(is(&g4.add_affine(&g3, no), Some(&multiple(7))), "4G + 3G");
        assert!(
            is(&Jacobian::IDENTITY.add_affine(&g3, no), Some(&g3)),
            "O + Q"
        );
        assert!(is(&g4.add_affine(&g3, yes), Some(&multiple(4))), "P + O");
        assert!(is(&Jacobian::IDENTITY.add_affine(&g3, yes), None), "O + O");
        assert!(is(&Jacobian::IDENTITY.double(), None), "2·O");
        let mut minus_g3 = g3;
        minus_g3.conditional_negate(yes);
        let g3_jacobian = g.to_jacobian().double().add_affine(&g, no);
        assert!(is(&g3_jacobian, Some(&g3)), "2G + G");
        assert!(is(&g3_jacobian.add_affine(&minus_g3, no), None), "3G − 3G");
    }

    /// The general addition on two points with `Z ≠ 1`, and its identity cases.
    #[test]
    fn general_addition_matches_p256() {
        let g = multiple(1);
        let g4 = g.to_jacobian().double().double();
        let g3 = g.to_jacobian().double().add_affine(&g, Choice::from(0));
        let o = Jacobian::IDENTITY;
        assert!(is(&g4.add(&g3), Some(&multiple(7))), "4G + 3G");
        assert!(is(&o.add(&g3), Some(&multiple(3))), "O + Q");
        assert!(is(&g4.add(&o), Some(&multiple(4))), "P + O");
        assert!(is(&o.add(&o), None), "O + O");
        let mut minus_g3 = g3;
        minus_g3.conditional_negate(Choice::from(1));
        assert!(is(&g3.add(&minus_g3), None), "3G − 3G");
    }

    /// A table holds `1·P … 16·P`.
    #[test]
    fn multiples_are_the_table() {
        let t = multiple(1).multiples();
        for (k, entry) in (1..=TABLE as u64).zip(t.iter()) {
            assert!(is(entry, Some(&multiple(k))), "{k}·G");
        }
    }
}
