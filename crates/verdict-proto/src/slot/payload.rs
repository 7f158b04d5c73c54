//! What an owner puts in a slot: `next_len (u32 BE) ‖ body`, and the pseudonym signature that
//! binds it to its owner, session, round and slot (domain-separated, so a slot signature is
//! never valid as anything else).

use verdict_dcnet::SessionId;
use verdict_group::Group;
use verdict_nizk::{Signature, SigningKey, VerifyingKey};

use super::{SLOT_HEADER_LEN, SlotKind};
use crate::wire::Writer;

const SLOT_SIGNATURE_DOMAIN: &[u8] = b"verdict-proto/slot-content/v1";

/// The pseudonym signature binding a slot's content to its owner, session, round and slot.
fn slot_message(
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&session.0)
        .u64(round)
        .u8(kind as u8)
        .u32(slot)
        .bytes(content);
    w.finish()
}

/// Signs slot content with the slot's pseudonym key.
pub fn sign_slot<G: Group, R: rand_core::RngCore + rand_core::CryptoRng + ?Sized>(
    key: &SigningKey<G>,
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
    rng: &mut R,
) -> Signature<G> {
    key.sign(
        SLOT_SIGNATURE_DOMAIN,
        &slot_message(session, round, kind, slot, content),
        rng,
    )
}

/// Verifies a slot content signature.
pub fn verify_slot<G: Group>(
    key: &VerifyingKey<G>,
    session: &SessionId,
    round: u64,
    kind: SlotKind,
    slot: u32,
    content: &[u8],
    signature: &Signature<G>,
) -> bool {
    key.verify(
        SLOT_SIGNATURE_DOMAIN,
        &slot_message(session, round, kind, slot, content),
        signature,
    )
    .is_ok()
}

/// Splits a slot payload into the requested next capacity and the body.
pub fn split_payload(payload: &[u8]) -> Option<(u32, &[u8])> {
    let (head, body) = payload.split_first_chunk::<SLOT_HEADER_LEN>()?;
    Some((u32::from_be_bytes(*head), body))
}

/// `next_len (u32 BE) ‖ body`.
pub fn join_payload(next_len: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SLOT_HEADER_LEN + body.len());
    out.extend_from_slice(&next_len.to_be_bytes());
    out.extend_from_slice(body);
    out
}
