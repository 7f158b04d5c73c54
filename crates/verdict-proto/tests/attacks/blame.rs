//! Hybrid blame against lying or dissenting servers (attacks 2, 3 and 6): a lie sticks to the liar,
//! and no verdict shields a jammer.

use super::*;

// ------------------------------------------------------------------------------------------
// 2 and 3. Hybrid blame against a lying server: the lie must stick to the liar.

/// A hybrid session with a jammer (client 5) and a server (2) that lies about its pad bits with
/// the first two clients, which makes honest client 0 the suspect.
pub(super) fn lying_blame_session(seed: u64) -> Simulator<Hg> {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Hybrid(Verification::Eager)),
        3,
        6,
        quiet_net(),
        seed,
    )
    .unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(5),
        from_round: 1,
    });
    sim.add_adversary(Adversary::LyingServer {
        server: ServerId(2),
    });
    sim
}

/// Server 2's blame bits with the first two clients' bits flipped back: the truth.
fn truthful_version(
    key: &verdict_nizk::SigningKey<G>,
    lying: &[u8],
    rng: &mut ChaCha20Rng,
) -> Vec<u8> {
    let env = Envelope::<G>::from_bytes(lying).unwrap();
    let mut claim = BlameBits::from_bytes(&env.payload).unwrap();
    for trace in &mut claim.traces {
        for b in trace.bits.iter_mut().take(2) {
            *b = !*b;
        }
    }
    reseal(key, &env, claim.to_bytes(), rng)
}

/// The verdict the review found: the honest suspect must never be excluded and only the liar
/// (server 2) may be named.
pub(super) fn assert_liar_named_and_suspect_safe(sim: &Simulator<Hg>) {
    for j in 0..2 {
        for e in sim.events_of(Party::Server(ServerId(j))) {
            if let Event::Verdict { culprit, .. } = e {
                assert_eq!(
                    *culprit,
                    Some(Party::Server(ServerId(2))),
                    "server {j}: a blame of the lie did not end with the liar"
                );
            }
        }
    }
    let halts = halts_seen_by(sim, &[0, 1]);
    assert!(!halts.is_empty(), "the lying server escaped");
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(2), "{fault:?}");
    }
    for j in 0..2 {
        assert!(
            !excluded_by(sim, j).contains(&ClientId(0)),
            "server {j} excluded the honest suspect: {:?}",
            sim.exclusions(Party::Server(ServerId(j)))
        );
    }
}

/// A lie proof is conclusive wherever it appears. Here the honest suspect's rebuttals reach
/// server 0 alone: server 0 checks the lie proof and halts naming the liar, and server 1, which
/// learns of it only from server 0's alert, checks the proof inside the alert and names the
/// liar too, on evidence — not merely on server 0's word (`PeerHalted`).
#[test]
fn a_lie_proof_relayed_in_an_alert_names_the_liar_at_every_honest_server() {
    let mut sim = lying_blame_session(49);
    sim.set_tamper(Box::new(|from, to, bytes| {
        let rebuttal =
            Envelope::<G>::from_bytes(&bytes).is_ok_and(|e| e.header().kind == Kind::Rebuttal);
        if rebuttal && from == Party::Client(ClientId(0)) && to != Party::Server(ServerId(0)) {
            return None;
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(6, Duration::from_secs(120));
    for j in [0, 1] {
        let named = halts_seen_by(&sim, &[j]);
        assert!(
            matches!(
                named.as_slice(),
                [(ServerId(2), ServerFault::WrongBlameBits { .. })]
            ),
            "server {j}: {named:?}"
        );
    }
    assert_liar_named_and_suspect_safe(&sim);
}

#[test]
fn blame_bits_replaced_after_the_suspect_is_fixed_are_equivocation() {
    let mut sim = lying_blame_session(41);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let lying: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let request_seen: Arc<Mutex<bool>> = Arc::default();
    {
        let (lying, request_seen) = (Arc::clone(&lying), Arc::clone(&request_seen));
        let mut r = rng(11);
        let key = key.clone();
        sim.set_tamper(Box::new(move |from, to, bytes| {
            if from != Party::Server(ServerId(2)) {
                return Some(bytes);
            }
            let Ok(env) = Envelope::<G>::from_bytes(&bytes) else {
                return Some(bytes);
            };
            match env.header().kind {
                Kind::BlameBits => *lying.lock().unwrap() = Some(bytes.clone()),
                Kind::RebuttalRequest if to == Party::Client(ClientId(0)) => {
                    *request_seen.lock().unwrap() = true;
                }
                Kind::Verdict => {
                    // The liar agrees with whatever convicts the suspect.
                    let mut verdict = Verdict::from_bytes(&env.payload).unwrap();
                    verdict.culprits = vec![ClientId(0)];
                    verdict.rebuttals.clear();
                    return Some(reseal(&key, &env, verdict.to_bytes(), &mut r));
                }
                _ => {}
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(1);
    let mut replaced = 0;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        if core::mem::take(&mut *request_seen.lock().unwrap()) {
            // The suspect is fixed; before its rebuttal arrives, server 2 signs the truth.
            let truth = truthful_version(&key, lying.lock().unwrap().as_ref().unwrap(), &mut r);
            for j in 0..2 {
                sim.inject(
                    Party::Server(ServerId(2)),
                    Party::Server(ServerId(j)),
                    truth.clone(),
                );
            }
            replaced += 1;
        }
    }
    assert!(replaced > 0, "blame never reached the rebuttal request");
    assert_liar_named_and_suspect_safe(&sim);
}

#[test]
fn an_early_incomplete_rebuttal_request_does_not_convict_the_suspect() {
    let mut sim = lying_blame_session(42);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let lying: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    {
        let lying = Arc::clone(&lying);
        sim.set_tamper(Box::new(move |from, _to, bytes| {
            if from == Party::Server(ServerId(2))
                && let Ok(env) = Envelope::<G>::from_bytes(&bytes)
                && env.header().kind == Kind::BlameBits
            {
                *lying.lock().unwrap() = Some(bytes.clone());
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(2);
    let mut sent = false;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        let captured = lying.lock().unwrap().take();
        if let Some(bits) = captured {
            // Server 2 asks the suspect first, showing it only a truthful copy of its own bits.
            let env = Envelope::<G>::from_bytes(&bits).unwrap();
            let truth = truthful_version(&key, &bits, &mut r);
            let early = RebuttalRequest {
                round: env.header().round,
                suspect: ClientId(0),
                bits: vec![truth],
            };
            let request = Envelope::seal(
                &key,
                Kind::RebuttalRequest,
                Party::Server(ServerId(2)),
                env.header().session,
                env.header().round,
                early.to_bytes(),
                &mut r,
            );
            sim.inject(
                Party::Server(ServerId(2)),
                Party::Client(ClientId(0)),
                request.to_bytes(),
            );
            sent = true;
        }
    }
    assert!(sent, "blame never started");
    assert_liar_named_and_suspect_safe(&sim);
}

// ------------------------------------------------------------------------------------------
// 6. A server whose verdict contradicts the evidence is at fault; the jammer does not escape.

#[test]
fn a_dissenting_verdict_is_a_server_fault() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Hybrid(Verification::Eager)),
        3,
        6,
        quiet_net(),
        46,
    )
    .unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(4),
        from_round: 1,
    });
    // Server 1 signs "nobody is to blame" whatever the evidence, and acts on it.
    sim.add_adversary(Adversary::DissentingServer {
        server: ServerId(1),
    });
    sim.run_rounds(8, Duration::from_secs(200));
    let halts = halts_seen_by(&sim, &[0, 2]);
    let jammer_out = [0, 2]
        .iter()
        .all(|&j| excluded_by(&sim, j) == vec![ClientId(4)]);
    assert!(
        !halts.is_empty() || jammer_out,
        "the jammer was shielded and nobody was named"
    );
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(1), "{fault:?}");
    }
    for j in [0, 2] {
        for c in excluded_by(&sim, j) {
            assert_eq!(c, ClientId(4), "server {j} excluded an honest client");
        }
    }
}
