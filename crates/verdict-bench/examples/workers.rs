//! The worker model of a sharded server (docs/PERFORMANCE.md, "One server at 10⁴–10⁵
//! clients"), measured on the Figure 7 sessions: server 0's own clients' submissions of every
//! measured round are verified and summed by one worker (what the server does in-process
//! today) and by `W` workers on shards of them, then merged; every step is timed on one thread.
//!
//! `cargo run --release -p verdict-bench --example workers -- [--clients N] [--mode eager|hybrid]
//! [--workers 1,2,4,8,16] [--rounds 3]`
//!
//! Prints, per `W`: the slowest worker's job, the merge, and server 0's round CPU as measured
//! (one thread) and as it would be with workers (the in-process job replaced by the merge).

use core::time::Duration;
use std::process::ExitCode;

use verdict_bench::macro_bench::{MacroError, drive, fig7};
use verdict_dcnet::HashingGenerator;
use verdict_group::{Ristretto255, par};
use verdict_proto::sim::{Network, Simulator, WorkerSample};
use verdict_proto::{Event, Mode, Party, ServerId, Verification};

type Hg = HashingGenerator<Ristretto255>;

const SERVERS: usize = 8;
const DEADLINE: Duration = Duration::from_secs(3600);

struct Args {
    clients: usize,
    mode: Mode,
    workers: Vec<usize>,
    rounds: u64,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        clients: 1024,
        mode: Mode::Verifiable(Verification::Eager),
        workers: vec![1, 2, 4, 8, 16],
        rounds: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}");
        match flag.as_str() {
            "--clients" => args.clients = value.parse().map_err(|e| bad(&e))?,
            "--rounds" => args.rounds = value.parse().map_err(|e| bad(&e))?,
            "--mode" => {
                args.mode = match value.as_str() {
                    "eager" => Mode::Verifiable(Verification::Eager),
                    "lazy" => Mode::Verifiable(Verification::Lazy),
                    "hybrid" => Mode::Hybrid(Verification::Eager),
                    other => return Err(format!("unknown mode {other}")),
                }
            }
            "--workers" => {
                args.workers = value
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| bad(&e))?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Server 0's CPU in each measured round, and the model's samples of those rounds.
fn session(args: &Args) -> Result<(Vec<Duration>, Vec<WorkerSample>), MacroError> {
    let slot_len = if args.mode.is_hybrid() { 1024 } else { 256 };
    let policy = fig7::session_policy(args.mode, slot_len);
    let mut sim = Simulator::<Hg>::new(policy, SERVERS, args.clients, Network::default(), 17)
        .map_err(|e| MacroError(format!("configuration: {e}")))?;
    let is_setup = |e: &Event| matches!(e, Event::SetupComplete { .. });
    drive::step_until_all(&mut sim, DEADLINE, true, SERVERS, "server set-up", is_setup)?;
    drive::step_until_all(
        &mut sim,
        DEADLINE,
        false,
        args.clients,
        "client set-up",
        is_setup,
    )?;
    sim.model_workers(ServerId(0), &args.workers);
    // As in Figure 7: hybrid servers reach their steady state (three rounds kept for blame)
    // from round 4.
    let warmup = if args.mode.is_hybrid() { 4 } else { 1 };
    let server0 = Party::Server(ServerId(0));
    let mut cpu = Vec::new();
    let mut measured = Vec::new();
    for r in 0..warmup + args.rounds {
        let before = sim.cpu.get(&server0).copied().unwrap_or_default();
        drive::run_round(&mut sim, r, DEADLINE)?;
        let after = sim.cpu.get(&server0).copied().unwrap_or_default();
        if r >= warmup {
            cpu.push(after.saturating_sub(before));
            measured.push(r);
        }
    }
    let samples = sim
        .worker_samples()
        .iter()
        .filter(|s| measured.contains(&s.round))
        .cloned()
        .collect();
    Ok((cpu, samples))
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("workers: {e}");
            return ExitCode::FAILURE;
        }
    };
    // One thread: a server and each worker are one core in the model.
    let run = par::with_threads(1, || session(&args));
    let (cpu, samples) = match run {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            eprintln!("workers: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("workers: thread pool: {}", e.reason);
            return ExitCode::FAILURE;
        }
    };
    let round = median(cpu.clone());
    println!(
        "mode {:?}, N = {}, M = {SERVERS}, server 0: {} own clients; round CPU {:.1} ms (median of {:?})",
        args.mode,
        args.clients,
        samples.first().map_or(0, |s| s.clients),
        ms(round),
        cpu.iter()
            .map(|d| (ms(*d) * 10.0).round() / 10.0)
            .collect::<Vec<_>>(),
    );
    println!(
        "| W | clients per worker | in-process job (1 worker) | slowest worker | merge | server round CPU with workers | agrees |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &w in &args.workers {
        let of_w: Vec<&WorkerSample> = samples.iter().filter(|s| s.workers == w.max(1)).collect();
        let whole = median(of_w.iter().map(|s| s.whole).collect());
        let slowest = median(of_w.iter().map(|s| s.slowest_shard()).collect());
        let merge = median(of_w.iter().map(|s| s.merge).collect());
        let with_workers = round.saturating_sub(whole) + merge;
        let clients = of_w.first().map_or(0, |s| s.clients);
        println!(
            "| {w} | {} | {:.2} ms | {:.2} ms | {:.3} ms | {:.1} ms | {} |",
            clients.div_ceil(w.max(1)),
            ms(whole),
            ms(slowest),
            ms(merge),
            ms(with_workers),
            of_w.iter().all(|s| s.agrees) && !of_w.is_empty(),
        );
    }
    ExitCode::SUCCESS
}
