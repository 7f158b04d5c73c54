//! The pairing suite's GT chunk codec: encoding, 16-bit table lookup, 24-bit
//! baby-step/giant-step. (The suites themselves are in `benches/fig5.rs`.)
//!
//! Short run: `cargo bench -p verdict-dcnet --bench gt_chunks`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use verdict_dcnet::pairing::gt_table::{ChunkBits, GtTable};

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
    targets = gt_chunks
}
criterion_main!(benches);
