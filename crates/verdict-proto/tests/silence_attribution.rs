//! Who is named when a server goes silent towards only some of its peers.
//!
//! Server 2 stops sending to server 1 from its first message of some kind on, and keeps
//! talking to server 0 (a crash mid-broadcast does the same). Server 1, stuck on server 2's
//! missing message, must name it; server 0, which got that message and moved on, now waits for
//! server 1 — which rightly never sends its next step message — and must not name server 1.
//! The link from server 0 to server 1 is made slow, so that server 1's own timer starts late
//! (an order real networks produce): before the fix, server 0 named the first missing server
//! at the same timeout as everybody, before server 1's alert could arrive, and under a window
//! without a deadline server 1 never named server 2 at all.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use verdict_dcnet::{HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{Event, Mode, Policy, ServerFault, Verification, WindowPolicy};

use crate::common;
use common::{policy, quiet_net};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

/// Who withholds from whom, and the slow link that makes the cut-off server's timer start
/// late.
#[derive(Clone, Copy)]
struct Cut {
    silent: ServerId,
    cut_off: ServerId,
    slow_from: ServerId,
}

/// Server 2 withholds from server 1; server 0 moved on.
const LAST_TO_MIDDLE: Cut = Cut {
    silent: ServerId(2),
    cut_off: ServerId(1),
    slow_from: ServerId(0),
};

/// Runs a 3-server session in which `cut.silent` goes silent towards `cut.cut_off` from its
/// first `kind` message on (in `round`, for round kinds), with the link from `cut.slow_from`
/// to `cut.cut_off` `slow`, under `policy`.
fn cut_off_at(
    cut: Cut,
    policy: Policy,
    kind: Kind,
    round: u64,
    slow: Duration,
    seed: u64,
) -> Simulator<Hg> {
    let Cut {
        silent,
        cut_off,
        slow_from,
    } = cut;
    let mut sim = Simulator::<Hg>::new_paused(policy, 3, 4, quiet_net(), seed).unwrap();
    sim.set_link_latency(Party::Server(slow_from), Party::Server(cut_off), slow);
    let mut cut = false;
    sim.set_tamper(Box::new(move |from, to, bytes| {
        if from == Party::Server(silent) && to == Party::Server(cut_off) {
            cut = cut
                || Envelope::<G>::from_bytes(&bytes).is_ok_and(|e| {
                    e.header().kind == kind && (e.header().round >= round || is_setup(kind))
                });
            if cut {
                return None;
            }
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(round + 2, Duration::from_secs(300));
    sim
}

fn is_setup(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::SetupInventory | Kind::ShuffleStep | Kind::Decryption
    )
}

/// Asserts that no honest server names anybody but `cut.silent`, that `cut.cut_off` (which
/// saw the silence) named it, and that the third server stopped too.
fn assert_only_the_silent_server_is_named(sim: &Simulator<Hg>, cut: Cut, what: &str) {
    let Cut {
        silent, cut_off, ..
    } = cut;
    let halts = sim.halts();
    assert!(
        halts.iter().any(|(by, culprit, fault)| *by == cut_off
            && *culprit == silent
            && matches!(fault, ServerFault::Unresponsive { .. })),
        "{what}: server {} did not name server {}: {halts:?}",
        cut_off.0,
        silent.0
    );
    for (by, culprit, fault) in halts.iter().filter(|(by, _, _)| *by != silent) {
        assert_eq!(
            *culprit, silent,
            "{what}: server {} named server {} ({fault:?})",
            by.0, culprit.0
        );
    }
    // The third server stopped too, on another server's word (it saw no fault of its own; the
    // silent server may alert it first, falsely, which only stops the session) or naming the
    // silent server.
    let third = (0..3).map(ServerId).find(|j| *j != silent && *j != cut_off);
    let stopped = third.is_some_and(|t| {
        sim.events_of(Party::Server(t)).any(|e| {
            matches!(e, Event::PeerHalted { .. })
                || matches!(e, Event::Halted { server, .. } if *server == silent)
        })
    });
    assert!(stopped, "{what}: the third server did not stop");
}

const SLOW: Duration = Duration::from_millis(300);

fn eager() -> Policy {
    policy(Mode::Verifiable(Verification::Eager))
}

/// Cuts server 1 off from server 2 at each of `kinds` in turn (in `round`).
fn check_every_step(kinds: &[Kind], round: u64, seed: u64) {
    for (i, &kind) in kinds.iter().enumerate() {
        let sim = cut_off_at(LAST_TO_MIDDLE, eager(), kind, round, SLOW, seed + i as u64);
        assert_only_the_silent_server_is_named(&sim, LAST_TO_MIDDLE, kind.name());
    }
}

#[test]
fn a_server_cut_off_mid_round_is_not_named_by_the_server_that_moved_on() {
    let kinds = [
        Kind::Inventory,
        Kind::ServerCiphertexts,
        Kind::OutputSignature,
    ];
    check_every_step(&kinds, 1, 70);
}

#[test]
fn a_server_cut_off_during_setup_is_not_named_by_the_server_that_moved_on() {
    let kinds = [Kind::SetupInventory, Kind::ShuffleStep, Kind::Decryption];
    check_every_step(&kinds, 0, 80);
}

/// The shuffle is sequential: when server 0 withholds its shuffle from server 1, the next
/// shuffler, nobody completes the step, so no echo of a complete step tells server 1 what it
/// misses; server 2, which got server 0's shuffle, waits for server 1's.
#[test]
fn a_shuffler_starved_by_its_predecessor_is_not_named_by_the_server_after_it() {
    let cut = Cut {
        silent: ServerId(0),
        cut_off: ServerId(1),
        slow_from: ServerId(2),
    };
    let sim = cut_off_at(cut, eager(), Kind::ShuffleStep, 0, SLOW, 90);
    assert_only_the_silent_server_is_named(&sim, cut, "shuffle step");
}

/// Under a window without a deadline a missing inventory names nobody (its server may be
/// waiting for a client of its own) — unless another server echoed its header: then it was
/// sent, and withheld. Found by the property tests: server 1 waited for good, and server 0,
/// waiting on server 1's next step, named it.
#[test]
fn under_a_window_without_deadline_a_withheld_inventory_names_its_sender() {
    let all = Policy {
        window: WindowPolicy::all(),
        ..eager()
    };
    let sim = cut_off_at(LAST_TO_MIDDLE, all, Kind::Inventory, 1, SLOW, 95);
    assert_only_the_silent_server_is_named(&sim, LAST_TO_MIDDLE, "inventory, no deadline");
}
