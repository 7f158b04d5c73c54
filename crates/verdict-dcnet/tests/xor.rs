//! The XOR suite through the generic harness, plus provable pad bits and corruption detection.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand::Rng;
use verdict_dcnet::testing;
use verdict_dcnet::xor::XorCiphertext;
use verdict_dcnet::{
    Ciphersuite, ClientId, DcError, DhReveal, Party, PreparedSlot, ServerId, SlotRound, Xor,
};
use verdict_group::{Group, Ristretto255};

/// Compiles only if the (concrete) suite type does not implement [`verdict_dcnet::Verifiable`]:
/// with an implementation, both impls of `NotVerifiable` apply and the inferred parameter of
/// `check` is ambiguous, a compile error.
macro_rules! assert_not_verifiable {
    ($suite:ty) => {{
        trait NotVerifiable<A> {
            fn check() {}
        }
        impl<T: ?Sized> NotVerifiable<()> for T {}
        #[allow(dead_code)]
        struct IsVerifiable;
        impl<T: ?Sized + verdict_dcnet::Verifiable> NotVerifiable<IsVerifiable> for T {}
        <$suite as NotVerifiable<_>>::check();
    }};
}

type X = Xor<Ristretto255>;

#[test]
fn integrity() {
    testing::integrity_matrix::<X>(&[1, 3, 10], &[2, 10, 100], &[0, 1, 100, 1000, 5000], 21);
}

#[test]
fn churn() {
    testing::churn::<X>(20, 3, 300, 6, 22);
}

#[test]
fn shape() {
    testing::shape::<X>(&[0, 1, 1000], 23);
}

#[test]
fn bad_input() {
    testing::bad_input::<X>(100, 24);
}

#[test]
fn not_verifiable() {
    // Not verifiable: `Xor` does not implement `Verifiable` (checked at compile time).
    assert_not_verifiable!(X);
    // Version 2: frames carry the slot's pseudonym signature (64 bytes on ristretto255).
    assert_eq!(X::ID.to_string(), "verdict/xor/ristretto255/v2");
    assert_eq!(X::SIGNATURE_LEN, 64);
    assert_eq!(X::client_ciphertext_len(1000), 1000 + 4 + 64);
    assert_eq!(
        Xor::<verdict_group::P256>::frame_len(1000),
        1000 + 4 + 33 + 32
    );
}

/// What the XOR types print: the suite and group, whose state it is, a ciphertext's length —
/// never a pair key or a ciphertext's bytes (logs see them).
#[test]
fn debug_shows_identities_never_keys() {
    let mut r = testing::rng(27);
    let w = testing::setup::<X>(2, 2, 1, &mut r);
    assert_eq!(
        format!("{:?}", w.clients[1]),
        "XorClientState { client: ClientId(1), .. }"
    );
    assert_eq!(
        format!("{:?}", w.servers[0]),
        "XorServerState { server: ServerId(0), .. }"
    );
    let ct = XorCiphertext {
        bytes: vec![0xab; 70],
    };
    assert_eq!(format!("{ct:?}"), "XorCiphertext(70 bytes)");
}

/// A disruptor flipping ciphertext bits (header, message, padding or signature) makes the
/// reveal fail the frame's signature check.
#[test]
fn corruption_is_detected() {
    let mut r = testing::rng(25);
    let w = testing::setup::<X>(4, 2, 1, &mut r);
    let sr = SlotRound::new(0, 1, 64);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let mut cts = testing::client_ciphertexts(&w, &slot, Some((0, b"hello")), &mut r);
    let acc0: Vec<_> = cts
        .iter()
        .enumerate()
        .map(|(i, c)| (ClientId(i as u32), c))
        .collect();
    let scts: Vec<_> = w
        .servers
        .iter()
        .map(|s| X::server_ciphertext(&w.session, &slot, s, &acc0, &mut r).unwrap())
        .collect();
    let srefs: Vec<&XorCiphertext> = scts.iter().collect();
    for pos in [0usize, 4, 10, 67, 99, X::frame_len(64) - 1] {
        let saved = cts[3].clone();
        cts[3].bytes[pos] ^= 0x40;
        let acc: Vec<_> = cts
            .iter()
            .enumerate()
            .map(|(i, c)| (ClientId(i as u32), c))
            .collect();
        assert!(
            matches!(
                X::reveal(&w.session, &slot, &acc, &srefs),
                Err(DcError::CorruptReveal(_))
            ),
            "flip at {pos} undetected"
        );
        cts[3] = saved;
    }
    let acc: Vec<_> = cts
        .iter()
        .enumerate()
        .map(|(i, c)| (ClientId(i as u32), c))
        .collect();
    assert_eq!(
        X::reveal(&w.session, &slot, &acc, &srefs)
            .unwrap()
            .as_deref(),
        Some(&b"hello"[..])
    );
}

/// A caller that sums client ciphertexts its own way (a server summing each inventory as it
/// parses it) gets what the reveal gives: `server_ciphertext_for_ids` is `server_ciphertext`
/// over those clients, `open_combined` of the `⊕` of every ciphertext is the reveal, for an
/// owner's message, an empty slot and a corrupted one; a sum of the wrong length is the
/// caller's error, not a corrupt slot.
#[test]
fn partial_sums_open_like_the_reveal() {
    use verdict_dcnet::xor::xor_into;
    let mut r = testing::rng(27);
    let w = testing::setup::<X>(5, 3, 1, &mut r);
    let sr = SlotRound::new(0, 4, 48);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let cases = [
        (Some((0, &b"summed"[..])), None),
        (None, None),
        (Some((0, &b"x"[..])), Some(9)),
    ];
    for (owner, flip) in cases {
        let mut cts = testing::client_ciphertexts(&w, &slot, owner, &mut r);
        if let Some(pos) = flip {
            cts[1].bytes[pos] ^= 1;
        }
        let acc: Vec<_> = cts
            .iter()
            .enumerate()
            .map(|(i, c)| (ClientId(i as u32), c))
            .collect();
        let ids: Vec<ClientId> = acc.iter().map(|(c, _)| *c).collect();
        let scts: Vec<XorCiphertext> = w
            .servers
            .iter()
            .map(|s| {
                let by_ids = X::server_ciphertext_for_ids(&w.session, &slot, s, &ids).unwrap();
                assert_eq!(
                    by_ids,
                    X::server_ciphertext(&w.session, &slot, s, &acc, &mut r).unwrap()
                );
                by_ids
            })
            .collect();
        let srefs: Vec<&XorCiphertext> = scts.iter().collect();
        // Two partial sums of the clients (0..2 and 2..5), then the servers.
        let mut combined = vec![0u8; X::frame_len(48)];
        for part in [&cts[..2], &cts[2..]] {
            let mut sum = vec![0u8; X::frame_len(48)];
            part.iter().for_each(|c| xor_into(&mut sum, &c.bytes));
            xor_into(&mut combined, &sum);
        }
        scts.iter().for_each(|c| xor_into(&mut combined, &c.bytes));
        let opened = X::open_combined(&w.session, &slot, &combined);
        let revealed = X::reveal(&w.session, &slot, &acc, &srefs);
        assert_eq!(format!("{opened:?}"), format!("{revealed:?}"));
        match flip {
            Some(_) => assert!(matches!(opened, Err(DcError::CorruptReveal(_)))),
            None => assert_eq!(opened.unwrap().as_deref(), owner.map(|(_, m)| m)),
        }
    }
    assert!(matches!(
        X::open_combined(&w.session, &slot, &[0u8; 10]),
        Err(DcError::InvalidParameters(_))
    ));
    // The id-only server ciphertext checks the set as the other does.
    let twice = [ClientId(1), ClientId(1)];
    assert!(matches!(
        X::server_ciphertext_for_ids(&w.session, &slot, &w.servers[0], &twice),
        Err(DcError::DuplicateClient { .. })
    ));
    assert!(matches!(
        X::server_ciphertext_for_ids(&w.session, &slot, &w.servers[0], &[ClientId(5)]),
        Err(DcError::UnknownClient { .. })
    ));
}

/// Provable pad bits: a revealed DH secret with its DLEQ proof lets anyone recompute a pair's
/// pad bit; the ciphertext bit of an honest client is the XOR of its pad bits; a lying
/// reveal (wrong DH value, wrong key, tampered proof, other pair) is rejected and names its
/// prover.
#[test]
fn provable_pad_bits() {
    let mut r = testing::rng(26);
    let (n, m) = (3usize, 3usize);
    let w = testing::setup::<X>(n, m, 1, &mut r);
    let roster = w.session.roster();
    let sr = SlotRound::new(0, 42, 200);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let cover = X::cover(&w.session, &slot, &w.clients[1], &mut r).unwrap();
    for _ in 0..20 {
        let bit = r.gen_range(0..(X::frame_len(200) as u64 * 8));
        let mut xor = false;
        for j in 0..m {
            let s = ServerId(j as u32);
            let by_client =
                X::pad_bit_reveal_client(roster, ClientId(1), &w.client_keys[1], s, &mut r)
                    .unwrap();
            let by_server =
                X::pad_bit_reveal_server(roster, s, &w.server_keys[j], ClientId(1), &mut r)
                    .unwrap();
            let b1 = X::verify_pad_bit(roster, &by_client, sr, bit).unwrap();
            let b2 = X::verify_pad_bit(roster, &by_server, sr, bit).unwrap();
            let decoded = DhReveal::from_bytes(&by_client.to_bytes()).unwrap();
            assert_eq!(X::verify_pad_bit(roster, &decoded, sr, bit).unwrap(), b1);
            assert_eq!(b1, b2);
            assert_eq!(
                X::client_pad_bit(&w.session, &w.clients[1], s, sr, bit).unwrap(),
                b1
            );
            assert_eq!(
                X::server_pad_bit(&w.session, &w.servers[j], ClientId(1), sr, bit).unwrap(),
                b1
            );
            xor ^= b1;
        }
        assert_eq!(cover.bit(bit), Some(xor));
    }
    // The largest slot is allowed, one byte more is not (a seek, not a pad expansion).
    let by_client =
        X::pad_bit_reveal_client(roster, ClientId(1), &w.client_keys[1], ServerId(0), &mut r)
            .unwrap();
    let largest = SlotRound::new(0, 42, verdict_dcnet::MAX_SLOT_LEN);
    let last_bit = X::frame_len(verdict_dcnet::MAX_SLOT_LEN) as u64 * 8 - 1;
    assert!(X::verify_pad_bit(roster, &by_client, largest, last_bit).is_ok());
    let too_large = SlotRound::new(0, 42, verdict_dcnet::MAX_SLOT_LEN + 1);
    assert!(X::verify_pad_bit(roster, &by_client, too_large, 0).is_err());
    let reveal =
        X::pad_bit_reveal_server(roster, ServerId(2), &w.server_keys[2], ClientId(0), &mut r)
            .unwrap();
    let bytes = reveal.to_bytes();
    // A server lying about the DH value (any byte of the value or proof changed).
    for p in 9..bytes.len() {
        let mut b = bytes.clone();
        b[p] ^= 0x02;
        if let Ok(t) = DhReveal::<Ristretto255>::from_bytes(&b) {
            assert_eq!(
                X::verify_pad_bit(roster, &t, sr, 5),
                Err(DcError::InvalidDhReveal {
                    prover: Party::Server(ServerId(2))
                }),
                "byte {p}"
            );
        }
    }
    // Re-labelled for another pair: rejected.
    let mut b = bytes.clone();
    b[1] = 1; // client 1 instead of 0
    let t = DhReveal::<Ristretto255>::from_bytes(&b).unwrap();
    assert!(X::verify_pad_bit(roster, &t, sr, 5).is_err());
    // A client proving with the wrong key (claims to be client 2 with client 0's secret).
    let liar =
        X::pad_bit_reveal_client(roster, ClientId(2), &w.client_keys[0], ServerId(0), &mut r)
            .unwrap();
    assert_eq!(
        X::verify_pad_bit(roster, &liar, sr, 5),
        Err(DcError::InvalidDhReveal {
            prover: Party::Client(ClientId(2))
        })
    );
    // Bit index out of range; garbage encodings.
    assert!(X::verify_pad_bit(roster, &reveal, sr, X::frame_len(200) as u64 * 8).is_err());
    for len in [0, 1, 50, DhReveal::<Ristretto255>::encoded_len() + 1] {
        assert!(DhReveal::<Ristretto255>::from_bytes(&vec![0u8; len]).is_err());
    }
    let mut b = bytes.clone();
    b[0] = 7;
    assert!(DhReveal::<Ristretto255>::from_bytes(&b).is_err());
    let _ = Ristretto255::generator();
}

/// The hybrid blame path end to end: a disruptor flips output bits; the owner picks a bit where
/// it sent 0 and the output shows 1; the servers publish every client's pad bits; the client
/// whose ciphertext bit is not the XOR of its pad bits is the suspect. A server that lies about
/// a pad bit to frame an honest client is exposed by the client's provable reveal.
#[test]
fn blame_trace_finds_the_disruptor_and_a_lying_server() {
    let mut r = testing::rng(27);
    let (n, m) = (5usize, 3usize);
    let w = testing::setup::<X>(n, m, 1, &mut r);
    let roster = w.session.roster();
    let sr = SlotRound::new(0, 9, 40);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let owner = 2;
    let msg = b"attack at dawn";
    let mut cts = testing::client_ciphertexts(&w, &slot, Some((owner, msg)), &mut r);
    // Client 4 disrupts: flips a range of bits in its ciphertext.
    let disruptor = 4;
    for b in &mut cts[disruptor].bytes[4..20] {
        *b ^= 0xa5;
    }
    let acc: Vec<_> = cts
        .iter()
        .enumerate()
        .map(|(i, c)| (ClientId(i as u32), c))
        .collect();
    let scts: Vec<_> = w
        .servers
        .iter()
        .map(|s| X::server_ciphertext(&w.session, &slot, s, &acc, &mut r).unwrap())
        .collect();
    let srefs: Vec<&XorCiphertext> = scts.iter().collect();
    assert!(matches!(
        X::reveal(&w.session, &slot, &acc, &srefs),
        Err(DcError::CorruptReveal(_))
    ));
    // The owner recomputes the output and its own frame, and picks a bit it sent as 0 that
    // came out as 1.
    let mut output = vec![0u8; X::frame_len(40)];
    for c in cts.iter().chain(scts.iter()) {
        for (o, b) in output.iter_mut().zip(&c.bytes) {
            *o ^= *b;
        }
    }
    let mut frame = vec![0u8; X::frame_len(40)];
    frame[..4].copy_from_slice(&(msg.len() as u32).to_be_bytes());
    frame[4..4 + msg.len()].copy_from_slice(msg);
    let bit = (0..(frame.len() as u64 * 8))
        .find(|&b| {
            let (i, k) = ((b / 8) as usize, b % 8);
            (frame[i] >> k) & 1 == 0 && (output[i] >> k) & 1 == 1
        })
        .expect("a 0 → 1 flip exists");
    // Tracing: servers publish pad bits; the suspect's ciphertext bit differs from their XOR.
    let pad = |i: usize, j: usize| {
        X::server_pad_bit(&w.session, &w.servers[j], ClientId(i as u32), sr, bit).unwrap()
    };
    let suspects: Vec<usize> = (0..n)
        .filter(|&i| {
            let expected = (0..m).fold(false, |a, j| a ^ pad(i, j));
            cts[i].bit(bit) != Some(expected)
        })
        .collect();
    // The owner's own bit is also "unexpected" in that position only if its message bit is 1,
    // which the owner chose to be 0 — so the suspect is exactly the disruptor.
    assert_eq!(suspects, vec![disruptor]);
    // Servers' own ciphertext bits match their published pad bits.
    for (j, sct) in scts.iter().enumerate() {
        let expected = (0..n).fold(false, |a, i| a ^ pad(i, j));
        assert_eq!(sct.bit(bit), Some(expected));
    }
    // Rebuttal: server 1 lies about its pad bit with honest client 0, framing it; client 0
    // reveals its DH secret with server 1, and everyone sees the server lied.
    let claimed_by_server = !pad(0, 1);
    let reveal =
        X::pad_bit_reveal_client(roster, ClientId(0), &w.client_keys[0], ServerId(1), &mut r)
            .unwrap();
    let proven = X::verify_pad_bit(roster, &reveal, sr, bit).unwrap();
    assert_ne!(proven, claimed_by_server, "the server's claim is refuted");
    assert_eq!(proven, pad(0, 1));
}
