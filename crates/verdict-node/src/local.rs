//! `verdict local`: a whole group on 127.0.0.1, every member a real `verdict` process.
//!
//! Keys and the group file go to a fresh temporary directory; servers and clients are spawned
//! from the current executable with `--watch-parent` (they stop if this process dies) and
//! `kill_on_drop`; their PIDs are tracked and every child is killed on exit, on Ctrl-C or
//! SIGTERM. Each client is given `--rounds` messages on stdin; the run ends once every client
//! has seen every message, and checks that each was delivered exactly once to each client.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::error::NodeError;
use crate::groupfile::{AddRole, GroupFile};
use crate::keyfile::KeyFile;
use crate::policy_args::{ModeChoice, PolicyArgs};
use crate::suite::SuiteChoice;
use crate::with_suite;

/// Options of `verdict local`.
#[derive(Clone, Debug, Args)]
pub struct LocalArgs {
    /// Number of servers.
    #[arg(long, default_value_t = 3)]
    pub servers: usize,
    /// Number of clients.
    #[arg(long, default_value_t = 16)]
    pub clients: usize,
    /// Messages each client sends (one per round at most).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// The ciphersuite.
    #[arg(long, value_enum, default_value = "hashing")]
    pub suite: SuiteChoice,
    /// Verification mode (hybrid: messages in XOR slots, the paper's fast path).
    #[arg(long, value_enum, default_value = "hybrid")]
    pub mode: ModeChoice,
    /// The last K clients jam every XOR slot from round 1 on (hybrid mode): watch them be
    /// traced and excluded while everyone else's messages still arrive.
    #[arg(long, default_value_t = 0)]
    pub jammer: usize,
    /// The last K clients stay away during set-up and start only once the others are set up:
    /// set-up goes on without them at its deadline, and each late one is told it is out.
    #[arg(long, default_value_t = 0)]
    pub absent: usize,
    /// The set-up window: servers wait this long for their clients' set-up messages.
    #[arg(long, default_value_t = 20)]
    pub setup_window_s: u64,
    /// A silent server is declared unresponsive after this many seconds.
    #[arg(long, default_value_t = 15)]
    pub server_timeout_s: u64,
    /// A round's submission window closes when every client submitted or after this long.
    #[arg(long, default_value_t = 2000)]
    pub window_ms: u64,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 300)]
    pub timeout_s: u64,
    /// Keep the temporary directory (keys, group file, logs, histories).
    #[arg(long)]
    pub keep: bool,
    /// No progress bar (plain lines, for logs and tests).
    #[arg(long)]
    pub quiet: bool,
}

impl LocalArgs {
    /// The group's policy.
    pub fn policy(&self) -> verdict_proto::Policy {
        PolicyArgs {
            suite: self.suite,
            mode: self.mode,
            window_ms: self.window_ms,
            setup_window_s: self.setup_window_s,
            server_timeout_s: self.server_timeout_s,
        }
        .policy()
    }
}

/// The children, killed on drop.
struct Children {
    procs: Vec<(String, Child)>,
}

impl Children {
    async fn kill_all(&mut self) {
        for (name, c) in &mut self.procs {
            if let Some(pid) = c.id() {
                tracing::debug!(%name, pid, "stopping");
            }
            let _ = c.start_kill();
        }
        for (_, c) in &mut self.procs {
            let _ = tokio::time::timeout(Duration::from_secs(5), c.wait()).await;
        }
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, c) in &mut self.procs {
            let _ = c.start_kill();
        }
    }
}

/// Ports for the `n` servers of a local group, chosen below the kernel's ephemeral port range.
///
/// A port is free only until its server binds it, and the servers start later, in other
/// processes. A port from the ephemeral range (what binding port 0 gives) can be handed in the
/// meantime to any outgoing connection on the machine — another group's clients dialling, say
/// — and the server then fails to start. Below that range the kernel never hands a port out by
/// itself, so only another process choosing it explicitly can take it.
fn free_ports(n: usize) -> Result<Vec<u16>, NodeError> {
    use rand_core::RngCore;
    const FLOOR: u16 = 10_000;
    let low = ephemeral_low().unwrap_or(32_768);
    // Hold every listener until all ports are known, so the n ports are distinct.
    let mut held = Vec::with_capacity(n);
    if low > FLOOR + 1_000 {
        let span = u32::from(low - FLOOR);
        for _ in 0..n.saturating_mul(50) {
            if held.len() == n {
                break;
            }
            let port = FLOOR + (rand_core::OsRng.next_u32() % span) as u16;
            if let Ok(l) = std::net::TcpListener::bind(("127.0.0.1", port)) {
                held.push(l);
            }
        }
    }
    while held.len() < n {
        // No room below the range (or no luck): any free port.
        let l = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| NodeError::Net(format!("no free port: {e}")))?;
        held.push(l);
    }
    held.iter()
        .map(|l| {
            l.local_addr()
                .map(|a| a.port())
                .map_err(|e| NodeError::Net(e.to_string()))
        })
        .collect()
}

/// The low end of the kernel's ephemeral port range (Linux), if known.
fn ephemeral_low() -> Option<u16> {
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    range.split_whitespace().next()?.parse().ok()
}

/// Writes keys and a sealed group for `args` into `dir`.
pub fn generate(dir: &Path, args: &LocalArgs) -> Result<PathBuf, NodeError> {
    std::fs::create_dir_all(dir).map_err(NodeError::io(dir))?;
    let policy = args.policy();
    let mut rng = rand_core::OsRng;
    let mut file = GroupFile::new(args.suite, &policy, &mut rng);
    let ports = free_ports(args.servers)?;
    let add = |file: &mut GroupFile, name: String, role: AddRole| -> Result<(), NodeError> {
        let path = dir.join(format!("{name}.key"));
        let key = KeyFile::generate(&mut rand_core::OsRng);
        key.write(&path)?;
        with_suite!(file.suite, S => file.add::<S, _>(&key, role, &mut rand_core::OsRng))
            .map_err(|e| NodeError::bad_file(&path, e))?;
        Ok(())
    };
    for (j, port) in ports.iter().enumerate() {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], *port));
        add(&mut file, format!("s{j}"), AddRole::Server(addr))?;
    }
    for i in 0..args.clients {
        add(
            &mut file,
            format!("c{i}"),
            AddRole::Client((i % args.servers.max(1)) as u32),
        )?;
    }
    let path = dir.join("group.toml");
    with_suite!(file.suite, S => file.seal::<S>()).map_err(|e| NodeError::bad_file(&path, e))?;
    file.write(&path)?;
    Ok(path)
}

/// The `k`-th message of client `i`.
fn message(k: usize, i: usize) -> String {
    format!("message {k} from member {i}")
}

/// A line a child printed, parsed.
struct Line {
    client: usize,
    value: serde_json::Value,
}

fn spawn(
    exe: &Path,
    args: &[&std::ffi::OsStr],
    log: &Path,
    stdin: bool,
) -> Result<Child, NodeError> {
    let err = std::fs::File::create(log).map_err(NodeError::io(log))?;
    Command::new(exe)
        .args(args)
        .arg("--watch-parent")
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(err)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| NodeError::Net(format!("spawn {}: {e}", exe.display())))
}

/// Runs `verdict local`.
pub async fn run(args: LocalArgs) -> Result<(), NodeError> {
    let present = args.clients.saturating_sub(args.absent);
    if args.servers == 0 || present < 2 || args.jammer + 1 >= present {
        return Err(NodeError::Usage(
            "need at least one server, two clients present at set-up, and an honest present \
             client besides the jammers"
                .into(),
        ));
    }
    if args.jammer > 0 && args.mode != ModeChoice::Hybrid {
        return Err(NodeError::Usage(
            "a jammer corrupts XOR slots: it needs --mode hybrid".into(),
        ));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!("verdict-local-{}-{nanos}", std::process::id()));
    let group = generate(&dir, &args)?;
    println!("group in {}", dir.display());
    let result = run_group(&dir, &group, &args).await;
    if args.keep || result.is_err() {
        println!("kept {} (keys, group file, logs, histories)", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

async fn run_group(dir: &Path, group: &Path, args: &LocalArgs) -> Result<(), NodeError> {
    let exe = std::env::current_exe().map_err(NodeError::io("current executable"))?;
    let mut children = Children { procs: Vec::new() };
    let (tx, mut rx) = mpsc::channel::<Line>(4096);
    for j in 0..args.servers {
        let key = dir.join(format!("s{j}.key"));
        let data = dir.join(format!("s{j}"));
        let a: [&std::ffi::OsStr; 7] = [
            "server".as_ref(),
            "--group".as_ref(),
            group.as_os_str(),
            "--key".as_ref(),
            key.as_os_str(),
            "--data".as_ref(),
            data.as_os_str(),
        ];
        let mut child = spawn(&exe, &a, &dir.join(format!("s{j}.log")), false)?;
        // Server stdout (events) is drained so the child never blocks on a full pipe.
        if let Some(out) = child.stdout.take() {
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(out).lines();
                while let Ok(Some(_)) = lines.next_line().await {}
            });
        }
        children.procs.push((format!("s{j}"), child));
    }
    let present = args.clients - args.absent;
    let honest = present - args.jammer;
    let spawn_client =
        |i: usize, children: &mut Children, tx: &mpsc::Sender<Line>| -> Result<(), NodeError> {
            let key = dir.join(format!("c{i}.key"));
            let data = dir.join(format!("c{i}"));
            let jams = (honest..present).contains(&i);
            let mut a: Vec<&std::ffi::OsStr> = vec![
                "client".as_ref(),
                "--group".as_ref(),
                group.as_os_str(),
                "--key".as_ref(),
                key.as_os_str(),
                "--data".as_ref(),
                data.as_os_str(),
            ];
            if jams {
                a.extend([
                    std::ffi::OsStr::new("--jam-from-round"),
                    std::ffi::OsStr::new("1"),
                ]);
            }
            let mut child = spawn(&exe, &a, &dir.join(format!("c{i}.log")), true)?;
            if let Some(mut stdin) = child.stdin.take().filter(|_| !jams) {
                let rounds = args.rounds;
                tokio::spawn(async move {
                    for k in 0..rounds {
                        let line = format!("{}\n", message(k, i));
                        if stdin.write_all(line.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                    // Keep stdin open: EOF is not a reason for a client to leave.
                    std::future::pending::<()>().await;
                    drop(stdin);
                });
            }
            if let Some(out) = child.stdout.take() {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(out).lines();
                    while let Ok(Some(l)) = lines.next_line().await {
                        if let Ok(value) = serde_json::from_str(&l)
                            && tx.send(Line { client: i, value }).await.is_err()
                        {
                            return;
                        }
                    }
                });
            }
            children.procs.push((format!("c{i}"), child));
            Ok(())
        };
    for i in 0..present {
        spawn_client(i, &mut children, &tx)?;
    }
    // Kept until the absent clients are spawned (once the others are set up); then every
    // sender is a child's reader, and a closed channel means every client exited.
    let mut late_tx = Some(tx);
    let pids: Vec<String> = children
        .procs
        .iter()
        .map(|(n, c)| format!("{n}={}", c.id().unwrap_or(0)))
        .collect();
    println!("spawned {}", pids.join(" "));
    let expected: std::collections::BTreeSet<String> = (0..honest)
        .flat_map(|i| (0..args.rounds).map(move |k| message(k, i)))
        .collect();
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new((expected.len() * honest) as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} deliveries {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("set-up");
    let mut seen: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); honest];
    let mut traced: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let jammers: std::collections::BTreeSet<String> =
        (honest..present).map(|i| format!("client {i}")).collect();
    let absent: Vec<String> = (present..args.clients)
        .map(|i| format!("client {i}"))
        .collect();
    if absent.is_empty() {
        late_tx = None;
    }
    let mut told_out: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
    let mut ready = 0usize;
    let mut round = 0u64;
    let deadline = tokio::time::sleep(Duration::from_secs(args.timeout_s));
    tokio::pin!(deadline);
    let shutdown = crate::shutdown::shutdown_signal(false);
    tokio::pin!(shutdown);
    let outcome = loop {
        let done = seen
            .iter()
            .all(|s| expected.iter().all(|m| s.contains_key(m)))
            && jammers.is_subset(&traced)
            && told_out.len() == absent.len();
        if done {
            break Ok(());
        }
        tokio::select! {
            line = rx.recv() => {
                let Some(Line { client, value }) = line else {
                    break Err(NodeError::Net("every client exited".into()));
                };
                let event = value["event"].as_str().unwrap_or_default();
                let named_absent: Vec<&str> = value["absent"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|c| c.as_str()).collect())
                    .unwrap_or_default();
                if client >= present {
                    // A late client: told by its server's set-up transcript that it is out.
                    if event == "setup_complete" {
                        if !value["own_slot"].is_null() || named_absent != absent {
                            break Err(NodeError::Net(format!(
                                "late client {client} was not told it is out: {value}"
                            )));
                        }
                        told_out.insert(client);
                        let line = format!("client {client} (late): set-up went on without it");
                        if args.quiet { println!("{line}") } else { bar.println(line) }
                    }
                    continue;
                }
                if client >= honest {
                    continue;
                }
                match event {
                    "setup_complete" => {
                        if named_absent != absent {
                            break Err(NodeError::Net(format!(
                                "client {client} names {named_absent:?} absent, not {absent:?}"
                            )));
                        }
                        ready += 1;
                        bar.set_message(format!("{ready}/{present} clients set up"));
                        if let Some(tx) = late_tx.take() {
                            let spawned = (present..args.clients)
                                .try_for_each(|i| spawn_client(i, &mut children, &tx));
                            if let Err(e) = spawned {
                                break Err(e);
                            }
                        }
                    }
                    "round" => {
                        let r = value["round"].as_u64().unwrap_or(0);
                        if r > round {
                            round = r;
                            bar.set_message(format!("round {round}"));
                        }
                    }
                    "delivered" => {
                        let m = value["message"].as_str().unwrap_or_default().to_string();
                        if client == 0 {
                            let line = format!("[round {}] {m}", value["round"]);
                            if args.quiet { println!("{line}") } else { bar.println(line) }
                        }
                        if expected.contains(&m) {
                            bar.inc(1);
                        }
                        *seen[client].entry(m).or_default() += 1;
                    }
                    "excluded" | "verdict" | "halted" | "peer_halted" | "setup_failed" => {
                        for key in ["client", "culprit"] {
                            if let Some(c) = value[key].as_str() {
                                traced.insert(c.to_string());
                            }
                        }
                        let line = format!("client {client}: {value}");
                        if args.quiet { println!("{line}") } else { bar.println(line) }
                    }
                    _ => {}
                }
            }
            () = &mut deadline => break Err(NodeError::Net(format!(
                "timed out after {} s ({} of {} deliveries; jammers traced: {:?})",
                args.timeout_s,
                seen.iter().map(|s| s.keys().filter(|m| expected.contains(*m)).count()).sum::<usize>(),
                expected.len() * honest,
                traced,
            ))),
            () = &mut shutdown => break Err(NodeError::Usage("interrupted".into())),
        }
    };
    bar.finish_and_clear();
    children.kill_all().await;
    outcome?;
    let duplicates: usize = seen
        .iter()
        .map(|s| {
            s.iter()
                .filter(|(m, n)| expected.contains(*m) && **n > 1)
                .count()
        })
        .sum();
    let distinct = seen
        .iter()
        .map(|s| s.keys().filter(|m| expected.contains(*m)).count())
        .min()
        .unwrap_or(0);
    let sent = expected.len();
    if !jammers.is_empty() {
        println!(
            "jammers traced and excluded: {}",
            jammers.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    println!(
        "done: {honest} clients each received {distinct} distinct messages of {sent} sent, \
         {duplicates} duplicates, by round {round}"
    );
    if duplicates > 0 || distinct != sent {
        return Err(NodeError::Net(
            "not every message delivered exactly once".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_ports_are_distinct_and_below_the_ephemeral_range() {
        let ports = free_ports(8).unwrap();
        let distinct: std::collections::BTreeSet<_> = ports.iter().collect();
        assert_eq!(distinct.len(), 8, "{ports:?}");
        if let Some(low) = ephemeral_low().filter(|l| *l > 11_000) {
            assert!(
                ports.iter().all(|p| *p < low),
                "{ports:?} (range from {low})"
            );
        }
    }
}
