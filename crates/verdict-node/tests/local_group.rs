//! Real processes over loopback: `verdict local` spawns every member as a `verdict` process on
//! 127.0.0.1; these tests run it and check its verdict, each bounded by a timeout, the process
//! tracked by PID and killed (SIGTERM, then SIGKILL) on drop so no child outlives a test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Tracked(Child);

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            // SIGTERM first: `verdict local` then kills its own children.
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(self.0.id().to_string())
                .status();
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.0.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Runs `verdict local ARGS --quiet` to completion within `limit`; returns (success, stdout).
fn local(args: &[&str], limit: Duration) -> (bool, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .arg("local")
        .args(args)
        .args(["--quiet", "--timeout-s", &limit.as_secs().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn verdict");
    let mut tracked = Tracked(child);
    let deadline = Instant::now() + limit + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = tracked.0.try_wait().expect("wait") {
            break Some(s);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    if let Some(mut o) = tracked.0.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    (status.is_some_and(|s| s.success()), out)
}

fn delivers_everything(mode: &str) {
    let (ok, out) = local(
        &[
            "--servers",
            "3",
            "--clients",
            "8",
            "--rounds",
            "2",
            "--mode",
            mode,
        ],
        Duration::from_secs(90),
    );
    assert!(ok, "verdict local failed in {mode} mode:\n{out}");
    assert!(
        out.contains("8 clients each received 16 distinct messages of 16 sent, 0 duplicates"),
        "{out}"
    );
}

#[test]
fn three_servers_eight_clients_eager() {
    delivers_everything("eager");
}

#[test]
fn three_servers_eight_clients_lazy() {
    delivers_everything("lazy");
}

#[test]
fn three_servers_eight_clients_hybrid() {
    delivers_everything("hybrid");
}

#[test]
fn a_jammer_is_traced_and_excluded_and_messages_flow_again() {
    let (ok, out) = local(
        &[
            "--servers",
            "3",
            "--clients",
            "8",
            "--rounds",
            "2",
            "--mode",
            "hybrid",
            "--jammer",
            "1",
        ],
        Duration::from_secs(120),
    );
    assert!(ok, "verdict local with a jammer failed:\n{out}");
    assert!(
        out.contains("\"client\":\"client 7\",\"event\":\"excluded\""),
        "{out}"
    );
    assert!(
        out.contains("jammers traced and excluded: client 7"),
        "{out}"
    );
    assert!(
        out.contains("7 clients each received 14 distinct messages of 14 sent, 0 duplicates"),
        "{out}"
    );
}

#[test]
fn set_up_goes_on_without_absent_clients_and_tells_the_late_ones() {
    // Clients 5 and 6 start only after the others are set up: set-up closes at its 3 s
    // deadline without them, the five present clients exchange every message, and each late
    // client learns from its server's set-up transcript that it is out.
    let (ok, out) = local(
        &[
            "--servers",
            "3",
            "--clients",
            "7",
            "--absent",
            "2",
            "--setup-window-s",
            "3",
            "--rounds",
            "2",
        ],
        Duration::from_secs(120),
    );
    assert!(ok, "verdict local with absent clients failed:\n{out}");
    for late in [5, 6] {
        assert!(
            out.contains(&format!("client {late} (late): set-up went on without it")),
            "{out}"
        );
    }
    assert!(
        out.contains("5 clients each received 10 distinct messages of 10 sent, 0 duplicates"),
        "{out}"
    );
    assert!(!out.contains("\"event\":\"excluded\""), "{out}");
}
