//! Set-up over real processes: a client restarted in set-up after its transcript was lost.

use std::time::Duration;

use crate::harness::{Group, all_delivered, assert_nobody_named, event};

/// Server 0 loses the set-up transcript it sends c0 (`--lose-transcript-to`), as if c0's
/// connection had died with it, so c0 sits in set-up while the others run rounds. c0 is
/// SIGKILLed and restarted from its data directory (only its set-up seed is on disk): it sends
/// its set-up message anew, s0 answers with the transcript, and c0 takes part — its message
/// comes out at everyone, and nobody is named. (Before servers answered late set-up
/// messages, the restarted c0 waited out the set-up deadline and gave up.)
#[test]
fn a_client_restarted_in_setup_gets_the_lost_transcript() {
    let lose = |j: usize| match j {
        0 => vec!["--lose-transcript-to=0".into()],
        _ => Vec::new(),
    };
    let mut g = Group::build("setup-lost", 3, 3, 15, 1000, true, &lose);
    let first = g.wait_for(Duration::from_secs(120), |l| {
        l.who == "c1" && event(l) == "round"
    });
    assert!(first.is_some(), "no round without c0");
    assert!(
        !g.seen
            .iter()
            .any(|l| l.who == "c0" && event(l) == "setup_complete"),
        "the transcript was not lost"
    );
    g.kill("c0");
    g.spawn_client(0);
    let restarted = g.wait_for(Duration::from_secs(30), |l| {
        l.who == "c0" && event(l) == "restarted" && l.value["phase"] == "setup"
    });
    assert!(restarted.is_some(), "c0 did not restart in set-up");
    let setup = g
        .wait_for(Duration::from_secs(60), |l| {
            l.who == "c0" && event(l) == "setup_complete"
        })
        .expect("c0 never got the transcript");
    assert!(setup["own_slot"].is_u64(), "{setup}");
    g.say(0, "after the lost transcript");
    for c in ["c0", "c1", "c2"] {
        assert!(
            all_delivered(
                &mut g,
                c,
                &["after the lost transcript".into()],
                Duration::from_secs(90)
            ),
            "{c} did not get c0's message"
        );
    }
    assert_nobody_named(&g);
}
