//! Messages in: a peer's bytes opened (decoded, sender, session and signature checked) and
//! routed, one at a time ([`Server::handle_message`]) or a batch at once
//! ([`Server::handle_messages`]).
//!
//! Opening a message depends on nothing but the group configuration and the session: the
//! payload's digest, the signature's point and the signature itself are the same work whatever
//! the server's state. A batch is therefore opened all at once (in parallel with the
//! `parallel` feature) and then routed one message after another, exactly as if each had been
//! handed in alone: the same rejections, transitions, transmissions and events, in the same
//! order. Only a client's submission is left with its signature unchecked when opened; whether
//! it may wait for the window's batch check is a question about the state at the moment it is
//! routed ([`Server::defers_signature`]).

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, SessionId};
use verdict_group::par;

use super::Server;
use super::state::{self, Signature, State};
use crate::config::GroupConfig;
use crate::error::MessageError;
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, Role, SharedBytes};

/// A message opened apart from the server's state.
enum Opened<S: ProtoSuite> {
    /// Its signature checked.
    Checked(Received<S::G>),
    /// A client's submission, its signature not checked yet: it may wait for the window's
    /// batch check, or is checked when routed.
    Submission(Received<S::G>),
}

/// Opens `bytes` from `from`: decodes them, checks the sender and the session, and checks the
/// signature unless the message is a client's submission. Depends on nothing that changes
/// while the server runs.
fn open<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    from: Party,
    bytes: SharedBytes,
) -> Result<Opened<S>, MessageError> {
    let msg = config.open_unsigned(session, from, bytes)?;
    let h = msg.header();
    if matches!(h.sender, Party::Client(_)) && h.kind == Kind::Submission {
        return Ok(Opened::Submission(msg));
    }
    config.check_signature(&msg)?;
    Ok(Opened::Checked(msg))
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Handles bytes received from `from`. They are kept as they are (shared, not copied, when
    /// given as an `Arc<[u8]>` or [`SharedBytes`]): whatever of them becomes evidence is these
    /// bytes, and a message kept for a later step is not verified or decoded again.
    pub fn handle_message(&mut self, from: Party, bytes: impl Into<SharedBytes>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        let opened = open(&self.core.config, &self.core.session, from, bytes.into());
        self.route(from, opened);
    }

    /// Handles several messages that arrived together, in order: the same as handing each to
    /// [`Server::handle_message`] in turn (the same state, transmissions and events), but
    /// every message is decoded and its signature checked first, all at once, in parallel
    /// with the `parallel` feature. Per message that is a signature verification (tens of
    /// microseconds) and the payload's hash: a driver that drains whatever queued up while the
    /// server was busy spreads that work over its threads instead of doing it one message at
    /// a time. A batch's messages are all held until it is routed: the caller bounds it.
    pub fn handle_messages<B>(&mut self, messages: impl IntoIterator<Item = (Party, B)>)
    where
        B: Into<SharedBytes>,
    {
        if matches!(self.state, State::Halted) {
            return;
        }
        let messages: Vec<(Party, SharedBytes)> = messages
            .into_iter()
            .map(|(from, bytes)| (from, bytes.into()))
            .collect();
        let (config, session) = (&self.core.config, &self.core.session);
        let opened = par::map(&messages, |(from, bytes)| {
            open(config, session, *from, bytes.clone())
        });
        for ((from, _), opened) in messages.iter().zip(opened) {
            if matches!(self.state, State::Halted) {
                return;
            }
            self.route(*from, opened);
        }
    }

    /// Routes an opened message (see [`Server::handle_message`]): its signature checked now
    /// if it was left unchecked and may not wait, its kind checked against its sender's role,
    /// then dispatched to the current stage, and our own broadcasts this caused handled.
    fn route(&mut self, from: Party, opened: Result<Opened<S>, MessageError>) {
        let (msg, signature) = match opened {
            Err(e) => return self.core.reject(e),
            Ok(Opened::Checked(msg)) => (msg, Signature::Checked),
            Ok(Opened::Submission(msg)) if self.defers_signature(&msg) => {
                (msg, Signature::Deferred)
            }
            Ok(Opened::Submission(msg)) => match self.core.config.check_signature(&msg) {
                Ok(()) => (msg, Signature::Checked),
                Err(e) => return self.core.reject(e),
            },
        };
        let h = msg.header();
        if !h.kind.allowed(from, Role::Server) {
            return self.core.reject(MessageError::Unexpected {
                from,
                kind: h.kind.name(),
                round: h.round,
            });
        }
        self.dispatch(msg, signature);
        self.drain_loopback();
    }

    /// Whether `msg`'s signature may wait: a client's submission to the window we are
    /// collecting, checked in one batch with the others' before the window may close (one
    /// multi-scalar multiplication instead of one verification per client).
    fn defers_signature(&self, msg: &Received<S::G>) -> bool {
        let h = msg.header();
        matches!(h.sender, Party::Client(_))
            && h.kind == Kind::Submission
            && matches!(&self.state, State::Running(run)
                if run.round.number == h.round && run.round.step == state::RoundStep::Collecting)
    }
}
