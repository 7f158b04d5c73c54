//! Clients moving to another upstream server: one its upstream censors, one it cuts off.

use std::time::Duration;

use crate::harness::{Group, all_delivered, assert_nobody_named, event};

/// Waits for client c0 to move to server 1 for `reason`, posts `message` from it, and checks
/// that c0 and client `other` see it delivered, that nobody is blamed, and that c0 moved once
/// (the rounds it then catches up on, each of which left it out, must not move it again).
fn moves_once_and_gets_through(g: &mut Group, reason: &str, message: &str, other: &str) {
    // Set-up, then two rounds (or 10 s of link down): far less than this unless the machine
    // is crowded (the bound is a limit, not an expectation).
    let moved = g
        .wait_for(Duration::from_secs(120), |l| {
            l.who == "c0" && event(l) == "moved_upstream"
        })
        .expect("c0 never moved");
    assert_eq!(
        (moved["from"].as_u64(), moved["to"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(moved["reason"], reason);
    g.say(0, message);
    for who in ["c0", other] {
        assert!(
            all_delivered(g, who, &[message.into()], Duration::from_secs(60)),
            "{who} never saw c0's message"
        );
    }
    assert_nobody_named(g);
    let moves = g
        .seen
        .iter()
        .filter(|l| l.who == "c0" && event(l) == "moved_upstream")
        .count();
    assert_eq!(moves, 1);
}

/// Server 0 drops every submission of its client c0 (a censoring server cannot be named:
/// nothing c0 holds proves it sent anything). After two certified rounds that leave it out,
/// c0 moves to server 1, and its message comes out everywhere; nobody is excluded.
#[test]
fn a_client_its_upstream_censors_moves_to_another_server_and_gets_through() {
    let censor = |j: usize| match j {
        0 => vec!["--censor-client=0".into()],
        _ => Vec::new(),
    };
    let mut g = Group::build("censor", 3, 4, 15, 1000, true, &censor);
    moves_once_and_gets_through(&mut g, "left_out", "through another server", "c1");
}

/// Server 0 cuts its client c0 off from round 2 on (drops its link, refuses its connections).
/// After its link has stayed down for 10 s, c0 moves to server 1, catches up, and its message
/// comes out; nobody is excluded or named.
#[test]
fn a_client_cut_off_by_its_upstream_moves_to_another_server() {
    let cut = |j: usize| match j {
        0 => vec!["--cut-client=0:2".into()],
        _ => Vec::new(),
    };
    let mut g = Group::build("cut", 3, 4, 30, 1000, true, &cut);
    moves_once_and_gets_through(&mut g, "link_down", "over a new link", "c2");
}
