//! Figure 5 analog: client generation and verification throughput (bytes of plaintext per
//! second) per suite and group, for block sizes from one element to 64 KB; XOR against a
//! raw-blake3 baseline. Sessions use N = 1024 clients and M = 16 servers where it matters.
//!
//! Short sanity run: `cargo bench -p verdict-dcnet --bench dcnet -- --warm-up-time 1
//! --measurement-time 2 <filter>`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::cell::OnceCell;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use verdict_dcnet::{
    Ciphersuite, ClientId, HashingGenerator, PreparedSlot, Roster, ServerId, Session, SessionId,
    SlotRound, Verifiable, Xor,
};
use verdict_group::{MessageGroup, P256, Ristretto255, framing};

const N: usize = 1024;
const M: usize = 16;
/// Clients per batch in the verification benchmark (throughput is per plaintext byte of the
/// verified ciphertexts).
const BATCH: usize = 32;

struct Fixture<C: Ciphersuite> {
    session: Session<C>,
    clients: Vec<C::ClientState>,
    servers: Vec<C::ServerState>,
    pseudonym: C::PseudonymSecretKey,
}

/// A session with `n` clients of which only the first `keep` run their set-up (the others'
/// set-up messages are computed by the servers' side, which is all the benchmarks need).
fn fixture<C: Ciphersuite>(n: usize, m: usize, keep: usize) -> Fixture<C> {
    let mut r = ChaCha20Rng::seed_from_u64(1);
    let (sk_s, pk_s): (Vec<_>, Vec<_>) = (0..m).map(|_| C::generate_key(&mut r)).unzip();
    let (sk_c, pk_c): (Vec<_>, Vec<_>) = (0..n).map(|_| C::generate_key(&mut r)).unzip();
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
    let mut servers = Vec::new();
    let mut ssetups = Vec::new();
    for (j, k) in sk_s.iter().enumerate() {
        let (st, msg) = C::server_setup(&roster, ServerId(j as u32), k, &mut r).unwrap();
        servers.push(st);
        ssetups.push(msg);
    }
    let session = Session::establish(roster, &csetups, &ssetups).unwrap();
    Fixture {
        session,
        clients,
        servers,
        pseudonym,
    }
}

fn sizes<G: MessageGroup>() -> Vec<usize> {
    // One element, then 1 KB, 4 KB, 16 KB, 64 KB of plaintext.
    vec![framing::max_message_len::<G>(1), 1024, 4096, 16384, 65536]
}

fn bench_hg<G: MessageGroup>(c: &mut Criterion, max: usize, n: usize) {
    type Hg<G> = HashingGenerator<G>;
    // Built on first use, so that filtered-out groups cost nothing.
    let fixture_cell = OnceCell::new();
    let f = || fixture_cell.get_or_init(|| fixture::<Hg<G>>(n, M, BATCH));
    let mut r = ChaCha20Rng::seed_from_u64(2);
    let mut g = c.benchmark_group(format!("fig5/hashing-generator/{}", G::NAME));
    g.sample_size(10);
    for len in sizes::<G>().into_iter().filter(|&l| l <= max) {
        let sr = SlotRound::new(0, 1, len);
        let slot_cell = OnceCell::new();
        let slot = || slot_cell.get_or_init(|| PreparedSlot::new(&f().session, sr).unwrap());
        let cts_cell = OnceCell::new();
        let cts = || {
            cts_cell.get_or_init(|| {
                let mut r = ChaCha20Rng::seed_from_u64(3);
                let f = f();
                (0..BATCH)
                    .map(|i| Hg::<G>::cover(&f.session, slot(), &f.clients[i], &mut r).unwrap())
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
        let msg = vec![0x5a; len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::new("cover+generators", len), &len, |b, _| {
            let f = f();
            b.iter(|| {
                let slot = PreparedSlot::new(&f.session, sr).unwrap();
                Hg::<G>::cover(&f.session, &slot, &f.clients[0], &mut r).unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("cover", len), &len, |b, _| {
            let (f, slot) = (f(), slot());
            b.iter(|| Hg::<G>::cover(&f.session, slot, &f.clients[0], &mut r).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("owner", len), &len, |b, _| {
            let (f, slot) = (f(), slot());
            b.iter(|| {
                Hg::<G>::owner(&f.session, slot, &f.clients[0], &f.pseudonym, &msg, &mut r).unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("verify-one", len), &len, |b, _| {
            let (f, slot, items) = (f(), slot(), items());
            b.iter(|| Hg::<G>::verify_client(&f.session, slot, items[0].0, items[0].1).unwrap())
        });
        g.throughput(Throughput::Bytes((len * BATCH) as u64));
        g.bench_with_input(
            BenchmarkId::new("decode+verify-batch", len),
            &len,
            |b, _| {
                let (f, slot) = (f(), slot());
                let bytes: Vec<Vec<u8>> = cts()
                    .iter()
                    .map(Hg::<G>::encode_client_ciphertext)
                    .collect();
                b.iter(|| {
                    let decoded: Vec<_> = bytes
                        .iter()
                        .map(|b| Hg::<G>::decode_client_ciphertext(len, b).unwrap())
                        .collect();
                    let items: Vec<_> = decoded
                        .iter()
                        .enumerate()
                        .map(|(i, ct)| (ClientId(i as u32), ct))
                        .collect();
                    Hg::<G>::verify_clients(&f.session, slot, &items, &mut r).unwrap()
                })
            },
        );
        g.bench_with_input(BenchmarkId::new("verify-batch", len), &len, |b, _| {
            let (f, slot, items) = (f(), slot(), items());
            b.iter(|| Hg::<G>::verify_clients(&f.session, slot, &items, &mut r).unwrap())
        });
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::new("server-over-batch", len), &len, |b, _| {
            let (f, slot, items) = (f(), slot(), items());
            b.iter(|| {
                Hg::<G>::server_ciphertext(&f.session, slot, &f.servers[0], &items, &mut r).unwrap()
            })
        });
    }
    g.finish();
}

fn hg_ristretto(c: &mut Criterion) {
    bench_hg::<Ristretto255>(c, 65536, N);
}

fn hg_p256(c: &mut Criterion) {
    // P-256 set-up for N = 1024 costs ~30k slow multiplications; client costs do not depend
    // on N, so the P-256 session has only the benchmark's clients.
    bench_hg::<P256>(c, 4096, BATCH);
}

fn xor(c: &mut Criterion) {
    type X = Xor<Ristretto255>;
    let f = &fixture::<X>(N, M, 1);
    let mut r = ChaCha20Rng::seed_from_u64(3);
    let mut g = c.benchmark_group("fig5/xor/ristretto255");
    for len in [1024usize, 65536, 1 << 20] {
        let sr = SlotRound::new(0, 1, len);
        let slot = PreparedSlot::new(&f.session, sr).unwrap();
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::new("cover-M16", len), &len, |b, _| {
            b.iter(|| X::cover(&f.session, &slot, &f.clients[0], &mut r).unwrap())
        });
        let msg = vec![7u8; len];
        g.bench_with_input(BenchmarkId::new("owner-M16", len), &len, |b, _| {
            b.iter(|| {
                X::owner(&f.session, &slot, &f.clients[0], &f.pseudonym, &msg, &mut r).unwrap()
            })
        });
        // Baseline: 16 raw blake3 keyed XOF streams of the same length (no XOR).
        let mut buf = vec![0u8; len];
        g.bench_with_input(
            BenchmarkId::new("raw-blake3-16-streams", len),
            &len,
            |b, _| {
                b.iter(|| {
                    for k in 0..16u8 {
                        let mut h = blake3::Hasher::new_keyed(&[k; 32]);
                        h.update(b"baseline");
                        h.finalize_xof().fill(&mut buf);
                    }
                    buf[0]
                })
            },
        );
    }
    // A server's ciphertext over all N = 1024 clients, 4 KB slot.
    let len = 4096;
    let sr = SlotRound::new(0, 2, len);
    let slot = PreparedSlot::new(&f.session, sr).unwrap();
    let ct = X::cover(&f.session, &slot, &f.clients[0], &mut r).unwrap();
    let all: Vec<_> = (0..N).map(|i| (ClientId(i as u32), &ct)).collect();
    g.throughput(Throughput::Bytes(len as u64));
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("server-N1024", len), |b| {
        b.iter(|| X::server_ciphertext(&f.session, &slot, &f.servers[0], &all, &mut r).unwrap())
    });
    g.finish();
}

criterion_group!(benches, xor, hg_ristretto, hg_p256);
criterion_main!(benches);
