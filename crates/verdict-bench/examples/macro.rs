//! Runs one macro benchmark by name and prints its rows and notes:
//! `cargo run --release -p verdict-bench --example macro -- fig7 [--quick | --largest]`
//! (`--largest`: only the largest point of the full run, where the targets are stated).

use verdict_bench::macro_bench::{MacroConfig, MacroEntry, registry};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let largest_only = args.iter().any(|a| a == "--largest");
    let Some(name) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: macro NAME [--quick | --largest]");
        return std::process::ExitCode::FAILURE;
    };
    let t0 = std::time::Instant::now();
    for entry in registry() {
        if let MacroEntry::Ready(b) = entry
            && b.name() == name
        {
            let mut progress = |m: &str| eprintln!("[{:.0} s] {m}", t0.elapsed().as_secs_f64());
            return match b.run(
                &MacroConfig {
                    quick,
                    largest_only,
                },
                &mut progress,
            ) {
                Ok(r) => {
                    for row in &r.rows {
                        println!("{}\t{}\t{}", row.series, row.x, row.y);
                    }
                    for n in &r.notes {
                        println!("note: {n}");
                    }
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{name}: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
    }
    eprintln!("no ready macro benchmark `{name}`");
    std::process::ExitCode::FAILURE
}
