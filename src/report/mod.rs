//! The reports of the front ends as data: what `fanotb probe`, `line`, `generate`,
//! `analyse`, `prove` and `check-proof` print (as text through `Display`, as JSON through serde), what the
//! HTTP server answers and what Python returns as dicts. One type each, so that
//! their fields cannot drift apart. Behind the `serde` feature.
//!
//! ```
//! # use fanotb::{Board, Options, Signature, generate};
//! use fanotb::{Position, Rules, Tablebase};
//! use fanotb::report::probe_report;
//! # let dir = tempfile::tempdir()?;
//! # generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(3), &Options::default(), |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "1B1/3/W1W w".parse()?;
//! let report = probe_report(&pos, &tb, Rules::PLAIN)?;
//! assert_eq!(report.best, ["a1-a2", "c1-c2"]);
//! assert_eq!(report.to_string().lines().nth(1), Some("White to move: win in 7"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod analysis;
mod probe;
mod proof;
mod table;

pub use analysis::{AnalyseReport, MoveLine};
pub use probe::{
    LineMove, LineReport, MoveJson, MoveValueJson, ProbeReport, RulesJson, ValueJson, VelaJson,
    best_notations, describe, line_report, probe_report, rules_json, under, write_moves,
};
pub use proof::{CheckProofReport, ProofLine, ProveReport, TablesJson};
pub use table::{KindFields, StatsRow, TableLine, bits_per_position, table_name};

use std::fmt;

/// 1536 -> "1.5 KiB".
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// Serialises through `Display` (positions, signatures, boards as their text).
pub fn as_text<T: fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}
