//! What a build reports: a line per table built or found (by `generate`, `solve`
//! and `prove`), the totals of a build, and per pair of a distributed build what
//! the ranks measured.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

#[cfg(feature = "mpi")]
use fanotb::PairTraffic;
use fanotb::{Board, Limit, Signature, TableKind, TableReport, peak_rss};

use crate::output::{as_text, human_bytes};

/// One table built or found, as `generate`, `solve` and `prove` report it.
#[derive(Serialize)]
pub struct TableLine {
    #[serde(serialize_with = "as_text")]
    signature: Signature,
    #[serde(flatten)]
    kind: KindFields,
    path: PathBuf,
    positions: u64,
    entries: u64,
    seconds: f64,
    bytes: u64,
    skipped: bool,
    peak_rss: Option<u64>,
    memory_bound: u64,
    resumed_at_depth: Option<u32>,
    /// Cursed wins and blessed losses of a rule-aware table.
    cursed: Option<u64>,
    blessed: Option<u64>,
    #[serde(skip)]
    wdl: [u64; 3],
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
            cursed: r.kind.limit().map(|_| r.stats.cursed),
            blessed: r.kind.limit().map(|_| r.stats.blessed),
            wdl: [r.stats.wins, r.stats.draws, r.stats.losses],
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
            self.wdl[0],
            self.wdl[1],
            self.wdl[2]
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

#[derive(Serialize)]
pub struct GenerateReport {
    board: String,
    tables: Vec<TableLine>,
    positions: u64,
    bytes: u64,
    seconds: f64,
    peak_rss: u64,
    /// Per pair built by a distributed job: each rank's peak and the bytes sent.
    #[cfg(feature = "mpi")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub distributed: Vec<TrafficLine>,
}

impl fmt::Display for GenerateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tables were printed as they completed.
        writeln!(
            f,
            "total: {} tables, {} positions, {:.1} s, peak {}, {} on disk",
            self.tables.len(),
            self.positions,
            self.seconds,
            human_bytes(self.peak_rss),
            human_bytes(self.bytes)
        )
    }
}

impl GenerateReport {
    /// The totals of a build's table reports, timed from `start`.
    pub fn new(board: &Board, reports: &[TableReport], start: std::time::Instant) -> Self {
        GenerateReport {
            board: board.size_name(),
            positions: reports.iter().map(|r| r.stats.placements).sum(),
            bytes: reports.iter().map(|r| r.file_bytes).sum(),
            tables: reports.iter().map(TableLine::from).collect(),
            seconds: start.elapsed().as_secs_f64(),
            peak_rss: peak_rss().unwrap_or(0),
            #[cfg(feature = "mpi")]
            distributed: Vec::new(),
        }
    }
}

#[cfg(feature = "mpi")]
/// What the ranks measured building a pair.
#[derive(Serialize)]
pub struct TrafficLine {
    #[serde(serialize_with = "crate::output::as_text")]
    pair: Signature,
    seconds: f64,
    /// Each rank's peak resident memory, in bytes (0: not known).
    peak_rss: Vec<u64>,
    /// Bytes sent between ranks at each depth level.
    bytes_per_level: Vec<u64>,
    bytes_sent: u64,
    deps_seconds: f64,
}

#[cfg(feature = "mpi")]
impl From<&PairTraffic> for TrafficLine {
    fn from(t: &PairTraffic) -> TrafficLine {
        TrafficLine {
            pair: t.key,
            seconds: t.seconds,
            peak_rss: t.peak_rss.iter().map(|p| p.unwrap_or(0)).collect(),
            bytes_sent: t.bytes_per_level.iter().sum(),
            bytes_per_level: t.bytes_per_level.clone(),
            deps_seconds: t.deps_seconds,
        }
    }
}

#[cfg(feature = "mpi")]
impl fmt::Display for TrafficLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let peaks: Vec<String> = self.peak_rss.iter().map(|&p| human_bytes(p)).collect();
        write!(
            f,
            "  {} pair on {} ranks: {:.2} s, peak per rank {}, sent {} over {} levels (largest {}), smaller tables in {:.2} s",
            self.pair,
            self.peak_rss.len(),
            self.seconds,
            peaks.join(" / "),
            human_bytes(self.bytes_sent),
            self.bytes_per_level.len(),
            human_bytes(self.bytes_per_level.iter().copied().max().unwrap_or(0)),
            self.deps_seconds
        )
    }
}
