#![doc = include_str!("../README.md")]

use serde_json::{Value, json};

mod dcnet;
mod group;
mod nizk;
mod recorded;
pub mod session;
mod shuffle;
mod transcript;

pub use dcnet::dc_error_name;
pub use nizk::{PURPOSE as NIZK_PURPOSE, SESSION as NIZK_SESSION, context as nizk_context};

/// The session id of the NIZK vectors.
pub fn nizk_session() -> [u8; 32] {
    NIZK_SESSION
}

/// The envelope's `format` field.
pub const FORMAT: &str = "verdict-test-vectors";
/// The envelope's `version` field.
pub const VERSION: u64 = 1;

/// One generated vector file.
#[derive(Debug, Clone)]
pub struct VectorFile {
    /// File name inside `test-vectors/`.
    pub name: String,
    /// The file's contents.
    pub json: Value,
}

impl VectorFile {
    /// The canonical text of the file (pretty-printed JSON and a final newline).
    pub fn render(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.json).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Every vector file, deterministically.
pub fn generate_all() -> Vec<VectorFile> {
    use verdict_dcnet::elgamal::ElGamal;
    use verdict_dcnet::pairing::{Chunk16, Pairing};
    use verdict_dcnet::{HashingGenerator, Xor};
    use verdict_group::{Bls12381G1, Bls12381G2, P256, Ristretto255};
    vec![
        group::message_group_file::<Ristretto255>("group-ristretto255.json"),
        group::message_group_file::<P256>("group-p256.json"),
        group::group_file::<Bls12381G1>("group-bls12-381-g1.json"),
        group::group_file::<Bls12381G2>("group-bls12-381-g2.json"),
        transcript::file("transcript.json"),
        nizk::file::<Ristretto255>("nizk-ristretto255.json"),
        nizk::file::<P256>("nizk-p256.json"),
        shuffle::file::<Ristretto255>("shuffle-ristretto255.json"),
        dcnet::file::<HashingGenerator<Ristretto255>>(
            "dcnet-hashing-generator-ristretto255.json",
            40,
            "verdict-dcnet hashing-generator suite over ristretto255, 40-byte slots",
            dcnet::hg_secrets,
        ),
        dcnet::file::<HashingGenerator<P256>>(
            "dcnet-hashing-generator-p256.json",
            40,
            "verdict-dcnet hashing-generator suite over P-256, 40-byte slots",
            dcnet::hg_secrets,
        ),
        dcnet::file::<ElGamal<Ristretto255>>(
            "dcnet-elgamal-ristretto255.json",
            40,
            "verdict-dcnet ElGamal-style suite over ristretto255, 40-byte slots",
            dcnet::no_secrets,
        ),
        dcnet::file::<ElGamal<P256>>(
            "dcnet-elgamal-p256.json",
            40,
            "verdict-dcnet ElGamal-style suite over P-256, 40-byte slots",
            dcnet::no_secrets,
        ),
        dcnet::file::<Pairing<Chunk16>>(
            "dcnet-pairing-chunk16-bls12-381.json",
            2,
            "verdict-dcnet pairing suite on BLS12-381 (16-bit GT chunks), 2-byte slots \
             (3 GT elements)",
            dcnet::no_secrets,
        ),
        dcnet::xor_file::<Xor<Ristretto255>>(
            "dcnet-xor-ristretto255.json",
            40,
            "verdict-dcnet XOR suite (DH over ristretto255), 40-byte slots",
            dcnet::xor_secrets,
            dcnet::xor_pads,
        ),
        dcnet::xor_file::<Xor<P256>>(
            "dcnet-xor-p256.json",
            40,
            "verdict-dcnet XOR suite (DH over P-256), 40-byte slots",
            dcnet::xor_secrets,
            dcnet::xor_pads,
        ),
        session::file("protocol-session-hybrid.json"),
    ]
}

/// Builds the cases of one file, numbering them.
#[derive(Debug, Default)]
pub(crate) struct Cases {
    next_id: u64,
    groups: Vec<Value>,
}

/// One case before numbering.
pub(crate) struct Case {
    pub(crate) comment: String,
    pub(crate) valid: bool,
    pub(crate) flags: Vec<&'static str>,
    pub(crate) inputs: Value,
    pub(crate) intermediates: Value,
    pub(crate) expected: Value,
}

impl Case {
    pub(crate) fn valid(comment: impl Into<String>, inputs: Value, expected: Value) -> Self {
        Self {
            comment: comment.into(),
            valid: true,
            flags: Vec::new(),
            inputs,
            intermediates: json!({}),
            expected,
        }
    }

    pub(crate) fn invalid(comment: impl Into<String>, inputs: Value, expected: Value) -> Self {
        Self {
            valid: false,
            ..Self::valid(comment, inputs, expected)
        }
    }

    pub(crate) fn flag(mut self, flag: &'static str) -> Self {
        self.flags.push(flag);
        self
    }

    pub(crate) fn intermediates(mut self, v: Value) -> Self {
        self.intermediates = v;
        self
    }
}

impl Cases {
    pub(crate) fn group(&mut self, name: &str, description: &str, cases: Vec<Case>) {
        let cases: Vec<Value> = cases
            .into_iter()
            .map(|c| {
                self.next_id += 1;
                json!({
                    "id": self.next_id,
                    "comment": c.comment,
                    "result": if c.valid { "valid" } else { "invalid" },
                    "flags": c.flags,
                    "inputs": c.inputs,
                    "intermediates": c.intermediates,
                    "expected": c.expected,
                })
            })
            .collect();
        self.groups.push(json!({
            "name": name,
            "description": description,
            "cases": cases,
        }));
    }

    pub(crate) fn finish(self, name: &str, suite: &str, description: &str) -> VectorFile {
        VectorFile {
            name: name.to_owned(),
            json: json!({
                "format": FORMAT,
                "version": VERSION,
                "suite": suite,
                "description": description,
                "generator": "cargo xtask test-vectors",
                "encoding": "byte strings are lowercase hex; integers are JSON numbers",
                "test_groups": self.groups,
            }),
        }
    }
}

/// A deterministic RNG for one file (vectors must not change between runs).
pub(crate) fn rng(file: &str) -> rand_chacha::ChaCha20Rng {
    use rand_core::SeedableRng;
    let seed = blake3_free_seed(file);
    rand_chacha::ChaCha20Rng::from_seed(seed)
}

/// A 32-byte seed from a file name without pulling in another hash: the name's bytes, cycled.
fn blake3_free_seed(file: &str) -> [u8; 32] {
    let mut seed = [0x5au8; 32];
    for (i, b) in file.bytes().enumerate() {
        seed[i % 32] ^= b.rotate_left((i / 32) as u32);
    }
    seed
}

/// Hex of anything byte-like.
pub(crate) fn hx(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(bytes)
}

/// The stable name of a group decoding error, as used in `expected.error`.
pub fn decode_error_name(e: &verdict_group::DecodeError) -> &'static str {
    use verdict_group::DecodeError as E;
    match e {
        E::WrongLength { .. } => "WrongLength",
        E::NonCanonical => "NonCanonical",
        E::NotOnCurve => "NotOnCurve",
        E::NotInSubgroup => "NotInSubgroup",
        E::Identity => "Identity",
        _ => "Other",
    }
}

/// The stable name of an embedding error.
pub fn embed_error_name(e: &verdict_group::EmbedError) -> &'static str {
    use verdict_group::EmbedError as E;
    match e {
        E::PayloadTooLong { .. } => "PayloadTooLong",
        E::Identity => "Identity",
        E::NotAnEmbedding => "NotAnEmbedding",
        E::CounterExhausted => "CounterExhausted",
        _ => "Other",
    }
}

/// The stable name of a framing error.
pub fn frame_error_name(e: &verdict_group::FrameError) -> &'static str {
    use verdict_group::FrameError as E;
    match e {
        E::TooLong { .. } => "TooLong",
        E::Empty => "Empty",
        E::Element { .. } => "Element",
        E::Malformed(_) => "Malformed",
        _ => "Other",
    }
}
