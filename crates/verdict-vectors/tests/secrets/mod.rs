//! Re-derives the DC-net files' secret intermediates from the documented formulas and checks
//! them against the public data they must explain: secret keys against the roster's public
//! keys, the hashing-generator's `K_ij` against both set-up messages of the pair, the XOR pads
//! against the client and server ciphertexts; and every ciphertext's `transcript_events`.

use serde_json::Value;
use verdict_dcnet::{Ciphersuite, HashingGenerator, Session, SlotRound, Xor};
use verdict_group::{Group, MessageGroup, Scalar};

use super::{cases, load, unhex};

fn hexes(v: &Value) -> Vec<Vec<u8>> {
    v.as_array().expect("array").iter().map(unhex).collect()
}

fn n(v: &Value) -> usize {
    v.as_u64().expect("integer") as usize
}

fn scalar<G: Group>(v: &Value) -> G::Scalar {
    G::Scalar::from_bytes(&unhex(v)).expect("scalar")
}

/// Every recorded secret key times the generator is the public key of the session case.
fn check_keys<G: Group>(session: &Value, what: &str) {
    let (inp, mid) = (&session["inputs"], &session["intermediates"]);
    for (secrets, publics) in [
        ("server_secret_keys", "servers"),
        ("client_secret_keys", "clients"),
        ("pseudonym_secret_keys", "pseudonyms"),
    ] {
        let pubs = hexes(&inp[publics]);
        let secs = mid[secrets].as_array().expect(secrets);
        assert_eq!(pubs.len(), secs.len(), "{what}: {secrets}");
        for (s, p) in secs.iter().zip(&pubs) {
            let public = G::mul_generator(&scalar::<G>(s));
            assert_eq!(public.to_bytes().as_ref(), &p[..], "{what}: {secrets}");
        }
    }
}

/// `DH(x_i, Z_j)` from the session case's keys.
fn dh<G: Group>(session: &Value, i: usize, j: usize) -> Vec<u8> {
    let z = G::from_bytes(&hexes(&session["inputs"]["servers"])[j]).expect("server key");
    let x = scalar::<G>(&session["intermediates"]["client_secret_keys"][i]);
    (z * x).to_bytes().as_ref().to_vec()
}

/// The hashing-generator file's secrets: `dh`, `s_ij`, `K_ij` (found in both set-up messages),
/// `σ_i` and `U_i`.
pub(crate) fn check_hg_file<G: MessageGroup>(name: &str) {
    let json = load(name);
    let all = cases(name, &json);
    let session = &all[0].1;
    check_keys::<G>(session, name);
    let (inp, mid) = (&session["inputs"], &session["intermediates"]);
    let suite = <HashingGenerator<G> as Ciphersuite>::ID.to_bytes();
    let sid = unhex(&inp["id"]);
    let dst = unhex(&mid["pair_secret_dst"]);
    let (csetups, ssetups) = (hexes(&inp["client_setups"]), hexes(&inp["server_setups"]));
    let pairs = mid["pairs"].as_array().expect("pairs");
    assert_eq!(
        pairs.len(),
        csetups.len() * ssetups.len(),
        "{name}: one per pair"
    );
    let mut sigma = vec![G::Scalar::zero(); csetups.len()];
    for p in pairs {
        let (i, j) = (n(&p["client"]), n(&p["server"]));
        let dh = dh::<G>(session, i, j);
        assert_eq!(dh, unhex(&p["dh"]), "{name}: dh");
        let mut input = (suite.len() as u64).to_le_bytes().to_vec();
        input.extend_from_slice(&suite);
        input.extend_from_slice(&sid);
        input.extend_from_slice(&dh);
        input.extend_from_slice(&(i as u32).to_le_bytes());
        input.extend_from_slice(&(j as u32).to_le_bytes());
        assert_eq!(input, unhex(&p["pair_secret_input"]), "{name}: input");
        let s: G::Scalar = verdict_group::hash::hash_to_scalar(&dst, &input);
        assert_eq!(
            s.to_bytes().as_ref(),
            &unhex(&p["s_ij"])[..],
            "{name}: s_ij"
        );
        let k = G::mul_generator(&s).to_bytes().as_ref().to_vec();
        assert_eq!(k, unhex(&p["K_ij"]), "{name}: K_ij");
        for setup in [&csetups[i], &ssetups[j]] {
            assert!(
                setup.windows(k.len()).any(|w| w == k),
                "{name}: K_{i}{j} is in the pair's set-up messages"
            );
        }
        sigma[i] += s;
    }
    for (i, s) in sigma.iter().enumerate() {
        assert_eq!(
            s.to_bytes().as_ref(),
            &unhex(&mid["sigma"][i])[..],
            "{name}: σ"
        );
        let u = G::mul_generator(s).to_bytes().as_ref().to_vec();
        assert_eq!(u, unhex(&mid["U"][i]), "{name}: U");
    }
}

/// Every valid round's `client_transcript_events` and `server_transcript_events` re-derive,
/// and the session's secret keys match its public keys.
pub(crate) fn check_dc_events<G: Group>(name: &str) {
    let json = load(name);
    let all = cases(name, &json);
    check_keys::<G>(&all[0].1, name);
    let mut rounds = 0;
    for (group, c) in &all {
        if group != "rounds" {
            continue;
        }
        rounds += 1;
        let mid = &c["intermediates"];
        for key in ["client_transcript_events", "server_transcript_events"] {
            for (k, events) in mid[key].as_array().expect(key).iter().enumerate() {
                if events.as_array().is_some_and(|e| !e.is_empty()) {
                    super::recorded::check_events::<G>(events, &format!("{name} {key}[{k}]"));
                }
            }
        }
    }
    assert!(rounds >= 3, "{name}: rounds");
}

/// `k_ij` of every pair, `[i][j]`.
fn xor_keys<G: Group>(session: &Value) -> Vec<Vec<[u8; 32]>> {
    let mid = &session["intermediates"];
    let suite = <Xor<G> as Ciphersuite>::ID.to_bytes();
    let sid = unhex(&session["inputs"]["id"]);
    let context = mid["pair_context"].as_str().expect("pair_context");
    let (nc, ns) = (
        hexes(&session["inputs"]["clients"]).len(),
        hexes(&session["inputs"]["servers"]).len(),
    );
    (0..nc)
        .map(|i| {
            (0..ns)
                .map(|j| {
                    let mut m = dh::<G>(session, i, j);
                    m.extend_from_slice(&sid);
                    m.extend_from_slice(&(i as u32).to_le_bytes());
                    m.extend_from_slice(&(j as u32).to_le_bytes());
                    m.extend_from_slice(&suite);
                    blake3::derive_key(context, &m)
                })
                .collect()
        })
        .collect()
}

/// The XOR session case: keys, `dh`, `k_ij`, `pad_prefix`.
pub(crate) fn check_xor_secrets<G: Group>(_s: &Session<Xor<G>>, session: &Value) {
    check_keys::<G>(session, "xor session");
    let mid = &session["intermediates"];
    let keys = xor_keys::<G>(session);
    for p in mid["pairs"].as_array().expect("pairs") {
        let (i, j) = (n(&p["client"]), n(&p["server"]));
        assert_eq!(dh::<G>(session, i, j), unhex(&p["dh"]));
        assert_eq!(keys[i][j].to_vec(), unhex(&p["k_ij"]), "k_ij");
    }
    let suite = <Xor<G> as Ciphersuite>::ID.to_bytes();
    let mut prefix = b"pad".to_vec();
    prefix.extend_from_slice(&(suite.len() as u64).to_le_bytes());
    prefix.extend_from_slice(&suite);
    prefix.extend_from_slice(&unhex(&session["inputs"]["id"]));
    assert_eq!(prefix, unhex(&mid["pad_prefix"]), "pad_prefix");
}

fn stream(key: &[u8; 32], prefix: &[u8], slot: SlotRound, len: usize) -> Vec<u8> {
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(prefix).update(&slot.to_bytes());
    let mut out = vec![0u8; len];
    h.finalize_xof().fill(&mut out);
    out
}

/// An XOR round: the recorded first pad bytes re-derive; every server ciphertext is the XOR of
/// its accepted clients' full pads; every client ciphertext XOR its pads is zero (a cover) or
/// the revealed frame (the owner).
pub(crate) fn check_xor_pads<G: Group>(_s: &Session<Xor<G>>, session: &Value, round: &Value) {
    let (inp, mid) = (&round["inputs"], &round["intermediates"]);
    let slot = SlotRound::new(
        n(&inp["slot"]) as u32,
        inp["round"].as_u64().unwrap(),
        n(&inp["len"]),
    );
    let keys = xor_keys::<G>(session);
    let prefix = unhex(&session["intermediates"]["pad_prefix"]);
    for p in mid["pads"].as_array().expect("pads") {
        let (i, j) = (n(&p["client"]), n(&p["server"]));
        let first = unhex(&p["first_bytes"]);
        assert_eq!(
            stream(&keys[i][j], &prefix, slot, first.len()),
            first,
            "pad"
        );
    }
    let frame = unhex(&mid["revealed_frame"]);
    let accepted: Vec<usize> = inp["accepted"].as_array().unwrap().iter().map(n).collect();
    let xor = |parts: Vec<Vec<u8>>| {
        let mut out = vec![0u8; frame.len()];
        for p in parts {
            out.iter_mut().zip(&p).for_each(|(o, b)| *o ^= *b);
        }
        out
    };
    for (j, d) in hexes(&inp["server_ciphertexts"]).iter().enumerate() {
        let pads = accepted
            .iter()
            .map(|&i| stream(&keys[i][j], &prefix, slot, frame.len()))
            .collect();
        assert_eq!(&xor(pads), d, "server {j}'s ciphertext is its pads");
    }
    for (&i, ct) in accepted.iter().zip(hexes(&inp["client_ciphertexts"])) {
        let mut parts: Vec<Vec<u8>> = (0..keys[i].len())
            .map(|j| stream(&keys[i][j], &prefix, slot, frame.len()))
            .collect();
        parts.push(ct);
        let rest = xor(parts);
        assert!(
            rest.iter().all(|&b| b == 0) || rest == frame,
            "client {i}'s ciphertext is its pads (⊕ the frame if it owns the slot)"
        );
    }
}

#[test]
fn dcnet_secret_intermediates_rederive() {
    use verdict_group::{Bls12381G2, P256, Ristretto255};
    check_hg_file::<Ristretto255>("dcnet-hashing-generator-ristretto255.json");
    check_hg_file::<P256>("dcnet-hashing-generator-p256.json");
    check_dc_events::<Ristretto255>("dcnet-hashing-generator-ristretto255.json");
    check_dc_events::<P256>("dcnet-hashing-generator-p256.json");
    check_dc_events::<Ristretto255>("dcnet-elgamal-ristretto255.json");
    check_dc_events::<P256>("dcnet-elgamal-p256.json");
    check_dc_events::<Bls12381G2>("dcnet-pairing-chunk16-bls12-381.json");
    check_dc_events::<Ristretto255>("dcnet-xor-ristretto255.json");
    check_dc_events::<P256>("dcnet-xor-p256.json");
}
