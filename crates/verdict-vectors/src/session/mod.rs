//! The protocol-session vector (`protocol-session-hybrid.json`): a complete deterministic
//! hybrid-mode session (M = 2 servers, N = 3 clients, two rounds, one client jamming the XOR
//! slots of round 0 and traced by blame) recorded as the sequence of signed envelopes every
//! participant received, with every key seed, RNG seed and the group configuration that
//! produced them; plus tampered copies of some envelopes, each with the error a recipient must
//! reject it with ([`message_error_name`]). The format is `spec/vectors.md`'s.

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Value, json};
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{
    Client, ClientId, Event, GroupConfig, Member, MessageError, Mode, Party, Policy, SecretKeys,
    Server, ServerId, Verification, WindowPolicy, WireError,
};

use crate::{Case, Cases, VectorFile, hx};

mod driver;
mod tamper;

pub use driver::jam_mask;
use driver::{Input, Jammer, Net};

/// The suite of the session (hybrid mode adds the XOR suite over the same group).
pub type SessionSuite = HashingGenerator<Ristretto255>;

/// Servers.
pub const M: usize = 2;
/// Clients.
pub const N: usize = 3;
/// Rounds the session runs (every server finishes rounds `0..ROUNDS`).
pub const ROUNDS: u64 = 2;
/// The disruptor.
pub const JAMMER: ClientId = ClientId(2);
/// The rounds it jams.
pub const JAMMED: core::ops::Range<u64> = 0..1;

/// The policy of the session.
pub fn policy() -> Policy {
    Policy {
        mode: Mode::Hybrid(Verification::Eager),
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        default_len: 48,
        max_len: 1024,
        rebuttal_timeout: Duration::from_secs(1),
        ..Policy::default()
    }
}

/// The 32-byte seed `[tag, index, 0x76 ("v"), 0x76, …]`: every seed of the session is of this
/// form (`tag` 1: key seed, 2: state-machine RNG seed, 3: registration RNG, 4: jammer RNG, 5:
/// the group nonce itself).
pub fn seed(tag: u8, index: u8) -> [u8; 32] {
    let mut s = [0x76u8; 32];
    s[0] = tag;
    s[1] = index;
    s
}

/// Key seed of a participant (servers are indices `0..M`, client `i` is `16 + i`).
pub fn key_seed(p: Party) -> [u8; 32] {
    seed(1, party_index(p))
}

/// RNG seed of a participant's state machine (`ChaCha20Rng::from_seed`).
pub fn rng_seed(p: Party) -> [u8; 32] {
    seed(2, party_index(p))
}

fn party_index(p: Party) -> u8 {
    match p {
        Party::Server(s) => s.0 as u8,
        Party::Client(c) => 16 + c.0 as u8,
    }
}

/// The messages client `i` queues (with [`Client::submit`]) right after it is created.
pub fn submissions(i: usize) -> Vec<Vec<u8>> {
    match i {
        0 => vec![
            b"round 0 from client 0".to_vec(),
            b"round 1 from 0".to_vec(),
        ],
        1 => vec![b"client 1 speaks in round 0".to_vec()],
        _ => Vec::new(),
    }
}

/// The group configuration, built from the documented seeds.
pub fn group_config() -> Option<(GroupConfig<SessionSuite>, Vec<SecretKeys<Ristretto255>>)> {
    let nonce = seed(5, 0);
    let mut reg = ChaCha20Rng::from_seed(seed(3, 0));
    let servers: Vec<SecretKeys<Ristretto255>> = (0..M)
        .map(|j| SecretKeys::from_seed(&key_seed(Party::Server(ServerId(j as u32)))).ok())
        .collect::<Option<_>>()?;
    let clients: Vec<SecretKeys<Ristretto255>> = (0..N)
        .map(|i| SecretKeys::from_seed(&key_seed(Party::Client(ClientId(i as u32)))).ok())
        .collect::<Option<_>>()?;
    let config = GroupConfig {
        policy: policy(),
        nonce,
        servers: servers
            .iter()
            .enumerate()
            .map(|(j, k)| Member::register(k, Party::Server(ServerId(j as u32)), &nonce, &mut reg))
            .collect(),
        clients: clients
            .iter()
            .enumerate()
            .map(|(i, k)| Member::register(k, Party::Client(ClientId(i as u32)), &nonce, &mut reg))
            .collect(),
        upstream: (0..N).map(|i| ServerId((i % M) as u32)).collect(),
    };
    let mut all = servers;
    all.extend(clients);
    Some((config, all))
}

/// The stable name of a rejection, as used in `expected.error`.
pub fn message_error_name(e: &MessageError) -> &'static str {
    match e {
        MessageError::Malformed { source, .. } => match source {
            WireError::Truncated => "Malformed/Truncated",
            WireError::TrailingBytes => "Malformed/TrailingBytes",
            WireError::Invalid(_) => "Malformed/Invalid",
            WireError::BadSignature => "Malformed/BadSignature",
            _ => "Malformed/Other",
        },
        MessageError::WrongSender { .. } => "WrongSender",
        MessageError::WrongSession { .. } => "WrongSession",
        MessageError::Unexpected { .. } => "Unexpected",
        MessageError::Duplicate { .. } => "Duplicate",
        _ => "Other",
    }
}

/// A party as JSON: `{"server": j}` or `{"client": i}`.
pub(crate) fn party_json(p: Party) -> Value {
    match p {
        Party::Server(s) => json!({ "server": s.0 }),
        Party::Client(c) => json!({ "client": c.0 }),
    }
}

/// Every server's and client's state machine.
type Machines = (
    Vec<Server<SessionSuite, ChaCha20Rng>>,
    Vec<Client<SessionSuite, ChaCha20Rng>>,
);

/// A finished run: the configuration, every member's keys (servers first), the driver.
type Run = (
    GroupConfig<SessionSuite>,
    Vec<SecretKeys<Ristretto255>>,
    Net<SessionSuite>,
);

/// Builds the group's fresh state machines from the documented seeds.
fn machines(
    config: &GroupConfig<SessionSuite>,
    keys: &[SecretKeys<Ristretto255>],
) -> Option<Machines> {
    let servers = (0..M)
        .map(|j| {
            let id = ServerId(j as u32);
            let rng = ChaCha20Rng::from_seed(rng_seed(Party::Server(id)));
            Server::new(config.clone(), id, keys[j].clone(), rng, Duration::ZERO).ok()
        })
        .collect::<Option<Vec<_>>>()?;
    let clients = (0..N)
        .map(|i| {
            let id = ClientId(i as u32);
            let rng = ChaCha20Rng::from_seed(rng_seed(Party::Client(id)));
            let mut c = Client::new(config.clone(), id, keys[M + i].clone(), rng).ok()?;
            for m in submissions(i) {
                c.submit(m).ok()?;
            }
            Some(c)
        })
        .collect::<Option<Vec<_>>>()?;
    Some((servers, clients))
}

/// Runs the session.
fn run() -> Option<Run> {
    let (config, keys) = group_config()?;
    let (servers, clients) = machines(&config, &keys)?;
    let jammer = Jammer {
        client: JAMMER,
        rounds: JAMMED,
        rng: ChaCha20Rng::from_seed(seed(4, 0)),
    };
    let mut net = Net::new(servers, clients, keys[M..].to_vec(), Some(jammer));
    // Done when every server has finished rounds 0..ROUNDS and signed its blame verdict, and
    // every client has the output of round ROUNDS - 1.
    net.run(
        |n| {
            n.servers.iter().all(|s| s.round() >= ROUNDS)
                && n.clients.iter().all(|c| c.round() >= ROUNDS)
                && (0..M).all(|j| {
                    n.events.iter().any(|(p, e)| {
                        *p == Party::Server(ServerId(j as u32))
                            && matches!(e, Event::Verdict { .. })
                    })
                })
        },
        100_000,
    );
    Some((config, keys, net))
}

fn kind_of(bytes: &[u8]) -> Option<(Kind, u64)> {
    Envelope::<Ristretto255>::from_bytes(bytes)
        .ok()
        .map(|e| (e.header().kind, e.header().round))
}

fn input_json(step: usize, input: &Input) -> Value {
    match input {
        Input::Deliver {
            at,
            from,
            to,
            bytes,
            rewritten,
        } => {
            let (kind, round) = kind_of(bytes).map_or((Value::Null, Value::Null), |(k, r)| {
                (json!(format!("{k:?}")), json!(r))
            });
            json!({
                "step": step, "at_ns": at.as_nanos() as u64, "input": "deliver",
                "from": party_json(*from), "to": party_json(*to), "kind": kind,
                "round": round, "rewritten_by_disruptor": rewritten, "envelope": hx(bytes),
            })
        }
        Input::Timeout { at, server } => json!({
            "step": step, "at_ns": at.as_nanos() as u64, "input": "timeout",
            "to": party_json(Party::Server(*server)),
        }),
    }
}

/// What a participant's events amount to, as the vector records it: every delivered message,
/// every completed round, every verdict and exclusion (in order), and whether any input was
/// rejected.
pub fn outcome(events: &[Event]) -> Value {
    let mut delivered = Vec::new();
    let mut rounds = Vec::new();
    let mut verdicts = Vec::new();
    let mut excluded = Vec::new();
    let mut rejected = Vec::new();
    for e in events {
        match e {
            Event::Delivered {
                round,
                slot,
                message,
            } => delivered.push(json!({ "round": round, "slot": slot, "message": hx(message) })),
            Event::RoundComplete {
                round,
                participants,
            } => rounds.push(json!({ "round": round, "participants": participants })),
            Event::Verdict {
                accusation,
                culprit,
            } => verdicts.push(json!({
                "round": accusation.round, "slot": accusation.slot,
                "culprit": culprit.map(party_json),
            })),
            Event::Excluded { client, .. } => excluded.push(json!(client.0)),
            Event::Rejected(e) => rejected.push(json!(message_error_name(e))),
            _ => {}
        }
    }
    json!({
        "delivered": delivered, "rounds_complete": rounds, "verdicts": verdicts,
        "excluded": excluded, "rejected": rejected,
    })
}

/// The vector file.
pub(crate) fn file(name: &str) -> VectorFile {
    let mut c = Cases::default();
    if let Some((config, keys, net)) = run() {
        let parties: Vec<Party> = (0..M)
            .map(|j| Party::Server(ServerId(j as u32)))
            .chain((0..N).map(|i| Party::Client(ClientId(i as u32))))
            .collect();
        let members: Vec<Value> = parties
            .iter()
            .zip(&keys)
            .map(|(p, k)| {
                let mut m = json!({
                    "party": party_json(*p),
                    "key_seed": hx(k.seed()),
                    "rng_seed": hx(rng_seed(*p)),
                });
                if let Party::Client(cl) = p {
                    m["upstream"] = json!(cl.0 as usize % M);
                    m["submit"] = submissions(cl.index()).iter().map(hx).collect();
                }
                m
            })
            .collect();
        let outcomes: Vec<Value> = parties
            .iter()
            .map(|p| {
                let evs: Vec<Event> = net
                    .events
                    .iter()
                    .filter(|(q, _)| q == p)
                    .map(|(_, e)| e.clone())
                    .collect();
                json!({ "party": party_json(*p), "outcome": outcome(&evs) })
            })
            .collect();
        let trace: Vec<Value> = net
            .trace
            .iter()
            .enumerate()
            .map(|(k, i)| input_json(k, i))
            .collect();
        let inputs = json!({
            "suite": <SessionSuite as verdict_dcnet::Ciphersuite>::ID.to_string(),
            "xor_suite": <verdict_dcnet::Xor<Ristretto255> as verdict_dcnet::Ciphersuite>::ID.to_string(),
            "servers": M, "clients": N, "rounds": ROUNDS,
            "group_config": hx(config.to_bytes()),
            "session_id": hx(config.session_id().0),
            "members": members,
            "disruptor": {
                "client": JAMMER.0, "rounds": [JAMMED.start, JAMMED.end],
                "reseal_rng_seed": hx(seed(4, 0)),
            },
            "trace": trace,
        });
        c.group(
            "session",
            "a complete hybrid-mode session: replaying every participant's inputs (trace, \
             in order) into fresh state machines built from group_config and the members' \
             seeds must accept every envelope, reproduce every envelope the participant sent \
             (except the disruptor's rewritten submissions) and end in expected.outcomes",
            vec![Case::valid(
                format!(
                    "{M} servers, {N} clients, rounds 0..{ROUNDS}, client {} jams the XOR \
                     slots of rounds {JAMMED:?} and is traced by blame",
                    JAMMER.0
                ),
                inputs,
                json!({ "outcomes": outcomes }),
            )],
        );
        let tampered = tamper::cases(&config, &keys, &net);
        c.group(
            "tampered",
            "one envelope of the session's trace (step) replaced by a tampered copy: a \
             recipient that has processed every earlier input of its own must reject it with \
             expected.error (and then still accept the original)",
            tampered,
        );
    }
    c.finish(
        name,
        "proto/session",
        "verdict-proto protocol messages: a complete deterministic hybrid-mode session and \
         tampered envelopes",
    )
}
