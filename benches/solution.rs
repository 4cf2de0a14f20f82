//! The solved game in hand: looking up what the built-in tsivy draw proof proves
//! about a position, the move it plays, and the player's whole choice (no tables,
//! no search), at the start and along a line of the proof.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

use fanotb::{Board, Color, Player, PlayerOptions, Position, Rules, SolvedGame};

fn lookups(c: &mut Criterion) {
    let solution = SolvedGame::tsivy_draw().expect("the built-in proof loads");
    // Twelve plies of the proof's own moves from the start: positions deep in it.
    let mut line = vec![Position::start(Board::tsivy())];
    for _ in 0..12 {
        let p = *line.last().unwrap();
        let Some(mv) = solution.move_for(&p, p.turn()) else {
            // Black's proof holds Black's moves only; White plays its first move.
            let m = p.legal_moves().into_iter().next().unwrap();
            line.push(p.apply(&m));
            continue;
        };
        line.push(p.apply(&p.parse_move(mv).unwrap()));
    }
    c.bench_function("solution/proved (13 positions)", |b| {
        b.iter(|| {
            for p in &line {
                black_box(solution.proved(black_box(p)));
            }
        })
    });
    c.bench_function("solution/move_for (13 positions)", |b| {
        b.iter(|| {
            for p in &line {
                black_box(solution.move_for(black_box(p), Color::White));
            }
        })
    });
    let mut opts = PlayerOptions::default();
    opts.search_nodes = 0;
    let mut player = Player::new(Some(solution), None, opts);
    let start = Position::start(Board::tsivy());
    c.bench_function("player/choose at the start", |b| {
        b.iter(|| black_box(player.choose(black_box(&start), Rules::PLAIN).unwrap()))
    });
}

criterion_group!(benches, lookups);
criterion_main!(benches);
