//! `cargo xtask demo`: a narrated hybrid-mode session with a jammer (3 servers, 10 clients),
//! run through `verdict-proto`'s simulator.
//!
//! The narration is `verdict-proto`'s `hybrid_jammer` example; running it through cargo keeps
//! one copy of that code, and the example is also what the crate's documentation points to.

/// `cargo xtask demo` takes no options.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "A narrated hybrid session (3 servers, 10 clients, one jammer) in the simulator: \
             messages, accusation, verdict, exclusion",
    long_about = "Runs a hybrid session (3 servers, 10 clients, one jammer) in verdict-proto's \
                  simulator and narrates the messages delivered, the accusation, the verdict \
                  naming the disruptor, its exclusion and messages flowing again. The same run: \
                  `cargo run -p verdict-proto --example hybrid_jammer`."
)]
pub(crate) struct Args {}

/// Runs the example; returns whether it succeeded.
pub(crate) fn run(_: &Args) -> bool {
    crate::cargo(
        &[
            "run",
            "--quiet",
            "--package",
            "verdict-proto",
            "--features",
            "adversary",
            "--example",
            "hybrid_jammer",
        ],
        &[],
    )
}
