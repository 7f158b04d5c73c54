//! Equivocation: every server step message's signed header is tracked, echoed to the other
//! servers, and a second, different header for the same step halts naming its signer.

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Records a server's signed header; a second, different header for the same step is
    /// equivocation. Returns `false` if the message must be dropped.
    pub(crate) fn track(&mut self, signed: &SignedHeader<S::G>) -> bool {
        let h = &signed.header;
        if !matches!(
            h.kind,
            Kind::SetupInventory
                | Kind::ShuffleStep
                | Kind::Decryption
                | Kind::Dispute
                | Kind::Inventory
                | Kind::Commit
                | Kind::ServerCiphertexts
                | Kind::OutputSignature
        ) {
            return true;
        }
        let k = (h.kind, h.sender, h.round);
        match self.headers.get(&k) {
            Some(prev) if prev.header.digest != h.digest => {
                let (first, second) = (evidence_of(prev), evidence_of(signed));
                if let Party::Server(s) = h.sender {
                    self.halt(s, ServerFault::Equivocation { first, second }, Vec::new());
                }
                false
            }
            Some(_) => true,
            None => {
                self.headers.insert(k, signed.clone());
                self.maybe_echo(h.kind, h.round);
                true
            }
        }
    }

    /// Once every server's message of a step is in, echo their signed headers to all servers:
    /// a server that sent different messages to different servers is caught by whoever sees
    /// both versions.
    pub(crate) fn maybe_echo(&mut self, kind: Kind, round: u64) {
        let m = self.config.num_servers() as u32;
        if m < 3 || self.echoed.contains(&(kind, round)) {
            // With two servers, each sees the other's only message: nothing to compare.
            return;
        }
        let heads: Vec<Vec<u8>> = (0..m)
            .filter(|j| *j != self.id.0)
            .filter_map(|j| self.headers.get(&(kind, Party::Server(ServerId(j)), round)))
            .map(SignedHeader::to_bytes)
            .collect();
        if heads.len() + 1 < m as usize {
            return;
        }
        self.echoed.insert((kind, round));
        let mut w = Writer::new();
        write_byte_list(&mut w, &heads);
        let env = self.seal(Kind::Echo, round, w.finish());
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..m {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
    }

    pub(crate) fn handle_echo(&mut self, env: &Envelope<S::G>) {
        let from = env.header().sender;
        let Ok(list) = Reader::new(&env.payload).byte_slices() else {
            return self.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("echo"),
            });
        };
        for bytes in list {
            let Ok(h) = Header::from_prefix(bytes) else {
                continue;
            };
            if h.session != self.session.0 || !matches!(h.sender, Party::Server(_)) {
                continue;
            }
            // The usual case: the statement we already hold (and verified). Only a different
            // header can be equivocation, so only then is the signature worth checking.
            if self
                .headers
                .get(&(h.kind, h.sender, h.round))
                .is_some_and(|prev| prev.header == h)
            {
                continue;
            }
            let Ok(signed) = SignedHeader::<S::G>::from_bytes(bytes) else {
                continue;
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
                && prev.header.digest != h.digest
                && let Party::Server(s) = h.sender
            {
                let (first, second) = (evidence_of(prev), evidence_of(&signed));
                return self.halt(s, ServerFault::Equivocation { first, second }, Vec::new());
            }
            self.headers.entry(k).or_insert(signed);
        }
    }
}

pub(crate) fn evidence_of<G: verdict_group::Group>(h: &SignedHeader<G>) -> Vec<u8> {
    h.to_bytes()
}
