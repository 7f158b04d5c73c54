//! The parallel paths (feature `parallel`) against the serial ones: a whole slot — client
//! ciphertexts, batched verification with invalid proofs among valid ones, server ciphertexts,
//! reveal — run with the same seed in a 1-thread and a 2-thread pool gives the same bytes, names
//! the same clients, and leaves the RNG in the same state. (Without the feature both runs are
//! serial and the test still holds.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::testing::{self, World};
use verdict_dcnet::{
    Ciphersuite, ClientId, HashingGenerator, PreparedSlot, SlotRound, Verifiable, Xor,
};
use verdict_group::{Ristretto255, par};

/// Everything one slot produced, as bytes and outcomes.
#[derive(Debug, PartialEq)]
struct Outcome {
    clients: Vec<Vec<u8>>,
    verified: Option<Result<(), Vec<ClientId>>>,
    servers: Vec<Vec<u8>>,
    revealed: String,
    rng_after: u64,
}

/// One slot of `w` with `owner` sending `msg`; items at positions `forged` carry the next
/// client's (valid) ciphertext, so their proofs are bound to someone else and must be named.
fn slot<C: Ciphersuite>(
    w: &World<C>,
    len: usize,
    forged: &[usize],
    verify: Option<VerifyFn<C>>,
    seed: u64,
) -> Outcome {
    let mut r = testing::rng(seed);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 5, len)).unwrap();
    let cts = testing::client_ciphertexts(w, &slot, Some((3, &b"parallel"[..])), &mut r);
    let items: Vec<(ClientId, &C::ClientCiphertext)> = (0..cts.len())
        .map(|i| {
            let ct = if forged.contains(&i) {
                &cts[(i + 1) % cts.len()]
            } else {
                &cts[i]
            };
            (ClientId(i as u32), ct)
        })
        .collect();
    let verified = verify.map(|f| f(&w.session, &slot, &items, &mut r));
    let honest: Vec<(ClientId, &C::ClientCiphertext)> = cts
        .iter()
        .enumerate()
        .map(|(i, ct)| (ClientId(i as u32), ct))
        .collect();
    let servers: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .map(|st| C::server_ciphertext(&w.session, &slot, st, &honest, &mut r).unwrap())
        .collect();
    let refs: Vec<&C::ServerCiphertext> = servers.iter().collect();
    let revealed = format!("{:?}", C::reveal(&w.session, &slot, &honest, &refs));
    Outcome {
        clients: cts.iter().map(C::encode_client_ciphertext).collect(),
        verified,
        servers: servers.iter().map(C::encode_server_ciphertext).collect(),
        revealed,
        rng_after: rand::RngCore::next_u64(&mut r),
    }
}

type VerifyFn<C> = fn(
    &verdict_dcnet::Session<C>,
    &PreparedSlot<C>,
    &[(ClientId, &<C as Ciphersuite>::ClientCiphertext)],
    &mut testing::TestRng,
) -> Result<(), Vec<ClientId>>;

fn verify<C: Verifiable>(
    session: &verdict_dcnet::Session<C>,
    slot: &PreparedSlot<C>,
    items: &[(ClientId, &C::ClientCiphertext)],
    r: &mut testing::TestRng,
) -> Result<(), Vec<ClientId>> {
    C::verify_clients(session, slot, items, r)
}

fn one_and_two<C: Ciphersuite>(
    n: usize,
    m: usize,
    len: usize,
    forged: &[usize],
    verify: Option<VerifyFn<C>>,
) -> Outcome {
    let w = testing::setup::<C>(n, m, 1, &mut testing::rng(40));
    let one = par::with_threads(1, || slot(&w, len, forged, verify, 41)).unwrap();
    let two = par::with_threads(2, || slot(&w, len, forged, verify, 41)).unwrap();
    assert_eq!(one, two, "1 and 2 threads disagree");
    one
}

#[test]
fn hashing_generator_slot_is_the_same_on_one_and_two_threads() {
    type C = HashingGenerator<Ristretto255>;
    // 40 proofs: the batch splits into two runs of 20; the forged ones sit in both runs.
    let out = one_and_two::<C>(40, 3, 300, &[5, 22, 39], Some(verify::<C>));
    assert_eq!(
        out.verified,
        Some(Err(vec![ClientId(5), ClientId(22), ClientId(39)]))
    );
    assert_eq!(
        out.revealed,
        format!("{:?}", Ok::<_, ()>(Some(b"parallel")))
    );
    let valid = one_and_two::<C>(40, 3, 300, &[], Some(verify::<C>));
    assert_eq!(valid.verified, Some(Ok(())));
}

#[test]
fn elgamal_slot_is_the_same_on_one_and_two_threads() {
    type C = ElGamal<Ristretto255>;
    let out = one_and_two::<C>(20, 2, 64, &[0, 19], Some(verify::<C>));
    assert_eq!(out.verified, Some(Err(vec![ClientId(0), ClientId(19)])));
}

#[test]
fn xor_pads_are_the_same_on_one_and_two_threads() {
    // 200 clients: each server's pad is expanded in runs of at least 64 pairs.
    let out = one_and_two::<Xor<Ristretto255>>(200, 2, 1000, &[], None);
    assert_eq!(
        out.revealed,
        format!("{:?}", Ok::<_, ()>(Some(b"parallel")))
    );
}
