//! Negative cases of the verifiable suites: client and server ciphertexts of the complete
//! round (case 2) tampered with, replayed or re-labelled, each with the error a verifier
//! returns.

use serde_json::json;
use verdict_dcnet::{ClientId, DcError, PreparedSlot, ServerId, SlotRound, Verifiable};

use super::{Round, World, dc_error_name, flipped, invalid, pairs};
use crate::{Case, hx};

/// What a verifier says of the client ciphertext at position `pos` of `rd`'s accepted set.
fn client_verdict<C: Verifiable>(w: &World<C>, rd: &Round, pos: usize) -> Option<&'static str> {
    let slot = PreparedSlot::new(&w.session, rd.slot).ok()?;
    let client = ClientId(*rd.accepted.get(pos)?);
    let r = C::decode_client_ciphertext(rd.slot.len, rd.clients.get(pos)?)
        .map_err(DcError::from)
        .and_then(|ct| C::verify_client(&w.session, &slot, client, &ct));
    r.err().map(|e| dc_error_name(&e))
}

/// What a verifier says of server `j`'s ciphertext in `rd`.
fn server_verdict<C: Verifiable>(w: &World<C>, rd: &Round, j: usize) -> Option<&'static str> {
    let slot = PreparedSlot::new(&w.session, rd.slot).ok()?;
    let cts = rd.decode_clients::<C>().ok()?;
    let s = pairs(&rd.accepted, &cts);
    let r = C::decode_server_ciphertext(rd.slot.len, rd.servers.get(j)?)
        .map_err(DcError::from)
        .and_then(|d| C::verify_server(&w.session, &slot, ServerId(j as u32), &s, &d));
    r.err().map(|e| dc_error_name(&e))
}

/// Negative client-ciphertext cases for a verifiable suite, derived from the full round.
pub(super) fn client_negatives<C: Verifiable>(w: &World<C>, full: &Round) -> Vec<Case> {
    let mut cases = Vec::new();
    let ct = &full.clients[0];
    let len = full.slot.len;
    let mut push = |rd: Round, comment: String, flag: &'static str| {
        if let Some(e) = client_verdict(w, &rd, 0) {
            let target = json!({ "client": rd.accepted[0], "ciphertext": hx(&rd.clients[0]) });
            cases.push(invalid(comment, rd.negative(target), e, flag));
        }
    };
    let variant = |slot: SlotRound, accepted: Vec<u32>, first: Vec<u8>| {
        let mut clients = full.clients.clone();
        clients[0] = first;
        Round {
            slot,
            accepted,
            clients,
            servers: full.servers.clone(),
            message: None,
            client_events: Vec::new(),
            server_events: Vec::new(),
        }
    };
    let last = ct.len() - 1;
    push(
        variant(full.slot, full.accepted.clone(), flipped(ct, last)),
        "client 0's ciphertext with the low bit of its last (proof) byte flipped".into(),
        "tampered-proof",
    );
    push(
        variant(full.slot, full.accepted.clone(), flipped(ct, last - 40)),
        "client 0's ciphertext with a bit of a proof byte 40 bytes from the end flipped".into(),
        "tampered-proof",
    );
    push(
        variant(full.slot, full.accepted.clone(), flipped(ct, 1)),
        "client 0's ciphertext with a bit of its first element flipped".into(),
        "tampered-element",
    );
    let next_round = SlotRound::new(full.slot.slot, full.slot.round + 1, len);
    push(
        variant(next_round, full.accepted.clone(), ct.clone()),
        "client 0's ciphertext from round 1 replayed into round 2".into(),
        "replay-round",
    );
    let other_slot = SlotRound::new(full.slot.slot + 1, full.slot.round, len);
    push(
        variant(other_slot, full.accepted.clone(), ct.clone()),
        "client 0's ciphertext for slot 0 replayed into slot 1".into(),
        "replay-slot",
    );
    let mut swapped = full.accepted.clone();
    swapped.swap(0, 2);
    push(
        variant(full.slot, swapped, ct.clone()),
        "client 0's ciphertext submitted as client 2's".into(),
        "replay-client",
    );
    push(
        variant(full.slot, full.accepted.clone(), ct[..last].to_vec()),
        "client 0's ciphertext truncated by one byte".into(),
        "wrong-length",
    );
    push(
        variant(full.slot, full.accepted.clone(), [&ct[..], &[0]].concat()),
        "client 0's ciphertext with one extra byte".into(),
        "wrong-length",
    );
    cases
}

/// Negative server-ciphertext cases for a verifiable suite, derived from the full round.
pub(super) fn server_negatives<C: Verifiable>(w: &World<C>, full: &Round) -> Vec<Case> {
    let mut cases = Vec::new();
    let d0 = &full.servers[0];
    let last = d0.len() - 1;
    let mut push = |rd: Round, comment: String, flag: &'static str| {
        if let Some(e) = server_verdict(w, &rd, 0) {
            let target = json!({ "server": 0, "ciphertext": hx(&rd.servers[0]) });
            cases.push(invalid(comment, rd.negative(target), e, flag));
        }
    };
    let variant = |accepted: Vec<u32>, clients: Vec<Vec<u8>>, first: Vec<u8>| {
        let mut servers = full.servers.clone();
        servers[0] = first;
        Round {
            slot: full.slot,
            accepted,
            clients,
            servers,
            message: None,
            client_events: Vec::new(),
            server_events: Vec::new(),
        }
    };
    push(
        variant(
            full.accepted.clone(),
            full.clients.clone(),
            flipped(d0, last),
        ),
        "server 0's ciphertext with the low bit of its last (proof) byte flipped".into(),
        "tampered-proof",
    );
    push(
        variant(full.accepted.clone(), full.clients.clone(), flipped(d0, 1)),
        "server 0's ciphertext with a bit of its first element flipped".into(),
        "tampered-element",
    );
    push(
        variant(
            full.accepted[..2].to_vec(),
            full.clients[..2].to_vec(),
            d0.clone(),
        ),
        "server 0's ciphertext over all clients, checked against the accepted set {0, 1}".into(),
        "wrong-accepted-set",
    );
    push(
        variant(
            full.accepted.clone(),
            full.clients.clone(),
            full.servers[1].clone(),
        ),
        "server 1's ciphertext submitted as server 0's".into(),
        "replay-server",
    );
    push(
        variant(
            full.accepted.clone(),
            full.clients.clone(),
            d0[..last].to_vec(),
        ),
        "server 0's ciphertext truncated by one byte".into(),
        "wrong-length",
    );
    cases
}
