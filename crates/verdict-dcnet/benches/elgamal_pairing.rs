//! Criterion benchmarks for the ElGamal-style suite (ristretto255, P-256) and the pairing suite
//! (BLS12-381, 16-bit chunks): client cover/owner generation and client verification
//! throughput against slot capacity, server ciphertext creation, plus the ciphertext sizes
//! (printed once). Pairing sizes are kept small: every GT element costs milliseconds.
//!
//! Short run: `cargo bench -p verdict-dcnet --bench elgamal_pairing`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::gt_table::{ChunkBits, GtTable};
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::{
    Ciphersuite, ClientId, PreparedSlot, Roster, ServerId, Session, SessionId, SlotRound,
    Verifiable,
};
use verdict_group::{P256, Ristretto255};

struct World<C: Ciphersuite> {
    session: Session<C>,
    pseudonym: C::PseudonymSecretKey,
    clients: Vec<C::ClientState>,
    servers: Vec<C::ServerState>,
}

fn world<C: Ciphersuite>(n: usize, m: usize, rng: &mut ChaCha20Rng) -> World<C> {
    let (server_keys, server_pks): (Vec<_>, Vec<_>) = (0..m).map(|_| C::generate_key(rng)).unzip();
    let (client_keys, client_pks): (Vec<_>, Vec<_>) = (0..n).map(|_| C::generate_key(rng)).unzip();
    let (pseudonym, y) = C::generate_pseudonym(rng);
    let roster = Roster::<C>::new(SessionId([5; 32]), server_pks, client_pks, vec![y]).unwrap();
    let (clients, csetup): (Vec<_>, Vec<_>) = client_keys
        .iter()
        .enumerate()
        .map(|(i, k)| C::client_setup(&roster, ClientId(i as u32), k, rng).unwrap())
        .unzip();
    let (servers, ssetup): (Vec<_>, Vec<_>) = server_keys
        .iter()
        .enumerate()
        .map(|(j, k)| C::server_setup(&roster, ServerId(j as u32), k, rng).unwrap())
        .unzip();
    let session = Session::establish(roster, &csetup, &ssetup).unwrap();
    World {
        session,
        pseudonym,
        clients,
        servers,
    }
}

/// Cover and owner generation, single verification and server creation (N = `n` clients) for
/// each slot capacity in `lens`.
fn bench_suite<C: Verifiable>(c: &mut Criterion, name: &str, lens: &[usize], n: usize) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let w = world::<C>(n, 2, &mut rng);
    let mut g = c.benchmark_group(format!("dcnet/{name}"));
    for &len in lens {
        let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, len)).unwrap();
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        eprintln!(
            "{name}: capacity {len} B -> client ciphertext {} B ({:.1}x), server ciphertext {} B",
            C::client_ciphertext_len(len),
            C::client_ciphertext_len(len) as f64 / len.max(1) as f64,
            C::server_ciphertext_len(len)
        );
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::new("cover", len), &len, |b, _| {
            b.iter(|| C::cover(&w.session, &slot, &w.clients[0], &mut rng).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("owner", len), &len, |b, _| {
            b.iter(|| {
                C::owner(
                    &w.session,
                    &slot,
                    &w.clients[0],
                    &w.pseudonym,
                    &msg,
                    &mut rng,
                )
                .unwrap()
            })
        });
        let cts: Vec<C::ClientCiphertext> = w
            .clients
            .iter()
            .map(|st| C::cover(&w.session, &slot, st, &mut rng).unwrap())
            .collect();
        g.bench_with_input(BenchmarkId::new("verify", len), &len, |b, _| {
            b.iter(|| C::verify_client(&w.session, &slot, ClientId(0), &cts[0]).unwrap())
        });
        let bytes = C::encode_client_ciphertext(&cts[0]);
        g.bench_with_input(BenchmarkId::new("decode", len), &len, |b, _| {
            b.iter(|| C::decode_client_ciphertext(len, &bytes).unwrap())
        });
        let items: Vec<(ClientId, &C::ClientCiphertext)> = cts
            .iter()
            .enumerate()
            .map(|(i, ct)| (ClientId(i as u32), ct))
            .collect();
        g.throughput(Throughput::Bytes((len * n) as u64));
        g.bench_with_input(
            BenchmarkId::new(format!("verify-batch-{n}"), len),
            &len,
            |b, _| b.iter(|| C::verify_clients(&w.session, &slot, &items, &mut rng).unwrap()),
        );
        g.bench_with_input(
            BenchmarkId::new(format!("server-{n}"), len),
            &len,
            |b, _| {
                b.iter(|| {
                    C::server_ciphertext(&w.session, &slot, &w.servers[0], &items, &mut rng)
                        .unwrap()
                })
            },
        );
    }
    g.finish();
}

fn elgamal(c: &mut Criterion) {
    bench_suite::<ElGamal<Ristretto255>>(c, "elgamal-ristretto255", &[116, 1016, 3836], 16);
    bench_suite::<ElGamal<P256>>(c, "elgamal-p256", &[116, 1016], 16);
}

fn pairing(c: &mut Criterion) {
    // Build the decoding table outside the measurements (reported once).
    let t = std::time::Instant::now();
    let _ = GtTable::global();
    eprintln!("pairing: GT chunk table built in {:?}", t.elapsed());
    bench_suite::<Pairing<Chunk16>>(c, "pairing-chunk16", &[2, 16, 60], 4);
}

/// The GT chunk codec: encoding, 16-bit lookup, 24-bit baby-step/giant-step (best, middle and
/// worst case: 1, 128 and 256 giant steps).
fn gt_chunks(c: &mut Criterion) {
    let t = GtTable::global();
    let mut g = c.benchmark_group("dcnet/gt-chunks");
    g.bench_function("encode", |b| {
        b.iter(|| t.encode_chunk(ChunkBits::B24, 0x00ab_cdef).unwrap())
    });
    let e16 = t.encode_chunk(ChunkBits::B16, 0x1234).unwrap();
    g.bench_function("decode16", |b| {
        b.iter(|| t.decode_chunk(ChunkBits::B16, &e16).unwrap())
    });
    for v in [0x1234u32, 0x80_0000, 0xff_ffff] {
        let e = t.encode_chunk(ChunkBits::B24, v).unwrap();
        g.bench_with_input(
            BenchmarkId::new("decode24", format!("{v:#x}")),
            &e,
            |b, e| b.iter(|| t.decode_chunk(ChunkBits::B24, e).unwrap()),
        );
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800));
    targets = gt_chunks, elgamal, pairing
}
criterion_main!(benches);
