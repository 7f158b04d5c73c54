//! How a server stops: a [`Stop`] is what a handler returns when the session cannot go on —
//! a fault we name (with evidence, alerted to the other servers), another server's halt we
//! follow, or a failed set-up. Also the Alert payload and what a server does with one.
//!
//! A server names a culprit only for a fault it observed itself or whose evidence it checked.
//! Two kinds of evidence are transferable (anyone with the roster can check them): two signed
//! headers for one step ([`ServerFault::Equivocation`]) and a blame lie proof (a server's
//! signed pad-bit claim with the suspect's DH reveal disproving it,
//! [`ServerFault::WrongBlameBits`]). Every other fault concerns data every server holds (and
//! checks itself) or is private to the reporter (silence towards it); an alert about those
//! halts us too — the reporter has stopped — but is reported as [`Event::PeerHalted`], on the
//! reporter's word, never as our own accusation.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId, SessionId};

use super::common::Core;
use crate::blame::check_lie_proof;
use crate::config::GroupConfig;
use crate::error::SetupFailure;
use crate::error::{ServerFault, WireError};
use crate::event::Event;
use crate::suite::{ProtoSuite, XorOf};
use crate::wire::{Kind, Reader, Received, SharedBytes, SignedHeader, Writer};

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

/// Why a handler stops the session.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A server fault we observed or verified: we name `culprit`.
    Fault {
        culprit: ServerId,
        fault: ServerFault,
        evidence: Vec<SharedBytes>,
    },
    /// Another server halted and alerted us; its evidence is not ours to check.
    Peer {
        by: ServerId,
        alleged: ServerId,
        fault: ServerFault,
        evidence: Vec<SharedBytes>,
    },
    /// Set-up cannot finish.
    Setup {
        failure: SetupFailure,
        culprits: Vec<Party>,
    },
}

impl Stop {
    /// A fault of `culprit`.
    pub(crate) fn fault(culprit: ServerId, fault: ServerFault, evidence: Vec<SharedBytes>) -> Self {
        Self::Fault {
            culprit,
            fault,
            evidence,
        }
    }

    /// Server `j` signed a message no correct server sends: the message, as received, is the
    /// evidence.
    pub(crate) fn bad_message<G: verdict_group::Group>(j: ServerId, msg: &Received<G>) -> Self {
        Self::fault(
            j,
            ServerFault::BadMessage {
                round: msg.header().round,
                kind: msg.header().kind.name(),
            },
            vec![msg.raw().clone()],
        )
    }
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Core<S, R> {
    /// Reports `stop` (and, for a fault we name, alerts the other servers with the evidence, so
    /// they halt too instead of timing out on us).
    pub(crate) fn report(&mut self, stop: Stop) {
        match stop {
            Stop::Fault {
                culprit,
                fault,
                evidence,
            } => {
                let mut w = Writer::new();
                w.u32(culprit.0);
                encode_fault(&mut w, &fault);
                w.byte_list(&evidence);
                let alert = self.seal(Kind::Alert, self.round, w.finish());
                let bytes = alert.into_shared();
                self.send_to_servers(&bytes);
                self.events.push_back(Event::Halted {
                    server: culprit,
                    fault,
                    evidence,
                });
            }
            Stop::Peer {
                by,
                alleged,
                fault,
                evidence,
            } => self.events.push_back(Event::PeerHalted {
                by,
                alleged,
                fault,
                evidence,
            }),
            Stop::Setup { failure, culprits } => {
                self.events.push_back(Event::SetupFailed {
                    reason: failure,
                    culprits,
                });
            }
        }
    }

    /// What another server's alert means for us: always a stop (its sender has stopped), and
    /// our own finding only if we can check its evidence (`xor` is the session's XOR roster,
    /// for lie proofs).
    pub(crate) fn on_alert(
        &self,
        msg: &Received<S::G>,
        xor: Option<&verdict_dcnet::Roster<XorOf<S>>>,
    ) -> Stop {
        let Party::Server(by) = msg.header().sender else {
            // Only servers send alerts (the router checks); nothing to follow.
            return Stop::bad_message(self.id, msg);
        };
        let garbled = || Stop::Peer {
            by,
            alleged: by,
            fault: ServerFault::BadMessage {
                round: msg.header().round,
                kind: Kind::Alert.name(),
            },
            evidence: vec![msg.raw().clone()],
        };
        // The evidence items are kept as views of the alert we received.
        let payload = msg.shared_payload();
        let mut r = crate::wire::reader(&payload);
        let parsed = (|| {
            let culprit = ServerId(r.u32()?);
            let fault = decode_fault(&mut r)?;
            let evidence = r.byte_slices()?;
            r.finish()?;
            Ok::<_, WireError>((culprit, fault, evidence))
        })();
        let Ok((alleged, fault, evidence)) = parsed else {
            // A garbled alert still means its sender has stopped.
            return garbled();
        };
        let Some(evidence) = evidence
            .into_iter()
            .map(|e| payload.share(e))
            .collect::<Option<Vec<SharedBytes>>>()
        else {
            return garbled();
        };
        if alleged.index() >= self.config.num_servers() {
            return garbled();
        }
        let verified = match &fault {
            ServerFault::Equivocation { first, second } => {
                proves_equivocation(&self.config, &self.session, first, second) == Some(alleged)
            }
            ServerFault::WrongBlameBits { .. } => evidence.iter().any(|e| {
                xor.and_then(|x| check_lie_proof::<S>(&self.config, &self.session, x, e))
                    .is_some_and(|(j, _, _)| j == alleged)
            }),
            _ => false,
        };
        if verified {
            Stop::fault(alleged, fault, evidence)
        } else {
            Stop::Peer {
                by,
                alleged,
                fault,
                evidence,
            }
        }
    }
}
