//! The owner-branch oracle (suite version 1): a slot owner puts a point it does not know
//! the discrete log of into its `R_k` and reads the servers' secret multiple of it off the
//! reveal. On version 1 this test's forged ciphertext verified and the reveal gave
//! `C_att − (Σ z_j)·R'`, recovering the victim's earlier message; now it must be rejected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use verdict_group::{Group, Ristretto255, Scalar, SecretScalar};
use verdict_nizk::{Encoded, Or, Statement};

use crate::verifiable::{SlotParams, SuiteError};

use super::ciphertext::*;
use super::slot::ElGamalSlot;

type G = Ristretto255;
type S = <G as Group>::Scalar;

fn params(round: u64, slot: u32, elements: usize) -> SlotParams {
    SlotParams {
        session: [3; 32],
        round,
        slot,
        elements,
    }
}

/// The attacker's owner ciphertext `(R_k = p_k, C_k = c_k)`. It knows the slot's pseudonym
/// secret `y` but no discrete log of any `p_k`, and runs the owner prover on the statement
/// with the witnesses it has: `y` and, for the `r_k`, fresh guesses.
fn forged_owner(
    suite: &ElGamalSlot<G>,
    client: u32,
    y: &SecretScalar<S>,
    p: &[G],
    c: &[G],
    rng: &mut ChaCha20Rng,
) -> ClientCiphertext<G> {
    let r = Encoded::batch_new(p);
    let c = Encoded::batch_new(c);
    let key = Encoded::new(G::mul_generator(y.expose()));
    let [cover, owner] = suite.client_branches(&key, &r, &c).unwrap();
    let or = Or::new(vec![&cover as &dyn Statement<G>, &owner]).unwrap();
    let mut t = suite
        .slot
        .context(CLIENT_PURPOSE, &suite.suite, client)
        .transcript();
    let witness: Vec<S> = core::iter::once(*y.expose())
        .chain(p.iter().map(|_| S::random(&mut *rng)))
        .collect();
    let proof = or.prove(&mut t, 1, &witness, rng).unwrap();
    ClientCiphertext { r, c, proof }
}

#[test]
fn owner_branch_is_not_a_dh_oracle() {
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let l = 2;
    let z: Vec<SecretScalar<S>> = (0..3).map(|_| SecretScalar::random(&mut rng)).collect();
    let keys: Vec<G> = z.iter().map(|s| G::mul_generator(s.expose())).collect();

    // Round 1: honest client 0 owns slot 0 and sends a message; its ciphertext is public.
    let y0 = SecretScalar::random(&mut rng);
    let past = ElGamalSlot::<G>::new(params(1, 0, l), &keys).unwrap();
    let victim = past
        .owner_create(0, &y0, b"meet at the old mill", &mut rng)
        .unwrap();

    // Round 2: the attacker (client 2) owns slot 1 and copies the victim's R' into its R.
    let y1 = SecretScalar::random(&mut rng);
    let y1_pub = G::mul_generator(y1.expose());
    let now = ElGamalSlot::<G>::new(params(2, 1, l), &keys).unwrap();
    let p: Vec<G> = victim.randomness().iter().map(|e| *e.point()).collect();
    let c_att: Vec<G> = (0..l).map(|_| G::random(&mut rng)).collect();
    let evil = forged_owner(&now, 2, &y1, &p, &c_att, &mut rng);
    // It survives the wire (every point is valid) and is rejected by the proof check.
    let evil = ClientCiphertext::from_bytes(now.slot(), 2, &evil.to_bytes()).unwrap();
    assert_eq!(
        now.client_verify(2, &y1_pub, &evil),
        Err(SuiteError::ClientProof { client: 2 })
    );

    // Honest covers and an honest owner (same pseudonym secret) still verify, singly and
    // batched; a batch with the forgery in it names exactly the forger.
    let c0 = now.cover_create(0, &y1_pub, &mut rng).unwrap();
    let c1 = now.cover_create(1, &y1_pub, &mut rng).unwrap();
    let honest = now.owner_create(3, &y1, b"hello", &mut rng).unwrap();
    for (i, ct) in [(0, &c0), (1, &c1), (3, &honest)] {
        assert_eq!(now.client_verify(i, &y1_pub, ct), Ok(()), "client {i}");
    }
    let good = vec![(0, &c0), (1, &c1), (3, &honest)];
    assert_eq!(now.client_verify_batch(&y1_pub, &good, &mut rng), Ok(()));
    let mixed = vec![(0, &c0), (2, &evil), (1, &c1), (3, &honest)];
    assert_eq!(
        now.client_verify_batch(&y1_pub, &mixed, &mut rng),
        Err(SuiteError::ClientProofs { clients: vec![2] })
    );

    // The honest round (the forger excluded) reveals the owner's message.
    let scts: Vec<ServerCiphertext<G>> = z
        .iter()
        .enumerate()
        .map(|(j, zj)| now.server_create(j as u32, zj, &good, &mut rng).unwrap())
        .collect();
    let servers: Vec<(u32, &ServerCiphertext<G>)> = scts
        .iter()
        .enumerate()
        .map(|(j, d)| (j as u32, d))
        .collect();
    assert_eq!(now.reveal(&good, &servers), Ok(b"hello".to_vec()));
}

/// The attacker cannot dodge the check by using the cover branch instead: with `R_k = P`
/// it knows no `r_k` for `R_k = r_k·g ∧ C_k = r_k·Z` either.
#[test]
fn cover_branch_with_foreign_r_is_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(78);
    let keys = [G::random(&mut rng)];
    let y_pub = G::random(&mut rng);
    let suite = ElGamalSlot::<G>::new(params(2, 1, 2), &keys).unwrap();
    let p: Vec<G> = (0..2).map(|_| G::random(&mut rng)).collect();
    let r = Encoded::batch_new(&p);
    let c = Encoded::batch_new(&p.iter().map(|pk| *pk * S::from_u64(5)).collect::<Vec<_>>());
    let [cover, owner] = suite.client_branches(&Encoded::new(y_pub), &r, &c).unwrap();
    let or = Or::new(vec![&cover as &dyn Statement<G>, &owner]).unwrap();
    let mut t = suite
        .slot
        .context(CLIENT_PURPOSE, &suite.suite, 4)
        .transcript();
    let guesses: Vec<S> = (0..2).map(|_| S::random(&mut rng)).collect();
    let proof = or.prove(&mut t, 0, &guesses, &mut rng).unwrap();
    let forged = ClientCiphertext { r, c, proof };
    assert_eq!(
        suite.client_verify(4, &y_pub, &forged),
        Err(SuiteError::ClientProof { client: 4 })
    );
}

/// The encryption randomness is hedged: a client whose RNG repeats (here: the same seed for
/// two ciphertexts) still draws different `r_k` in another round or slot, because the fork
/// binds the slot's context; with the same context and stream the ciphertext is reproduced.
#[test]
fn a_repeating_rng_does_not_repeat_the_encryption_randomness() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let keys: Vec<G> = (0..2).map(|_| G::random(&mut rng)).collect();
    let pseudonym = G::random(&mut rng);
    let cover = |round: u64, slot: u32| {
        let suite = ElGamalSlot::<G>::new(params(round, slot, 2), &keys).unwrap();
        let mut stuck = ChaCha20Rng::seed_from_u64(99);
        suite
            .cover_create(0, &pseudonym, &mut stuck)
            .unwrap()
            .to_bytes()
    };
    let r_part = |ct: &[u8]| ct[..2 * G::ENCODED_LEN].to_vec();
    assert_eq!(
        cover(1, 0),
        cover(1, 0),
        "same context, same stream: same bytes"
    );
    assert_ne!(r_part(&cover(1, 0)), r_part(&cover(2, 0)), "another round");
    assert_ne!(r_part(&cover(1, 0)), r_part(&cover(1, 1)), "another slot");
}
