//! A deterministic driver for a whole session through `verdict-proto`'s public API: one global
//! FIFO queue of transmissions, zero link latency, and a clock that only moves when nothing is
//! in flight (then the earliest server timer fires). Every input a participant sees — a
//! delivered envelope or a fired timer — is recorded in order, so that the trace alone lets a
//! fresh set of state machines redo the session.

use core::time::Duration;
use std::collections::VecDeque;

use rand_chacha::ChaCha20Rng;
use verdict_proto::wire::{Envelope, Kind, reader, write_byte_list};
use verdict_proto::{
    Client, ClientId, Event, Party, ProtoSuite, SecretKeys, Server, ServerId, SlotKind,
};

/// One recorded input of one participant.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    /// `to.handle_message(from, bytes)` at `at` (a server first gets `handle_timeout(at)`).
    Deliver {
        at: Duration,
        from: Party,
        to: Party,
        bytes: Vec<u8>,
        /// The disruptor rewrote what its state machine sent.
        rewritten: bool,
    },
    /// `server.handle_timeout(at)`: its timer fired with nothing in flight.
    Timeout { at: Duration, server: ServerId },
}

/// The disruptor: in `rounds`, the client's submissions have a pattern XORed into the message
/// area of every XOR slot, and are re-signed with its key.
pub(crate) struct Jammer {
    pub(crate) client: ClientId,
    pub(crate) rounds: core::ops::Range<u64>,
    pub(crate) rng: ChaCha20Rng,
}

/// The jammer's pattern for a slot of `len` bytes: bytes `4..4+len` of the slot ciphertext are
/// XORed with the first `len` bytes of `blake3-xof("verdict vectors jammer" ‖ u32le(client))`.
pub fn jam_mask(client: ClientId, len: usize) -> Vec<u8> {
    let mut mask = vec![0u8; len];
    let mut h = blake3_xof(b"verdict vectors jammer", &client.0.to_le_bytes());
    h.fill(&mut mask);
    mask
}

fn blake3_xof(a: &[u8], b: &[u8]) -> blake3::OutputReader {
    let mut h = blake3::Hasher::new();
    h.update(a).update(b);
    h.finalize_xof()
}

/// The whole simulated group.
pub(crate) struct Net<S: ProtoSuite> {
    pub(crate) servers: Vec<Server<S, ChaCha20Rng>>,
    pub(crate) clients: Vec<Client<S, ChaCha20Rng>>,
    pub(crate) client_keys: Vec<SecretKeys<S::G>>,
    pub(crate) jammer: Option<Jammer>,
    pub(crate) now: Duration,
    queue: VecDeque<(Party, Party, Vec<u8>, bool)>,
    /// Every input, in the order it was given.
    pub(crate) trace: Vec<Input>,
    /// Every event, with its participant.
    pub(crate) events: Vec<(Party, Event)>,
}

impl<S: ProtoSuite> Net<S> {
    pub(crate) fn new(
        servers: Vec<Server<S, ChaCha20Rng>>,
        clients: Vec<Client<S, ChaCha20Rng>>,
        client_keys: Vec<SecretKeys<S::G>>,
        jammer: Option<Jammer>,
    ) -> Self {
        let mut net = Self {
            servers,
            clients,
            client_keys,
            jammer,
            now: Duration::ZERO,
            queue: VecDeque::new(),
            trace: Vec::new(),
            events: Vec::new(),
        };
        for j in 0..net.servers.len() {
            net.collect(Party::Server(ServerId(j as u32)));
        }
        for i in 0..net.clients.len() {
            net.collect(Party::Client(ClientId(i as u32)));
        }
        net
    }

    fn collect(&mut self, who: Party) {
        let mut out = Vec::new();
        match who {
            Party::Server(s) => {
                let Some(srv) = self.servers.get_mut(s.index()) else {
                    return;
                };
                while let Some(t) = srv.poll_transmit() {
                    out.push(t);
                }
                while let Some(e) = srv.poll_event() {
                    self.events.push((who, e));
                }
            }
            Party::Client(c) => {
                let Some(cl) = self.clients.get_mut(c.index()) else {
                    return;
                };
                while let Some(t) = cl.poll_transmit() {
                    out.push(t);
                }
                while let Some(e) = cl.poll_event() {
                    self.events.push((who, e));
                }
            }
        }
        for t in out {
            let (bytes, rewritten) = self.misbehave(who, t.bytes.to_vec());
            self.queue.push_back((who, t.to, bytes, rewritten));
        }
    }

    /// The jammer's rewrite of one transmission.
    fn misbehave(&mut self, who: Party, bytes: Vec<u8>) -> (Vec<u8>, bool) {
        let Some(j) = self.jammer.as_mut() else {
            return (bytes, false);
        };
        let Party::Client(c) = who else {
            return (bytes, false);
        };
        let Ok(env) = Envelope::<S::G>::from_bytes(&bytes) else {
            return (bytes, false);
        };
        let h = env.header().clone();
        if c != j.client || h.kind != Kind::Submission || !j.rounds.contains(&h.round) {
            return (bytes, false);
        }
        let Some(client) = self.clients.get(c.index()) else {
            return (bytes, false);
        };
        let open = client.submitted_slots(h.round);
        let Ok(mut list) = reader(&env.payload).byte_list() else {
            return (bytes, false);
        };
        for (o, ct) in open.iter().zip(list.iter_mut()) {
            if o.kind == SlotKind::Xor {
                let mask = jam_mask(c, o.len);
                let area = ct.iter_mut().skip(verdict_proto::slot::SLOT_HEADER_LEN);
                for (b, m) in area.zip(&mask) {
                    *b ^= *m;
                }
            }
        }
        let mut w = verdict_proto::wire::Writer::new();
        write_byte_list(&mut w, &list);
        let Some(key) = self.client_keys.get(c.index()) else {
            return (bytes, false);
        };
        let sealed = Envelope::seal(
            key.signing(),
            h.kind,
            h.sender,
            h.session,
            h.round,
            w.finish(),
            &mut j.rng,
        );
        (sealed.to_bytes(), true)
    }

    /// Delivers one message or fires one timer; `false` when nothing is left to do.
    fn step(&mut self) -> bool {
        if let Some((from, to, bytes, rewritten)) = self.queue.pop_front() {
            match to {
                Party::Server(s) => {
                    if let Some(srv) = self.servers.get_mut(s.index()) {
                        srv.handle_timeout(self.now);
                        srv.handle_message(from, bytes.as_slice());
                    }
                }
                Party::Client(c) => {
                    if let Some(cl) = self.clients.get_mut(c.index()) {
                        cl.handle_message(from, bytes.as_slice());
                    }
                }
            }
            self.trace.push(Input::Deliver {
                at: self.now,
                from,
                to,
                bytes,
                rewritten,
            });
            self.collect(to);
            return true;
        }
        let timer = self
            .servers
            .iter()
            .enumerate()
            .filter_map(|(j, s)| s.poll_timeout().map(|t| (t, j)))
            .min();
        let Some((t, j)) = timer else {
            return false;
        };
        self.now = self.now.max(t);
        if let Some(srv) = self.servers.get_mut(j) {
            srv.handle_timeout(self.now);
        }
        self.trace.push(Input::Timeout {
            at: self.now,
            server: ServerId(j as u32),
        });
        self.collect(Party::Server(ServerId(j as u32)));
        true
    }

    /// Runs until `done`, nothing is left, or `limit` steps were taken.
    pub(crate) fn run(&mut self, done: impl Fn(&Self) -> bool, limit: usize) {
        for _ in 0..limit {
            if done(self) || !self.step() {
                return;
            }
        }
    }
}
