//! A hybrid-mode Verdict session with a disruptor, narrated: 3 servers, 10 clients, messages in
//! XOR slots, and client 7 jamming every slot from round 2 on. The owners of the corrupted
//! slots accuse anonymously through their verifiable slots, the servers trace the corruption to
//! client 7, all sign the verdict, exclude it, and messages flow again.
//!
//! `cargo run -p verdict-proto --features adversary --example hybrid_jammer` (also
//! `cargo xtask demo`; the jammer is one of the simulator's adversaries, a cargo feature).

use core::time::Duration;
use std::error::Error;

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::{
    ClientId, Event, ExclusionReason, Mode, Party, Policy, ServerId, Verification, WindowPolicy,
};

type Hg = HashingGenerator<Ristretto255>;

const SERVERS: usize = 3;
const CLIENTS: usize = 10;
const JAMMER: ClientId = ClientId(7);
const JAM_FROM: u64 = 2;
const ROUNDS: u64 = 8;

/// Who posts what before each round (client, text); the text names its round so the output
/// shows when it got through.
fn posts(round: u64) -> Vec<(usize, String)> {
    match round {
        0 => vec![(0, "hello from an anonymous member".into())],
        1 => vec![
            (3, "meeting moved to thursday".into()),
            (5, "anyone else see the report?".into()),
        ],
        2 => vec![(1, "sent while the jammer is active".into())],
        4 => vec![(9, "is the channel clear again?".into())],
        5 => vec![(2, "yes: the disruptor is gone".into())],
        _ => Vec::new(),
    }
}

/// Accusations (kind 0) or verdicts (kind 1) of one round, with the slots, collected into one
/// line: (kind, round, culprit, slots, time of the first).
type Pending = (u8, u64, Option<Party>, Vec<u32>, Duration);

fn pending_line((kind, round, culprit, slots, at): &Pending) -> String {
    let slots: Vec<String> = slots.iter().map(u32::to_string).collect();
    let (s, slots) = (if slots.len() > 1 { "s" } else { "" }, slots.join(", "));
    let line = match (kind, culprit) {
        (0, _) => format!(
            "ACCUSATION: the owner{s} of XOR slot{s} {slots} report{} round {round}'s output \
             corrupted; blame starts",
            if s.is_empty() { "s" } else { "" }
        ),
        (_, Some(p)) => {
            format!(
                "VERDICT (signed by all {SERVERS} servers): {p} disrupted slot{s} {slots} of round {round}"
            )
        }
        _ => String::new(),
    };
    format!("{:>8.3} s  {line}", at.as_secs_f64())
}

/// What one server's event means, in a line (`None`: not worth printing).
fn describe(event: &Event) -> Option<String> {
    Some(match event {
        Event::SetupComplete { slots, .. } => format!("set-up complete: {slots} slots shuffled"),
        Event::RoundComplete {
            round,
            participants,
        } => format!("round {round} certified by all servers ({participants} clients)"),
        Event::Delivered {
            round,
            slot,
            message,
        } => format!(
            "  round {round}, slot {slot}: \"{}\"",
            String::from_utf8_lossy(message)
        ),
        Event::Accusation(a) => format!(
            "ACCUSATION: the owner of XOR slot {} reports its round-{} output corrupted \
             (bit {}); blame starts",
            a.slot, a.round, a.bit
        ),
        Event::Verdict {
            accusation,
            culprit,
        } => match culprit {
            Some(p) => format!(
                "VERDICT (signed by all {SERVERS} servers): {p} disrupted slot {} of round {}",
                accusation.slot, accusation.round
            ),
            None => "VERDICT: accusation unfounded".to_owned(),
        },
        Event::Excluded { client, reason, .. } => {
            let why = match reason {
                ExclusionReason::Disruption { round, slot } => {
                    format!("disrupted slot {slot} in round {round}")
                }
                ExclusionReason::InvalidProof { round, slot } => {
                    format!("invalid proof in slot {slot}, round {round}")
                }
                ExclusionReason::DoubleSubmission { round } => {
                    format!("two different submissions in round {round}")
                }
                _ => "misbehaviour".to_owned(),
            };
            format!("EXCLUDED: {client} ({why}); later rounds go on without it")
        }
        Event::Halted { server, fault, .. } => format!("HALTED: {server} misbehaved: {fault:?}"),
        _ => return None,
    })
}

/// Runs the session and prints it; returns the number of messages delivered after the
/// jammer's exclusion.
fn narrate() -> Result<usize, Box<dyn Error>> {
    let policy = Policy {
        mode: Mode::Hybrid(Verification::Eager),
        default_len: 64,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        rebuttal_timeout: Duration::from_secs(1),
        ..Policy::default()
    };
    let network = Network::default();
    let mut sim = Simulator::<Hg>::new(policy, SERVERS, CLIENTS, network, 2013)?;
    sim.add_adversary(Adversary::JammingClient {
        client: JAMMER,
        from_round: JAM_FROM,
    });
    println!(
        "Verdict, hybrid mode: {SERVERS} servers, {CLIENTS} clients, links {:?}; \
         {JAMMER} jams every XOR slot from round {JAM_FROM} on\n",
        network.latency
    );
    // Server 0's view is everybody's: all servers certify the same outputs and verdicts.
    let narrator = Party::Server(ServerId(0));
    let mut printed = 0;
    let mut pending: Option<Pending> = None;
    let mut excluded = false;
    let mut after_exclusion = 0;
    for round in 0..ROUNDS {
        for (client, text) in posts(round) {
            println!("[post] client {client} queues \"{text}\"");
            sim.submit(client, text.into_bytes())?;
        }
        sim.run_rounds(round + 1, Duration::from_secs(600));
        for (at, who, event) in &sim.events[printed..] {
            if *who != narrator {
                continue;
            }
            match event {
                Event::Excluded { client, .. } if *client == JAMMER => excluded = true,
                Event::Delivered { .. } if excluded => after_exclusion += 1,
                _ => {}
            }
            // One blame traces every accusation of its round: say so once, with all the slots.
            let group = match event {
                Event::Accusation(a) => Some((0, a.round, None, a.slot)),
                Event::Verdict {
                    accusation,
                    culprit: Some(p),
                } => Some((1, accusation.round, Some(*p), accusation.slot)),
                _ => None,
            };
            match (group, &mut pending) {
                (Some((kind, round, culprit, slot)), Some(p))
                    if p.0 == kind && p.1 == round && p.2 == culprit =>
                {
                    p.3.push(slot);
                    continue;
                }
                _ => {
                    if let Some(p) = pending.take() {
                        println!("{}", pending_line(&p));
                    }
                }
            }
            if let Some((kind, round, culprit, slot)) = group {
                pending = Some((kind, round, culprit, vec![slot], *at));
                continue;
            }
            if let Some(line) = describe(event) {
                println!("{:>8.3} s  {line}", at.as_secs_f64());
            }
            if matches!(event, Event::SetupComplete { .. }) {
                // Each client learns only its own slot; the simulator sees them all.
                let slots: Vec<String> = (0..CLIENTS)
                    .filter_map(|i| Some(format!("{i}->{}", sim.client(i)?.slot()?)))
                    .collect();
                if !slots.is_empty() {
                    println!("            slots (client->slot): {}", slots.join(" "));
                }
            }
        }
        if let Some(p) = pending.take() {
            println!("{}", pending_line(&p));
        }
        printed = sim.events.len();
    }
    if excluded {
        println!("\n{JAMMER} traced and excluded; {after_exclusion} messages delivered since.");
    } else {
        println!("\n{JAMMER} was not excluded within {ROUNDS} rounds.");
    }
    Ok(after_exclusion)
}

fn main() -> Result<(), Box<dyn Error>> {
    narrate().map(|_| ())
}
