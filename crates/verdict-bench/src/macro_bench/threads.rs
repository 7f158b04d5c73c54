//! Scaling runs: `VERDICT_THREADS=1,2` runs every macro benchmark that
//! [scales with threads](super::MacroBench::scales_with_threads) once per listed thread count,
//! in the listed order (`1,2,1,2` alternates), each run inside a rayon pool of that size, and
//! labels its rows `"<series> threads=<t>"`. Unset, or for the other benchmarks, a benchmark
//! runs once on the default pool (one thread per core, since this crate enables the `parallel`
//! feature of the crates it measures) and its rows keep their names: rows labelled with a
//! thread count they were not measured on would be worse than none.
//!
//! `VERDICT_ROUND_THREADS=1,2` instead alternates thread counts *inside* one session (only
//! [Figure 7](super::fig7) does): the session runs in a pool of the largest count, and its
//! measured rounds (and blame episodes) cycle through the listed counts, a one-thread round
//! running through [`par::serial`]. Both counts then see the same session, the same heap and
//! the same minutes of a virtual machine whose speed drifts by up to 1.5× within minutes,
//! which a series per count (one after the other, even in fresh processes) cannot promise.
//! Set-up happens once per session, so it is measured only at the pool's count.

use std::sync::mpsc;

use verdict_group::par;

use super::{MacroBench, MacroConfig, MacroError, MacroReport};

/// The environment variable naming the thread counts.
pub const THREADS_VAR: &str = "VERDICT_THREADS";

/// The environment variable naming the thread counts a session's rounds alternate through.
pub const ROUND_THREADS_VAR: &str = "VERDICT_ROUND_THREADS";

/// The thread counts `VERDICT_ROUND_THREADS` lists (`None`: unset or empty); each must be 1 or
/// the largest listed (the pool the session runs in).
pub fn round_thread_counts() -> Result<Option<Vec<usize>>, MacroError> {
    match std::env::var(ROUND_THREADS_VAR) {
        Ok(v) if !v.trim().is_empty() => {
            let counts = parse_counts(&v)?;
            alternation_pool(&counts)?;
            Ok(Some(counts))
        }
        _ => Ok(None),
    }
}

/// The pool a session alternating `counts` runs in: the largest count. A count between 1 and
/// that would need a pool of its own, which the session (not `Send`) cannot move to.
pub fn alternation_pool(counts: &[usize]) -> Result<usize, MacroError> {
    let pool = counts.iter().copied().max().unwrap_or(1);
    match counts.iter().find(|&&t| t != 1 && t != pool) {
        None => Ok(pool),
        Some(t) => Err(MacroError(format!(
            "{ROUND_THREADS_VAR}: {t} threads: a session alternates only between 1 and the \
             largest count ({pool})"
        ))),
    }
}

/// The thread count of the `k`-th alternated measurement (counts taken in turn).
pub fn count_of(counts: &[usize], k: usize) -> usize {
    counts.get(k % counts.len().max(1)).copied().unwrap_or(1)
}

/// `f()` on `threads` threads, called from inside the session's pool: directly when that is the
/// pool's size, through [`par::serial`] for one thread.
pub fn on_threads<U>(threads: usize, f: impl FnOnce() -> U) -> Result<U, MacroError> {
    let pool = par::threads();
    if threads == pool {
        Ok(f())
    } else if threads == 1 {
        Ok(par::serial(f))
    } else {
        Err(MacroError(format!(
            "{threads} threads asked for inside a pool of {pool}"
        )))
    }
}

/// The thread counts `VERDICT_THREADS` lists (`None`: unset or empty).
pub fn thread_counts() -> Result<Option<Vec<usize>>, MacroError> {
    match std::env::var(THREADS_VAR) {
        Ok(v) if !v.trim().is_empty() => parse_counts(&v).map(Some),
        _ => Ok(None),
    }
}

fn parse_counts(v: &str) -> Result<Vec<usize>, MacroError> {
    v.split(',')
        .map(|t| match t.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(MacroError(format!(
                "{THREADS_VAR}: `{t}` is not a thread count (expected e.g. `1,2`)"
            ))),
        })
        .collect()
}

/// A benchmark run once per thread count (see the module documentation). It holds a
/// constructor rather than the benchmark: each run builds its benchmark on a thread of its
/// pool, so nothing the benchmark holds has to cross threads.
pub struct Threaded {
    make: fn() -> Box<dyn MacroBench>,
    name: &'static str,
    title: &'static str,
    scales: bool,
}

impl Threaded {
    /// Wraps the benchmark `make` builds.
    pub fn new(make: fn() -> Box<dyn MacroBench>) -> Self {
        let b = make();
        Self {
            make,
            name: b.name(),
            title: b.title(),
            scales: b.scales_with_threads(),
        }
    }

    /// [`MacroBench::run`] with the thread counts given (`None`: `VERDICT_THREADS` unset).
    fn run_on_counts(
        &self,
        counts: Option<Vec<usize>>,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        let Some(counts) = counts.filter(|_| self.scales) else {
            return (self.make)().run(config, progress);
        };
        let mut merged: Option<MacroReport> = None;
        for t in counts {
            progress(&format!("{} with {t} thread(s)", self.name));
            let report = run_on(self.make, *config, t, progress)?;
            let rows = report.rows.into_iter().map(|mut r| {
                r.series = format!("{} threads={t}", r.series);
                r
            });
            match &mut merged {
                Some(m) => m.rows.extend(rows),
                None => {
                    let mut first = MacroReport {
                        rows: rows.collect(),
                        ..report
                    };
                    first
                        .notes
                        .push(format!("{THREADS_VAR}: one run per listed thread count"));
                    merged = Some(first);
                }
            }
        }
        merged.ok_or_else(|| MacroError(format!("{THREADS_VAR} lists no thread count")))
    }
}

impl MacroBench for Threaded {
    fn name(&self) -> &'static str {
        self.name
    }

    fn title(&self) -> &'static str {
        self.title
    }

    fn scales_with_threads(&self) -> bool {
        self.scales
    }

    fn run(
        &self,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        if round_thread_counts()?.is_some() {
            // The benchmark alternates within its sessions (or, not able to, runs once on the
            // default pool).
            if thread_counts()?.is_some() {
                return Err(MacroError(format!(
                    "set {THREADS_VAR} (a run per thread count) or {ROUND_THREADS_VAR} \
                     (rounds alternating inside one run), not both"
                )));
            }
            return (self.make)().run(config, progress);
        }
        self.run_on_counts(thread_counts()?, config, progress)
    }
}

/// Runs the benchmark `make` builds in a pool of `threads` threads; its progress lines come
/// back over a channel and go to `progress` as they arrive.
fn run_on(
    make: fn() -> Box<dyn MacroBench>,
    config: MacroConfig,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<MacroReport, MacroError> {
    run_in_pool(threads, move |report| make().run(&config, report), progress)
}

/// Runs `run` on a thread of a fresh pool of `threads` threads (everything it builds stays on
/// that thread); the progress lines it reports come back over a channel and go to `progress`
/// as they arrive.
pub fn run_in_pool(
    threads: usize,
    run: impl FnOnce(&mut dyn FnMut(&str)) -> Result<MacroReport, MacroError> + Send,
    progress: &mut dyn FnMut(&str),
) -> Result<MacroReport, MacroError> {
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            par::with_threads(threads, move || {
                let mut report = |m: &str| {
                    let _ = tx.send(m.to_string());
                };
                run(&mut report)
            })
        });
        for line in rx {
            progress(&line);
        }
        match worker.join() {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => Err(MacroError(e.to_string())),
            Err(_) => Err(MacroError("the benchmark thread panicked".into())),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports the size of the pool it ran on as its one row.
    struct PoolSize<const SCALES: bool>;

    impl<const SCALES: bool> MacroBench for PoolSize<SCALES> {
        fn name(&self) -> &'static str {
            "pool-size"
        }
        fn title(&self) -> &'static str {
            "the pool a run sees"
        }
        fn scales_with_threads(&self) -> bool {
            SCALES
        }
        fn run(&self, _: &MacroConfig, _: &mut dyn FnMut(&str)) -> Result<MacroReport, MacroError> {
            Ok(MacroReport {
                name: self.name().into(),
                title: self.title().into(),
                x_label: String::new(),
                y_label: String::new(),
                log_x: false,
                log_y: false,
                rows: vec![super::super::MacroRow {
                    series: "pool".into(),
                    x: 1.0,
                    y: par::threads() as f64,
                }],
                notes: Vec::new(),
            })
        }
    }

    fn rows(b: &Threaded, counts: Option<Vec<usize>>) -> Vec<(String, f64)> {
        let report = b
            .run_on_counts(counts, &MacroConfig::default(), &mut |_| {})
            .unwrap();
        report.rows.into_iter().map(|r| (r.series, r.y)).collect()
    }

    #[test]
    fn only_a_scaling_benchmark_runs_once_per_thread_count() {
        let scaling = Threaded::new(|| Box::new(PoolSize::<true>));
        let once = Threaded::new(|| Box::new(PoolSize::<false>));
        let listed = || Some(vec![1, 2, 1]);
        assert_eq!(
            rows(&scaling, listed()),
            [
                ("pool threads=1".to_owned(), 1.0),
                ("pool threads=2".to_owned(), 2.0),
                ("pool threads=1".to_owned(), 1.0),
            ]
        );
        let default_pool = par::threads() as f64;
        assert_eq!(rows(&once, listed()), [("pool".to_owned(), default_pool)]);
        assert_eq!(rows(&scaling, None), [("pool".to_owned(), default_pool)]);
    }

    #[test]
    fn a_session_alternates_between_one_thread_and_its_pool() {
        assert_eq!(alternation_pool(&[1, 2]).unwrap(), 2);
        assert_eq!(alternation_pool(&[2, 1, 2]).unwrap(), 2);
        assert_eq!(alternation_pool(&[1]).unwrap(), 1);
        assert!(
            alternation_pool(&[1, 2, 4])
                .unwrap_err()
                .0
                .contains("2 threads")
        );
        let order: Vec<usize> = (0..5).map(|k| count_of(&[1, 2], k)).collect();
        assert_eq!(order, [1, 2, 1, 2, 1]);
        // This crate turns on the measured crates' `parallel` feature, so a pool of 2 is 2.
        let seen = par::with_threads(2, || {
            (
                on_threads(1, par::threads).unwrap(),
                on_threads(2, par::threads).unwrap(),
                on_threads(3, par::threads).is_err(),
                par::threads(),
            )
        })
        .unwrap();
        assert_eq!(seen, (1, 2, true, 2));
    }

    #[test]
    fn thread_counts_parse() {
        assert_eq!(parse_counts("1,2, 1 ,2").unwrap(), vec![1, 2, 1, 2]);
        assert!(parse_counts("1,0").is_err());
        assert!(parse_counts("two").is_err());
    }
}
