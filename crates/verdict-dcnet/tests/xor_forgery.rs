//! XOR frame forgery: a client that does not own a slot tries to inject, suppress or substitute
//! the slot's message by XORing a frame of its own into its cover ciphertext.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use verdict_dcnet::xor::XorCiphertext;
use verdict_dcnet::{Ciphersuite, ClientId, DcError, PreparedSlot, SessionId, SlotRound, Xor};
use verdict_group::Ristretto255;

type X = Xor<Ristretto255>;

const N: usize = 4;
const M: usize = 2;
const OWNER: usize = 1;
const ATTACKER: usize = 3;

/// The frame the attacker can build for `msg` from public data alone: the old unkeyed tag.
fn public_frame(session: &SessionId, sr: SlotRound, msg: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8; X::frame_len(sr.len)];
    frame[..4].copy_from_slice(&(msg.len() as u32).to_be_bytes());
    frame[4..4 + msg.len()].copy_from_slice(msg);
    let suite = X::ID.to_bytes();
    let mut h = blake3::Hasher::new_derive_key("verdict-dcnet xor frame tag v1");
    h.update(&(suite.len() as u64).to_le_bytes());
    h.update(&suite);
    h.update(&session.0);
    h.update(&sr.to_bytes());
    h.update(&frame[..4 + msg.len()]);
    let tag = *h.finalize().as_bytes();
    frame[4 + sr.len..].copy_from_slice(&tag);
    frame
}

fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

/// One round of slot 0 (owned by [`OWNER`], who sends `owner_msg` if given); the attacker
/// XORs `extra` into its cover ciphertext. Returns the reveal.
fn round_with(
    w: &common::World<X>,
    sr: SlotRound,
    owner_msg: Option<&[u8]>,
    extra: &[u8],
    seed: u64,
) -> Result<Option<Vec<u8>>, DcError> {
    let mut r = common::rng(seed);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let mut cts = common::client_ciphertexts(w, &slot, owner_msg.map(|m| (OWNER, m)), &mut r);
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
    X::reveal(&w.session, &slot, &acc, &refs)
}

#[test]
fn public_tag_lets_a_non_owner_inject_suppress_and_substitute() {
    let mut r = common::rng(90);
    let w = common::setup::<X>(N, M, 2, &mut r);
    let sr = SlotRound::new(0, 5, 48);
    let sid = *w.session.id();

    // Injection into an idle slot (nobody owns slot 0 this round).
    let fake = public_frame(&sid, sr, b"attacker says hi");
    let injected = round_with(&w, sr, None, &fake, 1);
    println!("injection into an idle slot: {injected:?}");

    // Suppression: the owner's message is predictable, the attacker cancels its frame.
    let msg = b"predictable status report";
    let cancel = public_frame(&sid, sr, msg);
    let suppressed = round_with(&w, sr, Some(msg), &cancel, 2);
    println!("cancellation of the owner's frame: {suppressed:?}");

    // Substitution: cancel the owner's frame and put another valid one in its place.
    let mut swap = public_frame(&sid, sr, msg);
    xor_into(&mut swap, &public_frame(&sid, sr, b"forged report"));
    let substituted = round_with(&w, sr, Some(msg), &swap, 3);
    println!("substitution of the owner's frame: {substituted:?}");

    assert_eq!(injected, Ok(Some(b"attacker says hi".to_vec())));
    assert_eq!(suppressed, Ok(None));
    assert_eq!(substituted, Ok(Some(b"forged report".to_vec())));
}
