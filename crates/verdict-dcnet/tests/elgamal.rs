//! The ElGamal-style suite through the generic harness, on ristretto255 and P-256.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::testing;
use verdict_dcnet::{Ciphersuite, ClientId, DcError, PreparedSlot, SlotRound, Verifiable};
use verdict_group::{Group, P256, Ristretto255, Scalar, framing};

type EgR = ElGamal<Ristretto255>;
type EgP = ElGamal<P256>;

#[test]
fn integrity_ristretto255() {
    testing::integrity_matrix::<EgR>(&[1, 3], &[2, 10], &[0, 1, 100, 1000], 1);
}

#[test]
fn integrity_p256() {
    testing::integrity_matrix::<EgP>(&[1, 3], &[2, 10], &[0, 30, 300], 2);
}

#[test]
fn churn_ristretto255() {
    testing::churn::<EgR>(8, 3, 200, 3, 3);
}

#[test]
fn shape() {
    testing::shape::<EgR>(&[0, 29, 200], 4);
    testing::shape::<EgP>(&[0, 100], 5);
}

#[test]
fn bad_input() {
    testing::bad_input::<EgR>(100, 6);
    testing::bad_input::<EgP>(60, 7);
}

#[test]
fn soundness_ristretto255() {
    testing::soundness::<EgR>(5, 3, 100, 8);
}

#[test]
fn soundness_p256() {
    testing::soundness::<EgP>(4, 2, 60, 9);
}

#[test]
fn suite_ids_are_versioned() {
    // Version 2: the owner branch proves the r_k (version 1 was a DH oracle).
    assert_eq!(EgR::ID.to_string(), "verdict/elgamal/ristretto255/v3");
    assert_eq!(
        EgP::ID.to_string(),
        format!("verdict/elgamal/{}/v3", <P256 as Group>::NAME)
    );
}

/// Figure 6 analog: 2L ciphertext elements plus the proof (cover branch 2L commitments and L
/// responses, owner branch L + 1 and L + 1, one challenge).
#[test]
fn ciphertext_sizes() {
    for len in [0usize, 26, 1000, 4096] {
        let l = framing::elements_needed::<Ristretto255>(len);
        assert_eq!(
            EgR::client_ciphertext_len(len),
            32 * (2 * l + (2 * l + l) + (l + 1 + l + 1) + 1)
        );
        assert_eq!(EgR::client_ciphertext_len(len), 32 * (7 * l + 3));
        assert_eq!(EgP::client_ciphertext_len(len), 229 * l + 97);
        assert_eq!(EgR::server_ciphertext_len(len), 32 * l + 96);
        println!(
            "len {len:>5} B: ElGamal/ristretto255 client {:>6} B ({:.1}x), server {:>6} B",
            EgR::client_ciphertext_len(len),
            EgR::client_ciphertext_len(len) as f64 / len.max(1) as f64,
            EgR::server_ciphertext_len(len),
        );
    }
}

/// The attack that makes eager verification necessary: a client submits a multiple of an
/// honest client's (R, C) with that client's proof; rejected and named.
#[test]
fn malleated_copy_is_named() {
    type S = <Ristretto255 as Group>::Scalar;
    let mut r = testing::rng(10);
    let w = testing::setup::<EgR>(3, 2, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, 20)).unwrap();
    let honest = EgR::cover(&w.session, &slot, &w.clients[0], &mut r).unwrap();
    let mut bytes = EgR::encode_client_ciphertext(&honest);
    let lambda = S::from_u64(3);
    let l = honest.len();
    for (k, p) in honest
        .randomness()
        .iter()
        .chain(honest.payload())
        .enumerate()
    {
        let q = *p.point() * lambda;
        bytes[32 * k..32 * (k + 1)].copy_from_slice(q.to_bytes().as_ref());
    }
    assert!(2 * l * 32 <= bytes.len());
    let evil = EgR::decode_client_ciphertext(20, &bytes).unwrap();
    assert_eq!(
        EgR::verify_client(&w.session, &slot, ClientId(2), &evil),
        Err(DcError::InvalidClientProof {
            client: ClientId(2)
        })
    );
}

/// The server proof binds the accepted set's *ids*, not only the sum of their ciphertexts:
/// the same ciphertexts attributed to other clients (so the combination is unchanged) must not
/// verify. Without the binding a server's proof could be replayed for a set it never accepted.
#[test]
fn server_proof_binds_the_accepted_ids() {
    let mut r = testing::rng(40);
    let w = testing::setup::<EgR>(3, 1, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 2, 40)).unwrap();
    let cts = testing::client_ciphertexts(&w, &slot, None, &mut r);
    let accepted = [(ClientId(0), &cts[0]), (ClientId(1), &cts[1])];
    let server_ct =
        EgR::server_ciphertext(&w.session, &slot, &w.servers[0], &accepted, &mut r).unwrap();
    let server = verdict_dcnet::ServerId(0);
    assert_eq!(
        EgR::verify_server(&w.session, &slot, server, &accepted, &server_ct),
        Ok(())
    );
    let relabelled = [(ClientId(0), &cts[0]), (ClientId(2), &cts[1])];
    assert!(EgR::verify_server(&w.session, &slot, server, &relabelled, &server_ct).is_err());
}
