//! Warm random probes: value only, and value with depth.

use criterion::{Criterion, criterion_group, criterion_main};
use fanotb::index::{Indexer, Signature};
use fanotb::probe::Tablebase;
use fanotb::retro::{Options, generate};
use fanotb::{Board, Color, Position};
use std::hint::black_box;

fn probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::tsivy();
    generate(
        dir.path(),
        board,
        &Signature::all_up_to(4),
        &Options::default(),
        |_| {},
    )
    .unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    // Random positions of the 4-stone tables, from a fixed generator.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut positions = Vec::new();
    for sig in ["2v2", "3v1", "1v3"] {
        let idx = Indexer::new(board, sig.parse().unwrap());
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (us, them) = idx.unrank(x % idx.size());
            positions.push(Position::from_sides(board, us, them, Color::White));
        }
    }
    // Warm: every block these positions need is decompressed and cached.
    for p in &positions {
        tb.probe(p).unwrap();
    }
    let mut g = c.benchmark_group("probe_warm_random");
    let mut i = 0;
    g.bench_function("value", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.value(black_box(&positions[i])).unwrap()
        })
    });
    g.bench_function("value_and_depth", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.probe(black_box(&positions[i])).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, probe);
criterion_main!(benches);
