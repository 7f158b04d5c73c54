//! Server faults: halting with evidence, the Alert that tells the other servers, and what a
//! server does with another's alert.
//!
//! A server names a culprit only for a fault it observed itself or whose evidence it checked.
//! Two kinds of evidence are transferable (anyone with the roster can check them): two signed
//! headers for one step ([`ServerFault::Equivocation`]) and a blame lie proof (a server's
//! signed pad-bit claim with the suspect's DH reveal disproving it,
//! [`ServerFault::WrongBlameBits`]). Every other fault concerns data every server holds (and
//! checks itself) or is private to the reporter (silence towards it); an alert about those
//! halts us too — the reporter has stopped — but is reported as [`Event::PeerHalted`], on the
//! reporter's word, never as our own accusation.

use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};

use super::*;
use crate::blame::check_lie_proof;

/// Longest set-up failure reason an alert carries (a hostile alert cannot make us allocate).
const MAX_REASON: usize = 1024;

/// Encodes a fault: stable code, then its fields.
pub(crate) fn encode_fault(w: &mut Writer, fault: &ServerFault) {
    w.u8(fault.code());
    match fault {
        ServerFault::InvalidCiphertext { round, slot }
        | ServerFault::WrongBlameBits { round, slot }
        | ServerFault::WrongAggregate { round, slot }
        | ServerFault::BadVerdict { round, slot } => {
            w.u64(*round).u32(*slot);
        }
        ServerFault::CommitMismatch { round }
        | ServerFault::BadOutput { round }
        | ServerFault::Unresponsive { round } => {
            w.u64(*round);
        }
        ServerFault::Equivocation { first, second } => {
            w.bytes(first).bytes(second);
        }
        ServerFault::BadSetup { reason } => {
            let r = reason.as_bytes();
            w.bytes(r.get(..MAX_REASON.min(r.len())).unwrap_or_default());
        }
        ServerFault::FalseRejection { round, client }
        | ServerFault::UncheckedSubmission { round, client } => {
            w.u64(*round).u32(client.0);
        }
        ServerFault::BadMessage { round, kind } => {
            w.u64(*round).bytes(kind.as_bytes());
        }
    }
}

/// Decodes a fault encoded by [`encode_fault`].
pub(crate) fn decode_fault(r: &mut Reader<'_>) -> Result<ServerFault, WireError> {
    let code = r.u8()?;
    Ok(match code {
        1 => ServerFault::InvalidCiphertext {
            round: r.u64()?,
            slot: r.u32()?,
        },
        2 => ServerFault::CommitMismatch { round: r.u64()? },
        3 => ServerFault::Equivocation {
            first: r.bytes()?.to_vec(),
            second: r.bytes()?.to_vec(),
        },
        4 => ServerFault::WrongBlameBits {
            round: r.u64()?,
            slot: r.u32()?,
        },
        5 => {
            let reason = r.bytes()?;
            if reason.len() > MAX_REASON {
                return Err(WireError::Invalid("set-up failure reason"));
            }
            ServerFault::BadSetup {
                reason: String::from_utf8_lossy(reason).into_owned(),
            }
        }
        6 => ServerFault::BadOutput { round: r.u64()? },
        7 => ServerFault::FalseRejection {
            round: r.u64()?,
            client: ClientId(r.u32()?),
        },
        8 => ServerFault::WrongAggregate {
            round: r.u64()?,
            slot: r.u32()?,
        },
        9 => ServerFault::UncheckedSubmission {
            round: r.u64()?,
            client: ClientId(r.u32()?),
        },
        10 => ServerFault::Unresponsive { round: r.u64()? },
        11 => ServerFault::BadVerdict {
            round: r.u64()?,
            slot: r.u32()?,
        },
        12 => {
            let round = r.u64()?;
            let name = r.bytes()?;
            let kind = Kind::ALL
                .iter()
                .find(|k| k.name().as_bytes() == name)
                .ok_or(WireError::Invalid("message kind"))?;
            ServerFault::BadMessage {
                round,
                kind: kind.name(),
            }
        }
        _ => return Err(WireError::Invalid("fault code")),
    })
}

/// Whether two encoded signed headers prove that their common sender equivocated: the same
/// step, different payload digests, both signatures valid under the sender's key.
pub(crate) fn proves_equivocation<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: &SessionId,
    first: &[u8],
    second: &[u8],
) -> Option<ServerId> {
    let a = SignedHeader::<S::G>::from_bytes(first).ok()?;
    let b = SignedHeader::<S::G>::from_bytes(second).ok()?;
    let Party::Server(j) = a.header.sender else {
        return None;
    };
    if !a.header.same_step(&b.header)
        || a.header.digest == b.header.digest
        || a.header.session != session.0
    {
        return None;
    }
    let key = config.key_of(a.header.sender)?;
    (a.verify(key).is_ok() && b.verify(key).is_ok()).then_some(j)
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Server `j` signed a message no correct server sends: halt, with the message as evidence.
    pub(crate) fn bad_message(&mut self, j: ServerId, env: &Envelope<S::G>) {
        let fault = ServerFault::BadMessage {
            round: env.header().round,
            kind: env.header().kind.name(),
        };
        self.halt(j, fault, vec![env.to_bytes()]);
    }

    /// Halts naming `server` (a fault we observed or verified), and alerts the other servers.
    pub(crate) fn halt(&mut self, server: ServerId, fault: ServerFault, evidence: Vec<Vec<u8>>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        self.alert(server, &fault, &evidence);
        self.state = State::Halted;
        self.events.push_back(Event::Halted {
            server,
            fault,
            evidence,
        });
    }

    /// Tells the other servers, with the evidence, so they halt too (instead of timing out on
    /// us) and can check what can be checked.
    fn alert(&mut self, culprit: ServerId, fault: &ServerFault, evidence: &[Vec<u8>]) {
        let mut w = Writer::new();
        w.u32(culprit.0);
        encode_fault(&mut w, fault);
        write_byte_list(&mut w, evidence);
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
    }

    pub(crate) fn handle_alert(&mut self, env: &Envelope<S::G>) {
        let Party::Server(by) = env.header().sender else {
            return;
        };
        let mut r = Reader::new(&env.payload);
        let parsed = (|| {
            let culprit = ServerId(r.u32()?);
            let fault = decode_fault(&mut r)?;
            let evidence = r.byte_list()?;
            r.finish()?;
            Ok::<_, WireError>((culprit, fault, evidence))
        })();
        let Ok((alleged, fault, evidence)) = parsed else {
            // A garbled alert still means its sender has stopped.
            let fault = ServerFault::BadMessage {
                round: env.header().round,
                kind: Kind::Alert.name(),
            };
            return self.peer_halted(by, by, fault, vec![env.to_bytes()]);
        };
        if alleged.0 as usize >= self.config.num_servers() {
            let fault = ServerFault::BadMessage {
                round: env.header().round,
                kind: Kind::Alert.name(),
            };
            return self.peer_halted(by, by, fault, vec![env.to_bytes()]);
        }
        let verified = match &fault {
            ServerFault::Equivocation { first, second } => {
                proves_equivocation(&self.config, &self.session, first, second) == Some(alleged)
            }
            ServerFault::WrongBlameBits { .. } => evidence
                .iter()
                .any(|e| self.lie_proof_names(e) == Some(alleged)),
            _ => false,
        };
        if verified {
            self.halt(alleged, fault, evidence);
        } else {
            self.peer_halted(by, alleged, fault, evidence);
        }
    }

    /// The server a lie proof (a suspect's signed rebuttal) proves wrong, if it is one.
    fn lie_proof_names(&self, rebuttal: &[u8]) -> Option<ServerId> {
        let State::Running(run) = &self.state else {
            return None;
        };
        let xor = run.nets.xor.as_ref()?.roster();
        check_lie_proof::<S>(&self.config, &self.session, xor, rebuttal).map(|(j, _, _)| j)
    }

    /// Another server stopped: we stop too, naming nobody ourselves.
    fn peer_halted(
        &mut self,
        by: ServerId,
        alleged: ServerId,
        fault: ServerFault,
        evidence: Vec<Vec<u8>>,
    ) {
        if matches!(self.state, State::Halted) {
            return;
        }
        self.state = State::Halted;
        self.events.push_back(Event::PeerHalted {
            by,
            alleged,
            fault,
            evidence,
        });
    }
}
