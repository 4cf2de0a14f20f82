//! Warm random probes: value only, value with depth, and the value under a
//! no-capture limit at a counter (rule-aware tables).

use criterion::{Criterion, criterion_group, criterion_main};
use fanotb::Signature;
use fanotb::Tablebase;
use fanotb::internals::Indexer;
use fanotb::{Board, Color, Limit, Position, Rules};
use fanotb::{Options, generate};
use std::hint::black_box;

fn probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::tsivy();
    let limit = Limit::new(60).unwrap();
    let opts = Options::rule_aware(limit);
    generate(dir.path(), board, &Signature::all_up_to(4), &opts, |_| {}).unwrap();
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
        tb.probe(p, Rules::PLAIN).unwrap();
        tb.probe(p, limit.into()).unwrap();
    }
    let mut g = c.benchmark_group("probe_warm_random");
    let mut i = 0;
    g.bench_function("value", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.value(black_box(&positions[i]), Rules::PLAIN).unwrap()
        })
    });
    g.bench_function("value_and_depth", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.probe(black_box(&positions[i]), Rules::PLAIN).unwrap()
        })
    });
    let at_30 = Rules::no_capture_limit(limit, 30).unwrap();
    g.bench_function("value_under_limit_60_counter_30", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.value(black_box(&positions[i]), black_box(at_30))
                .unwrap()
        })
    });
    // Two threads probing at once, each `iters` probes: the time per iteration is
    // the latency of one probe while the other thread probes too (contention).
    for threads in [1usize, 2] {
        g.bench_function(format!("value_{threads}_threads"), |b| {
            b.iter_custom(|iters| {
                let start = std::time::Instant::now();
                std::thread::scope(|s| {
                    for t in 0..threads {
                        let (tb, positions) = (&tb, &positions);
                        s.spawn(move || {
                            for k in 0..iters as usize {
                                let p = &positions[(k * threads + t) % positions.len()];
                                black_box(tb.value(black_box(p), Rules::PLAIN).unwrap());
                            }
                        });
                    }
                });
                start.elapsed()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, probe);
criterion_main!(benches);
