//! Re-verifies `protocol-session-hybrid.json` through `verdict-proto`'s public API alone: every
//! participant is rebuilt from the recorded group configuration and seeds, its recorded inputs
//! are replayed in order, and it must accept every envelope, send exactly the envelopes the
//! trace says it sent and end in the recorded outcome; every tampered copy must be rejected
//! with its named error, after which the original is still accepted.

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Value, json};
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::wire::Envelope;
use verdict_proto::{
    Client, ClientId, Event, GroupConfig, MessageError, Party, SecretKeys, Server, ServerId,
    WireError,
};

use super::{cases, load, unhex};

type Hg = HashingGenerator<Ristretto255>;

fn party(v: &Value) -> Party {
    if let Some(j) = v.get("server") {
        Party::Server(ServerId(j.as_u64().unwrap() as u32))
    } else {
        Party::Client(ClientId(v["client"].as_u64().unwrap() as u32))
    }
}

fn seed(v: &Value) -> [u8; 32] {
    unhex(v).try_into().expect("32-byte seed")
}

/// The names the vectors use for rejections (kept here independently of the generator's).
fn error_name(e: &MessageError) -> &'static str {
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

enum Machine {
    Server(Box<Server<Hg, ChaCha20Rng>>),
    Client(Box<Client<Hg, ChaCha20Rng>>),
}

struct World {
    config: GroupConfig<Hg>,
    members: Vec<Value>,
    trace: Vec<Value>,
}

impl World {
    fn member(&self, who: Party) -> &Value {
        self.members
            .iter()
            .find(|m| party(&m["party"]) == who)
            .expect("member")
    }

    fn machine(&self, who: Party) -> Machine {
        let m = self.member(who);
        let keys = SecretKeys::from_seed(&seed(&m["key_seed"])).unwrap();
        let rng = ChaCha20Rng::from_seed(seed(&m["rng_seed"]));
        match who {
            Party::Server(s) => Machine::Server(Box::new(
                Server::new(self.config.clone(), s, keys, rng, Duration::ZERO).unwrap(),
            )),
            Party::Client(c) => {
                let mut cl = Client::new(self.config.clone(), c, keys, rng).unwrap();
                for msg in m["submit"].as_array().unwrap() {
                    cl.submit(unhex(msg)).unwrap();
                }
                Machine::Client(Box::new(cl))
            }
        }
    }

    /// The trace entries that are inputs of `who`, with their step.
    fn inputs_of(&self, who: Party) -> impl Iterator<Item = &Value> {
        self.trace.iter().filter(move |i| party(&i["to"]) == who)
    }
}

impl Machine {
    fn input(&mut self, i: &Value) {
        let at = Duration::from_nanos(i["at_ns"].as_u64().unwrap());
        match (self, i["input"].as_str().unwrap()) {
            (Self::Server(s), "deliver") => {
                s.handle_timeout(at);
                s.handle_message(party(&i["from"]), unhex(&i["envelope"]));
            }
            (Self::Server(s), "timeout") => s.handle_timeout(at),
            (Self::Client(c), "deliver") => {
                c.handle_message(party(&i["from"]), unhex(&i["envelope"]))
            }
            (_, other) => panic!("unexpected input {other}"),
        }
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

    fn drain(&mut self, sent: &mut Vec<(Party, Vec<u8>)>, events: &mut Vec<Event>) {
        match self {
            Self::Server(s) => {
                while let Some(t) = s.poll_transmit() {
                    sent.push((t.to, t.bytes.to_vec()));
                }
                while let Some(e) = s.poll_event() {
                    events.push(e);
                }
            }
            Self::Client(c) => {
                while let Some(t) = c.poll_transmit() {
                    sent.push((t.to, t.bytes.to_vec()));
                }
                while let Some(e) = c.poll_event() {
                    events.push(e);
                }
            }
        }
    }
}

fn hx(b: &[u8]) -> String {
    hex::encode(b)
}

/// The recorded outcome of a participant's events (the vector's `outcome` object).
fn outcome(events: &[Event]) -> Value {
    let (mut delivered, mut rounds, mut verdicts, mut excluded, mut rejected) =
        (vec![], vec![], vec![], vec![], vec![]);
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
                "culprit": culprit.map(|p| match p {
                    Party::Server(s) => json!({ "server": s.0 }),
                    Party::Client(c) => json!({ "client": c.0 }),
                }),
            })),
            Event::Excluded { client, .. } => excluded.push(json!(client.0)),
            Event::Rejected(e) => rejected.push(json!(error_name(e))),
            _ => {}
        }
    }
    json!({
        "delivered": delivered, "rounds_complete": rounds, "verdicts": verdicts,
        "excluded": excluded, "rejected": rejected,
    })
}

fn world(session: &Value) -> World {
    let inputs = &session["inputs"];
    let config_bytes = unhex(&inputs["group_config"]);
    let config = GroupConfig::<Hg>::from_bytes(&config_bytes).expect("group config decodes");
    assert_eq!(config.to_bytes(), config_bytes, "group config re-encodes");
    assert_eq!(
        hx(&config.validate().expect("group config validates").0),
        inputs["session_id"].as_str().unwrap(),
        "session id"
    );
    World {
        config,
        members: inputs["members"].as_array().unwrap().clone(),
        trace: inputs["trace"].as_array().unwrap().clone(),
    }
}

fn check_participant(w: &World, who: Party, expected: &Value) {
    let mut m = w.machine(who);
    let (mut sent, mut events) = (Vec::new(), Vec::new());
    m.drain(&mut sent, &mut events);
    for i in w.inputs_of(who) {
        m.input(i);
        m.drain(&mut sent, &mut events);
    }
    // What the trace says `who` sent, in order, is what the fresh machine sent (the session
    // stops with some of its last transmissions still in flight: a prefix).
    let recorded: Vec<&Value> = w
        .trace
        .iter()
        .filter(|i| i["input"] == "deliver" && party(&i["from"]) == who)
        .collect();
    assert!(
        recorded.len() <= sent.len(),
        "{who}: sent less than recorded"
    );
    for (r, (to, bytes)) in recorded.iter().zip(&sent) {
        assert_eq!(
            party(&r["to"]),
            *to,
            "{who}: recipient of step {}",
            r["step"]
        );
        let env = Envelope::<Ristretto255>::from_bytes(bytes).unwrap();
        assert_eq!(
            format!("{:?}", env.header().kind),
            r["kind"].as_str().unwrap()
        );
        assert_eq!(env.header().round, r["round"].as_u64().unwrap());
        if r["rewritten_by_disruptor"] == false {
            assert_eq!(
                hx(bytes),
                r["envelope"].as_str().unwrap(),
                "{who}: envelope of step {}",
                r["step"]
            );
        }
    }
    let got = outcome(&events);
    assert_eq!(
        got["rejected"],
        json!([]),
        "{who} rejected a trace envelope"
    );
    assert_eq!(&got, expected, "{who}: outcome");
}

#[test]
fn protocol_session_replays() {
    let json = load("protocol-session-hybrid.json");
    let all = cases("protocol-session-hybrid.json", &json);
    let session = &all.iter().find(|(g, _)| g == "session").expect("session").1;
    let w = world(session);
    let outcomes = session["expected"]["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), w.members.len());
    // The trace is well formed: every envelope's signer is its transport sender.
    for i in &w.trace {
        if i["input"] == "deliver" {
            let env = Envelope::<Ristretto255>::from_bytes(&unhex(&i["envelope"])).unwrap();
            assert_eq!(env.header().sender, party(&i["from"]));
            env.verify(w.config.key_of(party(&i["from"])).unwrap())
                .expect("trace envelope signature");
        }
    }
    for o in outcomes {
        check_participant(&w, party(&o["party"]), &o["outcome"]);
    }
    // The session did what it says: the disruptor is named by every server's verdicts.
    let jammer = party(&session["inputs"]["disruptor"]);
    for o in outcomes
        .iter()
        .filter(|o| matches!(party(&o["party"]), Party::Server(_)))
    {
        let verdicts = o["outcome"]["verdicts"].as_array().unwrap();
        assert!(!verdicts.is_empty());
        assert!(verdicts.iter().all(|v| party(&v["culprit"]) == jammer));
    }
    let mut tampered = 0;
    for (group, c) in &all {
        if group != "tampered" {
            continue;
        }
        tampered += 1;
        let i = &c["inputs"];
        let step = i["step"].as_u64().unwrap() as usize;
        let original = &w.trace[step];
        let to = party(&i["to"]);
        assert_eq!(to, party(&original["to"]));
        let upto = if i["position"] == "after" {
            step + 1
        } else {
            step
        };
        let mut m = w.machine(to);
        let (mut sent, mut events) = (Vec::new(), Vec::new());
        for input in w
            .inputs_of(to)
            .filter(|x| (x["step"].as_u64().unwrap() as usize) < upto)
        {
            m.input(input);
        }
        m.drain(&mut sent, &mut events);
        events.clear();
        let at = Duration::from_nanos(original["at_ns"].as_u64().unwrap());
        m.deliver(at, party(&i["from"]), &unhex(&i["envelope"]));
        m.drain(&mut sent, &mut events);
        if i["position"] == "instead" {
            // The original follows; a server that held a client submission's signature
            // check may reject the tampered copy only now (spec/vectors.md §5.4).
            m.input(original);
            m.drain(&mut sent, &mut events);
        }
        let rejections: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Rejected(e) => Some(error_name(e)),
                _ => None,
            })
            .collect();
        assert_eq!(
            rejections.first().copied(),
            c["expected"]["error"].as_str(),
            "case {}",
            c["id"]
        );
        if i["position"] == "instead" {
            assert_eq!(
                rejections.len(),
                1,
                "case {}: the original is no longer accepted",
                c["id"]
            );
        }
    }
    assert!(tampered >= 10, "too few tampered cases");
}
