//! Rounds: routing round messages (buffering the next round's), the round state's helpers, and
//! the construction of a round from the schedule.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::xor::xor_into;
use verdict_dcnet::{ClientId, DcError, Party};
use verdict_group::par;

use super::common::Core;
use super::state::{EARLY_PER_SERVER, Round, RoundStep, Running, Signature, Submitted, XorSums};
use super::stop::Stop;
use crate::error::{MessageError, WireError};
use crate::event::Transmit;
use crate::schedule::Schedule;
use crate::slot::{OpenSlot, SlotKind};
use crate::suite::{ClientCt, Prepared, ProtoSuite, SessionNets, XorOf};
use crate::wire::{Kind, Received, SharedBytes, payloads};

mod accepted_set;
mod catch_up;
mod certify;
mod ciphertexts;
mod held;
mod inventory;
mod reveal;
mod shard;
mod submission;
mod union;
mod upstream;

pub use shard::{ShardError, ShardRefusal, ShardSums, ShardWorker};

impl<S: ProtoSuite> Running<S> {
    /// Routes a round or blame message (verified, tracked) to its handler, with its sender
    /// (the router let only servers send servers' kinds and clients clients'); keeps the next
    /// round's per sender.
    pub(super) fn handle<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        msg: Received<S::G>,
        signature: Signature,
    ) -> Result<(), Stop> {
        let h = msg.header().clone();
        let current = self.round.number;
        let mut signature = signature;
        if signature == Signature::Deferred
            && (h.kind != Kind::Submission
                || h.round != current
                || self.round.step != RoundStep::Collecting)
        {
            // Only a submission to the window being collected may wait for its check.
            if let Err(e) = core.config.check_signature(&msg) {
                core.reject(e);
                return Ok(());
            }
            signature = Signature::Checked;
        }
        if let Party::Client(c) = h.sender {
            // A set-up message now: the client lost the transcript, or missed set-up
            // (`late_setup.rs`).
            let answered = (h.kind == Kind::ClientSetup
                && core.config.upstream_of(c) == Some(core.id))
            .then(|| core.late_setup.answer(c, current))
            .flatten();
            if let Some(bytes) = &answered {
                core.transmits.push_back(Transmit {
                    to: h.sender,
                    bytes: Arc::clone(bytes),
                });
            }
            if core.late_setup.is_absent(c) {
                core.reject(MessageError::AbsentAtSetup {
                    client: c,
                    kind: h.kind.name(),
                });
                return Ok(());
            }
            if h.kind == Kind::ClientSetup {
                if answered.is_none() {
                    core.reject(MessageError::Duplicate {
                        from: h.sender,
                        kind: h.kind.name(),
                    });
                }
                return Ok(());
            }
        }
        let unexpected = |core: &mut Core<S, R>| {
            core.reject(MessageError::Unexpected {
                from: h.sender,
                kind: h.kind.name(),
                round: h.round,
            });
            Ok(())
        };
        if let (Party::Client(c), Kind::CatchUp) = (h.sender, h.kind) {
            if !msg.payload().is_empty() {
                core.reject(MessageError::Malformed {
                    from: h.sender,
                    source: crate::error::WireError::Invalid("catch-up payload"),
                });
                return Ok(());
            }
            // About past rounds: not subject to the round checks below.
            self.on_catch_up(core, c, h.round);
            return Ok(());
        }
        let blame_kind = matches!(h.kind, Kind::BlameBits | Kind::Verdict | Kind::Rebuttal);
        if !blame_kind && h.round == current + 1 {
            // Nobody can be more than one round ahead (certifying a round needs our
            // signature; further is refused as a step of a round that cannot exist). Kept per
            // sender, as received: a server's few step messages, one submission per
            // rostered client (any of them may move to us).
            match h.sender {
                Party::Server(j) => {
                    let held = self.future.servers.entry(j).or_default();
                    if held.len() >= EARLY_PER_SERVER {
                        return Err(Stop::bad_message(j, &msg));
                    }
                    held.push(msg);
                    return Ok(());
                }
                Party::Client(c) if h.kind == Kind::Submission && !core.excluded.contains(&c) => {
                    if self.future.clients.get(&c).is_some_and(|prev| prev != &msg) {
                        core.reject(MessageError::Duplicate {
                            from: h.sender,
                            kind: h.kind.name(),
                        });
                        return Ok(());
                    }
                    self.future.clients.insert(c, msg);
                    return Ok(());
                }
                Party::Client(_) => {}
            }
        }
        if !blame_kind && h.round != current {
            return unexpected(core);
        }
        match (h.sender, h.kind) {
            (Party::Client(c), Kind::Submission) => self.on_submission(core, c, msg, signature),
            (Party::Client(c), Kind::Rebuttal) => self.on_rebuttal(core, c, msg),
            (Party::Server(j), Kind::Inventory) => self.on_inventory(core, j, msg),
            (Party::Server(j), Kind::Commit) => self.on_commit(core, j, msg),
            (Party::Server(j), Kind::ServerCiphertexts) => self.on_server_cts(core, j, msg),
            (Party::Server(j), Kind::OutputSignature) => self.on_output_signature(core, j, msg),
            (Party::Server(j), Kind::BlameBits) => self.on_blame_bits(core, j, msg),
            (Party::Server(j), Kind::Verdict) => self.on_verdict(core, j, msg),
            _ => unexpected(core),
        }
    }
}

/// The accepted clients' ciphertexts for the `k`-th open slot.
pub(crate) fn slot_items<S: ProtoSuite>(
    accepted: &BTreeMap<ClientId, Submitted<S>>,
    k: usize,
) -> Vec<(ClientId, &ClientCt<S>)> {
    accepted
        .iter()
        .filter_map(|(c, s)| s.cts.get(k).and_then(Option::as_ref).map(|ct| (*c, ct)))
        .collect()
}

/// Per open slot, the sum of `subs`' ciphertexts where servers exchange sums (verifiable
/// slots of an aggregating suite; `Ok(None)` elsewhere), the slots in parallel with the
/// `parallel` feature. Used by a server for its own clients when its window closes and by a
/// worker for its shard ([`shard`]).
pub(crate) fn slot_aggregates<S: ProtoSuite>(
    nets: &SessionNets<S>,
    open: &[OpenSlot],
    prepared: &[Prepared<S>],
    subs: &BTreeMap<ClientId, Submitted<S>>,
) -> Vec<Result<Option<S::Aggregate>, DcError>> {
    let slots: Vec<usize> = (0..open.len()).collect();
    par::map(&slots, |&k| {
        let (Some(o), Some(p)) = (open.get(k), prepared.get(k)) else {
            return Ok(None);
        };
        match nets.aggregator().filter(|_| deferrable::<S>(o)) {
            Some(aggregator) => aggregator.aggregate(p, &slot_items(subs, k)),
            None => Ok(None),
        }
    })
}

/// The XOR slots' ciphertexts of `subs` summed per slot (see [`XorSums`]). XOR ciphertexts are
/// summed from the bytes they arrived in, while those are warm, and never decoded: the reveal
/// combines one sum per server instead of every client's ciphertext. The slots are summed in
/// parallel with the `parallel` feature. Every length was checked when the submission was
/// decoded; a submission without the slot's bytes (a colluding server's unchecked listing in
/// the simulator) adds nothing.
pub(crate) fn xor_sums<'a, S: ProtoSuite + 'a>(
    open: &[OpenSlot],
    subs: impl IntoIterator<Item = (ClientId, &'a Submitted<S>)>,
) -> XorSums {
    let (mut over, subs): (Vec<ClientId>, Vec<&Submitted<S>>) = subs.into_iter().unzip();
    over.sort_unstable();
    let ks: Vec<usize> = (0..open.len()).collect();
    let sums = par::map(&ks, |&k| {
        let o = open.get(k).filter(|o| o.kind == SlotKind::Xor)?;
        let mut sum = vec![0u8; XorOf::<S>::frame_len(o.len)];
        for bytes in subs.iter().filter_map(|sub| sub.slot_bytes(k)) {
            xor_into(&mut sum, bytes);
        }
        Some(sum)
    });
    XorSums { sums, over }
}

/// Decodes a client's signed submission once: where each open slot's ciphertext lies in
/// `envelope` (`payload` is its payload, a slice of it), and the ciphertexts; with
/// `all = false` only those every server needs decoded (every verifiable slot of a
/// non-aggregating suite), the others are left for [`super::decode_deferred`]. XOR slots are
/// only length-checked: servers sum their bytes ([`super::xor_sums`]).
pub(super) fn decode_submission<S: ProtoSuite>(
    open: &[OpenSlot],
    envelope: SharedBytes,
    payload: &[u8],
    all: bool,
) -> Result<Submitted<S>, WireError> {
    let list = payloads::ByteList::decode(payload)?.0;
    if list.len() != open.len() {
        return Err(WireError::Invalid("number of slot ciphertexts"));
    }
    let mut slots = Vec::with_capacity(list.len());
    for b in &list {
        slots.push(
            envelope
                .range_of(b)
                .ok_or(WireError::Invalid("slot ciphertext"))?,
        );
    }
    // The slots decode independently (validating every group element is most of the cost):
    // in parallel with the `parallel` feature, the first failure in slot order reported.
    let pairs: Vec<(&OpenSlot, &[u8])> = open.iter().zip(list.iter().copied()).collect();
    let cts = par::map(&pairs, |(o, b)| {
        if o.kind == SlotKind::Xor {
            // Summed from these bytes (`super::xor_sums`), never decoded.
            return SessionNets::<S>::xor_client_fits(o, b)
                .then_some(None)
                .ok_or(());
        }
        if all || !deferrable::<S>(o) {
            SessionNets::<S>::decode_client(o, b).map(Some).ok_or(())
        } else {
            Ok(None)
        }
    })
    .into_iter()
    .collect::<Result<Vec<_>, ()>>()
    .map_err(|()| WireError::Invalid("slot ciphertext"))?;
    Ok(Submitted {
        envelope,
        slots,
        cts,
    })
}

/// Verifies, one batch per verifiable slot and the slots in parallel (each with its own RNG,
/// see [`crate::fork`]), the client ciphertexts
/// `submissions` carry; each invalid client with the first slot in which it failed.
pub(crate) fn invalid_clients<S: ProtoSuite, R: RngCore + CryptoRng>(
    nets: &SessionNets<S>,
    open: &[OpenSlot],
    prepared: &[Prepared<S>],
    submissions: &BTreeMap<ClientId, Submitted<S>>,
    rng: &mut R,
) -> BTreeMap<ClientId, u32> {
    let jobs: Vec<(usize, u32, &Prepared<S>)> = open
        .iter()
        .zip(prepared)
        .enumerate()
        .filter(|(_, (o, _))| o.kind == SlotKind::Verifiable)
        .map(|(k, (o, p))| (k, o.slot, p))
        .collect();
    let seeds = crate::fork::seeds(rng, jobs.len());
    let jobs: Vec<_> = jobs.into_iter().zip(&seeds).collect();
    let failed = verdict_group::par::map(&jobs, |&((k, _, p), seed)| {
        let items = slot_items(submissions, k);
        nets.verify_clients(p, &items, &mut crate::fork::rng(seed))
    });
    let mut bad = BTreeMap::new();
    for (((_, slot, _), _), clients) in jobs.iter().zip(failed) {
        for c in clients {
            bad.entry(c).or_insert(*slot);
        }
    }
    bad
}

/// The first open slot in which `client`'s submission `payload` carries a malformed ciphertext
/// or an invalid proof (`None`: the submission is valid).
pub(crate) fn first_invalid_slot<S: ProtoSuite, R: RngCore + CryptoRng>(
    nets: &SessionNets<S>,
    open: &[OpenSlot],
    prepared: &[Prepared<S>],
    client: ClientId,
    payload: &[u8],
    rng: &mut R,
) -> Option<u32> {
    let first = open.first().map_or(0, |o| o.slot);
    let Ok(payloads::ByteList(list)) = payloads::ByteList::decode(payload) else {
        return Some(first);
    };
    if list.len() != open.len() {
        return Some(first);
    }
    for ((o, p), bytes) in open.iter().zip(prepared).zip(&list) {
        let Some(ct) = SessionNets::<S>::decode_client(o, bytes) else {
            return Some(o.slot);
        };
        if !nets.verify_clients(p, &[(client, &ct)], rng).is_empty() {
            return Some(o.slot);
        }
    }
    None
}

/// Whether servers may leave this slot's ciphertexts of other servers' clients undecoded and
/// use those servers' aggregates instead.
pub(crate) fn deferrable<S: ProtoSuite>(open: &OpenSlot) -> bool {
    S::AGGREGATION.aggregates() && open.kind == SlotKind::Verifiable
}

/// Decodes slot `k`'s ciphertext of a submission from the bytes found for it on arrival
/// (`None`: the client signed a malformed ciphertext, which its upstream server should have
/// refused).
pub(crate) fn client_ct<S: ProtoSuite>(
    open: &OpenSlot,
    sub: &Submitted<S>,
    k: usize,
) -> Option<ClientCt<S>> {
    SessionNets::<S>::decode_client(open, sub.slot_bytes(k)?)
}

/// Decodes the `k`-th slot ciphertext of a submission whose decoding was deferred, in place;
/// whether it is (now) decoded.
pub(crate) fn decode_deferred<S: ProtoSuite>(
    open: &OpenSlot,
    sub: &mut Submitted<S>,
    k: usize,
) -> bool {
    if sub.cts.get(k).is_some_and(Option::is_some) {
        return true;
    }
    match (client_ct::<S>(open, sub, k), sub.cts.get_mut(k)) {
        (Some(ct), Some(slot)) => {
            *slot = Some(ct);
            true
        }
        _ => false,
    }
}

pub(crate) fn message_kind(hybrid: bool) -> SlotKind {
    if hybrid {
        SlotKind::Xor
    } else {
        SlotKind::Verifiable
    }
}

/// Round `number` as `schedule` opens it.
pub(crate) fn new_round<S: ProtoSuite>(
    nets: &SessionNets<S>,
    schedule: &Schedule,
    number: u64,
    now: Duration,
    m: usize,
) -> Result<Round<S>, DcError> {
    let open = schedule.open_slots();
    let prepared = nets.prepare_all(&open, number)?;
    Ok(Round {
        number,
        step: RoundStep::Collecting,
        open,
        prepared,
        opened_at: now,
        fraction_at: None,
        own: BTreeMap::new(),
        own_rejected: Vec::new(),
        unchecked: BTreeMap::new(),
        own_aggregates: Vec::new(),
        own_xor_sums: XorSums::default(),
        inventories: (0..m).map(|_| None).collect(),
        arrived_inventories: Vec::new(),
        accepted: BTreeMap::new(),
        upstream: BTreeMap::new(),
        submitters: BTreeSet::new(),
        listeners: BTreeSet::new(),
        forwarded: Vec::new(),
        excluded_now: Vec::new(),
        my_cts: None,
        commits: vec![None; m],
        server_cts: (0..m).map(|_| None).collect(),
        early_cts: (0..m).map(|_| None).collect(),
        result: None,
        accusations: Vec::new(),
        signatures: vec![None; m],
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::wire::SharedBytes;
    use verdict_dcnet::HashingGenerator;
    use verdict_group::Ristretto255;

    type Hg = HashingGenerator<Ristretto255>;

    const LEN: usize = 5;

    fn open() -> Vec<OpenSlot> {
        vec![
            OpenSlot {
                kind: SlotKind::Xor,
                slot: 0,
                len: LEN,
            },
            OpenSlot {
                kind: SlotKind::Verifiable,
                slot: 1,
                len: LEN,
            },
        ]
    }

    /// A submission whose XOR slot holds `fill` repeated and whose verifiable slot holds junk
    /// (never summed).
    fn submitted(fill: u8) -> Submitted<Hg> {
        let n = XorOf::<Hg>::frame_len(LEN);
        let mut bytes = vec![0xEE; 3];
        bytes.extend(core::iter::repeat_n(fill, n));
        bytes.extend([0x55; 7]);
        Submitted {
            envelope: SharedBytes::from(bytes),
            slots: vec![3..3 + n, 3 + n..10 + n],
            cts: vec![None, None],
        }
    }

    #[test]
    fn xor_sums_are_over_the_xor_slots_bytes_with_their_clients_in_id_order() {
        let (a, b, c) = (submitted(0x0F), submitted(0x3C), submitted(0x81));
        // A listing without the slot's bytes (unchecked, in the simulator) adds nothing.
        let unparsed = Submitted::<Hg> {
            envelope: SharedBytes::from(vec![1, 2, 3]),
            slots: Vec::new(),
            cts: vec![None, None],
        };
        let subs = [
            (ClientId(7), &a),
            (ClientId(2), &b),
            (ClientId(9), &unparsed),
            (ClientId(4), &c),
        ];
        let sums = xor_sums(&open(), subs);
        let n = XorOf::<Hg>::frame_len(LEN);
        assert_eq!(sums.sums, vec![Some(vec![0x0F ^ 0x3C ^ 0x81; n]), None]);
        assert_eq!(
            sums.over,
            [ClientId(2), ClientId(4), ClientId(7), ClientId(9)]
        );
        let empty = xor_sums::<Hg>(&open(), []);
        assert_eq!(empty.sums, vec![Some(vec![0; n]), None]);
        assert!(empty.over.is_empty());
    }
}
