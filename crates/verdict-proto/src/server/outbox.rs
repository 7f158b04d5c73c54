//! Sending: sealing envelopes with the signing key, unicast, broadcast to the other servers
//! (processing our own copy), and one signed copy shared by many clients; rejected messages.

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    pub(crate) fn reject(&mut self, e: MessageError) {
        self.events.push_back(Event::Rejected(e));
    }

    pub(crate) fn seal(&mut self, kind: Kind, round: u64, payload: Vec<u8>) -> Envelope<S::G> {
        Envelope::seal(
            self.keys.signing(),
            kind,
            Party::Server(self.id),
            self.session.0,
            round,
            payload,
            &mut self.rng,
        )
    }

    /// Signs and sends to every other server, then processes our own copy.
    pub(crate) fn broadcast(&mut self, kind: Kind, round: u64, payload: Vec<u8>) {
        let env = self.seal(kind, round, payload);
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..self.config.num_servers() as u32 {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
        self.dispatch(env);
    }

    pub(crate) fn send(&mut self, to: Party, kind: Kind, round: u64, payload: Vec<u8>) {
        let bytes = self.seal(kind, round, payload).to_bytes().into();
        self.transmits.push_back(Transmit { to, bytes });
    }

    /// Signs one message and sends it to each of `clients` (an envelope names no recipient,
    /// so one signature and one buffer serve them all).
    pub(crate) fn send_to_clients(
        &mut self,
        clients: &[ClientId],
        kind: Kind,
        round: u64,
        payload: Vec<u8>,
    ) {
        let bytes: Arc<[u8]> = self.seal(kind, round, payload).to_bytes().into();
        for c in clients {
            self.transmits.push_back(Transmit {
                to: Party::Client(*c),
                bytes: Arc::clone(&bytes),
            });
        }
    }
}
