//! Missing submissions (attack 11 and the silent-client finding): a client learns that it was left
//! out, and a client's silence names no server.

use super::*;

// ------------------------------------------------------------------------------------------
// 11. A client learns when its upstream left it out of a round.

#[test]
fn a_client_dropped_by_its_upstream_learns_it_from_the_certified_output() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        4,
        quiet_net(),
        53,
    )
    .unwrap();
    let victim = ClientId(2);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from == Party::Client(victim)
            && Envelope::<G>::from_bytes(&bytes)
                .is_ok_and(|e| e.header().kind == Kind::Submission && e.header().round == 1)
        {
            return None;
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(3, Duration::from_secs(120));
    let left_out: Vec<u64> = sim
        .events_of(Party::Client(victim))
        .filter_map(|e| match e {
            Event::LeftOut { round } => Some(*round),
            _ => None,
        })
        .collect();
    assert_eq!(left_out, vec![1]);
    for other in [0, 1, 3] {
        assert!(
            !sim.events_of(Party::Client(ClientId(other)))
                .any(|e| matches!(e, Event::LeftOut { .. }))
        );
    }
}

// ------------------------------------------------------------------------------------------
// Churn never names a server: a silent client under a window that waits for everyone.

#[test]
fn a_silent_client_under_an_all_clients_window_names_no_server() {
    let all = Policy {
        window: WindowPolicy::all(),
        ..policy(Mode::Verifiable(Verification::Eager))
    };
    let mut sim = Simulator::<Hg>::new(all, 3, 6, quiet_net(), 54).unwrap();
    sim.add_adversary(Adversary::SilentClient {
        client: ClientId(4),
        from_round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(200));
    assert!(sim.halts().is_empty(), "{:?}", sim.halts());
    let _ = ExclusionReason::DoubleSubmission { round: 0 };
}
