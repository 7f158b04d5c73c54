//! Every suite's `combine_setup` refuses a wrong number of set-up messages (one missing or one
//! extra, client or server side), so a session can never be established over a partial roster.
//! The XOR and ElGamal suites publish empty set-up messages, so the count is all they check.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::{Ciphersuite, HashingGenerator, SetupError, Xor, testing};
use verdict_group::{P256, Ristretto255};

fn wrong_counts_are_refused<C: Ciphersuite>(seed: u64)
where
    C::ClientSetup: Clone,
    C::ServerSetup: Clone,
{
    let mut r = testing::rng(seed);
    let (n, m) = (3, 2);
    let w = testing::setup::<C>(n, m, 1, &mut r);
    let roster = w.session.roster();
    assert!(C::combine_setup(roster, &w.client_setups, &w.server_setups).is_ok());
    let extra_c: Vec<_> = w
        .client_setups
        .iter()
        .chain(&w.client_setups[..1])
        .cloned()
        .collect();
    let extra_s: Vec<_> = w
        .server_setups
        .iter()
        .chain(&w.server_setups[..1])
        .cloned()
        .collect();
    let cases = [
        (&w.client_setups[..n - 1], &w.server_setups[..], n, n - 1),
        (&extra_c[..], &w.server_setups[..], n, n + 1),
        (&w.client_setups[..], &w.server_setups[..m - 1], m, m - 1),
        (&w.client_setups[..], &extra_s[..], m, m + 1),
    ];
    for (clients, servers, expected, actual) in cases {
        assert!(
            matches!(
                C::combine_setup(roster, clients, servers),
                Err(SetupError::Count { expected: e, actual: a }) if e == expected && a == actual
            ),
            "{}: {} client and {} server set-ups accepted",
            C::ID,
            clients.len(),
            servers.len()
        );
    }
}

#[test]
fn xor() {
    wrong_counts_are_refused::<Xor<Ristretto255>>(1);
}

#[test]
fn elgamal() {
    wrong_counts_are_refused::<ElGamal<Ristretto255>>(2);
    wrong_counts_are_refused::<ElGamal<P256>>(3);
}

#[test]
fn hashing_generator() {
    wrong_counts_are_refused::<HashingGenerator<Ristretto255>>(4);
}

#[test]
fn pairing() {
    wrong_counts_are_refused::<Pairing<Chunk16>>(5);
}
