//! verdict-nizk wire formats: proofs of any shape, OR proofs, signatures, verifying keys and
//! key registrations, on ristretto255 and P-256; decoded proofs are also run through the
//! verifiers (which must reject, never panic).
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict_fuzz::{round_trip, split};
use verdict_group::{Group, P256, Ristretto255};
use verdict_nizk::{
    Context, KeyRegistration, Or, OrProof, Proof, Schnorr, Shape, Signature, Statement,
    VerifyingKey,
};

fn ctx() -> Context {
    Context::new(b"verdict-fuzz", [1u8; 32])
}

fn run<G: Group>(kind: u8, param: u8, bytes: &[u8]) {
    match kind % 6 {
        0 => {
            let shape = Shape {
                commitments_g: usize::from(param & 3),
                commitments_h: usize::from((param >> 2) & 3),
                responses: usize::from((param >> 4) & 7),
            };
            round_trip(
                "proof",
                bytes,
                |b| Proof::<G>::from_bytes(b, shape),
                Proof::to_bytes,
            );
        }
        1 => {
            let st = Schnorr::<G>::with_generator(G::generator());
            if let Some(p) = round_trip(
                "schnorr proof",
                bytes,
                |b| st.decode_proof(b),
                Proof::to_bytes,
            ) {
                let _ = st.verify(&mut ctx().transcript(), &p);
            }
        }
        2 => {
            let a = Schnorr::<G>::with_generator(G::generator());
            let b = Schnorr::<G>::with_generator(G::generator() + G::generator());
            let Ok(or) = Or::new(vec![&a as &dyn Statement<G>, &b]) else {
                return;
            };
            if let Some(p) =
                round_trip("or proof", bytes, |x| or.decode_proof(x), OrProof::to_bytes)
            {
                let _ = or.verify(&mut ctx().transcript(), &p);
            }
        }
        3 => {
            if let Some(sig) = round_trip(
                "signature",
                bytes,
                Signature::<G>::from_bytes,
                Signature::to_bytes,
            ) {
                let key = VerifyingKey::<G>::from_point(G::generator());
                if let Some(key) = key {
                    let _ = key.verify(b"fuzz", b"message", &sig);
                }
            }
        }
        4 => {
            round_trip(
                "verifying key",
                bytes,
                VerifyingKey::<G>::from_bytes,
                VerifyingKey::to_bytes,
            );
        }
        _ => {
            round_trip(
                "key registration",
                bytes,
                KeyRegistration::<G>::from_bytes,
                KeyRegistration::to_bytes,
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((sel, param, bytes)) = split(data) else {
        return;
    };
    if sel & 0x80 == 0 {
        run::<Ristretto255>(sel, param, bytes);
    } else {
        run::<P256>(sel, param, bytes);
    }
});
