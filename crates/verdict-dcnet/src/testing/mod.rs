//! A generic conformance harness for [`Ciphersuite`] implementations (cargo feature `testing`).
//!
//! Every suite of this crate runs these drivers in its tests; another implementation of
//! [`Ciphersuite`] (and of [`Verifiable`](crate::Verifiable) or [`Aggregating`](crate::Aggregating), if it
//! implements them) can run the same checks on itself, like `group`'s exported conformance
//! suite. Enable the feature for your tests:
//!
//! ```toml
//! [dev-dependencies]
//! verdict-dcnet = { version = "0.1", features = ["testing"] }
//! ```
//!
//! and call the drivers from `#[test]` functions (here on this crate's hashing-generator
//! suite):
//!
//! ```
//! use verdict_dcnet::{HashingGenerator, testing};
//! use verdict_group::Ristretto255;
//!
//! type Suite = HashingGenerator<Ristretto255>;
//! // Owner and cover ciphertexts have the declared size; wrong keys and long messages fail.
//! testing::shape::<Suite>(&[0, 29], 1);
//! // Truncated, oversized and garbage encodings are errors, never panics.
//! testing::bad_input::<Suite>(100, 2);
//! ```
//!
//! The drivers, each deterministic given its `seed`:
//!
//! - [`integrity_matrix`]: every reveal is exact, over server counts, client counts, slot
//!   capacities and owner positions; an empty slot reveals "no message";
//! - [`churn`]: random accepted subsets (with and without the owner) reveal exactly;
//! - [`shape`]: anonymity shape: owner and cover ciphertexts look alike; owner misuse fails;
//! - [`bad_input`]: decoders and structural misuse give errors;
//! - [`soundness`] ([`Verifiable`](crate::Verifiable) suites): tampering, replays and wrong attributions are
//!   rejected naming the culprit, singly and in batches;
//! - [`aggregation`] ([`Aggregating`](crate::Aggregating) suites): aggregates reveal what the
//!   ciphertexts reveal, and wrong aggregates never reveal the message;
//! - [`decoders_never_panic`]: for fuzz-style inputs: whatever decodes re-encodes identically.
//!
//! The building blocks ([`setup`] of a [`World`], [`round`], [`client_ciphertexts`], the
//! wire round trips) are public too, for suite-specific tests.
//!
//! Failures panic, as test assertions do, with a message saying what was violated (the suite
//! id, parameters or offending byte). This module is test support, not protocol code: it is
//! compiled only with the feature.
#![cfg(feature = "testing")]
// Test drivers report a violated property by panicking, exactly like `assert!` in a test; an
// unexpected error from the suite under test is a failure too, so `unwrap` is the point here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod aggregation;
mod correctness;
mod soundness;

pub use aggregation::aggregation;
pub use correctness::{bad_input, churn, integrity_matrix, shape};
pub use soundness::{decoders_never_panic, soundness};

use rand::seq::SliceRandom;
use rand::{CryptoRng, RngCore, SeedableRng};

use crate::{
    Ciphersuite, ClientId, DcError, PreparedSlot, Roster, SecretKey, ServerId, Session, SessionId,
    SlotRound,
};

/// The deterministic RNG of the drivers (ChaCha20), so a failure reproduces from its seed.
pub type TestRng = rand_chacha::ChaCha20Rng;

/// A deterministic RNG for tests.
pub fn rng(seed: u64) -> TestRng {
    TestRng::seed_from_u64(seed)
}

/// Everything a test needs: the session and every participant's secrets.
pub struct World<C: Ciphersuite> {
    /// The established session.
    pub session: Session<C>,
    /// Client `i`'s long-term secret key, at index `i`.
    pub client_keys: Vec<SecretKey<C>>,
    /// Server `j`'s long-term secret key, at index `j`.
    pub server_keys: Vec<SecretKey<C>>,
    /// The pseudonym secret key owning slot `s`, at index `s`.
    pub pseudonyms: Vec<SecretKey<C>>,
    /// Client `i`'s state after set-up.
    pub clients: Vec<C::ClientState>,
    /// Server `j`'s state after set-up.
    pub servers: Vec<C::ServerState>,
    /// Client `i`'s set-up message (as decoded from the wire).
    pub client_setups: Vec<C::ClientSetup>,
    /// Server `j`'s set-up message (as decoded from the wire).
    pub server_setups: Vec<C::ServerSetup>,
}

/// Roster for `n` clients, `m` servers and `slots` slots; set-up messages go through the wire
/// encoding; the session is established from the decoded messages.
pub fn setup<C: Ciphersuite>(
    n: usize,
    m: usize,
    slots: usize,
    r: &mut (impl RngCore + CryptoRng),
) -> World<C> {
    let mut sid = [0u8; 32];
    r.fill_bytes(&mut sid);
    let (server_keys, server_pks): (Vec<_>, Vec<_>) = (0..m).map(|_| C::generate_key(r)).unzip();
    let (client_keys, client_pks): (Vec<_>, Vec<_>) = (0..n).map(|_| C::generate_key(r)).unzip();
    let (pseudonyms, pseudonym_pks): (Vec<_>, Vec<_>) =
        (0..slots).map(|_| C::generate_pseudonym(r)).unzip();
    // Keys go through their wire format too.
    let server_pks = server_pks
        .iter()
        .map(|k| C::decode_public_key(&C::encode_public_key(k)).unwrap())
        .collect();
    let client_pks = client_pks
        .iter()
        .map(|k| C::decode_public_key(&C::encode_public_key(k)).unwrap())
        .collect();
    let pseudonym_pks = pseudonym_pks
        .iter()
        .map(|k| C::decode_pseudonym_key(&C::encode_pseudonym_key(k)).unwrap())
        .collect();
    let roster = Roster::<C>::new(SessionId(sid), server_pks, client_pks, pseudonym_pks).unwrap();
    let mut clients = Vec::new();
    let mut client_setups = Vec::new();
    for (i, k) in client_keys.iter().enumerate() {
        let (st, msg) = C::client_setup(&roster, ClientId(i as u32), k, r).unwrap();
        let bytes = C::encode_client_setup(&msg);
        client_setups.push(C::decode_client_setup(&roster, &bytes).unwrap());
        clients.push(st);
    }
    let mut servers = Vec::new();
    let mut server_setups = Vec::new();
    for (j, k) in server_keys.iter().enumerate() {
        let (st, msg) = C::server_setup(&roster, ServerId(j as u32), k, r).unwrap();
        let bytes = C::encode_server_setup(&msg);
        server_setups.push(C::decode_server_setup(&roster, &bytes).unwrap());
        servers.push(st);
    }
    let session = Session::establish(roster, &client_setups, &server_setups).unwrap();
    World {
        session,
        client_keys,
        server_keys,
        pseudonyms,
        clients,
        servers,
        client_setups,
        server_setups,
    }
}

/// The client ciphertexts of one slot: the owner (if any) sends `message`, everyone else covers.
pub fn client_ciphertexts<C: Ciphersuite>(
    w: &World<C>,
    slot: &PreparedSlot<C>,
    owner: Option<(usize, &[u8])>,
    r: &mut (impl RngCore + CryptoRng),
) -> Vec<C::ClientCiphertext> {
    (0..w.clients.len())
        .map(|i| match owner {
            Some((o, msg)) if o == i => C::owner(
                &w.session,
                slot,
                &w.clients[i],
                &w.pseudonyms[slot.slot() as usize],
                msg,
                r,
            )
            .unwrap(),
            _ => C::cover(&w.session, slot, &w.clients[i], r).unwrap(),
        })
        .collect()
}

/// Sends ciphertexts through the wire (encode, decode) and checks their size.
pub fn wire_client<C: Ciphersuite>(len: usize, ct: &C::ClientCiphertext) -> C::ClientCiphertext {
    let bytes = C::encode_client_ciphertext(ct);
    assert_eq!(bytes.len(), C::client_ciphertext_len(len));
    let back = C::decode_client_ciphertext(len, &bytes).unwrap();
    assert_eq!(&back, ct);
    back
}

/// Same for server ciphertexts.
pub fn wire_server<C: Ciphersuite>(len: usize, ct: &C::ServerCiphertext) -> C::ServerCiphertext {
    let bytes = C::encode_server_ciphertext(ct);
    assert_eq!(bytes.len(), C::server_ciphertext_len(len));
    let back = C::decode_server_ciphertext(len, &bytes).unwrap();
    assert_eq!(&back, ct);
    back
}

/// One full round over the accepted set `accepted` (indices into the clients); returns the
/// reveal. Every ciphertext goes through the wire format.
pub fn round<C: Ciphersuite>(
    w: &World<C>,
    sr: SlotRound,
    owner: Option<(usize, &[u8])>,
    accepted: &[usize],
    r: &mut (impl RngCore + CryptoRng),
) -> Result<Option<Vec<u8>>, DcError> {
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let cts: Vec<C::ClientCiphertext> = client_ciphertexts(w, &slot, owner, r)
        .iter()
        .map(|ct| wire_client::<C>(sr.len, ct))
        .collect();
    let acc: Vec<(ClientId, &C::ClientCiphertext)> = accepted
        .iter()
        .map(|&i| (ClientId(i as u32), &cts[i]))
        .collect();
    let server_cts: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .map(|st| {
            let ct = C::server_ciphertext(&w.session, &slot, st, &acc, r).unwrap();
            wire_server::<C>(sr.len, &ct)
        })
        .collect();
    let refs: Vec<&C::ServerCiphertext> = server_cts.iter().collect();
    C::reveal(&w.session, &slot, &acc, &refs)
}

/// A random message of a length drawn from interesting sizes up to `max`.
pub fn random_message(max: usize, r: &mut impl RngCore) -> Vec<u8> {
    let sizes = [0usize, 1, 29, 30, 31, 64, 100, 1000, 4000, max];
    let len = *sizes
        .iter()
        .filter(|&&s| s <= max)
        .collect::<Vec<_>>()
        .choose(r)
        .unwrap();
    let mut m = vec![0u8; *len];
    r.fill_bytes(&mut m);
    m
}
