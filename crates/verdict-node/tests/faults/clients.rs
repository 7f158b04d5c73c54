//! Ways clients run: many in one process (`verdict clients`), posting through a local socket.

use std::time::{Duration, Instant};

use crate::harness::{Group, all_delivered, event};

/// `verdict clients` runs several clients in one process (the loopback benchmark's client
/// hosts): they set up with one shared verification, and with `--load` every client keeps a
/// message queued, so every round delivers each client's posts.
#[test]
fn many_clients_in_one_process_post_under_load() {
    let mut g = Group::build("host", 3, 4, 15, 2000, false, &|_| Vec::new());
    let (group, dir) = (g.group.clone(), g.dir.clone());
    g.spawn(
        "host".into(),
        vec![
            "clients".into(),
            "--group".into(),
            group.into(),
            "--key-dir".into(),
            dir.into(),
            "--first=0".into(),
            "--count=4".into(),
            "--load=40".into(),
        ],
    );
    // The first client prints events: posts of all four clients come out.
    let mut from = std::collections::BTreeSet::new();
    let all = g.wait_for(Duration::from_secs(60), |l| {
        if l.who == "host" && event(l) == "delivered" {
            let m = l.value["message"].as_str().unwrap_or_default();
            if let Some(c) = m.strip_prefix("load ").and_then(|r| r.split(' ').next()) {
                from.insert(c.to_string());
            }
        }
        from.len() == 4
    });
    assert!(all.is_some(), "posts came only from {from:?}");
}

/// An application posts through a client's local socket: each line is a message, answered
/// with whether it was queued; an over-long line is refused and the connection goes on.
#[test]
fn messages_posted_through_the_local_socket_are_delivered() {
    use std::io::{BufRead, Write};
    let mut g = Group::build("socket", 3, 3, 15, 2000, false, &|_| Vec::new());
    let path = g.dir.join("c0.sock");
    g.spawn_client_with(0, vec!["--socket".into(), path.clone().into()]);
    g.spawn_client(1);
    g.spawn_client(2);
    let until = Instant::now() + Duration::from_secs(20);
    let stream = loop {
        match std::os::unix::net::UnixStream::connect(&path) {
            Ok(s) => break s,
            Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("no socket at {}: {e}", path.display()),
        }
    };
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    let mut r = std::io::BufReader::new(stream);
    let long = "x".repeat(1 << 20);
    write!(w, "{long}\nvia the socket\n").unwrap();
    w.flush().unwrap();
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    assert_eq!(answers[0]["queued"], false, "{answers:?}");
    assert!(answers[0]["error"].as_str().unwrap().contains("too long"));
    assert_eq!(answers[1]["queued"], true, "{answers:?}");
    for c in ["c0", "c1", "c2"] {
        assert!(
            all_delivered(
                &mut g,
                c,
                &["via the socket".into()],
                Duration::from_secs(60)
            ),
            "{c}"
        );
    }
}
