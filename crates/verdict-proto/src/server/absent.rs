//! Clients absent at set-up: no server's set-up inventory carried their signed set-up message,
//! so they are not in the session (the shuffle ran over the others, and they are excluded from
//! round 0 on). A server answers a late set-up message of its own absent client once with the
//! set-up transcript, from which the client learns that it is out; everything else such a
//! client sends is rejected as [`MessageError::AbsentAtSetup`].

use std::collections::BTreeSet;

use verdict_dcnet::ClientId;

#[cfg(doc)]
use crate::error::MessageError;
use crate::wire::Kind;

/// The absent clients and what is needed to tell our own ones.
#[derive(Default)]
pub(crate) struct Absent {
    /// Every client absent at set-up.
    clients: BTreeSet<ClientId>,
    /// Our absent clients not yet sent the transcript after set-up.
    untold: BTreeSet<ClientId>,
    /// The set-up transcript's payload, kept only while some client of ours is untold (it can
    /// be megabytes: every inventory).
    transcript: Option<Vec<u8>>,
}

impl Absent {
    /// The absent clients of a completed set-up; `own` are this server's clients.
    pub(crate) fn new(
        absent: &[ClientId],
        own: &BTreeSet<ClientId>,
        transcript: &dyn Fn() -> Vec<u8>,
    ) -> Self {
        let clients: BTreeSet<ClientId> = absent.iter().copied().collect();
        let untold: BTreeSet<ClientId> = clients.intersection(own).copied().collect();
        let transcript = (!untold.is_empty()).then(transcript);
        Self {
            clients,
            untold,
            transcript,
        }
    }

    /// Whether `client` was absent at set-up.
    pub(crate) fn contains(&self, client: ClientId) -> bool {
        self.clients.contains(&client)
    }

    /// A message of `kind` from `client`, absent at set-up (the caller rejects it): the
    /// set-up transcript's payload to answer it with, for the first set-up message of one of
    /// ours only (so a client repeating it cannot make us send megabytes again and again).
    pub(crate) fn answer(&mut self, client: ClientId, kind: Kind) -> Option<Vec<u8>> {
        if kind != Kind::ClientSetup || !self.untold.remove(&client) {
            return None;
        }
        if self.untold.is_empty() {
            self.transcript.take()
        } else {
            self.transcript.clone()
        }
    }
}
