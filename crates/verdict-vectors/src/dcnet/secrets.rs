//! The secret intermediates of a DC-net session, recomputed here from the documented formulas
//! (not read out of the suite's state, which keeps them private): every long-term and
//! pseudonym secret key, and for the suites with pairwise secrets the DH values and what is
//! derived from them — the hashing-generator's `s_ij`, `K_ij = s_ij·G` and `σ_i`, the XOR
//! suite's pair keys `k_ij` and the first bytes of every pad stream. The test checks them
//! against the public outputs (`K_ij` against the set-up messages, pads against the cover
//! ciphertexts), so a formula that drifted from the code fails there.

use serde_json::{Value, json};
use verdict_dcnet::{Ciphersuite, ClientId, HashingGenerator, ServerId, SlotRound, Xor};
use verdict_group::{Group, MessageGroup, Scalar};

use super::World;
use crate::hx;

/// Domain of the hashing-generator's pair secret (`hash_to_scalar`).
pub const HG_PAIR_SECRET_DST: &[u8] = b"verdict-dcnet/hashing-generator/v1/pair-secret";
/// blake3 key-derivation context of the XOR pair key.
pub const XOR_PAIR_CONTEXT: &str = "verdict-dcnet xor pair v1";
/// Pad bytes given per pair and round.
pub const PAD_PREFIX_BYTES: usize = 64;

fn secret_hex<C: Ciphersuite>(k: &verdict_dcnet::SecretKey<C>) -> String {
    hx(k.secret().expose().to_bytes())
}

/// Every secret key of the session: `server_secret_keys`, `client_secret_keys`,
/// `pseudonym_secret_keys` (scalar encodings, index = id).
pub(crate) fn no_secrets<C: Ciphersuite>(w: &World<C>) -> Value {
    json!({
        "server_secret_keys": w.server_keys.iter().map(secret_hex::<C>).collect::<Vec<_>>(),
        "client_secret_keys": w.client_keys.iter().map(secret_hex::<C>).collect::<Vec<_>>(),
        "pseudonym_secret_keys": w.pseudonyms.iter().map(secret_hex::<C>).collect::<Vec<_>>(),
    })
}

/// `DH(x_i, Z_j)`: the encoding of client `i`'s secret times server `j`'s public key.
fn dh<C: Ciphersuite>(w: &World<C>, i: usize, j: usize) -> Vec<u8> {
    let z = *w.session.roster().servers()[j].point();
    (z * *w.client_keys[i].secret().expose())
        .to_bytes()
        .as_ref()
        .to_vec()
}

/// The hashing-generator session's secrets: the keys, then `pairs` (per client `i`, server
/// `j`: `dh`, `pair_secret_input` = `u64le(|suite|) ‖ suite ‖ session ‖ dh ‖ u32le(i) ‖
/// u32le(j)`, `s_ij` = `hash_to_scalar(HG_PAIR_SECRET_DST, input)`, `K_ij` = `s_ij·G`), and
/// per client `sigma` = `Σ_j s_ij` and `U` = `σ_i·G`.
pub(crate) fn hg_secrets<G: MessageGroup>(w: &World<HashingGenerator<G>>) -> Value {
    let suite = <HashingGenerator<G> as Ciphersuite>::ID.to_bytes();
    let mut out = no_secrets(w);
    let (n, m) = (w.client_keys.len(), w.server_keys.len());
    let mut pairs = Vec::new();
    let mut sigmas = Vec::new();
    let mut us = Vec::new();
    for i in 0..n {
        let mut sigma = G::Scalar::zero();
        for j in 0..m {
            let dh = dh(w, i, j);
            let mut input = (suite.len() as u64).to_le_bytes().to_vec();
            input.extend_from_slice(&suite);
            input.extend_from_slice(&w.session.id().0);
            input.extend_from_slice(&dh);
            input.extend_from_slice(&(i as u32).to_le_bytes());
            input.extend_from_slice(&(j as u32).to_le_bytes());
            let s: G::Scalar = verdict_group::hash::hash_to_scalar(HG_PAIR_SECRET_DST, &input);
            sigma += s;
            pairs.push(json!({
                "client": i, "server": j, "dh": hx(&dh),
                "pair_secret_input": hx(&input), "s_ij": hx(s.to_bytes()),
                "K_ij": hx(G::mul_generator(&s).to_bytes()),
            }));
        }
        sigmas.push(hx(sigma.to_bytes()));
        us.push(hx(G::mul_generator(&sigma).to_bytes()));
    }
    out["pair_secret_dst"] = json!(hx(HG_PAIR_SECRET_DST));
    out["pairs"] = Value::Array(pairs);
    out["sigma"] = json!(sigmas);
    out["U"] = json!(us);
    out
}

/// `k_ij = blake3::derive_key(XOR_PAIR_CONTEXT, dh ‖ session ‖ u32le(i) ‖ u32le(j) ‖ suite)`,
/// as `[i][j]`, with each pair's `dh`.
fn xor_pair_keys<G: Group>(w: &World<Xor<G>>) -> Vec<Vec<(Vec<u8>, [u8; 32])>> {
    let suite = <Xor<G> as Ciphersuite>::ID.to_bytes();
    (0..w.client_keys.len())
        .map(|i| {
            (0..w.server_keys.len())
                .map(|j| {
                    let dh = dh(w, i, j);
                    let mut material = dh.clone();
                    material.extend_from_slice(&w.session.id().0);
                    material.extend_from_slice(&(i as u32).to_le_bytes());
                    material.extend_from_slice(&(j as u32).to_le_bytes());
                    material.extend_from_slice(&suite);
                    (dh, blake3::derive_key(XOR_PAIR_CONTEXT, &material))
                })
                .collect()
        })
        .collect()
}

/// `"pad" ‖ u64le(|suite|) ‖ suite ‖ session`: the start of every pad stream's input.
fn pad_prefix<G: Group>(w: &World<Xor<G>>) -> Vec<u8> {
    let suite = <Xor<G> as Ciphersuite>::ID.to_bytes();
    let mut p = b"pad".to_vec();
    p.extend_from_slice(&(suite.len() as u64).to_le_bytes());
    p.extend_from_slice(&suite);
    p.extend_from_slice(&w.session.id().0);
    p
}

/// The XOR session's secrets: the keys, `pairs` (per client `i`, server `j`: `dh`, `k_ij`)
/// and `pad_prefix`.
pub(crate) fn xor_secrets<G: Group>(w: &World<Xor<G>>) -> Value {
    let mut out = no_secrets(w);
    let pairs: Vec<Value> = xor_pair_keys(w)
        .iter()
        .enumerate()
        .flat_map(|(i, row)| {
            row.iter().enumerate().map(move |(j, (dh, k))| {
                json!({ "client": i, "server": j, "dh": hx(dh), "k_ij": hx(k) })
            })
        })
        .collect();
    out["pair_context"] = json!(XOR_PAIR_CONTEXT);
    out["pairs"] = Value::Array(pairs);
    out["pad_prefix"] = json!(hx(pad_prefix(w)));
    out
}

/// The first [`PAD_PREFIX_BYTES`] bytes of every pair's pad stream for `slot`: the blake3
/// keyed XOF of `k_ij` over `pad_prefix ‖ u32le(slot) ‖ u64le(round) ‖ u64le(len)`.
pub(crate) fn xor_pads<G: Group>(w: &World<Xor<G>>, slot: SlotRound) -> Value {
    let prefix = pad_prefix(w);
    let mut pads = Vec::new();
    for (i, row) in xor_pair_keys(w).iter().enumerate() {
        for (j, (_, k)) in row.iter().enumerate() {
            let mut h = blake3::Hasher::new_keyed(k);
            h.update(&prefix).update(&slot.to_bytes());
            let mut first = [0u8; PAD_PREFIX_BYTES];
            h.finalize_xof().fill(&mut first);
            pads.push(json!({
                "client": ClientId(i as u32).0, "server": ServerId(j as u32).0,
                "first_bytes": hx(first),
            }));
        }
    }
    Value::Array(pads)
}
