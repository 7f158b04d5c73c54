//! Restarting a client: what it keeps on disk to take its place in the session again.
//!
//! A client's place in a session is its pseudonym key (the shuffle gave it a slot) and its
//! secret DC-net set-up state (every server's pads with it depend on it); both are drawn once,
//! before the set-up message that publishes them. A client started with
//! [`Client::new_seeded`] draws them from a [`SetupSeed`] instead of its RNG, so a restarted
//! client re-derives them from the seed alone. What changes round by round — the round it
//! awaits, the slot schedule, a pending accusation, and the exact signed submission it sent —
//! is a [`Checkpoint`], which the driver stores *before* the submission leaves the process.
//!
//! [`Client::resume`] rebuilds the client from the seed, the set-up transcript it received
//! (verified again: nothing on disk is trusted beyond the seed) and its last checkpoint, and
//! queues the checkpoint's submission again, byte for byte: a server that already holds it
//! ignores the repeat, one that never got it takes it. Sending anything else for that round
//! would be worse than useless — the server keeps the first submission it received, and a
//! client that believed it had sent different bytes could accuse the slot it itself wrote, and
//! be named by blame. For the same reason the resumed client makes no accusation about the
//! round it was in when it stopped (it no longer knows the frame it sent), and a message it had
//! in flight is not queued again (it may have come out). It can still rebut a blame about the
//! rounds it recently submitted to: the checkpoint keeps their open slots (public), and its
//! pads come from the re-derived secrets. Messages queued and not yet sent die
//! with the process: they are never written to disk.

use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use thiserror::Error;
use verdict_dcnet::{ClientId, MAX_SLOT_LEN, Party, ServerId, SessionId};
use zeroize::Zeroizing;

use crate::config::GroupConfig;
use crate::error::{ConfigError, MessageError, SetupFailure, WireError};
use crate::event::Transmit;
use crate::keys::SecretKeys;
use crate::schedule::Schedule;
use crate::slot::{Accusation, OpenSlot, accusation_len};
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind, SharedBytes, Writer, reader};

use super::{Client, Ready, State};

/// The blake3 key-derivation context of the set-up RNG's seed.
const SETUP_SEED_CONTEXT: &str = "verdict-proto/client-setup-seed/v1";
/// The first bytes of an encoded [`Checkpoint`] (its format and version).
const CHECKPOINT_TAG: &[u8] = b"verdict-proto/client-checkpoint/v2";

/// The 32-byte secret from which a client derives its pseudonym key and set-up secrets
/// ([`Client::new_seeded`]). Anyone holding it can link the client to its slot: keep it like
/// the client's secret key (zeroized on drop, `Debug` redacted), and never reuse it for a
/// second session (the derivation binds the session id, so a reused seed still gives
/// unrelated secrets, but one secret, one use).
pub struct SetupSeed(Zeroizing<[u8; 32]>);

impl core::fmt::Debug for SetupSeed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SetupSeed(<redacted>)")
    }
}

impl SetupSeed {
    /// A fresh seed.
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(seed.as_mut());
        Self(seed)
    }

    /// The seed with these bytes (as stored by [`SetupSeed::to_bytes`]).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(Zeroizing::new(bytes))
    }

    /// The seed's bytes, to store (wiped when dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(*self.0)
    }

    /// The RNG every set-up secret of `client` in `session` is drawn from: ChaCha20 keyed by
    /// `blake3::derive_key(SETUP_SEED_CONTEXT, seed ‖ session ‖ u32le(client))`.
    pub(super) fn rng(&self, session: &SessionId, client: ClientId) -> ChaCha20Rng {
        let mut input = Zeroizing::new(Vec::with_capacity(68));
        input.extend_from_slice(self.0.as_ref());
        input.extend_from_slice(&session.0);
        input.extend_from_slice(&client.0.to_le_bytes());
        let key = Zeroizing::new(blake3::derive_key(SETUP_SEED_CONTEXT, &input));
        ChaCha20Rng::from_seed(*key)
    }
}

/// A client's progress through the session, as it must be on disk before its submission to
/// [`Checkpoint::round`] is sent (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    round: u64,
    schedule: Vec<u8>,
    accusation: Option<Accusation>,
    submission: Option<Arc<[u8]>>,
    /// The slots open in each recent round we submitted to (public: every participant derives
    /// them), which a rebuttal about that round needs.
    sent: Vec<(u64, Vec<OpenSlot>)>,
    /// The server the client submits to (it may have moved off the roster's).
    upstream: ServerId,
}

/// Rounds of open slots a checkpoint keeps (the client keeps as many, see `Ready::sent`).
const SENT_ROUNDS: usize = 4;

impl Checkpoint {
    /// The round whose output the client awaits (the round of its last submission).
    pub fn round(&self) -> u64 {
        self.round
    }

    /// `CHECKPOINT_TAG ‖ u64le(round) ‖ bytes(schedule state) ‖ u8(0) | u8(1) ‖ Accusation ‖
    /// u8(0) | u8(1) ‖ bytes(submission envelope) ‖ u32le(rounds) ‖ per round: u64le(round) ‖
    /// u32le(slots) ‖ per slot: u8(kind: 0 XOR, 1 verifiable) ‖ u32le(slot) ‖ u64le(len) ‖
    /// u32le(upstream)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(CHECKPOINT_TAG).u64(self.round).bytes(&self.schedule);
        match &self.accusation {
            Some(a) => w.u8(1).raw(&a.to_bytes()),
            None => w.u8(0),
        };
        match &self.submission {
            Some(s) => w.u8(1).bytes(s),
            None => w.u8(0),
        };
        w.count(self.sent.len());
        for (round, open) in &self.sent {
            w.u64(*round).count(open.len());
            for o in open {
                o.write(&mut w);
            }
        }
        w.u32(self.upstream.0);
        w.finish()
    }

    /// Decodes a checkpoint (its schedule and submission are checked against the session by
    /// [`Client::resume`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = reader(bytes);
        r.tag(CHECKPOINT_TAG)
            .map_err(|_| WireError::Invalid("checkpoint tag or version"))?;
        let round = r.u64()?;
        let schedule = r.bytes()?.to_vec();
        let accusation = match r.u8()? {
            0 => None,
            1 => Some(Accusation::from_bytes(r.raw(Accusation::LEN)?)?),
            _ => return Err(WireError::Invalid("checkpoint accusation flag")),
        };
        let submission = match r.u8()? {
            0 => None,
            1 => Some(Arc::from(r.bytes()?)),
            _ => return Err(WireError::Invalid("checkpoint submission flag")),
        };
        let rounds = r.count()?;
        if rounds > SENT_ROUNDS {
            return Err(WireError::Invalid("checkpoint rounds"));
        }
        let mut sent: Vec<(u64, Vec<OpenSlot>)> = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let at = r.u64()?;
            if at > round || sent.last().is_some_and(|(prev, _)| *prev >= at) {
                return Err(WireError::Invalid("checkpoint rounds"));
            }
            // The count is bounded by what is left of the input.
            let n = r.count_sized(OpenSlot::ENCODED_LEN)?;
            let mut open = Vec::with_capacity(n);
            for _ in 0..n {
                let o = OpenSlot::read(&mut r)?;
                if o.len > MAX_SLOT_LEN {
                    return Err(WireError::Invalid("checkpoint slot length"));
                }
                open.push(o);
            }
            sent.push((at, open));
        }
        let upstream = ServerId(r.u32()?);
        r.finish()?;
        Ok(Self {
            round,
            schedule,
            accusation,
            submission,
            sent,
            upstream,
        })
    }
}

/// Why a client cannot resume its session.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The configuration or the keys do not make this client.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The stored set-up transcript is not a valid transcript from our upstream server.
    #[error("stored set-up transcript: {0}")]
    Transcript(MessageError),
    /// The stored set-up transcript proves that set-up failed.
    #[error("set-up failed ({reason}); there is no session to resume")]
    SetupFailed {
        /// Why.
        reason: SetupFailure,
    },
    /// The client was absent at set-up: it has no place in the session.
    #[error("this client was absent at set-up: it is not in the session")]
    AbsentAtSetup,
    /// The seed does not give the pseudonym key the shuffle assigned a slot to: it is not the
    /// seed this client set up with.
    #[error("the seed does not match the pseudonym this client set up with")]
    SeedMismatch,
    /// The stored checkpoint does not fit the session (damaged, or of another session).
    #[error("stored checkpoint: {0}")]
    Checkpoint(WireError),
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    /// Where the client stands, for the driver to store before it sends what
    /// [`Client::poll_transmit`] holds (`None` before set-up completes and after the session
    /// ends for this client).
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        let State::Ready(ready) = &self.state else {
            return None;
        };
        let mut w = Writer::new();
        ready.schedule.write_state(&mut w);
        Some(Checkpoint {
            round: ready.round,
            schedule: w.finish(),
            accusation: ready.accusation,
            submission: ready.submission.clone(),
            sent: ready
                .sent
                .iter()
                .map(|(r, (open, _))| (*r, open.clone()))
                .collect(),
            upstream: self.upstream,
        })
    }

    /// The client that started with [`Client::new_seeded`] (`seed`), received the set-up
    /// `transcript` (the `SetupTranscript` envelope exactly as its upstream sent it) and last
    /// stored `checkpoint`. The transcript is verified again; the checkpoint's submission is
    /// queued again, byte for byte. A driver then calls [`Client::reconnected`] once the link
    /// to the upstream is up, which asks for the outputs certified while the client was away.
    pub fn resume(
        config: impl Into<Arc<GroupConfig<S>>>,
        id: ClientId,
        keys: SecretKeys<S::G>,
        seed: &SetupSeed,
        transcript: impl Into<SharedBytes>,
        checkpoint: &Checkpoint,
        rng: R,
    ) -> Result<Self, ResumeError> {
        let (mut client, _setup_payload) = Self::seeded(config.into(), id, keys, seed, rng)?;
        let upstream = Party::Server(client.upstream);
        let env = client
            .config
            .open(&client.session, upstream, transcript)
            .map_err(ResumeError::Transcript)?;
        if env.header().kind != Kind::SetupTranscript {
            return Err(ResumeError::Transcript(MessageError::Unexpected {
                from: upstream,
                kind: "stored message that is not a set-up transcript",
                round: env.header().round,
            }));
        }
        let verified = client
            .verify_setup(&env)
            .map_err(ResumeError::Transcript)?
            .map_err(|(_, reason)| ResumeError::SetupFailed { reason })?;
        if verified.absent.contains(&id) {
            return Err(ResumeError::AbsentAtSetup);
        }
        let slot = client.own_slot(&verified.nets);
        if slot.is_none() {
            return Err(ResumeError::SeedMismatch);
        }
        let slots = verified.nets.ver.roster().pseudonyms().len();
        let schedule = Schedule::read_state(
            &client.config.policy,
            slots,
            accusation_len::<S::G>(),
            &checkpoint.schedule,
        )
        .map_err(ResumeError::Checkpoint)?;
        if let Some(sub) = &checkpoint.submission {
            client
                .check_own_submission(sub, checkpoint.round)
                .map_err(ResumeError::Checkpoint)?;
        }
        // A pending accusation is about our own slot in a round before the one we await.
        if checkpoint
            .accusation
            .is_some_and(|a| Some(a.slot) != slot || a.round >= checkpoint.round)
        {
            return Err(ResumeError::Checkpoint(WireError::Invalid(
                "checkpoint accusation",
            )));
        }
        if checkpoint
            .sent
            .iter()
            .flat_map(|(_, open)| open)
            .any(|o| o.slot as usize >= slots)
        {
            return Err(ResumeError::Checkpoint(WireError::Invalid(
                "checkpoint slot index",
            )));
        }
        if checkpoint.upstream.index() >= client.config.num_servers() {
            return Err(ResumeError::Checkpoint(WireError::Invalid(
                "checkpoint upstream",
            )));
        }
        let State::Setup { secrets, .. } = &mut client.state else {
            return Err(ResumeError::Checkpoint(WireError::Invalid("client state")));
        };
        let secrets = secrets
            .take()
            .ok_or(ResumeError::Checkpoint(WireError::Invalid("client state")))?;
        let mut ready = Ready::new(verified.nets, secrets, slot, schedule, checkpoint.round);
        ready.accusation = checkpoint.accusation;
        ready.submission = checkpoint.submission.clone();
        // The slots of recent rounds, for rebuttals; without the frames we sent, which we do
        // not keep (an empty frame never raises an accusation).
        ready.sent = checkpoint
            .sent
            .iter()
            .map(|(r, open)| (*r, (open.clone(), Zeroizing::new(Vec::new()))))
            .collect();
        client.state = State::Ready(Box::new(ready));
        client.upstream = checkpoint.upstream;
        if let Some(sub) = &checkpoint.submission {
            client.transmits.push_back(Transmit {
                to: Party::Server(client.upstream),
                bytes: Arc::clone(sub),
            });
        }
        Ok(client)
    }

    /// Whether `bytes` is a submission this client signed for `round` of this session.
    fn check_own_submission(&self, bytes: &[u8], round: u64) -> Result<(), WireError> {
        let (signed, _payload) = Envelope::<S::G>::parse(bytes)?;
        let h = &signed.header;
        if h.kind != Kind::Submission
            || h.sender != Party::Client(self.id)
            || h.session != self.session.0
            || h.round != round
        {
            return Err(WireError::Invalid("checkpoint submission"));
        }
        signed.verify(self.keys.signing().verifying_key())
    }
}
