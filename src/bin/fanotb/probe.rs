//! Reading the tables: `probe` (one position, or a batch from stdin) and `line`,
//! plain, under a no-capture limit or under vela: one report each, whose fields
//! follow the rules asked under.

use std::fmt;

use clap::Args;
use serde::Serialize;

use fanotb::{
    BoundedLines, Color, Limit, Limited, MAX_LINE_BYTES, MoveValue, Position, Rules, Tablebase,
    Value, Wdl, best_count,
};

use crate::args::{Result, RulesArgs, TablesArg, VelaArgs, message};
use crate::output::{failure, print_line};

/// The rules of a report, for `--json`: absent for the plain game; the limit and
/// the counter under a limit, the vela side and its stones lost under vela.
#[derive(Serialize)]
struct RulesJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counter: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vela: Option<VelaJson>,
}

#[derive(Serialize)]
struct VelaJson {
    side: &'static str,
    lost: u32,
}

fn rules_json(rules: Rules) -> Option<RulesJson> {
    let vela = rules.vela().map(|v| VelaJson {
        side: if v.side() == Color::White {
            "white"
        } else {
            "black"
        },
        lost: v.lost(),
    });
    (rules.limit().is_some() || vela.is_some()).then(|| RulesJson {
        limit: rules.limit().map(Limit::plies),
        counter: rules.limit().map(|_| rules.counter()),
        vela,
    })
}

/// A position's value for the side to move, for `--json`: "win"/"draw"/"loss" and
/// the depth; under a limit the value at the counter, T, and whether the position
/// is a cursed win or a blessed loss.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ValueJson {
    Plain {
        value: &'static str,
        depth: Option<u32>,
    },
    Limited {
        value: &'static str,
        plies_to_capture: Option<u32>,
        cursed: bool,
    },
}

impl From<Value> for ValueJson {
    fn from(v: Value) -> ValueJson {
        match v {
            Value::Limited { stored, .. } => ValueJson::Limited {
                value: v.wdl().name(),
                plies_to_capture: v.depth(),
                cursed: stored.cursed(),
            },
            _ => ValueJson::Plain {
                value: v.wdl().name(),
                depth: v.depth(),
            },
        }
    }
}

/// `win in 5`; under a limit `win, capture in 5`, or for a decided position drawn
/// at this counter `draw (win, capture in 5: decided up to counter 55)`.
pub fn describe(v: Value) -> String {
    let Value::Limited { stored, limit, .. } = v else {
        return v.to_string();
    };
    let decided = stored.plies_to_capture().map(|t| limit.plies() - t);
    match (v.wdl(), decided) {
        (Wdl::Draw, Some(upto)) => format!("draw ({stored}: decided up to counter {upto})"),
        (Wdl::Draw, None) if stored.cursed() => format!(
            "draw ({} without the limit)",
            match stored {
                Limited::CursedWin => "a cursed win: won",
                _ => "a blessed loss: lost",
            }
        ),
        _ => stored.to_string(),
    }
}

/// `, no-capture limit 60, counter 12` after a heading's side, or nothing.
fn under(rules: Rules) -> String {
    let limit = match rules.limit() {
        Some(_) => format!(", {rules}"),
        None => String::new(),
    };
    match rules.vela() {
        Some(v) => format!("{limit}, {v}"),
        None => limit,
    }
}

/// A move's value for the mover, for `--json`: its value and depth; under a limit its
/// value at the counter it leads to, its T counting the move, and that counter.
#[derive(Serialize)]
#[serde(untagged)]
enum MoveValueJson {
    Plain {
        value: &'static str,
        depth: Option<u32>,
    },
    Limited {
        value: &'static str,
        plies_to_capture: Option<u32>,
        counter: u32,
    },
}

/// A move with the value it leads to, for the mover, and the position after it.
#[derive(Serialize)]
pub struct MoveJson {
    #[serde(rename = "move")]
    notation: String,
    #[serde(flatten)]
    value: MoveValueJson,
    result: String,
    #[serde(skip)]
    text: String,
}

impl MoveJson {
    pub fn list(moves: &[MoveValue], pos: &Position) -> Vec<MoveJson> {
        let b = pos.board();
        moves
            .iter()
            .map(|m| {
                let notation = m.mv.notation(b);
                let (value, text) = match m.value {
                    Value::Limited { .. } => {
                        let wdl = m.value.wdl();
                        let capture = match m.value.depth() {
                            Some(t) if wdl != Wdl::Draw => format!(", capture in {t}"),
                            _ => String::new(),
                        };
                        let counter = m.rules.counter();
                        (
                            MoveValueJson::Limited {
                                value: wdl.name(),
                                plies_to_capture: m.value.depth(),
                                counter,
                            },
                            format!("{}{capture} (counter {counter})", wdl.name()),
                        )
                    }
                    _ => (
                        MoveValueJson::Plain {
                            value: m.value.wdl().name(),
                            depth: m.value.depth(),
                        },
                        m.value.to_string(),
                    ),
                };
                MoveJson {
                    text: format!("  {notation:<16} {text}"),
                    notation,
                    value,
                    result: m.result.to_string(),
                }
            })
            .collect()
    }
}

impl fmt::Display for MoveJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The notations of the best moves of a best-first list.
pub fn best_notations(moves: &[MoveValue], pos: &Position) -> Vec<String> {
    moves[..best_count(moves)]
        .iter()
        .map(|m| m.mv.notation(pos.board()))
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
    pub vela: VelaArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

#[derive(Serialize)]
pub struct ProbeReport {
    position: String,
    #[serde(flatten)]
    rules: Option<RulesJson>,
    #[serde(flatten)]
    value: ValueJson,
    moves: Vec<MoveJson>,
    best: Vec<String>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        crate::output::write_moves(f, &self.moves, &self.best)
    }
}

pub fn probe(a: ProbeArgs) -> Result<ProbeReport> {
    answer(&a.position, &a.rules, &a.vela, &a.tables, probe_report)
}

/// The value, every move's value and the best moves.
pub fn probe_report(pos: &Position, tb: &Tablebase, rules: Rules) -> Result<ProbeReport> {
    // The position's own table first, so that a missing one is the one named.
    let value = tb.probe(pos, rules)?;
    let moves = tb.moves(pos, rules)?;
    let over = if rules.at_limit() {
        "\nthe game is over: the counter has reached the limit"
    } else {
        ""
    };
    Ok(ProbeReport {
        position: pos.to_string(),
        rules: rules_json(rules),
        heading: format!(
            "{pos}\n{} to move{}: {}{over}\n",
            pos.turn().name(),
            under(rules),
            describe(value)
        ),
        value: value.into(),
        best: best_notations(&moves, pos),
        moves: MoveJson::list(&moves, pos),
    })
}

/// One answer of `probe -`.
#[derive(Serialize)]
#[serde(untagged)]
enum BatchLine {
    Answer {
        position: String,
        #[serde(flatten)]
        rules: Option<RulesJson>,
        #[serde(flatten)]
        value: ValueJson,
        best: Vec<String>,
        #[serde(skip)]
        text: String,
    },
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
                text,
                ..
            } => write!(f, "{position}: {text}, best {}", best.join(" ")),
            BatchLine::Failed { position, error } => write!(f, "{position}: error: {error}"),
        }
    }
}

/// `probe -`: one answer a line for each position on stdin, so that a script need not
/// start a process per position. Fails at the end if any line failed.
pub fn probe_batch(
    tables: &TablesArg,
    rules: &RulesArgs,
    vela: &VelaArgs,
    json: bool,
) -> Result<()> {
    let rules = rules.rules()?;
    let tb = Tablebase::open(&tables.dir)?;
    let mut failed = 0;
    for line in BoundedLines::new(std::io::stdin().lock(), MAX_LINE_BYTES) {
        let line = line?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let answer = Position::parse_arg(text)
            .map_err(|e| message(&e))
            .and_then(|pos| {
                // Each position's vela counts its own stones lost.
                let rules = vela.apply(rules, &pos).map_err(|e| e.to_string())?;
                let value = tb.probe(&pos, rules).map_err(|e| message(&e))?;
                let best = tb.best_moves(&pos, rules).map_err(|e| message(&e))?;
                Ok(BatchLine::Answer {
                    position: pos.to_string(),
                    rules: rules_json(rules),
                    text: describe(value),
                    value: value.into(),
                    best: best.iter().map(|m| m.mv.notation(pos.board())).collect(),
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
    pub vela: VelaArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// A move of a line and the position it leads to (under a limit, with its counter).
#[derive(Serialize)]
pub struct LineMove {
    #[serde(rename = "move")]
    notation: String,
    position: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    counter: Option<u32>,
}

impl LineMove {
    pub fn list(line: &[MoveValue], pos: &Position) -> Vec<LineMove> {
        line.iter()
            .map(|m| LineMove {
                notation: m.mv.notation(pos.board()),
                position: m.result.to_string(),
                counter: m.rules.limit().map(|_| m.rules.counter()),
            })
            .collect()
    }

    /// The numbered lines of a principal line, `width` wide numbers.
    pub fn write_all(f: &mut fmt::Formatter<'_>, line: &[LineMove], width: usize) -> fmt::Result {
        for (i, m) in line.iter().enumerate() {
            write!(f, "{:>width$}. {:<16} ", i + 1, m.notation)?;
            if let Some(c) = m.counter {
                write!(f, "{c:<3} ")?;
            }
            writeln!(f, "{}", m.position)?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
pub struct LineReport {
    position: String,
    #[serde(flatten)]
    rules: Option<RulesJson>,
    #[serde(flatten)]
    value: ValueJson,
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

pub fn line(a: LineArgs) -> Result<LineReport> {
    answer(&a.position, &a.rules, &a.vela, &a.tables, line_report)
}

/// The principal line (under a limit, the line that keeps the result, with the
/// counter after each move).
pub fn line_report(pos: &Position, tb: &Tablebase, rules: Rules) -> Result<LineReport> {
    let value = tb.probe(pos, rules)?;
    let line = tb.line(pos, rules)?;
    let mut heading = format!(
        "{pos}: {} for {}{}\n",
        describe(value),
        pos.turn().name(),
        under(rules)
    );
    heading += match (rules.limit(), value.wdl()) {
        (None, Wdl::Draw) => "drawn: best play never ends the game\n",
        (None, _) => "",
        (Some(_), Wdl::Draw) => "drawn under the limit: best play never ends the game\n",
        (Some(_), _) => "     move             ctr position\n",
    };
    Ok(LineReport {
        position: pos.to_string(),
        rules: rules_json(rules),
        value: value.into(),
        line: LineMove::list(&line, pos),
        heading,
    })
}

/// Checks the rules, parses the position, opens the tables, and makes `report`.
fn answer<R>(
    position: &str,
    rules: &RulesArgs,
    vela: &VelaArgs,
    tables: &TablesArg,
    report: fn(&Position, &Tablebase, Rules) -> Result<R>,
) -> Result<R> {
    let rules = rules.rules()?;
    let pos = Position::parse_arg(position)?;
    let rules = vela.apply(rules, &pos)?;
    report(&pos, &Tablebase::open(&tables.dir)?, rules)
}
