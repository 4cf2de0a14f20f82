//! Whole-game solutions: every table a board's start material needs, then the start
//! position's value, depth, first moves and principal line, and an independent
//! search that proves the start value from the move generator.

use std::path::Path;
use std::time::Instant;

use thiserror::Error;

use crate::index::Signature;
use crate::probe::{MoveValue, ProbeError, Tablebase};
use crate::retro::{GenerateError, Options, TableReport, generate};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::position::Position;
use crate::rules::value::Outcome;
use crate::sys::peak_rss;

/// Why `solve` could not solve a position.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SolveError {
    /// Building or finding the tables failed.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// Probing the tables failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The position is over: the named side has no stones.
    #[error("the position is over: {0} has no stones")]
    NoStones(&'static str),
}

/// The boards `solve --all-small` runs on this class of machine (2 cores, 24 GiB).
pub const SMALL_BOARDS: [(usize, usize); 5] = [(3, 3), (5, 3), (3, 5), (7, 3), (3, 7)];

/// What the literature (Schadd et al. 2007, rows x columns) reports for a start
/// position, by our columns x rows.
pub fn published(board: &Board) -> Option<&'static str> {
    match (board.width(), board.height()) {
        (3, 3) | (5, 3) | (3, 5) | (7, 3) | (3, 7) => Some("win"),
        (5, 5) | (9, 5) => Some("draw"),
        _ => None,
    }
}

/// The search's verdict on a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchResult {
    /// `None` when the search met its horizon before proving a value.
    pub outcome: Option<Outcome>,
    /// Positions the search expanded (table probes, finished games and repetitions
    /// not counted).
    pub nodes: u64,
}

/// A solved position with everything the report needs.
#[derive(Debug)]
#[non_exhaustive]
pub struct Solution {
    /// The board.
    pub board: &'static Board,
    /// The position solved.
    pub position: Position,
    /// Its material.
    pub signature: Signature,
    /// Its value and depth for the side to move, from the tables.
    pub outcome: Outcome,
    /// Every legal move, best first, with its outcome for the mover.
    pub moves: Vec<MoveValue>,
    /// The principal line; empty for a draw.
    pub line: Vec<MoveValue>,
    /// One report per table built or found.
    pub tables: Vec<TableReport>,
    /// Placements in every table built or found (no symmetry reduction).
    pub positions: u64,
    /// Size of those tables' files, in bytes.
    pub disk_bytes: u64,
    /// Wall time of building or finding the tables, in seconds.
    pub seconds: f64,
    /// Peak resident memory of the process in bytes; `None` where /proc does not tell.
    pub peak_rss: Option<u64>,
    /// The independent search's verdict, to compare with `outcome`.
    pub search: SearchResult,
}

/// Builds (or finds) every table `pos` needs in `dir`, then solves it.
pub fn solve(
    dir: &Path,
    pos: &Position,
    opts: &Options,
    report: impl FnMut(&TableReport),
) -> Result<Solution, SolveError> {
    let board = pos.board();
    if let Some(side) = pos.side_without_stones() {
        return Err(SolveError::NoStones(side.name()));
    }
    let signature = Signature::of(pos.us(), pos.them());
    let start = Instant::now();
    let tables = generate(dir, board, &[signature], opts, report)?;
    let seconds = start.elapsed().as_secs_f64();
    let tb = Tablebase::open(dir)?;
    let outcome = tb.outcome(pos, Rules::PLAIN)?;
    let search = search(&tb, pos, signature.stones(), 10_000)?;
    Ok(Solution {
        board,
        position: *pos,
        signature,
        outcome,
        moves: tb.moves(pos, Rules::PLAIN)?,
        line: tb.line(pos, Rules::PLAIN)?,
        positions: tables.iter().map(|r| r.stats.placements).sum(),
        disk_bytes: tables.iter().map(|r| r.file_bytes).sum(),
        tables,
        seconds,
        peak_rss: peak_rss(),
        search,
    })
}

/// Proves the value of `pos` by a minimax search over the move generator: positions
/// with fewer than `material` stones are probed in the tables, the others searched
/// (a repetition on the current path counts as a draw). Stops after `max_nodes`
/// searched nodes with no verdict. Shares nothing with the generator but the rule
/// that defines a value from its successors, `Outcome::from_successors`.
pub(crate) fn search(
    tb: &Tablebase,
    pos: &Position,
    material: usize,
    max_nodes: u64,
) -> Result<SearchResult, ProbeError> {
    let mut nodes = 0;
    let mut path = Vec::new();
    let outcome = negamax(tb, pos, material, max_nodes, &mut nodes, &mut path)?;
    Ok(SearchResult { outcome, nodes })
}

fn negamax(
    tb: &Tablebase,
    pos: &Position,
    material: usize,
    max_nodes: u64,
    nodes: &mut u64,
    path: &mut Vec<Position>,
) -> Result<Option<Outcome>, ProbeError> {
    if pos.us() == 0 || pos.is_lost() {
        return Ok(Some(Outcome::Loss(0)));
    }
    let stones = (pos.us() | pos.them()).count_ones() as usize;
    if stones < material {
        return Ok(Some(tb.outcome(pos, Rules::PLAIN)?));
    }
    if path.contains(pos) {
        return Ok(Some(Outcome::Draw));
    }
    *nodes += 1;
    if *nodes > max_nodes {
        return Ok(None);
    }
    path.push(*pos);
    let mut children = Vec::new();
    for s in pos.successors() {
        match negamax(tb, &s, material, max_nodes, nodes, path)? {
            Some(c) => children.push(c),
            None => {
                path.pop();
                return Ok(None);
            }
        }
    }
    path.pop();
    Ok(Some(Outcome::from_successors(children)))
}
