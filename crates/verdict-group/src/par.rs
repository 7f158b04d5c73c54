//! Data parallelism for the crates of this workspace, behind the `parallel` feature.
//!
//! Every helper here computes exactly what its serial counterpart computes, in the same order:
//! group sums are exact, so splitting a multi-scalar multiplication into chunks and adding the
//! partial sums gives the same element, and maps keep their input order. Without the feature,
//! or inside a one-thread rayon pool, every helper runs the serial code itself (one chunk),
//! so a caller needs no `cfg` of its own and the single-threaded path stays the reference.
//!
//! Nothing here draws randomness: callers that batch with random weights draw them serially
//! first and hand only the pure work to these helpers, so the draw order never depends on the
//! thread count.
//!
//! The thread count is rayon's: the global pool (one thread per core) unless the caller runs
//! inside [`with_threads`] (or its own `rayon::ThreadPool::install`),
//! except inside one task of a wide [`map`], where it is 1 (see [`WIDE_MAP_ITEMS_PER_THREAD`]).

use crate::Group;
use crate::error::GroupError;

/// Threads the helpers may use here: 1 without the `parallel` feature or inside one task of a
/// wide [`map`], otherwise the size of the current rayon pool.
pub fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        if IN_WIDE_TASK.get() {
            1
        } else {
            rayon::current_num_threads().max(1)
        }
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Whether the helpers would split work here (the feature is on and the pool has more than one
/// thread).
pub fn enabled() -> bool {
    threads() > 1
}

/// How many chunks to split `len` items into: one per thread, but none smaller than `min`
/// items (small inputs are not worth a thread hop, and a multi-scalar multiplication gets
/// cheaper per term as it grows).
pub fn chunk_count(len: usize, min: usize) -> usize {
    (len / min.max(1)).clamp(1, threads())
}

/// `f` over consecutive chunks of `items` (see [`chunk_count`]), results in chunk order. One
/// chunk (the whole slice) when not parallel.
pub fn chunked<T, U, F>(items: &[T], min: usize, f: F) -> Vec<U>
where
    T: Sync,
    U: Send,
    F: Fn(&[T]) -> U + Sync + Send,
{
    let chunks = chunk_count(items.len(), min);
    if chunks <= 1 {
        return vec![f(items)];
    }
    let size = items.len().div_ceil(chunks);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_chunks(size).map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.chunks(size).map(f).collect()
    }
}

/// Items per thread from which a [`map`] is *wide*: its tasks alone keep every thread busy, so
/// each task runs the helpers it calls serially.
///
/// Why: splitting is not free. A multi-scalar multiplication split in two halves costs about
/// 10–25 % more than whole at the sizes of one slot's batch (Pippenger's per-window bucket
/// sums are paid once per part), and a split list decode allocates once per part. Under a map
/// over 16 slots on two threads, each slot's own split bought nothing (both halves ran on
/// the thread that split them) and cost that inflation: measured as 9 % more CPU in an eager
/// round on two threads than on one. With fewer items than this (one verifiable slot, a few
/// inventories) the tasks' own splits are what balances the threads, and they stay.
pub const WIDE_MAP_ITEMS_PER_THREAD: usize = 4;

#[cfg(feature = "parallel")]
thread_local! {
    /// Set while this thread runs one task of a wide map (see [`WIDE_MAP_ITEMS_PER_THREAD`]).
    /// Only timing depends on it: every helper computes the same result split or not.
    static IN_WIDE_TASK: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Whether a map over `len` items is wide (see [`WIDE_MAP_ITEMS_PER_THREAD`]).
#[cfg(feature = "parallel")]
fn is_wide(len: usize) -> bool {
    len >= WIDE_MAP_ITEMS_PER_THREAD.saturating_mul(threads())
}

/// `f()` with this thread's helpers serial, restoring the previous setting afterwards (also
/// on unwinding, so that a panicking task does not leave its thread serial for good). Through
/// this module a wide task never waits for other threads (its helpers run in place); only a
/// direct rayon call inside one could, and a task it stole meanwhile would run serially too:
/// slower, never different.
#[cfg(feature = "parallel")]
fn as_wide_task<U>(f: impl FnOnce() -> U) -> U {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_WIDE_TASK.set(self.0);
        }
    }
    let _restore = Restore(IN_WIDE_TASK.replace(true));
    f()
}

/// `f()` with every helper on this thread serial, as inside a one-thread pool, without leaving
/// the current pool. A benchmark that alternates one and two threads round by round keeps its
/// session on one thread of a two-thread pool and runs the one-thread rounds through this
/// (its state need not be `Send`, and both thread counts see the same heap and the same
/// moments of a virtual machine whose speed drifts). Helpers decide on [`threads`], which is
/// 1 here, so they run exactly the serial code; only timing depends on it.
pub fn serial<U>(f: impl FnOnce() -> U) -> U {
    #[cfg(feature = "parallel")]
    {
        as_wide_task(f)
    }
    #[cfg(not(feature = "parallel"))]
    {
        f()
    }
}

/// `f` over every item, results in input order (each item its own task: for items that are
/// each a sizeable piece of work, such as one slot or one client's submission). A wide map
/// (see [`WIDE_MAP_ITEMS_PER_THREAD`]) runs each task's own helpers serially.
pub fn map<T, U, F>(items: &[T], f: F) -> Vec<U>
where
    T: Sync,
    U: Send,
    F: Fn(&T) -> U + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if enabled() {
        use rayon::prelude::*;
        if is_wide(items.len()) {
            return items.par_iter().map(|x| as_wide_task(|| f(x))).collect();
        }
        return items.par_iter().map(f).collect();
    }
    items.iter().map(f).collect()
}

/// `f` over every item, mutably, in place (see [`map`]).
pub fn for_each_mut<T, F>(items: &mut [T], f: F)
where
    T: Send,
    F: Fn(&mut T) + Sync + Send,
{
    #[cfg(feature = "parallel")]
    if enabled() {
        use rayon::prelude::*;
        if is_wide(items.len()) {
            items.par_iter_mut().for_each(|x| as_wide_task(|| f(x)));
        } else {
            items.par_iter_mut().for_each(f);
        }
        return;
    }
    items.iter_mut().for_each(f);
}

/// `(a(), b())`, the two possibly at the same time.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(feature = "parallel")]
    if enabled() {
        return rayon::join(a, b);
    }
    (a(), b())
}

/// Drops `value`, on another thread of the pool when this one has several: freeing a round's
/// worth of small allocations (thousands of decoded submissions, a batch's proofs) is serial
/// work that nothing waits for, so a server hands it to an idle thread and goes on. Without
/// the feature, or inside a one-thread pool or [`serial`], `value` is dropped here and now.
/// Nothing observable depends on where: only when the memory returns to the allocator.
pub fn drop_later<T: Send + 'static>(value: T) {
    #[cfg(feature = "parallel")]
    if enabled() {
        rayon::spawn(move || drop(value));
        return;
    }
    drop(value);
}

/// Bytes below which [`hash`] hashes on the calling thread: BLAKE3's own threading pays only
/// on large inputs (its documentation puts the break-even near 128 KiB on x86-64).
pub const HASH_BYTES_PER_SPLIT: usize = 128 * 1024;

/// `blake3::hash(bytes)`. BLAKE3 is a tree hash, so a long input's chunks can be compressed on
/// several threads and combined into exactly the serial digest: done here, through BLAKE3's
/// rayon support, for inputs of at least [`HASH_BYTES_PER_SPLIT`] (a server's inventory is
/// megabytes, hashed once by its sender and once by every recipient before anything else
/// can happen).
pub fn hash(bytes: &[u8]) -> blake3::Hash {
    #[cfg(feature = "parallel")]
    if enabled() && bytes.len() >= HASH_BYTES_PER_SPLIT {
        return blake3::Hasher::new().update_rayon(bytes).finalize();
    }
    blake3::hash(bytes)
}

/// Group elements per task when a list is decoded in parallel ([`try_decode_items`]): below
/// this a list is decoded on the calling thread (validating one element takes microseconds,
/// about what a hand-off to another thread costs for ten).
pub const POINTS_PER_TASK: usize = 64;

/// `decode(i, item)` for every consecutive `item_len`-byte item of `bytes` (a trailing
/// partial item is not visited: callers check the length first), results in input order, or
/// the error of the first item in input order that fails. Long inputs are split into chunks
/// of at least `min` items decoded in parallel; each chunk stops at its first failure, so the
/// error returned is the one the serial loop returns. For wire lists of group elements, where
/// validating each element (a square root or a subgroup check) is most of the cost.
pub fn try_decode_items<T, E, F>(
    bytes: &[u8],
    item_len: usize,
    min: usize,
    decode: F,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    F: Fn(usize, &[u8]) -> Result<T, E> + Sync + Send,
{
    if item_len == 0 {
        return Ok(Vec::new());
    }
    let n = bytes.len() / item_len;
    let run = |lo: usize, hi: usize| -> Result<Vec<T>, E> {
        let items = bytes.get(lo * item_len..hi * item_len).unwrap_or_default();
        items
            .chunks_exact(item_len)
            .enumerate()
            .map(|(k, item)| decode(lo + k, item))
            .collect()
    };
    let bounds = chunk_bounds(n, min);
    if bounds.len() <= 2 {
        return run(0, n);
    }
    let pairs: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    let mut out = Vec::with_capacity(n);
    for part in map(&pairs, |&(lo, hi)| run(lo, hi)) {
        out.extend(part?);
    }
    Ok(out)
}

/// Terms per chunk below which a variable-time MSM is not split (Pippenger's cost per term
/// falls with the batch; below this a split costs more than it saves on two cores).
const MSM_VARTIME_MIN: usize = 256;
/// Terms per chunk below which a constant-time MSM is not split (Straus: roughly linear).
const MSM_MIN: usize = 32;
/// Scalar multiplications per chunk below which a batch is not split (each is tens of µs).
const MUL_MIN: usize = 4;

fn check_lengths(scalars: usize, points: usize) -> Result<(), GroupError> {
    if scalars == points {
        Ok(())
    } else {
        Err(GroupError::LengthMismatch {
            left: scalars,
            right: points,
        })
    }
}

/// [`Group::msm_vartime`], split into chunks computed in parallel and summed.
pub fn msm_vartime<G: Group>(scalars: &[G::Scalar], points: &[G]) -> Result<G, GroupError> {
    check_lengths(scalars.len(), points.len())?;
    let idx: Vec<usize> = chunk_bounds(scalars.len(), MSM_VARTIME_MIN);
    sum_chunks(&idx, |lo, hi| {
        G::msm_vartime(&scalars[lo..hi], &points[lo..hi])
    })
}

/// [`Group::msm`] (secret scalars, constant time), split into chunks computed in parallel and
/// summed. Each chunk runs the backend's constant-time MSM; only the public chunk boundaries
/// depend on the thread count.
pub fn msm<G: Group>(scalars: &[G::Scalar], points: &[G]) -> Result<G, GroupError> {
    check_lengths(scalars.len(), points.len())?;
    let idx: Vec<usize> = chunk_bounds(scalars.len(), MSM_MIN);
    sum_chunks(&idx, |lo, hi| G::msm(&scalars[lo..hi], &points[lo..hi]))
}

/// The start of every chunk of `len` items (plus `len` at the end).
fn chunk_bounds(len: usize, min: usize) -> Vec<usize> {
    let chunks = chunk_count(len, min);
    let size = len.div_ceil(chunks).max(1);
    let mut bounds: Vec<usize> = (0..len).step_by(size).collect();
    bounds.push(len);
    bounds
}

fn sum_chunks<G: Group>(
    bounds: &[usize],
    f: impl Fn(usize, usize) -> Result<G, GroupError> + Sync + Send,
) -> Result<G, GroupError> {
    if bounds.len() <= 2 {
        let hi = bounds.last().copied().unwrap_or(0);
        return f(0, hi);
    }
    let pairs: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    map(&pairs, |&(lo, hi)| f(lo, hi))
        .into_iter()
        .try_fold(G::identity(), |acc, part| Ok(acc + part?))
}

/// [`Group::mul_generator_encoded`] in parallel chunks (constant time, like the serial call).
pub fn mul_generator_encoded<G: Group>(scalars: &[G::Scalar]) -> (Vec<G>, Vec<G::Repr>) {
    concat(chunked(scalars, MUL_MIN, G::mul_generator_encoded))
}

/// [`Group::mul_each_encoded`] in parallel chunks (constant time, like the serial call).
pub fn mul_each_encoded<G: Group>(bases: &[G], s: &G::Scalar) -> (Vec<G>, Vec<G::Repr>) {
    concat(chunked(bases, MUL_MIN, |b| G::mul_each_encoded(b, s)))
}

/// [`Group::mul_many_vartime`] in parallel chunks (each chunk builds its own window table, so
/// this only splits large batches).
pub fn mul_many_vartime<G: Group>(base: &G, scalars: &[G::Scalar]) -> Vec<G> {
    chunked(scalars, MSM_VARTIME_MIN, |s| base.mul_many_vartime(s))
        .into_iter()
        .flatten()
        .collect()
}

fn concat<G: Group>(parts: Vec<(Vec<G>, Vec<G::Repr>)>) -> (Vec<G>, Vec<G::Repr>) {
    let mut parts = parts.into_iter();
    let Some((mut points, mut reprs)) = parts.next() else {
        return (Vec::new(), Vec::new());
    };
    for (p, r) in parts {
        points.extend(p);
        reprs.extend(r);
    }
    (points, reprs)
}

mod pool;
pub use pool::{Pool, PoolError, with_threads};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{P256, Ristretto255, Scalar};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    type S = <Ristretto255 as Group>::Scalar;

    fn one_and_two<T: Send + PartialEq + core::fmt::Debug>(f: impl Fn() -> T + Send + Sync) -> T {
        let one = with_threads(1, &f).unwrap();
        let two = with_threads(2, &f).unwrap();
        assert_eq!(one, two, "1 and 2 threads disagree");
        one
    }

    #[test]
    fn serial_is_a_one_thread_pool_for_its_closure_only() {
        let two = if cfg!(feature = "parallel") { 2 } else { 1 };
        let pool = Pool::new(2).unwrap();
        let (inside, chunks, after) = pool.install(|| {
            let items: Vec<u32> = (0..1000).collect();
            let (inside, chunks) = serial(|| (threads(), chunked(&items, 7, |c| c.len())));
            (inside, chunks, threads())
        });
        assert_eq!((inside, chunks, after), (1, vec![1000], two));
        // Restored on unwinding too: a panicking one-thread round leaves the pool's thread as
        // it was.
        let after_panic = pool.install(|| {
            let _ = std::panic::catch_unwind(|| serial(|| panic!("round failed")));
            threads()
        });
        assert_eq!(after_panic, two);
    }

    #[test]
    fn drop_later_drops_on_the_pool_or_at_once() {
        use std::sync::mpsc;
        struct Tell(mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let pool = Pool::new(2).unwrap();
        // Serial: dropped before the call returns, on this thread.
        let (tx, rx) = mpsc::channel();
        let here = pool.install(|| {
            serial(|| drop_later(Tell(tx)));
            std::thread::current().id()
        });
        assert_eq!(rx.try_recv(), Ok(here));
        // Two threads: dropped exactly once, by a thread of the pool (with the feature).
        let (tx, rx) = mpsc::channel();
        pool.install(|| drop_later(Tell(tx)));
        let by = rx.recv_timeout(std::time::Duration::from_secs(10));
        let test_thread = std::thread::current().id();
        assert_eq!(by.map(|t| t != test_thread), Ok(cfg!(feature = "parallel")));
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(50))
                .is_err()
        );
    }

    #[test]
    fn chunking_covers_every_item_once_in_order() {
        let items: Vec<u32> = (0..1000).collect();
        // The chunks differ with the thread count (that is the point); their concatenation not.
        assert_eq!(
            with_threads(1, || chunked(&items, 7, |c| c.len())).unwrap(),
            vec![1000]
        );
        let two = with_threads(2, || chunked(&items, 7, |c| c.len())).unwrap();
        assert_eq!(two.len(), if cfg!(feature = "parallel") { 2 } else { 1 });
        let out = one_and_two(|| chunked(&items, 7, |c| c.to_vec()).concat());
        assert_eq!(out, items);
        let bounds = with_threads(2, || chunk_bounds(1000, 256)).unwrap();
        assert_eq!(bounds.first(), Some(&0));
        assert_eq!(bounds.last(), Some(&1000));
        assert_eq!(
            with_threads(1, || chunk_bounds(5, 256)).unwrap(),
            vec![0, 5]
        );
        assert_eq!(with_threads(2, || chunk_count(10, 256)).unwrap(), 1);
        assert_eq!(one_and_two(|| map(&items, |x| x * 2))[999], 1998);
        let mut v = items.clone();
        with_threads(2, || for_each_mut(&mut v, |x| *x += 1)).unwrap();
        assert_eq!(v[0], 1);
        assert_eq!(one_and_two(|| join(|| 1, || 2)), (1, 2));
    }

    #[test]
    fn long_inputs_hash_to_the_serial_digest() {
        // Lengths around the split threshold and BLAKE3's 1 KiB chunks, not multiples of them.
        for len in [
            0,
            1,
            1025,
            HASH_BYTES_PER_SPLIT - 1,
            HASH_BYTES_PER_SPLIT,
            3_000_017,
        ] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            assert_eq!(
                one_and_two(|| hash(&bytes)),
                blake3::hash(&bytes),
                "{len} bytes"
            );
        }
    }

    #[test]
    fn split_multiplications_equal_the_serial_ones() {
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        let n = 600;
        let scalars: Vec<S> = (0..n).map(|_| S::random(&mut rng)).collect();
        let points: Vec<Ristretto255> = (0..n).map(|_| Ristretto255::random(&mut rng)).collect();
        let serial = Ristretto255::msm_vartime(&scalars, &points).unwrap();
        assert_eq!(
            one_and_two(|| msm_vartime(&scalars, &points).unwrap()),
            serial
        );
        let ct = Ristretto255::msm(&scalars, &points).unwrap();
        assert_eq!(one_and_two(|| msm(&scalars, &points).unwrap()), ct);
        assert!(one_and_two(|| msm_vartime(&scalars[1..], &points).is_err()));
        let (p, r) = Ristretto255::mul_generator_encoded(&scalars[..40]);
        assert_eq!(
            one_and_two(|| mul_generator_encoded(&scalars[..40])),
            (p, r)
        );
        let (p, r) = Ristretto255::mul_each_encoded(&points[..40], &scalars[0]);
        assert_eq!(
            one_and_two(|| mul_each_encoded(&points[..40], &scalars[0])),
            (p, r)
        );
        let many = points[0].mul_many_vartime(&scalars);
        assert_eq!(one_and_two(|| mul_many_vartime(&points[0], &scalars)), many);
        // The same on P-256 (arkworks), another backend.
        type Q = <P256 as Group>::Scalar;
        let qs: Vec<Q> = (0..300).map(|_| Q::random(&mut rng)).collect();
        let qp: Vec<P256> = (0..300).map(|_| P256::random(&mut rng)).collect();
        let serial = P256::msm_vartime(&qs, &qp).unwrap();
        assert_eq!(one_and_two(|| msm_vartime(&qs, &qp).unwrap()), serial);
    }

    #[test]
    fn item_decoding_keeps_order_and_names_the_first_failure() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(4 * 1000 + 3).collect();
        let sum = |i: usize, b: &[u8]| -> Result<(usize, u32), usize> {
            Ok((i, b.iter().map(|&x| u32::from(x)).sum()))
        };
        let out = one_and_two(|| try_decode_items(&bytes, 4, 8, sum).unwrap());
        assert_eq!(out.len(), 1000, "the trailing partial item is not visited");
        assert_eq!(
            out[999],
            (999, bytes[3996..4000].iter().map(|&x| u32::from(x)).sum())
        );
        assert!(out.iter().enumerate().all(|(i, (j, _))| i == *j));
        // Items 300 and 700 fail: whichever chunk finishes first, item 300 is named.
        let fails = |i: usize, _: &[u8]| if i == 300 || i == 700 { Err(i) } else { Ok(i) };
        assert_eq!(
            one_and_two(|| try_decode_items(&bytes, 4, 8, fails)),
            Err(300)
        );
        let late = |i: usize, _: &[u8]| if i == 700 { Err(i) } else { Ok(i) };
        assert_eq!(
            one_and_two(|| try_decode_items(&bytes, 4, 8, late)),
            Err(700)
        );
        assert_eq!(
            one_and_two(|| try_decode_items(&bytes, 0, 8, fails)),
            Ok(Vec::new())
        );
    }

    #[test]
    fn empty_inputs() {
        let none: [S; 0] = [];
        let id = one_and_two(|| msm_vartime::<Ristretto255>(&none, &[]).unwrap());
        assert!(id.is_identity());
        assert_eq!(
            one_and_two(|| mul_generator_encoded::<Ristretto255>(&none).0.len()),
            0
        );
    }

    /// The thread counts the helpers see on every thread of the current pool.
    #[cfg(feature = "parallel")]
    fn threads_seen_by_every_thread() -> Vec<usize> {
        rayon::broadcast(|_| threads())
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn tasks_of_a_wide_map_run_their_helpers_serially() {
        with_threads(2, || {
            let wide = vec![0u32; WIDE_MAP_ITEMS_PER_THREAD * 2];
            assert!(map(&wide, |_| threads()).iter().all(|&t| t == 1));
            let mut cells = wide.clone();
            for_each_mut(&mut cells, |c| *c = threads() as u32);
            assert!(cells.iter().all(|&t| t == 1));
            // One item fewer: the tasks alone cannot keep both threads busy, so they split.
            let narrow = &wide[1..];
            assert!(map(narrow, |_| threads()).iter().all(|&t| t == 2));
            assert_eq!(threads_seen_by_every_thread(), vec![2, 2]);
            // A panicking task leaves no thread serial behind it.
            let failed = std::panic::catch_unwind(|| {
                map(&wide, |&i| {
                    if i == 0 {
                        panic!("task fails")
                    } else {
                        threads()
                    }
                })
            });
            assert!(failed.is_err());
            assert_eq!(threads_seen_by_every_thread(), vec![2, 2]);
            // Nested: a wide map inside a narrow one's task is still wide.
            let nested = map(&[(); 2], |_| map(&wide, |_| threads()));
            assert!(nested.iter().flatten().all(|&t| t == 1));
        })
        .unwrap();
    }
}
