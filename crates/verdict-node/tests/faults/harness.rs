//! The harness: a group generated with the library (as `verdict local` does), each member
//! spawned as a `verdict` process, every PID tracked and killed on drop, every wait bounded.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Parser;
use verdict_node::local::LocalArgs;

pub const EXE: &str = env!("CARGO_BIN_EXE_verdict");

/// One member's line of output.
pub struct Line {
    pub who: String,
    pub value: serde_json::Value,
}

pub struct Member {
    pub name: String,
    pub child: Child,
    pub stdin: Option<ChildStdin>,
}

/// A group of processes, all killed on drop.
pub struct Group {
    pub dir: PathBuf,
    pub group: PathBuf,
    pub members: Vec<Member>,
    tx: mpsc::Sender<Line>,
    rx: mpsc::Receiver<Line>,
    /// Every line received so far.
    pub seen: Vec<Line>,
    pub servers: usize,
}

impl Drop for Group {
    fn drop(&mut self) {
        for m in &mut self.members {
            let _ = m.child.kill();
            let _ = m.child.wait();
        }
        if std::thread::panicking() {
            // A failed test keeps its members' logs (`<member>.log`) for a look.
            eprintln!("logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub fn args(servers: usize, clients: usize, server_timeout: u64, window_ms: u64) -> LocalArgs {
    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: LocalArgs,
    }
    Wrap::parse_from([
        "t".to_string(),
        format!("--servers={servers}"),
        format!("--clients={clients}"),
        format!("--server-timeout-s={server_timeout}"),
        format!("--window-ms={window_ms}"),
    ])
    .args
}

impl Group {
    pub fn new(name: &str, servers: usize, clients: usize, server_timeout: u64) -> Self {
        Self::with_window(name, servers, clients, server_timeout, 2000)
    }

    pub fn with_window(
        name: &str,
        servers: usize,
        clients: usize,
        server_timeout: u64,
        window_ms: u64,
    ) -> Self {
        Self::build(
            name,
            servers,
            clients,
            server_timeout,
            window_ms,
            true,
            &|_| Vec::new(),
        )
    }

    /// The group's files and servers (server `j` with the extra arguments `server_args(j)`);
    /// its clients too if `spawn_clients`.
    pub fn build(
        name: &str,
        servers: usize,
        clients: usize,
        server_timeout: u64,
        window_ms: u64,
        spawn_clients: bool,
        server_args: &dyn Fn(usize) -> Vec<std::ffi::OsString>,
    ) -> Self {
        let dir = std::env::temp_dir().join(format!("verdict-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let group =
            verdict_node::local::generate(&dir, &args(servers, clients, server_timeout, window_ms))
                .expect("generate group");
        let (tx, rx) = mpsc::channel();
        let mut g = Self {
            dir,
            group,
            members: Vec::new(),
            tx,
            rx,
            seen: Vec::new(),
            servers,
        };
        for j in 0..servers {
            g.spawn_server_with(j, server_args(j));
        }
        if spawn_clients {
            for i in 0..clients {
                g.spawn_client(i);
            }
        }
        g
    }

    pub fn spawn(&mut self, name: String, args: Vec<std::ffi::OsString>) {
        let log = std::fs::File::create(self.dir.join(format!("{name}.log"))).unwrap();
        let mut child = Command::new(EXE)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("spawn verdict");
        let out = child.stdout.take().unwrap();
        let tx = self.tx.clone();
        let who = name.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(value) = serde_json::from_str(&l) {
                    let _ = tx.send(Line {
                        who: who.clone(),
                        value,
                    });
                }
            }
        });
        let stdin = child.stdin.take();
        self.members.push(Member { name, child, stdin });
    }

    pub fn spawn_server(&mut self, j: usize) {
        self.spawn_server_with(j, Vec::new());
    }

    pub fn spawn_server_with(&mut self, j: usize, extra: Vec<std::ffi::OsString>) {
        let mut args = self.member_args("server", &format!("s{j}"), self.data(j));
        // Port 0: the server reports the address it bound (`{"event": "metrics"}`).
        args.push("--metrics=127.0.0.1:0".into());
        args.extend(extra);
        self.spawn(format!("s{j}"), args);
    }

    pub fn spawn_client(&mut self, i: usize) {
        self.spawn_client_with(i, Vec::new());
    }

    pub fn spawn_client_with(&mut self, i: usize, extra: Vec<std::ffi::OsString>) {
        // Every client keeps its restart state (a restarted one resumes from it).
        let mut args = self.member_args("client", &format!("c{i}"), self.dir.join(format!("c{i}")));
        args.extend(extra);
        self.spawn(format!("c{i}"), args);
    }

    /// `verdict <role> --group G --key <name>.key --data <data>`.
    fn member_args(&self, role: &str, name: &str, data: PathBuf) -> Vec<std::ffi::OsString> {
        vec![
            role.into(),
            "--group".into(),
            self.group.clone().into(),
            "--key".into(),
            self.dir.join(format!("{name}.key")).into(),
            "--data".into(),
            data.into(),
        ]
    }

    pub fn data(&self, j: usize) -> PathBuf {
        self.dir.join(format!("s{j}"))
    }

    pub fn member(&mut self, name: &str) -> &mut Member {
        self.members.iter_mut().find(|m| m.name == name).unwrap()
    }

    pub fn say(&mut self, client: usize, message: &str) {
        let m = self.member(&format!("c{client}"));
        let stdin = m.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// SIGKILLs member `name` (it may be spawned again under the same name).
    pub fn kill(&mut self, name: &str) {
        let at = self.members.iter().position(|m| m.name == name).unwrap();
        let mut m = self.members.remove(at);
        m.child.kill().unwrap();
        m.child.wait().unwrap();
    }

    /// Waits until `f` accepts a line, looking at every line seen so far first, at most
    /// `limit`; returns the line's JSON.
    pub fn wait_for(
        &mut self,
        limit: Duration,
        mut f: impl FnMut(&Line) -> bool,
    ) -> Option<serde_json::Value> {
        if let Some(l) = self.seen.iter().find(|l| f(l)) {
            return Some(l.value.clone());
        }
        let until = Instant::now() + limit;
        loop {
            let left = until.checked_duration_since(Instant::now())?;
            let l = self.rx.recv_timeout(left).ok()?;
            let hit = f(&l);
            let value = l.value.clone();
            self.seen.push(l);
            if hit {
                return Some(value);
            }
        }
    }

    pub fn server_ports(&self) -> Vec<std::net::SocketAddr> {
        let file = verdict_node::groupfile::GroupFile::read(&self.group).unwrap();
        file.servers.iter().map(|s| s.addr).collect()
    }
}

/// Fetches `GET /metrics` from `addr` and returns the value of metric `name`.
pub fn event(l: &Line) -> &str {
    l.value["event"].as_str().unwrap_or_default()
}

/// Waits until client `who` has seen every message in `messages` delivered.
pub fn all_delivered(g: &mut Group, who: &str, messages: &[String], limit: Duration) -> bool {
    let mut missing: std::collections::BTreeSet<&str> =
        messages.iter().map(String::as_str).collect();
    g.wait_for(limit, |l| {
        if l.who == who && event(l) == "delivered" {
            missing.remove(l.value["message"].as_str().unwrap_or_default());
        }
        missing.is_empty()
    })
    .is_some()
}

/// The last round `who` reported completing, waiting up to `limit` for one.
pub fn last_round(g: &mut Group, who: &str, limit: Duration) -> u64 {
    g.wait_for(limit, |l| l.who == who && event(l) == "round")
        .expect("a round");
    g.seen
        .iter()
        .filter(|l| l.who == who && event(l) == "round")
        .filter_map(|l| l.value["round"].as_u64())
        .max()
        .unwrap()
}

/// Nobody was excluded, no server halted, and no verdict named anyone, at any member.
pub fn assert_nobody_named(g: &Group) {
    let named: Vec<_> = g
        .seen
        .iter()
        .filter(|l| {
            matches!(event(l), "excluded" | "halted")
                || (event(l) == "verdict" && !l.value["culprit"].is_null())
        })
        .map(|l| l.value.clone())
        .collect();
    assert!(named.is_empty(), "{named:?}");
}
