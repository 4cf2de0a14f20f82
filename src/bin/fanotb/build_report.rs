//! What a build reports: the totals of a build (its tables' lines are
//! `fanotb::report::TableLine`), and per pair of a distributed build what the ranks
//! measured.

use std::fmt;

use serde::Serialize;

#[cfg(feature = "mpi")]
use fanotb::PairTraffic;
#[cfg(feature = "mpi")]
use fanotb::Signature;
use fanotb::report::{TableLine, human_bytes};
use fanotb::{Board, TableReport, peak_rss};

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
    #[serde(serialize_with = "fanotb::report::as_text")]
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
