//! The fast move generator against the naive reference (tests/common/naive.rs) on
//! random positions: same moves, same notation, same captures, same successors.

mod common;

use common::{Rng, naive};
use fanotb::{Board, Position};

/// A random position: random stone density, random side; or a random playout from
/// the start, which gives realistic capture chains.
fn random_position(rng: &mut Rng, board: &'static Board) -> Position {
    if rng.below(2) == 0 {
        let density = 10 + rng.below(80);
        let (mut white, mut black) = (0u64, 0u64);
        for p in 0..board.points() {
            if rng.below(100) < density {
                if rng.below(2) == 0 {
                    white |= 1 << p;
                } else {
                    black |= 1 << p;
                }
            }
        }
        let turn = if rng.below(2) == 0 {
            fanotb::Color::White
        } else {
            fanotb::Color::Black
        };
        Position::new(board, white, black, turn).unwrap()
    } else {
        let mut pos = Position::start(board);
        let plies = rng.below(30);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = &moves[rng.below(moves.len() as u64) as usize];
            pos = pos.apply(m);
        }
        pos
    }
}

fn compare(pos: &Position) {
    let text = pos.to_string();
    let np = naive::parse(&text);
    assert_eq!(naive::to_text(&np), text, "position text");
    let b = pos.board();
    let mut fast: Vec<(String, Vec<String>, String)> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.notation(b),
                b.point_names(m.captured()),
                pos.apply(m).to_string(),
            )
        })
        .collect();
    let mut slow: Vec<(String, Vec<String>, String)> = naive::moves(&np)
        .into_iter()
        .map(|m| (m.notation, m.captured, naive::to_text(&m.result)))
        .collect();
    fast.sort();
    slow.sort();
    assert_eq!(fast, slow, "moves of {text}");
    let mut fs: Vec<String> = pos.successors().iter().map(|p| p.to_string()).collect();
    let mut ns: Vec<String> = naive::distinct_successors(&np)
        .iter()
        .map(naive::to_text)
        .collect();
    fs.sort();
    ns.sort();
    assert_eq!(fs, ns, "distinct successors of {text}");
    assert_eq!(
        pos.is_lost(),
        pos.us() == 0 || fast.is_empty(),
        "loss of {text}"
    );
}

#[test]
fn fast_generator_matches_naive_on_random_positions() {
    let boards = [(9, 5), (5, 5), (3, 3), (5, 3), (7, 3), (3, 7)];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut captures = 0;
    let per_board = 2500;
    for &(w, h) in &boards {
        let board = Board::get(w, h).unwrap();
        for _ in 0..per_board {
            let pos = random_position(&mut rng, board);
            if pos.legal_moves().first().is_some_and(|m| m.is_capture()) {
                captures += 1;
            }
            compare(&pos);
        }
    }
    // The sample must exercise captures, not only paikas.
    assert!(
        captures > per_board * boards.len() / 5,
        "only {captures} capture positions"
    );
}
