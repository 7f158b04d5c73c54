//! Direct tests of the ElGamal-style suite's six operations (before the generic harness).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::elgamal::{
    ClientCiphertext, ElGamalSlot, ServerCiphertext, client_ciphertext_len,
};
use verdict_dcnet::verifiable::{Culprit, SlotParams, SuiteError};
use verdict_group::{FrameError, Group, MessageGroup, P256, Ristretto255, Scalar, SecretScalar};

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn slot(round: u64, slot: u32, elements: usize) -> SlotParams {
    SlotParams {
        session: [7; 32],
        round,
        slot,
        elements,
    }
}

struct Setup<G: Group> {
    server_secrets: Vec<SecretScalar<G::Scalar>>,
    server_keys: Vec<G>,
    y: SecretScalar<G::Scalar>,
    y_pub: G,
}

fn setup<G: Group>(m: usize, r: &mut ChaCha20Rng) -> Setup<G> {
    let server_secrets: Vec<_> = (0..m).map(|_| SecretScalar::random(r)).collect();
    let server_keys = server_secrets
        .iter()
        .map(|s| G::mul_generator(s.expose()))
        .collect();
    let y = SecretScalar::random(r);
    let y_pub = G::mul_generator(y.expose());
    Setup {
        server_secrets,
        server_keys,
        y,
        y_pub,
    }
}

/// One full round: every client in `online` submits (client `owner` with `message`), servers
/// verify, combine over `online`, verify each other, reveal.
fn round<G: MessageGroup>(
    n: u32,
    m: usize,
    l: usize,
    owner: Option<u32>,
    message: &[u8],
    seed: u64,
) -> Result<Vec<u8>, SuiteError> {
    let mut r = rng(seed);
    let s = setup::<G>(m, &mut r);
    let suite = ElGamalSlot::new(slot(3, 1, l), &s.server_keys).unwrap();
    let cts: Vec<ClientCiphertext<G>> = (0..n)
        .map(|i| {
            if Some(i) == owner {
                suite.owner_create(i, &s.y, message, &mut r).unwrap()
            } else {
                suite.cover_create(i, &s.y_pub, &mut r).unwrap()
            }
        })
        .collect();
    // Wire round trip, then eager verification.
    let cts: Vec<ClientCiphertext<G>> = cts
        .iter()
        .enumerate()
        .map(|(i, ct)| {
            ClientCiphertext::from_bytes(suite.slot(), i as u32, &ct.to_bytes()).unwrap()
        })
        .collect();
    for (i, ct) in cts.iter().enumerate() {
        suite.client_verify(i as u32, &s.y_pub, ct)?;
    }
    let accepted: Vec<(u32, &ClientCiphertext<G>)> =
        cts.iter().enumerate().map(|(i, c)| (i as u32, c)).collect();
    suite.client_verify_batch(&s.y_pub, &accepted, &mut r)?;
    let scts: Vec<ServerCiphertext<G>> = s
        .server_secrets
        .iter()
        .enumerate()
        .map(|(j, z)| {
            let sct = suite.server_create(j as u32, z, &accepted, &mut r).unwrap();
            ServerCiphertext::from_bytes(suite.slot(), j as u32, &sct.to_bytes()).unwrap()
        })
        .collect();
    for (j, sct) in scts.iter().enumerate() {
        suite.server_verify(j as u32, &s.server_keys[j], &accepted, sct)?;
    }
    let servers: Vec<(u32, &ServerCiphertext<G>)> = scts
        .iter()
        .enumerate()
        .map(|(j, c)| (j as u32, c))
        .collect();
    suite.reveal(&accepted, &servers)
}

fn integrity<G: MessageGroup>(seed: u64) {
    for (n, m) in [(2, 1), (2, 3), (10, 1), (10, 3)] {
        for l in [1, 3] {
            let cap = verdict_group::framing::max_message_len::<G>(l);
            let msg: Vec<u8> = (0..cap).map(|b| b as u8 ^ 0x5a).collect();
            let out = round::<G>(n, m, l, Some(n - 1), &msg, seed + n as u64).unwrap();
            assert_eq!(out, msg, "N={n} M={m} L={l}");
        }
    }
    // Nobody owns the slot this round: the reveal is empty.
    assert_eq!(
        round::<G>(3, 2, 2, None, b"", seed),
        Err(SuiteError::Frame(FrameError::Empty))
    );
}

#[test]
fn integrity_ristretto255() {
    integrity::<Ristretto255>(10);
}

#[test]
fn integrity_p256() {
    integrity::<P256>(20);
}

#[test]
fn soundness_and_replay() {
    type G = Ristretto255;
    let mut r = rng(1);
    let s = setup::<G>(2, &mut r);
    let here = slot(5, 2, 2);
    let suite = ElGamalSlot::<G>::new(here, &s.server_keys).unwrap();
    let cover = suite.cover_create(4, &s.y_pub, &mut r).unwrap();
    suite.client_verify(4, &s.y_pub, &cover).unwrap();

    // Replay as another client, in another round, slot or session: rejected naming the client.
    assert_eq!(
        suite.client_verify(5, &s.y_pub, &cover),
        Err(SuiteError::ClientProof { client: 5 })
    );
    for other in [slot(6, 2, 2), slot(5, 3, 2), {
        let mut o = here;
        o.session = [8; 32];
        o
    }] {
        let o = ElGamalSlot::<G>::new(other, &s.server_keys).unwrap();
        assert_eq!(
            o.client_verify(4, &s.y_pub, &cover),
            Err(SuiteError::ClientProof { client: 4 })
        );
    }
    // A cover made for another slot's pseudonym key.
    let other_y = G::random(&mut r);
    let wrong = suite.cover_create(4, &other_y, &mut r).unwrap();
    assert!(suite.client_verify(4, &s.y_pub, &wrong).is_err());

    // An "owner" without the pseudonym secret: proves for its own key, fails for Y.
    let fake_y = SecretScalar::random(&mut r);
    let fake = suite.owner_create(4, &fake_y, b"hi", &mut r).unwrap();
    assert_eq!(
        suite.client_verify(4, &s.y_pub, &fake),
        Err(SuiteError::ClientProof { client: 4 })
    );
    let real = suite.owner_create(4, &s.y, b"hi", &mut r).unwrap();
    suite.client_verify(4, &s.y_pub, &real).unwrap();

    // Flipped bytes: never accepted, never a panic.
    let bytes = cover.to_bytes();
    assert_eq!(bytes.len(), client_ciphertext_len::<G>(2));
    for pos in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[pos] ^= 0x01;
        if let Ok(ct) = ClientCiphertext::<G>::from_bytes(&here, 4, &b) {
            assert!(suite.client_verify(4, &s.y_pub, &ct).is_err(), "byte {pos}");
        }
    }
    // Truncated, trailing, wrong-length and garbage inputs: typed errors naming the client.
    for b in [
        &bytes[..bytes.len() - 1],
        &[bytes.as_slice(), &[0]].concat()[..],
        &[][..],
        &[0xff; 300][..],
    ] {
        assert!(matches!(
            ClientCiphertext::<G>::from_bytes(&here, 4, b),
            Err(SuiteError::Decode {
                culprit: Culprit::Client(4),
                ..
            })
        ));
    }
    let longer = ElGamalSlot::<G>::new(slot(5, 2, 3), &s.server_keys).unwrap();
    // The capacity is the framing's for the slot's elements: exactly that much fits.
    let capacity = longer.capacity();
    assert_eq!(capacity, verdict_group::framing::max_message_len::<G>(3));
    assert!(capacity > 1);
    assert!(
        longer
            .owner_create(4, &s.y, &vec![7u8; capacity], &mut r)
            .is_ok()
    );
    assert!(
        longer
            .owner_create(4, &s.y, &vec![7u8; capacity + 1], &mut r)
            .is_err()
    );
    let c3 = longer.cover_create(4, &s.y_pub, &mut r).unwrap();
    let wrong = suite.client_verify(4, &s.y_pub, &c3);
    assert_eq!(
        wrong,
        Err(SuiteError::WrongLength {
            culprit: Culprit::Client(4),
            expected: 2,
            actual: 3
        })
    );
    // The culprit is named in the message an operator reads.
    assert_eq!(Culprit::Client(4).to_string(), "client 4");
    assert_eq!(Culprit::Server(2).to_string(), "server 2");
    assert!(wrong.unwrap_err().to_string().contains("client 4"));
}

/// The malleability attack that makes eager verification necessary: a multiple of an honest
/// client's ciphertext (with that client's proof, or a fresh one it cannot make) is rejected.
#[test]
fn malleated_ciphertexts_are_rejected() {
    type G = Ristretto255;
    type S = <G as Group>::Scalar;
    let mut r = rng(2);
    let s = setup::<G>(1, &mut r);
    let here = slot(1, 0, 1);
    let suite = ElGamalSlot::<G>::new(here, &s.server_keys).unwrap();
    let honest = suite.owner_create(0, &s.y, b"x", &mut r).unwrap();
    let lambda = S::from_u64(2);
    let mut bytes = honest.to_bytes();
    let len = <G as Group>::ENCODED_LEN;
    let rr = *honest.randomness()[0].point() * lambda;
    let cc = *honest.payload()[0].point() * lambda;
    bytes[..len].copy_from_slice(rr.to_bytes().as_ref());
    bytes[len..2 * len].copy_from_slice(cc.to_bytes().as_ref());
    let evil = ClientCiphertext::<G>::from_bytes(&here, 1, &bytes).unwrap();
    assert!(suite.client_verify(1, &s.y_pub, &evil).is_err());
    assert!(suite.client_verify(0, &s.y_pub, &evil).is_err());
}

#[test]
fn batch_names_culprits_and_server_over_wrong_set() {
    type G = Ristretto255;
    let mut r = rng(3);
    let s = setup::<G>(2, &mut r);
    let suite = ElGamalSlot::<G>::new(slot(9, 1, 2), &s.server_keys).unwrap();
    let cts: Vec<_> = (0..4)
        .map(|i| suite.cover_create(i, &s.y_pub, &mut r).unwrap())
        .collect();
    // Clients 1 and 3 submit each other's (valid) ciphertexts.
    let swapped = vec![(0, &cts[0]), (1, &cts[3]), (2, &cts[2]), (3, &cts[1])];
    assert_eq!(
        suite.client_verify_batch(&s.y_pub, &swapped, &mut r),
        Err(SuiteError::ClientProofs {
            clients: vec![1, 3]
        })
    );
    // Churn: client 3 dropped out; the servers agree on S = {0, 1, 2}.
    let s_set: Vec<_> = (0..3).map(|i| (i as u32, &cts[i])).collect();
    let full: Vec<_> = (0..4).map(|i| (i as u32, &cts[i])).collect();
    let honest = suite
        .server_create(0, &s.server_secrets[0], &s_set, &mut r)
        .unwrap();
    let stale = suite
        .server_create(1, &s.server_secrets[1], &full, &mut r)
        .unwrap();
    suite
        .server_verify(0, &s.server_keys[0], &s_set, &honest)
        .unwrap();
    assert_eq!(
        suite.server_verify(1, &s.server_keys[1], &s_set, &stale),
        Err(SuiteError::ServerProof { server: 1 })
    );
    // A server proof replayed as another server's.
    assert_eq!(
        suite.server_verify(1, &s.server_keys[0], &s_set, &honest),
        Err(SuiteError::ServerProof { server: 1 })
    );
    let dup = vec![(0, &cts[0]), (0, &cts[1])];
    assert_eq!(
        suite
            .server_create(0, &s.server_secrets[0], &dup, &mut r)
            .unwrap_err(),
        SuiteError::DuplicateClient { client: 0 }
    );
    // The reveal over S with both honest server ciphertexts is empty (all covers).
    let fresh = suite
        .server_create(1, &s.server_secrets[1], &s_set, &mut r)
        .unwrap();
    assert_eq!(
        suite.reveal(&s_set, &[(0, &honest), (1, &fresh)]),
        Err(SuiteError::Frame(FrameError::Empty))
    );
    // Server ciphertext garbage.
    assert!(matches!(
        ServerCiphertext::<G>::from_bytes(suite.slot(), 1, &[1; 10]),
        Err(SuiteError::Decode {
            culprit: Culprit::Server(1),
            ..
        })
    ));
}

/// Cover and owner ciphertexts have the same shape and size (anonymity needs them
/// indistinguishable; their distributions are equal by the OR proof's witness indistinguishability
/// and the uniform pads).
#[test]
fn anonymity_shape() {
    type G = P256;
    let mut r = rng(4);
    let s = setup::<G>(1, &mut r);
    let suite = ElGamalSlot::<G>::new(slot(1, 0, 3), &s.server_keys).unwrap();
    let cover = suite.cover_create(0, &s.y_pub, &mut r).unwrap();
    let owner = suite.owner_create(1, &s.y, b"m", &mut r).unwrap();
    assert_eq!(cover.to_bytes().len(), owner.to_bytes().len());
    assert_eq!(cover.to_bytes().len(), client_ciphertext_len::<G>(3));
    assert_eq!(cover.len(), owner.len());
    assert!(
        cover
            .payload()
            .iter()
            .chain(owner.payload())
            .all(|c| !c.point().is_identity())
    );
}
