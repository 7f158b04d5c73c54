//! Shuffle vectors: a small ElGamal-pair shuffle with its proof, and negative variants.

use rand_core::RngCore;
use serde_json::json;
use verdict_group::{Group, Scalar};
use verdict_shuffle::{Ciphertext, CiphertextList, ProofContext, ShuffleStatement};

use super::{Case, Cases, VectorFile, hx, rng};
use crate::recorded::recorded;

/// The session id of the shuffle vectors.
pub const SESSION: [u8; 32] = [0x22; 32];

fn list_json<G: Group>(l: &CiphertextList<G>) -> Vec<String> {
    l.as_slice()
        .iter()
        .map(|c| format!("{}{}", hx(c.x.to_bytes()), hx(c.y.to_bytes())))
        .collect()
}

pub(crate) fn file<G: Group>(name: &str) -> VectorFile {
    let mut rng = rng(name);
    let mut cases = Vec::new();
    for n in [2usize, 4] {
        let h = G::random(&mut rng);
        let inputs: Vec<Ciphertext<G>> = (0..n)
            .map(|_| {
                let m = G::random(&mut rng);
                Ciphertext::encrypt(&h, &m, &mut rng).0
            })
            .collect();
        let (outputs, witness) = verdict_shuffle::shuffle(&h, &inputs, &mut rng);
        let inputs = CiphertextList::new(inputs);
        let ctx = ProofContext::new(SESSION, 1);
        let st = ShuffleStatement {
            h,
            inputs: &inputs,
            outputs: &outputs,
        };
        let (proof, events) = recorded(|| verdict_shuffle::prove(&ctx, &st, &witness, &mut rng));
        let Ok(proof) = proof else {
            continue;
        };
        let proof = proof.to_bytes();
        let case = |prover: u32, outs: Vec<String>, proof: &[u8]| {
            json!({ "session": hx(SESSION), "prover": prover, "n": n, "h": hx(h.to_bytes()),
                    "inputs": list_json(&inputs), "outputs": outs, "proof": hx(proof) })
        };
        cases.push(
            Case::valid(
                format!("honest shuffle of {n}"),
                case(1, list_json(&outputs), &proof),
                json!({}),
            )
            .intermediates(json!({
                "permutation": witness.permutation(),
                "rerandomizers": witness
                    .rerandomizers()
                    .iter()
                    .map(|b| hx(b.expose().to_bytes()))
                    .collect::<Vec<_>>(),
                "transcript_events": events,
            })),
        );
        let mut swapped = list_json(&outputs);
        swapped.swap(0, 1);
        cases.push(
            Case::invalid(
                "two outputs swapped after proving",
                case(1, swapped, &proof),
                json!({}),
            )
            .flag("swapped"),
        );
        cases.push(
            Case::invalid(
                "proof claimed by another server",
                case(2, list_json(&outputs), &proof),
                json!({}),
            )
            .flag("replay-prover"),
        );
        let mut tampered = proof.clone();
        let i = (rng.next_u32() as usize) % tampered.len();
        tampered[i] ^= 0x40;
        cases.push(
            Case::invalid(
                "one proof byte flipped",
                case(1, list_json(&outputs), &tampered),
                json!({}),
            )
            .flag("tampered"),
        );
    }
    let mut c = Cases::default();
    c.group(
        "pair-shuffle",
        "Neff ElGamal-pair shuffle: ciphertexts are x ‖ y with (x, y) = (r·g, r·h + M); \
         valid proofs verify with both verifiers, invalid ones are rejected by both",
        cases,
    );
    c.finish(
        name,
        &format!("shuffle/{}", G::NAME),
        &format!("verdict-shuffle Neff shuffle proofs over {}", G::NAME),
    )
}
