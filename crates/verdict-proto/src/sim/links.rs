//! The simulator's links: what goes onto one (the adversaries' and the tamper hook's
//! rewrites, injected messages) and how long it takes (per-link latency).

use core::time::Duration;
use std::sync::Arc;

use verdict_dcnet::Party;

use super::{Pending, Simulator, TamperHook};
use crate::suite::ProtoSuite;

impl<S: ProtoSuite> Simulator<S> {
    /// Puts `bytes` on the link from `from` to `to` (tests: forged, replayed or garbage
    /// messages).
    pub fn inject(&mut self, from: Party, to: Party, bytes: Vec<u8>) {
        let at = self.now + self.latency_of(from, to);
        self.seq += 1;
        self.queue.push(Pending {
            at,
            seq: self.seq,
            from,
            to,
            bytes: bytes.into(),
        });
    }

    /// Sets the one-way latency of the link from `from` to `to` (a slow or distant peer; tests
    /// use it to make one server lag behind the others deterministically).
    pub fn set_link_latency(&mut self, from: Party, to: Party, latency: Duration) {
        self.link_latency.insert((from, to), latency);
    }

    pub(super) fn latency_of(&self, from: Party, to: Party) -> Duration {
        self.link_latency
            .get(&(from, to))
            .copied()
            .unwrap_or(self.network.latency)
    }

    /// What goes onto the link for one transmission: the adversaries' and the tamper hook's
    /// rewrite (`None`: dropped). Without either, the shared buffer goes as it is.
    pub(super) fn rewrite(&mut self, who: Party, to: Party, bytes: Arc<[u8]>) -> Option<Arc<[u8]>> {
        #[cfg(feature = "adversary")]
        let bytes: Arc<[u8]> = if self.adversaries.is_empty() {
            bytes
        } else {
            // Untouched bytes keep sharing the sender's buffer: a copy per recipient would
            // keep a server's inventory alive once per peer in the blame history.
            let rewritten = self.misbehave(who, to, bytes.to_vec())?;
            if *rewritten == *bytes {
                bytes
            } else {
                rewritten.into()
            }
        };
        match self.tamper.as_mut() {
            Some(h) => h(who, to, bytes.to_vec()).map(Into::into),
            None => Some(bytes),
        }
    }

    /// Installs a tamper hook (applied after the adversaries).
    pub fn set_tamper(&mut self, hook: TamperHook) {
        self.tamper = Some(hook);
    }
}
