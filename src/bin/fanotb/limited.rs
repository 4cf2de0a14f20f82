//! Reading the rule-aware tables: `probe` and `line` with `--no-capture-limit`.

use std::fmt;

use clap::Args;
use serde::Serialize;

use fanotb::{Board, Limit, Limited, LimitedMove, Position, Tablebase, Wdl, best_count_limited};

use crate::Result;

/// The game's rules for a probe: a no-capture limit and the counter.
#[derive(Args)]
pub struct RulesArgs {
    /// Answer under this no-capture limit, in plies (1 to 250), from the rule-aware
    /// tables built with `generate --no-capture-limit N`. Example: 60.
    #[arg(long, value_parser = crate::parse_limit)]
    pub no_capture_limit: Option<Limit>,
    /// Plies played since the last capture (0 to the limit; default 0). Example: 12.
    #[arg(long, requires = "no_capture_limit")]
    pub counter: Option<u32>,
}

/// The rules a probe answers under: none (the plain tables), or a no-capture limit
/// and the counter.
pub type Rules = Option<(Limit, u32)>;

impl RulesArgs {
    pub fn rules(&self) -> Rules {
        self.no_capture_limit
            .map(|limit| (limit, self.counter.unwrap_or(0)))
    }
}

/// A value under the limit, for the side to move: "win"/"draw"/"loss" at the
/// counter, T, and whether the position is a cursed win or a blessed loss.
#[derive(Serialize)]
pub struct LimitedValue {
    value: &'static str,
    plies_to_capture: Option<u32>,
    cursed: bool,
    #[serde(skip)]
    stored: Limited,
}

impl LimitedValue {
    fn new(stored: Limited, limit: Limit, counter: u32) -> LimitedValue {
        LimitedValue {
            value: stored.at(limit, counter).name(),
            plies_to_capture: stored.plies_to_capture(),
            cursed: stored.cursed(),
            stored,
        }
    }

    /// `win, capture in 5`, or for a decided position drawn at this counter `draw
    /// (win, capture in 5: decided up to counter 55)`.
    fn describe(&self, limit: Limit) -> String {
        let decided = self.stored.plies_to_capture().map(|t| limit.plies() - t);
        match (self.value, decided) {
            ("draw", Some(upto)) => {
                format!("draw ({}: decided up to counter {upto})", self.stored)
            }
            ("draw", None) if self.cursed => format!(
                "draw ({} without the limit)",
                match self.stored {
                    Limited::CursedWin => "a cursed win: won",
                    _ => "a blessed loss: lost",
                }
            ),
            _ => self.stored.to_string(),
        }
    }
}

/// A move with its value under the limit, for the mover.
#[derive(Serialize)]
pub struct LimitedMoveValue {
    #[serde(rename = "move")]
    notation: String,
    value: &'static str,
    /// Plies to the next capture for the mover, counting the move (1 for a capture).
    plies_to_capture: Option<u32>,
    /// The counter of the position the move leads to.
    counter: u32,
    result: String,
}

impl LimitedMoveValue {
    pub fn list(b: &Board, moves: &[LimitedMove]) -> Vec<LimitedMoveValue> {
        moves
            .iter()
            .map(|m| LimitedMoveValue {
                notation: m.mv.notation(b),
                value: m.value.name(),
                plies_to_capture: m.limited.plies_to_capture(),
                counter: m.counter,
                result: m.result.to_string(),
            })
            .collect()
    }
}

impl fmt::Display for LimitedMoveValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "  {:<16} {}", self.notation, self.value)?;
        if let Some(t) = self.plies_to_capture.filter(|_| self.value != "draw") {
            write!(f, ", capture in {t}")?;
        }
        write!(f, " (counter {})", self.counter)
    }
}

#[derive(Serialize)]
pub struct LimitedProbeReport {
    position: String,
    limit: u32,
    counter: u32,
    #[serde(flatten)]
    value: LimitedValue,
    moves: Vec<LimitedMoveValue>,
    best: Vec<String>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for LimitedProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        crate::output::write_moves(f, &self.moves, &self.best)
    }
}

/// The value under the limit at the counter, every move's, and the best moves.
pub fn probe(
    pos: &Position,
    tb: &Tablebase,
    limit: Limit,
    counter: u32,
) -> Result<LimitedProbeReport> {
    // The position's own table first, so that a missing one is the one named.
    tb.value_limited(pos, limit, counter)?;
    let value = LimitedValue::new(tb.probe_limited(pos, limit)?, limit, counter);
    let moves = tb.moves_limited(pos, limit, counter)?;
    let best = &moves[..best_count_limited(&moves)];
    let b = pos.board();
    let over = if counter == limit.plies() {
        "\nthe game is over: the counter has reached the limit"
    } else {
        ""
    };
    Ok(LimitedProbeReport {
        position: pos.to_string(),
        limit: limit.plies(),
        counter,
        heading: format!(
            "{pos}\n{} to move, no-capture limit {limit}, counter {counter}: {}{over}\n",
            pos.turn().name(),
            value.describe(limit)
        ),
        value,
        best: best.iter().map(|m| m.mv.notation(b)).collect(),
        moves: LimitedMoveValue::list(b, &moves),
    })
}

/// A move of a line under the limit and the position and counter it leads to.
#[derive(Serialize)]
pub struct LimitedLineMove {
    #[serde(rename = "move")]
    notation: String,
    position: String,
    counter: u32,
}

#[derive(Serialize)]
pub struct LimitedLineReport {
    position: String,
    limit: u32,
    counter: u32,
    #[serde(flatten)]
    value: LimitedValue,
    line: Vec<LimitedLineMove>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for LimitedLineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        for (i, m) in self.line.iter().enumerate() {
            writeln!(
                f,
                "{:>3}. {:<16} {:<3} {}",
                i + 1,
                m.notation,
                m.counter,
                m.position
            )?;
        }
        Ok(())
    }
}

/// The line that keeps the result under the limit, with the counter after each move.
pub fn line(
    pos: &Position,
    tb: &Tablebase,
    limit: Limit,
    counter: u32,
) -> Result<LimitedLineReport> {
    let wdl = tb.value_limited(pos, limit, counter)?;
    let value = LimitedValue::new(tb.probe_limited(pos, limit)?, limit, counter);
    let line = tb.line_limited(pos, limit, counter)?;
    let mut heading = format!(
        "{pos}: {} for {}, no-capture limit {limit}, counter {counter}\n",
        value.describe(limit),
        pos.turn().name()
    );
    if wdl == Wdl::Draw {
        heading += "drawn under the limit: best play never ends the game\n";
    } else {
        heading += "     move             ctr position\n";
    }
    Ok(LimitedLineReport {
        position: pos.to_string(),
        limit: limit.plies(),
        counter,
        value,
        line: line
            .iter()
            .map(|m| LimitedLineMove {
                notation: m.mv.notation(pos.board()),
                position: m.result.to_string(),
                counter: m.counter,
            })
            .collect(),
        heading,
    })
}

/// One answer of `probe -` under the limit.
#[derive(Serialize)]
pub struct BatchAnswer {
    position: String,
    limit: u32,
    counter: u32,
    #[serde(flatten)]
    value: LimitedValue,
    best: Vec<String>,
    #[serde(skip)]
    text: String,
}

impl fmt::Display for BatchAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}, best {}",
            self.position,
            self.text,
            self.best.join(" ")
        )
    }
}

/// The value at the counter and the best moves.
pub fn batch_answer(
    pos: &Position,
    tb: &Tablebase,
    limit: Limit,
    counter: u32,
) -> std::result::Result<BatchAnswer, fanotb::ProbeError> {
    tb.value_limited(pos, limit, counter)?;
    let value = LimitedValue::new(tb.probe_limited(pos, limit)?, limit, counter);
    let best = tb.best_moves_limited(pos, limit, counter)?;
    Ok(BatchAnswer {
        position: pos.to_string(),
        limit: limit.plies(),
        counter,
        text: value.describe(limit),
        value,
        best: best.iter().map(|m| m.mv.notation(pos.board())).collect(),
    })
}
