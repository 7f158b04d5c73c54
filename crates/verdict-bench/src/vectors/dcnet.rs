//! DC-net suite vectors: one file per suite. A small session (N = 3 clients, M = 2 servers,
//! 2 slots), one round of slot 0 with client 1 owning it: every public key and set-up message,
//! the client ciphertexts (cover and owner), the server ciphertexts, the reveal; an all-cover
//! round ("no message"); a churned round (a subset of the clients). Negative cases: a flipped
//! proof or element byte, a ciphertext replayed into another round, slot or client, a server
//! ciphertext over the wrong accepted set or claimed by another server, and wrong-length
//! encodings — each with the error the public API returns ([`dc_error_name`]).
//!
//! Case inputs (all byte strings hex):
//! - case 1 (group `session`): `id`, `servers`, `clients`, `pseudonyms` (public-key
//!   encodings), `client_setups`, `server_setups` (set-up message encodings, client `i` at
//!   index `i`);
//! - rounds: `session_case` (= 1), `slot`, `round`, `len` (slot capacity in bytes),
//!   `accepted` (client ids), `client_ciphertexts` (one per accepted client, same order),
//!   `server_ciphertexts` (server `j` at index `j`); `expected.message` is the reveal (hex, or
//!   `null` for "no message");
//! - negative cases: `round_case` (= 2, the complete round they modify), `slot`, `round`,
//!   `len`, `accepted`, and `target` = `{"client": i, "ciphertext": …}` or
//!   `{"server": j, "ciphertext": …}`: the ciphertext under test, attributed to client `i` or
//!   server `j`; every other ciphertext is round 2's (client ones looked up by id). A verifier
//!   must reject the target with `expected.error` (for XOR, which has no proofs: the reveal).
//!
//! Suite-specific layouts (`verdict_dcnet`'s docs have the details):
//! - ElGamal (suite version 2): a client ciphertext is `R_1..R_L ‖ C_1..C_L` and the OR proof
//!   whose owner branch proves `Y = y·G ∧ ∀k R_k = r_k·G` (`32·(7L + 3)` bytes on
//!   ristretto255);
//! - XOR (suite version 2): every ciphertext is `len + 4 + 64` bytes on ristretto255. Rounds
//!   carry `intermediates.revealed_frame` (the XOR of all client and server ciphertexts: all
//!   zero for "no message", else `u32be(|m|) ‖ m ‖ zero padding ‖ σ`) and, with a message,
//!   `intermediates.signed_message`
//!   (`u64le(|suite|) ‖ suite ‖ session ‖ u32le(slot) ‖ u64le(round) ‖ u64le(len) ‖ u32be(|m|) ‖ m`);
//!   `σ = R ‖ s` is a `verdict_nizk` Schnorr signature on it under the domain
//!   `verdict-dcnet/xor/frame-signature/v1` by the slot's pseudonym key (case 1's
//!   `pseudonyms[slot]`). The `forged-frame` negative case replaces the owner's frame with a
//!   validly signed frame of another slot.

use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use serde_json::{Value, json};
use verdict_dcnet::{
    Ciphersuite, ClientId, DcDecodeError, DcError, PreparedSlot, PublicKey, Roster, SecretKey,
    ServerId, Session, SessionId, SlotRound, Verifiable,
};

use super::{Case, Cases, VectorFile, hx, rng};

const N: usize = 3;
const M: usize = 2;
const SLOTS: usize = 2;
const OWNER: usize = 1;
/// The id of the case holding the session (keys and set-up messages).
const SESSION_CASE: u64 = 1;
/// The id of the complete round the negative cases modify.
const FULL_CASE: u64 = 2;

/// The stable name of a DC-net error, as used in `expected.error`.
pub fn dc_error_name(e: &DcError) -> &'static str {
    use verdict_dcnet::DcDecodeError as W;
    match e {
        DcError::InvalidClientProof { .. } => "InvalidClientProof",
        DcError::InvalidServerProof { .. } => "InvalidServerProof",
        DcError::WrongCiphertextLength { .. } => "WrongCiphertextLength",
        DcError::CorruptReveal(_) => "CorruptReveal",
        DcError::Wire(W::Length { .. }) => "WireLength",
        DcError::Wire(W::Field { .. }) => "WireField",
        DcError::Wire(W::Proof(_)) => "WireProof",
        DcError::Wire(_) => "Wire",
        _ => "Other",
    }
}

/// Everything the generator knows about the session.
struct World<C: Ciphersuite> {
    session: Session<C>,
    json: Value,
    pseudonyms: Vec<SecretKey<C>>,
    clients: Vec<C::ClientState>,
    servers: Vec<C::ServerState>,
}

fn world<C: Ciphersuite>(r: &mut ChaCha20Rng) -> Option<World<C>> {
    let mut sid = [0u8; 32];
    r.fill_bytes(&mut sid);
    let (server_keys, server_pks): (Vec<_>, Vec<_>) = (0..M).map(|_| C::generate_key(r)).unzip();
    let (client_keys, client_pks): (Vec<_>, Vec<_>) = (0..N).map(|_| C::generate_key(r)).unzip();
    let (pseudonyms, pseudonym_pks): (Vec<_>, Vec<_>) =
        (0..SLOTS).map(|_| C::generate_pseudonym(r)).unzip();
    let keys = |ks: &[PublicKey<C>]| -> Vec<String> {
        ks.iter().map(|k| hx(C::encode_public_key(k))).collect()
    };
    let mut json = json!({
        "id": hx(sid),
        "servers": keys(&server_pks),
        "clients": keys(&client_pks),
        "pseudonyms": pseudonym_pks.iter().map(|k| hx(C::encode_pseudonym_key(k))).collect::<Vec<_>>(),
    });
    let roster = Roster::<C>::new(SessionId(sid), server_pks, client_pks, pseudonym_pks).ok()?;
    let (clients, csetups): (Vec<_>, Vec<_>) = client_keys
        .iter()
        .enumerate()
        .map(|(i, k)| C::client_setup(&roster, ClientId(i as u32), k, r).ok())
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .unzip();
    let (servers, ssetups): (Vec<_>, Vec<_>) = server_keys
        .iter()
        .enumerate()
        .map(|(j, k)| C::server_setup(&roster, ServerId(j as u32), k, r).ok())
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .unzip();
    json["client_setups"] = csetups
        .iter()
        .map(|m| hx(C::encode_client_setup(m)))
        .collect();
    json["server_setups"] = ssetups
        .iter()
        .map(|m| hx(C::encode_server_setup(m)))
        .collect();
    let session = Session::establish(roster, &csetups, &ssetups).ok()?;
    Some(World {
        session,
        json,
        pseudonyms,
        clients,
        servers,
    })
}

/// One round's encoded ciphertexts.
struct Round {
    slot: SlotRound,
    accepted: Vec<u32>,
    clients: Vec<Vec<u8>>,
    servers: Vec<Vec<u8>>,
    message: Option<Vec<u8>>,
}

impl Round {
    /// A complete round's inputs; the session is case [`SESSION_CASE`].
    fn inputs(&self) -> Value {
        json!({
            "session_case": SESSION_CASE,
            "slot": self.slot.slot,
            "round": self.slot.round,
            "len": self.slot.len,
            "accepted": self.accepted,
            "client_ciphertexts": self.clients.iter().map(hx).collect::<Vec<_>>(),
            "server_ciphertexts": self.servers.iter().map(hx).collect::<Vec<_>>(),
        })
    }
    /// A negative case's inputs: round [`FULL_CASE`] with `slot`, the accepted set and one
    /// ciphertext (`target`) replaced; every other ciphertext is the base round's, looked up
    /// by client id.
    fn negative(&self, target: Value) -> Value {
        json!({
            "round_case": FULL_CASE,
            "slot": self.slot.slot,
            "round": self.slot.round,
            "len": self.slot.len,
            "accepted": self.accepted,
            "target": target,
        })
    }
}

impl Round {
    /// The client ciphertexts, decoded.
    fn decode_clients<C: Ciphersuite>(&self) -> Result<Vec<C::ClientCiphertext>, DcDecodeError> {
        self.clients
            .iter()
            .map(|b| C::decode_client_ciphertext(self.slot.len, b))
            .collect()
    }
}

/// `(id, ciphertext)` pairs of an accepted set.
fn pairs<'a, T>(ids: &[u32], cts: &'a [T]) -> Vec<(ClientId, &'a T)> {
    ids.iter()
        .zip(cts)
        .map(|(&i, ct)| (ClientId(i), ct))
        .collect()
}

/// Runs a round of `slot` with `accepted` clients (`owner` transmits `message` if accepted).
fn round<C: Ciphersuite>(
    w: &World<C>,
    slot: SlotRound,
    accepted: &[usize],
    owner: Option<(usize, &[u8])>,
    r: &mut ChaCha20Rng,
) -> Option<Round> {
    let prepared = PreparedSlot::new(&w.session, slot).ok()?;
    let cts: Vec<C::ClientCiphertext> = accepted
        .iter()
        .map(|&i| match owner {
            Some((o, msg)) if o == i => C::owner(
                &w.session,
                &prepared,
                &w.clients[i],
                &w.pseudonyms[slot.slot as usize],
                msg,
                r,
            ),
            _ => C::cover(&w.session, &prepared, &w.clients[i], r),
        })
        .collect::<Result<_, _>>()
        .ok()?;
    let ids: Vec<u32> = accepted.iter().map(|&i| i as u32).collect();
    let s = pairs(&ids, &cts);
    let ds: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .map(|st| C::server_ciphertext(&w.session, &prepared, st, &s, r))
        .collect::<Result<_, _>>()
        .ok()?;
    let message = C::reveal(&w.session, &prepared, &s, &ds.iter().collect::<Vec<_>>()).ok()?;
    Some(Round {
        slot,
        accepted: ids,
        clients: cts.iter().map(C::encode_client_ciphertext).collect(),
        servers: ds.iter().map(C::encode_server_ciphertext).collect(),
        message,
    })
}

fn message(r: &mut ChaCha20Rng, len: usize) -> Vec<u8> {
    let mut m = vec![0u8; len];
    r.fill_bytes(&mut m);
    m
}

fn expected_message(m: &Option<Vec<u8>>) -> Value {
    json!({ "message": m.as_ref().map(hx) })
}

/// The valid rounds every suite has: a full round with an owner, an all-cover round, a
/// churned round, each with the `intermediates` the suite documents. Returns them with the
/// full round (used by the negative cases).
fn valid_rounds<C: Ciphersuite>(
    w: &World<C>,
    len: usize,
    intermediates: impl Fn(&Round) -> Value,
    r: &mut ChaCha20Rng,
) -> Option<(Round, Vec<Case>)> {
    let msg = message(r, len);
    let all: Vec<usize> = (0..N).collect();
    let full = round(w, SlotRound::new(0, 1, len), &all, Some((OWNER, &msg)), r)?;
    let empty = round(w, SlotRound::new(0, 2, len), &all, None, r)?;
    let short = message(r, len / 2);
    let churn = round(
        w,
        SlotRound::new(1, 3, len),
        &[0, OWNER],
        Some((OWNER, &short)),
        r,
    )?;
    if full.message.as_deref() != Some(&msg[..])
        || empty.message.is_some()
        || churn.message.as_deref() != Some(&short[..])
    {
        return None;
    }
    let cases = vec![
        Case::valid(
            format!("slot 0, round 1: client {OWNER} owns the slot, all {N} clients accepted"),
            full.inputs(),
            expected_message(&full.message),
        )
        .intermediates(intermediates(&full))
        .flag("owner")
        .flag("cover"),
        Case::valid(
            "slot 0, round 2: every client sends a cover: no message",
            empty.inputs(),
            expected_message(&None),
        )
        .intermediates(intermediates(&empty))
        .flag("cover")
        .flag("empty"),
        Case::valid(
            format!("slot 1, round 3: only clients 0 and {OWNER} accepted (churn)"),
            churn.inputs(),
            expected_message(&churn.message),
        )
        .intermediates(intermediates(&churn))
        .flag("owner")
        .flag("churn"),
    ];
    Some((full, cases))
}

/// The first group: the session (case [`SESSION_CASE`]); establishing it must succeed.
fn session_group<C: Ciphersuite>(c: &mut Cases, w: &World<C>) {
    c.group(
        "session",
        "the session every other case uses: session id, public keys of the servers, clients \
         and slot pseudonyms, and every participant's set-up message (client i at index i); \
         decoding them and establishing the session must succeed",
        vec![Case::valid(
            format!("{N} clients, {M} servers, {SLOTS} slots"),
            w.json.clone(),
            json!({}),
        )],
    );
}

/// A copy of `bytes` with one bit of byte `at` flipped.
fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    if let Some(x) = b.get_mut(at) {
        *x ^= 0x01;
    }
    b
}

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

fn invalid(comment: String, inputs: Value, error: &'static str, flag: &'static str) -> Case {
    Case::invalid(comment, inputs, json!({ "error": error })).flag(flag)
}

/// Negative client-ciphertext cases for a verifiable suite, derived from the full round.
fn client_negatives<C: Verifiable>(w: &World<C>, full: &Round) -> Vec<Case> {
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
fn server_negatives<C: Verifiable>(w: &World<C>, full: &Round) -> Vec<Case> {
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

/// The vector file of a verifiable suite with slot capacity `len`.
pub(crate) fn file<C: Verifiable>(name: &str, len: usize, description: &str) -> VectorFile {
    let mut r = rng(name);
    let mut c = Cases::default();
    if let Some(w) = world::<C>(&mut r) {
        if let Some((full, valid)) = valid_rounds(&w, len, |_| json!({}), &mut r) {
            session_group(&mut c, &w);
            c.group(
                "rounds",
                "complete rounds: every client ciphertext and server ciphertext verifies \
                 (singly and batched), and the reveal is expected.message (null: no message)",
                valid,
            );
            c.group(
                "client-ciphertexts",
                "the round of case 2 with client 0's ciphertext (target) replaced, replayed \
                 or re-labelled: decoding or client verification must fail with expected.error",
                client_negatives(&w, &full),
            );
            c.group(
                "server-ciphertexts",
                "the round of case 2 with server 0's ciphertext (target) tampered with, \
                 re-labelled or checked against another accepted set: decoding or server \
                 verification must fail with expected.error",
                server_negatives(&w, &full),
            );
        }
    }
    c.finish(name, &format!("dcnet/{}", C::ID), description)
}

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
fn xor_intermediates<C: Ciphersuite>(w: &World<C>) -> impl Fn(&Round) -> Value + '_ {
    move |rd| {
        let frame = xor_all(
            C::client_ciphertext_len(rd.slot.len),
            rd.clients.iter().chain(&rd.servers),
        );
        let mut v = json!({ "revealed_frame": hx(&frame) });
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
pub(crate) fn xor_file<C: Ciphersuite>(name: &str, len: usize, description: &str) -> VectorFile {
    let mut r = rng(name);
    let mut c = Cases::default();
    if let Some(w) = world::<C>(&mut r) {
        if let Some((full, valid)) = valid_rounds(&w, len, xor_intermediates::<C>(&w), &mut r) {
            session_group(&mut c, &w);
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
