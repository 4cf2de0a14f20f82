//! The reports of `probe` and `line`: a position's value, its moves' values and
//! the best moves, or its principal line, with the rules asked under.

use std::fmt;

use serde::Serialize;

use crate::{
    Color, Limit, Limited, MoveValue, Position, ProbeError, Rules, Tablebase, Value, Wdl,
    best_count,
};

/// The rules of a report, for `--json`: absent for the plain game; the limit and
/// the counter under a limit, the vela side and its stones lost under vela.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct RulesJson {
    /// The no-capture limit in plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The counter asked at (plies since the last capture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter: Option<u32>,
    /// The vela side and its stones lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vela: Option<VelaJson>,
}

/// Vela's side (`white`, `black`) and the stones it has lost.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct VelaJson {
    /// `white` or `black`.
    pub side: &'static str,
    /// The stones the vela side has lost.
    pub lost: u32,
}

/// The rules' fields of a report: None for the plain game.
pub fn rules_json(rules: Rules) -> Option<RulesJson> {
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
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum ValueJson {
    /// Without a limit.
    Plain {
        /// `win`, `draw` or `loss`.
        value: &'static str,
        /// Plies to the end with best play (null for a draw).
        depth: Option<u32>,
    },
    /// Under a no-capture limit.
    Limited {
        /// `win`, `draw` or `loss` at the counter.
        value: &'static str,
        /// Plies to the next capture (T) of a win or loss.
        plies_to_capture: Option<u32>,
        /// A cursed win or blessed loss: decided without the limit, drawn under it.
        cursed: bool,
    },
}

impl ValueJson {
    /// `win`, `draw` or `loss` for the side to move.
    pub fn value(&self) -> &'static str {
        match *self {
            ValueJson::Plain { value, .. } | ValueJson::Limited { value, .. } => value,
        }
    }

    /// The depth: plies to the end, or under a limit plies to the next capture.
    pub fn depth(&self) -> Option<u32> {
        match *self {
            ValueJson::Plain { depth, .. } => depth,
            ValueJson::Limited {
                plies_to_capture, ..
            } => plies_to_capture,
        }
    }
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
pub fn under(rules: Rules) -> String {
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
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum MoveValueJson {
    /// Without a limit.
    Plain {
        /// `win`, `draw` or `loss` for the mover.
        value: &'static str,
        /// Plies to the end, the move included (null for a draw).
        depth: Option<u32>,
    },
    /// Under a no-capture limit.
    Limited {
        /// `win`, `draw` or `loss` for the mover at the counter the move leads to.
        value: &'static str,
        /// Plies to the next capture (T), the move included.
        plies_to_capture: Option<u32>,
        /// The counter after the move (0 after a capture).
        counter: u32,
    },
}

impl MoveValueJson {
    /// `win`, `draw` or `loss` for the mover.
    pub fn value(&self) -> &'static str {
        match *self {
            MoveValueJson::Plain { value, .. } | MoveValueJson::Limited { value, .. } => value,
        }
    }

    /// The depth, the move included: plies to the end, or under a limit plies to
    /// the next capture.
    pub fn depth(&self) -> Option<u32> {
        match *self {
            MoveValueJson::Plain { depth, .. } => depth,
            MoveValueJson::Limited {
                plies_to_capture, ..
            } => plies_to_capture,
        }
    }
}

/// A move with the value it leads to, for the mover, and the position after it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct MoveJson {
    /// The move's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// Its value for the mover.
    #[serde(flatten)]
    pub value: MoveValueJson,
    /// The position after the move.
    pub result: String,
    #[serde(skip)]
    text: String,
}

impl MoveJson {
    /// The moves of a best-first list, as reported.
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

/// `probe`'s report: the position, the rules asked under, its value for the side to
/// move, every move's value for the mover (best first) and the best moves.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ProbeReport {
    /// The position's text.
    pub position: String,
    /// The rules asked under (None: the plain game).
    #[serde(flatten)]
    pub rules: Option<RulesJson>,
    /// The value for the side to move.
    #[serde(flatten)]
    pub value: ValueJson,
    /// Every legal move, best first.
    pub moves: Vec<MoveJson>,
    /// The notations of the best moves.
    pub best: Vec<String>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        write_moves(f, &self.moves, &self.best)
    }
}

/// The value, every move's value and the best moves.
pub fn probe_report(
    pos: &Position,
    tb: &Tablebase,
    rules: Rules,
) -> Result<ProbeReport, ProbeError> {
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

/// A move of a line and the position it leads to (under a limit, with its counter).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct LineMove {
    /// The move's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The position after it.
    pub position: String,
    /// Under a limit, the counter after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter: Option<u32>,
}

impl LineMove {
    /// The moves of a line from `pos`, as reported.
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

/// `line`'s report: the position, the rules, its value and its principal line.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct LineReport {
    /// The position's text.
    pub position: String,
    /// The rules asked under (None: the plain game).
    #[serde(flatten)]
    pub rules: Option<RulesJson>,
    /// The value for the side to move.
    #[serde(flatten)]
    pub value: ValueJson,
    /// The principal line.
    pub line: Vec<LineMove>,
    #[serde(skip)]
    heading: String,
}

impl fmt::Display for LineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)?;
        LineMove::write_all(f, &self.line, 3)
    }
}

/// The principal line (under a limit, the line that keeps the result, with the
/// counter after each move).
pub fn line_report(pos: &Position, tb: &Tablebase, rules: Rules) -> Result<LineReport, ProbeError> {
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

/// The move list of a probe, one a line, then its best moves (`best: -` for none).
pub fn write_moves<M: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    moves: &[M],
    best: &[String],
) -> fmt::Result {
    for m in moves {
        writeln!(f, "{m}")?;
    }
    let best = if best.is_empty() {
        "-".into()
    } else {
        best.join(" ")
    };
    writeln!(f, "best: {best}")
}
