//! Quick 1- vs 2-thread timings of the operations issue 17 parallelises, alternated in one run:
//! `cargo run --release -p verdict-bench --example scaling [-- --reps N] [NAME-FILTER]`.
//! `VERDICT_THREADS` picks the thread counts (default `1,2`). Each operation runs `--reps`
//! times per thread count (default 5), the counts alternating; the median and the minimum are
//! printed with the speed-up against the first count. The first row is the machine's ceiling:
//! independent multiplications with nothing serial, whose speed-up bounds every other row's;
//! the second is the ceiling of a row that is one large multi-scalar multiplication split in
//! parts. Each thread count has one pool for the whole run. The two `wake` rows time short
//! sections back to back and after idleness: what waking a sleeping thread costs.
//! A check that the parallel paths pay off, not the measurement of record (that is
//! `cargo xtask bench` with `VERDICT_THREADS`, on an idle machine).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_bench::macro_bench::reference;
use verdict_dcnet::{
    Ciphersuite, ClientId, HashingGenerator, PreparedSlot, Roster, ServerId, Session, SessionId,
    SlotRound, Verifiable, Xor,
};
use verdict_group::{Group, MessageGroup, P256, Ristretto255, par};
use verdict_nizk::{BatchVerifier, SigningKey};
use verdict_shuffle::{Ciphertext, CiphertextList, KeyPair, ProofContext, ShuffleStatement};

type Op = Box<dyn Fn() + Send + Sync>;

/// An operation that times itself (only part of what it does counts).
type TimedOp = Box<dyn Fn() -> Duration + Send + Sync>;

/// An operation timed whole.
fn timed_whole(op: Op) -> TimedOp {
    Box::new(move || {
        let t0 = Instant::now();
        op();
        t0.elapsed()
    })
}

/// Each pair's constant-time product: the work of the ceiling and wake rows.
fn products(pairs: &[(Ristretto255, <Ristretto255 as Group>::Scalar)]) -> Vec<Ristretto255> {
    pairs.iter().map(|(p, s)| *p * s).collect()
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A session, its clients' states and its servers' states.
type World<C> = (
    Session<C>,
    Vec<<C as Ciphersuite>::ClientState>,
    Vec<<C as Ciphersuite>::ServerState>,
);

/// A session of `n` clients and `m` servers with one slot, and everyone's state.
fn session<C: Ciphersuite>(n: usize, m: usize) -> Result<World<C>, String> {
    let mut r = rng(1);
    let servers: Vec<_> = (0..m).map(|_| C::generate_key(&mut r)).collect();
    let clients: Vec<_> = (0..n).map(|_| C::generate_key(&mut r)).collect();
    let (_, pseudonym) = C::generate_pseudonym(&mut r);
    let roster = Roster::<C>::new(
        SessionId([9; 32]),
        servers.iter().map(|k| k.1.clone()).collect(),
        clients.iter().map(|k| k.1.clone()).collect(),
        vec![pseudonym],
    )
    .map_err(|e| e.to_string())?;
    let mut cstates = Vec::new();
    let mut csetups = Vec::new();
    for (i, (key, _)) in clients.iter().enumerate() {
        let (st, msg) =
            C::client_setup(&roster, ClientId(i as u32), key, &mut r).map_err(|e| e.to_string())?;
        cstates.push(st);
        csetups.push(msg);
    }
    let mut sstates = Vec::new();
    let mut ssetups = Vec::new();
    for (j, (key, _)) in servers.iter().enumerate() {
        let (st, msg) =
            C::server_setup(&roster, ServerId(j as u32), key, &mut r).map_err(|e| e.to_string())?;
        sstates.push(st);
        ssetups.push(msg);
    }
    let session = Session::establish(roster, &csetups, &ssetups).map_err(|e| e.to_string())?;
    Ok((session, cstates, sstates))
}

/// A server's eager batch of its own 128 clients' proofs of one slot of `len` bytes
/// (N = 1024, M = 8), and one client's cover ciphertext of that slot, over ristretto255.
fn hg_ops(len: usize) -> Result<Vec<(String, Op)>, String> {
    let (verify, _, cover) = hg_group_ops::<Ristretto255>(len)?;
    Ok(vec![
        (format!("hg verify 128 clients {len} B"), verify),
        (format!("hg cover {len} B"), cover),
    ])
}

/// The 2013 prototype's own measurement, re-done with both thread counts: the
/// hashing-generator over P-256 at its 3.7 KB block (128 of its 29-byte elements; 124 of our
/// 30-byte ones), generation and verification of one client ciphertext, and a server's batch
/// of 128. Plaintext rates against the prototype's (37 KB/s cover, 33 KB/s verification, one
/// core, `../shared/design/protocol.md`) are `3,712 B / time`.
fn hg_p256_ops() -> Result<Vec<(String, Op)>, String> {
    const PROTOTYPE_BLOCK: usize = 3712;
    let (batch, single, cover) = hg_group_ops::<P256>(PROTOTYPE_BLOCK)?;
    Ok(vec![
        (
            format!("hg p256 verify 128 clients {PROTOTYPE_BLOCK} B"),
            batch,
        ),
        (format!("hg p256 verify one {PROTOTYPE_BLOCK} B"), single),
        (format!("hg p256 cover {PROTOTYPE_BLOCK} B"), cover),
    ])
}

/// Over the group `G`, for one slot of `len` bytes (N = 1024, M = 8, a server's 128 clients):
/// the server's batched verification of its clients' covers, the verification of one cover
/// alone, and one client's cover.
fn hg_group_ops<G: MessageGroup>(len: usize) -> Result<(Op, Op, Op), String> {
    let (session, clients, _) = session::<HashingGenerator<G>>(128, 8)?;
    let slot = PreparedSlot::new(&session, SlotRound::new(0, 1, len)).map_err(|e| e.to_string())?;
    let mut r = rng(2);
    let cts = clients
        .iter()
        .map(|c| HashingGenerator::<G>::cover(&session, &slot, c, &mut r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let (session, slot, clients, cts) = (
        Arc::new(session),
        Arc::new(slot),
        Arc::new(clients),
        Arc::new(cts),
    );
    let (s2, p2, c2) = (session.clone(), slot.clone(), cts.clone());
    let batch: Op = Box::new(move || {
        let items: Vec<_> = c2
            .iter()
            .enumerate()
            .map(|(i, ct)| (ClientId(i as u32), ct))
            .collect();
        let ok = HashingGenerator::<G>::verify_clients(&s2, &p2, &items, &mut rng(3));
        assert!(ok.is_ok());
    });
    let (s3, p3) = (session.clone(), slot.clone());
    let single: Op = Box::new(move || {
        let ok = HashingGenerator::<G>::verify_client(&s3, &p3, ClientId(0), &cts[0]);
        assert!(ok.is_ok());
    });
    let cover: Op = Box::new(move || {
        let ok = HashingGenerator::<G>::cover(&session, &slot, &clients[0], &mut rng(4));
        assert!(ok.is_ok());
    });
    Ok((batch, single, cover))
}

/// One server's XOR ciphertext over 1024 clients, 1 KB slot.
fn xor_op() -> Result<(String, Op), String> {
    type X = Xor<Ristretto255>;
    let (session, clients, servers) = session::<X>(1024, 1)?;
    let slot =
        PreparedSlot::new(&session, SlotRound::new(0, 1, 1024)).map_err(|e| e.to_string())?;
    let mut r = rng(5);
    let cts = clients
        .iter()
        .map(|c| X::cover(&session, &slot, c, &mut r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let op: Op = Box::new(move || {
        let items: Vec<_> = cts
            .iter()
            .enumerate()
            .map(|(i, ct)| (ClientId(i as u32), ct))
            .collect();
        let ok = X::server_ciphertext(&session, &slot, &servers[0], &items, &mut rng(6));
        assert!(ok.is_ok());
    });
    Ok(("xor server pad 1024 clients 1 KB".into(), op))
}

/// The machine's own ceiling: 1024 independent constant-time multiplications, one task per
/// chunk, no shared state, nothing serial but the hand-off. A protocol operation's speed-up is
/// read against this one's from the same run (what two vCPUs of this VM give at best), not
/// only against the ideal ×2.
fn raw_op() -> (String, Op) {
    let pairs = reference::random_pairs(11);
    let op: Op = Box::new(move || {
        let out = par::chunked(&pairs, 64, products);
        std::hint::black_box(out);
    });
    ("raw 1024 constant-time multiplications".into(), op)
}

/// The first ceiling held as long as an eager round's busiest step (0.3–0.6 s on one thread at
/// N = 1024): 16 tasks of 1,024 multiplications each, one per slot as the round's wide maps
/// split its work. A short burst can run at a clock that a sustained load of both vCPUs does
/// not keep; this row says whether this VM gives two threads ×2 for as long as a round lasts.
fn raw_sustained_op() -> (String, Op) {
    let pairs = reference::random_pairs(13);
    let slots: Vec<usize> = (0..16).collect();
    let op: Op = Box::new(move || {
        let out = par::map(&slots, |_| products(&pairs));
        std::hint::black_box(out);
    });
    (
        "raw 16 x 1024 constant-time multiplications (sustained)".into(),
        op,
    )
}

/// The second ceiling: one variable-time multi-scalar multiplication of 2,049 terms (a
/// 1,024-signature batch's size) as `par::msm_vartime` splits it, one part per thread. The
/// parts are summed; each pays Pippenger's per-window bucket sums in full, so this row's
/// speed-up, below the first row's, bounds every row whose work is one large MSM.
fn raw_msm_op() -> (String, Op) {
    type S = <Ristretto255 as Group>::Scalar;
    let mut r = rng(12);
    let n = 2049;
    let scalars: Vec<S> = (0..n)
        .map(|_| <S as verdict_group::Scalar>::random(&mut r))
        .collect();
    let points: Vec<Ristretto255> = (0..n).map(|_| Ristretto255::random(&mut r)).collect();
    let op: Op = Box::new(move || {
        std::hint::black_box(par::msm_vartime(&scalars, &points).is_ok());
    });
    ("raw MSM of 2049 terms (vartime)".into(), op)
}

/// 1024 signatures in one batch (an inventory's forwarded submissions are ~900).
fn signatures_op() -> (String, Op) {
    let mut r = rng(7);
    let signed: Vec<_> = (0..1024u32)
        .map(|i| {
            let key = SigningKey::<Ristretto255>::generate(&mut r);
            let msg = i.to_le_bytes().to_vec();
            let sig = key.sign(b"scaling", &msg, &mut r);
            (key.verifying_key().clone(), msg, sig)
        })
        .collect();
    let op: Op = Box::new(move || {
        // As the protocol checks a batch of envelopes: challenges hashed in parallel, then one
        // multi-scalar multiplication.
        let items = par::map(&signed, |(key, msg, sig)| {
            sig.batch_item(key, b"scaling", msg)
        });
        let mut batch = BatchVerifier::<Ristretto255>::new();
        for item in items {
            batch.add_item(item);
        }
        assert!(batch.verify(&mut rng(8)).is_ok());
    });
    ("signature batch 1024".into(), op)
}

/// Neff shuffle of 1024 ElGamal pairs: prove, verify.
fn shuffle_ops() -> Vec<(String, Op)> {
    let mut r = rng(9);
    let kp = KeyPair::<Ristretto255>::generate(&mut r);
    let h = kp.public();
    let inputs = CiphertextList::new(
        (0..1024)
            .map(|_| Ciphertext::encrypt(&h, &Ristretto255::random(&mut r), &mut r).0)
            .collect(),
    );
    let (outputs, witness) = verdict_shuffle::shuffle(&h, &inputs, &mut r);
    let ctx = ProofContext::new([3; 32], 0);
    let st = ShuffleStatement {
        h,
        inputs: &inputs,
        outputs: &outputs,
    };
    let Ok(proof) = verdict_shuffle::prove(&ctx, &st, &witness, &mut r) else {
        return Vec::new();
    };
    let data = std::sync::Arc::new((inputs, outputs, witness, ctx, proof, h));
    let d2 = data.clone();
    let prove: Op = Box::new(move || {
        let (inputs, outputs, witness, ctx, _, h) = &*d2;
        let st = ShuffleStatement {
            h: *h,
            inputs,
            outputs,
        };
        assert!(verdict_shuffle::prove(ctx, &st, witness, &mut rng(10)).is_ok());
    });
    let verify: Op = Box::new(move || {
        let (inputs, outputs, _, ctx, proof, h) = &*data;
        let st = ShuffleStatement {
            h: *h,
            inputs,
            outputs,
        };
        assert!(verdict_shuffle::verify(ctx, &st, proof).is_ok());
    });
    vec![
        ("shuffle prove n = 1024".into(), prove),
        ("shuffle verify n = 1024".into(), verify),
    ]
}

/// What waking a sleeping thread costs a parallel section: 32 sections of 8 constant-time
/// multiplications split in two, each after `idle` with nothing to do (the caller sleeps, so
/// the pool's threads go to sleep too), only the sections timed. With no idle gap the other
/// thread is still looking for work when the next section starts; after a millisecond it is
/// asleep, and how long it takes to wake is the machine's (on a VM whose idle vCPUs halt at
/// once, tens of microseconds: docs/PERFORMANCE.md, "waking a thread"). The two rows'
/// speed-ups differ by what a message handler's short sections lose to it.
fn wake_op(idle: Duration) -> (String, TimedOp) {
    let pairs: Vec<_> = reference::random_pairs(14).into_iter().take(8).collect();
    let op: TimedOp = Box::new(move || {
        let mut sections = Duration::ZERO;
        for _ in 0..32 {
            if !idle.is_zero() {
                std::thread::sleep(idle);
            }
            let t0 = Instant::now();
            let out = par::chunked(&pairs, 4, products);
            sections += t0.elapsed();
            std::hint::black_box(out);
        }
        sections
    });
    let name = if idle.is_zero() {
        "wake: 32 sections of 2 x 4 multiplications, back to back".to_string()
    } else {
        format!(
            "wake: 32 sections of 2 x 4 multiplications, each after {} us idle",
            idle.as_micros()
        )
    };
    (name, op)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(5);
    let filter = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--reps"))
        .map(|(_, a)| a.clone());
    let counts = verdict_bench::macro_bench::threads::thread_counts()
        .map_err(|e| e.to_string())?
        .unwrap_or_else(|| vec![1, 2]);
    let mut whole = vec![raw_op(), raw_sustained_op(), raw_msm_op()];
    whole.extend(hg_ops(256)?);
    whole.extend(hg_ops(4096)?);
    whole.extend(hg_p256_ops()?);
    whole.push(xor_op()?);
    whole.push(signatures_op());
    whole.extend(shuffle_ops());
    let mut ops: Vec<(String, TimedOp)> = whole
        .into_iter()
        .map(|(name, op)| (name, timed_whole(op)))
        .collect();
    ops.push(wake_op(Duration::ZERO));
    ops.push(wake_op(Duration::from_millis(1)));
    // NAME-FILTER: substrings separated by `|`; an operation runs if its name holds one.
    ops.retain(|(name, _)| {
        filter
            .as_ref()
            .is_none_or(|f| f.split('|').any(|part| name.contains(part)))
    });
    println!(
        "operation\t{}",
        counts
            .iter()
            .map(|t| format!("threads={t}"))
            .collect::<Vec<_>>()
            .join("\t")
    );
    // One pool per thread count, kept for the whole run: a fresh pool per repetition would
    // time its threads' start-up and wake-up, not the operation.
    let pools = counts
        .iter()
        .map(|&t| par::Pool::new(t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    for (name, op) in &ops {
        let mut times = vec![Vec::new(); counts.len()];
        for _ in 0..reps {
            for (k, pool) in pools.iter().enumerate() {
                let took = pool.install(op);
                times[k].push(took);
            }
        }
        // Median and minimum: on a shared machine the minimum is the run least disturbed.
        let mins: Vec<Duration> = times
            .iter()
            .map(|t| t.iter().min().copied().unwrap_or_default())
            .collect();
        let medians: Vec<Duration> = times.into_iter().map(median).collect();
        let ms = |d: &Duration| d.as_secs_f64() * 1e3;
        let ratio = |v: &[Duration], d: &Duration| {
            let base = v.first().map_or(0.0, ms);
            if ms(d) > 0.0 { base / ms(d) } else { 0.0 }
        };
        let cells: Vec<String> = medians
            .iter()
            .zip(&mins)
            .map(|(m, n)| {
                format!(
                    "{:.2} ms (x{:.2}), min {:.2} ms (x{:.2})",
                    ms(m),
                    ratio(&medians, m),
                    ms(n),
                    ratio(&mins, n)
                )
            })
            .collect();
        println!("{name}\t{}", cells.join("\t"));
    }
    Ok(())
}
