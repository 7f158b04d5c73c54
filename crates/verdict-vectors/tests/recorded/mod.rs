//! Re-derives the `transcript_events` intermediates from their own bytes, the way another
//! implementation would: each challenge output is blake3's (key-derivation mode, context
//! `verdict-nizk transcript v1`) XOF over `absorbed`; each prover RNG's stream is the same XOF
//! over its `absorbed`, which ends in the rng frame of its `entropy`; the scalars drawn next
//! are that stream's 64-byte blocks reduced mod the group order; and, where the proof has one
//! commitment per nonce over the generator (Schnorr, key registration, signatures), the nonce
//! times the generator is that commitment and `s = k + c·x`.

use serde_json::Value;
use verdict_group::{Group, Scalar};
use verdict_nizk::transcript::TRANSCRIPT_DOMAIN;

use super::unhex;

fn xof(absorbed: &[u8], n: usize) -> Vec<u8> {
    let mut h = blake3::Hasher::new_derive_key(TRANSCRIPT_DOMAIN);
    h.update(absorbed);
    let mut out = vec![0u8; n];
    h.finalize_xof().fill(&mut out);
    out
}

fn scalar<G: Group>(wide: &[u8]) -> G::Scalar {
    let mut w = [0u8; 64];
    w.copy_from_slice(wide);
    G::Scalar::from_uniform_bytes(&w)
}

/// What the events say: (the last challenge scalar, the nonces of the last prover RNG).
pub(crate) fn check_events<G: Group>(events: &Value, what: &str) -> (G::Scalar, Vec<G::Scalar>) {
    let events = events.as_array().expect("transcript_events");
    assert!(!events.is_empty(), "{what}: no transcript events");
    let mut stream: Option<Vec<u8>> = None;
    let mut used = 0;
    let mut challenge = None;
    let mut nonces = Vec::new();
    for e in events {
        let absorbed = if e["absorbed"].is_string() {
            unhex(&e["absorbed"])
        } else {
            Vec::new()
        };
        match e["event"].as_str().unwrap() {
            "challenge" => {
                let out = unhex(&e["output"]);
                assert_eq!(xof(&absorbed, out.len()), out, "{what}: challenge output");
                // The absorbed stream starts with the protocol operation and ends with this
                // challenge's frame: op 0x02, label, the requested length or count.
                assert_eq!(absorbed[0], 0x00, "{what}: starts with the protocol op");
                let label = unhex(&e["label"]);
                let tail = 1 + 8 + label.len() + 8 + 8;
                let frame = &absorbed[absorbed.len() - tail..];
                assert_eq!(frame[0], 0x02, "{what}: ends with the challenge op");
                assert_eq!(&frame[9..9 + label.len()], &label[..]);
                if out.len() == 32 + 64 {
                    challenge = Some(scalar::<G>(&out[32..]));
                }
            }
            "prover-rng" => {
                let entropy = unhex(&e["entropy"]);
                let mut frame = vec![0x05];
                frame.extend_from_slice(&3u64.to_le_bytes());
                frame.extend_from_slice(b"rng");
                frame.extend_from_slice(&32u64.to_le_bytes());
                frame.extend_from_slice(&entropy);
                assert!(absorbed.ends_with(&frame), "{what}: rng frame");
                // Enough for every draw of one fork in these vectors (a shuffle of n draws
                // 5n + 1 scalars, an ElGamal slot one per element before its proof's own fork).
                stream = Some(xof(&absorbed, 64 * 1024));
                used = 0;
            }
            "scalars" => {
                let s = stream.as_ref().expect("scalars follow a prover RNG");
                let mut drawn = Vec::new();
                for enc in e["scalars"].as_array().unwrap() {
                    let k = scalar::<G>(&s[used..used + 64]);
                    used += 64;
                    assert_eq!(k.to_bytes().as_ref(), &unhex(enc)[..], "{what}: scalar");
                    drawn.push(k);
                }
                if e["what"] == "nonces"
                    || e["what"] == "or-nonces"
                    || e["what"] == "signature-nonce"
                {
                    nonces = drawn;
                }
            }
            other => panic!("{what}: unknown event {other}"),
        }
    }
    (challenge.expect("a scalar challenge"), nonces)
}

/// Every `prover-rng` event's `entropy`, in order: what the prover took from its caller's RNG.
pub(crate) fn entropies(events: &Value) -> Vec<[u8; 32]> {
    events
        .as_array()
        .expect("transcript_events")
        .iter()
        .filter(|e| e["event"] == "prover-rng")
        .map(|e| unhex(&e["entropy"]).try_into().expect("32 entropy bytes"))
        .collect()
}

/// Every scalar of the `scalars` events named `what`, in order.
pub(crate) fn drawn<G: Group>(events: &Value, what: &str) -> Vec<G::Scalar> {
    events
        .as_array()
        .expect("transcript_events")
        .iter()
        .filter(|e| e["event"] == "scalars" && e["what"] == what)
        .flat_map(|e| e["scalars"].as_array().expect("scalars").clone())
        .map(|s| G::Scalar::from_bytes(&unhex(&s)).expect("canonical scalar"))
        .collect()
}

/// An RNG that hands out recorded entropy and nothing else: a prover given it must make
/// exactly the recorded forks (each takes 32 bytes), so re-proving with it shows that a proof
/// is a function of the witness, the statement and that entropy. Any other draw panics.
pub(crate) struct ReplayRng {
    bytes: Vec<u8>,
    pos: usize,
}

impl ReplayRng {
    pub(crate) fn new(entropies: &[[u8; 32]]) -> Self {
        ReplayRng {
            bytes: entropies.concat(),
            pos: 0,
        }
    }
    /// Whether every recorded byte was consumed.
    pub(crate) fn exhausted(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

impl rand_core::RngCore for ReplayRng {
    fn next_u32(&mut self) -> u32 {
        panic!("a prover drew a u32 outside a hedged fork")
    }
    fn next_u64(&mut self) -> u64 {
        panic!("a prover drew a u64 outside a hedged fork")
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        assert_eq!(dest.len(), 32, "a prover drew other than a fork's 32 bytes");
        let end = self.pos + 32;
        assert!(
            end <= self.bytes.len(),
            "a prover forked more often than recorded"
        );
        dest.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rand_core::CryptoRng for ReplayRng {}

/// For `R ‖ s` layouts (Schnorr proofs over the generator, key registrations, signatures):
/// `k·G = R` and `s = k + c·x`.
pub(crate) fn check_schnorr<G: Group>(events: &Value, secret: &[u8], proof: &[u8], what: &str) {
    let (c, nonces) = check_events::<G>(events, what);
    assert_eq!(nonces.len(), 1, "{what}: one nonce");
    let k = nonces[0];
    let r = G::mul_generator(&k).to_bytes();
    assert_eq!(&proof[..G::ENCODED_LEN], r.as_ref(), "{what}: R = k·G");
    let x = G::Scalar::from_bytes(secret).unwrap();
    let s = k + c * x;
    assert_eq!(
        &proof[G::ENCODED_LEN..],
        s.to_bytes().as_ref(),
        "{what}: s = k + c·x"
    );
}

/// A `transcript.json` case: every challenge event's output is blake3's over its `absorbed`;
/// each absorbed stream extends the previous one and its ratchet frame; there is one event per
/// challenge operation.
pub(crate) fn check_transcript_case(c: &Value) {
    let events = c["intermediates"]["transcript_events"]
        .as_array()
        .expect("transcript_events");
    let mut previous: Vec<u8> = Vec::new();
    for e in events {
        assert_eq!(e["event"], "challenge", "#{}", c["id"]);
        let absorbed = unhex(&e["absorbed"]);
        let out = unhex(&e["output"]);
        assert_eq!(
            xof(&absorbed, out.len()),
            out,
            "#{}: challenge output",
            c["id"]
        );
        assert!(
            absorbed.starts_with(&previous),
            "#{}: the state only grows",
            c["id"]
        );
        previous = absorbed;
        // The ratchet frame that follows: op 0x03, label "ratchet", the 32 ratchet bytes.
        previous.push(0x03);
        previous.extend_from_slice(&7u64.to_le_bytes());
        previous.extend_from_slice(b"ratchet");
        previous.extend_from_slice(&32u64.to_le_bytes());
        previous.extend_from_slice(&out[..32]);
    }
    let challenges = c["inputs"]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"].as_str().unwrap().starts_with("challenge"))
        .count();
    assert_eq!(
        events.len(),
        challenges,
        "#{}: one event per challenge",
        c["id"]
    );
}

/// Every challenge event's output is blake3's over its `absorbed`, and the states only grow
/// (returns the number of challenges).
pub(crate) fn check_challenge_outputs(events: &Value, what: &str) -> usize {
    let mut count = 0;
    for e in events.as_array().expect("transcript_events") {
        if e["event"] == "challenge" {
            let out = unhex(&e["output"]);
            assert_eq!(
                xof(&unhex(&e["absorbed"]), out.len()),
                out,
                "{what}: challenge"
            );
            count += 1;
        }
    }
    count
}
