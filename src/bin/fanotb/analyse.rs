//! `analyse`: a game record replayed against the tables, move by move: the value
//! before and after each move for its mover, the mistakes and the inaccuracies
//! with the best move, the plies the tables do not cover and why, and how the game
//! ended by the rules.

use std::path::PathBuf;

use clap::Args;

use fanotb::report::AnalyseReport;
use fanotb::{Analysis, Color, Judged, Record, Wdl};

use crate::args::{Result, SolutionArgs, TablesArg};
use crate::charts::{Chart, GameChart};

/// Largest record read: a game of tens of thousands of plies fits many times.
pub const MAX_RECORD_BYTES: u64 = 4 << 20;

#[derive(Args)]
pub struct AnalyseArgs {
    /// The game record (docs/FORMAT.md, "Game records"), or `-` for stdin.
    /// Example: game.fanrec.
    pub record: PathBuf,
    /// Also draw the value along the game as a chart: FILE.svg and FILE.png.
    /// Example: game-chart.
    #[arg(long)]
    pub chart: Option<PathBuf>,
    #[command(flatten)]
    pub solution: SolutionArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

pub fn analyse_command(a: AnalyseArgs) -> Result<AnalyseReport> {
    let text = read_record(&a.record)?;
    let record: Record = text.parse()?;
    let (analysis, judged) = a.solution.player(&a.tables.dir)?.analyse_game(&record)?;
    if let Some(stem) = &a.chart {
        game_chart(&analysis, &judged, &a.record.display().to_string()).write(stem)?;
    }
    Ok(AnalyseReport::new(&analysis, &judged))
}

/// The chart of White's value along the game.
pub fn game_chart(a: &Analysis, judged: &[Judged], name: &str) -> GameChart {
    let white = |mover: Color, w: Wdl| {
        let v = match w {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        };
        if mover == Color::White { v } else { -v }
    };
    // The tables' value, else the value the proofs fix.
    let mut values: Vec<Option<i8>> = a
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.before.map(|v| white(m.mover, v.wdl())).or_else(|| {
                let known = &judged.get(i)?.before;
                known.value(m.mover).map(|w| white(m.mover, w))
            })
        })
        .collect();
    if let Some(last) = a.moves.last() {
        values.push(last.after.map(|w| white(last.mover, w)));
    }
    GameChart {
        title: format!("{name}: the value for White along the game"),
        values,
        // A mistake shows on the position it leads to.
        mistakes: a
            .moves
            .iter()
            .filter(|m| m.mistake.is_some())
            .map(|m| m.ply)
            .collect(),
    }
}

/// The record's text, from a file or stdin, at most `MAX_RECORD_BYTES`.
fn read_record(path: &std::path::Path) -> Result<String> {
    let read = if path.as_os_str() == "-" {
        fanotb::read_stream_bounded(std::io::stdin().lock(), MAX_RECORD_BYTES)
    } else {
        fanotb::read_text_bounded(path, MAX_RECORD_BYTES)
    };
    read.map_err(|e| format!("cannot read the record {}: {e}", path.display()).into())
}
