//! The hashing-generator suite through the generic harness, on ristretto255 and P-256, plus
//! suite-specific soundness (owner without the pseudonym key) and the set-up dispute.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::hashing_generator::Commitments;
use verdict_dcnet::testing;
use verdict_dcnet::{
    Ciphersuite, ClientId, DcError, HashingGenerator, Liar, PreparedSlot, ServerId, Session,
    SetupError, SlotRound, Verifiable,
};
use verdict_group::{Group, P256, Ristretto255, framing};
use verdict_nizk::Encoded;

type HgR = HashingGenerator<Ristretto255>;
type HgP = HashingGenerator<P256>;

#[test]
fn integrity_ristretto255() {
    testing::integrity_matrix::<HgR>(&[1, 3, 10], &[2, 10], &[0, 1, 100, 1000, 4000], 1);
}

#[test]
fn integrity_ristretto255_100_clients() {
    testing::integrity_matrix::<HgR>(&[1, 3, 10], &[100], &[1000, 0, 3000], 2);
}

#[test]
fn integrity_p256() {
    testing::integrity_matrix::<HgP>(&[1, 3], &[2, 10], &[0, 30, 300], 3);
}

#[test]
fn churn_ristretto255() {
    testing::churn::<HgR>(12, 3, 200, 4, 4);
}

#[test]
fn churn_p256() {
    testing::churn::<HgP>(6, 2, 60, 2, 5);
}

#[test]
fn shape_ristretto255() {
    testing::shape::<HgR>(&[0, 29, 200], 6);
}

#[test]
fn shape_p256() {
    testing::shape::<HgP>(&[0, 100], 7);
}

#[test]
fn bad_input_ristretto255() {
    testing::bad_input::<HgR>(100, 8);
}

#[test]
fn bad_input_p256() {
    testing::bad_input::<HgP>(100, 9);
}

#[test]
fn soundness_ristretto255() {
    testing::soundness::<HgR>(5, 3, 300, 10);
}

#[test]
fn soundness_p256() {
    testing::soundness::<HgP>(4, 2, 60, 11);
}

#[test]
fn suite_ids_are_versioned() {
    assert_eq!(
        HgR::ID.to_string(),
        "verdict/hashing-generator/ristretto255/v2"
    );
    assert_eq!(
        HgP::ID.to_string(),
        "verdict/hashing-generator/P-256/v2".replace("P-256", <P256 as Group>::NAME)
    );
}

/// An owner ciphertext made without the pseudonym key: a cover client adds a message to its
/// cover elements and keeps (or re-makes) the cover proof — rejected, and named.
#[test]
fn owner_without_pseudonym_key_is_rejected() {
    let mut r = testing::rng(12);
    let w = testing::setup::<HgR>(4, 2, 1, &mut r);
    let sr = SlotRound::new(0, 3, 100);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let mut ct = HgR::cover(&w.session, &slot, &w.clients[2], &mut r).unwrap();
    let msg =
        framing::encode_message::<Ristretto255>(b"forged", slot.data().generators().len()).unwrap();
    ct.elements = ct
        .elements
        .iter()
        .zip(&msg)
        .map(|(c, m)| Encoded::new(*c.point() + *m))
        .collect();
    assert_eq!(
        HgR::verify_client(&w.session, &slot, ClientId(2), &ct),
        Err(DcError::InvalidClientProof {
            client: ClientId(2)
        })
    );
    // In a batch with valid ciphertexts, exactly the forger is named.
    let others: Vec<_> = (0..4)
        .map(|i| HgR::cover(&w.session, &slot, &w.clients[i], &mut r).unwrap())
        .collect();
    let items: Vec<_> = (0..4)
        .map(|i| (ClientId(i as u32), if i == 2 { &ct } else { &others[i] }))
        .collect();
    assert_eq!(
        HgR::verify_clients(&w.session, &slot, &items, &mut r),
        Err(vec![ClientId(2)])
    );
}

/// A lying client or server at set-up: the cross-check names the pair, the dispute names the
/// liar, and an invalid reveal names its prover.
#[test]
fn setup_dispute_names_the_liar() {
    let mut r = testing::rng(13);
    let w = testing::setup::<HgR>(3, 2, 1, &mut r);
    let roster = w.session.roster().clone();
    let bogus = Encoded::new(Ristretto255::random(&mut r));

    // Client 1 lies about K_{1,0}.
    let mut clients = w.client_setups.clone();
    clients[1].commitments[0] = bogus.clone();
    let err = Session::<HgR>::establish(roster.clone(), &clients, &w.server_setups).unwrap_err();
    assert_eq!(
        err,
        SetupError::CommitmentMismatch {
            pairs: vec![(ClientId(1), ServerId(0))]
        }
    );
    let by_server =
        HgR::dispute_server(&roster, ServerId(0), &w.server_keys[0], ClientId(1), &mut r).unwrap();
    let by_client =
        HgR::dispute_client(&roster, ClientId(1), &w.client_keys[1], ServerId(0), &mut r).unwrap();
    for reveal in [&by_server, &by_client] {
        let reveal = verdict_dcnet::DhReveal::from_bytes(&reveal.to_bytes()).unwrap();
        assert_eq!(
            HgR::resolve_dispute(&roster, &clients[1], &w.server_setups[0], &reveal).unwrap(),
            Liar::Client(ClientId(1))
        );
    }

    // Server 1 lies about K_{2,1}.
    let mut servers = w.server_setups.clone();
    servers[1].commitments[2] = bogus.clone();
    let err = Session::<HgR>::establish(roster.clone(), &w.client_setups, &servers).unwrap_err();
    assert_eq!(
        err,
        SetupError::CommitmentMismatch {
            pairs: vec![(ClientId(2), ServerId(1))]
        }
    );
    let reveal =
        HgR::dispute_client(&roster, ClientId(2), &w.client_keys[2], ServerId(1), &mut r).unwrap();
    assert_eq!(
        HgR::resolve_dispute(&roster, &w.client_setups[2], &servers[1], &reveal).unwrap(),
        Liar::Server(ServerId(1))
    );

    // A reveal for a different pair does not verify for this one: its prover is named.
    let wrong_key =
        HgR::dispute_client(&roster, ClientId(2), &w.client_keys[0], ServerId(1), &mut r).unwrap();
    assert_eq!(
        HgR::resolve_dispute(&roster, &w.client_setups[2], &servers[1], &wrong_key).unwrap(),
        Liar::Client(ClientId(2))
    );
    // Both lied.
    let mut c2 = w.client_setups[2].clone();
    c2.commitments[1] = Encoded::new(Ristretto255::random(&mut r));
    assert_eq!(
        HgR::resolve_dispute(&roster, &c2, &servers[1], &reveal).unwrap(),
        Liar::Both(ClientId(2), ServerId(1))
    );
    // Malformed set-up messages name their sender.
    let mut short = w.client_setups.clone();
    short[0] = Commitments {
        commitments: vec![],
    };
    assert_eq!(
        Session::<HgR>::establish(roster, &short, &w.server_setups).unwrap_err(),
        SetupError::Malformed {
            culprit: verdict_dcnet::Party::Client(ClientId(0))
        }
    );
}

/// Figure 6 analog: ciphertext size vs plaintext size.
#[test]
fn ciphertext_sizes() {
    for len in [0usize, 26, 27, 1000, 4096, 65536] {
        let l = framing::elements_needed::<Ristretto255>(len);
        assert_eq!(HgR::client_ciphertext_len(len), 32 * l + 192);
        assert_eq!(HgR::server_ciphertext_len(len), 32 * l + 96);
        let lp = framing::elements_needed::<P256>(len);
        assert_eq!(HgP::client_ciphertext_len(len), 33 * lp + 3 * 33 + 3 * 32);
        println!(
            "len {len:>6} B: ristretto255 client {:>6} B ({:.3}x), server {:>6} B; P-256 client {:>6} B",
            HgR::client_ciphertext_len(len),
            HgR::client_ciphertext_len(len) as f64 / len.max(1) as f64,
            HgR::server_ciphertext_len(len),
            HgP::client_ciphertext_len(len)
        );
    }
}

/// Secret state never shows up in `Debug` output.
#[test]
fn debug_is_redacted() {
    let mut r = testing::rng(14);
    let w = testing::setup::<HgR>(2, 1, 1, &mut r);
    let c = format!("{:?}", w.clients[0]);
    let s = format!("{:?}", w.servers[0]);
    let k = format!("{:?}", w.client_keys[0]);
    assert!(c.contains("client") && !c.contains("sigma"), "{c}");
    assert!(s.contains("server") && !s.contains("secrets"), "{s}");
    assert!(!k.contains("secret"), "{k}");
}
