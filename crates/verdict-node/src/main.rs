//! The `verdict` command (see the crate documentation of `verdict-node`).

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = verdict_node::cli::Cli::parse();
    verdict_node::cli::init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("verdict: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(verdict_node::cli::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("verdict: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
