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
use crate::recorded::recorded;

mod negatives;
mod secrets;
mod xor;

use negatives::{client_negatives, server_negatives};
pub(crate) use secrets::{hg_secrets, no_secrets, xor_pads, xor_secrets};
pub(crate) use xor::xor_file;

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
pub(crate) struct World<C: Ciphersuite> {
    session: Session<C>,
    json: Value,
    server_keys: Vec<SecretKey<C>>,
    client_keys: Vec<SecretKey<C>>,
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
        server_keys,
        client_keys,
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
    /// The `transcript_events` of making each client ciphertext (same order as `clients`).
    client_events: Vec<Value>,
    /// The `transcript_events` of making each server ciphertext.
    server_events: Vec<Value>,
}

impl Round {
    /// `v` (an object) with the round's `client_transcript_events` and
    /// `server_transcript_events` added.
    fn with_events(&self, mut v: Value) -> Value {
        v["client_transcript_events"] = Value::Array(self.client_events.clone());
        v["server_transcript_events"] = Value::Array(self.server_events.clone());
        v
    }

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
    let (cts, client_events): (Vec<C::ClientCiphertext>, Vec<Value>) = accepted
        .iter()
        .map(|&i| {
            let (ct, events) = recorded(|| match owner {
                Some((o, msg)) if o == i => C::owner(
                    &w.session,
                    &prepared,
                    &w.clients[i],
                    &w.pseudonyms[slot.slot as usize],
                    msg,
                    r,
                ),
                _ => C::cover(&w.session, &prepared, &w.clients[i], r),
            });
            ct.map(|ct| (ct, events))
        })
        .collect::<Result<Vec<_>, _>>()
        .ok()?
        .into_iter()
        .unzip();
    let ids: Vec<u32> = accepted.iter().map(|&i| i as u32).collect();
    let s = pairs(&ids, &cts);
    let (ds, server_events): (Vec<C::ServerCiphertext>, Vec<Value>) = w
        .servers
        .iter()
        .map(|st| {
            let (d, events) = recorded(|| C::server_ciphertext(&w.session, &prepared, st, &s, r));
            d.map(|d| (d, events))
        })
        .collect::<Result<Vec<_>, _>>()
        .ok()?
        .into_iter()
        .unzip();
    let message = C::reveal(&w.session, &prepared, &s, &ds.iter().collect::<Vec<_>>()).ok()?;
    Some(Round {
        slot,
        accepted: ids,
        clients: cts.iter().map(C::encode_client_ciphertext).collect(),
        servers: ds.iter().map(C::encode_server_ciphertext).collect(),
        message,
        client_events,
        server_events,
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
        .intermediates(full.with_events(intermediates(&full)))
        .flag("owner")
        .flag("cover"),
        Case::valid(
            "slot 0, round 2: every client sends a cover: no message",
            empty.inputs(),
            expected_message(&None),
        )
        .intermediates(empty.with_events(intermediates(&empty)))
        .flag("cover")
        .flag("empty"),
        Case::valid(
            format!("slot 1, round 3: only clients 0 and {OWNER} accepted (churn)"),
            churn.inputs(),
            expected_message(&churn.message),
        )
        .intermediates(churn.with_events(intermediates(&churn)))
        .flag("owner")
        .flag("churn"),
    ];
    Some((full, cases))
}

/// The first group: the session (case [`SESSION_CASE`]); establishing it must succeed.
fn session_group<C: Ciphersuite>(c: &mut Cases, w: &World<C>, secrets: Value) {
    c.group(
        "session",
        "the session every other case uses: session id, public keys of the servers, clients \
         and slot pseudonyms, and every participant's set-up message (client i at index i); \
         decoding them and establishing the session must succeed",
        vec![
            Case::valid(
                format!("{N} clients, {M} servers, {SLOTS} slots"),
                w.json.clone(),
                json!({}),
            )
            .intermediates(secrets),
        ],
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

/// A negative case expecting `error`.
pub(super) fn invalid(
    comment: String,
    inputs: Value,
    error: &'static str,
    flag: &'static str,
) -> Case {
    Case::invalid(comment, inputs, json!({ "error": error })).flag(flag)
}

/// The vector file of a verifiable suite with slot capacity `len`.
pub(crate) fn file<C: Verifiable>(
    name: &str,
    len: usize,
    description: &str,
    secrets: fn(&World<C>) -> Value,
) -> VectorFile {
    let mut r = rng(name);
    let mut c = Cases::default();
    if let Some(w) = world::<C>(&mut r) {
        if let Some((full, valid)) = valid_rounds(&w, len, |_| json!({}), &mut r) {
            session_group(&mut c, &w, secrets(&w));
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
