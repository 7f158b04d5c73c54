//! The session vector's tampered envelopes: copies of trace envelopes with one defect each,
//! and the error the recipient rejects them with (found by running a fresh recipient up to
//! the envelope's step, the way the test re-checks it).

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::json;
use verdict_group::Ristretto255;
use verdict_proto::wire::{ENVELOPE_HEADER_LEN, Envelope, Kind};
use verdict_proto::{Client, ClientId, Event, GroupConfig, Party, SecretKeys, Server, ServerId};

use super::driver::{Input, Net};
use super::{M, SessionSuite, message_error_name, party_json, rng_seed, seed, submissions};
use crate::{Case, hx};

type Keys = [SecretKeys<Ristretto255>];

/// One participant's fresh state machine.
enum Machine {
    Server(Box<Server<SessionSuite, ChaCha20Rng>>),
    Client(Box<Client<SessionSuite, ChaCha20Rng>>),
}

impl Machine {
    fn new(config: &GroupConfig<SessionSuite>, keys: &Keys, who: Party) -> Option<Self> {
        let rng = ChaCha20Rng::from_seed(rng_seed(who));
        Some(match who {
            Party::Server(s) => Self::Server(Box::new(
                Server::new(
                    config.clone(),
                    s,
                    keys[s.index()].clone(),
                    rng,
                    Duration::ZERO,
                )
                .ok()?,
            )),
            Party::Client(c) => {
                let mut cl =
                    Client::new(config.clone(), c, keys[M + c.index()].clone(), rng).ok()?;
                for m in submissions(c.index()) {
                    cl.submit(m).ok()?;
                }
                Self::Client(Box::new(cl))
            }
        })
    }

    fn deliver(&mut self, at: Duration, from: Party, bytes: &[u8]) {
        match self {
            Self::Server(s) => {
                s.handle_timeout(at);
                s.handle_message(from, bytes);
            }
            Self::Client(c) => c.handle_message(from, bytes),
        }
    }

    fn timeout(&mut self, at: Duration) {
        if let Self::Server(s) = self {
            s.handle_timeout(at);
        }
    }

    /// Drains transmissions and returns the events.
    fn drain(&mut self) -> Vec<Event> {
        let mut ev = Vec::new();
        match self {
            Self::Server(s) => {
                while s.poll_transmit().is_some() {}
                while let Some(e) = s.poll_event() {
                    ev.push(e);
                }
            }
            Self::Client(c) => {
                while c.poll_transmit().is_some() {}
                while let Some(e) = c.poll_event() {
                    ev.push(e);
                }
            }
        }
        ev
    }
}

fn recipient(i: &Input) -> Party {
    match i {
        Input::Deliver { to, .. } => *to,
        Input::Timeout { server, .. } => Party::Server(*server),
    }
}

/// A fresh `who` that has processed its own inputs among `trace[..upto]`.
fn replay(
    config: &GroupConfig<SessionSuite>,
    keys: &Keys,
    trace: &[Input],
    who: Party,
    upto: usize,
) -> Option<Machine> {
    let mut m = Machine::new(config, keys, who)?;
    for i in trace.iter().take(upto).filter(|i| recipient(i) == who) {
        match i {
            Input::Deliver {
                at, from, bytes, ..
            } => m.deliver(*at, *from, bytes),
            Input::Timeout { at, .. } => m.timeout(*at),
        }
        m.drain();
    }
    Some(m)
}

/// What a recipient says of `bytes` from `from` at `at`: the name of its rejection. For an
/// `instead` case the step's `original` follows at the same time, and the rejection may come
/// only then (a server may hold a client submission's signature check, `protocol.md` §5, until
/// a second submission of the client arrives or its window could close); the case stands only
/// if exactly one rejection is reported in all, so the original is accepted.
fn verdict(
    mut m: Machine,
    at: Duration,
    from: Party,
    bytes: &[u8],
    original: Option<(Party, &[u8])>,
) -> Option<&'static str> {
    m.deliver(at, from, bytes);
    let mut events = m.drain();
    if let Some((from, bytes)) = original {
        m.deliver(at, from, bytes);
        events.extend(m.drain());
    }
    let mut rejections = events.iter().filter_map(|e| match e {
        Event::Rejected(e) => Some(message_error_name(e)),
        _ => None,
    });
    let first = rejections.next();
    if original.is_some() && rejections.next().is_some() {
        return None;
    }
    first
}

/// The first trace step delivering a `kind` envelope from `from` to `to` (any if `None`).
fn find(trace: &[Input], kind: Kind, from: Option<Party>, to: Option<Party>) -> Option<usize> {
    trace.iter().position(|i| match i {
        Input::Deliver {
            from: f,
            to: t,
            bytes,
            rewritten: false,
            ..
        } => {
            from.is_none_or(|x| x == *f)
                && to.is_none_or(|x| x == *t)
                && Envelope::<Ristretto255>::from_bytes(bytes)
                    .is_ok_and(|e| e.header().kind == kind)
        }
        _ => false,
    })
}

/// One tampered envelope: (step, transport sender, `"instead"` | `"after"`, bytes, comment,
/// flag).
type Variant = (usize, Party, &'static str, Vec<u8>, String, &'static str);

/// The tampered cases.
pub(super) fn cases(
    config: &GroupConfig<SessionSuite>,
    keys: &Keys,
    net: &Net<SessionSuite>,
) -> Vec<Case> {
    let trace = &net.trace;
    let s0 = Party::Server(ServerId(0));
    let s1 = Party::Server(ServerId(1));
    let c0 = Party::Client(ClientId(0));
    let key_of = |p: Party| match p {
        Party::Server(s) => keys.get(s.index()),
        Party::Client(c) => keys.get(M + c.index()),
    };
    let mut reseal_rng = ChaCha20Rng::from_seed(seed(6, 0));
    let mut reseal =
        |env: &Envelope<Ristretto255>, session: [u8; 32], round: u64, payload: Vec<u8>| {
            let h = env.header();
            key_of(h.sender).map(|k| {
                Envelope::seal(
                    k.signing(),
                    h.kind,
                    h.sender,
                    session,
                    round,
                    payload,
                    &mut reseal_rng,
                )
                .to_bytes()
            })
        };
    let mut variants: Vec<Variant> = Vec::new();
    let inventory = find(trace, Kind::Inventory, Some(s0), Some(s1));
    let submission = find(trace, Kind::Submission, Some(c0), Some(s0));
    let output = find(trace, Kind::RoundOutput, Some(s0), Some(c0));
    let bits = find(trace, Kind::BlameBits, None, None);
    for (step, what) in [
        (inventory, "server 0's first inventory to server 1"),
        (submission, "client 0's first submission to server 0"),
        (output, "server 0's first round output to client 0"),
        (bits, "the first blame-bits message"),
    ] {
        let Some(step) = step else { continue };
        let Input::Deliver { from, bytes, .. } = &trace[step] else {
            continue;
        };
        let (from, bytes) = (*from, bytes.clone());
        let Ok(env) = Envelope::<Ristretto255>::from_bytes(&bytes) else {
            continue;
        };
        let h = env.header().clone();
        let mut flip_sig = bytes.clone();
        flip_sig[ENVELOPE_HEADER_LEN + 32] ^= 0x01;
        variants.push((
            step,
            from,
            "instead",
            flip_sig,
            format!("{what} with a bit of its signature's s flipped"),
            "flipped-signature",
        ));
        let mut flip_payload = bytes.clone();
        if let Some(b) = flip_payload.last_mut() {
            *b ^= 0x01;
        }
        variants.push((step, from, "instead", flip_payload, format!("{what} with a bit of its last payload byte flipped (the header's digest no longer matches)"), "flipped-payload"));
        variants.push((
            step,
            from,
            "instead",
            bytes[..bytes.len() - 1].to_vec(),
            format!("{what} truncated by one byte"),
            "truncated",
        ));
        variants.push((
            step,
            from,
            "instead",
            [&bytes[..], &[0]].concat(),
            format!("{what} with a trailing byte"),
            "trailing-byte",
        ));
        let mut bad_kind = bytes.clone();
        bad_kind[0] = 0xee;
        variants.push((
            step,
            from,
            "instead",
            bad_kind,
            format!("{what} with an unknown kind byte"),
            "unknown-kind",
        ));
        let mut other = h.session;
        other[0] ^= 0x01;
        if let Some(b) = reseal(&env, other, h.round, env.payload.clone()) {
            variants.push((
                step,
                from,
                "instead",
                b,
                format!("{what} re-signed for another session id"),
                "wrong-session",
            ));
        }
        if let Some(b) = reseal(&env, h.session, h.round + 7, env.payload.clone()) {
            variants.push((
                step,
                from,
                "instead",
                b,
                format!("{what} re-signed for round {}", h.round + 7),
                "wrong-round",
            ));
        }
        let impostor = if from == s0 { s1 } else { s0 };
        variants.push((
            step,
            impostor,
            "instead",
            bytes.clone(),
            format!("{what} arriving from {impostor} (not its signer)"),
            "wrong-sender",
        ));
        variants.push((
            step,
            from,
            "after",
            bytes.clone(),
            format!("{what} delivered a second time (replay)"),
            "replayed",
        ));
        let mut changed = env.payload.clone();
        if let Some(b) = changed.last_mut() {
            *b ^= 0x01;
        }
        if let Some(b) = reseal(&env, h.session, h.round, changed) {
            variants.push((step, from, "after", b, format!("{what}, then a different validly signed payload for the same step (equivocation)"), "equivocating"));
        }
    }
    let mut cases = Vec::new();
    for (step, from, position, bytes, comment, flag) in variants {
        let Input::Deliver {
            at,
            to,
            from: original_from,
            bytes: original,
            ..
        } = &trace[step]
        else {
            continue;
        };
        let upto = if position == "after" { step + 1 } else { step };
        let Some(m) = replay(config, keys, trace, *to, upto) else {
            continue;
        };
        let original = (position == "instead").then_some((*original_from, &original[..]));
        let Some(error) = verdict(m, *at, from, &bytes, original) else {
            continue;
        };
        cases.push(
            Case::invalid(
                comment,
                json!({
                    "session_case": 1, "step": step, "position": position,
                    "from": party_json(from), "to": party_json(*to),
                    "envelope": hx(&bytes),
                }),
                json!({ "error": error }),
            )
            .flag(flag),
        );
    }
    cases
}
