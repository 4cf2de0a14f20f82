//! Move generation and perft throughput.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fanotb::{Position, perft};
use std::hint::black_box;

fn positions() -> Vec<Position> {
    [
        "start",
        "1BB2BBBB/B1B1BBBBB/1W4BBW/WWW1W1WWW/1W1W1W1WW w",
        "1B4B2/1BW2B3/9/WW7/1W1W5 w",
        "start:5x5",
    ]
    .iter()
    .map(|t| Position::parse_arg(t).unwrap())
    .collect()
}

fn movegen(c: &mut Criterion) {
    let ps = positions();
    let mut g = c.benchmark_group("movegen");
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("legal_moves", |b| {
        b.iter(|| {
            ps.iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum::<usize>()
        })
    });
    g.bench_function("successors", |b| {
        b.iter(|| {
            ps.iter()
                .map(|p| black_box(p).successors().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

fn perft_bench(c: &mut Criterion) {
    let start = Position::parse_arg("start").unwrap();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for depth in [4u32, 5] {
        g.throughput(Throughput::Elements(perft(&start, depth)));
        g.bench_function(format!("tsivy_start_{depth}"), |b| {
            b.iter(|| perft(black_box(&start), depth))
        });
    }
    g.finish();
}

criterion_group!(benches, movegen, perft_bench);
criterion_main!(benches);
