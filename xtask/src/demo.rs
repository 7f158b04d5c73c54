//! `cargo xtask demo`: a narrated hybrid-mode session with a jammer (3 servers, 10 clients),
//! run through `verdict-proto`'s simulator.
//!
//! The narration is `verdict-proto`'s `hybrid_jammer` example; running it through cargo keeps
//! one copy of that code, and the example is also what the crate's documentation points to.

/// Runs the example; returns whether it succeeded.
pub(crate) fn run(args: &[String]) -> bool {
    if let Some(bad) = args.first() {
        eprintln!("`cargo xtask demo` takes no options (got `{bad}`)");
        return false;
    }
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
