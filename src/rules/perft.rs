//! perft: the positions a number of plies ahead, where moves reaching the same
//! position count once; the fast path of the normal game, and the moves under
//! `Rules` (a vela) beside it.

use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::movegen::{capture_results_of, capturers, for_each_paika, successor_count_in};
use crate::rules::position::Position;

/// Leaf count at `depth`, where moves leading to the same position count once.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    // One buffer of capture results a ply, reused by every node at that ply.
    let mut buffers = vec![Vec::new(); depth as usize];
    perft_in(pos.board(), pos.us(), pos.them(), depth, &mut buffers)
}

fn perft_in(board: &Board, us: u64, them: u64, depth: u32, buffers: &mut [Vec<(u64, u64)>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (res, deeper) = buffers.split_first_mut().expect("a buffer a ply");
    if depth == 1 {
        return successor_count_in(board, us, them, res) as u64;
    }
    let caps = capturers(board, us, them);
    if caps != 0 {
        capture_results_of(board, caps, us, them, res);
        res.iter()
            .map(|&(u, t)| perft_in(board, t, u, depth - 1, deeper))
            .sum()
    } else {
        let mut n = 0;
        for_each_paika(board, us, them, |u, _, _| {
            n += perft_in(board, them, u, depth - 1, deeper)
        });
        n
    }
}

/// [`perft`] under `rules`: a vela side's moves are its quiet moves while the
/// handicap holds (the no-capture limit does not change the moves).
pub fn perft_under(pos: &Position, rules: Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if rules.active_vela(pos.board()).is_none() {
        return perft(pos, depth);
    }
    distinct_successors(pos, rules)
        .into_iter()
        .map(|(next, r)| perft_under(&next, r, depth - 1))
        .sum()
}

/// The positions the legal moves under `rules` lead to, each once with its rules
/// (moves to the same position take the same stones, so the same rules).
fn distinct_successors(pos: &Position, rules: Rules) -> Vec<(Position, Rules)> {
    let mut out: Vec<(Position, Rules)> = Vec::new();
    for mv in rules.legal_moves(pos) {
        let next = pos.apply(&mv);
        if !out.iter().any(|(p, _)| *p == next) {
            out.push((next, rules.after(pos, &mv)));
        }
    }
    out
}

/// One line of `perft --divide`: a first move, the leaf count below it, and whether
/// an earlier move already reached the same position (then it counts once, there).
#[derive(Debug)]
pub struct DivideLine {
    /// The first move, in notation.
    pub notation: String,
    /// Leaves below it: perft of the position after it at one ply less.
    pub count: u64,
    /// The earlier move, in notation, that reaches the same position; `None` if this
    /// move is the first to reach it.
    pub same_as: Option<String>,
}

/// perft per first move under `rules`; the total is the sum of the lines without
/// `same_as`.
pub fn perft_divide(pos: &Position, rules: Rules, depth: u32) -> Vec<DivideLine> {
    let board = pos.board();
    let mut seen: Vec<(Position, String)> = Vec::new();
    let mut out = Vec::new();
    for mv in rules.legal_moves(pos) {
        let next = pos.apply(&mv);
        let notation = mv.notation(board);
        let same_as = seen
            .iter()
            .find(|(p, _)| *p == next)
            .map(|(_, n)| n.clone());
        let count = if depth == 0 {
            1
        } else {
            perft_under(&next, rules.after(pos, &mv), depth - 1)
        };
        if same_as.is_none() {
            seen.push((next, notation.clone()));
        }
        out.push(DivideLine {
            notation,
            count,
            same_as,
        });
    }
    out
}
