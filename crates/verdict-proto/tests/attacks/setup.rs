//! Set-up (attacks 8 and 9): what clients do is never blamed on a server, and a timeout names the
//! server that went silent.

use super::*;

// ------------------------------------------------------------------------------------------
// 8. What clients do at set-up must never be blamed on a server.

/// Rewrites the pseudonym-shuffle submissions of `clients` to carry the key `y·g`.
fn submit_pseudonym_secret(sim: &mut Simulator<Hg>, clients: &[u32], y: <G as Group>::Scalar) {
    let config = sim.config().clone();
    let session = session_of(sim);
    let params = verdict_shuffle::KeyShuffleParams::new(
        session,
        config
            .servers
            .iter()
            .map(|m| *m.shuffle.as_ref().unwrap().key.point())
            .collect(),
        config.num_clients(),
    )
    .unwrap();
    let keys: Vec<_> = clients
        .iter()
        .map(|c| {
            sim.signing_key(Party::Client(ClientId(*c)))
                .unwrap()
                .clone()
        })
        .collect();
    let clients = clients.to_vec();
    let mut r = rng(6);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        let Party::Client(c) = from else {
            return Some(bytes);
        };
        let Some(pos) = clients.iter().position(|x| *x == c.0) else {
            return Some(bytes);
        };
        let env = Envelope::<G>::from_bytes(&bytes).unwrap();
        if env.header().kind != Kind::ClientSetup {
            return Some(bytes);
        }
        let mut rd = Reader::new(&env.payload);
        let _ = rd.bytes().unwrap();
        let suite = rd.bytes().unwrap().to_vec();
        let secret = SecretScalar::new(y);
        let sub = verdict_shuffle::keyshuffle::submit_pseudonym(&params, c.0, &secret, &mut r)
            .unwrap()
            .to_bytes();
        let mut w = Writer::new();
        w.bytes(&sub).bytes(&suite);
        Some(reseal(&keys[pos], &env, w.finish(), &mut r))
    }));
}

fn assert_setup_survives(sim: &mut Simulator<Hg>, bad: &[u32]) {
    sim.start();
    sim.run_rounds(2, Duration::from_secs(120));
    for j in 0..sim.num_servers() as u32 {
        let failed: Vec<_> = sim
            .events_of(Party::Server(ServerId(j)))
            .filter(|e| matches!(e, Event::SetupFailed { .. } | Event::Halted { .. }))
            .collect();
        assert!(failed.is_empty(), "server {j}: {failed:?}");
        assert!(sim.server(j as usize).unwrap().round() >= 2, "server {j}");
    }
    for i in 0..sim.num_clients() as u32 {
        if !bad.contains(&i) {
            assert!(
                sim.client(i as usize).unwrap().slot().is_some(),
                "client {i} has no slot"
            );
        }
    }
}

#[test]
fn an_identity_pseudonym_key_does_not_abort_setup() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        5,
        quiet_net(),
        49,
    )
    .unwrap();
    submit_pseudonym_secret(
        &mut sim,
        &[2],
        <<G as Group>::Scalar as verdict_group::Scalar>::zero(),
    );
    assert_setup_survives(&mut sim, &[2]);
}

#[test]
fn two_clients_sharing_a_pseudonym_key_do_not_abort_setup() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        5,
        quiet_net(),
        50,
    )
    .unwrap();
    let y = <<G as Group>::Scalar as verdict_group::Scalar>::random(&mut rng(8));
    submit_pseudonym_secret(&mut sim, &[1, 3], y);
    assert_setup_survives(&mut sim, &[1, 3]);
}

// ------------------------------------------------------------------------------------------
// 9. A set-up timeout names the server that went silent, in every phase.

/// Server `silent` crashes when it would send its first `kind` message: from then on nothing
/// it sends arrives. Returns the halts the other servers report.
fn silent_in_setup(kind: Kind, silent: u32, seed: u64) -> Vec<(ServerId, ServerFault)> {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        quiet_net(),
        seed,
    )
    .unwrap();
    let mut crashed = false;
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from == Party::Server(ServerId(silent))
            && (crashed || Envelope::<G>::from_bytes(&bytes).is_ok_and(|e| e.header().kind == kind))
        {
            crashed = true;
            return None;
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(1, Duration::from_secs(200));
    let honest: Vec<u32> = (0..3).filter(|j| *j != silent).collect();
    halts_seen_by(&sim, &honest)
}

#[test]
fn a_setup_timeout_names_the_silent_server_in_every_phase() {
    for kind in [Kind::SetupInventory, Kind::ShuffleStep, Kind::Decryption] {
        for silent in 0..3 {
            let halts = silent_in_setup(kind, silent, 51 + u64::from(silent));
            assert!(!halts.is_empty(), "{kind:?} from {silent}: nobody halted");
            for (culprit, fault) in &halts {
                assert_eq!(
                    culprit.0, silent,
                    "{kind:?} withheld by {silent}: {fault:?}"
                );
                assert!(
                    matches!(fault, ServerFault::Unresponsive { .. }),
                    "{fault:?}"
                );
            }
        }
    }
}
