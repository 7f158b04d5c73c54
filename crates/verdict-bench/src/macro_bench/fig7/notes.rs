//! The notes under the figure's table: the issues' targets at the largest N and, for
//! alternated sessions, each series' speed-up from one thread to the pool's count.

use super::super::drive::{RoundCost, secs};
use super::session::Measured;
use super::{EAGER, Variant};

/// Issue 6's targets at N = 1024 (seconds of server CPU).
const TARGET_EAGER_ROUND: f64 = 1.0;
const TARGET_XOR_ROUND: f64 = 0.1;
const TARGET_BLAME: f64 = 1.0;

/// The targets against the measurements at the largest N (each thread count's, and,
/// for alternated sessions, the speed-up of each series from one thread to the pool's count).
pub(super) fn target_notes(
    n: usize,
    at_max: &[(Variant, Measured)],
    alternated: bool,
) -> Vec<String> {
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let mut out = Vec::new();
    let scope = if n == 1024 {
        String::new()
    } else {
        format!(" (measured at N = {n} only: the targets are for N = 1024)")
    };
    for (v, m) in at_max {
        let on = if alternated {
            format!(" threads={}", m.threads)
        } else {
            String::new()
        };
        let round = m.median_round(|r| r.server_cpu);
        if v.label == EAGER.label {
            out.push(format!(
                "target: eager round <= {TARGET_EAGER_ROUND} s server CPU at N = 1024{on}: \
                 {round:.3} s, {}{scope}",
                verdict(round <= TARGET_EAGER_ROUND)
            ));
        }
        if v.mode.is_hybrid() {
            out.push(format!(
                "target: hybrid XOR round (1 KB slots) <= {} ms server CPU at N = 1024{on}: \
                 {:.1} ms, {}{scope}",
                TARGET_XOR_ROUND * 1000.0,
                round * 1000.0,
                verdict(round <= TARGET_XOR_ROUND)
            ));
            if let (Some(b), Some(sim)) = (m.blame_server, m.blame_simulated) {
                out.push(format!(
                    "target: hybrid blame <= {TARGET_BLAME} s server CPU at N = 1024{on}: \
                     {:.3} s, {}{scope}; simulated accusation-to-verdict time {:.2} s",
                    secs(b),
                    verdict(secs(b) <= TARGET_BLAME),
                    secs(sim)
                ));
            }
        }
    }
    if alternated {
        out.extend(speedup_notes(n, at_max));
    }
    out
}

/// For every series measured on one thread and on more in alternated sessions: the ratio of
/// the one-thread median to the other's.
fn speedup_notes(n: usize, at_max: &[(Variant, Measured)]) -> Vec<String> {
    let mut out = Vec::new();
    for (v, one) in at_max.iter().filter(|(_, m)| m.threads == 1) {
        for (_, many) in at_max
            .iter()
            .filter(|(w, m)| w.label == v.label && m.threads > 1)
        {
            let t = many.threads;
            let cpu = |r: &RoundCost| r.server_cpu;
            let mut ratios = vec![format!(
                "{} round x{:.2}",
                v.label,
                one.median_round(cpu) / many.median_round(cpu)
            )];
            if let (Some(a), Some(b)) = (one.blame_server, many.blame_server) {
                ratios.push(format!("blame x{:.2}", secs(a) / secs(b)));
            }
            out.push(format!(
                "alternated rounds at N = {n}, 1 -> {t} threads (busiest server CPU, medians): {}",
                ratios.join(", ")
            ));
        }
    }
    out
}
