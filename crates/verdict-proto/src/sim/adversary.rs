//! The simulator's ready-made adversaries: misbehaving clients and servers, applied to what
//! they send (a client's rewritten submission) or switched on inside the server (a server's lie
//! must be consistent with what it acts on).

use verdict_dcnet::{ClientId, Party, ServerId};

use super::Simulator;
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind, Writer, write_byte_list};

/// A misbehaving participant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Adversary {
    /// From `from_round` on, XORs a pattern of its own into the message area of its ciphertext
    /// in every XOR slot (hybrid mode): a disruptor blame must trace.
    JammingClient {
        /// The client.
        client: ClientId,
        /// First round it jams.
        from_round: u64,
    },
    /// In `round`, sends the ciphertext it built for one verifiable slot in another
    /// (well-formed, but the proof is bound to the wrong slot).
    BadProofClient {
        /// The client.
        client: ClientId,
        /// The round.
        round: u64,
    },
    /// In `round`, re-sends its previous round's slot ciphertexts under a fresh signature
    /// (proofs and pads are bound to the old round).
    ReplayingClient {
        /// The client.
        client: ClientId,
        /// The round.
        round: u64,
    },
    /// Stops sending anything from `from_round` on (crash).
    SilentClient {
        /// The client.
        client: ClientId,
        /// First silent round.
        from_round: u64,
    },
    /// Never shows up: sends nothing at all, its set-up message included (honest but away;
    /// set-up must go on without it).
    AbsentClient {
        /// The client.
        client: ClientId,
    },
    /// Sends no submissions before `round` (joins late).
    LateClient {
        /// The client.
        client: ClientId,
        /// First round it submits to.
        round: u64,
    },
    /// During blame, flips its published pad bits for the first two clients of the list (the
    /// XOR stays consistent, so only the suspect's rebuttal can expose it).
    LyingServer {
        /// The server.
        server: ServerId,
    },
    /// In `round`, sends a different (re-signed) commit or ciphertext message to one other
    /// server than to the rest.
    EquivocatingServer {
        /// The server.
        server: ServerId,
        /// The round.
        round: u64,
    },
    /// Forwards its clients' submissions without verifying their proofs (eager mode expects
    /// every server to reject its own clients' invalid proofs).
    UncheckingServer {
        /// The server.
        server: ServerId,
    },
    /// In `round`, its inventory carries the aggregates of its first two verifiable slots
    /// swapped (well-formed, signed, but not the sums of the submissions it forwards).
    WrongAggregateServer {
        /// The server.
        server: ServerId,
        /// The round.
        round: u64,
    },
    /// Signs "nobody is to blame" as its verdict of every accusation, whatever the evidence
    /// (and acts on it).
    DissentingServer {
        /// The server.
        server: ServerId,
    },
    /// From `from_round` on, XORs an unsigned frame (a length header and a message of its
    /// choice: it cannot sign for another slot's pseudonym) into every XOR slot but its own.
    XorInjectingClient {
        /// The client.
        client: ClientId,
        /// First round it injects.
        from_round: u64,
    },
    /// With every submission, also sends every server junk: validly signed submissions for the
    /// next round and "no objection" rebuttals of an accusation nobody made (buffer flooding).
    FloodingClient {
        /// The client.
        client: ClientId,
    },
    /// Submits the identity as its pseudonym key (a valid proof with secret 0).
    IdentityPseudonymClient {
        /// The client.
        client: ClientId,
    },
    /// Two colluding clients submit the same pseudonym key.
    SharedPseudonymClients {
        /// One client.
        first: ClientId,
        /// The other.
        second: ClientId,
    },
    /// Sends one other server a different (re-signed) version of its blame pad bits.
    EquivocatingBlameServer {
        /// The server.
        server: ServerId,
    },
    /// Lies about its pad bits like [`Adversary::LyingServer`], and shows the suspect, in its
    /// own rebuttal request, a truthful (re-signed) copy of its claim, so that an early
    /// request makes the suspect find nothing to object to.
    DeceivingServer {
        /// The server.
        server: ServerId,
    },
    /// Sends nothing from `from_round` on (a crash, or a server stalling the group).
    SilentServer {
        /// The server.
        server: ServerId,
        /// First silent round.
        from_round: u64,
    },
    /// Sends `victim` nothing from `from_round` on, and keeps talking to everybody else (a
    /// crash in the middle of a broadcast, or a server trying to get an honest one named: the
    /// victim stalls, and the others wait for the victim's next step).
    WithholdingServer {
        /// The server.
        server: ServerId,
        /// The server it cuts off.
        victim: ServerId,
        /// First round withheld.
        from_round: u64,
    },
    /// In `round`, its inventory lists its first accepted client as rejected (that client's
    /// submission is valid).
    FalselyRejectingServer {
        /// The server.
        server: ServerId,
        /// The round.
        round: u64,
    },
    /// Drops every submission `client` sends it (the client is never in its inventory). It
    /// cannot be caught — nothing the client holds proves it sent anything — so the remedy is
    /// the client's: certified outputs show it was left out, and it moves to another upstream
    /// ([`Simulator::switch_after_left_out`]).
    CensoringServer {
        /// The server.
        server: ServerId,
        /// The client it silences.
        client: ClientId,
    },
}

impl<S: ProtoSuite> Simulator<S> {
    /// Adds an adversary.
    pub fn add_adversary(&mut self, adversary: Adversary) {
        if let Adversary::LyingServer { server } | Adversary::DeceivingServer { server } = adversary
            && let Some(s) = self.servers.get_mut(server.index())
        {
            // The lie must be consistent (what it tells others is what it acts on), so it
            // lives in the server, not in the link.
            s.lie_in_blame();
        }
        // Server adversaries whose lie must be consistent (what it tells others is what it
        // acts on) live in the server, not in the link.
        match adversary {
            Adversary::UncheckingServer { server } => {
                if let Some(s) = self.servers.get_mut(server.index()) {
                    s.skip_client_checks();
                }
            }
            Adversary::WrongAggregateServer { server, round } => {
                if let Some(s) = self.servers.get_mut(server.index()) {
                    s.swap_aggregates_in(round);
                }
            }
            Adversary::DissentingServer { server } => {
                if let Some(s) = self.servers.get_mut(server.index()) {
                    s.dissent_in_blame();
                }
            }
            Adversary::FalselyRejectingServer { server, round } => {
                if let Some(s) = self.servers.get_mut(server.index()) {
                    s.falsely_reject_in(round);
                }
            }
            _ => {}
        }
        self.adversaries.push(adversary);
    }

    pub(super) fn reseal(
        &mut self,
        who: Party,
        env: &Envelope<S::G>,
        round: u64,
        payload: Vec<u8>,
    ) -> Vec<u8> {
        let Some(key) = self.signing_key(who).cloned() else {
            return env.to_bytes();
        };
        let h = env.header();
        Envelope::seal(
            &key,
            h.kind,
            h.sender,
            h.session,
            round,
            payload,
            &mut self.rng,
        )
        .to_bytes()
    }

    /// Applies the adversaries to one transmission.
    pub(super) fn misbehave(&mut self, who: Party, to: Party, bytes: Vec<u8>) -> Option<Vec<u8>> {
        let Ok(env) = Envelope::<S::G>::from_bytes(&bytes) else {
            return Some(bytes);
        };
        let h = env.header().clone();
        let mut bytes = bytes;
        for adv in self.adversaries.clone() {
            match (adv, who) {
                (Adversary::SilentClient { client, from_round }, Party::Client(c))
                    if c == client
                        && (h.kind == Kind::Submission && h.round >= from_round
                            || h.kind == Kind::Rebuttal) =>
                {
                    return None;
                }
                (Adversary::AbsentClient { client }, Party::Client(c)) if c == client => {
                    return None;
                }
                (Adversary::CensoringServer { server, client }, Party::Client(c))
                    if c == client && to == Party::Server(server) && h.kind == Kind::Submission =>
                {
                    return None;
                }
                (Adversary::LateClient { client, round }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission && h.round < round =>
                {
                    return None;
                }
                (Adversary::JammingClient { client, from_round }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission && h.round >= from_round =>
                {
                    let open = self.open_slots_of(c);
                    let Ok(mut list) = crate::wire::reader(&env.payload).byte_list() else {
                        continue;
                    };
                    for (o, ct) in open.iter().zip(list.iter_mut()) {
                        if o.kind == crate::SlotKind::Xor {
                            // A pattern of its own (several jammers must not cancel out).
                            let mut mask = vec![0u8; o.len];
                            let mut h = blake3::Hasher::new();
                            h.update(b"verdict sim jammer").update(&c.0.to_le_bytes());
                            h.finalize_xof().fill(&mut mask);
                            let area = ct.iter_mut().skip(crate::slot::SLOT_HEADER_LEN).take(o.len);
                            for (b, m) in area.zip(&mask) {
                                *b ^= *m;
                            }
                        }
                    }
                    let mut w = Writer::new();
                    write_byte_list(&mut w, &list);
                    bytes = self.reseal(who, &env, h.round, w.finish());
                }
                (Adversary::BadProofClient { client, round }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission && h.round == round =>
                {
                    let open = self.open_slots_of(c);
                    let Ok(mut list) = crate::wire::reader(&env.payload).byte_list() else {
                        continue;
                    };
                    let ver: Vec<usize> = open
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| o.kind == crate::SlotKind::Verifiable)
                        .map(|(k, _)| k)
                        .collect();
                    if let (Some(&a), Some(&b)) = (ver.first(), ver.get(1))
                        && open.get(a).map(|o| o.len) == open.get(b).map(|o| o.len)
                    {
                        list.swap(a, b);
                    }
                    let mut w = Writer::new();
                    write_byte_list(&mut w, &list);
                    bytes = self.reseal(who, &env, h.round, w.finish());
                }
                (Adversary::ReplayingClient { client, round }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission =>
                {
                    if h.round + 1 == round {
                        self.last_submission.insert(c, env.payload.clone());
                    }
                    if h.round == round
                        && let Some(old) = self.last_submission.get(&c).cloned()
                    {
                        let same_shape =
                            crate::wire::reader(&old).byte_list().map(|l| l.len()).ok()
                                == crate::wire::reader(&env.payload)
                                    .byte_list()
                                    .map(|l| l.len())
                                    .ok();
                        if same_shape {
                            bytes = self.reseal(who, &env, h.round, old);
                        }
                    }
                }
                (Adversary::EquivocatingServer { server, round }, Party::Server(s))
                    if s == server
                        && h.round == round
                        && matches!(h.kind, Kind::Commit | Kind::ServerCiphertexts)
                        && to == Party::Server(ServerId((s.0 + 1) % self.servers.len() as u32)) =>
                {
                    let mut payload = env.payload.clone();
                    if let Some(last) = payload.last_mut() {
                        *last ^= 1;
                    }
                    bytes = self.reseal(who, &env, h.round, payload);
                }
                (Adversary::SilentServer { server, from_round }, Party::Server(s))
                    if s == server && (h.round >= from_round || self.crashed.contains(&who)) =>
                {
                    // A crash: once silent, silent for good (blame messages of older rounds
                    // included).
                    self.crashed.insert(who);
                    return None;
                }
                (
                    Adversary::WithholdingServer {
                        server,
                        victim,
                        from_round,
                    },
                    Party::Server(s),
                ) if s == server && to == Party::Server(victim) && h.round >= from_round => {
                    return None;
                }
                (Adversary::XorInjectingClient { client, from_round }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission && h.round >= from_round =>
                {
                    let open = self.open_slots_of(c);
                    let own = self.clients.get(c.index()).and_then(|cl| cl.slot());
                    let Ok(mut list) = crate::wire::reader(&env.payload).byte_list() else {
                        continue;
                    };
                    let text = format!("injected by client {}", c.0);
                    for (o, ct) in open.iter().zip(list.iter_mut()) {
                        if o.kind != crate::SlotKind::Xor || Some(o.slot) == own {
                            continue;
                        }
                        let body = crate::slot::join_payload(o.len as u32, text.as_bytes());
                        if body.len() > o.len {
                            continue;
                        }
                        let len = (body.len() as u32).to_be_bytes();
                        for (b, x) in ct.iter_mut().zip(len.iter().chain(&body)) {
                            *b ^= *x;
                        }
                    }
                    let mut w = Writer::new();
                    write_byte_list(&mut w, &list);
                    bytes = self.reseal(who, &env, h.round, w.finish());
                }
                (Adversary::FloodingClient { client }, Party::Client(c))
                    if c == client && h.kind == Kind::Submission =>
                {
                    self.flood(c, &env);
                }
                (Adversary::IdentityPseudonymClient { client }, Party::Client(c))
                    if c == client && h.kind == Kind::ClientSetup =>
                {
                    let zero =
                        <<S::G as verdict_group::Group>::Scalar as verdict_group::Scalar>::zero();
                    if let Some(b) = self.with_pseudonym(c, &env, zero) {
                        bytes = b;
                    }
                }
                (Adversary::SharedPseudonymClients { first, second }, Party::Client(c))
                    if (c == first || c == second) && h.kind == Kind::ClientSetup =>
                {
                    // A secret both know, the same for both (derived from the pair).
                    let mut wide = [0u8; 64];
                    wide[..4].copy_from_slice(&first.0.to_le_bytes());
                    wide[4..8].copy_from_slice(&second.0.to_le_bytes());
                    wide[8] = 0x5a;
                    let y = <<S::G as verdict_group::Group>::Scalar as verdict_group::Scalar>::from_uniform_bytes(&wide);
                    if let Some(b) = self.with_pseudonym(c, &env, y) {
                        bytes = b;
                    }
                }
                (Adversary::EquivocatingBlameServer { server }, Party::Server(s))
                    if s == server
                        && h.kind == Kind::BlameBits
                        && to == Party::Server(ServerId((s.0 + 1) % self.servers.len() as u32)) =>
                {
                    if let Ok(mut claim) = crate::blame::BlameBits::from_bytes(&env.payload)
                        && let Some(b) = claim.traces.first_mut().and_then(|t| t.bits.first_mut())
                    {
                        *b = !*b;
                        bytes = self.reseal(who, &env, h.round, claim.to_bytes());
                    }
                }
                (Adversary::DeceivingServer { server }, Party::Server(s))
                    if s == server && h.kind == Kind::RebuttalRequest =>
                {
                    if let Ok(mut request) = crate::blame::RebuttalRequest::from_bytes(&env.payload)
                    {
                        for e in request.bits.iter_mut() {
                            let Ok(inner) = Envelope::<S::G>::from_bytes(e) else {
                                continue;
                            };
                            if inner.header().sender != who {
                                continue;
                            }
                            let Ok(mut claim) = crate::blame::BlameBits::from_bytes(&inner.payload)
                            else {
                                continue;
                            };
                            // Undo the lie (the first two bits) in the copy the suspect sees.
                            for t in claim.traces.iter_mut() {
                                for b in t.bits.iter_mut().take(2) {
                                    *b = !*b;
                                }
                            }
                            *e = self.reseal(who, &inner, inner.header().round, claim.to_bytes());
                        }
                        bytes = self.reseal(who, &env, h.round, request.to_bytes());
                    }
                }
                _ => {}
            }
        }
        Some(bytes)
    }

    /// A flooding client's junk, signed with its key, to every server.
    fn flood(&mut self, c: ClientId, env: &Envelope<S::G>) {
        let Some(key) = self.signing_key(Party::Client(c)).cloned() else {
            return;
        };
        let h = env.header().clone();
        for j in 0..self.servers.len() as u32 {
            for k in 0..16u32 {
                let junk = Envelope::seal(
                    &key,
                    Kind::Submission,
                    Party::Client(c),
                    h.session,
                    h.round + 1,
                    k.to_le_bytes().to_vec(),
                    &mut self.rng,
                );
                self.inject(
                    Party::Client(c),
                    Party::Server(ServerId(j)),
                    junk.to_bytes(),
                );
                let objection = crate::blame::Rebuttal::NoObjection {
                    round: h.round.saturating_sub(u64::from(k % 2)),
                    digests: vec![[k as u8; 32]],
                };
                let junk = Envelope::seal(
                    &key,
                    Kind::Rebuttal,
                    Party::Client(c),
                    h.session,
                    h.round,
                    objection.to_bytes(),
                    &mut self.rng,
                );
                self.inject(
                    Party::Client(c),
                    Party::Server(ServerId(j)),
                    junk.to_bytes(),
                );
            }
        }
    }

    /// `env` (a client's set-up message) with its shuffle submission replaced by one carrying
    /// the pseudonym key `y·g`, re-signed.
    fn with_pseudonym(
        &mut self,
        c: ClientId,
        env: &Envelope<S::G>,
        y: <S::G as verdict_group::Group>::Scalar,
    ) -> Option<Vec<u8>> {
        let params = verdict_shuffle::KeyShuffleParams::new(
            env.header().session,
            self.config
                .server_keys(crate::keys::KeyUse::Shuffle)
                .iter()
                .map(|k| *k.point())
                .collect(),
            self.config.num_clients(),
        )
        .ok()?;
        let mut r = crate::wire::reader(&env.payload);
        let _ = r.bytes().ok()?;
        let suite = r.bytes().ok()?.to_vec();
        let secret = verdict_group::SecretScalar::new(y);
        let sub =
            verdict_shuffle::keyshuffle::submit_pseudonym(&params, c.0, &secret, &mut self.rng)
                .ok()?
                .to_bytes();
        let payload = crate::setup::client_setup_payload(&sub, &suite);
        Some(self.reseal(Party::Client(c), env, env.header().round, payload))
    }

    fn open_slots_of(&self, c: ClientId) -> Vec<crate::OpenSlot> {
        // The client's upstream server knows the current schedule (all participants agree).
        self.servers
            .first()
            .map(|s| s.open_slots())
            .filter(|_| c.0 < u32::MAX)
            .unwrap_or_default()
    }
}
