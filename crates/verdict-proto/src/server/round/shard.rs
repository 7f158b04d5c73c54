//! A worker's share of a server's round: verifying and summing one shard of the server's own
//! clients' submissions, and merging the shards' sums.
//!
//! This is the unit of work a server would hand to worker machines inside its own trust domain
//! (docs/PERFORMANCE.md, "One server at 10⁴–10⁵ clients"): each worker checks its shard's
//! signatures and proofs and sums its ciphertexts per slot, and the server merges `W` partial
//! sums instead of touching `n` submissions. The protocol does not delegate yet: a server still
//! does this work itself when its window closes ([`Running::check_window`]). The simulator runs
//! these functions on the real traffic of a round to measure what a worker and the merge would
//! cost (`sim::workers`), and the tests check that the merged sums are the ones the server
//! puts in its inventory.
//!
//! [`Running::check_window`]: super::super::state::Running

use std::collections::{BTreeMap, BTreeSet};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, DcError, Party, SessionId, xor::xor_into};
use verdict_group::par;

use super::super::Server;
use super::super::state::{Round, RoundStep, State, Submitted};
use super::{decode_submission, deferrable, invalid_clients, slot_aggregates, xor_sums};
use crate::config::GroupConfig;
use crate::error::{MessageError, WireError};
use crate::policy::Verification;
use crate::slot::SlotKind;
use crate::suite::{ProtoSuite, SessionNets, XorOf};
use crate::wire::{Kind, Received, SharedBytes, verify_batch};

/// Why a worker refused a submission of its shard.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardRefusal {
    /// Not a signed protocol message.
    Unparsable(WireError),
    /// Not a message of a rostered client of this session (wrong session, unknown sender).
    Unopened(MessageError),
    /// A message of another kind, or for another round.
    NotThisRound,
    /// The envelope's signature does not verify.
    BadSignature,
    /// A second, different signed submission of a client already in the shard.
    Duplicate,
    /// The client was excluded from the session.
    Excluded,
    /// The slot ciphertexts do not decode.
    Malformed(WireError),
    /// The client's proof in this slot does not verify (eager verification).
    InvalidProof {
        /// The first slot whose proof failed.
        slot: u32,
    },
}

/// What a worker reports for its shard of one round: which of its submissions it accepted,
/// which it refused and why, and per open slot the sum of the accepted ciphertexts.
#[non_exhaustive]
pub struct ShardSums<S: ProtoSuite> {
    /// The round.
    pub round: u64,
    /// The clients whose submission was accepted, in id order.
    pub accepted: Vec<ClientId>,
    /// The submissions refused: their position in the shard and why.
    pub refused: Vec<(usize, ShardRefusal)>,
    /// Per open slot, the sum of the accepted clients' ciphertexts (verifiable slots of an
    /// aggregating suite; `None` elsewhere).
    pub aggregates: Vec<Option<S::Aggregate>>,
    /// Per open slot, the `⊕` of the accepted clients' ciphertexts (XOR slots; `None`
    /// elsewhere).
    pub xor_sums: Vec<Option<Vec<u8>>>,
}

// By hand: derived impls would ask `S` itself (a marker type) to be `Clone`, `PartialEq` and
// `Debug`; only its aggregate is stored.
impl<S: ProtoSuite> Clone for ShardSums<S> {
    fn clone(&self) -> Self {
        Self {
            round: self.round,
            accepted: self.accepted.clone(),
            refused: self.refused.clone(),
            aggregates: self.aggregates.clone(),
            xor_sums: self.xor_sums.clone(),
        }
    }
}

impl<S: ProtoSuite> PartialEq for ShardSums<S> {
    fn eq(&self, other: &Self) -> bool {
        self.round == other.round
            && self.accepted == other.accepted
            && self.refused == other.refused
            && self.aggregates == other.aggregates
            && self.xor_sums == other.xor_sums
    }
}

impl<S: ProtoSuite> core::fmt::Debug for ShardSums<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShardSums")
            .field("round", &self.round)
            .field("accepted", &self.accepted)
            .field("refused", &self.refused)
            .field("aggregates", &self.aggregates)
            .field(
                "xor_sums",
                &self
                    .xor_sums
                    .iter()
                    .map(|x| x.as_ref().map(Vec::len))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why shard work could not be done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// The server is not collecting a round's submissions (set-up, a closed window, halted).
    #[error("the server is not collecting submissions")]
    NotCollecting,
    /// A part is for another round or another number of open slots.
    #[error("a shard's sums are not for the round being collected")]
    WrongRound,
    /// A client is accepted in two parts (shards must be disjoint).
    #[error("{client} is accepted in two shards")]
    Overlap {
        /// The client.
        client: ClientId,
    },
    /// Summing failed (a ciphertext or part of the wrong length).
    #[error("summing a shard: {0}")]
    Sum(#[from] DcError),
}

/// What a worker needs of its server to do its job in the round being collected: the group
/// configuration, the session's DC-nets, the round's open and prepared slots, and who is
/// excluded. Borrowed from the server ([`Server::shard_worker`]); shareable across threads.
pub struct ShardWorker<'a, S: ProtoSuite> {
    config: &'a GroupConfig<S>,
    session: &'a SessionId,
    excluded: &'a BTreeSet<ClientId>,
    nets: &'a SessionNets<S>,
    round: &'a Round<S>,
}

impl<S: ProtoSuite> core::fmt::Debug for ShardWorker<'_, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShardWorker")
            .field("round", &self.round.number)
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// The context of a worker's job in the round this server is collecting
    /// ([`ShardError::NotCollecting`] outside a submission window).
    pub fn shard_worker(&self) -> Result<ShardWorker<'_, S>, ShardError> {
        match &self.state {
            State::Running(run) if run.round.step == RoundStep::Collecting => Ok(ShardWorker {
                config: &self.core.config,
                session: &self.core.session,
                excluded: &self.core.excluded,
                nets: &run.nets,
                round: &run.round,
            }),
            _ => Err(ShardError::NotCollecting),
        }
    }
}

impl<S: ProtoSuite> ShardWorker<'_, S> {
    /// Does a worker's job for `submissions` (signed client submissions, as received): opens
    /// each, checks the signatures in one batch, decodes, verifies the proofs (eager
    /// verification, as the server does when its window closes) and sums the accepted
    /// ciphertexts per slot. `rng` draws the batching weights (it must be unpredictable to
    /// clients).
    pub fn verify<Rw: RngCore + CryptoRng>(
        &self,
        submissions: &[SharedBytes],
        rng: &mut Rw,
    ) -> Result<ShardSums<S>, ShardError> {
        let (config, round, nets) = (self.config, self.round, self.nets);
        let mut refused = Vec::new();
        // Open every submission: a rostered client's message of this session.
        let mut opened: Vec<(usize, ClientId, Received<S::G>)> = Vec::new();
        for (pos, bytes) in submissions.iter().enumerate() {
            let msg = match Received::<S::G>::parse(bytes.clone()) {
                Ok(m) => m,
                Err(source) => {
                    refused.push((pos, ShardRefusal::Unparsable(source)));
                    continue;
                }
            };
            let sender = msg.header().sender;
            let opened_msg = match sender {
                Party::Client(_) => config.open_unsigned(self.session, sender, bytes.clone()),
                Party::Server(_) => Err(MessageError::WrongSender {
                    from: sender,
                    claimed: sender,
                }),
            };
            match (opened_msg, sender) {
                (Ok(m), Party::Client(c)) => {
                    let h = m.header();
                    if h.kind != Kind::Submission || h.round != round.number {
                        refused.push((pos, ShardRefusal::NotThisRound));
                    } else {
                        opened.push((pos, c, m));
                    }
                }
                (Err(e), _) => refused.push((pos, ShardRefusal::Unopened(e))),
                (Ok(_), Party::Server(_)) => {}
            }
        }
        // Signatures: one batch.
        let bad_signatures: BTreeSet<usize> = {
            let items: Vec<_> = opened
                .iter()
                .filter_map(|(_, c, m)| Some((config.key_of(Party::Client(*c))?, m.signed())))
                .collect();
            if items.len() == opened.len() {
                verify_batch(&items, rng)
                    .err()
                    .unwrap_or_default()
                    .into_iter()
                    .collect()
            } else {
                // Every opened sender is rostered; a missing key is a bug: refuse them all.
                (0..opened.len()).collect()
            }
        };
        // One submission per client: a resend of the same bytes is ignored, a different one
        // refused.
        let mut taken: BTreeMap<ClientId, (usize, Received<S::G>)> = BTreeMap::new();
        for (i, (pos, c, m)) in opened.into_iter().enumerate() {
            if bad_signatures.contains(&i) {
                refused.push((pos, ShardRefusal::BadSignature));
            } else if self.excluded.contains(&c) {
                refused.push((pos, ShardRefusal::Excluded));
            } else if let Some((_, first)) = taken.get(&c) {
                if first.raw() != m.raw() {
                    refused.push((pos, ShardRefusal::Duplicate));
                }
            } else {
                taken.insert(c, (pos, m));
            }
        }
        // Decode, all at once.
        let taken: Vec<(ClientId, usize, Received<S::G>)> =
            taken.into_iter().map(|(c, (pos, m))| (c, pos, m)).collect();
        let decoded = par::map(&taken, |(_, _, m)| {
            decode_submission::<S>(&round.open, m.raw().clone(), m.payload(), true)
        });
        let mut accepted: BTreeMap<ClientId, Submitted<S>> = BTreeMap::new();
        let mut position = BTreeMap::new();
        for ((c, pos, _), sub) in taken.into_iter().zip(decoded) {
            match sub {
                Ok(sub) => {
                    accepted.insert(c, sub);
                    position.insert(c, pos);
                }
                Err(e) => refused.push((pos, ShardRefusal::Malformed(e))),
            }
        }
        // Eager verification, exactly where the server does it for its own clients.
        let eager = config.policy.mode.verification() == Verification::Eager;
        if S::AGGREGATION.aggregates() && eager {
            let bad = invalid_clients(nets, &round.open, &round.prepared, &accepted, rng);
            for (c, slot) in bad {
                accepted.remove(&c);
                if let Some(&pos) = position.get(&c) {
                    refused.push((pos, ShardRefusal::InvalidProof { slot }));
                }
            }
        }
        refused.sort_by_key(|(pos, _)| *pos);
        // Sums per slot, the slots in parallel.
        let aggregates = slot_aggregates(nets, &round.open, &round.prepared, &accepted)
            .into_iter()
            .collect::<Result<Vec<_>, DcError>>()?;
        let xor = xor_sums(&round.open, accepted.iter().map(|(c, s)| (*c, s)));
        Ok(ShardSums {
            round: round.number,
            accepted: accepted.into_keys().collect(),
            refused,
            aggregates,
            xor_sums: xor.sums,
        })
    }

    /// Merges the sums of disjoint shards of the round being collected into the sums over all
    /// of them, as the server would before sending its inventory: the accepted sets' union, and
    /// per slot one combination of the parts' aggregates and one `⊕` of their XOR sums.
    /// Refusals keep their position within their own shard.
    pub fn merge(&self, parts: &[ShardSums<S>]) -> Result<ShardSums<S>, ShardError> {
        let (round, nets) = (self.round, self.nets);
        let slots = round.open.len();
        if parts.iter().any(|p| {
            p.round != round.number || p.aggregates.len() != slots || p.xor_sums.len() != slots
        }) {
            return Err(ShardError::WrongRound);
        }
        let mut accepted = BTreeSet::new();
        for c in parts.iter().flat_map(|p| &p.accepted) {
            if !accepted.insert(*c) {
                return Err(ShardError::Overlap { client: *c });
            }
        }
        let ks: Vec<usize> = (0..slots).collect();
        let aggregates = par::map(&ks, |&k| {
            let (Some(open), Some(prepared)) = (round.open.get(k), round.prepared.get(k)) else {
                return Ok(None);
            };
            match nets.aggregator().filter(|_| deferrable::<S>(open)) {
                Some(aggregator) => {
                    let of_parts: Vec<&S::Aggregate> = parts
                        .iter()
                        .filter_map(|p| p.aggregates.get(k).and_then(Option::as_ref))
                        .collect();
                    aggregator.combine(prepared, &of_parts)
                }
                None => Ok(None),
            }
        })
        .into_iter()
        .collect::<Result<Vec<_>, DcError>>()?;
        let xor_sums = round
            .open
            .iter()
            .enumerate()
            .map(|(k, o)| {
                if o.kind != SlotKind::Xor {
                    return Ok(None);
                }
                let mut sum = vec![0u8; XorOf::<S>::frame_len(o.len)];
                for part in parts.iter().filter_map(|p| p.xor_sums.get(k)?.as_ref()) {
                    if part.len() != sum.len() {
                        return Err(ShardError::WrongRound);
                    }
                    xor_into(&mut sum, part);
                }
                Ok(Some(sum))
            })
            .collect::<Result<Vec<_>, ShardError>>()?;
        Ok(ShardSums {
            round: round.number,
            accepted: accepted.into_iter().collect(),
            refused: parts
                .iter()
                .flat_map(|p| p.refused.iter().cloned())
                .collect(),
            aggregates,
            xor_sums,
        })
    }
}
