//! The XOR suite's file: it has no proofs, so its negative cases are caught by the reveal
//! (the frame's pseudonym signature) or by the decoder; rounds carry the revealed frame and
//! the signed message as intermediates.

use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};
use verdict_dcnet::{Ciphersuite, DcError, PreparedSlot, SecretKey, SlotRound};

use super::{
    Round, World, dc_error_name, flipped, invalid, pairs, session_group, valid_rounds, world,
};
use crate::{Cases, VectorFile, hx, rng};

/// The XOR of equally long byte strings (`n` bytes; the generator only XORs ciphertexts of one
/// slot, which all have that length).
fn xor_all<'a>(n: usize, parts: impl IntoIterator<Item = &'a Vec<u8>>) -> Vec<u8> {
    let mut out = vec![0u8; n];
    for p in parts {
        for (o, b) in out.iter_mut().zip(p) {
            *o ^= *b;
        }
    }
    out
}

/// The intermediates of an XOR round: `revealed_frame` (the XOR of every client and server
/// ciphertext) and, when a message was sent, `signed_message`: what the slot's pseudonym key
/// signed, `u64le(|suite|) ‖ suite ‖ session ‖ u32le(slot) ‖ u64le(round) ‖ u64le(len) ‖`
/// the frame's first `4 + |message|` bytes.
fn xor_intermediates<C: Ciphersuite>(
    w: &World<C>,
    pads: fn(&World<C>, SlotRound) -> Value,
) -> impl Fn(&Round) -> Value + '_ {
    move |rd| {
        let frame = xor_all(
            C::client_ciphertext_len(rd.slot.len),
            rd.clients.iter().chain(&rd.servers),
        );
        let mut v = json!({ "revealed_frame": hx(&frame), "pads": pads(w, rd.slot) });
        if let Some(m) = &rd.message {
            let suite = C::ID.to_bytes();
            let mut signed = (suite.len() as u64).to_le_bytes().to_vec();
            signed.extend_from_slice(&suite);
            signed.extend_from_slice(&w.session.id().0);
            signed.extend_from_slice(&rd.slot.to_bytes());
            signed.extend_from_slice(frame.get(..4 + m.len()).unwrap_or_default());
            v["signed_message"] = json!(hx(signed));
        }
        v
    }
}

/// The frame client `i` XORs in as the owner of `slot` with `pseudonym`: its owner ciphertext
/// XOR its cover (its pads).
fn frame_of<C: Ciphersuite>(
    w: &World<C>,
    slot: SlotRound,
    i: usize,
    pseudonym: &SecretKey<C>,
    msg: &[u8],
    r: &mut ChaCha20Rng,
) -> Option<Vec<u8>> {
    let prepared = PreparedSlot::new(&w.session, slot).ok()?;
    let owner = C::owner(&w.session, &prepared, &w.clients[i], pseudonym, msg, r).ok()?;
    let cover = C::cover(&w.session, &prepared, &w.clients[i], r).ok()?;
    let (owner, cover) = (
        C::encode_client_ciphertext(&owner),
        C::encode_client_ciphertext(&cover),
    );
    Some(xor_all(owner.len(), [&owner, &cover]))
}

/// The vector file of the XOR suite: it has no proofs, so negative cases are caught by the
/// reveal (the frame's pseudonym signature) or by the decoder.
pub(crate) fn xor_file<C: Ciphersuite>(
    name: &str,
    len: usize,
    description: &str,
    secrets: fn(&World<C>) -> Value,
    pads: fn(&World<C>, SlotRound) -> Value,
) -> VectorFile {
    let mut r = rng(name);
    let mut c = Cases::default();
    if let Some(w) = world::<C>(&mut r) {
        if let Some((full, valid)) = valid_rounds(&w, len, xor_intermediates::<C>(&w, pads), &mut r)
        {
            session_group(&mut c, &w, secrets(&w));
            c.group(
                "rounds",
                "complete rounds: the reveal of the client and server ciphertexts is \
                 expected.message (null: no message); intermediates.revealed_frame is the XOR \
                 of every ciphertext and, if a message was sent, intermediates.signed_message \
                 what the slot's pseudonym key signed",
                valid,
            );
            let mut negatives = Vec::new();
            let reveal_error = |rd: &Round| -> Option<&'static str> {
                let slot = PreparedSlot::new(&w.session, rd.slot).ok()?;
                let cts = match rd.decode_clients::<C>() {
                    Ok(v) => v,
                    Err(e) => return Some(dc_error_name(&DcError::Wire(e))),
                };
                let ds: Vec<C::ServerCiphertext> = rd
                    .servers
                    .iter()
                    .map(|b| C::decode_server_ciphertext(rd.slot.len, b))
                    .collect::<Result<_, _>>()
                    .ok()?;
                let s = pairs(&rd.accepted, &cts);
                C::reveal(&w.session, &slot, &s, &ds.iter().collect::<Vec<_>>())
                    .err()
                    .map(|e| dc_error_name(&e))
            };
            let ct = &full.clients[0];
            // Substitution: client 0 cancels the owner's frame (revealed in case 2) and XORs in
            // a validly signed frame of slot 1, i.e. signed by another slot's pseudonym key.
            let owners_frame = xor_all(ct.len(), full.clients.iter().chain(&full.servers));
            let slot1 = SlotRound::new(1, full.slot.round, len);
            let substituted = frame_of(&w, slot1, 0, &w.pseudonyms[1], b"forged report", &mut r)
                .map(|other| xor_all(ct.len(), [ct, &owners_frame, &other]));
            let mut variants: Vec<(SlotRound, Vec<u8>, &str, &'static str)> = vec![
                (
                    full.slot,
                    flipped(ct, 4),
                    "client 0's ciphertext with a bit of the first message byte flipped: \
                     the frame signature no longer verifies",
                    "tampered",
                ),
                (
                    SlotRound::new(full.slot.slot, full.slot.round + 1, len),
                    ct.clone(),
                    "the ciphertexts of round 1 revealed as round 2: the frame signature binds \
                     the round",
                    "replay-round",
                ),
                (
                    full.slot,
                    ct[..ct.len() - 1].to_vec(),
                    "client 0's ciphertext truncated by one byte",
                    "wrong-length",
                ),
            ];
            if let Some(sub) = substituted {
                variants.push((
                    full.slot,
                    sub,
                    "client 0 cancels the owner's frame and XORs in a validly signed frame of \
                     slot 1 (another slot's pseudonym key): the signature does not verify as \
                     slot 0's",
                    "forged-frame",
                ));
            }
            for (slot, first, comment, flag) in variants {
                let mut clients = full.clients.clone();
                clients[0] = first;
                let rd = Round {
                    slot,
                    accepted: full.accepted.clone(),
                    clients,
                    servers: full.servers.clone(),
                    message: None,
                    client_events: Vec::new(),
                    server_events: Vec::new(),
                };
                if let Some(e) = reveal_error(&rd) {
                    let target = json!({ "client": 0, "ciphertext": hx(&rd.clients[0]) });
                    negatives.push(invalid(comment.into(), rd.negative(target), e, flag));
                }
            }
            c.group(
                "reveals",
                "the round of case 2 with client 0's ciphertext (target) tampered with, \
                 replayed, truncated or carrying a forged frame: decoding or the reveal must \
                 fail with expected.error",
                negatives,
            );
        }
    }
    c.finish(name, &format!("dcnet/{}", C::ID), description)
}
