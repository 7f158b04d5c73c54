//! NIZK vectors: Schnorr, DLEQ, vector DLEQ, the ciphersuites' OR shape, signatures and key
//! registration — each with its context, statement, proof bytes, and negative variants
//! (tampered proof, proof moved to another round, slot or sender).

use rand_core::RngCore;
use serde_json::{Value, json};
use verdict_group::{Group, Scalar};
use verdict_nizk::{
    Context, Encoded, KeyRegistration, Or, Schnorr, SigningKey, Statement, VectorDleq,
};

use super::{Case, Cases, VectorFile, hx, rng};
use crate::recorded::recorded;

/// The `purpose` of every vector's context.
pub const PURPOSE: &[u8] = b"verdict/test-vectors/nizk";
/// The session id of every vector's context.
pub const SESSION: [u8; 32] = [0x11; 32];
/// The signature domain of the signature vectors.
pub const SIGNATURE_DOMAIN: &[u8] = b"verdict/test-vectors/signature";

/// The context of a vector: fixed purpose and session, given round, slot and sender.
pub fn context(round: u64, slot: u32, sender: u32) -> Context {
    Context::new(PURPOSE, SESSION)
        .with_round(round)
        .with_slot(slot)
        .with_sender(sender)
}

const ROUND: u64 = 7;
const SLOT: u32 = 3;
const SENDER: u32 = 5;

fn ctx_json(round: u64, slot: u32, sender: u32) -> Value {
    json!({ "purpose": hx(PURPOSE), "session": hx(SESSION), "round": round, "slot": slot, "sender": sender })
}

fn pts<G: Group>(points: &[G]) -> Vec<String> {
    points.iter().map(|p| hx(p.to_bytes())).collect()
}

/// The positive case and its negative variants for one proof.
fn with_negatives(
    kind: &str,
    statement: Value,
    proof: Vec<u8>,
    witness: Value,
    events: Value,
    out: &mut Vec<Case>,
) {
    let input = |round, slot, sender, proof: &[u8]| json!({ "kind": kind, "context": ctx_json(round, slot, sender), "statement": statement, "proof": hx(proof) });
    out.push(
        Case::valid(
            format!("{kind}: honest proof"),
            input(ROUND, SLOT, SENDER, &proof),
            json!({}),
        )
        .intermediates(json!({ "witness": witness, "transcript_events": events })),
    );
    let mut tampered = proof.clone();
    if let Some(b) = tampered.first_mut() {
        *b ^= 0x01;
    }
    out.push(
        Case::invalid(
            format!("{kind}: first proof byte flipped"),
            input(ROUND, SLOT, SENDER, &tampered),
            json!({}),
        )
        .flag("tampered"),
    );
    out.push(
        Case::invalid(
            format!("{kind}: replayed into the next round"),
            input(ROUND + 1, SLOT, SENDER, &proof),
            json!({}),
        )
        .flag("replay-round"),
    );
    out.push(
        Case::invalid(
            format!("{kind}: replayed into another slot"),
            input(ROUND, SLOT + 1, SENDER, &proof),
            json!({}),
        )
        .flag("replay-slot"),
    );
    out.push(
        Case::invalid(
            format!("{kind}: claimed by another sender"),
            input(ROUND, SLOT, SENDER + 1, &proof),
            json!({}),
        )
        .flag("replay-sender"),
    );
    let mut long = proof;
    long.push(0);
    out.push(
        Case::invalid(
            format!("{kind}: trailing byte"),
            input(ROUND, SLOT, SENDER, &long),
            json!({}),
        )
        .flag("trailing"),
    );
}

pub(crate) fn file<G: Group>(name: &str) -> VectorFile {
    let mut rng = rng(name);
    let ctx = context(ROUND, SLOT, SENDER);
    let mut cases = Vec::new();
    let g = G::generator();

    // Schnorr: X = x·G.
    let x = G::Scalar::random(&mut rng);
    let big_x = G::mul_generator(&x);
    let st = Schnorr::with_generator(big_x);
    let (p, ev) = recorded(|| st.prove(&mut ctx.transcript(), &[x], &mut rng));
    if let Ok(p) = p {
        with_negatives(
            "schnorr",
            json!({ "base": hx(g.to_bytes()), "public": hx(big_x.to_bytes()) }),
            p.to_bytes(),
            json!([hx(x.to_bytes())]),
            ev,
            &mut cases,
        );
    }

    // DLEQ: X = x·G ∧ Y = x·H.
    let h = G::hash_to_group(b"verdict/test-vectors/base", b"H");
    let y = h * x;
    let st = verdict_nizk::Dleq::new(g, big_x, h, y);
    let (p, ev) = recorded(|| st.prove(&mut ctx.transcript(), &[x], &mut rng));
    if let Ok(p) = p {
        with_negatives(
            "dleq",
            json!({ "g": hx(g.to_bytes()), "x": hx(big_x.to_bytes()), "h": hx(h.to_bytes()), "y": hx(y.to_bytes()) }),
            p.to_bytes(),
            json!([hx(x.to_bytes())]),
            ev,
            &mut cases,
        );
    }

    // Vector DLEQ with 3 bases, and the ciphersuites' OR shape built on it.
    let gens: Vec<G> = (0u8..3)
        .map(|k| G::hash_to_group(b"verdict/test-vectors/generator", &[k]))
        .collect();
    let cs: Vec<G> = gens.iter().map(|gk| *gk * x).collect();
    let vd = VectorDleq::new(g, big_x, Encoded::batch_new(&gens), Encoded::batch_new(&cs));
    let vd_json =
        json!({ "g": hx(g.to_bytes()), "x": hx(big_x.to_bytes()), "h": pts(&gens), "c": pts(&cs) });
    if let Ok(vd) = vd {
        let (p, ev) = recorded(|| vd.prove(&mut ctx.transcript(), &[x], &mut rng));
        if let Ok(p) = p {
            with_negatives(
                "vector-dleq",
                vd_json.clone(),
                p.to_bytes(),
                json!([hx(x.to_bytes())]),
                ev,
                &mut cases,
            );
        }
        let y_secret = G::Scalar::random(&mut rng);
        let pseudonym = G::mul_generator(&y_secret);
        let schnorr = Schnorr::with_generator(pseudonym);
        if let Ok(or) = Or::new(vec![&vd as &dyn Statement<G>, &schnorr]) {
            let or_json = json!({ "left": vd_json, "right": { "base": hx(g.to_bytes()), "public": hx(pseudonym.to_bytes()) } });
            for (known, w, kind) in [(0usize, x, "or-cover"), (1, y_secret, "or-owner")] {
                let (p, ev) = recorded(|| or.prove(&mut ctx.transcript(), known, &[w], &mut rng));
                if let Ok(p) = p {
                    with_negatives(
                        kind,
                        or_json.clone(),
                        p.to_bytes(),
                        json!({ "branch": known, "witness": [hx(w.to_bytes())] }),
                        ev,
                        &mut cases,
                    );
                }
            }
        }
    }

    // Key registration (Schnorr PoK bound to the context).
    let key = SigningKey::<G>::generate(&mut rng);
    let (reg, ev) = recorded(|| KeyRegistration::prove(&key, &ctx, &mut rng));
    with_negatives(
        "key-registration",
        json!({ "public": hx(key.verifying_key().to_bytes()) }),
        reg.to_bytes(),
        json!([hx(key.secret().expose().to_bytes())]),
        ev,
        &mut cases,
    );

    // Signatures.
    let mut msg = vec![0u8; 48];
    rng.fill_bytes(&mut msg);
    let (sig, ev) = recorded(|| key.sign(SIGNATURE_DOMAIN, &msg, &mut rng));
    let mut sig_cases = vec![Case::valid(
        "signature on a random message",
        json!({ "domain": hx(SIGNATURE_DOMAIN), "public": hx(key.verifying_key().to_bytes()), "message": hx(&msg), "signature": hx(sig.to_bytes()) }),
        json!({}),
    )
    .intermediates(json!({
        "secret": hx(key.secret().expose().to_bytes()),
        "transcript_events": ev,
    }))];
    let mut other = msg.clone();
    other[0] ^= 1;
    sig_cases.push(
        Case::invalid(
            "the same signature on a different message",
            json!({ "domain": hx(SIGNATURE_DOMAIN), "public": hx(key.verifying_key().to_bytes()), "message": hx(&other), "signature": hx(sig.to_bytes()) }),
            json!({}),
        )
        .flag("wrong-message"),
    );

    let mut c = Cases::default();
    c.group(
        "proofs",
        "Statement proofs in a context; valid proofs must verify, invalid ones must not \
         (decode failures count as rejection)",
        cases,
    );
    c.group(
        "signatures",
        "Schnorr signatures (R ‖ s) under a domain label",
        sig_cases,
    );
    c.finish(
        name,
        &format!("nizk/{}", G::NAME),
        &format!("verdict-nizk proofs and signatures over {}", G::NAME),
    )
}
