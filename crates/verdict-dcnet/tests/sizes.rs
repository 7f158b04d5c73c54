//! Figure 6 rows: every suite is present at every capacity, and the sizes are those of real
//! encodings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::sizes::{FIGURE6_LENS, figure6_rows, rows};
use verdict_dcnet::testing;
use verdict_dcnet::{Ciphersuite, HashingGenerator, PreparedSlot, SlotRound, Xor};
use verdict_group::Ristretto255;

#[test]
fn every_suite_at_every_length() {
    let all = figure6_rows();
    let suites: std::collections::BTreeSet<_> = all.iter().map(|r| r.suite_id.clone()).collect();
    assert_eq!(suites.len(), 7);
    assert_eq!(all.len(), 7 * FIGURE6_LENS.len());
    for s in &suites {
        let mut lens: Vec<_> = all.iter().filter(|r| &r.suite_id == s).collect();
        lens.sort_by_key(|r| r.plaintext_len);
        for w in lens.windows(2) {
            assert!(
                w[0].client_ciphertext_len <= w[1].client_ciphertext_len,
                "{s}"
            );
            assert!(
                w[0].server_ciphertext_len <= w[1].server_ciphertext_len,
                "{s}"
            );
        }
        for r in &lens {
            assert!(r.client_ciphertext_len > r.plaintext_len, "{s}");
        }
    }
}

fn matches_encodings<C: Ciphersuite>(len: usize) {
    let mut r = testing::rng(61);
    let w = testing::setup::<C>(2, 2, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, len)).unwrap();
    let ct = C::cover(&w.session, &slot, &w.clients[0], &mut r).unwrap();
    let s = [(verdict_dcnet::ClientId(0), &ct)];
    let d = C::server_ciphertext(&w.session, &slot, &w.servers[0], &s, &mut r).unwrap();
    let row = &rows::<C>(&[len])[0];
    assert_eq!(
        row.client_ciphertext_len,
        C::encode_client_ciphertext(&ct).len()
    );
    assert_eq!(
        row.server_ciphertext_len,
        C::encode_server_ciphertext(&d).len()
    );
}

#[test]
fn rows_match_real_encodings() {
    matches_encodings::<HashingGenerator<Ristretto255>>(100);
    matches_encodings::<verdict_dcnet::elgamal::ElGamal<Ristretto255>>(100);
    matches_encodings::<Xor<Ristretto255>>(100);
}
