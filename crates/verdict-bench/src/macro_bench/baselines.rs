//! Figure 8's two baselines, replayed on the same traces as Verdict: no anonymity, and a
//! verifiable mix cascade (M servers, each re-encrypting, shuffling and proving with Neff's
//! proof from `verdict-shuffle`, then a verifiable joint decryption).
//!
//! **No anonymity.** Each post goes to one server (one link), which checks its author's
//! signature (measured: a verdict-nizk Schnorr verification) and broadcasts it (one link). The
//! server handles posts one at a time in arrival order, so a burst queues.
//!
//! **Mix cascade.** Traffic-analysis resistant like Verdict: every round every user submits one
//! fixed-size message (its next post or a dummy), ElGamal-encrypted under the servers' joint
//! key. The servers then run one after another: each verifies the previous step's proof, then
//! re-encrypts, shuffles and proves its own step ([`server_shuffle`] and [`verify_shuffle_step`], the batched verifier). Finally each server publishes
//! decryption shares with a vector DLEQ proof (in parallel: one server's time), and each
//! checks the others' ([`verify_decryption_step`], `M − 1` of them in turn).
//! A round therefore lasts
//!
//! `link + M · (verify + prove) + (M − 1) · link + decrypt + (M − 1) · verify_decrypt + link`,
//!
//! every term measured here at the round's list size. Rounds are not pipelined (a server does
//! not start the next round's step while later servers finish this one), as in Verdict's
//! lock-step rounds; a pipelined cascade could start a round every `verify + prove`.
//!
//! A post of up to 284 bytes needs `e = ⌈284 / 30⌉ = 10` ristretto255 elements. `verdict-shuffle`
//! shuffles lists of single ElGamal pairs; a cascade of `e`-element messages needs one
//! permutation for all `e` columns (a width-`e` shuffle), which it does not provide. Two cases
//! bracket its cost: **`e` columns** — the round's list is `N · e` pairs, i.e. every column
//! shuffled and proved on its own (an upper bound: a width-`e` proof shares its permutation
//! commitments across columns, though its re-encryptions and their part of the proof still
//! grow with `N · e`); **one element** — the list is `N` pairs, as if a post fitted in one
//! element (a lower bound).

use core::time::Duration;
use std::time::Instant;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_group::{Group, Ristretto255};
use verdict_shuffle::keyshuffle::{
    server_decrypt, server_shuffle, verify_decryption_step, verify_shuffle_step,
};
use verdict_shuffle::{Ciphertext, CiphertextList, KeyPair, KeyShuffleParams};

use super::MacroError;
use super::workload::{MAX_POST, Post};

type G = Ristretto255;

/// Plaintext bytes one ristretto255 element carries (`MessageGroup::CAPACITY`).
const ELEMENT_BYTES: usize = 30;

/// Elements of one cascade message: a whole post with the 4-byte header the Verdict slots
/// carry too.
pub const ELEMENTS_PER_POST: usize = (MAX_POST + 4).div_ceil(ELEMENT_BYTES);

/// The measured costs of one cascade round over a list of `pairs` ElGamal pairs.
#[derive(Clone, Copy, Debug)]
pub struct CascadeCost {
    /// Pairs in the round's list.
    pub pairs: usize,
    /// One server's shuffle and proof.
    pub prove: Duration,
    /// One shuffle step's batched verification.
    pub verify: Duration,
    /// One server's decryption shares and proof.
    pub decrypt: Duration,
    /// One decryption step's verification.
    pub verify_decrypt: Duration,
}

impl CascadeCost {
    /// Measures each operation on a list of `pairs` random pairs with `servers` keys: the
    /// median of a few runs (more for small lists, whose single runs are noisy).
    pub fn measure(pairs: usize, servers: usize, seed: u64) -> Result<Self, MacroError> {
        let err = |what: &str, e: &dyn core::fmt::Display| MacroError(format!("{what}: {e}"));
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let keys: Vec<KeyPair<G>> = (0..servers).map(|_| KeyPair::generate(&mut rng)).collect();
        let params = KeyShuffleParams::new(
            [7u8; 32],
            keys.iter().map(KeyPair::public).collect(),
            pairs.max(2),
        )
        .map_err(|e| err("cascade parameters", &e))?;
        let key = keys
            .first()
            .ok_or_else(|| MacroError("no servers".into()))?;
        let h = params.joint_key();
        let inputs = CiphertextList::new(
            (0..pairs.max(2))
                .map(|_| Ciphertext::encrypt(&h, &G::random(&mut rng), &mut rng).0)
                .collect(),
        );
        let reps = (20_000 / pairs.max(1)).clamp(3, 9);
        let mut runs: [Vec<Duration>; 4] = Default::default();
        for _ in 0..reps {
            let t = Instant::now();
            let step =
                server_shuffle(&params, 0, &inputs, &mut rng).map_err(|e| err("shuffle", &e))?;
            runs[0].push(t.elapsed());
            let t = Instant::now();
            verify_shuffle_step(&params, 0, &inputs, &step).map_err(|e| err("verify", &e))?;
            runs[1].push(t.elapsed());
            let t = Instant::now();
            let shares = server_decrypt(&params, 0, key, &step.outputs, &mut rng)
                .map_err(|e| err("decrypt", &e))?;
            runs[2].push(t.elapsed());
            let t = Instant::now();
            verify_decryption_step(&params, 0, &step.outputs, &shares)
                .map_err(|e| err("verify decryption", &e))?;
            runs[3].push(t.elapsed());
        }
        let [prove, verify, decrypt, verify_decrypt] = runs.map(|mut r| {
            r.sort();
            r.get(r.len() / 2).copied().unwrap_or_default()
        });
        Ok(Self {
            pairs,
            prove,
            verify,
            decrypt,
            verify_decrypt,
        })
    }

    /// One round with `servers` servers and one-way `link` latency, from the first client's
    /// submission to the plaintexts at the clients (the formula in the module notes; the first
    /// server has no previous step to verify).
    pub fn round(&self, servers: usize, link: Duration) -> Duration {
        let m = servers as u32;
        let hops = m.saturating_sub(1);
        link + self.prove * m
            + self.verify * hops
            + link * hops
            + self.decrypt
            + self.verify_decrypt * hops
            + link
    }
}

/// Replays `trace` through rounds of a fixed `round` length back to back from time 0: each
/// round carries at most one post per user (its oldest waiting post that arrived before the
/// round started), delivered when the round ends. Returns each post's delivering round
/// (`None`: not delivered within `max_rounds`) and the rounds' end times.
pub fn replay_rounds(
    trace: &[Post],
    users: usize,
    round: Duration,
    max_rounds: u64,
) -> (Vec<Option<u64>>, Vec<Duration>) {
    let mut delivered = vec![None; trace.len()];
    let mut queues: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); users];
    let mut round_end = Vec::new();
    let (mut next, mut waiting) = (0usize, 0usize);
    for r in 0..max_rounds {
        let start = round * r as u32;
        while let Some(p) = trace.get(next).filter(|p| p.at <= start) {
            if let Some(q) = queues.get_mut(p.user) {
                q.push_back(next);
                waiting += 1;
            }
            next += 1;
        }
        for q in &mut queues {
            if let Some(p) = q.pop_front()
                && let Some(d) = delivered.get_mut(p)
            {
                *d = Some(r);
                waiting -= 1;
            }
        }
        round_end.push(start + round);
        if next == trace.len() && waiting == 0 {
            break;
        }
    }
    (delivered, round_end)
}

/// Latency of every post without anonymity: one link to a server that verifies each post's
/// signature in turn (`verify` each), one link back.
pub fn no_anonymity(trace: &[Post], verify: Duration, link: Duration) -> Vec<f64> {
    let mut free = Duration::ZERO;
    trace
        .iter()
        .map(|p| {
            let start = (p.at + link).max(free);
            free = start + verify;
            (free + link - p.at).as_secs_f64()
        })
        .collect()
}

/// The time one server takes to verify one post's signature (median of `reps`).
pub fn signature_verify_time(reps: usize, seed: u64) -> Result<Duration, MacroError> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let key = verdict_nizk::SigningKey::<G>::generate(&mut rng);
    let post = vec![b'#'; MAX_POST];
    let sig = key.sign(b"baseline-post", &post, &mut rng);
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        key.verifying_key()
            .verify(b"baseline-post", &post, &sig)
            .map_err(|e| MacroError(format!("signature: {e}")))?;
        times.push(t.elapsed());
    }
    times.sort();
    Ok(times.get(times.len() / 2).copied().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(at_ms: u64, user: usize) -> Post {
        Post {
            at: Duration::from_millis(at_ms),
            user,
            len: 140,
        }
    }

    #[test]
    fn a_post_waits_for_the_next_round_and_a_users_posts_go_one_per_round() {
        // Rounds of 100 ms: user 0 posts at 0 ms (round 0) and twice at 50 ms (rounds 1, 2);
        // user 1 posts at 150 ms (round 2).
        let trace = [post(0, 0), post(50, 0), post(50, 0), post(150, 1)];
        let (delivered, ends) = replay_rounds(&trace, 2, Duration::from_millis(100), 10);
        assert_eq!(delivered, vec![Some(0), Some(1), Some(2), Some(2)]);
        assert_eq!(ends.len(), 3);
        assert_eq!(ends[2], Duration::from_millis(300));
    }

    #[test]
    fn posts_beyond_the_round_budget_are_undelivered() {
        let trace = [post(0, 0), post(0, 0), post(0, 0)];
        let (delivered, _) = replay_rounds(&trace, 1, Duration::from_millis(10), 2);
        assert_eq!(delivered, vec![Some(0), Some(1), None]);
    }

    #[test]
    fn without_anonymity_a_burst_queues_at_the_server() {
        let link = Duration::from_millis(10);
        let verify = Duration::from_millis(1);
        let lat = no_anonymity(&[post(0, 0), post(0, 1), post(100, 0)], verify, link);
        let ms: Vec<u64> = lat.iter().map(|s| (s * 1000.0).round() as u64).collect();
        assert_eq!(ms, vec![21, 22, 21]);
    }

    #[test]
    fn a_cascade_round_adds_every_step() {
        let ms = Duration::from_millis;
        let c = CascadeCost {
            pairs: 10,
            prove: ms(10),
            verify: ms(5),
            decrypt: ms(3),
            verify_decrypt: ms(2),
        };
        // link 1 + 3·10 + 2·5 + 2·1 + 3 + 2·2 + 1
        assert_eq!(c.round(3, ms(1)), ms(51));
    }

    #[test]
    fn a_small_cascade_round_is_measured() {
        let c = CascadeCost::measure(4, 2, 1).unwrap();
        assert!(c.prove > Duration::ZERO && c.verify > Duration::ZERO);
        assert_eq!(ELEMENTS_PER_POST, 10);
    }
}
