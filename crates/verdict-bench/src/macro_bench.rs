//! Macro benchmarks: whole-system measurements that are not a single timed function, such as
//! the paper's Figure 7 (set-up, round and blame time against the number of clients) and
//! Figure 8 (latency of a microblogging workload against the number of active users).
//!
//! A macro benchmark implements [`MacroBench`] and is listed in [`registry`]. `cargo xtask
//! bench` runs every entry whose name matches its `--filter`, stores the [`MacroReport`] rows
//! next to the criterion results (JSON and CSV) and draws one SVG line chart per report: one
//! line per [`MacroRow::series`], `x` against `y`.
//!
//! Figures whose machinery does not exist yet are [`MacroEntry::Pending`]: the driver prints
//! why they were skipped instead of producing numbers, so no plot or table ever shows made-up
//! data.

use std::fmt;

pub mod baselines;
pub mod drive;
pub mod fig7;
pub mod fig8;
pub mod loopback;
pub mod reference;
pub mod sizes;
pub mod threads;
pub mod workload;

/// How a macro benchmark should run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacroConfig {
    /// `cargo xtask bench --quick`: use fewer and smaller points (the whole run must finish in
    /// minutes on two cores); the report should say which points it dropped in its notes.
    pub quick: bool,
    /// Measure only the largest point of the full run (where the issues' targets are stated),
    /// for a check that fits in a quiet stretch of a shared machine. Benchmarks without a
    /// natural largest point ignore it.
    pub largest_only: bool,
}

/// One measured point: `y` of `series` at `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct MacroRow {
    /// The line this point belongs to, e.g. `"hashing-generator/ristretto255"` or
    /// `"xor round"`. Rows of one series are drawn in increasing `x`.
    pub series: String,
    /// The independent variable, in the unit of [`MacroReport::x_label`].
    pub x: f64,
    /// The measurement, in the unit of [`MacroReport::y_label`].
    pub y: f64,
}

/// The result of one macro benchmark: a table of rows plus how to plot them.
#[derive(Clone, Debug, PartialEq)]
pub struct MacroReport {
    /// Short file-name-safe name, the same as [`MacroBench::name`].
    pub name: String,
    /// Chart title, e.g. `"Figure 6: client ciphertext size"`.
    pub title: String,
    /// Axis label including the unit, e.g. `"plaintext (bytes)"`.
    pub x_label: String,
    /// Axis label including the unit, e.g. `"round time (s)"`.
    pub y_label: String,
    /// Draw the x axis on a logarithmic scale (all `x` must then be positive).
    pub log_x: bool,
    /// Draw the y axis on a logarithmic scale (all `y` must then be positive).
    pub log_y: bool,
    /// The measurements.
    pub rows: Vec<MacroRow>,
    /// Free-form lines printed under the table: parameters (N, M, workload), what `--quick`
    /// left out, caveats.
    pub notes: Vec<String>,
}

/// Why a macro benchmark failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroError(pub String);

impl fmt::Display for MacroError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MacroError {}

/// A named macro benchmark.
pub trait MacroBench {
    /// Short file-name-safe name (`[a-z0-9-]`), used for `--filter` and output files, e.g.
    /// `"fig7"`.
    fn name(&self) -> &'static str;
    /// One-line description, e.g. `"Figure 7: set-up, round and blame time vs N"`.
    fn title(&self) -> &'static str;
    /// Whether `VERDICT_THREADS` runs this benchmark once per listed thread count
    /// ([`threads`]). Only a figure of CPU time spent in this process's pool, which the scaling
    /// table compares, says yes (Figure 7). Figure 6 counts bytes, which no pool changes;
    /// Figure 8 replays its workload as deployed, on the default pool; the loopback group
    /// pins every process it starts to one thread of round work. These run once.
    fn scales_with_threads(&self) -> bool {
        false
    }
    /// Runs the benchmark. `progress` receives one short line per step of a long run (for
    /// example each N of Figure 7), which the driver prints with the elapsed time.
    fn run(
        &self,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError>;
}

/// An entry of the [`registry`].
pub enum MacroEntry {
    /// A benchmark that can run.
    Ready(Box<dyn MacroBench>),
    /// A figure whose benchmark cannot be written yet; the driver skips it, saying why.
    Pending {
        /// The name the benchmark will have.
        name: &'static str,
        /// What it will measure.
        title: &'static str,
        /// What it is waiting for.
        waiting_for: &'static str,
    },
}

impl MacroEntry {
    /// The entry's name (see [`MacroBench::name`]).
    pub fn name(&self) -> &'static str {
        match self {
            MacroEntry::Ready(b) => b.name(),
            MacroEntry::Pending { name, .. } => name,
        }
    }

    /// The entry's one-line description.
    pub fn title(&self) -> &'static str {
        match self {
            MacroEntry::Ready(b) => b.title(),
            MacroEntry::Pending { title, .. } => title,
        }
    }
}

impl fmt::Debug for MacroEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MacroEntry::Ready(b) => f.debug_tuple("Ready").field(&b.name()).finish(),
            MacroEntry::Pending {
                name, waiting_for, ..
            } => f
                .debug_struct("Pending")
                .field("name", name)
                .field("waiting_for", waiting_for)
                .finish(),
        }
    }
}

/// A ready entry, run once per thread count of `VERDICT_THREADS` when it is set and the
/// benchmark [scales with threads](MacroBench::scales_with_threads).
fn ready(make: fn() -> Box<dyn MacroBench>) -> MacroEntry {
    MacroEntry::Ready(Box::new(threads::Threaded::new(make)))
}

/// Every macro benchmark, in figure order.
///
/// Figures 7 ([`fig7`]) and 8 ([`fig8`]) replay whole sessions in `verdict-proto`'s simulator.
/// To add a benchmark, implement [`MacroBench`] and list it here; a figure whose machinery does
/// not exist yet is a [`MacroEntry::Pending`] entry saying what it waits for.
pub fn registry() -> Vec<MacroEntry> {
    vec![
        ready(|| Box::new(sizes::CiphertextSizes)),
        ready(|| Box::new(fig7::Fig7)),
        ready(|| Box::new(fig8::Fig8)),
        ready(|| Box::new(loopback::Loopback)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_file_safe() {
        let entries = registry();
        let mut names: Vec<_> = entries.iter().map(MacroEntry::name).collect();
        for n in &names {
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{n}"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), entries.len());
    }

    #[test]
    fn every_paper_figure_has_an_entry() {
        let entries = registry();
        for fig in ["fig6", "fig7", "fig8"] {
            assert!(entries.iter().any(|e| e.name() == fig), "{fig}");
        }
    }
}
