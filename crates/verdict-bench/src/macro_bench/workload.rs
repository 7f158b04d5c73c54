//! A synthetic microblogging workload (Figure 8 analog) and the statistics of its latencies.
//!
//! The paper replayed a real trace of 40–1,032 active users; we generate one with the same
//! shape: posts arrive as a Poisson process (exponential inter-arrival times), each post
//! belongs to a user drawn from a Zipf distribution over users (a few users post most of the
//! messages, as on real microblogging services), and posts are 140–280 bytes, uniformly.
//! Sampling is implemented here on a seeded ChaCha20 stream so a trace is reproducible from its
//! seed on every platform.

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Shortest post in bytes.
pub const MIN_POST: usize = 140;
/// Longest post in bytes.
pub const MAX_POST: usize = 280;

/// The parameters of a trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Workload {
    /// Active users (each maps to one client of the session).
    pub users: usize,
    /// Mean posts per second over all users.
    pub rate: f64,
    /// Zipf exponent of per-user activity (user `k`, counted from 1, posts with weight
    /// `1 / k^exponent`); 0 makes every user equally active.
    pub exponent: f64,
    /// Length of the trace.
    pub duration: Duration,
}

/// One post of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Post {
    /// When it is posted, from the start of the trace.
    pub at: Duration,
    /// Its author.
    pub user: usize,
    /// Its length in bytes.
    pub len: usize,
}

/// A uniform `f64` in `[0, 1)` with 53 random bits.
fn uniform(rng: &mut ChaCha20Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A uniform integer in `[lo, hi]` (the bias of the modulo is below 2^-50 for these ranges).
fn uniform_in(rng: &mut ChaCha20Rng, lo: usize, hi: usize) -> usize {
    let span = (hi - lo + 1) as u64;
    lo + (rng.next_u64() % span) as usize
}

impl Workload {
    /// The cumulative Zipf weights of the users, normalized to end at 1.
    fn cumulative_weights(&self) -> Vec<f64> {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=self.users)
            .map(|k| {
                acc += (k as f64).powf(-self.exponent);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        cdf
    }

    /// The share of all posts user `k` (from 0) is expected to write.
    pub fn share(&self, k: usize) -> f64 {
        let total: f64 = (1..=self.users)
            .map(|j| (j as f64).powf(-self.exponent))
            .sum();
        ((k + 1) as f64).powf(-self.exponent) / total
    }

    /// The trace for `seed`, in time order.
    pub fn generate(&self, seed: u64) -> Vec<Post> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let cdf = self.cumulative_weights();
        let mut posts = Vec::new();
        if self.users == 0 || self.rate <= 0.0 {
            return posts;
        }
        let end = self.duration.as_secs_f64();
        let mut t = 0.0;
        loop {
            // Exponential inter-arrival time by inversion; 1 - u is in (0, 1], so ln is finite.
            t += -(1.0 - uniform(&mut rng)).ln() / self.rate;
            if t >= end {
                return posts;
            }
            let u = uniform(&mut rng);
            let user = cdf.partition_point(|c| *c <= u).min(self.users - 1);
            posts.push(Post {
                at: Duration::from_secs_f64(t),
                user,
                len: uniform_in(&mut rng, MIN_POST, MAX_POST),
            });
        }
    }
}

/// Latency of each delivered post, in seconds, under the round clock of the replay.
///
/// `arrivals[p]` is when post `p` was posted; `delivered[p]` the round whose output carried
/// it (`None`: not delivered); `round_end[r]` when round `r`'s output was certified, and
/// `push` the time that output takes to reach the clients. Returns the latencies of delivered
/// posts and the number of undelivered ones.
pub fn latencies(
    arrivals: &[Duration],
    delivered: &[Option<u64>],
    round_end: &[Duration],
    push: Duration,
) -> (Vec<f64>, usize) {
    let mut out = Vec::new();
    let mut missing = 0;
    for (at, round) in arrivals.iter().zip(delivered) {
        match round.and_then(|r| round_end.get(usize::try_from(r).ok()?)) {
            Some(end) => out.push((*end + push).saturating_sub(*at).as_secs_f64()),
            None => missing += 1,
        }
    }
    (out, missing)
}

/// Mean of `xs` (0 for none).
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// The `q`-quantile of `xs` (`q` in `[0, 1]`, nearest rank; 0 for none), e.g. 0.5 for the
/// median.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let rank = (q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(users: usize, rate: f64, exponent: f64, secs: u64) -> Workload {
        Workload {
            users,
            rate,
            exponent,
            duration: Duration::from_secs(secs),
        }
    }

    #[test]
    fn arrivals_are_poisson() {
        // 20 posts/s for 1,000 s: about 20,000 posts.
        let w = workload(100, 20.0, 1.0, 1000);
        let posts = w.generate(1);
        let n = posts.len() as f64;
        // Count within 4 standard deviations (sqrt(20,000) ≈ 141).
        assert!((n - 20_000.0).abs() < 4.0 * 141.0, "{n}");
        assert!(posts.windows(2).all(|p| p[0].at <= p[1].at));
        assert!(posts.iter().all(|p| p.at < w.duration));
        // Exponential gaps: mean 1/rate and standard deviation 1/rate too.
        let gaps: Vec<f64> = posts
            .windows(2)
            .map(|p| (p[1].at - p[0].at).as_secs_f64())
            .collect();
        let m = mean(&gaps);
        let var = gaps.iter().map(|g| (g - m).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((m - 0.05).abs() < 0.002, "mean gap {m}");
        assert!((var.sqrt() - 0.05).abs() < 0.003, "sd {}", var.sqrt());
        // Memorylessness, roughly: P(gap > mean) = e^-1.
        let above = gaps.iter().filter(|g| **g > 0.05).count() as f64 / gaps.len() as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.02, "{above}");
    }

    #[test]
    fn activity_is_zipf_and_lengths_uniform() {
        let w = workload(50, 50.0, 1.0, 400);
        let posts = w.generate(2);
        let n = posts.len() as f64;
        let mut counts = vec![0usize; w.users];
        for p in &posts {
            counts[p.user] += 1;
        }
        // The most active user writes 1/H_50 ≈ 22% of the posts; user 10 a tenth of that.
        for k in [0, 1, 9, 49] {
            let expected = w.share(k) * n;
            let sd = (expected * (1.0 - w.share(k))).sqrt();
            let got = counts[k] as f64;
            assert!(
                (got - expected).abs() < 4.0 * sd,
                "user {k}: {got} vs {expected}"
            );
        }
        assert!((w.share(0) - 1.0 / 4.499).abs() < 1e-3);
        assert!((w.share(9) * 10.0 - w.share(0)).abs() < 1e-12);
        assert!(posts.iter().all(|p| (MIN_POST..=MAX_POST).contains(&p.len)));
        let lens: Vec<f64> = posts.iter().map(|p| p.len as f64).collect();
        assert!((mean(&lens) - 210.0).abs() < 1.0, "{}", mean(&lens));
        assert!(posts.iter().any(|p| p.len == MIN_POST) && posts.iter().any(|p| p.len == MAX_POST));
    }

    #[test]
    fn exponent_zero_is_uniform_and_traces_are_reproducible() {
        let w = workload(4, 100.0, 0.0, 100);
        assert_eq!(w.generate(3), w.generate(3));
        assert_ne!(w.generate(3), w.generate(4));
        let posts = w.generate(3);
        for k in 0..4 {
            let share = posts.iter().filter(|p| p.user == k).count() as f64 / posts.len() as f64;
            assert!((share - 0.25).abs() < 0.02, "user {k}: {share}");
        }
        assert!(workload(0, 1.0, 1.0, 10).generate(1).is_empty());
    }

    #[test]
    fn latency_counts_from_arrival_to_the_delivering_round_plus_push() {
        let s = Duration::from_secs_f64;
        let arrivals = [s(0.5), s(1.2), s(1.3), s(2.0)];
        let delivered = [Some(1), Some(2), None, Some(9)];
        let round_end = [s(1.0), s(2.0), s(3.0)];
        let (lat, missing) = latencies(&arrivals, &delivered, &round_end, s(0.01));
        // Round 9 never ended in the record: counted as missing, like an undelivered post.
        assert_eq!(missing, 2);
        assert_eq!(lat.len(), 2);
        assert!(
            (lat[0] - 1.51).abs() < 1e-9 && (lat[1] - 1.81).abs() < 1e-9,
            "{lat:?}"
        );
    }

    #[test]
    fn mean_and_quantiles() {
        let xs = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(mean(&xs), 2.5);
        assert_eq!(quantile(&xs, 0.5), 2.0);
        assert_eq!(quantile(&xs, 1.0), 4.0);
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&[7.0, 1.0, 5.0], 0.5), 5.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
        assert_eq!(mean(&[]), 0.0);
    }
}
