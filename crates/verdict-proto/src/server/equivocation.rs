//! Equivocation: every signed step message of every server is tracked by its header (kind,
//! sender, round), echoed to the other servers once the step is complete, and a second,
//! different header for the same step halts naming its signer with both signed headers as
//! evidence (a signed header commits to the payload's hash: the two are transferable proof).
//!
//! Shuffle steps, which are sequential, are echoed one by one as they arrive instead.
//!
//! Memory is bounded: headers are kept only for the rounds a step can still concern
//! (`[current − HISTORY, current + 1]`: blame looks back [`HISTORY`] rounds, and nobody can be
//! more than one round ahead, since certifying a round needs our signature), pruned as rounds
//! advance; per round there is one header per (kind, server). A server that signs a step of a
//! round that cannot exist yet, or an echo that is not one step's headers, is named
//! ([`ServerFault::BadMessage`]).

use std::collections::BTreeSet;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId};

use super::common::{Core, Tracked};
use super::stop::Stop;
use crate::error::ServerFault;
use crate::suite::ProtoSuite;
use crate::wire::{Header, Kind, Received, SignedHeader, payloads};

/// Rounds of history a step message may still refer to (blame traces the round before the
/// one carrying the accusation, and starts one round later still).
pub(crate) const HISTORY: u64 = 3;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Core<S, R> {
    /// Whether a step of `round` can concern us now: `None` if it is too old to matter,
    /// `Some(false)` if it is a round that cannot have started.
    fn in_window(&self, round: u64) -> Option<bool> {
        let current = self.round;
        if round > current + 1 {
            return Some(false);
        }
        (round + HISTORY >= current).then_some(true)
    }

    /// Records a server's signed header; a second, different header for the same step is
    /// equivocation (the session stops, naming its signer).
    pub(crate) fn track(&mut self, msg: &Received<S::G>) -> Result<(), Stop> {
        let signed = msg.signed();
        let h = &signed.header;
        let Party::Server(s) = h.sender else {
            return Ok(());
        };
        if !h.kind.is_step() {
            return Ok(());
        }
        match self.in_window(h.round) {
            // Too old to matter: the round logic refuses it.
            None => return Ok(()),
            Some(false) => return Err(Stop::bad_message(s, msg)),
            Some(true) => {}
        }
        let k = (h.kind, h.sender, h.round);
        match self.headers.get(&k) {
            Some(prev) if prev.signed.header.digest != h.digest => Err(Stop::fault(
                s,
                ServerFault::Equivocation {
                    first: prev.bytes.clone(),
                    second: msg.signed_header_bytes().to_vec(),
                },
                Vec::new(),
            )),
            Some(_) => {
                // Known from another server's echo: the step may be complete only now.
                self.maybe_echo(h.kind, h.round);
                Ok(())
            }
            None => {
                let tracked = Tracked {
                    signed: signed.clone(),
                    bytes: msg.signed_header_bytes().to_vec(),
                };
                self.headers.insert(k, tracked);
                if h.kind == Kind::ShuffleStep {
                    self.echo_at_once(h.sender, h.round, msg.signed_header_bytes());
                } else {
                    self.maybe_echo(h.kind, h.round);
                }
                Ok(())
            }
        }
    }

    /// Forgets the headers of rounds no step can concern any more (after a round advanced).
    pub(crate) fn prune_headers(&mut self) {
        let current = self.round;
        let keep = |round: u64| round + HISTORY >= current;
        self.headers.retain(|(_, _, round), _| keep(*round));
        self.echoed.retain(|(_, round)| keep(*round));
    }

    /// Echoes one shuffle step's signed header as soon as it arrives. The shuffle is
    /// sequential: a server that withholds its step from the next shuffler alone stalls
    /// everybody before any server holds a complete step to echo, and the next shuffler must
    /// learn that the step exists to name its author rather than be named by the others (see
    /// `timer.rs`). One header per step and server: M − 1 small messages per set-up.
    fn echo_at_once(&mut self, sender: Party, round: u64, signed_header: &[u8]) {
        if self.config.num_servers() < 3 || sender == Party::Server(self.id) {
            return;
        }
        let env = self.seal(
            Kind::Echo,
            round,
            payloads::ByteList::encode(&[signed_header]),
        );
        let bytes = env.into_shared();
        self.send_to_servers(&bytes);
    }

    /// Once every server's message of a step is in, echo their signed headers to all servers:
    /// a server that sent different messages to different servers is caught by whoever sees
    /// both versions.
    pub(crate) fn maybe_echo(&mut self, kind: Kind, round: u64) {
        let m = self.config.num_servers() as u32;
        if m < 3 || kind == Kind::ShuffleStep || self.echoed.contains(&(kind, round)) {
            // (Shuffle steps were echoed one by one on arrival.)
            // With two servers, each sees the other's only message: nothing to compare.
            return;
        }
        let heads: Vec<Vec<u8>> = (0..m)
            .filter(|j| *j != self.id.0)
            .filter_map(|j| self.headers.get(&(kind, Party::Server(ServerId(j)), round)))
            .map(|t| t.bytes.clone())
            .collect();
        if heads.len() + 1 < m as usize {
            return;
        }
        self.echoed.insert((kind, round));
        let env = self.seal(Kind::Echo, round, payloads::ByteList::encode(&heads));
        let bytes = env.into_shared();
        self.send_to_servers(&bytes);
    }

    pub(crate) fn handle_echo(&mut self, msg: &Received<S::G>) -> Result<(), Stop> {
        let Party::Server(echoer) = msg.header().sender else {
            return Ok(());
        };
        let round = msg.header().round;
        let bad = || Stop::bad_message(echoer, msg);
        let Ok(payloads::ByteList(list)) = payloads::ByteList::decode(msg.payload()) else {
            return Err(bad());
        };
        match self.in_window(round) {
            // About a step long gone: nothing it says can matter now.
            None => return Ok(()),
            Some(false) => return Err(bad()),
            Some(true) => {}
        }
        // An echo is one step's headers from the other servers: at most M − 1, one kind, this
        // round, distinct senders other than the echoer. Anything else no correct server sends.
        let mut heads = Vec::with_capacity(list.len());
        let mut seen = BTreeSet::new();
        let mut kind = None;
        for bytes in &list {
            let Ok(h) = Header::from_prefix(bytes) else {
                return Err(bad());
            };
            let well_formed = h.kind.is_step()
                && h.round == round
                && h.session == self.session.0
                && *kind.get_or_insert(h.kind) == h.kind
                && matches!(h.sender, Party::Server(s) if s != echoer && s.index() < self.config.num_servers())
                && seen.insert(h.sender);
            if !well_formed || heads.len() + 1 >= self.config.num_servers() {
                return Err(bad());
            }
            heads.push((h, *bytes));
        }
        for (h, bytes) in heads {
            // The usual case: the statement we already hold (and verified). Only a different
            // header can be equivocation, so only then is the signature worth checking.
            if self
                .headers
                .get(&(h.kind, h.sender, h.round))
                .is_some_and(|prev| prev.signed.header == h)
            {
                continue;
            }
            let Ok(signed) = SignedHeader::<S::G>::from_bytes(bytes) else {
                return Err(bad());
            };
            let h = &signed.header;
            let Some(key) = self.config.key_of(h.sender) else {
                continue;
            };
            if signed.verify(key).is_err() {
                // A forged header proves nothing about its claimed sender.
                continue;
            }
            let k = (h.kind, h.sender, h.round);
            if let Some(prev) = self.headers.get(&k)
                && prev.signed.header.digest != h.digest
                && let Party::Server(s) = h.sender
            {
                return Err(Stop::fault(
                    s,
                    ServerFault::Equivocation {
                        first: prev.bytes.clone(),
                        second: bytes.to_vec(),
                    },
                    Vec::new(),
                ));
            }
            self.headers.entry(k).or_insert_with(|| Tracked {
                signed,
                bytes: bytes.to_vec(),
            });
        }
        Ok(())
    }
}
