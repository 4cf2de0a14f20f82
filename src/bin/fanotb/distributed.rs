//! `generate --distributed`: one rank of an MPI job. Rank 0 prints; a rank that
//! fails prints its error and aborts the job, so that no rank waits forever.

use std::path::Path;

use fanotb::{Board, Options, Signature, TableSharing, generate_distributed};

use crate::args::Result;
use crate::build_report::{GenerateReport, TrafficLine};
use crate::output::print_line;
use fanotb::report::TableLine;

pub fn generate(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: Options,
    deps: TableSharing,
    json: bool,
) -> Result<GenerateReport> {
    let universe = mpi::initialize().ok_or("MPI is already initialised")?;
    let world = universe.world();
    let rank0 = mpi::traits::Communicator::rank(&world) == 0;
    // Progress from rank 0 only.
    let mut opts = opts;
    opts.observer = opts.observer.filter(|_| rank0);
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
            eprintln!("error: rank {rank}: {}", crate::args::message(&e));
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
