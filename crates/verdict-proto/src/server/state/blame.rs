//! What a running blame holds (see [`crate::server`]'s `blame` module for the steps that
//! fill it): the traced accusations, every server's signed claims, the suspects, their
//! answers and the verdicts, and what arrived before the blame started.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet};

use verdict_dcnet::{ClientId, Party, ServerId, SessionId};
use verdict_group::Group;

use super::missing_of;
use crate::blame::{BlameBits, Rebuttal, open_relayed};
use crate::config::GroupConfig;
use crate::slot::Accusation;
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind};

/// One server's (first) signed claims.
pub(in crate::server) struct Claim {
    pub(in crate::server) bits: BlameBits,
    pub(in crate::server) envelope: Vec<u8>,
    pub(in crate::server) digest: [u8; 32],
}

/// One accusation being traced.
pub(in crate::server) struct Trace {
    pub(in crate::server) accusation: Accusation,
    /// Position of the accused slot among the round's open slots.
    pub(in crate::server) k: usize,
    pub(in crate::server) slot_len: usize,
    /// Its suspect once every claim is in (`None` inside: nobody deviates).
    pub(in crate::server) suspect: Option<Option<ClientId>>,
}

/// A blame of one round.
pub(crate) struct Blame<G: Group> {
    pub(in crate::server) round: u64,
    pub(in crate::server) traces: Vec<Trace>,
    pub(in crate::server) clients: Vec<ClientId>,
    pub(in crate::server) claims: Vec<Option<Claim>>,
    /// Every suspect, once known.
    pub(in crate::server) suspects: Option<BTreeSet<ClientId>>,
    pub(in crate::server) deadline: Option<Duration>,
    /// Each suspect's "no objection" to our claims.
    pub(in crate::server) answers: BTreeMap<ClientId, Vec<u8>>,
    /// "No objection" rebuttals that arrived before the suspects were known (one per client).
    pub(in crate::server) objections: BTreeMap<ClientId, Vec<u8>>,
    /// Verdicts that arrived before the suspects were known (tracked: one per server).
    pub(in crate::server) early_verdicts: Vec<Option<Envelope<G>>>,
    pub(in crate::server) decided: bool,
    pub(in crate::server) verdicts: Vec<Option<Vec<u8>>>,
}

impl<G: Group> Blame<G> {
    /// The blame step waiting on servers, and every server whose message of it is missing (in
    /// order); `None` if it waits for no server.
    pub(crate) fn awaited_servers(&self) -> Option<(Kind, Vec<ServerId>)> {
        let (kind, missing) = if self.suspects.is_none() {
            (Kind::BlameBits, missing_of(&self.claims))
        } else if self.decided {
            (Kind::Verdict, missing_of(&self.verdicts))
        } else {
            // Waiting for the suspects (until the deadline), not for a server.
            return None;
        };
        (!missing.is_empty()).then_some((kind, missing))
    }

    /// The rebuttal deadline, while it matters.
    pub(crate) fn pending_deadline(&self) -> Option<Duration> {
        if self.suspects.is_some() && !self.decided {
            self.deadline
        } else {
            None
        }
    }

    /// The first accused (round, slot), to name in a fault about the whole blame.
    pub(in crate::server) fn first_accused(&self) -> (u64, u32) {
        self.traces
            .first()
            .map_or((self.round, 0), |t| (t.accusation.round, t.accusation.slot))
    }

    /// The header digests of the claims we hold, in server order (what a "no objection" must
    /// list), once all are in.
    pub(in crate::server) fn digests(&self) -> Option<Vec<[u8; 32]>> {
        self.claims
            .iter()
            .map(|c| c.as_ref().map(|c| c.digest))
            .collect()
    }

    /// Whether `env` is a suspect's signed "no objection" to exactly our claims.
    pub(in crate::server) fn is_answer<S: ProtoSuite<G = G>>(
        &self,
        config: &GroupConfig<S>,
        session: &SessionId,
        env: &[u8],
    ) -> Option<ClientId> {
        let e = open_relayed(config, session, Kind::Rebuttal, env)?;
        let Party::Client(c) = e.header().sender else {
            return None;
        };
        let Ok(Rebuttal::NoObjection { round, digests }) = Rebuttal::from_bytes(&e.payload) else {
            return None;
        };
        let suspect = self.suspects.as_ref()?.contains(&c);
        (suspect && round == self.round && self.digests().as_ref() == Some(&digests)).then_some(c)
    }
}

/// Blame messages that arrived before this server started their blame.
pub(crate) struct EarlyBlame<G: Group> {
    pub(in crate::server) from_servers: BTreeMap<ServerId, Vec<Envelope<G>>>,
    pub(in crate::server) objections: BTreeMap<ClientId, Envelope<G>>,
}

impl<G: Group> Default for EarlyBlame<G> {
    fn default() -> Self {
        Self {
            from_servers: BTreeMap::new(),
            objections: BTreeMap::new(),
        }
    }
}

impl<G: Group> EarlyBlame<G> {
    /// Messages held (for the memory bound).
    pub(crate) fn len(&self) -> usize {
        self.from_servers.values().map(Vec::len).sum::<usize>() + self.objections.len()
    }
}
