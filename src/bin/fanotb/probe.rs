//! Reading the tables: `probe` (one position, or a batch from stdin) and `line`.

use std::fmt;
use std::path::Path;

use clap::Args;
use serde::Serialize;

use fanotb::{Board, MoveOutcome, Outcome, Position, Tablebase, best_count};

use crate::limited::{self, Rules, RulesArgs};
use crate::output::{failure, print_line};
use crate::{Result, TablesArg, message};

/// A report without the limit, or under it.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Answer<P, L> {
    Plain(P),
    Limited(L),
}

impl<P: fmt::Display, L: fmt::Display> fmt::Display for Answer<P, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Plain(r) => r.fmt(f),
            Answer::Limited(r) => r.fmt(f),
        }
    }
}

/// A value and its depth, for `--json`: "win"/"draw"/"loss" for the side to move.
#[derive(Serialize)]
pub struct Value {
    value: &'static str,
    depth: Option<u32>,
}

impl From<Outcome> for Value {
    fn from(o: Outcome) -> Value {
        Value {
            value: o.wdl().name(),
            depth: o.depth(),
        }
    }
}

/// A move with the outcome it leads to, for the mover, and the position after it.
#[derive(Serialize)]
pub struct MoveValue {
    #[serde(rename = "move")]
    notation: String,
    #[serde(flatten)]
    value: Value,
    result: String,
    #[serde(skip)]
    outcome: Outcome,
}

impl MoveValue {
    pub fn list(b: &Board, moves: &[MoveOutcome]) -> Vec<MoveValue> {
        moves
            .iter()
            .map(|m| MoveValue {
                notation: m.mv.notation(b),
                value: m.outcome.into(),
                result: m.result.to_string(),
                outcome: m.outcome,
            })
            .collect()
    }
}

impl fmt::Display for MoveValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "  {:<16} {}", self.notation, self.outcome)
    }
}

/// The notations of the best moves of a best-first list.
pub fn best_notations(b: &Board, moves: &[MoveOutcome]) -> Vec<String> {
    moves[..best_count(moves)]
        .iter()
        .map(|m| m.mv.notation(b))
        .collect()
}

#[derive(Args)]
pub struct ProbeArgs {
    /// Position text, `start` or `start:WxH`, e.g. "9/9/B8/9/3WW3B w"; or `-` to read
    /// positions from stdin, one a line, each answered on one line (JSON Lines with
    /// --json): `fanotb probe - < positions.txt`.
    pub position: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

#[derive(Serialize)]
pub struct ProbeReport {
    position: String,
    #[serde(flatten)]
    value: Value,
    moves: Vec<MoveValue>,
    best: Vec<String>,
    #[serde(skip)]
    text: String,
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        crate::output::write_moves(f, &self.moves, &self.best)
    }
}

pub type ProbeAnswer = Answer<ProbeReport, limited::LimitedProbeReport>;

pub fn probe(a: ProbeArgs) -> Result<ProbeAnswer> {
    let (pos, tb) = open(&a.position, &a.tables.dir)?;
    probe_report(&pos, &tb, a.rules.rules())
}

/// The value, every move's value and the best moves, without the limit or under it.
pub fn probe_report(pos: &Position, tb: &Tablebase, rules: Rules) -> Result<ProbeAnswer> {
    if let Some((limit, counter)) = rules {
        return Ok(Answer::Limited(limited::probe(pos, tb, limit, counter)?));
    }
    let outcome = tb.probe(pos)?;
    let moves = tb.moves(pos)?;
    let b = pos.board();
    Ok(Answer::Plain(ProbeReport {
        position: pos.to_string(),
        value: outcome.into(),
        best: best_notations(b, &moves),
        moves: MoveValue::list(b, &moves),
        text: format!("{pos}\n{} to move: {outcome}\n", pos.turn().name()),
    }))
}

/// One answer of `probe -`.
#[derive(Serialize)]
#[serde(untagged)]
enum BatchLine {
    Answer {
        position: String,
        #[serde(flatten)]
        value: Value,
        best: Vec<String>,
        #[serde(skip)]
        outcome: Outcome,
    },
    Limited(limited::BatchAnswer),
    Failed {
        position: String,
        error: String,
    },
}

impl fmt::Display for BatchLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchLine::Answer {
                position,
                best,
                outcome,
                ..
            } => write!(f, "{position}: {outcome}, best {}", best.join(" ")),
            BatchLine::Limited(a) => a.fmt(f),
            BatchLine::Failed { position, error } => write!(f, "{position}: error: {error}"),
        }
    }
}

/// `probe -`: one answer a line for each position on stdin, so that a script need not
/// start a process per position. Fails at the end if any line failed.
pub fn probe_batch(tables: &TablesArg, rules: &RulesArgs, json: bool) -> Result<()> {
    use std::io::BufRead;
    let tb = Tablebase::open(&tables.dir)?;
    let mut failed = 0;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let answer = Position::parse_arg(text)
            .map_err(|e| message(&e))
            .and_then(|pos| {
                if let Some((limit, counter)) = rules.rules() {
                    return limited::batch_answer(&pos, &tb, limit, counter)
                        .map(BatchLine::Limited)
                        .map_err(|e| message(&e));
                }
                let outcome = tb.probe(&pos).map_err(|e| message(&e))?;
                let moves = tb.best_moves(&pos).map_err(|e| message(&e))?;
                Ok(BatchLine::Answer {
                    position: pos.to_string(),
                    value: outcome.into(),
                    best: moves.iter().map(|m| m.mv.notation(pos.board())).collect(),
                    outcome,
                })
            })
            .unwrap_or_else(|error| {
                failed += 1;
                BatchLine::Failed {
                    position: text.to_string(),
                    error,
                }
            });
        print_line(&answer, json);
    }
    if failed > 0 {
        return Err(failure(
            format!("{failed} positions could not be probed"),
            json,
        ));
    }
    Ok(())
}

#[derive(Args)]
pub struct LineArgs {
    /// Position text, `start` or `start:WxH`. Example: "9/9/B8/9/3WW3B w".
    pub position: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// A move of a line and the position it leads to.
#[derive(Serialize)]
pub struct LineMove {
    #[serde(rename = "move")]
    notation: String,
    position: String,
}

impl LineMove {
    pub fn list(b: &Board, line: &[MoveOutcome]) -> Vec<LineMove> {
        line.iter()
            .map(|m| LineMove {
                notation: m.mv.notation(b),
                position: m.result.to_string(),
            })
            .collect()
    }

    /// The numbered lines of a principal line, `width` wide numbers.
    pub fn write_all(f: &mut fmt::Formatter<'_>, line: &[LineMove], width: usize) -> fmt::Result {
        for (i, m) in line.iter().enumerate() {
            writeln!(f, "{:>width$}. {:<16} {}", i + 1, m.notation, m.position)?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
pub struct LineReport {
    position: String,
    #[serde(flatten)]
    value: Value,
    line: Vec<LineMove>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for LineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        LineMove::write_all(f, &self.line, 3)
    }
}

pub type LineAnswer = Answer<LineReport, limited::LimitedLineReport>;

pub fn line(a: LineArgs) -> Result<LineAnswer> {
    let (pos, tb) = open(&a.position, &a.tables.dir)?;
    line_report(&pos, &tb, a.rules.rules())
}

/// The principal line, without the limit or under it.
pub fn line_report(pos: &Position, tb: &Tablebase, rules: Rules) -> Result<LineAnswer> {
    if let Some((limit, counter)) = rules {
        return Ok(Answer::Limited(limited::line(pos, tb, limit, counter)?));
    }
    let outcome = tb.probe(pos)?;
    let line = tb.line(pos)?;
    let mut heading = format!("{pos}: {outcome} for {}\n", pos.turn().name());
    if line.is_empty() && outcome == Outcome::Draw {
        heading += "drawn: best play never ends the game\n";
    }
    Ok(Answer::Plain(LineReport {
        position: pos.to_string(),
        value: outcome.into(),
        line: LineMove::list(pos.board(), &line),
        heading,
    }))
}

/// Parses a position and opens the tables.
fn open(position: &str, dir: &Path) -> Result<(Position, Tablebase)> {
    Ok((Position::parse_arg(position)?, Tablebase::open(dir)?))
}
