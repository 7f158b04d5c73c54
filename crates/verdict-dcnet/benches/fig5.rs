//! Figure 5 analog: client generation and verification throughput, in bytes of plaintext per
//! second (criterion `Throughput::Bytes`), per suite and group, against the slot size.
//!
//! Sessions have N = 1024 clients and M = 16 servers. Benchmark ids are systematic:
//!
//! ```text
//! fig5/<suite>/<group>/<op>/<bytes>
//! ```
//!
//! (criterion group `fig5/<suite>/<group>`, function `<op>`, parameter `<bytes>` = the slot
//! capacity in plaintext bytes), with `<suite>`/`<group>` the [`SuiteId`] construction and group
//! (`hashing-generator/ristretto255`, `hashing-generator/p256`, `elgamal/ristretto255`,
//! `elgamal/p256`, `pairing-chunk16/bls12-381`, `xor/ristretto255`) and `<op>`:
//!
//! | op | what is timed | bytes counted |
//! |---|---|---|
//! | `cover` | one cover client ciphertext (per-slot data prepared beforehand) | slot |
//! | `owner` | one owner client ciphertext carrying a full slot | slot |
//! | `prepare-slot` | the per-(slot, round) public data every participant computes once (hashed generators; pairing bases and `e(T_k, Z)`) | slot |
//! | `decode` | decoding and validating one client ciphertext from the wire | slot |
//! | `verify` | verifying one (decoded) client ciphertext | slot |
//! | `verify-batch` | verifying the [`BATCH`] client ciphertexts of a slot together | slot × batch |
//! | `server` | one server ciphertext over all N = 1024 clients | slot |
//! | `raw-blake3-16` | (XOR only) 16 raw blake3 keyed XOF streams, the keystream bound | slot |
//! | `reveal` | (XOR only) the reveal of a slot with an owner: 2 client (owner, cover) and M = 16 server ciphertexts XORed, then the frame checked | slot |
//!
//! Slow suites stop at smaller sizes (pairing: 256 B; ElGamal P-256: 4 KB; ElGamal
//! ristretto255 and hashing-generator P-256: 16 KB). Short run:
//! `cargo bench -p verdict-dcnet --bench fig5 -- --warm-up-time 1 --measurement-time 3 <filter>`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::cell::OnceCell;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::gt_table::GtTable;
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::{
    Ciphersuite, ClientId, HashingGenerator, PreparedSlot, Roster, SecretKey, ServerId, Session,
    SessionId, SlotRound, SuiteId, Verifiable, Xor,
};
use verdict_group::{MessageGroup, P256, Ristretto255, framing};

/// Clients in the session.
const N: usize = 1024;
/// Servers in the session.
const M: usize = 16;
/// Client ciphertexts per batch in `verify-batch` (4 for pairing).
const BATCH: usize = 32;

struct Fixture<C: Ciphersuite> {
    session: Session<C>,
    /// The states of the first `keep` clients.
    clients: Vec<C::ClientState>,
    servers: Vec<C::ServerState>,
    pseudonym: SecretKey<C>,
}

fn fixture<C: Ciphersuite>(keep: usize) -> Fixture<C> {
    let mut r = ChaCha20Rng::seed_from_u64(1);
    let (sk_s, pk_s): (Vec<_>, Vec<_>) = (0..M).map(|_| C::generate_key(&mut r)).unzip();
    let (sk_c, pk_c): (Vec<_>, Vec<_>) = (0..N).map(|_| C::generate_key(&mut r)).unzip();
    let (pseudonym, ppk) = C::generate_pseudonym(&mut r);
    let mut sid = [0u8; 32];
    r.fill_bytes(&mut sid);
    let roster = Roster::<C>::new(SessionId(sid), pk_s, pk_c, vec![ppk]).unwrap();
    let mut clients = Vec::new();
    let mut csetups = Vec::new();
    for (i, k) in sk_c.iter().enumerate() {
        let (st, msg) = C::client_setup(&roster, ClientId(i as u32), k, &mut r).unwrap();
        if i < keep {
            clients.push(st);
        }
        csetups.push(msg);
    }
    let (servers, ssetups): (Vec<_>, Vec<_>) = sk_s
        .iter()
        .enumerate()
        .map(|(j, k)| C::server_setup(&roster, ServerId(j as u32), k, &mut r).unwrap())
        .unzip();
    let session = Session::establish(roster, &csetups, &ssetups).unwrap();
    Fixture {
        session,
        clients,
        servers,
        pseudonym,
    }
}

fn group_name(id: SuiteId) -> String {
    format!("fig5/{}/{}", id.construction, id.group)
}

/// One element of `G`, then 256 B, 1 KB, 4 KB, 16 KB, 64 KB, up to `max`.
fn sizes<G: MessageGroup>(max: usize) -> Vec<usize> {
    let one = framing::max_message_len::<G>(1);
    [one, 256, 1024, 4096, 16384, 65536]
        .into_iter()
        .filter(|&l| l <= max)
        .collect()
}

/// Every op of a verifiable suite at each slot capacity in `lens`.
fn bench_verifiable<C: Verifiable>(c: &mut Criterion, lens: &[usize], batch: usize) {
    // Built on first use, so that filtered-out suites cost nothing.
    let cell = OnceCell::new();
    let f = || cell.get_or_init(|| fixture::<C>(batch));
    let mut r = ChaCha20Rng::seed_from_u64(2);
    let mut g = c.benchmark_group(group_name(C::ID));
    g.sample_size(10);
    for &len in lens {
        let sr = SlotRound::new(0, 1, len);
        let slot_cell = OnceCell::new();
        let slot = || slot_cell.get_or_init(|| PreparedSlot::new(&f().session, sr).unwrap());
        let cts_cell = OnceCell::new();
        let cts = || {
            cts_cell.get_or_init(|| {
                let mut r = ChaCha20Rng::seed_from_u64(3);
                let f = f();
                f.clients
                    .iter()
                    .map(|st| C::cover(&f.session, slot(), st, &mut r).unwrap())
                    .collect::<Vec<_>>()
            })
        };
        let items = || {
            cts()
                .iter()
                .enumerate()
                .map(|(i, ct)| (ClientId(i as u32), ct))
                .collect::<Vec<_>>()
        };
        let mut msg = vec![0u8; len];
        r.fill_bytes(&mut msg);
        let bytes = Throughput::Bytes(len as u64);
        g.throughput(bytes.clone());
        g.bench_function(BenchmarkId::new("cover", len), |b| {
            let (f, slot) = (f(), slot());
            b.iter(|| C::cover(&f.session, slot, &f.clients[0], &mut r).unwrap())
        });
        g.bench_function(BenchmarkId::new("owner", len), |b| {
            let (f, slot) = (f(), slot());
            b.iter(|| {
                C::owner(&f.session, slot, &f.clients[0], &f.pseudonym, &msg, &mut r).unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("prepare-slot", len), |b| {
            let f = f();
            b.iter(|| PreparedSlot::new(&f.session, sr).unwrap())
        });
        g.bench_function(BenchmarkId::new("decode", len), |b| {
            let encoded = C::encode_client_ciphertext(&cts()[0]);
            b.iter(|| C::decode_client_ciphertext(len, &encoded).unwrap())
        });
        g.bench_function(BenchmarkId::new("verify", len), |b| {
            let (f, slot, items) = (f(), slot(), items());
            b.iter(|| C::verify_client(&f.session, slot, items[0].0, items[0].1).unwrap())
        });
        g.throughput(Throughput::Bytes((len * batch) as u64));
        g.bench_function(BenchmarkId::new("verify-batch", len), |b| {
            let (f, slot, items) = (f(), slot(), items());
            b.iter(|| C::verify_clients(&f.session, slot, &items, &mut r).unwrap())
        });
        g.throughput(bytes);
        g.bench_function(BenchmarkId::new("server", len), |b| {
            // The server step over all N clients; every client's ciphertext is the first one
            // (only ids and, for ElGamal, the R_k sums matter for the cost).
            let (f, slot) = (f(), slot());
            let ct = &cts()[0];
            let all: Vec<_> = (0..N).map(|i| (ClientId(i as u32), ct)).collect();
            b.iter(|| C::server_ciphertext(&f.session, slot, &f.servers[0], &all, &mut r).unwrap())
        });
    }
    g.finish();
}

fn hashing_generator(c: &mut Criterion) {
    bench_verifiable::<HashingGenerator<Ristretto255>>(c, &sizes::<Ristretto255>(65536), BATCH);
    bench_verifiable::<HashingGenerator<P256>>(c, &sizes::<P256>(16384), BATCH);
}

fn elgamal(c: &mut Criterion) {
    bench_verifiable::<ElGamal<Ristretto255>>(c, &sizes::<Ristretto255>(16384), BATCH);
    bench_verifiable::<ElGamal<P256>>(c, &sizes::<P256>(4096), BATCH);
}

fn pairing(c: &mut Criterion) {
    // The GT decoding table (owner encoding) is built once per process, outside the timings.
    let _ = GtTable::global();
    // 2 bytes = 3 GT elements (the 4-byte length header takes two).
    bench_verifiable::<Pairing<Chunk16>>(c, &[2, 16, 64, 256], 4);
}

fn xor(c: &mut Criterion) {
    type X = Xor<Ristretto255>;
    let cell = OnceCell::new();
    // Two client states: the `reveal` op needs an owner and a cover of one slot.
    let f = || cell.get_or_init(|| fixture::<X>(2));
    let mut r = ChaCha20Rng::seed_from_u64(3);
    let mut g = c.benchmark_group(group_name(X::ID));
    for len in sizes::<Ristretto255>(65536) {
        let sr = SlotRound::new(0, 1, len);
        let slot_cell = OnceCell::new();
        let slot = || slot_cell.get_or_init(|| PreparedSlot::new(&f().session, sr).unwrap());
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(BenchmarkId::new("cover", len), |b| {
            let (f, slot) = (f(), slot());
            b.iter(|| X::cover(&f.session, slot, &f.clients[0], &mut r).unwrap())
        });
        let msg = vec![7u8; len];
        g.bench_function(BenchmarkId::new("owner", len), |b| {
            let (f, slot) = (f(), slot());
            b.iter(|| {
                X::owner(&f.session, slot, &f.clients[0], &f.pseudonym, &msg, &mut r).unwrap()
            })
        });
        // The keystream bound: M = 16 raw blake3 keyed XOF streams of the ciphertext length.
        let mut buf = vec![0u8; X::client_ciphertext_len(len)];
        g.bench_function(BenchmarkId::new("raw-blake3-16", len), |b| {
            b.iter(|| {
                for k in 0..M as u8 {
                    let mut h = blake3::Hasher::new_keyed(&[k; 32]);
                    h.update(b"baseline");
                    h.finalize_xof().fill(&mut buf);
                }
                buf[0]
            })
        });
        g.bench_function(BenchmarkId::new("server", len), |b| {
            let (f, slot) = (f(), slot());
            let ct = X::cover(&f.session, slot, &f.clients[0], &mut r).unwrap();
            let all: Vec<_> = (0..N).map(|i| (ClientId(i as u32), &ct)).collect();
            b.iter(|| X::server_ciphertext(&f.session, slot, &f.servers[0], &all, &mut r).unwrap())
        });
        // The reveal's cost beyond the XOR passes is the frame check, so the accepted set is
        // kept small (owner and one cover) to make that check visible.
        g.bench_function(BenchmarkId::new("reveal", len), |b| {
            let (f, slot) = (f(), slot());
            let owner =
                X::owner(&f.session, slot, &f.clients[0], &f.pseudonym, &msg, &mut r).unwrap();
            let cover = X::cover(&f.session, slot, &f.clients[1], &mut r).unwrap();
            let s = [(ClientId(0), &owner), (ClientId(1), &cover)];
            let ds: Vec<_> = f
                .servers
                .iter()
                .map(|st| X::server_ciphertext(&f.session, slot, st, &s, &mut r).unwrap())
                .collect();
            let refs: Vec<_> = ds.iter().collect();
            assert_eq!(
                X::reveal(&f.session, slot, &s, &refs).unwrap().as_deref(),
                Some(&msg[..])
            );
            b.iter(|| X::reveal(&f.session, slot, &s, &refs).unwrap())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = xor, hashing_generator, elgamal, pairing
}
criterion_main!(benches);
