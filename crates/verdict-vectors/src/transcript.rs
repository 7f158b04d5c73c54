//! Transcript vectors: a protocol label and a sequence of operations → challenge outputs.

use serde_json::{Value, json};
use verdict_group::{P256, Ristretto255, Scalar};
use verdict_nizk::Transcript;

use super::{Case, Cases, VectorFile, hx};
use crate::recorded::recorded;

/// One transcript operation, as written to the vectors.
pub enum Op {
    /// `append_message(label, data)`.
    Message(&'static [u8], &'static [u8]),
    /// `append_u64(label, value)`.
    U64(&'static [u8], u64),
    /// `challenge_bytes(label, length)`; produces an output.
    Challenge(&'static [u8], usize),
    /// `challenge_scalar::<Ristretto255>(label)`; produces an output.
    ScalarChallenge(&'static [u8]),
    /// `challenge_scalar::<P256>(label)` (P-256 reduces the 64 bytes big-endian); produces an
    /// output.
    ScalarChallengeP256(&'static [u8]),
    /// `challenge_scalars::<Ristretto255>(label, count)`; produces `count` outputs.
    Scalars(&'static [u8], usize),
    /// `challenge_scalars::<P256>(label, count)`; produces `count` outputs.
    ScalarsP256(&'static [u8], usize),
    /// `challenge_weights::<Ristretto255>(label, count)`; produces `count` outputs.
    Weights(&'static [u8], usize),
    /// `challenge_weights::<P256>(label, count)` (a weight is a little-endian integer in every
    /// group; its output is the scalar's encoding, big-endian for P-256); produces `count`
    /// outputs.
    WeightsP256(&'static [u8], usize),
}

/// Runs `ops` on a fresh transcript for `protocol`, returning each challenge output.
pub fn run(protocol: &'static [u8], ops: &[Op]) -> Vec<Vec<u8>> {
    let mut t = Transcript::new(protocol);
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::Message(l, d) => t.append_message(l, d),
            Op::U64(l, v) => t.append_u64(l, *v),
            Op::Challenge(l, n) => {
                let mut buf = vec![0u8; *n];
                t.challenge_bytes(l, &mut buf);
                out.push(buf);
            }
            Op::ScalarChallenge(l) => {
                let s = t.challenge_scalar::<Ristretto255>(l);
                out.push(s.to_bytes().to_vec());
            }
            Op::ScalarChallengeP256(l) => {
                let s = t.challenge_scalar::<P256>(l);
                out.push(s.to_bytes().as_ref().to_vec());
            }
            Op::Scalars(l, n) => {
                for s in t.challenge_scalars::<Ristretto255>(l, *n) {
                    out.push(s.to_bytes().to_vec());
                }
            }
            Op::ScalarsP256(l, n) => {
                for s in t.challenge_scalars::<P256>(l, *n) {
                    out.push(s.to_bytes().as_ref().to_vec());
                }
            }
            Op::Weights(l, n) => {
                for s in t.challenge_weights::<Ristretto255>(l, *n) {
                    out.push(s.to_bytes().to_vec());
                }
            }
            Op::WeightsP256(l, n) => {
                for s in t.challenge_weights::<P256>(l, *n) {
                    out.push(s.to_bytes().as_ref().to_vec());
                }
            }
        }
    }
    out
}

fn op_json(op: &Op) -> Value {
    match op {
        Op::Message(l, d) => json!({ "op": "append_message", "label": hx(l), "data": hx(d) }),
        Op::U64(l, v) => json!({ "op": "append_u64", "label": hx(l), "value": v }),
        Op::Challenge(l, n) => json!({ "op": "challenge_bytes", "label": hx(l), "length": n }),
        Op::ScalarChallenge(l) => {
            json!({ "op": "challenge_scalar_ristretto255", "label": hx(l) })
        }
        Op::ScalarChallengeP256(l) => json!({ "op": "challenge_scalar_p256", "label": hx(l) }),
        Op::Scalars(l, n) => {
            json!({ "op": "challenge_scalars_ristretto255", "label": hx(l), "count": n })
        }
        Op::ScalarsP256(l, n) => {
            json!({ "op": "challenge_scalars_p256", "label": hx(l), "count": n })
        }
        Op::Weights(l, n) => {
            json!({ "op": "challenge_weights_ristretto255", "label": hx(l), "count": n })
        }
        Op::WeightsP256(l, n) => {
            json!({ "op": "challenge_weights_p256", "label": hx(l), "count": n })
        }
    }
}

pub(crate) fn file(name: &str) -> VectorFile {
    let scenarios: Vec<(&str, &'static [u8], Vec<Op>)> = vec![
        (
            "a challenge straight after the protocol label",
            b"verdict/test-vectors",
            vec![Op::Challenge(b"c", 32)],
        ),
        (
            "two challenges with the same label differ (ratchet)",
            b"verdict/test-vectors",
            vec![
                Op::Message(b"m", b"hello"),
                Op::U64(b"round", 42),
                Op::Challenge(b"c", 64),
                Op::Challenge(b"c", 64),
            ],
        ),
        (
            "label/data boundary is framed: (\"ab\", \"c\")",
            b"verdict/test-vectors",
            vec![Op::Message(b"ab", b"c"), Op::Challenge(b"c", 32)],
        ),
        (
            "label/data boundary is framed: (\"a\", \"bc\")",
            b"verdict/test-vectors",
            vec![Op::Message(b"a", b"bc"), Op::Challenge(b"c", 32)],
        ),
        (
            "a scalar challenge (64 bytes, wide reduction mod ℓ)",
            b"verdict/test-vectors/scalar",
            vec![
                Op::Message(b"statement", &[7u8; 40]),
                Op::ScalarChallenge(b"challenge"),
            ],
        ),
    ];
    let to_cases = |scenarios: Vec<(&str, &'static [u8], Vec<Op>)>| -> Vec<Case> {
        scenarios
            .into_iter()
            .map(|(comment, protocol, ops)| {
                let (outputs, events) = recorded(|| run(protocol, &ops));
                let outputs: Vec<String> = outputs.iter().map(hx).collect();
                Case::valid(
                    comment,
                    json!({ "protocol": hx(protocol), "ops": ops.iter().map(op_json).collect::<Vec<_>>() }),
                    json!({ "outputs": outputs }),
                )
                .intermediates(json!({ "transcript_events": events }))
            })
            .collect()
    };
    let multi: Vec<(&str, &'static [u8], Vec<Op>)> = vec![
        (
            "three scalars from one squeeze (challenge_scalars, ristretto255): count as u64le, \
             then 32 ratchet bytes and 64 bytes per scalar",
            b"verdict/test-vectors/scalars",
            vec![
                Op::Message(b"statement", &[9u8; 33]),
                Op::Scalars(b"fold-weights", 3),
            ],
        ),
        (
            "challenge_scalars with count 1 is not challenge_scalar (the frame carries the \
             count, not the byte length)",
            b"verdict/test-vectors/scalars",
            vec![
                Op::Message(b"statement", &[9u8; 33]),
                Op::Scalars(b"challenge", 1),
                Op::ScalarChallenge(b"challenge"),
            ],
        ),
        (
            "challenge_scalars with count 0: only the ratchet is read",
            b"verdict/test-vectors/scalars",
            vec![Op::Scalars(b"none", 0), Op::ScalarChallenge(b"after")],
        ),
        (
            "P-256: scalar challenges reduce the 64 bytes as a big-endian integer",
            b"verdict/test-vectors/scalars",
            vec![
                Op::U64(b"round", 7),
                Op::ScalarChallengeP256(b"challenge"),
                Op::ScalarsP256(b"fold-weights", 2),
            ],
        ),
    ];
    let mut c = Cases::default();
    c.group(
        "challenges",
        "Transcript::new(protocol), then the operations in order; every challenge's output",
        to_cases(scenarios),
    );
    c.group(
        "multi-scalar-challenges",
        "challenge_scalars (n scalars from one squeeze) and P-256 scalar challenges; each \
         scalar is one output",
        to_cases(multi),
    );
    let weights: Vec<(&str, &'static [u8], Vec<Op>)> = vec![
        (
            "four 128-bit weights from one squeeze (challenge_weights, ristretto255): count as \
             u64le, then 32 ratchet bytes and 16 little-endian bytes per weight; the weights \
             are never reduced, so each encoding ends in 16 zero bytes",
            b"verdict/test-vectors/weights",
            vec![
                Op::Message(b"statement", &[9u8; 33]),
                Op::Weights(b"fold-weights", 4),
            ],
        ),
        (
            "challenge_weights then challenge_scalars with the same label and count: both frame \
             the count (not the byte length), and read 16 resp. 64 bytes per output",
            b"verdict/test-vectors/weights",
            vec![
                Op::Message(b"statement", &[9u8; 33]),
                Op::Weights(b"w", 2),
                Op::Scalars(b"w", 2),
            ],
        ),
        (
            "P-256: a weight is the same little-endian integer; its encoding is big-endian, \
             16 zero bytes first",
            b"verdict/test-vectors/weights",
            vec![Op::U64(b"round", 7), Op::WeightsP256(b"fold-weights", 2)],
        ),
    ];
    c.group(
        "weight-challenges",
        "challenge_weights (n integers below 2^128 from one squeeze, as scalars); each weight \
         is one output",
        to_cases(weights),
    );
    c.finish(
        name,
        "nizk/transcript",
        "blake3 Fiat–Shamir transcript (verdict-nizk transcript v1)",
    )
}
