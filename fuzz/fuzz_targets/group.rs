//! Group elements and scalars of every group: ristretto255, P-256, BLS12-381 G1/G2/GT.
//! Input: a selector byte, then the candidate encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict_fuzz::round_trip;
use verdict_group::{Bls12381G1, Bls12381G2, Bls12381Gt, Group, P256, Ristretto255, Scalar};
use verdict_nizk::Encoded;

fn point<G: Group>(bytes: &[u8]) {
    let p = round_trip(G::NAME, bytes, G::from_bytes, |p: &G| {
        p.to_bytes().as_ref().to_vec()
    });
    let nonid = G::from_bytes_nonidentity(bytes);
    if let Some(p) = p {
        assert_eq!(nonid.is_ok(), !p.is_identity());
        // The batch encoder agrees with the single one.
        assert_eq!(G::batch_to_bytes(&[p])[0].as_ref(), bytes);
        // Arithmetic on any accepted element stays in the group.
        let q = p + p - p;
        assert_eq!(q, p);
    } else {
        assert!(nonid.is_err());
    }
    round_trip(
        "encoded",
        bytes,
        Encoded::<G>::from_bytes,
        |e: &Encoded<G>| e.as_bytes().to_vec(),
    );
}

fn scalar<S: Scalar>(bytes: &[u8]) {
    if let Some(s) = round_trip("scalar", bytes, S::from_bytes, |s: &S| {
        s.to_bytes().as_ref().to_vec()
    }) {
        assert_eq!(s - s, S::zero());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    match sel % 9 {
        0 => point::<Ristretto255>(bytes),
        1 => scalar::<<Ristretto255 as Group>::Scalar>(bytes),
        2 => point::<P256>(bytes),
        3 => scalar::<<P256 as Group>::Scalar>(bytes),
        4 => point::<Bls12381G1>(bytes),
        5 => scalar::<<Bls12381G1 as Group>::Scalar>(bytes),
        6 => point::<Bls12381G2>(bytes),
        7 => point::<Bls12381Gt>(bytes),
        _ => {
            // Uniform-bytes reduction and hashing never panic on any input.
            let mut wide = [0u8; 64];
            let n = bytes.len().min(64);
            wide[..n].copy_from_slice(&bytes[..n]);
            let _ = <Ristretto255 as Group>::Scalar::from_uniform_bytes(&wide);
            let _ = <P256 as Group>::Scalar::from_uniform_bytes(&wide);
            let _ = <Bls12381G1 as Group>::Scalar::from_uniform_bytes(&wide);
        }
    }
});
