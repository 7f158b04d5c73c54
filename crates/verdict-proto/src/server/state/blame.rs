//! What a running blame holds (see [`crate::server`]'s `blame` module for the steps that
//! fill it): the traced accusations, every server's signed claims, the suspects, their
//! answers and the verdicts, and what arrived before the blame started.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet};

use verdict_dcnet::{ClientId, Party, ServerId, SessionId};
use verdict_group::Group;

use super::super::stop::Stop;
use super::missing_of;
use crate::blame::{BlameBits, Rebuttal, open_relayed};
use crate::config::GroupConfig;
use crate::error::ServerFault;
use crate::slot::Accusation;
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, SharedBytes};

/// One server's (first) signed claims.
pub(in crate::server) struct Claim {
    pub(in crate::server) bits: BlameBits,
    pub(in crate::server) envelope: SharedBytes,
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
    pub(in crate::server) answers: BTreeMap<ClientId, SharedBytes>,
    /// "No objection" rebuttals that arrived before the suspects were known (one per client).
    pub(in crate::server) objections: BTreeMap<ClientId, Received<G>>,
    /// Verdicts that arrived before the suspects were known (tracked: one per server).
    pub(in crate::server) early_verdicts: Vec<Option<Received<G>>>,
    pub(in crate::server) decided: bool,
    pub(in crate::server) verdicts: Vec<Option<SharedBytes>>,
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

    /// Server `j` signed `msg`, a message about this blame no correct server signs: the fault
    /// `fault(round, slot)` names the first accused slot, and the message is the evidence.
    pub(in crate::server) fn signed_wrong(
        &self,
        j: ServerId,
        fault: fn(u64, u32) -> ServerFault,
        msg: &Received<G>,
    ) -> Stop {
        let (round, slot) = self.first_accused();
        Stop::fault(j, fault(round, slot), vec![msg.raw().clone()])
    }

    /// The header digests of the claims we hold, in server order (what a "no objection" must
    /// list), once all are in.
    pub(in crate::server) fn digests(&self) -> Option<Vec<[u8; 32]>> {
        self.claims
            .iter()
            .map(|c| c.as_ref().map(|c| c.digest))
            .collect()
    }

    /// Whether `rebuttal`, relayed in a verdict, is a suspect's signed "no objection" to
    /// exactly our claims.
    pub(in crate::server) fn is_relayed_answer<S: ProtoSuite<G = G>>(
        &self,
        config: &GroupConfig<S>,
        session: &SessionId,
        rebuttal: &SharedBytes,
    ) -> Option<ClientId> {
        let msg = open_relayed(config, session, Kind::Rebuttal, rebuttal.clone())?;
        self.is_answer(&msg)
    }

    /// Whether `rebuttal` (verified: a suspect's own, or a relayed one opened) is a suspect's
    /// "no objection" to exactly our claims.
    pub(in crate::server) fn is_answer(&self, rebuttal: &Received<G>) -> Option<ClientId> {
        let Party::Client(c) = rebuttal.header().sender else {
            return None;
        };
        let Ok(Rebuttal::NoObjection { round, digests }) = Rebuttal::from_bytes(rebuttal.payload())
        else {
            return None;
        };
        let suspect = self.suspects.as_ref()?.contains(&c);
        (suspect && round == self.round && self.digests().as_ref() == Some(&digests)).then_some(c)
    }
}

/// Peers' blame messages that arrived before this server started their blame. (A suspect's
/// rebuttal never does: it answers claims that include ours, see `on_rebuttal`.)
pub(crate) struct EarlyBlame<G: Group> {
    pub(in crate::server) from_servers: BTreeMap<ServerId, Vec<Received<G>>>,
}

impl<G: Group> Default for EarlyBlame<G> {
    fn default() -> Self {
        Self {
            from_servers: BTreeMap::new(),
        }
    }
}

impl<G: Group> EarlyBlame<G> {
    /// Messages held (for the memory bound).
    pub(crate) fn len(&self) -> usize {
        self.from_servers.values().map(Vec::len).sum()
    }
}
