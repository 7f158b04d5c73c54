//! Bounded buffers (attacks 7 and 10): clients cannot crowd out servers' messages, and a server
//! cannot grow another's memory.

use super::blame::{assert_liar_named_and_suspect_safe, lying_blame_session};
use super::*;

// ------------------------------------------------------------------------------------------
// 7. Clients cannot fill buffers that hold other servers' messages.

#[test]
fn a_client_flood_of_next_round_messages_does_not_push_out_server_messages() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        47,
    )
    .unwrap();
    // Server 0 hears server 2 late, so server 1's messages of the next round reach it early.
    sim.set_link_latency(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        Duration::from_millis(400),
    );
    let flooder = ClientId(3);
    let key = sim.signing_key(Party::Client(flooder)).unwrap().clone();
    let session = session_of(&sim);
    let mut r = rng(4);
    let mut flooded = 0;
    while (0..3).any(|j| sim.server(j).unwrap().round() < 6) && sim.now() < Duration::from_secs(200)
    {
        let round = sim.server(0).unwrap().round();
        if round >= 1 && flooded < round {
            // Many distinct, validly signed submissions for the next round.
            for k in 0..200u32 {
                let junk = Envelope::seal(
                    &key,
                    Kind::Submission,
                    Party::Client(flooder),
                    session,
                    round + 1,
                    k.to_le_bytes().to_vec(),
                    &mut r,
                );
                sim.inject(
                    Party::Client(flooder),
                    Party::Server(ServerId(0)),
                    junk.to_bytes(),
                );
            }
            flooded = round;
        }
        if !sim.step() {
            break;
        }
    }
    assert!(
        halts_seen_by(&sim, &[0, 1, 2]).is_empty(),
        "{:?}",
        sim.halts()
    );
    assert!((0..3).all(|j| sim.server(j).unwrap().round() >= 6));
}

/// The session and accused round of a blame, as a flooding client learns them.
type AccusationSeen = ([u8; 32], u64);

#[test]
fn a_client_cannot_crowd_out_the_suspects_rebuttal() {
    let mut sim = lying_blame_session(48);
    // Server 0 hears server 2 late: it learns the suspect after the suspect has answered.
    sim.set_link_latency(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        Duration::from_millis(300),
    );
    let flooder = ClientId(3);
    let key = sim.signing_key(Party::Client(flooder)).unwrap().clone();
    let accusation: Arc<Mutex<Option<AccusationSeen>>> = Arc::default();
    let fresh: Arc<Mutex<bool>> = Arc::default();
    {
        let accusation = Arc::clone(&accusation);
        let fresh = Arc::clone(&fresh);
        sim.set_tamper(Box::new(move |from, _to, bytes| {
            if let Party::Server(_) = from
                && let Ok(env) = Envelope::<G>::from_bytes(&bytes)
                && env.header().kind == Kind::BlameBits
            {
                let mut a = accusation.lock().unwrap();
                let seen = a
                    .as_ref()
                    .is_some_and(|(_, round)| *round == env.header().round);
                if !seen {
                    *a = Some((env.header().session, env.header().round));
                    drop(a);
                    *fresh.lock().unwrap() = true;
                }
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(5);
    let mut flooded = false;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        let acc = *accusation.lock().unwrap();
        if let (Some((session, round)), true) = (acc, core::mem::take(&mut *fresh.lock().unwrap()))
        {
            // Junk rebuttals for this blame, before the suspects are known anywhere.
            for k in 0..50u8 {
                let payload = Rebuttal::NoObjection {
                    round,
                    digests: vec![[k; 32]; 3],
                }
                .to_bytes();
                let junk = Envelope::seal(
                    &key,
                    Kind::Rebuttal,
                    Party::Client(flooder),
                    session,
                    round,
                    payload,
                    &mut r,
                );
                sim.inject(
                    Party::Client(flooder),
                    Party::Server(ServerId(0)),
                    junk.to_bytes(),
                );
            }
            flooded = true;
        }
    }
    assert!(flooded);
    assert_liar_named_and_suspect_safe(&sim);
}

// ------------------------------------------------------------------------------------------
// 10. A server cannot grow another server's memory without bound (and is named if it tries).

#[test]
fn an_echo_flood_of_far_future_headers_names_its_sender() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        quiet_net(),
        52,
    )
    .unwrap();
    sim.run_rounds(1, Duration::from_secs(60));
    let session = session_of(&sim);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let mut r = rng(9);
    let heads: Vec<Vec<u8>> = (0..2_000u64)
        .map(|round| {
            Envelope::seal(
                &key,
                Kind::Inventory,
                Party::Server(ServerId(2)),
                session,
                1_000 + round,
                Vec::new(),
                &mut r,
            )
            .signed
            .to_bytes()
        })
        .collect();
    let mut w = Writer::new();
    write_byte_list(&mut w, &heads);
    let echo = Envelope::seal(
        &key,
        Kind::Echo,
        Party::Server(ServerId(2)),
        session,
        1,
        w.finish(),
        &mut r,
    );
    sim.inject(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        echo.to_bytes(),
    );
    sim.run_rounds(3, Duration::from_secs(120));
    let halts = halts_seen_by(&sim, &[0, 1]);
    assert!(!halts.is_empty(), "the flooding server was not named");
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(2), "{fault:?}");
    }
}
