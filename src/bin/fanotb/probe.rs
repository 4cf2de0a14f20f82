//! Reading the tables: `probe` (one position, or a batch from stdin) and `line`,
//! plain, under a no-capture limit or under vela: one report each, whose fields
//! follow the rules asked under.

use std::fmt;

use clap::Args;
use serde::Serialize;

use fanotb::report::{LineReport, ProbeReport, RulesJson, ValueJson, describe, rules_json};
use fanotb::{BoundedLines, MAX_LINE_BYTES, Position, ProbeError, Rules, Tablebase};

use crate::args::{Result, RulesArgs, TablesArg, VelaArgs, message};
use crate::output::{failure, print_line};

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

pub fn probe(a: ProbeArgs) -> Result<ProbeReport> {
    answer(
        &a.position,
        &a.rules,
        &a.vela,
        &a.tables,
        fanotb::report::probe_report,
    )
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

pub fn line(a: LineArgs) -> Result<LineReport> {
    answer(
        &a.position,
        &a.rules,
        &a.vela,
        &a.tables,
        fanotb::report::line_report,
    )
}

/// Checks the rules, parses the position, opens the tables, and makes `report`.
fn answer<R>(
    position: &str,
    rules: &RulesArgs,
    vela: &VelaArgs,
    tables: &TablesArg,
    report: fn(&Position, &Tablebase, Rules) -> std::result::Result<R, ProbeError>,
) -> Result<R> {
    let rules = rules.rules()?;
    let pos = Position::parse_arg(position)?;
    let rules = vela.apply(rules, &pos)?;
    Ok(report(&pos, &Tablebase::open(&tables.dir)?, rules)?)
}
