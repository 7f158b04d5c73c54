//! Transcript vectors: a protocol label and a sequence of operations → challenge outputs.

use serde_json::{Value, json};
use verdict_group::{Ristretto255, Scalar};
use verdict_nizk::Transcript;

use super::{Case, Cases, VectorFile, hx};

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
    let cases = scenarios
        .into_iter()
        .map(|(comment, protocol, ops)| {
            let outputs: Vec<String> = run(protocol, &ops).iter().map(hx).collect();
            Case::valid(
                comment,
                json!({ "protocol": hx(protocol), "ops": ops.iter().map(op_json).collect::<Vec<_>>() }),
                json!({ "outputs": outputs }),
            )
        })
        .collect();
    let mut c = Cases::default();
    c.group(
        "challenges",
        "Transcript::new(protocol), then the operations in order; every challenge's output",
        cases,
    );
    c.finish(
        name,
        "nizk/transcript",
        "blake3 Fiat–Shamir transcript (verdict-nizk transcript v1)",
    )
}
