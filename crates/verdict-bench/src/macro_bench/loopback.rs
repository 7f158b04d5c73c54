//! A real group on loopback against the simulator's prediction (issue 15's benchmark).
//!
//! For each (N, M): a group is generated as `verdict local` does, `M` `verdict server`
//! processes and two `verdict clients` processes (N/2 client tasks each, sharing one set-up
//! verification) run on 127.0.0.1, every client posting a message whenever it has nothing
//! queued (every slot busy). After set-up and [`WARMUP`] rounds, at least [`ROUNDS`] rounds and [`MIN_TIMED`] are timed
//! at the first client: round latency (interval between certified outputs), messages
//! delivered per second, and the CPU each process used (`/proc/<pid>/stat`).
//!
//! The prediction is the simulator's for the same policy, group and load: the busiest server's
//! CPU per round plus the round's network time with the measured loopback link latency (a TCP
//! ping-pong). Two costs of a real deployment are outside it, and the notes give each: every
//! server makes each certified output durable (a redb commit, fsync'd) before its clients see
//! it — measured here on the same disk — and on one machine every process shares its cores, so
//! the machine-share bound is all participants' CPU per round divided by the cores, plus
//! network, plus one durable commit.
//!
//! Every process and the simulator run one thread of round work (`RAYON_NUM_THREADS=1`,
//! [`verdict_group::par::with_threads`]; each process also runs one tokio worker,
//! `TOKIO_WORKER_THREADS=1`, so its tasks wake each other without crossing threads): with `M + 2` processes on the machine every core is
//! busy with another member already, so a second thread per member only adds contention, and
//! the processes' CPU time is then compared with the simulator's single-thread time like for
//! like (with two threads the simulator's figure is wall time while a process's CPU time adds
//! up both threads).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Network, Simulator};

use super::drive::{run_round, secs};
use super::{MacroBench, MacroConfig, MacroError, MacroReport, MacroRow};

type Hg = HashingGenerator<Ristretto255>;

/// (N, M) of a full run.
pub const FULL: [(usize, usize); 6] = [(16, 3), (64, 3), (256, 3), (16, 8), (64, 8), (256, 8)];
/// (N, M) of `--quick`.
pub const QUICK: [(usize, usize); 2] = [(16, 3), (64, 3)];
/// Rounds after set-up before timing (slots open, queues fill).
pub const WARMUP: u64 = 4;
/// Rounds timed (at least; see [`MIN_TIMED`]).
pub const ROUNDS: u64 = 10;
/// The processes are timed for at least this long: their CPU time comes in 10 ms clock ticks,
/// which ten rounds of a few milliseconds would not resolve.
pub const MIN_TIMED: Duration = Duration::from_secs(4);
/// Bytes of every load message.
pub const LOAD: usize = 64;
/// Client processes (each runs N / HOSTS client tasks).
const HOSTS: usize = 2;

/// The benchmark.
pub struct Loopback;

impl MacroBench for Loopback {
    fn name(&self) -> &'static str {
        "loopback"
    }

    fn title(&self) -> &'static str {
        "Real processes on loopback vs the simulator"
    }

    fn run(
        &self,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        let points: &[(usize, usize)] = match (config.quick, config.largest_only) {
            (true, _) => &QUICK,
            (false, true) => &FULL[5..],
            (false, false) => &FULL,
        };
        let exe = verdict_binary(progress)?;
        let link = loopback_latency()?;
        let commit = commit_latency()?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut rows = Vec::new();
        let mut notes = vec![format!(
            "hybrid mode (eager checks), 2 s window, {LOAD}-byte posts, {WARMUP} warm-up rounds, \
             then at least {ROUNDS} rounds and {} s timed; {HOSTS} client processes; one thread of round work per \
             process (and one tokio worker) and in the simulator; loopback one-way latency \
             {:.1} µs (TCP ping-pong); durable commit of a round output {:.1} ms (redb, \
             median of 20, same disk); {cores} cores",
            MIN_TIMED.as_secs(),
            secs(link) * 1e6,
            secs(commit) * 1e3
        )];
        for &(n, m) in points {
            progress(&format!("N = {n}, M = {m}: processes"));
            let real = measure(&exe, n, m)?;
            progress(&format!("N = {n}, M = {m}: simulator"));
            let sim = verdict_group::par::with_threads(1, || predict(n, m, link))
                .map_err(|e| MacroError(e.to_string()))??;
            let per_round = |d: Duration| secs(d) * 1e3;
            rows.push(MacroRow {
                series: format!("loopback M={m}"),
                x: n as f64,
                y: per_round(real.round),
            });
            rows.push(MacroRow {
                series: format!("predicted M={m}"),
                x: n as f64,
                y: per_round(sim.predicted),
            });
            notes.push(format!(
                "N = {n}, M = {m}: round {:.1} ms (predicted {:.1} ms: busiest server {:.1} ms \
                 + network {:.1} ms; ratio {:.2}; with the durable commit {:.2}); machine-share \
                 bound with the commit {:.1} ms (ratio {:.2}); \
                 {:.0} messages/s; CPU per round: busiest server {:.1} ms (simulated {:.1} ms), \
                 all servers {:.1} ms, clients {:.2} ms each on average (simulated busiest \
                 client {:.2} ms)",
                per_round(real.round),
                per_round(sim.predicted),
                per_round(sim.server_cpu),
                per_round(sim.network),
                secs(real.round) / secs(sim.predicted).max(1e-9),
                secs(real.round) / secs(sim.predicted + commit).max(1e-9),
                per_round(sim.shared(cores) + commit),
                secs(real.round) / secs(sim.shared(cores) + commit).max(1e-9),
                real.messages_per_s,
                per_round(real.busiest_server_cpu),
                per_round(sim.server_cpu),
                per_round(real.servers_cpu),
                per_round(real.client_cpu),
                per_round(sim.client_cpu),
            ));
        }
        Ok(MacroReport {
            name: self.name().into(),
            title: self.title().into(),
            x_label: "clients N".into(),
            y_label: "round latency (ms)".into(),
            log_x: true,
            log_y: true,
            rows,
            notes,
        })
    }
}

/// What the processes did, per timed round.
struct Measured {
    round: Duration,
    messages_per_s: f64,
    busiest_server_cpu: Duration,
    servers_cpu: Duration,
    client_cpu: Duration,
}

/// The simulator's figures, per round.
struct Predicted {
    predicted: Duration,
    server_cpu: Duration,
    network: Duration,
    /// All servers' and clients' CPU.
    total_cpu: Duration,
    client_cpu: Duration,
}

impl Predicted {
    /// Every participant's CPU spread over `cores`, plus the network time.
    fn shared(&self, cores: usize) -> Duration {
        self.total_cpu / cores.max(1) as u32 + self.network
    }
}

/// The release `verdict` binary (`VERDICT_BIN`, or built now).
fn verdict_binary(progress: &mut dyn FnMut(&str)) -> Result<PathBuf, MacroError> {
    if let Some(p) = std::env::var_os("VERDICT_BIN") {
        return Ok(PathBuf::from(p));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    progress("building the release verdict binary");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "build",
            "--release",
            "-p",
            "verdict-node",
            "--bin",
            "verdict",
        ])
        .current_dir(&root)
        .status()
        .map_err(|e| MacroError(format!("cargo build: {e}")))?;
    if !status.success() {
        return Err(MacroError("cargo build of verdict failed".into()));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/verdict"))
}

/// One-way latency of a TCP round trip on 127.0.0.1 (64 bytes, median of 2,000), halved.
fn loopback_latency() -> Result<Duration, MacroError> {
    let io = |e: std::io::Error| MacroError(format!("loopback ping: {e}"));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(io)?;
    let addr = listener.local_addr().map_err(io)?;
    let echo = std::thread::spawn(move || -> std::io::Result<()> {
        let (mut s, _) = listener.accept()?;
        s.set_nodelay(true)?;
        let mut buf = [0u8; 64];
        while s.read_exact(&mut buf).is_ok() {
            s.write_all(&buf)?;
        }
        Ok(())
    });
    let mut s = std::net::TcpStream::connect(addr).map_err(io)?;
    s.set_nodelay(true).map_err(io)?;
    let mut buf = [7u8; 64];
    let mut times = Vec::with_capacity(2_000);
    for _ in 0..2_000 {
        let t = Instant::now();
        s.write_all(&buf).map_err(io)?;
        s.read_exact(&mut buf).map_err(io)?;
        times.push(t.elapsed());
    }
    drop(s);
    let _ = echo.join();
    times.sort_unstable();
    Ok(times[times.len() / 2] / 2)
}

/// How long a server takes to make one round output durable: a redb commit of a 4 KiB record
/// in a fresh history on the disk the benchmark's servers use (median of 20).
fn commit_latency() -> Result<Duration, MacroError> {
    let dir = std::env::temp_dir().join(format!("verdict-commit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| MacroError(format!("{}: {e}", dir.display())))?;
    let history = verdict_node::history::History::open(&dir, &[0; 32])
        .map_err(|e| MacroError(format!("history: {e}")))?;
    let mut times = Vec::with_capacity(20);
    for round in 0..20 {
        let t = Instant::now();
        history
            .append_round(round, &[0x5a; 4096])
            .map_err(|e| MacroError(format!("history: {e}")))?;
        times.push(t.elapsed());
    }
    drop(history);
    let _ = std::fs::remove_dir_all(&dir);
    times.sort_unstable();
    Ok(times[times.len() / 2])
}

/// Child processes, killed on drop.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// User plus system CPU of process `pid` so far (`/proc/<pid>/stat`, clock ticks of 10 ms).
fn cpu_of(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn measure(exe: &Path, n: usize, m: usize) -> Result<Measured, MacroError> {
    let err = |what: &str, e: &dyn std::fmt::Display| MacroError(format!("{what}: {e}"));
    let dir = std::env::temp_dir().join(format!("verdict-loopback-{}-{n}-{m}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = local_args(n, m);
    let group = verdict_node::local::generate(&dir, &args).map_err(|e| err("group", &e))?;
    let mut procs = Procs(Vec::new());
    let spawn = |args: Vec<std::ffi::OsString>, out: bool| {
        Command::new(exe)
            .args(args)
            .arg("--watch-parent")
            .env("RAYON_NUM_THREADS", "1")
            .env("TOKIO_WORKER_THREADS", "1")
            .stdin(Stdio::null())
            .stdout(if out { Stdio::piped() } else { Stdio::null() })
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| err("spawn verdict", &e))
    };
    for j in 0..m {
        procs.0.push(spawn(
            vec![
                "server".into(),
                "--group".into(),
                group.clone().into(),
                "--key".into(),
                dir.join(format!("s{j}.key")).into(),
                "--data".into(),
                dir.join(format!("s{j}")).into(),
            ],
            false,
        )?);
    }
    let per_host = n.div_ceil(HOSTS);
    for h in 0..HOSTS {
        let first = h * per_host;
        let count = per_host.min(n.saturating_sub(first));
        procs.0.push(spawn(
            vec![
                "clients".into(),
                "--group".into(),
                group.clone().into(),
                "--key-dir".into(),
                dir.clone().into(),
                format!("--first={first}").into(),
                format!("--count={count}").into(),
                format!("--load={LOAD}").into(),
            ],
            h == 0,
        )?);
    }
    let out = procs.0[m]
        .stdout
        .take()
        .ok_or_else(|| MacroError("no stdout".into()))?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&l)
                && tx.send((Instant::now(), v)).is_err()
            {
                break;
            }
        }
    });
    let limit = Instant::now() + Duration::from_secs(600);
    let next = || {
        let left = limit.saturating_duration_since(Instant::now());
        rx.recv_timeout(left)
            .map_err(|_| MacroError(format!("N = {n}, M = {m}: no progress within 600 s")))
    };
    let pids: Vec<u32> = procs.0.iter().map(Child::id).collect();
    let mut start: Option<(Instant, u64, Vec<Duration>)> = None;
    let mut delivered = 0u64;
    loop {
        let (at, v) = next()?;
        match v["event"].as_str() {
            Some("delivered") if start.is_some() => delivered += 1,
            Some("round") => {
                let round = v["round"].as_u64().unwrap_or(0);
                match &start {
                    None if round >= WARMUP => {
                        start = Some((at, round, pids.iter().map(|p| cpu_of(*p)).collect()));
                    }
                    Some((t0, r0, cpu0))
                        if round >= r0 + ROUNDS && at.duration_since(*t0) >= MIN_TIMED =>
                    {
                        let rounds = (round - r0) as u32;
                        let elapsed = at.duration_since(*t0);
                        let used: Vec<Duration> = pids
                            .iter()
                            .zip(cpu0)
                            .map(|(p, c)| cpu_of(*p).saturating_sub(*c) / rounds)
                            .collect();
                        let servers = &used[..m];
                        let _ = std::fs::remove_dir_all(&dir);
                        return Ok(Measured {
                            round: elapsed / rounds,
                            messages_per_s: delivered as f64 / secs(elapsed).max(1e-9),
                            busiest_server_cpu: servers.iter().copied().max().unwrap_or_default(),
                            servers_cpu: servers.iter().sum(),
                            client_cpu: used[m..].iter().sum::<Duration>() / n.max(1) as u32,
                        });
                    }
                    _ => {}
                }
            }
            Some("excluded" | "halted" | "setup_failed") => {
                return Err(MacroError(format!("N = {n}, M = {m}: {v}")));
            }
            _ => {}
        }
    }
}

/// The group `verdict local` would make: hybrid mode, 2 s window, generous set-up.
fn local_args(n: usize, m: usize) -> verdict_node::local::LocalArgs {
    use clap::Parser;
    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: verdict_node::local::LocalArgs,
    }
    Wrap::parse_from([
        "bench".to_string(),
        format!("--servers={m}"),
        format!("--clients={n}"),
        "--mode=hybrid".into(),
        "--window-ms=2000".into(),
        "--setup-window-s=120".into(),
        "--server-timeout-s=60".into(),
    ])
    .args
}

fn predict(n: usize, m: usize, link: Duration) -> Result<Predicted, MacroError> {
    let policy = local_args(n, m).policy();
    let net = Network {
        latency: link,
        ..Network::default()
    };
    let mut sim = Simulator::<Hg>::new(policy, m, n, net, 15)
        .map_err(|e| MacroError(format!("simulator: {e}")))?;
    let deadline = Duration::from_secs(3_600);
    let load = |sim: &mut Simulator<Hg>| {
        for i in 0..n {
            if sim.client(i).is_some_and(|c| c.queued() == 0) {
                let _ = sim.submit(i, vec![b'.'; LOAD]);
            }
        }
    };
    for r in 0..WARMUP {
        load(&mut sim);
        run_round(&mut sim, r, deadline)?;
    }
    let mut sum = Predicted {
        predicted: Duration::ZERO,
        server_cpu: Duration::ZERO,
        network: Duration::ZERO,
        total_cpu: Duration::ZERO,
        client_cpu: Duration::ZERO,
    };
    for r in WARMUP..WARMUP + ROUNDS {
        load(&mut sim);
        let before: Duration = sim.cpu.values().sum();
        let cost = run_round(&mut sim, r, deadline)?;
        sum.server_cpu += cost.server_cpu;
        sum.client_cpu += cost.client_cpu;
        sum.network += cost.network;
        sum.total_cpu += sim.cpu.values().sum::<Duration>().saturating_sub(before);
    }
    let k = ROUNDS as u32;
    let (server_cpu, network) = (sum.server_cpu / k, sum.network / k);
    Ok(Predicted {
        predicted: server_cpu + network,
        server_cpu,
        network,
        total_cpu: sum.total_cpu / k,
        client_cpu: sum.client_cpu / k,
    })
}
