//! `generate --distributed`: one rank of an MPI job. Rank 0 prints; a rank that
//! fails prints its error and aborts the job, so that no rank waits forever.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use fanotb::{Board, Deps, Options, PairTraffic, Signature, generate_distributed};

use crate::Result;
use crate::output::{human_bytes, print_line};
use crate::tables::{GenerateReport, TableLine};

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

pub fn generate(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: Options,
    deps: Deps,
    json: bool,
) -> Result<GenerateReport> {
    let universe = mpi::initialize().ok_or("MPI is already initialised")?;
    let world = universe.world();
    let rank0 = mpi::traits::Communicator::rank(&world) == 0;
    // Progress from rank 0 only.
    let opts = Options {
        observer: opts.observer.filter(|_| rank0),
        ..opts
    };
    let start = std::time::Instant::now();
    let result = generate_distributed(&world, dir, board, targets, &opts, deps, |r, t| {
        if rank0 && !json {
            print_line(&TableLine::from(r), false);
            if let Some(t) = t.filter(|_| r.sig.us <= r.sig.them) {
                print_line(&TrafficLine::from(t), false);
            }
        }
    });
    let (reports, traffic) = match result {
        Ok(done) => done,
        Err(e) => {
            let rank = mpi::traits::Communicator::rank(&world);
            eprintln!("error: rank {rank}: {}", crate::message(&e));
            mpi::traits::Communicator::abort(&world, 1)
        }
    };
    if !rank0 {
        drop(universe);
        std::process::exit(0);
    }
    let mut report = GenerateReport::new(board, &reports, start);
    report.distributed = traffic.iter().map(TrafficLine::from).collect();
    Ok(report)
}
