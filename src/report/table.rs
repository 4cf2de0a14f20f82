//! A table built or found, as `generate`, `solve` and `prove` report it.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{as_text, human_bytes};
use crate::{Limit, Signature, TableInfo, TableKind, TableReport};

/// One table built or found, as `generate`, `solve` and `prove` report it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct TableLine {
    /// The material, the side to move's stones first.
    #[serde(serialize_with = "as_text")]
    pub signature: Signature,
    /// Its kind: `limit` (rule-aware tables), `vela` (vela tables).
    #[serde(flatten)]
    pub kind: KindFields,
    /// The table's file.
    pub path: PathBuf,
    /// Its positions (placements, without symmetry reduction).
    pub positions: u64,
    /// Its entries (positions up to symmetry).
    pub entries: u64,
    /// Positions won, drawn and lost for the side to move.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// Seconds it took (0 for a table found complete).
    pub seconds: f64,
    /// The file's size.
    pub bytes: u64,
    /// Whether it was found complete and kept.
    pub skipped: bool,
    /// The process's peak resident memory once it was built, when known.
    pub peak_rss: Option<u64>,
    /// The build's memory bound in bytes.
    pub memory_bound: u64,
    /// The depth an interrupted build resumed at.
    pub resumed_at_depth: Option<u32>,
    /// Cursed wins and blessed losses of a rule-aware table.
    pub cursed: Option<u64>,
    /// See `cursed`.
    pub blessed: Option<u64>,
}

/// A table's name in text output: `3v2`, `n60/3v2` for a rule-aware table, or
/// `vela/6v1` (its place under the board's directory).
pub fn table_name(sig: Signature, kind: TableKind) -> String {
    match kind.dir_name() {
        Some(d) => format!("{d}/{sig}"),
        None => sig.to_string(),
    }
}

/// A table's kind as JSON fields: `limit`, the no-capture limit of a rule-aware
/// table (null otherwise), and `"vela": true` for a vela table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KindFields(pub TableKind);

impl Serialize for KindFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("limit", &self.0.limit().map(Limit::plies))?;
        if self.0 == TableKind::Vela {
            m.serialize_entry("vela", &true)?;
        }
        m.end()
    }
}

impl From<&TableReport> for TableLine {
    fn from(r: &TableReport) -> TableLine {
        TableLine {
            signature: r.sig,
            kind: KindFields(r.kind),
            path: r.path.clone(),
            positions: r.stats.placements,
            entries: r.entries,
            seconds: r.seconds,
            bytes: r.file_bytes,
            skipped: r.skipped,
            peak_rss: r.peak_rss,
            memory_bound: r.memory_bound,
            resumed_at_depth: r.resumed_at_depth,
            wins: r.stats.wins,
            draws: r.stats.draws,
            losses: r.stats.losses,
            cursed: r.kind.limit().map(|_| r.stats.cursed),
            blessed: r.kind.limit().map(|_| r.stats.blessed),
        }
    }
}

impl fmt::Display for TableLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.skipped {
            return write!(
                f,
                "{:<6} {:>15} positions: already complete ({})",
                table_name(self.signature, self.kind.0),
                self.positions,
                self.path.display()
            );
        }
        write!(
            f,
            "{:<6} {:>15} positions {:>12} entries {:>8.2} s  peak {:>10} (bound {:>10})  {:>10} bytes  W {} D {} L {}",
            table_name(self.signature, self.kind.0),
            self.positions,
            self.entries,
            self.seconds,
            human_bytes(self.peak_rss.unwrap_or(0)),
            human_bytes(self.memory_bound),
            self.bytes,
            self.wins,
            self.draws,
            self.losses
        )?;
        if let (Some(c), Some(b)) = (self.cursed, self.blessed) {
            write!(f, "  cursed {c} blessed {b}")?;
        }
        match self.resumed_at_depth {
            Some(d) => write!(f, "  (resumed at depth {d})"),
            None => Ok(()),
        }
    }
}

/// One table's figures, as `stats` reports it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct StatsRow {
    /// The board's size, `9x5`.
    pub board: String,
    /// The material, the side to move's stones first.
    #[serde(serialize_with = "as_text")]
    pub signature: Signature,
    /// The kind (a rule-aware table's longest win is its largest T).
    #[serde(flatten)]
    pub kind: KindFields,
    /// Its positions (placements).
    pub positions: u64,
    /// Positions won, drawn and lost for the side to move.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// The longest win in plies (a rule-aware table: its largest T); null without a win.
    pub longest_win: Option<u32>,
    /// A position of the longest win.
    pub longest_win_position: Option<String>,
    /// The file's size.
    pub bytes: u64,
    /// The file.
    pub path: PathBuf,
    /// Bits of file a position.
    pub bits_per_position: f64,
    /// Cursed wins and blessed losses of a rule-aware table.
    pub cursed: Option<u64>,
    /// See `cursed`.
    pub blessed: Option<u64>,
}

/// Bits of file a position: `bytes` over `positions`.
pub fn bits_per_position(bytes: u64, positions: u64) -> f64 {
    bytes as f64 * 8.0 / positions.max(1) as f64
}

impl From<&TableInfo> for StatsRow {
    fn from(t: &TableInfo) -> StatsRow {
        let st = t.stats;
        StatsRow {
            board: t.board.size_name(),
            signature: t.signature,
            kind: KindFields(t.kind),
            positions: st.placements,
            wins: st.wins,
            draws: st.draws,
            losses: st.losses,
            longest_win: (st.wins > 0).then_some(st.max_win_depth),
            longest_win_position: t.longest_win.map(|p| p.to_string()),
            bytes: t.bytes,
            path: t.path.clone(),
            bits_per_position: bits_per_position(t.bytes, st.placements),
            cursed: t.kind.limit().map(|_| st.cursed),
            blessed: t.kind.limit().map(|_| st.blessed),
        }
    }
}
