//! A pool of a fixed number of threads for the helpers of [`super`], and running a closure
//! in one ([`with_threads`]): how tests compare thread counts and benchmarks measure scaling.

/// Why [`with_threads`] could not run its closure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot build a pool of {threads} threads: {reason}")]
pub struct PoolError {
    /// The thread count asked for.
    pub threads: usize,
    /// rayon's explanation.
    pub reason: String,
}

/// A pool of a fixed number of threads for the helpers, kept across calls: work handed to
/// [`Pool::install`] again and again finds its threads already started. A fresh pool per call
/// ([`with_threads`]) makes the first split of every call wait for a thread to start and be
/// scheduled; on a virtual machine that wait varies by milliseconds, so a benchmark that
/// alternates thread counts many times builds one pool per count up front.
#[derive(Debug)]
pub struct Pool {
    #[cfg(feature = "parallel")]
    pool: rayon::ThreadPool,
}

impl Pool {
    /// A pool of `threads` threads (at least one). Without the `parallel` feature it holds
    /// nothing and [`Pool::install`] simply runs its closure.
    pub fn new(threads: usize) -> Result<Self, PoolError> {
        #[cfg(feature = "parallel")]
        {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.max(1))
                .build()
                .map_err(|e| PoolError {
                    threads,
                    reason: e.to_string(),
                })?;
            Ok(Self { pool })
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = threads;
            Ok(Self {})
        }
    }

    /// Runs `f` with the helpers limited to this pool's threads.
    pub fn install<T, F>(&self, f: F) -> T
    where
        T: Send,
        F: FnOnce() -> T + Send,
    {
        #[cfg(feature = "parallel")]
        {
            self.pool.install(f)
        }
        #[cfg(not(feature = "parallel"))]
        {
            f()
        }
    }
}

/// Runs `f` with the helpers limited to `threads` threads (a fresh [`Pool`] of that size).
/// Without the `parallel` feature `f` simply runs (everything is serial anyway). For tests
/// comparing thread counts and for benchmarks measuring scaling (`VERDICT_THREADS`).
pub fn with_threads<T, F>(threads: usize, f: F) -> Result<T, PoolError>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    Ok(Pool::new(threads)?.install(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::threads;

    #[test]
    fn a_pool_keeps_its_thread_count_across_installs() {
        let two = if cfg!(feature = "parallel") { 2 } else { 1 };
        let pool = Pool::new(2).unwrap();
        for _ in 0..3 {
            assert_eq!(pool.install(threads), two);
        }
        assert_eq!(Pool::new(0).unwrap().install(threads), 1);
        assert_eq!(with_threads(2, threads).unwrap(), two);
    }
}
