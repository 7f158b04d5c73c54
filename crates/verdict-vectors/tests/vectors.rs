//! Every vector in `test-vectors/` is (1) exactly what the generator produces today and
//! (2) re-verified here through the public APIs, independently of the generator. A stale,
//! hand-edited or tampered vector file fails this test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::Value;
use verdict_group::framing::{decode_message, encode_message};
use verdict_group::{Bls12381G1, Bls12381G2, Group, MessageGroup, P256, Ristretto255, Scalar};
use verdict_nizk::{
    Encoded, KeyRegistration, Or, Schnorr, Signature, Statement, Transcript, VectorDleq,
    VerifyingKey,
};
use verdict_shuffle::{CiphertextList, ProofContext, ShuffleProof, ShuffleStatement};
mod recorded;
mod secrets;
mod session;

use verdict_vectors::{decode_error_name, embed_error_name, frame_error_name, generate_all};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test-vectors")
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name))
        .unwrap_or_else(|e| panic!("{name}: {e} (run `cargo xtask test-vectors`)"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: invalid JSON: {e}"))
}

fn unhex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn leak(v: &Value) -> &'static [u8] {
    Box::leak(unhex(v).into_boxed_slice())
}

/// Iterates `(file, group name, case)` over a file, checking the envelope and id uniqueness.
fn cases(name: &str, json: &Value) -> Vec<(String, Value)> {
    assert_eq!(json["format"], verdict_vectors::FORMAT, "{name}: format");
    assert_eq!(json["version"], verdict_vectors::VERSION, "{name}: version");
    let mut ids = HashSet::new();
    let mut out = Vec::new();
    for g in json["test_groups"].as_array().expect("test_groups") {
        for c in g["cases"].as_array().expect("cases") {
            assert!(
                ids.insert(c["id"].as_u64().expect("id")),
                "{name}: duplicate id"
            );
            assert!(
                c["result"] == "valid" || c["result"] == "invalid",
                "{name}: result"
            );
            out.push((
                g["name"].as_str().expect("group name").to_owned(),
                c.clone(),
            ));
        }
    }
    assert!(!out.is_empty(), "{name}: no cases");
    out
}

fn is_valid(c: &Value) -> bool {
    c["result"] == "valid"
}

#[test]
fn vector_files_are_fresh() {
    for f in generate_all() {
        let on_disk = std::fs::read_to_string(dir().join(&f.name)).unwrap_or_default();
        assert!(
            on_disk == f.render(),
            "test-vectors/{} is stale or was edited: run `cargo xtask test-vectors`",
            f.name
        );
    }
}

fn check_group_file<G: Group>(name: &str) {
    let json = load(name);
    for (group, c) in cases(name, &json) {
        let inp = &c["inputs"];
        let exp = &c["expected"];
        let id = &c["id"];
        match group.as_str() {
            "generator-multiples" => {
                let s = G::Scalar::from_bytes(&unhex(&inp["scalar"])).unwrap();
                let want = unhex(&exp["element"]);
                assert_eq!(
                    G::mul_generator(&s).to_bytes().as_ref(),
                    &want[..],
                    "{name} #{id}"
                );
                assert_eq!(
                    (G::generator() * s).to_bytes().as_ref(),
                    &want[..],
                    "{name} #{id}"
                );
            }
            "scalar-decoding" => {
                let r = G::Scalar::from_bytes(&unhex(&inp["scalar"]));
                match (is_valid(&c), r) {
                    (true, Ok(s)) => {
                        assert_eq!(s.to_bytes().as_ref(), &unhex(&inp["scalar"])[..])
                    }
                    (false, Err(e)) => {
                        assert_eq!(decode_error_name(&e), exp["error"], "{name} #{id}")
                    }
                    (v, r) => panic!("{name} #{id}: expected valid={v}, got {r:?}"),
                }
            }
            "element-decoding" => {
                let bytes = unhex(&inp["encoding"]);
                let nonidentity = c["flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f == "nonidentity");
                let r = if nonidentity {
                    G::from_bytes_nonidentity(&bytes)
                } else {
                    G::from_bytes(&bytes)
                };
                match (is_valid(&c), r) {
                    (true, Ok(p)) => assert_eq!(p.to_bytes().as_ref(), &bytes[..], "{name} #{id}"),
                    (false, Err(e)) => {
                        assert_eq!(decode_error_name(&e), exp["error"], "{name} #{id}")
                    }
                    (v, r) => panic!("{name} #{id}: expected valid={v}, got {r:?}"),
                }
            }
            "hash-to-scalar" => {
                let s: G::Scalar =
                    verdict_group::hash::hash_to_scalar(&unhex(&inp["dst"]), &unhex(&inp["msg"]));
                assert_eq!(hex::encode(s.to_bytes()), exp["scalar"], "{name} #{id}");
                let u =
                    verdict_group::hash::uniform_bytes(&unhex(&inp["dst"]), &unhex(&inp["msg"]));
                assert_eq!(
                    hex::encode(u),
                    c["intermediates"]["uniform_bytes"],
                    "{name} #{id}"
                );
            }
            "hash-to-group" => {
                let p = G::hash_to_group(&unhex(&inp["dst"]), &unhex(&inp["msg"]));
                assert_eq!(hex::encode(p.to_bytes()), exp["element"], "{name} #{id}");
            }
            other if other == "embed" || other == "extract" || other == "framing" => {}
            other => panic!("{name}: unknown group {other}"),
        }
    }
}

fn check_message_file<G: MessageGroup>(name: &str) {
    check_group_file::<G>(name);
    let json = load(name);
    for (group, c) in cases(name, &json) {
        let inp = &c["inputs"];
        let exp = &c["expected"];
        let id = &c["id"];
        match group.as_str() {
            "embed" => match (is_valid(&c), G::embed(&unhex(&inp["payload"]))) {
                (true, Ok(e)) => {
                    assert_eq!(hex::encode(e.to_bytes()), exp["element"], "{name} #{id}");
                    assert_eq!(e.extract().unwrap(), unhex(&inp["payload"]), "{name} #{id}");
                }
                (false, Err(e)) => assert_eq!(embed_error_name(&e), exp["error"], "{name} #{id}"),
                (v, r) => panic!("{name} #{id}: expected valid={v}, got {r:?}"),
            },
            "extract" => {
                let e = G::from_bytes(&unhex(&inp["element"])).unwrap();
                let err = e.extract().unwrap_err();
                assert_eq!(embed_error_name(&err), exp["error"], "{name} #{id}");
            }
            "framing" => {
                let framed: Vec<G> = exp
                    .get("framed")
                    .or_else(|| inp.get("framed"))
                    .and_then(Value::as_array)
                    .unwrap()
                    .iter()
                    .map(|e| G::from_bytes(&unhex(e)).unwrap())
                    .collect();
                if is_valid(&c) {
                    let msg = unhex(&inp["message"]);
                    let n = inp["elements"].as_u64().unwrap() as usize;
                    assert_eq!(
                        encode_message::<G>(&msg, n).unwrap(),
                        framed,
                        "{name} #{id}"
                    );
                    assert_eq!(decode_message::<G>(&framed).unwrap(), msg, "{name} #{id}");
                } else {
                    let err = decode_message::<G>(&framed).unwrap_err();
                    assert_eq!(frame_error_name(&err), exp["error"], "{name} #{id}");
                }
            }
            _ => {}
        }
    }
}

#[test]
fn group_vectors_verify() {
    check_message_file::<Ristretto255>("group-ristretto255.json");
    check_message_file::<P256>("group-p256.json");
    check_group_file::<Bls12381G1>("group-bls12-381-g1.json");
    check_group_file::<Bls12381G2>("group-bls12-381-g2.json");
}

#[test]
fn transcript_vectors_verify() {
    let name = "transcript.json";
    let json = load(name);
    for (_, c) in cases(name, &json) {
        let mut t = Transcript::new(leak(&c["inputs"]["protocol"]));
        let mut outputs = Vec::new();
        for op in c["inputs"]["ops"].as_array().unwrap() {
            let label = leak(&op["label"]);
            match op["op"].as_str().unwrap() {
                "append_message" => t.append_message(label, &unhex(&op["data"])),
                "append_u64" => t.append_u64(label, op["value"].as_u64().unwrap()),
                "challenge_bytes" => {
                    let mut buf = vec![0u8; op["length"].as_u64().unwrap() as usize];
                    t.challenge_bytes(label, &mut buf);
                    outputs.push(hex::encode(buf));
                }
                "challenge_scalar_ristretto255" => {
                    let s = t.challenge_scalar::<Ristretto255>(label);
                    outputs.push(hex::encode(s.to_bytes()));
                }
                "challenge_scalar_p256" => {
                    let s = t.challenge_scalar::<P256>(label);
                    outputs.push(hex::encode(s.to_bytes()));
                }
                "challenge_scalars_ristretto255" => {
                    let n = op["count"].as_u64().unwrap() as usize;
                    for s in t.challenge_scalars::<Ristretto255>(label, n) {
                        outputs.push(hex::encode(s.to_bytes()));
                    }
                }
                "challenge_scalars_p256" => {
                    let n = op["count"].as_u64().unwrap() as usize;
                    for s in t.challenge_scalars::<P256>(label, n) {
                        outputs.push(hex::encode(s.to_bytes()));
                    }
                }
                "challenge_weights_ristretto255" => {
                    let n = op["count"].as_u64().unwrap() as usize;
                    for w in t.challenge_weights::<Ristretto255>(label, n) {
                        assert_eq!(w.to_le_bytes()[16..], [0u8; 16], "a weight of 128 bits");
                        outputs.push(hex::encode(w.to_bytes()));
                    }
                }
                "challenge_weights_p256" => {
                    let n = op["count"].as_u64().unwrap() as usize;
                    for w in t.challenge_weights::<P256>(label, n) {
                        assert_eq!(w.to_le_bytes()[16..], [0u8; 16], "a weight of 128 bits");
                        outputs.push(hex::encode(w.to_bytes()));
                    }
                }
                other => panic!("unknown op {other}"),
            }
        }
        recorded::check_transcript_case(&c);
        assert_eq!(
            Value::from(outputs),
            c["expected"]["outputs"],
            "{name} #{}",
            c["id"]
        );
    }
}

fn point<G: Group>(v: &Value) -> G {
    G::from_bytes(&unhex(v)).unwrap()
}

fn points<G: Group>(v: &Value) -> Vec<G> {
    v.as_array().unwrap().iter().map(point::<G>).collect()
}

fn vector_dleq<G: Group>(st: &Value) -> VectorDleq<G> {
    VectorDleq::new(
        point::<G>(&st["g"]),
        point::<G>(&st["x"]),
        Encoded::batch_new(&points::<G>(&st["h"])),
        Encoded::batch_new(&points::<G>(&st["c"])),
    )
    .unwrap()
}

/// Verifies one proof case; decoding failures count as rejection.
fn verify_proof<G: Group>(c: &Value) -> bool {
    let inp = &c["inputs"];
    let ctx_json = &inp["context"];
    assert_eq!(unhex(&ctx_json["purpose"]), vectors_nizk_purpose());
    let session: [u8; 32] = unhex(&ctx_json["session"]).try_into().unwrap();
    assert_eq!(session, verdict_vectors::nizk_session());
    let ctx = verdict_vectors::nizk_context(
        ctx_json["round"].as_u64().unwrap(),
        ctx_json["slot"].as_u64().unwrap() as u32,
        ctx_json["sender"].as_u64().unwrap() as u32,
    );
    let st = &inp["statement"];
    let proof = unhex(&inp["proof"]);
    let mut t = ctx.transcript();
    match inp["kind"].as_str().unwrap() {
        "schnorr" => {
            let s = Schnorr::new(point::<G>(&st["base"]), point::<G>(&st["public"]));
            s.decode_proof(&proof)
                .is_ok_and(|p| s.verify(&mut t, &p).is_ok())
        }
        "dleq" => {
            let s = verdict_nizk::Dleq::new(
                point::<G>(&st["g"]),
                point::<G>(&st["x"]),
                point::<G>(&st["h"]),
                point::<G>(&st["y"]),
            );
            s.decode_proof(&proof)
                .is_ok_and(|p| s.verify(&mut t, &p).is_ok())
        }
        "vector-dleq" => {
            let s = vector_dleq::<G>(st);
            s.decode_proof(&proof)
                .is_ok_and(|p| s.verify(&mut t, &p).is_ok())
        }
        "or-cover" | "or-owner" => {
            let left = vector_dleq::<G>(&st["left"]);
            let right = Schnorr::new(
                point::<G>(&st["right"]["base"]),
                point::<G>(&st["right"]["public"]),
            );
            let or = Or::new(vec![&left as &dyn Statement<G>, &right]).unwrap();
            or.decode_proof(&proof)
                .is_ok_and(|p| or.verify(&mut t, &p).is_ok())
        }
        "key-registration" => {
            let key = VerifyingKey::<G>::from_bytes(&unhex(&st["public"])).unwrap();
            KeyRegistration::<G>::from_bytes(&proof).is_ok_and(|r| r.verify(&key, &ctx).is_ok())
        }
        other => panic!("unknown proof kind {other}"),
    }
}

fn vectors_nizk_purpose() -> Vec<u8> {
    verdict_vectors::NIZK_PURPOSE.to_vec()
}

fn check_nizk_file<G: Group>(name: &str) {
    let json = load(name);
    let mut kinds = HashSet::new();
    for (group, c) in cases(name, &json) {
        let ok = match group.as_str() {
            "proofs" => {
                kinds.insert(c["inputs"]["kind"].as_str().unwrap().to_owned());
                verify_proof::<G>(&c)
            }
            "signatures" => {
                let inp = &c["inputs"];
                let key = VerifyingKey::<G>::from_bytes(&unhex(&inp["public"])).unwrap();
                let domain = leak(&inp["domain"]);
                Signature::<G>::from_bytes(&unhex(&inp["signature"]))
                    .is_ok_and(|s| key.verify(domain, &unhex(&inp["message"]), &s).is_ok())
            }
            other => panic!("unknown group {other}"),
        };
        assert_eq!(ok, is_valid(&c), "{name} #{}: {}", c["id"], c["comment"]);
        if is_valid(&c) {
            check_nizk_intermediates::<G>(name, &group, &c);
        }
    }
    for k in [
        "schnorr",
        "dleq",
        "vector-dleq",
        "or-cover",
        "or-owner",
        "key-registration",
    ] {
        assert!(kinds.contains(k), "{name}: no {k} vectors");
    }
}

/// A valid proof's or signature's `transcript_events` re-derive (and, for `R ‖ s` layouts,
/// reproduce the proof from the nonce).
fn check_nizk_intermediates<G: Group>(name: &str, group: &str, c: &Value) {
    let what = format!("{name} #{}", c["id"]);
    let im = &c["intermediates"];
    let inp = &c["inputs"];
    match group {
        "signatures" => recorded::check_schnorr::<G>(
            &im["transcript_events"],
            &unhex(&im["secret"]),
            &unhex(&inp["signature"]),
            &what,
        ),
        _ => match inp["kind"].as_str().unwrap() {
            "schnorr" | "key-registration" => recorded::check_schnorr::<G>(
                &im["transcript_events"],
                &unhex(&im["witness"][0]),
                &unhex(&inp["proof"]),
                &what,
            ),
            _ => {
                recorded::check_events::<G>(&im["transcript_events"], &what);
            }
        },
    }
}

#[test]
fn nizk_vectors_verify() {
    check_nizk_file::<Ristretto255>("nizk-ristretto255.json");
    check_nizk_file::<P256>("nizk-p256.json");
}

fn list<G: Group>(v: &Value) -> Option<CiphertextList<G>> {
    let bytes: Vec<u8> = v.as_array().unwrap().iter().flat_map(unhex).collect();
    CiphertextList::from_bytes(&bytes).ok()
}

#[test]
fn shuffle_vectors_verify() {
    let name = "shuffle-ristretto255.json";
    let json = load(name);
    for (_, c) in cases(name, &json) {
        let inp = &c["inputs"];
        let session: [u8; 32] = unhex(&inp["session"]).try_into().unwrap();
        let ctx = ProofContext::new(session, inp["prover"].as_u64().unwrap() as u32);
        let n = inp["n"].as_u64().unwrap() as usize;
        let h = point::<Ristretto255>(&inp["h"]);
        let (Some(inputs), Some(outputs)) = (list(&inp["inputs"]), list(&inp["outputs"])) else {
            panic!("{name}: undecodable ciphertexts");
        };
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let (batched, each) =
            match ShuffleProof::<Ristretto255>::from_bytes(&unhex(&inp["proof"]), n) {
                Ok(p) => (
                    verdict_shuffle::verify(&ctx, &st, &p).is_ok(),
                    verdict_shuffle::verify_each(&ctx, &st, &p).is_ok(),
                ),
                Err(_) => (false, false),
            };
        assert_eq!(
            batched,
            is_valid(&c),
            "{name} #{}: {}",
            c["id"],
            c["comment"]
        );
        assert_eq!(each, batched, "{name} #{}: verifiers disagree", c["id"]);
        if is_valid(&c) {
            let what = format!("{name} #{}", c["id"]);
            let im = &c["intermediates"];
            let events = &im["transcript_events"];
            assert!(
                recorded::check_challenge_outputs(events, &what) > 0,
                "{what}"
            );
            // Generation, not only verification: the recorded draws follow from the recorded
            // fork, and the witness with the recorded entropy proves the very same bytes.
            recorded::check_events::<Ristretto255>(events, &what);
            assert_eq!(
                recorded::drawn::<Ristretto255>(events, "shuffle-nonces").len(),
                1 + 3 * n,
                "{what}: τ₀, u, w, a"
            );
            let permutation: Vec<usize> = im["permutation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j.as_u64().unwrap() as usize)
                .collect();
            let rerandomizers = im["rerandomizers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    verdict_group::SecretScalar::new(
                        <Ristretto255 as Group>::Scalar::from_bytes(&unhex(b)).unwrap(),
                    )
                })
                .collect();
            let witness = verdict_shuffle::ShuffleWitness::new(permutation, rerandomizers);
            let mut replay = recorded::ReplayRng::new(&recorded::entropies(events));
            let again = verdict_shuffle::prove(&ctx, &st, &witness, &mut replay).unwrap();
            assert!(replay.exhausted(), "{what}: every recorded fork made");
            assert_eq!(again.to_bytes(), unhex(&inp["proof"]), "{what}: re-proved");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// DC-net suites (`dcnet-*.json`): sessions, rounds and negative cases through the public API.
// ---------------------------------------------------------------------------------------------

mod dcnet {
    use std::collections::HashMap;

    use rand_core::SeedableRng;
    use serde_json::Value;
    use verdict_dcnet::elgamal::ElGamal;
    use verdict_dcnet::pairing::{Chunk16, Pairing};
    use verdict_dcnet::{
        Ciphersuite, ClientId, DcError, HashingGenerator, PreparedSlot, Roster, ServerId, Session,
        SessionId, SlotRound, Verifiable, Xor,
    };
    use verdict_group::{Group, P256, Ristretto255};
    use verdict_nizk::Signature;
    use verdict_vectors::dc_error_name;

    use super::{cases, is_valid, load, unhex};

    fn u(v: &Value) -> u64 {
        v.as_u64().expect("integer")
    }

    fn hexes(v: &Value) -> Vec<Vec<u8>> {
        v.as_array().expect("array").iter().map(unhex).collect()
    }

    fn ids(v: &Value) -> Vec<ClientId> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|i| ClientId(u(i) as u32))
            .collect()
    }

    fn session<C: Ciphersuite>(inp: &Value) -> Session<C> {
        let sid: [u8; 32] = unhex(&inp["id"]).try_into().expect("32-byte session id");
        let keys = |v: &Value| -> Vec<verdict_dcnet::PublicKey<C>> {
            hexes(v)
                .iter()
                .map(|b| C::decode_public_key(b).expect("public key"))
                .collect()
        };
        let pseudonyms = hexes(&inp["pseudonyms"])
            .iter()
            .map(|b| C::decode_pseudonym_key(b).expect("pseudonym key"))
            .collect();
        let roster = Roster::<C>::new(
            SessionId(sid),
            keys(&inp["servers"]),
            keys(&inp["clients"]),
            pseudonyms,
        )
        .expect("roster");
        let cs: Vec<C::ClientSetup> = hexes(&inp["client_setups"])
            .iter()
            .map(|b| C::decode_client_setup(&roster, b).expect("client set-up"))
            .collect();
        let ss: Vec<C::ServerSetup> = hexes(&inp["server_setups"])
            .iter()
            .map(|b| C::decode_server_setup(&roster, b).expect("server set-up"))
            .collect();
        Session::establish(roster, &cs, &ss).expect("session")
    }

    fn slot<C: Ciphersuite>(s: &Session<C>, inp: &Value) -> PreparedSlot<C> {
        let sr = SlotRound::new(
            u(&inp["slot"]) as u32,
            u(&inp["round"]),
            u(&inp["len"]) as usize,
        );
        PreparedSlot::new(s, sr).expect("slot")
    }

    /// The file's session, its cases by id, and the cases in order.
    struct File<C: Ciphersuite> {
        name: String,
        session: Session<C>,
        by_id: HashMap<u64, Value>,
        cases: Vec<(String, Value)>,
    }

    fn file<C: Ciphersuite>(name: &str) -> File<C> {
        let json = load(name);
        let cases = cases(name, &json);
        let by_id: HashMap<u64, Value> = cases
            .iter()
            .map(|(_, c)| (u(&c["id"]), c.clone()))
            .collect();
        let (group, first) = &cases[0];
        assert_eq!(group, "session", "{name}: the first case is the session");
        assert_eq!(
            C::ID.to_string(),
            json["suite"].as_str().unwrap()["dcnet/".len()..]
        );
        let session = session::<C>(&first["inputs"]);
        File {
            name: name.to_owned(),
            session,
            by_id,
            cases,
        }
    }

    /// `(ids, decoded client ciphertexts)` of a complete round.
    fn clients<C: Ciphersuite>(inp: &Value) -> (Vec<ClientId>, Vec<C::ClientCiphertext>) {
        let len = u(&inp["len"]) as usize;
        let cts = hexes(&inp["client_ciphertexts"])
            .iter()
            .map(|b| C::decode_client_ciphertext(len, b).expect("client ciphertext"))
            .collect();
        (ids(&inp["accepted"]), cts)
    }

    fn servers<C: Ciphersuite>(inp: &Value, len: usize) -> Vec<C::ServerCiphertext> {
        hexes(&inp["server_ciphertexts"])
            .iter()
            .map(|b| C::decode_server_ciphertext(len, b).expect("server ciphertext"))
            .collect()
    }

    fn expected_message(c: &Value) -> Option<Vec<u8>> {
        let m = &c["expected"]["message"];
        (!m.is_null()).then(|| unhex(m))
    }

    /// A complete round: every ciphertext verifies (if the suite is verifiable) and the reveal
    /// is the expected message.
    fn check_round<C: Ciphersuite>(
        f: &File<C>,
        c: &Value,
        mut verify: impl FnMut(
            &PreparedSlot<C>,
            &[(ClientId, &C::ClientCiphertext)],
            &[C::ServerCiphertext],
        ),
    ) {
        let inp = &c["inputs"];
        assert_eq!(u(&inp["session_case"]), 1);
        let slot = slot(&f.session, inp);
        let (ids, cts) = clients::<C>(inp);
        let ds = servers::<C>(inp, slot.len());
        let s: Vec<_> = ids.iter().copied().zip(&cts).collect();
        verify(&slot, &s, &ds);
        let out = C::reveal(&f.session, &slot, &s, &ds.iter().collect::<Vec<_>>());
        assert_eq!(
            out.expect("reveal"),
            expected_message(c),
            "{} #{}",
            f.name,
            c["id"]
        );
    }

    /// The base round's client ciphertext of `id` (encoded).
    fn base_client(base: &Value, id: ClientId) -> Vec<u8> {
        let pos = ids(&base["inputs"]["accepted"])
            .iter()
            .position(|c| *c == id)
            .expect("client in the base round");
        hexes(&base["inputs"]["client_ciphertexts"]).swap_remove(pos)
    }

    fn check_verifiable<C: Verifiable>(name: &str) {
        let f = file::<C>(name);
        let mut rng = rand_chacha::ChaCha20Rng::from_seed([9; 32]);
        let mut negatives = 0;
        for (group, c) in &f.cases {
            let inp = &c["inputs"];
            let id = &c["id"];
            match group.as_str() {
                "session" => assert!(is_valid(c)),
                "rounds" => {
                    assert!(is_valid(c), "{name} #{id}");
                    check_round(&f, c, |slot, s, ds| {
                        for (i, ct) in s {
                            C::verify_client(&f.session, slot, *i, ct).expect("client verifies");
                        }
                        C::verify_clients(&f.session, slot, s, &mut rng).expect("batch verifies");
                        for (j, d) in ds.iter().enumerate() {
                            C::verify_server(&f.session, slot, ServerId(j as u32), s, d)
                                .expect("server verifies");
                        }
                    });
                }
                "client-ciphertexts" | "server-ciphertexts" => {
                    assert!(!is_valid(c), "{name} #{id}");
                    negatives += 1;
                    let base = &f.by_id[&u(&inp["round_case"])];
                    let slot = slot(&f.session, inp);
                    let target = &inp["target"];
                    let bytes = unhex(&target["ciphertext"]);
                    let err: DcError = if group == "client-ciphertexts" {
                        let client = ClientId(u(&target["client"]) as u32);
                        match C::decode_client_ciphertext(slot.len(), &bytes) {
                            Err(e) => e.into(),
                            Ok(ct) => {
                                assert_eq!(
                                    C::verify_clients(
                                        &f.session,
                                        &slot,
                                        &[(client, &ct)],
                                        &mut rng
                                    ),
                                    Err(vec![client]),
                                    "{name} #{id}: batch"
                                );
                                C::verify_client(&f.session, &slot, client, &ct)
                                    .expect_err("rejected")
                            }
                        }
                    } else {
                        let server = ServerId(u(&target["server"]) as u32);
                        let accepted = ids(&inp["accepted"]);
                        let cts: Vec<C::ClientCiphertext> = accepted
                            .iter()
                            .map(|i| {
                                C::decode_client_ciphertext(slot.len(), &base_client(base, *i))
                                    .unwrap()
                            })
                            .collect();
                        let s: Vec<_> = accepted.iter().copied().zip(&cts).collect();
                        match C::decode_server_ciphertext(slot.len(), &bytes) {
                            Err(e) => e.into(),
                            Ok(d) => C::verify_server(&f.session, &slot, server, &s, &d)
                                .expect_err("rejected"),
                        }
                    };
                    assert_eq!(
                        dc_error_name(&err),
                        c["expected"]["error"],
                        "{name} #{id}: {}",
                        c["comment"]
                    );
                }
                other => panic!("{name}: unknown group {other}"),
            }
        }
        assert!(negatives >= 10, "{name}: too few negative cases");
    }

    /// An XOR round's intermediates: the revealed frame is the XOR of the round's ciphertexts;
    /// without a message it is all zero, with one it is `len ‖ message ‖ zero padding ‖ σ`,
    /// `signed_message` ends with the frame's `len ‖ message` and `σ` verifies on it under the
    /// slot's pseudonym key.
    fn check_xor_frame<G: Group>(f: &File<Xor<G>>, c: &Value) {
        let (inp, mid) = (&c["inputs"], &c["intermediates"]);
        let what = format!("{} #{}", f.name, c["id"]);
        let frame = unhex(&mid["revealed_frame"]);
        let mut xor = vec![0u8; frame.len()];
        for ct in hexes(&inp["client_ciphertexts"])
            .iter()
            .chain(&hexes(&inp["server_ciphertexts"]))
        {
            assert_eq!(ct.len(), frame.len(), "{what}");
            xor.iter_mut().zip(ct).for_each(|(o, b)| *o ^= *b);
        }
        assert_eq!(xor, frame, "{what}: revealed_frame");
        let Some(message) = expected_message(c) else {
            assert!(frame.iter().all(|&b| b == 0), "{what}: empty slot");
            assert!(mid.get("signed_message").is_none(), "{what}");
            return;
        };
        let len = u(&inp["len"]) as usize;
        let body = &frame[..4 + message.len()];
        assert_eq!(&body[4..], &message[..], "{what}");
        let signed = unhex(&mid["signed_message"]);
        assert!(
            signed.ends_with(body),
            "{what}: signed_message ends with len ‖ message"
        );
        let sig = Signature::<G>::from_bytes(&frame[4 + len..]).expect("signature");
        let key = f
            .session
            .roster()
            .pseudonym(u(&inp["slot"]) as u32)
            .expect("slot");
        key.verify(b"verdict-dcnet/xor/frame-signature/v1", &signed, &sig)
            .expect("the frame signature verifies on signed_message");
    }

    fn check_xor<G: Group>(name: &str) {
        let f = file::<Xor<G>>(name);
        let mut negatives = 0;
        for (group, c) in &f.cases {
            let inp = &c["inputs"];
            let id = &c["id"];
            match group.as_str() {
                "session" => {
                    assert!(is_valid(c));
                    super::secrets::check_xor_secrets::<G>(&f.session, c);
                }
                "rounds" => {
                    check_round(&f, c, |_, _, _| {});
                    check_xor_frame(&f, c);
                    super::secrets::check_xor_pads::<G>(&f.session, &f.cases[0].1, c);
                }
                "reveals" => {
                    assert!(!is_valid(c), "{name} #{id}");
                    negatives += 1;
                    let base = &f.by_id[&u(&inp["round_case"])];
                    let slot = slot(&f.session, inp);
                    let target = ClientId(u(&inp["target"]["client"]) as u32);
                    let accepted = ids(&inp["accepted"]);
                    let decoded: Result<Vec<_>, _> = accepted
                        .iter()
                        .map(|i| {
                            let b = if *i == target {
                                unhex(&inp["target"]["ciphertext"])
                            } else {
                                base_client(base, *i)
                            };
                            Xor::<G>::decode_client_ciphertext(slot.len(), &b)
                        })
                        .collect();
                    let err: DcError = match decoded {
                        Err(e) => e.into(),
                        Ok(cts) => {
                            let ds = servers::<Xor<G>>(&base["inputs"], slot.len());
                            let s: Vec<_> = accepted.iter().copied().zip(&cts).collect();
                            Xor::<G>::reveal(&f.session, &slot, &s, &ds.iter().collect::<Vec<_>>())
                                .expect_err("rejected")
                        }
                    };
                    assert_eq!(dc_error_name(&err), c["expected"]["error"], "{name} #{id}");
                }
                other => panic!("{name}: unknown group {other}"),
            }
        }
        assert!(negatives >= 3, "{name}: too few negative cases");
    }

    #[test]
    fn hashing_generator_vectors_verify() {
        check_verifiable::<HashingGenerator<Ristretto255>>(
            "dcnet-hashing-generator-ristretto255.json",
        );
        check_verifiable::<HashingGenerator<P256>>("dcnet-hashing-generator-p256.json");
    }

    #[test]
    fn elgamal_vectors_verify() {
        check_verifiable::<ElGamal<Ristretto255>>("dcnet-elgamal-ristretto255.json");
        check_verifiable::<ElGamal<P256>>("dcnet-elgamal-p256.json");
    }

    #[test]
    fn pairing_vectors_verify() {
        check_verifiable::<Pairing<Chunk16>>("dcnet-pairing-chunk16-bls12-381.json");
    }

    #[test]
    fn xor_vectors_verify() {
        check_xor::<Ristretto255>("dcnet-xor-ristretto255.json");
        check_xor::<P256>("dcnet-xor-p256.json");
    }
}
