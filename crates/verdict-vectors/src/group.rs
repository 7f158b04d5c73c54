//! Group vectors: generator multiples, scalar and element encodings (and their rejection),
//! hashing to scalars and to the group, message embedding and framing.

use rand_core::RngCore;
use serde_json::json;
use verdict_group::framing::{decode_message, elements_needed, encode_message};
use verdict_group::hash::{hash_to_scalar, uniform_bytes};
use verdict_group::{Group, MessageGroup, Scalar};

use super::{
    Case, Cases, VectorFile, decode_error_name, embed_error_name, frame_error_name, hx, rng,
};

/// The domain tag used by every hashing vector.
pub const DST: &str = "verdict/test-vectors/v1";

/// Vectors for a group without message embedding.
pub(crate) fn group_file<G: Group>(name: &str) -> VectorFile {
    let mut cases = Cases::default();
    group_cases::<G>(name, &mut cases);
    cases.finish(
        name,
        &format!("group/{}", G::NAME),
        &format!("{}: encodings, validation, hashing", G::NAME),
    )
}

/// Vectors for a group with message embedding.
pub(crate) fn message_group_file<G: MessageGroup>(name: &str) -> VectorFile {
    let mut cases = Cases::default();
    group_cases::<G>(name, &mut cases);
    message_cases::<G>(name, &mut cases);
    cases.finish(
        name,
        &format!("group/{}", G::NAME),
        &format!(
            "{}: encodings, validation, hashing, message embedding, framing",
            G::NAME
        ),
    )
}

fn group_cases<G: Group>(file: &str, cases: &mut Cases) {
    let mut rng = rng(file);

    // Generator multiples: scalar encoding in, element encoding out.
    let mut scalars: Vec<G::Scalar> = [0u64, 1, 2, 3, 7, 255, u64::MAX]
        .iter()
        .map(|&k| G::Scalar::from_u64(k))
        .collect();
    scalars.push(-G::Scalar::one());
    scalars.extend((0..3).map(|_| G::Scalar::random(&mut rng)));
    let multiples = scalars
        .iter()
        .map(|s| {
            Case::valid(
                "s·G for the standard generator G",
                json!({ "scalar": hx(s.to_bytes()) }),
                json!({ "element": hx(G::mul_generator(s).to_bytes()) }),
            )
        })
        .collect();
    cases.group(
        "generator-multiples",
        "scalar (canonical encoding) → scalar times the standard generator (canonical encoding)",
        multiples,
    );

    // Scalar decoding.
    let len = <G::Scalar as Scalar>::ENCODED_LEN;
    let mut scalar_cases = vec![
        Case::invalid(
            "all-ones exceeds the group order",
            json!({ "scalar": hx(vec![0xffu8; len]) }),
            json!({ "error": "NonCanonical" }),
        ),
        Case::invalid(
            "one byte short",
            json!({ "scalar": hx(vec![0u8; len - 1]) }),
            json!({ "error": "WrongLength" }),
        ),
    ];
    let minus_one = -G::Scalar::one();
    scalar_cases.push(Case::valid(
        "q − 1, the largest canonical scalar",
        json!({ "scalar": hx(minus_one.to_bytes()) }),
        json!({ "canonical": true }),
    ));
    cases.group(
        "scalar-decoding",
        "scalar encodings that must be accepted or rejected",
        scalar_cases,
    );

    // Element decoding: valid round trips and every reachable error, found deterministically.
    let mut decode_cases = Vec::new();
    for _ in 0..2 {
        let p = G::random(&mut rng);
        decode_cases.push(Case::valid(
            "a random element decodes and re-encodes to the same bytes",
            json!({ "encoding": hx(p.to_bytes()) }),
            json!({}),
        ));
    }
    decode_cases.push(
        Case::valid(
            "the identity decodes (it is a group element)",
            json!({ "encoding": hx(G::identity().to_bytes()) }),
            json!({}),
        )
        .flag("identity"),
    );
    decode_cases.push(
        Case::invalid(
            "the identity where a non-identity element is required (public keys, bases)",
            json!({ "encoding": hx(G::identity().to_bytes()) }),
            json!({ "error": "Identity" }),
        )
        .flag("nonidentity"),
    );
    let enc = G::generator().to_bytes();
    for bad_len in [0, G::ENCODED_LEN - 1, G::ENCODED_LEN + 1] {
        let mut v = enc.as_ref().to_vec();
        v.resize(bad_len, 0);
        decode_cases.push(Case::invalid(
            format!("wrong length {bad_len}"),
            json!({ "encoding": hx(&v) }),
            json!({ "error": "WrongLength" }),
        ));
    }
    // Random strings and bit flips of a valid encoding, keeping the first two of each error.
    let mut seen: Vec<(&'static str, usize)> = Vec::new();
    let mut candidates: Vec<Vec<u8>> = vec![vec![0xff; G::ENCODED_LEN]];
    for bit in 0..8 * G::ENCODED_LEN {
        let mut v = enc.as_ref().to_vec();
        v[bit / 8] ^= 1 << (bit % 8);
        candidates.push(v);
    }
    for _ in 0..512 {
        let mut v = vec![0u8; G::ENCODED_LEN];
        rng.fill_bytes(&mut v);
        candidates.push(v);
    }
    for v in candidates {
        if let Err(e) = G::from_bytes(&v) {
            let name = decode_error_name(&e);
            let idx = match seen.iter().position(|(n, _)| *n == name) {
                Some(i) => i,
                None => {
                    seen.push((name, 0));
                    seen.len() - 1
                }
            };
            if seen[idx].1 < 2 {
                seen[idx].1 += 1;
                decode_cases.push(Case::invalid(
                    format!("rejected: {e}"),
                    json!({ "encoding": hx(&v) }),
                    json!({ "error": name }),
                ));
            }
        }
    }
    cases.group(
        "element-decoding",
        "element encodings; valid ones must re-encode to themselves, invalid ones must be \
         rejected with the named error (flag `nonidentity`: decode as a public key)",
        decode_cases,
    );

    // Hashing.
    let inputs: Vec<(String, Vec<u8>)> = vec![
        (DST.to_owned(), b"".to_vec()),
        (DST.to_owned(), b"abc".to_vec()),
        (
            DST.to_owned(),
            b"session 1 slot 2 round 3 element 4".to_vec(),
        ),
        (DST.to_owned(), vec![b'a'; 300]),
        ("another-dst".to_owned(), b"abc".to_vec()),
    ];
    let scalar_cases = inputs
        .iter()
        .map(|(dst, msg)| {
            Case::valid(
                "blake3 XOF (64 bytes) reduced modulo q",
                json!({ "dst": hx(dst.as_bytes()), "msg": hx(msg) }),
                json!({ "scalar": hx(hash_to_scalar::<G::Scalar>(dst.as_bytes(), msg).to_bytes()) }),
            )
            .intermediates(json!({ "uniform_bytes": hx(uniform_bytes(dst.as_bytes(), msg)) }))
        })
        .collect();
    cases.group(
        "hash-to-scalar",
        "verdict_group::hash::hash_to_scalar(dst, msg)",
        scalar_cases,
    );
    let h2g = inputs
        .iter()
        .map(|(dst, msg)| {
            Case::valid(
                "Group::hash_to_group(dst, msg)",
                json!({ "dst": hx(dst.as_bytes()), "msg": hx(msg) }),
                json!({ "element": hx(G::hash_to_group(dst.as_bytes(), msg).to_bytes()) }),
            )
        })
        .collect();
    cases.group(
        "hash-to-group",
        "Group::hash_to_group(dst, msg); the construction is group-specific (see notes-group)",
        h2g,
    );
}

fn message_cases<G: MessageGroup>(file: &str, cases: &mut Cases) {
    let mut rng = rng(&format!("{file}/messages"));
    let cap = G::CAPACITY;
    let mut random = vec![0u8; cap];
    rng.fill_bytes(&mut random);
    let payloads: Vec<(&str, Vec<u8>)> = vec![
        ("empty payload", vec![]),
        ("short payload", b"verdict".to_vec()),
        ("all zero, full capacity", vec![0; cap]),
        ("all 0xff, full capacity", vec![0xff; cap]),
        ("random, full capacity", random),
    ];
    let mut embed_cases: Vec<Case> = payloads
        .into_iter()
        .filter_map(|(comment, p)| {
            let e = G::embed(&p).ok()?;
            Some(Case::valid(
                comment,
                json!({ "payload": hx(&p) }),
                json!({ "element": hx(e.to_bytes()) }),
            ))
        })
        .collect();
    embed_cases.push(Case::invalid(
        "payload one byte over capacity",
        json!({ "payload": hx(vec![0u8; cap + 1]) }),
        json!({ "error": "PayloadTooLong" }),
    ));
    cases.group(
        "embed",
        "MessageGroup::embed(payload) → element; invalid: embedding must fail",
        embed_cases,
    );

    let mut extract_cases = vec![Case::invalid(
        "the identity carries no payload",
        json!({ "element": hx(G::identity().to_bytes()) }),
        json!({ "error": "Identity" }),
    )];
    for _ in 0..64 {
        let e = G::random(&mut rng);
        if let Err(err) = e.extract() {
            extract_cases.push(Case::invalid(
                "a random element is not an embedding",
                json!({ "element": hx(e.to_bytes()) }),
                json!({ "error": embed_error_name(&err) }),
            ));
            break;
        }
    }
    cases.group(
        "extract",
        "MessageGroup::extract(element) must reject these",
        extract_cases,
    );

    let mut frame_cases = Vec::new();
    for msg in [&b""[..], b"hello, anonymous world", &[0xa5; 100][..]] {
        let n = elements_needed::<G>(msg.len()) + 1;
        if let Ok(els) = encode_message::<G>(msg, n) {
            let encs: Vec<String> = els.iter().map(|e| hx(e.to_bytes())).collect();
            frame_cases.push(Case::valid(
                "framing::encode_message(message, elements)",
                json!({ "message": hx(msg), "elements": n }),
                json!({ "framed": encs }),
            ));
        }
    }
    let empty = vec![hx(G::identity().to_bytes()); 2];
    let err = decode_message::<G>(&[G::identity(), G::identity()])
        .err()
        .map(|e| frame_error_name(&e))
        .unwrap_or("none");
    frame_cases.push(Case::invalid(
        "an all-identity vector (an empty slot) is not a message",
        json!({ "framed": empty }),
        json!({ "error": err }),
    ));
    cases.group(
        "framing",
        "byte strings ↔ fixed-length element vectors; invalid: decode_message must fail",
        frame_cases,
    );
}
