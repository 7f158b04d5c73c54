//! Set-up messages that arrive after set-up, from two kinds of client:
//!
//! - a client **absent at set-up**: no server's set-up inventory carried its signed set-up
//!   message, so it is not in the session (the shuffle ran over the others, and it is excluded
//!   from round 0 on). The transcript tells it so; everything else it sends is rejected as
//!   [`MessageError::AbsentAtSetup`];
//! - a client **in the session that never got the transcript**: its link or its process died
//!   while set-up completed, so the transcript its upstream sent went nowhere, and without it
//!   the client cannot take part at all. Its driver sends the set-up message again after every
//!   reconnect during set-up ([`crate::Client::reconnected`]); a restarted client sends it
//!   anew (re-signed, same content).
//!
//! Both get the same answer: the transcript as this server sent it at the end of set-up (the
//! same signed bytes, kept for the session — one copy, shared with the transmits that first
//! carried it). Only a client whose roster upstream we are is answered (set-up goes through
//! that server), and at most once per round: a client repeating its set-up message cannot make
//! a server send megabytes again and again (the same bound as catch-up's).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use verdict_dcnet::ClientId;

#[cfg(doc)]
use crate::error::MessageError;

/// The clients absent at set-up and the transcript to answer late set-up messages with.
#[derive(Default)]
pub(crate) struct LateSetup {
    /// Every client absent at set-up.
    absent: BTreeSet<ClientId>,
    /// The sealed `SetupTranscript` we sent our clients (`None` before set-up completes).
    transcript: Option<Arc<[u8]>>,
    /// Per client, the round in which we last sent it the transcript again.
    answered: BTreeMap<ClientId, u64>,
}

impl LateSetup {
    /// After set-up: `absent` clients, and the sealed transcript sent to our clients.
    pub(crate) fn new(absent: &[ClientId], transcript: Arc<[u8]>) -> Self {
        Self {
            absent: absent.iter().copied().collect(),
            transcript: Some(transcript),
            answered: BTreeMap::new(),
        }
    }

    /// Whether `client` was absent at set-up.
    pub(crate) fn is_absent(&self, client: ClientId) -> bool {
        self.absent.contains(&client)
    }

    /// A set-up message from `client` (one of ours by the roster) during `round`: the
    /// transcript to answer it with, unless it was answered in this round already.
    pub(crate) fn answer(&mut self, client: ClientId, round: u64) -> Option<Arc<[u8]>> {
        let transcript = self.transcript.as_ref()?;
        if self.answered.get(&client) == Some(&round) {
            return None;
        }
        self.answered.insert(client, round);
        Some(Arc::clone(transcript))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_once_per_round_and_nothing_before_setup() {
        let c = ClientId(3);
        assert_eq!(LateSetup::default().answer(c, 0), None);
        let sealed: Arc<[u8]> = Arc::from(&b"transcript"[..]);
        let mut late = LateSetup::new(&[ClientId(1)], Arc::clone(&sealed));
        assert!(late.is_absent(ClientId(1)) && !late.is_absent(c));
        assert_eq!(late.answer(c, 5).as_deref(), Some(&sealed[..]));
        assert_eq!(late.answer(c, 5), None, "twice in one round");
        assert!(late.answer(ClientId(1), 5).is_some(), "per client");
        assert!(late.answer(c, 6).is_some(), "again in the next round");
    }
}
