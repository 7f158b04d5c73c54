//! From Jacobian to affine coordinates in batches, with one field inversion per batch
//! (Montgomery's trick): the ladder's secret-dependent results, and the tables of its public
//! bases.
//!
//! # Constant time
//!
//! Both directions use `field.rs`'s constant-time operations, including its inversion by a
//! fixed exponentiation. For the results that matters: their coordinates depend on the secret
//! scalar. Only whether a result is the identity is a branch (see `ct.rs` on what the caller
//! reveals anyway). For the tables it does not: they are multiples of public bases.

use p256_rustcrypto::elliptic_curve::subtle::ConditionallySelectable;
use zeroize::{Zeroize, Zeroizing};

use super::field::Fe;
use super::jacobian::{Affine, Jacobian, TABLE, Table};

/// Affine coordinates `x ‖ y` of a point, each canonical big-endian.
pub(super) type AffineBytes = Zeroizing<[u8; 64]>;

/// `zᵢ⁻¹` for every `zᵢ`, all non-zero, with one inversion: `3(n − 1)` multiplications.
fn invert_each(zs: &[Fe]) -> Zeroizing<Vec<Fe>> {
    // prefix[i] = z₀ ⋯ zᵢ₋₁
    let mut prefix: Zeroizing<Vec<Fe>> = Zeroizing::new(Vec::with_capacity(zs.len()));
    let mut running = Fe::ONE;
    for z in zs {
        prefix.push(running);
        running = running.mul(z);
    }
    // Every factor is non-zero, so the product is invertible.
    let mut inverse = running.invert();
    let mut inverses: Zeroizing<Vec<Fe>> = Zeroizing::new(vec![Fe::ZERO; zs.len()]);
    for i in (0..zs.len()).rev() {
        inverses[i] = inverse.mul(&prefix[i]);
        inverse = inverse.mul(&zs[i]);
    }
    inverse.zeroize();
    running.zeroize();
    inverses
}

/// `(X/Z², Y/Z³)` for a point with `Z⁻¹ = zinv`.
fn affine(p: &Jacobian, zinv: &Fe) -> (Fe, Fe) {
    let (x, y, _) = p.coordinates();
    let mut zinv2 = zinv.square();
    let affine = (x.mul(&zinv2), y.mul(&zinv2.mul(zinv)));
    zinv2.zeroize();
    affine
}

/// Affine coordinates of every point, `None` for the identity, with one constant-time
/// inversion for the whole batch (a zero `Z` is replaced by one before the products and its
/// result discarded after).
pub(super) fn normalize_batch(points: &[Jacobian]) -> Vec<Option<AffineBytes>> {
    let zs: Zeroizing<Vec<Fe>> = Zeroizing::new(
        points
            .iter()
            .map(|p| {
                let z = p.coordinates().2;
                Fe::conditional_select(&z, &Fe::ONE, z.is_zero())
            })
            .collect(),
    );
    let inverses = invert_each(&zs);
    let mut out = Vec::with_capacity(points.len());
    for (p, zinv) in points.iter().zip(inverses.iter()) {
        // The identity test is a branch: see `ct.rs` on what the caller reveals anyway.
        if bool::from(p.coordinates().2.is_zero()) {
            out.push(None);
            continue;
        }
        let (mut x, mut y) = affine(p, zinv);
        let mut xy = Zeroizing::new([0u8; 64]);
        xy[..32].copy_from_slice(&Zeroizing::new(x.to_bytes()));
        xy[32..].copy_from_slice(&Zeroizing::new(y.to_bytes()));
        x.zeroize();
        y.zeroize();
        out.push(Some(xy));
    }
    out
}

/// The affine multiples `1·B … 16·B` of every base, with one inversion for all of them (an
/// affine base is never the identity: the ladder substitutes a stand-in for that). The bases
/// are public, and so are the tables: nothing here is secret.
pub(super) fn tables(bases: &[Affine]) -> Vec<Table> {
    let multiples: Vec<Jacobian> = bases.iter().flat_map(Affine::multiples).collect();
    let zs: Vec<Fe> = multiples.iter().map(|p| p.coordinates().2).collect();
    let inverses = invert_each(&zs);
    multiples
        .chunks_exact(TABLE)
        .zip(inverses.chunks_exact(TABLE))
        .map(|(points, zinvs)| {
            core::array::from_fn(|e| {
                let (x, y) = affine(&points[e], &zinvs[e]);
                Affine::new(x, y)
            })
        })
        .collect()
}
