//! The machine's speed at the moment of a measurement: a fixed kernel of the raw library,
//! timed next to the sessions it accompanies.
//!
//! Why: the 2-vCPU virtual machine these benchmarks run on changes speed by up to 2× between
//! days and by 1.5× within minutes (the kernel below took 27 ms on 2026-12-04 and 43–65 ms on
//! 2026-12-07). An absolute target such as "an eager round in ≤ 0.3 s" was stated on the
//! faster days, and cannot be judged on a slow one. So each session is bracketed by this
//! kernel, and a target is read against the kernel's time when it was set (the guide's rule:
//! a target this machine cannot reach in absolute terms is reported as a ratio against the raw
//! library measured in the same run).
//!
//! The kernel: 1,024 constant-time ristretto255 scalar multiplications of random points by
//! random scalars, on one thread, the median of [`REPS`] runs. Issue 17 states the raw
//! multiplication at 27 µs ([`MUL_WHEN_TARGETS_WERE_SET`]) when it set its absolute targets.

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_group::{Group, Ristretto255, Scalar, par};

/// The series name of the kernel's rows.
pub const SERIES: &str = "reference: 1024 constant-time multiplications, one thread";

/// Multiplications per run of the kernel.
pub const MULS: usize = 1024;

/// Runs of the kernel per measurement (the median is kept).
pub const REPS: usize = 5;

/// One raw ristretto255 constant-time multiplication when issue 17 set its absolute targets
/// ("27 µs for the multiplication alone"); the kernel then took [`MULS`] times this.
pub const MUL_WHEN_TARGETS_WERE_SET: Duration = Duration::from_micros(27);

/// The kernel's time when the targets were set.
pub fn kernel_when_targets_were_set() -> Duration {
    MUL_WHEN_TARGETS_WERE_SET * MULS as u32
}

/// `MULS` random ristretto255 points, each with a random scalar: the kernel's inputs (also
/// the ceiling rows' of `examples/scaling`).
pub fn random_pairs(seed: u64) -> Vec<(Ristretto255, <Ristretto255 as Group>::Scalar)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..MULS)
        .map(|_| (Ristretto255::random(&mut rng), Scalar::random(&mut rng)))
        .collect()
}

/// Times the kernel now: the median of [`REPS`] runs, every run on the calling thread.
pub fn measure() -> Duration {
    let pairs = random_pairs(0x7e7e);
    let mut runs: Vec<Duration> = (0..REPS)
        .map(|_| {
            par::serial(|| {
                let start = std::time::Instant::now();
                let out: Vec<Ristretto255> = pairs.iter().map(|(p, s)| *p * s).collect();
                std::hint::black_box(out);
                start.elapsed()
            })
        })
        .collect();
    runs.sort_unstable();
    runs[REPS / 2]
}

/// `value` as it would have measured when the targets were set: scaled by the kernel's time
/// then over `kernel` (its time in the same run).
pub fn at_target_speed(value: f64, kernel: f64) -> f64 {
    value * kernel_when_targets_were_set().as_secs_f64() / kernel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slower_machine_scales_its_times_down() {
        let then = kernel_when_targets_were_set().as_secs_f64();
        assert!((then - 0.027648).abs() < 1e-9);
        // Twice as slow now: a 0.35 s round reads as 0.175 s at the targets' speed.
        assert!((at_target_speed(0.35, 2.0 * then) - 0.175).abs() < 1e-12);
        assert!((at_target_speed(0.35, then) - 0.35).abs() < 1e-12);
    }
}
