//! Direct tests of the pairing-based suite's six operations (before the generic harness).
//! Sizes are small: a pairing costs ≈ 1 ms, a GT exponentiation or GT decode ≈ 0.7 ms.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::pairing::gt_table::{ChunkBits, GtFrameError, GtTable};
use verdict_dcnet::pairing::{
    ClientCiphertext, Fr, PairingSlot, ServerCiphertext, client_ciphertext_len, round_bases,
    server_ciphertext_len,
};
use verdict_dcnet::verifiable::{Culprit, SlotParams, SuiteError};
use verdict_group::bls12_381::{G1, G2};
use verdict_group::{Group, SecretScalar};

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn slot(round: u64, slot: u32, elements: usize) -> SlotParams {
    SlotParams {
        session: [3; 32],
        round,
        slot,
        elements,
    }
}

struct Keys {
    secrets: Vec<SecretScalar<Fr>>,
    publics: Vec<G2>,
}

fn keys(n: usize, r: &mut ChaCha20Rng) -> Keys {
    let secrets: Vec<SecretScalar<Fr>> = (0..n).map(|_| SecretScalar::random(r)).collect();
    let publics = secrets
        .iter()
        .map(|s| G2::mul_generator(s.expose()))
        .collect();
    Keys { secrets, publics }
}

#[allow(clippy::too_many_arguments)]
fn round(
    n: usize,
    m: usize,
    l: usize,
    bits: ChunkBits,
    owner: Option<usize>,
    online: &[usize],
    message: &[u8],
    seed: u64,
) -> Result<Vec<u8>, SuiteError> {
    let table = GtTable::global();
    let mut r = rng(seed);
    let clients = keys(n, &mut r);
    let servers = keys(m, &mut r);
    let pseudonym = keys(1, &mut r);
    let suite = PairingSlot::new(slot(2, 0, l), &servers.publics, bits).unwrap();
    let y_pub = pseudonym.publics[0];
    let mut cts = Vec::new();
    for &i in online {
        let ct = if Some(i) == owner {
            suite
                .owner_create(
                    i as u32,
                    &clients.secrets[i],
                    &pseudonym.secrets[0],
                    message,
                    table,
                    &mut r,
                )
                .unwrap()
        } else {
            suite
                .cover_create(i as u32, &clients.secrets[i], &y_pub, &mut r)
                .unwrap()
        };
        let ct = ClientCiphertext::from_bytes(suite.slot(), i as u32, &ct.to_bytes()).unwrap();
        suite.client_verify(i as u32, &clients.publics[i], &y_pub, &ct)?;
        cts.push((i as u32, ct));
    }
    let batch: Vec<_> = cts
        .iter()
        .map(|(i, c)| (*i, clients.publics[*i as usize], c))
        .collect();
    suite.client_verify_batch(&y_pub, &batch, &mut r)?;
    let accepted: Vec<(u32, G2)> = online
        .iter()
        .map(|&i| (i as u32, clients.publics[i]))
        .collect();
    let mut scts = Vec::new();
    for j in 0..m {
        let sct = suite
            .server_create(j as u32, &servers.secrets[j], &accepted, &mut r)
            .unwrap();
        let sct = ServerCiphertext::from_bytes(suite.slot(), j as u32, &sct.to_bytes()).unwrap();
        suite.server_verify(j as u32, &servers.publics[j], &accepted, &sct)?;
        scts.push((j as u32, sct));
    }
    let c_refs: Vec<_> = cts.iter().map(|(i, c)| (*i, c)).collect();
    let s_refs: Vec<_> = scts.iter().map(|(j, c)| (*j, c)).collect();
    suite.reveal(&c_refs, &s_refs, table)
}

#[test]
fn integrity() {
    for (n, m) in [(2usize, 1usize), (2, 3), (10, 1), (10, 3)] {
        let all: Vec<usize> = (0..n).collect();
        let msg = [0xa5u8, 0x01];
        // 16-bit chunks: L = 3 carries 6 − 4 = 2 bytes.
        let out = round(n, m, 3, ChunkBits::B16, Some(1), &all, &msg, n as u64).unwrap();
        assert_eq!(out, msg, "N={n} M={m}");
    }
    // 24-bit chunks: L = 2 carries 6 − 4 = 2 bytes.
    let out = round(2, 1, 2, ChunkBits::B24, Some(0), &[0, 1], b"ok", 9).unwrap();
    assert_eq!(out, b"ok");
    // All covers: the reveal is the identity vector.
    assert_eq!(
        round(2, 2, 1, ChunkBits::B16, None, &[0, 1], b"", 5),
        Err(SuiteError::GtFrame(GtFrameError::Empty))
    );
}

#[test]
fn churn() {
    // Client 2 of 4 never submits; the servers combine over S = {0, 1, 3}.
    let out = round(4, 2, 3, ChunkBits::B16, Some(3), &[0, 1, 3], b"hi", 11).unwrap();
    assert_eq!(out, b"hi");
}

#[test]
fn round_bases_are_hashed_per_slot_and_round() {
    let a = round_bases(&slot(1, 0, 2));
    let b = round_bases(&slot(2, 0, 2));
    let c = round_bases(&slot(1, 1, 2));
    assert_ne!(a[0], a[1]);
    assert_ne!(a[0], b[0]);
    assert_ne!(a[0], c[0]);
    assert!(a.iter().all(|t| !t.is_identity() && *t != G1::generator()));
}

#[test]
fn soundness_replay_and_bad_input() {
    let mut r = rng(21);
    let clients = keys(3, &mut r);
    let servers = keys(2, &mut r);
    let pseudonym = keys(1, &mut r);
    let y_pub = pseudonym.publics[0];
    let here = slot(4, 1, 2);
    let suite = PairingSlot::new(here, &servers.publics, ChunkBits::B16).unwrap();
    let x0 = &clients.secrets[0];
    let cover = suite.cover_create(0, x0, &y_pub, &mut r).unwrap();
    suite
        .client_verify(0, &clients.publics[0], &y_pub, &cover)
        .unwrap();
    // Replay under another client id / key, round, slot.
    assert_eq!(
        suite.client_verify(1, &clients.publics[0], &y_pub, &cover),
        Err(SuiteError::ClientProof { client: 1 })
    );
    assert!(
        suite
            .client_verify(0, &clients.publics[1], &y_pub, &cover)
            .is_err()
    );
    for other in [slot(5, 1, 2), slot(4, 2, 2)] {
        let o = PairingSlot::new(other, &servers.publics, ChunkBits::B16).unwrap();
        assert_eq!(
            o.client_verify(0, &clients.publics[0], &y_pub, &cover),
            Err(SuiteError::ClientProof { client: 0 })
        );
    }
    // Owner without the pseudonym secret.
    let table = GtTable::global();
    let fake = suite
        .owner_create(0, x0, &clients.secrets[2], b"", table, &mut r)
        .unwrap();
    assert!(
        suite
            .client_verify(0, &clients.publics[0], &y_pub, &fake)
            .is_err()
    );
    // Flipped bytes in a few places of each field (GT decoding is costly; sample).
    let bytes = cover.to_bytes();
    assert_eq!(bytes.len(), client_ciphertext_len(2));
    for pos in [
        0,
        575,
        576,
        1200,
        1152,
        1153 + 40,
        1184 + 100,
        1184 + 96 + 300,
        bytes.len() - 1,
    ] {
        let mut b = bytes.clone();
        b[pos] ^= 0x02;
        if let Ok(ct) = ClientCiphertext::from_bytes(&here, 0, &b) {
            assert!(
                suite
                    .client_verify(0, &clients.publics[0], &y_pub, &ct)
                    .is_err(),
                "byte {pos}"
            );
        }
    }
    for b in [
        &bytes[..100],
        &[0u8; 0][..],
        &[bytes.as_slice(), &[1]].concat()[..],
    ] {
        assert!(matches!(
            ClientCiphertext::from_bytes(&here, 0, b),
            Err(SuiteError::Decode {
                culprit: Culprit::Client(0),
                ..
            })
        ));
    }
    // The capacity is the framing's for the slot's elements (16-bit chunks: 2 bytes each,
    // less the 4-byte length header): exactly that much fits, one byte more does not.
    let longer = PairingSlot::new(slot(4, 1, 4), &servers.publics, ChunkBits::B16).unwrap();
    assert_eq!(longer.capacity(), 4);
    let pseudo = &pseudonym.secrets[0];
    assert!(
        longer
            .owner_create(0, x0, pseudo, &[7; 4], table, &mut r)
            .is_ok()
    );
    assert!(matches!(
        longer.owner_create(0, x0, pseudo, &[7; 5], table, &mut r),
        Err(SuiteError::GtFrame(GtFrameError::TooLong { .. }))
    ));
    // A well-formed ciphertext of another length is refused by its length, naming its sender.
    let c4 = longer.cover_create(0, x0, &y_pub, &mut r).unwrap();
    assert_eq!(
        suite.client_verify(0, &clients.publics[0], &y_pub, &c4),
        Err(SuiteError::WrongLength {
            culprit: Culprit::Client(0),
            expected: 2,
            actual: 4
        })
    );
    // Server over the wrong accepted set, and a server ciphertext replayed by another server.
    let s_set = vec![(0u32, clients.publics[0]), (1, clients.publics[1])];
    let full = vec![
        (0u32, clients.publics[0]),
        (1, clients.publics[1]),
        (2, clients.publics[2]),
    ];
    let stale = suite
        .server_create(1, &servers.secrets[1], &full, &mut r)
        .unwrap();
    assert_eq!(
        suite.server_verify(1, &servers.publics[1], &s_set, &stale),
        Err(SuiteError::ServerProof { server: 1 })
    );
    suite
        .server_verify(1, &servers.publics[1], &full, &stale)
        .unwrap();
    assert_eq!(
        suite.server_verify(0, &servers.publics[1], &full, &stale),
        Err(SuiteError::ServerProof { server: 0 })
    );
    let sbytes = stale.to_bytes();
    assert_eq!(sbytes.len(), server_ciphertext_len(2));
    assert!(matches!(
        ServerCiphertext::from_bytes(&here, 1, &sbytes[1..]),
        Err(SuiteError::Decode {
            culprit: Culprit::Server(1),
            ..
        })
    ));
    // Batch: a swapped ciphertext is named.
    let c1 = suite
        .cover_create(1, &clients.secrets[1], &y_pub, &mut r)
        .unwrap();
    let batch = vec![
        (0, clients.publics[0], &cover),
        (1, clients.publics[1], &cover),
        (2, clients.publics[2], &c1),
    ];
    assert_eq!(
        suite.client_verify_batch(&y_pub, &batch, &mut r),
        Err(SuiteError::ClientProofs {
            clients: vec![1, 2]
        })
    );
}

#[test]
fn anonymity_shape() {
    let mut r = rng(31);
    let clients = keys(2, &mut r);
    let servers = keys(1, &mut r);
    let pseudonym = keys(1, &mut r);
    let suite = PairingSlot::new(slot(1, 0, 2), &servers.publics, ChunkBits::B16).unwrap();
    let cover = suite
        .cover_create(0, &clients.secrets[0], &pseudonym.publics[0], &mut r)
        .unwrap();
    let owner = suite
        .owner_create(
            1,
            &clients.secrets[1],
            &pseudonym.secrets[0],
            b"",
            GtTable::global(),
            &mut r,
        )
        .unwrap();
    assert_eq!(cover.to_bytes().len(), owner.to_bytes().len());
    assert_eq!(cover.len(), owner.len());
}
