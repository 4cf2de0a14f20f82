//! The generated tables of the whole 5x3 board (every signature up to 7v7) against
//! the dense brute-force solver of tests/common/naive.rs, position by position.

mod common;

use std::time::Instant;

use common::naive::{self, Value};
use fanotb::Signature;
use fanotb::Tablebase;
use fanotb::internals::binom;
use fanotb::{Board, Color, Position};
use fanotb::{Options, generate};

/// White and black stone sets (bit y * w + x) of a base-3 code.
fn sides(code: u32, n: usize) -> (u64, u64) {
    let (mut white, mut black) = (0u64, 0u64);
    let mut c = code;
    for i in 0..n {
        match c % 3 {
            1 => white |= 1 << i,
            2 => black |= 1 << i,
            _ => {}
        }
        c /= 3;
    }
    (white, black)
}

/// The dense solver agrees with the plain `solve_all` where both apply: the whole
/// 3x3 board, and the 5x3 board with at most 3 stones a side.
#[test]
fn dense_solver_matches_solve_all() {
    for (w, h, per_side, total) in [(3, 3, 8, 9), (5, 3, 3, 6)] {
        let dense = naive::solve_whole_board(w, h, per_side);
        let solved = naive::solve_all(w, h, total);
        let mut compared = 0;
        for (p, &v) in &solved {
            let (nw, nb) = (p.count(naive::WHITE), p.count(naive::BLACK));
            if nw > per_side || nb > per_side {
                continue;
            }
            assert_eq!(dense.value(p), v, "{}", naive::to_text(p));
            compared += 1;
        }
        // Both sides to move of every White-to-move position of the dense set.
        assert_eq!(compared, 2 * dense.codes.len(), "{w}x{h}");
    }
}

#[test]
fn whole_5x3_board_matches_brute_force() {
    let (w, h, per_side) = (5usize, 3usize, 7usize);
    let n = w * h;

    let t = Instant::now();
    let dense = naive::solve_whole_board(w, h, per_side);
    eprintln!(
        "dense brute force: {} positions in {:.1} s",
        dense.codes.len(),
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let board = Board::get(w, h).unwrap();
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        board,
        &[Signature::new(7, 7)],
        &Options::default(),
        |_| {},
    )
    .unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    eprintln!("tables generated in {:.1} s", t.elapsed().as_secs_f64());

    // The start position, through the text interfaces of both sides.
    let start_text = "BBBBB/BW1BW/WWWWW w";
    let start = naive::parse(start_text);
    assert_eq!(naive::to_text(&start), start_text);
    assert_eq!(naive::to_text(&naive::start(w, h)), start_text);
    assert_eq!(dense.value(&start), Value::Win(11));
    let pos: Position = start_text.parse().unwrap();
    assert_eq!(
        common::plain(&tb, &pos).unwrap(),
        common::outcome(Value::Win(11))
    );

    let t = Instant::now();
    let expected_count: u64 = (1..=per_side)
        .flat_map(|a| (1..=per_side).map(move |b| (a, b)))
        .map(|(a, b)| binom(n, a) * binom(n - a, b))
        .sum();
    let mut compared: u64 = 0;
    let mut mismatches: u64 = 0;
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    for &code in &dense.codes {
        let (white, black) = sides(code, n);
        let v = dense.value_of_code(code);
        match v {
            Value::Win(_) => wins += 1,
            Value::Draw => draws += 1,
            Value::Loss(_) => losses += 1,
        }
        let pos = Position::from_sides(board, white, black, Color::White);
        let got = common::plain(&tb, &pos).unwrap();
        if got != common::outcome(v) {
            mismatches += 1;
            if mismatches <= 10 {
                eprintln!(
                    "mismatch at {}: tables {:?}, brute force {:?}",
                    naive::to_text(&dense.position(code)),
                    got,
                    v
                );
            }
        }
        compared += 1;
    }
    eprintln!(
        "compared {compared} positions ({wins} wins, {draws} draws, {losses} losses) in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    assert_eq!(mismatches, 0, "{mismatches} positions differ");
    assert_eq!(compared, expected_count);
    assert_eq!(expected_count, 11_784_086);
}
