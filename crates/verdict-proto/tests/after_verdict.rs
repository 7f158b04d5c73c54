//! The round in progress when a verdict concludes (blame step 4): its collection window was
//! held open during blame, and the verdict's exclusions apply to it at once. It goes on with
//! every honest client's submission and without the excluded client's, whether that was
//! already checked or still held for its batch check: no server's inventory for it lists the
//! excluded client (the others would drop it from S anyway, but would have to recompute that
//! server's aggregates, and its inventory would no longer be its share of S).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::payloads::Inventory;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{ClientId, Event, Mode, Party, ServerId, Verification};

use crate::common;
use common::{jammed_hybrid, only_jammer_excluded, policy, reseal};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

const SERVERS: usize = 3;
const CLIENTS: usize = 6;
const JAMMER: ClientId = ClientId(5);

/// The rounds server `j` certified after its first verdict, with their participant counts.
fn certified_after_verdict(sim: &Simulator<Hg>, j: u32) -> Vec<(u64, u32)> {
    sim.events_of(Party::Server(ServerId(j)))
        .skip_while(|e| !matches!(e, Event::Verdict { .. }))
        .filter_map(|e| match e {
            Event::RoundComplete {
                round,
                participants,
            } => Some((*round, *participants)),
            _ => None,
        })
        .collect()
}

/// Each inventory sent, as (server, round, the clients it lists as accepted).
type Listed = Arc<Mutex<Vec<(ServerId, u64, Vec<Party>)>>>;

/// The jammer's submissions seen on the wire, as (destination, bytes), not yet sent again.
type Sent = Arc<Mutex<Vec<(Party, Vec<u8>)>>>;

/// The clients an inventory lists as accepted (`None`: not an inventory).
fn listed_in(bytes: &[u8]) -> Option<(ServerId, u64, Vec<Party>)> {
    let env = Envelope::<G>::from_bytes(bytes).ok()?;
    let h = env.header();
    let (Kind::Inventory, Party::Server(j)) = (h.kind, h.sender) else {
        return None;
    };
    let payload = Envelope::<G>::payload_of(bytes).ok()?;
    let inventory = Inventory::decode(payload).ok()?;
    let clients = inventory
        .accepted
        .iter()
        .map(|s| Envelope::<G>::from_bytes(s).map(|e| e.header().sender))
        .collect::<Result<_, _>>()
        .ok()?;
    Some((j, h.round, clients))
}

/// Runs a jammed session in which the jammer also sends every submission twice, the second
/// time re-signed: a server holding the first unchecked checks it when the second arrives
/// (and refuses the second as a duplicate), so the jammer's submission to the round in
/// progress at the verdict is a checked one, while the honest clients' are still held.
fn jammed_with_double_submissions(seed: u64) -> (Simulator<Hg>, Listed) {
    let policy = policy(Mode::Hybrid(Verification::Eager));
    let mut sim = jammed_hybrid::<Hg>(policy, SERVERS, CLIENTS, JAMMER, seed);
    let key = sim.signing_key(Party::Client(JAMMER)).unwrap().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sent: Sent = Arc::default();
    let listed: Listed = Arc::default();
    {
        let sent = Arc::clone(&sent);
        let listed = Arc::clone(&listed);
        sim.set_tamper(Box::new(move |from, to, bytes| {
            if let Some(inventory) = listed_in(&bytes) {
                listed.lock().unwrap().push(inventory);
            }
            if from == Party::Client(JAMMER)
                && Envelope::<G>::from_bytes(&bytes)
                    .is_ok_and(|e| e.header().kind == Kind::Submission)
            {
                sent.lock().unwrap().push((to, bytes.clone()));
            }
            Some(bytes)
        }));
    }
    sim.start();
    while sim.now() < Duration::from_secs(60) && certified_after_verdict(&sim, 0).len() < 3 {
        if !sim.step() {
            break;
        }
        let resend: Vec<_> = sent.lock().unwrap().drain(..).collect();
        for (to, bytes) in resend {
            let env = Envelope::<G>::from_bytes(&bytes).unwrap();
            let payload = Envelope::<G>::payload_of(&bytes).unwrap().to_vec();
            let again = reseal(&key, &env, payload, &mut rng);
            sim.inject(Party::Client(JAMMER), to, again);
        }
    }
    (sim, listed)
}

#[test]
fn the_round_in_progress_at_a_verdict_keeps_every_honest_submission_and_drops_the_culprits() {
    for seed in [101, 102] {
        let (sim, listed) = jammed_with_double_submissions(seed);
        only_jammer_excluded(&sim, JAMMER);
        for j in 0..SERVERS as u32 {
            let after = certified_after_verdict(&sim, j);
            assert!(after.len() >= 2, "seed {seed}, server {j}: {after:?}");
            let listed = listed.lock().unwrap();
            let seen = listed
                .iter()
                .filter(|(by, round, _)| {
                    *by == ServerId(j) && after.iter().any(|(r, _)| r == round)
                })
                .count();
            assert!(
                seen >= after.len(),
                "seed {seed}, server {j}: {seen} inventories seen"
            );
            for (by, round, clients) in listed.iter() {
                assert!(
                    *by != ServerId(j)
                        || after.iter().all(|(r, _)| r != round)
                        || !clients.contains(&Party::Client(JAMMER)),
                    "seed {seed}: server {j}'s inventory for round {round} lists the excluded \
                     client: {clients:?}"
                );
            }
            for (round, participants) in &after {
                assert_eq!(
                    *participants,
                    CLIENTS as u32 - 1,
                    "seed {seed}, server {j}, round {round}: {after:?}"
                );
            }
        }
        for i in 0..CLIENTS - 1 {
            let left_out: Vec<_> = sim
                .events_of(Party::Client(ClientId(i as u32)))
                .filter(|e| matches!(e, Event::LeftOut { .. }))
                .collect();
            assert!(left_out.is_empty(), "seed {seed}, client {i}: {left_out:?}");
        }
    }
}
