//! Small helpers shared by the proofs.

use verdict_group::{Group, Scalar};
use zeroize::Zeroizing;

use crate::error::ShuffleError;

/// Inverts every scalar with one field inversion (Montgomery's trick); `None` if any is zero.
///
/// The inputs may be secret (the prover's `ŷᵢ`), so the prefix products and the running
/// inverse are wiped before returning; the caller keeps the result in a `Zeroizing` if it is.
pub(crate) fn batch_invert<S: Scalar>(xs: &[S]) -> Option<Vec<S>> {
    let mut prefix = Zeroizing::new(Vec::with_capacity(xs.len()));
    let mut acc = Zeroizing::new(S::one());
    for x in xs {
        if x.is_zero() {
            return None;
        }
        prefix.push(*acc);
        *acc *= *x;
    }
    let mut inv = Zeroizing::new(acc.invert()?);
    let mut out = vec![S::zero(); xs.len()];
    for i in (0..xs.len()).rev() {
        out[i] = *inv * prefix[i];
        *inv *= xs[i];
    }
    Some(out)
}

/// The canonical encodings of `points`, concatenated.
/// (A shuffle's list is thousands of points: encoded in parallel batches with the `parallel`
/// feature; encodings are canonical, so the split changes nothing but the time.)
pub(crate) fn encode_flat<G: Group>(points: &[G]) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * G::ENCODED_LEN);
    for batch in verdict_group::par::chunked(points, 64, G::batch_to_bytes) {
        for r in batch {
            out.extend_from_slice(r.as_ref());
        }
    }
    out
}

/// The concatenation of already computed encodings.
pub(crate) fn concat_reprs<G: Group>(reprs: &[G::Repr]) -> Vec<u8> {
    let mut out = Vec::with_capacity(reprs.len() * G::ENCODED_LEN);
    for r in reprs {
        out.extend_from_slice(r.as_ref());
    }
    out
}

/// `Ok` if `actual == expected`, else a [`ShuffleError::LengthMismatch`] naming `what`.
pub(crate) fn check_len(
    what: &'static str,
    expected: usize,
    actual: usize,
) -> Result<(), ShuffleError> {
    if expected == actual {
        Ok(())
    } else {
        Err(ShuffleError::LengthMismatch {
            what,
            expected,
            actual,
        })
    }
}

/// `Ok` if `p` is a permutation of `0..p.len()`.
pub(crate) fn check_permutation(p: &[usize]) -> Result<(), ShuffleError> {
    let mut seen = vec![false; p.len()];
    for &j in p {
        match seen.get_mut(j) {
            Some(s) if !*s => *s = true,
            _ => return Err(ShuffleError::InvalidPermutation),
        }
    }
    Ok(())
}

/// A uniformly random permutation of `0..n` (Fisher–Yates with rejection sampling).
pub(crate) fn random_permutation<R: rand_core::RngCore + ?Sized>(
    n: usize,
    rng: &mut R,
) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = uniform_below(i as u64 + 1, rng) as usize;
        p.swap(i, j);
    }
    p
}

/// A uniform integer in `0..n` (`n ≥ 1`), without modulo bias.
fn uniform_below<R: rand_core::RngCore + ?Sized>(n: u64, rng: &mut R) -> u64 {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let v = rng.next_u64();
        if v < zone {
            return v % n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use verdict_group::Ristretto255;

    type S = <Ristretto255 as Group>::Scalar;

    #[test]
    fn batch_inversion_matches_single() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let xs: Vec<S> = (0..17).map(|_| S::random(&mut rng)).collect();
        let inv = batch_invert(&xs).unwrap();
        for (x, i) in xs.iter().zip(&inv) {
            assert_eq!(*x * *i, S::one());
        }
        let mut with_zero = xs.clone();
        with_zero[5] = S::zero();
        assert!(batch_invert(&with_zero).is_none());
    }

    #[test]
    fn permutations() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(4);
        let p = random_permutation(100, &mut rng);
        check_permutation(&p).unwrap();
        assert_ne!(p, (0..100).collect::<Vec<_>>());
        assert!(check_permutation(&[0, 0]).is_err());
        assert!(check_permutation(&[0, 2]).is_err());
    }
}
