//! Solving whole small boards: `solve`.

use std::fmt;

use clap::Args;
use serde::Serialize;

use fanotb::{Board, Position, SMALL_BOARDS, Solution, Value, Wdl, published, solve};

use crate::args::{Result, TablesArg, board_position};
use crate::output::print_line;
use crate::tables::BuildArgs;
use fanotb::report::TableLine;
use fanotb::report::human_bytes;
use fanotb::report::{LineMove, MoveJson, ValueJson, best_notations};

#[derive(Args)]
pub struct SolveArgs {
    /// Board: WxH (columns x rows), tsivy or dimy. Example: 5x3.
    #[arg(required_unless_present = "all_small", conflicts_with = "all_small")]
    pub board: Option<String>,
    /// Solve this position of the board instead of the start. Example: "B1B/3/W1W w".
    #[arg(long, conflicts_with = "all_small")]
    pub position: Option<String>,
    /// Solve every small board this machine can do (3x3, 5x3, 3x5, 7x3, 3x7) and
    /// print one results table.
    #[arg(long)]
    pub all_small: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

#[derive(Serialize)]
struct SearchJson {
    value: Option<&'static str>,
    depth: Option<u32>,
    nodes: u64,
}

#[derive(Serialize)]
pub struct SolutionReport {
    board: String,
    literature: String,
    position: String,
    material: String,
    #[serde(flatten)]
    value: ValueJson,
    published: Option<&'static str>,
    search: SearchJson,
    moves: Vec<MoveJson>,
    line: Vec<LineMove>,
    tables: usize,
    positions: u64,
    seconds: f64,
    peak_rss: Option<u64>,
    disk_bytes: u64,
    #[serde(skip)]
    solution: Solution,
}

/// "wins", "draws" or "loses": the result for the side to move.
fn verdict(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "wins",
        Wdl::Draw => "draws",
        Wdl::Loss => "loses",
    }
}

impl From<Solution> for SolutionReport {
    fn from(s: Solution) -> SolutionReport {
        let b = s.board;
        SolutionReport {
            board: b.size_name(),
            literature: format!("{}x{}", b.height(), b.width()),
            position: s.position.to_string(),
            material: s.signature.to_string(),
            value: Value::Plain(s.outcome).into(),
            published: published(b),
            search: SearchJson {
                value: s.search.outcome.map(|o| o.wdl().name()),
                depth: s.search.outcome.and_then(|o| o.depth()),
                nodes: s.search.nodes,
            },
            moves: MoveJson::list(&s.moves, &s.position),
            line: LineMove::list(&s.line, &s.position),
            tables: s.tables.len(),
            positions: s.positions,
            seconds: s.seconds,
            peak_rss: s.peak_rss,
            disk_bytes: s.disk_bytes,
            solution: s,
        }
    }
}

impl fmt::Display for SolutionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.solution;
        writeln!(
            f,
            "{} board ({} rows x columns in the literature), material {}",
            self.board, self.literature, self.material
        )?;
        writeln!(f, "{}", self.position)?;
        write!(
            f,
            "value: {} to move {} ({})",
            s.position.turn().name(),
            verdict(s.outcome.wdl()),
            s.outcome
        )?;
        if let Some(p) = self
            .published
            .filter(|_| s.position == Position::start(s.board))
        {
            write!(f, "; published: {p} for White")?;
        }
        writeln!(f)?;
        match s.search.outcome {
            Some(o) if o == s.outcome => writeln!(
                f,
                "search check: {o} proved by a {}-node search over the move generator",
                s.search.nodes
            )?,
            Some(o) => writeln!(f, "search check: MISMATCH, the search finds {o}")?,
            None => writeln!(
                f,
                "search check: no verdict within {} nodes",
                s.search.nodes
            )?,
        }
        writeln!(f, "first moves:")?;
        for m in &self.moves {
            writeln!(f, "{m}")?;
        }
        if !self.line.is_empty() {
            writeln!(f, "principal line:")?;
            LineMove::write_all(f, &self.line, 4)?;
        }
        writeln!(
            f,
            "{} tables, {} positions, {:.1} s, peak {}, {} on disk",
            self.tables,
            self.positions,
            self.seconds,
            human_bytes(self.peak_rss.unwrap_or(0)),
            human_bytes(self.disk_bytes)
        )
    }
}

/// One board's answer, or the results table of `--all-small`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum SolveReport {
    One(Box<SolutionReport>),
    All(Vec<SolutionReport>),
}

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all = match self {
            SolveReport::One(s) => return s.fmt(f),
            SolveReport::All(all) => all,
        };
        writeln!(
            f,
            "{:<6} {:<11} {:<9} {:<9} {:>5} {:<20} {:>13} {:>9} {:>10} {:>10} {:<9}",
            "board",
            "literature",
            "material",
            "value",
            "depth",
            "best first moves",
            "positions",
            "seconds",
            "peak RSS",
            "disk",
            "published"
        )?;
        for r in all {
            let s = &r.solution;
            writeln!(
                f,
                "{:<6} {:<11} {:<9} {:<9} {:>5} {:<20} {:>13} {:>9.1} {:>10} {:>10} {:<9}",
                r.board,
                r.literature,
                r.material,
                format!("{} {}", s.position.turn().name(), verdict(s.outcome.wdl())),
                s.outcome.depth().map_or("-".into(), |d| d.to_string()),
                best_notations(&s.moves, &s.position).join(" "),
                r.positions,
                r.seconds,
                human_bytes(r.peak_rss.unwrap_or(0)),
                human_bytes(r.disk_bytes),
                r.published.unwrap_or("-")
            )?;
        }
        Ok(())
    }
}

pub fn solve_command(a: SolveArgs, json: bool) -> Result<SolveReport> {
    let opts = a.build.options(json);
    let targets: Vec<Position> = if a.all_small {
        SMALL_BOARDS
            .iter()
            .map(|&(w, h)| Board::get(w, h).map(Position::start))
            .collect::<std::result::Result<_, _>>()?
    } else {
        vec![board_position(
            a.board.as_deref().unwrap_or_default(),
            a.position.as_deref(),
        )?]
    };
    let mut solutions = Vec::new();
    for pos in &targets {
        let sol = solve(&a.tables.dir, pos, &opts, |r| {
            if !json && !r.skipped {
                print_line(&TableLine::from(r), false);
            }
        })?;
        solutions.push(SolutionReport::from(sol));
    }
    Ok(if a.all_small {
        SolveReport::All(solutions)
    } else {
        SolveReport::One(Box::new(solutions.pop().expect("one solution")))
    })
}
