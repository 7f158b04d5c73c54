//! Server faults: halting with evidence, the Alert that tells the other servers, and adopting
//! another server's alert.

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, ServerId};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Server `j` signed a message that is malformed where a valid one is needed: halt, with
    /// the message as evidence.
    pub(crate) fn bad_message(&mut self, j: ServerId, round: u64, env: &Envelope<S::G>) {
        self.halt(j, ServerFault::BadOutput { round }, vec![env.to_bytes()]);
    }

    pub(crate) fn halt(&mut self, server: ServerId, fault: ServerFault, evidence: Vec<Vec<u8>>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        // Tell the other servers, with the evidence, so they halt too and name the same culprit
        // (instead of timing out on us).
        let mut w = Writer::new();
        w.u32(server.0).bytes(format!("{fault:?}").as_bytes());
        write_byte_list(&mut w, &evidence);
        let env = self.seal(Kind::Alert, self.round(), w.finish());
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..self.config.num_servers() as u32 {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
        self.state = State::Halted;
        self.events.push_back(Event::Halted {
            server,
            fault,
            evidence,
        });
    }

    pub(crate) fn handle_alert(&mut self, env: &Envelope<S::G>) {
        let Party::Server(by) = env.header().sender else {
            return;
        };
        let mut r = Reader::new(&env.payload);
        let parsed = (|| {
            let culprit = ServerId(r.u32()?);
            let reason = String::from_utf8_lossy(r.bytes()?).into_owned();
            let evidence = r.byte_list()?;
            r.finish()?;
            Ok::<_, WireError>((culprit, reason, evidence))
        })();
        let Ok((culprit, reason, evidence)) = parsed else {
            return self.reject(MessageError::Malformed {
                from: Party::Server(by),
                source: WireError::Invalid("alert"),
            });
        };
        if culprit.0 as usize >= self.config.num_servers() {
            return;
        }
        self.halt(culprit, ServerFault::Alerted { by, reason }, evidence);
    }
}
