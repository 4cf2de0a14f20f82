//! A game's analysis against the tables: at every position they cover, the value
//! for the mover before and after each move, the moves that changed the result
//! (a win thrown to a draw or a loss, a draw thrown to a loss) and the inaccuracies
//! (a win kept but slowed, a loss hastened), with the best move at each; where they
//! do not cover it, why; and how the game ended by the rules.

use thiserror::Error;

use crate::games::game::{End, GameResult};
use crate::games::record::{Record, RecordError};
use crate::probe::{MoveValue, ProbeError, Tablebase, Value, best_count};
use crate::rules::Rules;
use crate::rules::movegen::Move;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;
use crate::table::TableError;

/// A move that changed the game's value for its mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mistake {
    /// A won position left drawn.
    WinToDraw,
    /// A won position left lost.
    WinToLoss,
    /// A drawn position left lost.
    DrawToLoss,
}

impl Mistake {
    /// `win-to-draw`, `win-to-loss`, `draw-to-loss`.
    pub fn name(self) -> &'static str {
        match self {
            Mistake::WinToDraw => "win-to-draw",
            Mistake::WinToLoss => "win-to-loss",
            Mistake::DrawToLoss => "draw-to-loss",
        }
    }

    /// The mistake of a move from a position worth `before` to one worth `after`,
    /// both for the mover; `None` if the move kept or improved the value.
    pub fn of(before: Wdl, after: Wdl) -> Option<Mistake> {
        match (before, after) {
            (Wdl::Win, Wdl::Draw) => Some(Mistake::WinToDraw),
            (Wdl::Win, Wdl::Loss) => Some(Mistake::WinToLoss),
            (Wdl::Draw, Wdl::Loss) => Some(Mistake::DrawToLoss),
            _ => None,
        }
    }
}

/// A move that kept its mover's result, but not by a best move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inaccuracy {
    /// A win kept, but slower (or, under the limit, with a later capture).
    SlowWin,
    /// A loss kept, but sooner (or, under the limit, with an earlier capture).
    HastenedLoss,
}

impl Inaccuracy {
    /// `slow-win`, `hastened-loss`.
    pub fn name(self) -> &'static str {
        match self {
            Inaccuracy::SlowWin => "slow-win",
            Inaccuracy::HastenedLoss => "hastened-loss",
        }
    }
}

/// One move of an analysed game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysedMove {
    /// The ply, from 1.
    pub ply: usize,
    /// Who played it.
    pub mover: Color,
    /// The move.
    pub mv: Move,
    /// The position it was played in, with its rules.
    pub position: Position,
    /// The rules of that position.
    pub rules: Rules,
    /// The position's value for the mover, where the tables cover it.
    pub before: Option<Value>,
    /// Why the tables do not cover the position (the missing table, a vela that
    /// still holds), where they were asked and do not.
    pub not_covered: Option<String>,
    /// The value for the mover after the move, where the tables cover the position
    /// it leads to (a move that takes the last stone wins).
    pub after: Option<Wdl>,
    /// The depth of `after` for the mover, counted from the position the move is
    /// played in (as `before`'s; under a limit, T), where the tables give it.
    pub after_depth: Option<u32>,
    /// Whether the move changed the result.
    pub mistake: Option<Mistake>,
    /// A win or a loss kept, but not by a best move.
    pub inaccuracy: Option<Inaccuracy>,
    /// The tables' best move, at a mistake or an inaccuracy.
    pub best: Option<Move>,
}

/// A game's analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The result the record gives.
    pub result: GameResult,
    /// How the game ended by the rules; `None` if it did not (a resignation, an
    /// agreed draw, an unfinished game).
    pub end: Option<End>,
    /// Every move, in order.
    pub moves: Vec<AnalysedMove>,
}

/// A game that cannot be analysed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The record cannot be read or replayed.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A table is damaged or unreadable.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// Replays `record` by the rules and values each move from the tables of `tb`.
/// Positions no table covers (too many stones, a missing table, a vela that still
/// holds) have no value; a damaged table is an error, never a wrong value.
///
/// # Errors
/// A record that does not replay; a damaged or unreadable table.
pub fn analyse(tb: &Tablebase, record: &Record) -> Result<Analysis, AnalysisError> {
    analyse_with(Some(tb), record)
}

/// Replays `record` by the rules with no tables: every move, no value (for an
/// analysis whose values come from elsewhere, as the proofs').
///
/// # Errors
/// A record that does not replay.
pub fn replay_moves(record: &Record) -> Result<Analysis, AnalysisError> {
    analyse_with(None, record)
}

pub(crate) fn analyse_with(
    tb: Option<&Tablebase>,
    record: &Record,
) -> Result<Analysis, AnalysisError> {
    let game = record.replay()?;
    let positions = game.positions();
    let mut moves = Vec::with_capacity(game.moves().len());
    for (i, mv) in game.moves().iter().enumerate() {
        let (pos, rules) = positions[i];
        let v = match tb {
            Some(tb) => valued(tb, positions[i], positions[i + 1], mv)?,
            None => Valued::default(),
        };
        moves.push(AnalysedMove {
            ply: i + 1,
            mover: pos.turn(),
            mv: mv.clone(),
            position: pos,
            rules,
            before: v.before,
            not_covered: v.not_covered,
            after: v.after,
            after_depth: v.after_depth,
            mistake: v.mistake,
            inaccuracy: v.inaccuracy,
            best: v.best,
        });
    }
    Ok(Analysis {
        result: record.result(),
        end: game.end(),
        moves,
    })
}

/// What the tables say of one move: the values before and after it for its mover,
/// the mistake or the inaccuracy, the best move at either.
#[derive(Default)]
struct Valued {
    before: Option<Value>,
    not_covered: Option<String>,
    after: Option<Wdl>,
    after_depth: Option<u32>,
    mistake: Option<Mistake>,
    inaccuracy: Option<Inaccuracy>,
    best: Option<Move>,
}

/// `mv`, played at `(pos, rules)` to `(next, next_rules)`, valued by `tb`.
fn valued(
    tb: &Tablebase,
    (pos, rules): (Position, Rules),
    (next, next_rules): (Position, Rules),
    mv: &Move,
) -> Result<Valued, ProbeError> {
    let (before, not_covered) = match tb.probe(&pos, rules) {
        Ok(v) => (Some(v), None),
        Err(e) if not_covering(&e) => (None, Some(e.to_string())),
        Err(e) => return Err(e),
    };
    // Every move's value where the tables cover the position: the played move's
    // value and depth for its mover, the inaccuracies, the best move.
    let values = match before {
        Some(_) => covered(tb.moves(&pos, rules))?,
        None => None,
    };
    let played = |v: &[MoveValue]| v.iter().position(|m| m.mv == *mv);
    let mine = values.as_deref().and_then(|v| Some(v[played(v)?].value));
    let (after, after_depth) = match mine {
        Some(v) => (Some(v.wdl()), v.depth()),
        None if next.us() == 0 => (Some(Wdl::Win), Some(1)),
        // A move into the tables from a position they do not cover.
        None => match covered(tb.probe(&next, next_rules))? {
            Some(Value::Plain(o)) => (Some(o.wdl().flipped()), o.for_mover().depth()),
            Some(v) => (Some(v.wdl().flipped()), None),
            None => (None, None),
        },
    };
    let mistake = before.zip(after).and_then(|(b, a)| Mistake::of(b.wdl(), a));
    let (mut inaccuracy, mut best) = (None, None);
    if let Some(values) = values {
        // The best moves come first: a winner's fastest, a loser's slowest.
        let not_best = played(&values).is_some_and(|p| p >= best_count(&values));
        inaccuracy = match before.map(|b| b.wdl()) {
            _ if mistake.is_some() || !not_best => None,
            Some(Wdl::Win) => Some(Inaccuracy::SlowWin),
            Some(Wdl::Loss) => Some(Inaccuracy::HastenedLoss),
            _ => None,
        };
        if mistake.is_some() || inaccuracy.is_some() {
            best = values.first().map(|m| m.mv.clone());
        }
    }
    Ok(Valued {
        before,
        not_covered,
        after,
        after_depth,
        mistake,
        inaccuracy,
        best,
    })
}

/// Whether a probe's error says only that the tables do not cover the position.
fn not_covering(e: &ProbeError) -> bool {
    matches!(
        e,
        ProbeError::Table(TableError::Missing { .. }) | ProbeError::Vela(_)
    )
}

/// A probe's answer, or `None` where the tables do not cover the position.
fn covered<T>(r: Result<T, ProbeError>) -> Result<Option<T>, ProbeError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if not_covering(&e) => Ok(None),
        Err(e) => Err(e),
    }
}
