//! `analyse`'s report: a game record replayed against the tables, move by move.

use std::fmt;

use serde::Serialize;

use crate::{AnalysedMove, Analysis, Color, Judged, Known, Value, Verdict, Wdl};

/// One move as `analyse` reports it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct MoveLine {
    /// The ply, from 1.
    pub ply: usize,
    /// The move's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// Its mover, `white` or `black`.
    pub mover: &'static str,
    /// The position it is played in.
    pub position: String,
    /// The value for the mover before the move (null: no table covers it).
    pub before: Option<&'static str>,
    /// Plies to the end (or T under the limit) of `before`.
    pub before_depth: Option<u32>,
    /// Why no table covers the position before the move (null: one does).
    pub not_covered: Option<String>,
    /// The value for the mover after the move.
    pub after: Option<&'static str>,
    /// Its plies to the end (or T under the limit), from the position the move is
    /// played in.
    pub after_depth: Option<u32>,
    /// A move that changed the result for its mover by the tables: `win-to-draw`,
    /// `win-to-loss` or `draw-to-loss`.
    pub mistake: Option<&'static str>,
    /// `slow-win` or `hastened-loss`: the result kept, but not by a best move.
    pub inaccuracy: Option<&'static str>,
    /// A best move, beside a mistake or an inaccuracy.
    pub best: Option<String>,
    /// What is proved before the move: the tables' value for the mover, or the
    /// proofs' claims (`draw`, `White does not lose`), or `unknown`.
    pub proved_before: String,
    /// What is proved after it (`unknown` too once the game is over).
    pub proved_after: String,
    /// The value for the mover before the move where the tables or the proofs fix
    /// it (`win`, `draw`, `loss`), else null.
    pub proved_value: Option<&'static str>,
    /// Whether the move kept what was proved for its mover: `kept`, `thrown`, or
    /// `unknown` (the search did not decide); null where nothing was proved.
    pub verdict: Option<&'static str>,
}

impl MoveLine {
    /// A move as analysed, with what the proofs say of it (None: not asked).
    pub fn new(m: &AnalysedMove, j: Option<&Judged>) -> MoveLine {
        let board = m.position.board();
        MoveLine {
            ply: m.ply,
            notation: m.mv.notation(board),
            mover: match m.mover {
                Color::White => "white",
                Color::Black => "black",
            },
            position: m.position.to_string(),
            before: m.before.map(|v| v.wdl().name()),
            before_depth: m.before.and_then(Value::depth),
            not_covered: m.not_covered.clone(),
            after: m.after.map(Wdl::name),
            after_depth: m.after_depth,
            mistake: m.mistake.map(|k| k.name()),
            inaccuracy: m.inaccuracy.map(|i| i.name()),
            best: m.best.as_ref().map(|b| b.notation(board)),
            proved_before: j.map_or("unknown".into(), |j| proved_text(&j.before)),
            proved_after: j.map_or("unknown".into(), |j| {
                if j.over {
                    "game over".into()
                } else {
                    proved_text(&j.after)
                }
            }),
            proved_value: j.and_then(|j| j.before.value(m.mover)).map(Wdl::name),
            verdict: j.and_then(|j| j.verdict).map(Verdict::name),
        }
    }
}

/// `win in 29 (tables)` for the side to move, `draw (proof)`, `White does not lose
/// (proof)`, `unknown`.
fn proved_text(k: &Known) -> String {
    k.to_string()
}

/// `analyse`'s report: each move judged, the result and how the game ended, and
/// the counts of proved positions, thrown results, mistakes and inaccuracies.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct AnalyseReport {
    /// The record's result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: String,
    /// How the game ended by the rules (null: it did not).
    pub end: Option<&'static str>,
    #[serde(skip)]
    end_text: Option<String>,
    /// Positions before a move with a proved value (tables or proofs), and without.
    pub proved: usize,
    /// See `proved`.
    pub unknown: usize,
    /// Moves that threw away what was proved for their mover.
    pub thrown: usize,
    /// Every move, in order.
    pub moves: Vec<MoveLine>,
}

impl AnalyseReport {
    /// The report of an analysis, with what is proved of each of its moves
    /// ([`crate::Player::analyse_game`] gives both).
    pub fn new(a: &Analysis, judged: &[Judged]) -> AnalyseReport {
        let moves: Vec<MoveLine> = a
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| MoveLine::new(m, judged.get(i)))
            .collect();
        let proved = moves
            .iter()
            .filter(|m| m.proved_before != "unknown")
            .count();
        AnalyseReport {
            result: a.result.to_string(),
            end: a.end.map(|e| e.name()),
            end_text: a.end.map(|e| e.to_string()),
            proved,
            unknown: moves.len() - proved,
            thrown: moves.iter().filter(|m| m.verdict == Some("thrown")).count(),
            moves,
        }
    }
}

impl AnalyseReport {
    /// The runs of plies no table covers: first, last, and why at the first (the
    /// missing table, without the advice that follows it).
    fn not_covered(&self) -> Vec<(usize, usize, &str)> {
        let mut runs: Vec<(usize, usize, &str)> = Vec::new();
        for m in &self.moves {
            let Some(why) = &m.not_covered else { continue };
            match runs.last_mut() {
                Some(run) if run.1 + 1 == m.ply => run.1 = m.ply,
                _ => runs.push((m.ply, m.ply, why.split(": ").next().unwrap_or(why))),
            }
        }
        runs
    }
}

/// `win in 29`, `draw`, `-` where no table covers the position.
fn value_text(wdl: Option<&str>, depth: Option<u32>) -> String {
    match (wdl, depth) {
        (None, _) => "-".into(),
        (Some(w), Some(d)) if w != "draw" => format!("{w} in {d}"),
        (Some(w), _) => w.into(),
    }
}

impl fmt::Display for AnalyseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Columns as wide as their widest entry: long chain moves stay aligned.
        let width =
            |it: &mut dyn Iterator<Item = usize>, min: usize| it.max().unwrap_or(0).max(min);
        let mw = width(&mut self.moves.iter().map(|m| m.notation.len()), 4);
        let pw = width(&mut self.moves.iter().map(|m| m.proved_before.len()), 6);
        writeln!(
            f,
            "{:>4}  {:<mw$}  {:<14} {:<14} {:<pw$}  note",
            "ply", "move", "before", "after", "proved"
        )?;
        for m in &self.moves {
            let mut note = match (m.mistake.or(m.inaccuracy), &m.best) {
                (Some(k), Some(b)) => format!("{k}, best {b}"),
                (Some(k), None) => k.to_string(),
                _ => String::new(),
            };
            match m.verdict {
                Some("thrown") if m.mistake.is_none() => {
                    note = format!("throws it away: {}", m.proved_after);
                }
                Some("unknown") => {
                    note = "kept or thrown: unknown within the search's budget".into()
                }
                _ => {}
            }
            let line = format!(
                "{:>4}  {:<mw$}  {:<14} {:<14} {:<pw$}  {note}",
                m.ply,
                m.notation,
                value_text(m.before, m.before_depth),
                value_text(m.after, m.after_depth),
                m.proved_before,
            );
            writeln!(f, "{}", line.trim_end())?;
        }
        let mistakes: Vec<String> = self
            .moves
            .iter()
            .filter_map(|m| m.mistake.map(|k| format!("{} {} ({k})", m.ply, m.notation)))
            .collect();
        let inaccuracies = self.moves.iter().filter(|m| m.inaccuracy.is_some()).count();
        for (first, last, why) in self.not_covered() {
            let plies = match first == last {
                true => format!("ply {first}"),
                false => format!("plies {first}-{last}"),
            };
            writeln!(
                f,
                "{plies}: not covered by the tables (at ply {first}: {why})"
            )?;
        }
        writeln!(
            f,
            "result {}; {}",
            self.result,
            match &self.end_text {
                Some(e) => format!("by the rules: {e}"),
                None => "the game did not end by the rules".into(),
            }
        )?;
        let plural = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        writeln!(
            f,
            "{} of {} positions before a move proved (tables or proofs), {} unknown; {} thrown away",
            self.proved,
            self.moves.len(),
            self.unknown,
            plural(self.thrown, "move", "moves"),
        )?;
        let inexact = plural(inaccuracies, "inaccuracy", "inaccuracies");
        match mistakes.len() {
            0 => writeln!(f, "no mistakes by the tables, {inexact}"),
            n => writeln!(
                f,
                "{} by the tables: {}; {inexact}",
                plural(n, "mistake", "mistakes"),
                mistakes.join(", ")
            ),
        }
    }
}
