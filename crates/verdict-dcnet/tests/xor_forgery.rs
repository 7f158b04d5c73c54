//! XOR frame forgery: a client that does not own a slot tries to inject, suppress or substitute
//! the slot's message by XORing a frame of its own into its cover ciphertext. On suite
//! version 1 (unkeyed frame tag) all three succeeded silently; frames are now signed by the
//! slot's pseudonym key.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand_chacha::ChaCha20Rng;
use verdict_dcnet::testing;
use verdict_dcnet::xor::XorCiphertext;
use verdict_dcnet::{Ciphersuite, ClientId, DcError, PreparedSlot, SessionId, SlotRound, Xor};
use verdict_group::Ristretto255;
use verdict_nizk::SigningKey;

type X = Xor<Ristretto255>;

const N: usize = 4;
const M: usize = 2;
const OWNER: usize = 1;
const ATTACKER: usize = 3;

/// A version-1 frame: the unkeyed tag anyone could compute from public data.
fn public_frame(session: &SessionId, sr: SlotRound, msg: &[u8]) -> Vec<u8> {
    let mut frame = body(sr, msg);
    let suite = X::ID.to_bytes();
    let mut h = blake3::Hasher::new_derive_key("verdict-dcnet xor frame tag v1");
    h.update(&(suite.len() as u64).to_le_bytes());
    h.update(&suite);
    h.update(&session.0);
    h.update(&sr.to_bytes());
    h.update(&frame[..4 + msg.len()]);
    let tag = *h.finalize().as_bytes();
    frame[4 + sr.len..4 + sr.len + 32].copy_from_slice(&tag);
    frame
}

/// `len ‖ message ‖ zero padding ‖ zero signature field`.
fn body(sr: SlotRound, msg: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8; X::frame_len(sr.len)];
    frame[..4].copy_from_slice(&(msg.len() as u32).to_be_bytes());
    frame[4..4 + msg.len()].copy_from_slice(msg);
    frame
}

/// A version-2 frame signed with `key`, following the documented format (the attacker's tool;
/// with the slot's real pseudonym key it must give a frame the reveal accepts).
fn signed_frame(
    session: &SessionId,
    sr: SlotRound,
    msg: &[u8],
    key: &SigningKey<Ristretto255>,
    r: &mut ChaCha20Rng,
) -> Vec<u8> {
    let mut frame = body(sr, msg);
    let suite = X::ID.to_bytes();
    let mut signed = (suite.len() as u64).to_le_bytes().to_vec();
    signed.extend_from_slice(&suite);
    signed.extend_from_slice(&session.0);
    signed.extend_from_slice(&sr.to_bytes());
    signed.extend_from_slice(&frame[..4 + msg.len()]);
    let sig = key.sign(b"verdict-dcnet/xor/frame-signature/v1", &signed, r);
    frame[4 + sr.len..].copy_from_slice(&sig.to_bytes());
    frame
}

fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = a.to_vec();
    xor_into(&mut out, b);
    out
}

/// One round of slot 0 (owned by [`OWNER`], who sends `owner_msg` if given); the attacker
/// XORs `extra` into its cover ciphertext. Returns the reveal and the raw output (the XOR of
/// every ciphertext, which everyone sees after the round).
fn round_with(
    w: &testing::World<X>,
    sr: SlotRound,
    owner_msg: Option<&[u8]>,
    extra: &[u8],
    seed: u64,
) -> (Result<Option<Vec<u8>>, DcError>, Vec<u8>) {
    let mut r = testing::rng(seed);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let mut cts = testing::client_ciphertexts(w, &slot, owner_msg.map(|m| (OWNER, m)), &mut r);
    xor_into(&mut cts[ATTACKER].bytes, extra);
    let acc: Vec<_> = cts
        .iter()
        .enumerate()
        .map(|(i, c)| (ClientId(i as u32), c))
        .collect();
    let scts: Vec<XorCiphertext> = w
        .servers
        .iter()
        .map(|s| X::server_ciphertext(&w.session, &slot, s, &acc, &mut r).unwrap())
        .collect();
    let refs: Vec<&XorCiphertext> = scts.iter().collect();
    let mut raw = vec![0u8; X::frame_len(sr.len)];
    for c in cts.iter().chain(&scts) {
        xor_into(&mut raw, &c.bytes);
    }
    (X::reveal(&w.session, &slot, &acc, &refs), raw)
}

fn corrupt(r: &Result<Option<Vec<u8>>, DcError>) -> bool {
    matches!(r, Err(DcError::CorruptReveal(_)))
}

/// Version 1 let a non-owner inject into an idle slot (`Ok(Some(attacker message))`), cancel a
/// predictable owner frame (`Ok(None)`) and substitute another frame; every one of these must
/// now be reported as a corrupt slot.
#[test]
fn a_non_owner_cannot_inject_suppress_or_substitute() {
    let mut r = testing::rng(90);
    let w = testing::setup::<X>(N, M, 2, &mut r);
    let sid = *w.session.id();
    let sr = SlotRound::new(0, 5, 48);
    // The attacker owns slot 1: it has a pseudonym key of this session, just not slot 0's.
    let own_key = &w.pseudonyms[1];
    let slot0_key = &w.pseudonyms[0];

    // The test's frame builder follows the documented format: with slot 0's key it is a
    // valid frame (so the rejections below are about the key, not about the builder).
    let genuine = signed_frame(&sid, sr, b"genuine", slot0_key, &mut r);
    assert_eq!(
        round_with(&w, sr, None, &genuine, 1).0,
        Ok(Some(b"genuine".to_vec()))
    );

    // Injection into an idle slot: the old public tag, or a signature with the attacker's
    // own pseudonym key.
    for fake in [
        public_frame(&sid, sr, b"attacker says hi"),
        signed_frame(&sid, sr, b"attacker says hi", own_key, &mut r),
    ] {
        let (out, _) = round_with(&w, sr, None, &fake, 2);
        assert!(corrupt(&out), "injection: {out:?}");
    }

    // Suppression of a predictable message: the old public frame, a frame signed with the
    // wrong key, and the owner's own frame of the same message from the previous round (seen
    // in that round's output) — none cancels the owner's frame.
    let msg = b"predictable status report";
    let before = SlotRound::new(0, 4, 48);
    let (earlier, seen) = round_with(&w, before, Some(msg), &[], 3);
    assert_eq!(earlier, Ok(Some(msg.to_vec())));
    for cancel in [
        public_frame(&sid, sr, msg),
        signed_frame(&sid, sr, msg, own_key, &mut r),
        seen.clone(),
    ] {
        let (out, _) = round_with(&w, sr, Some(msg), &cancel, 4);
        assert!(corrupt(&out), "suppression: {out:?}");
    }

    // Substitution: cancel the owner's frame (as guessed) and add a forged one.
    let forged = signed_frame(&sid, sr, b"forged report", own_key, &mut r);
    for guess in [public_frame(&sid, sr, msg), seen] {
        let (out, _) = round_with(&w, sr, Some(msg), &xor(&guess, &forged), 5);
        assert!(corrupt(&out), "substitution: {out:?}");
    }

    // A valid frame of another slot or round is not a frame of this one.
    let other_round = signed_frame(
        &sid,
        SlotRound::new(0, 6, 48),
        b"replayed",
        slot0_key,
        &mut r,
    );
    let (out, _) = round_with(&w, sr, None, &other_round, 6);
    assert!(corrupt(&out), "replay from another round: {out:?}");
    let other_slot = signed_frame(&sid, SlotRound::new(1, 5, 48), b"replayed", own_key, &mut r);
    let (out, _) = round_with(&w, sr, None, &other_slot, 7);
    assert!(corrupt(&out), "replay from another slot: {out:?}");

    // Without interference the owner's message is delivered.
    assert_eq!(
        round_with(&w, sr, Some(msg), &[], 8).0,
        Ok(Some(msg.to_vec()))
    );
}

/// The frame's signature nonce is fresh: the owner signing the same message for the same slot
/// and round twice (a re-run round) gives two different frames, so the first one, once
/// revealed, does not cancel the second.
#[test]
fn frames_of_a_repeated_message_differ() {
    let mut r = testing::rng(91);
    let w = testing::setup::<X>(N, M, 1, &mut r);
    let sr = SlotRound::new(0, 2, 40);
    let msg = b"same message, same slot, same round";
    let (first, seen) = round_with(&w, sr, Some(msg), &[], 1);
    let (second, again) = round_with(&w, sr, Some(msg), &[], 2);
    assert_eq!(first, Ok(Some(msg.to_vec())));
    assert_eq!(second, Ok(Some(msg.to_vec())));
    // The message part is equal, the signatures differ.
    let sig = 4 + sr.len;
    assert_eq!(seen[..sig], again[..sig]);
    assert_ne!(seen[sig..], again[sig..]);
    let (out, _) = round_with(&w, sr, Some(msg), &seen, 3);
    assert!(corrupt(&out), "cancellation with a seen frame: {out:?}");
}
