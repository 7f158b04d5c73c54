//! The pseudonym-key shuffle end to end, and blame for every kind of bad step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{Group, Ristretto255 as G, Scalar};
use verdict_nizk::SigningKey;
use verdict_shuffle::keyshuffle::{ShuffleStep, client_submit, server_shuffle};
use verdict_shuffle::{
    Ciphertext, CiphertextList, KeyPair, KeyShuffle, KeyShuffleError, KeyShuffleParams, Phase,
};

struct Setup {
    servers: Vec<KeyPair<G>>,
    params: KeyShuffleParams<G>,
    keys: Vec<SigningKey<G>>,
    subs: Vec<Vec<u8>>,
}

fn setup(m: usize, n: usize, rng: &mut ChaCha20Rng) -> Setup {
    let servers: Vec<KeyPair<G>> = (0..m).map(|_| KeyPair::generate(rng)).collect();
    let params =
        KeyShuffleParams::new([3u8; 32], servers.iter().map(KeyPair::public).collect(), n).unwrap();
    let (keys, subs) = (0..n as u32)
        .map(|c| {
            let (k, s) = client_submit(&params, c, rng).unwrap();
            (k, s.to_bytes())
        })
        .unzip();
    Setup {
        servers,
        params,
        keys,
        subs,
    }
}

fn run(m: usize, n: usize, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let s = setup(m, n, &mut rng);
    let mut ks = KeyShuffle::new(s.params.clone());
    for (c, b) in s.subs.iter().enumerate() {
        ks.receive_submission(c as u32, b).unwrap();
    }
    ks.close_submissions().unwrap();
    for j in 0..m as u32 {
        assert_eq!(ks.phase(), Phase::Shuffle { server: j as usize });
        let msg = ks.make_shuffle(j, &mut rng).unwrap();
        ks.receive_shuffle(j, &msg).unwrap();
    }
    assert_eq!(ks.phase(), Phase::Decryption);
    // Decryption shares in reverse order: any order works.
    for j in (0..m as u32).rev() {
        let msg = ks
            .make_decryption(j, &s.servers[j as usize], &mut rng)
            .unwrap();
        ks.receive_decryption(j, &msg).unwrap();
    }
    assert_eq!(ks.phase(), Phase::Done);
    let slots = ks.slots().unwrap();
    assert_eq!(slots.len(), n);
    let mut seen = vec![false; n];
    for k in &s.keys {
        let slot = ks
            .slot_of(k.verifying_key().point())
            .expect("every client finds its slot");
        assert!(!seen[slot]);
        seen[slot] = true;
    }
    let enc: Vec<_> = slots.iter().map(Group::to_bytes).collect();
    assert!(
        enc.windows(2).all(|w| w[0] < w[1]),
        "slots sorted by encoding"
    );
}

#[test]
fn completeness_m1_m2_m5() {
    run(1, 2, 1);
    run(2, 3, 2);
    run(5, 10, 3);
    run(2, 100, 4);
}

fn ready_to_shuffle(s: &Setup) -> KeyShuffle<G> {
    let mut ks = KeyShuffle::new(s.params.clone());
    for (c, b) in s.subs.iter().enumerate() {
        ks.receive_submission(c as u32, b).unwrap();
    }
    ks.close_submissions().unwrap();
    ks
}

#[test]
fn copied_or_rerandomized_submissions_are_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let s = setup(2, 4, &mut rng);
    let mut ks = KeyShuffle::new(s.params.clone());
    ks.receive_submission(0, &s.subs[0]).unwrap();
    // Client 1 replays client 0's bytes: the proof is bound to client 0.
    assert_eq!(
        ks.receive_submission(1, &s.subs[0]).unwrap_err(),
        KeyShuffleError::InvalidSubmission {
            client: 1,
            reason: "proof of knowledge rejected"
        }
    );
    // Client 1 re-randomizes client 0's ciphertext and reuses the proof.
    let mut b = s.subs[0].clone();
    let sub = verdict_shuffle::keyshuffle::Submission::<G>::from_bytes(&b).unwrap();
    let re = sub
        .ciphertext()
        .rerandomize(&s.params.joint_key(), &<G as Group>::Scalar::from_u64(7));
    b[4..36].copy_from_slice(&re.x.to_bytes());
    b[36..68].copy_from_slice(&re.y.to_bytes());
    assert!(matches!(
        ks.receive_submission(1, &b),
        Err(KeyShuffleError::InvalidSubmission { client: 1, .. })
    ));
    // Double submission, out-of-roster client, garbage.
    assert_eq!(
        ks.receive_submission(0, &s.subs[0]).unwrap_err(),
        KeyShuffleError::DuplicateSubmission { client: 0 }
    );
    assert!(matches!(
        ks.receive_submission(9, &s.subs[1]),
        Err(KeyShuffleError::InvalidSubmission { client: 9, .. })
    ));
    assert!(matches!(
        ks.receive_submission(1, &[1, 2, 3]),
        Err(KeyShuffleError::Malformed { .. })
    ));
    ks.receive_submission(1, &s.subs[1]).unwrap();
    // Only two clients submitted: the shuffle runs with them.
    ks.close_submissions().unwrap();
    assert_eq!(ks.participants(), &[0, 1]);
    assert!(ks.receive_submission(2, &s.subs[2]).is_err());
}

#[test]
fn bad_shuffles_name_the_server() {
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let s = setup(3, 6, &mut rng);
    let mut ks = ready_to_shuffle(&s);
    let m0 = ks.make_shuffle(0, &mut rng).unwrap();
    // Out of turn.
    assert!(matches!(
        ks.receive_shuffle(1, &m0),
        Err(KeyShuffleError::OutOfOrder(_))
    ));
    ks.receive_shuffle(0, &m0).unwrap();
    let input = ks.current_list().unwrap().clone();
    // Server 1 replays server 0's step as its own (different inputs, different prover).
    assert!(matches!(
        ks.receive_shuffle(1, &m0),
        Err(KeyShuffleError::InvalidShuffle { server: 1, .. })
    ));
    // Server 1 proves as server 2 (a proof made for another prover index).
    let step = server_shuffle(&s.params, 2, &input, &mut rng).unwrap();
    assert!(matches!(
        ks.receive_shuffle(1, &step.to_bytes()),
        Err(KeyShuffleError::InvalidShuffle { server: 1, .. })
    ));
    // Server 1 tags its outputs after proving.
    let mut step = server_shuffle(&s.params, 1, &input, &mut rng).unwrap();
    let tagged: Vec<Ciphertext<G>> = step
        .outputs
        .iter()
        .map(|c| c.scale(&<G as Group>::Scalar::from_u64(3)))
        .collect();
    let honest = step.clone();
    step.outputs = CiphertextList::new(tagged);
    assert!(matches!(
        ks.receive_shuffle(1, &step.to_bytes()),
        Err(KeyShuffleError::InvalidShuffle { server: 1, .. })
    ));
    // Swapped outputs.
    let mut v = honest.outputs.to_vec();
    v.swap(0, 5);
    let swapped = ShuffleStep {
        outputs: CiphertextList::new(v),
        proof: honest.proof.clone(),
    };
    assert!(matches!(
        ks.receive_shuffle(1, &swapped.to_bytes()),
        Err(KeyShuffleError::InvalidShuffle { server: 1, .. })
    ));
    // Truncated message.
    let b = honest.to_bytes();
    assert!(matches!(
        ks.receive_shuffle(1, &b[..b.len() - 3]),
        Err(KeyShuffleError::Malformed { .. })
    ));
    // The honest step still goes through: failures did not change the state.
    ks.receive_shuffle(1, &b).unwrap();
    assert_eq!(ks.phase(), Phase::Shuffle { server: 2 });
}

#[test]
fn bad_decryption_shares_name_the_server() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let s = setup(2, 4, &mut rng);
    let mut ks = ready_to_shuffle(&s);
    for j in 0..2 {
        let m = ks.make_shuffle(j, &mut rng).unwrap();
        ks.receive_shuffle(j, &m).unwrap();
    }
    // Server 1 uses server 0's key: rejected by the roster check before proving.
    assert!(matches!(
        ks.make_decryption(1, &s.servers[0], &mut rng),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 1, .. })
    ));
    let d0 = ks.make_decryption(0, &s.servers[0], &mut rng).unwrap();
    // Server 1 presents server 0's shares as its own.
    assert!(matches!(
        ks.receive_decryption(1, &d0),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 1, .. })
    ));
    // A tampered share (replace share 2 with the generator).
    let mut bad = d0.clone();
    let at = 8 + 2 * 32;
    bad[at..at + 32].copy_from_slice(&G::generator().to_bytes());
    assert!(matches!(
        ks.receive_decryption(0, &bad),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 0, .. })
    ));
    ks.receive_decryption(0, &d0).unwrap();
    assert!(matches!(
        ks.receive_decryption(0, &d0),
        Err(KeyShuffleError::OutOfOrder(_))
    ));
    let d1 = ks.make_decryption(1, &s.servers[1], &mut rng).unwrap();
    ks.receive_decryption(1, &d1).unwrap();
    assert_eq!(ks.phase(), Phase::Done);
}

#[test]
fn parameters_are_checked() {
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let k = KeyPair::<G>::generate(&mut rng).public();
    assert!(KeyShuffleParams::<G>::new([0; 32], vec![], 5).is_err());
    assert!(KeyShuffleParams::<G>::new([0; 32], vec![k], 1).is_err());
    assert!(KeyShuffleParams::<G>::new([0; 32], vec![G::identity()], 5).is_err());
    assert!(KeyShuffleParams::<G>::new([0; 32], vec![k, -k], 5).is_err());
    let p = KeyShuffleParams::<G>::new([0; 32], vec![k], 3).unwrap();
    let mut ks = KeyShuffle::new(p);
    assert!(ks.close_submissions().is_err());
}

/// Runs the whole shuffle over the given submissions and returns the slots.
fn slots_of(s: &Setup, subs: &[Vec<u8>], rng: &mut ChaCha20Rng) -> Vec<G> {
    let mut ks = KeyShuffle::new(s.params.clone());
    for (c, b) in subs.iter().enumerate() {
        ks.receive_submission(c as u32, b).unwrap();
    }
    ks.close_submissions().unwrap();
    for j in 0..s.servers.len() as u32 {
        let msg = ks.make_shuffle(j, rng).unwrap();
        ks.receive_shuffle(j, &msg).unwrap();
    }
    for j in 0..s.servers.len() as u32 {
        let msg = ks.make_decryption(j, &s.servers[j as usize], rng).unwrap();
        ks.receive_decryption(j, &msg).unwrap();
    }
    assert_eq!(ks.phase(), Phase::Done);
    // The encoded keys are the slots, each with its canonical encoding.
    let keys = ks.slot_keys().unwrap();
    let points: Vec<G> = keys.iter().map(|k| *k.point()).collect();
    assert_eq!(points, ks.slots().unwrap());
    for k in keys {
        assert_eq!(k.as_bytes(), k.point().to_bytes().as_ref());
    }
    ks.slots().unwrap().to_vec()
}

#[test]
fn identity_and_shared_pseudonym_keys_are_dropped_not_fatal() {
    use verdict_group::SecretScalar;
    use verdict_shuffle::keyshuffle::submit_pseudonym;
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let s = setup(2, 6, &mut rng);
    let mut subs = s.subs.clone();
    // Client 1 encrypts the identity (a valid proof with y = 0); clients 3 and 4 share a key.
    let zero = SecretScalar::new(<G as Group>::Scalar::zero());
    subs[1] = submit_pseudonym(&s.params, 1, &zero, &mut rng)
        .unwrap()
        .to_bytes();
    let shared = SecretScalar::new(<G as Group>::Scalar::random(&mut rng));
    for c in [3, 4] {
        subs[c] = submit_pseudonym(&s.params, c as u32, &shared, &mut rng)
            .unwrap()
            .to_bytes();
    }
    // The slots open alike on one and two threads (keys summed and encoded in parallel).
    let on = |threads| {
        verdict_group::par::with_threads(threads, || {
            slots_of(&s, &subs, &mut ChaCha20Rng::seed_from_u64(78))
        })
        .unwrap()
    };
    let slots = on(1);
    assert_eq!(on(2), slots);
    // The three honest clients keep a slot each; the identity and both copies are gone.
    assert_eq!(slots.len(), 3);
    for c in [0, 2, 5] {
        assert!(
            slots.contains(s.keys[c].verifying_key().point()),
            "client {c}"
        );
    }
    assert!(slots.iter().all(|p| !p.is_identity()));
    assert!(!slots.contains(&G::mul_generator(shared.expose())));
}

/// Two colluding clients sharing a secret and an encryption nonce produce byte-identical
/// ciphertexts, each with a valid proof bound to its own index. The second is refused as a
/// duplicate (the submission guard compares ciphertexts, not only the submitting index).
#[test]
fn identical_ciphertexts_from_two_clients_are_refused() {
    use verdict_shuffle::keyshuffle::submit_pseudonym;
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let s = setup(2, 3, &mut rng);
    let key = SigningKey::<G>::generate(&mut rng);
    let a = submit_pseudonym(
        &s.params,
        0,
        key.secret(),
        &mut ChaCha20Rng::seed_from_u64(9),
    )
    .unwrap();
    let b = submit_pseudonym(
        &s.params,
        1,
        key.secret(),
        &mut ChaCha20Rng::seed_from_u64(9),
    )
    .unwrap();
    assert_eq!(a.ciphertext(), b.ciphertext());
    assert!(verdict_shuffle::keyshuffle::verify_submission(&s.params, 1, &b).is_ok());
    let mut ks = KeyShuffle::new(s.params.clone());
    ks.receive_submission(0, &a.to_bytes()).unwrap();
    assert_eq!(
        ks.receive_submission(1, &b.to_bytes()).unwrap_err(),
        KeyShuffleError::DuplicateSubmission { client: 1 }
    );
    // Client 1 can still submit a fresh key.
    ks.receive_submission(1, &s.subs[1]).unwrap();
    // The same guard for submissions built in memory (encoded when built, not decoded), and
    // between a decoded one and a built one.
    let mut ks = KeyShuffle::new(s.params.clone());
    ks.accept_submission(0, a.clone()).unwrap();
    assert_eq!(
        ks.accept_submission(1, b.clone()).unwrap_err(),
        KeyShuffleError::DuplicateSubmission { client: 1 }
    );
    let mut ks = KeyShuffle::new(s.params.clone());
    let decoded = ks.check_submission(0, &a.to_bytes()).unwrap();
    ks.accept_submission(0, decoded).unwrap();
    assert_eq!(
        ks.accept_submission(1, b).unwrap_err(),
        KeyShuffleError::DuplicateSubmission { client: 1 }
    );
}

/// The standalone decryption-step verifier (used by anyone checking a published step against a
/// list): an honest step passes; a server publishing wrong shares, another server's step, or a
/// step for another list is rejected and named.
#[test]
fn standalone_decryption_step_verifier_rejects_wrong_steps() {
    use verdict_shuffle::keyshuffle::{DecryptionStep, server_decrypt, verify_decryption_step};
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    let s = setup(2, 3, &mut rng);
    let mut ks = ready_to_shuffle(&s);
    for j in 0..2 {
        let m = ks.make_shuffle(j, &mut rng).unwrap();
        ks.receive_shuffle(j, &m).unwrap();
    }
    let list = ks.current_list().unwrap().clone();
    let honest = server_decrypt(&s.params, 0, &s.servers[0], &list, &mut rng).unwrap();
    assert_eq!(verify_decryption_step(&s.params, 0, &list, &honest), Ok(()));
    // Server 1's honest step is not server 0's.
    let other = server_decrypt(&s.params, 1, &s.servers[1], &list, &mut rng).unwrap();
    assert!(matches!(
        verify_decryption_step(&s.params, 0, &list, &other),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 0, .. })
    ));
    // A wrong share with the honest proof.
    let mut bytes = honest.to_bytes();
    let at = 8 + 32;
    bytes[at..at + 32].copy_from_slice(&G::generator().to_bytes());
    let wrong = DecryptionStep::<G>::from_bytes(&bytes, list.len()).unwrap();
    assert!(matches!(
        verify_decryption_step(&s.params, 0, &list, &wrong),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 0, .. })
    ));
    // The honest step checked against a different list (the first shuffle's input).
    let first = ready_to_shuffle(&s).current_list().unwrap().clone();
    assert!(matches!(
        verify_decryption_step(&s.params, 0, &first, &honest),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 0, .. })
    ));
    // Out-of-roster server index.
    assert!(matches!(
        verify_decryption_step(&s.params, 7, &list, &honest),
        Err(KeyShuffleError::InvalidDecryptionShare { server: 7, .. })
    ));
}
