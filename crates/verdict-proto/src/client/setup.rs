//! Set-up: verifying the set-up transcript and the cache clients of one process share.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, SessionId};

use crate::config::GroupConfig;
use crate::error::SetupFailure;
use crate::error::{MessageError, WireError};
use crate::event::Event;
use crate::schedule::Schedule;
use crate::setup::SetupLog;
use crate::setup::build_nets;
use crate::slot::accusation_len;
use crate::suite::{ProtoSuite, SessionNets};
use crate::wire::{Received, SharedBytes};

use super::{Client, Ready, State};

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    pub(super) fn on_setup_transcript(&mut self, env: &Received<S::G>) -> Result<(), MessageError> {
        let from = env.header().sender;
        if !matches!(
            self.state,
            State::Setup {
                secrets: Some(_),
                ..
            }
        ) {
            return Err(MessageError::Duplicate {
                from,
                kind: "set-up transcript",
            });
        }
        let (nets, absent) = match self.verify_setup(env)? {
            Ok(v) => (v.nets, v.absent),
            Err((culprits, reason)) => {
                self.events
                    .push_back(Event::SetupFailed { reason, culprits });
                self.state = State::Done;
                return Ok(());
            }
        };
        let slots = nets.ver.roster().pseudonyms().len();
        if absent.contains(&self.id) {
            // Our set-up message reached no inventory: the session went on without us.
            self.events.push_back(Event::SetupComplete {
                slots,
                own_slot: None,
                absent,
            });
            self.state = State::Done;
            return Ok(());
        }
        let own = self.own_slot(&nets);
        let State::Setup { secrets, .. } = &mut self.state else {
            return Ok(());
        };
        let Some(secrets) = secrets.take() else {
            return Ok(());
        };
        self.events.push_back(Event::SetupComplete {
            slots,
            own_slot: own,
            absent,
        });
        let schedule = Schedule::new(&self.config.policy, slots, accusation_len::<S::G>());
        self.state = State::Ready(Box::new(Ready::new(nets, secrets, own, schedule, 0)));
        self.submit_round();
        Ok(())
    }

    /// Verifies the set-up transcript `env` (or takes the verdict on byte-identical bytes from
    /// the shared cache). `Err` only for an undecodable transcript.
    pub(super) fn verify_setup(&self, env: &Received<S::G>) -> Result<Verified<S>, MessageError> {
        let from = env.header().sender;
        let digest = *blake3::hash(env.payload()).as_bytes();
        if let Some(v) = self.cache.as_ref().and_then(|c| c.get(&digest)) {
            return Ok(v);
        }
        let v = verify_transcript::<S>(&self.config, self.session, &env.shared_payload())
            .map_err(|source| MessageError::Malformed { from, source })?;
        if let Some(c) = &self.cache {
            c.insert(digest, v.clone());
        }
        Ok(v)
    }

    /// The slot the shuffle gave our pseudonym key, if it is among the pseudonyms.
    pub(super) fn own_slot(&self, nets: &SessionNets<S>) -> Option<u32> {
        nets.ver
            .roster()
            .pseudonyms()
            .iter()
            .position(|p| p == self.pseudonym.verifying_key())
            .map(|s| s as u32)
    }
}

impl<S: ProtoSuite> Ready<S> {
    /// The session state of a client about to submit to `round`.
    pub(super) fn new(
        nets: Arc<SessionNets<S>>,
        secrets: crate::suite::ClientSecrets<S>,
        slot: Option<u32>,
        schedule: Schedule,
        round: u64,
    ) -> Self {
        Self {
            nets,
            secrets,
            slot,
            schedule,
            round,
            sent: BTreeMap::new(),
            accusation: None,
            defence: None,
            in_flight: None,
            submission: None,
            asked: None,
        }
    }
}

/// A verified set-up transcript: the DC-net sessions and the clients absent at set-up.
pub(super) struct VerifiedSetup<S: ProtoSuite> {
    pub(super) nets: Arc<SessionNets<S>>,
    pub(super) absent: Vec<ClientId>,
}

impl<S: ProtoSuite> Clone for VerifiedSetup<S> {
    fn clone(&self) -> Self {
        Self {
            nets: Arc::clone(&self.nets),
            absent: self.absent.clone(),
        }
    }
}

/// The outcome of verifying a set-up transcript, or the culprits.
pub(super) type Verified<S> = Result<VerifiedSetup<S>, (Vec<Party>, SetupFailure)>;
/// Verifies a whole set-up transcript (every signature, submission, shuffle and decryption
/// proof) and builds the DC-net sessions. `Err` only for an undecodable transcript.
fn verify_transcript<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: SessionId,
    payload: &SharedBytes,
) -> Result<Verified<S>, WireError> {
    let mut r = crate::wire::reader(payload);
    let list = r.byte_slices()?;
    r.finish()?;
    let mut log =
        SetupLog::<S>::new(config, session).map_err(|_| WireError::Invalid("set-up parameters"))?;
    for bytes in list {
        // Each set-up message is kept as a view of the transcript's bytes.
        let bytes = payload
            .share(bytes)
            .ok_or(WireError::Invalid("set-up message"))?;
        let e = Received::<S::G>::parse(bytes)?;
        let key = config
            .key_of(e.header().sender)
            .ok_or(WireError::Invalid("set-up sender"))?;
        e.signed().verify(key)?;
        if e.header().session != session.0 {
            return Err(WireError::Invalid("set-up message of another session"));
        }
        if let Err(f) = log.add(config, e) {
            return Ok(Err((f.culprits, f.failure)));
        }
    }
    let outcome = log
        .outcome()
        .ok_or(WireError::Invalid("incomplete set-up transcript"))?;
    let absent = outcome.absent;
    Ok(build_nets::<S>(
        log.roster0(),
        log.xor0(),
        outcome.pseudonyms,
        &outcome.client_setups,
        &outcome.server_setups,
        config.policy.mode.is_hybrid(),
    )
    .map(|nets| VerifiedSetup {
        nets: Arc::new(nets),
        absent,
    })
    .map_err(|f| (f.culprits, f.failure)))
}

/// Verified set-up transcripts shared by the clients of one process (the simulator, the
/// benchmarks).
///
/// Verifying the set-up transcript (every shuffle proof) is a pure function of its bytes, so
/// clients that receive byte-identical transcripts can share one verification: the result is
/// exactly what each would have computed. Separate processes never share a cache. Keyed by the
/// transcript's blake3 hash.
pub struct SetupCache<S: ProtoSuite> {
    inner: Arc<Mutex<BTreeMap<[u8; 32], Verified<S>>>>,
}

impl<S: ProtoSuite> Clone for SetupCache<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: ProtoSuite> Default for SetupCache<S> {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(BTreeMap::new())),
        }
    }
}

impl<S: ProtoSuite> core::fmt::Debug for SetupCache<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SetupCache").finish_non_exhaustive()
    }
}

impl<S: ProtoSuite> SetupCache<S> {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn get(&self, digest: &[u8; 32]) -> Option<Verified<S>> {
        self.inner.lock().ok()?.get(digest).cloned()
    }

    fn insert(&self, digest: [u8; 32], v: Verified<S>) {
        if let Ok(mut m) = self.inner.lock() {
            m.insert(digest, v);
        }
    }
}
