//! The retrograde generator.
//!
//! A signature pair (NvM with MvN) is solved at once, since paikas alternate between
//! the two. Capture is compulsory and removes stones, so:
//! 1. every entry with a capture is valued from the smaller tables (every chain, every
//!    stopping point), and every capture-free entry with no paika is lost in 0;
//! 2. the other capture-free entries get a counter: their number of distinct paika
//!    successors (as table entries, after symmetry reduction);
//! 3. depth-ordered propagation: for d = 0, 1, 2, ... every entry decided at depth d
//!    un-moves to its paika predecessors (which must have had no capture). A loss at d
//!    makes an undecided predecessor a win at d + 1 (the first is the fastest); a win
//!    at d decrements the predecessor's counter, and the last one makes it a loss at
//!    d + 1 (the slowest). Whatever is undecided at the end is a draw.
//!
//! Working memory: one state byte per entry of the pair (a code, or a counter; codes
//! from 125 on take a deep byte beside it), plus the decoded smaller tables.
//!
//! Rule-aware tables (a no-capture limit N) are built the same way: within a pair
//! every move is a paika, so the counter only grows, and a capture leaves the pair at
//! counter 0. The capture positions take the value at counter 0 of the smaller
//! rule-aware tables, with T = 1; the levels count T instead of the depth (the code
//! of `T` is `2T + 1` for a loss, `2T + 2` for a win); propagation stops at T = N.
//! Draws that the plain table of the same signature calls won or lost become cursed
//! wins and blessed losses.
//!
//! Rooms: `options` (what a build is asked and reports), `plan` (the pairs, their
//! order and estimates), `smaller` (the smaller tables a pair's captures read),
//! `capture` (capture positions valued from them), `pair` (a pair's working state
//! and stages), `checkpoint` (a pair saved mid-build), `distributed` (the MPI
//! build). This file runs a build: pair after pair, skipping what is done.

mod capture;
mod checkpoint;
#[cfg(feature = "mpi")]
mod distributed;
mod options;
mod pair;
mod plan;
mod smaller;

#[cfg(feature = "mpi")]
pub use distributed::{PairTraffic, TableSharing, generate_distributed};
pub use options::{BuildPlan, GenerateError, Observer, Options, TableReport};
pub use plan::{build_plan, plan_build};
pub(crate) use smaller::capture_deps;

use std::path::Path;
use std::time::Instant;

use self::checkpoint as pair_checkpoint;
use crate::files::durable::{DirLock, remove_tmp_files};
use crate::index::Signature;
use crate::rules::board::Board;
use crate::table::depths::write_sidecar;
use crate::table::{Codes, TableError, TableKind, table_path, tables_dir, write_table};

use self::options::{Stage, check_targets, thread_count};
use self::pair::solve_pair;
use self::plan::{plain_needs, skipped_reports};
use crate::sys::{mem_available, pair_peak, reset_peak_rss, resident_bytes};

/// Builds every table of `targets` and everything they depend on into `dir`,
/// skipping tables already complete and valid. Calls `report` after each table.
/// For rule-aware or vela tables (`opts.kind`), builds the plain tables they read
/// first.
pub fn generate(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: &Options,
    mut report: impl FnMut(&TableReport),
) -> Result<Vec<TableReport>, GenerateError> {
    check_targets(board, opts.kind, targets)?;
    let mut out = Vec::new();
    let plain = plain_needs(board, opts.kind, targets);
    if !plain.is_empty() {
        let plain_opts = Options {
            kind: TableKind::Plain,
            ..opts.clone()
        };
        out = generate_tables(dir, board, &plain, &plain_opts, &mut report)?;
    }
    out.extend(generate_tables(dir, board, targets, opts, &mut report)?);
    Ok(out)
}

/// Builds the tables of `opts.kind`.
fn generate_tables(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: &Options,
    mut report: impl FnMut(&TableReport),
) -> Result<Vec<TableReport>, GenerateError> {
    let todo = plan_build(dir, board, targets, opts.kind)?;
    let (pool, threads) = thread_pool(opts)?;
    if let Some(o) = opts.observer.as_ref().filter(|_| !todo.pairs.is_empty()) {
        o.plan(&todo, threads);
    }
    // One writer per directory; what an interrupted writer left half-written goes.
    // With every table complete nothing is written (complete files are only ever
    // replaced whole), so readers such as proof runs take no lock and start side
    // by side, even beside a writer.
    let _lock = if todo.pairs.is_empty() {
        None
    } else {
        let lock = DirLock::acquire(dir)?;
        let tables = tables_dir(dir, board, opts.kind);
        remove_tmp_files(&tables).map_err(|source| TableError::Io {
            path: tables.clone(),
            source,
        })?;
        Some(lock)
    };
    if let Some(available) = mem_available().filter(|&a| todo.peak_bytes > a && !opts.force) {
        return Err(GenerateError::Memory {
            needs: todo.peak_bytes,
            available,
        });
    }
    let mut out = Vec::new();
    let mut done = 0;
    for key in build_plan(board, opts.kind, targets) {
        let reports = pool.install(|| build_pair(dir, board, key, opts))?;
        for r in reports {
            if !r.skipped {
                done += r.stats.placements;
            }
            report(&r);
            out.push(r);
        }
        if let Some(o) = &opts.observer {
            o.job(done, todo.positions);
        }
    }
    Ok(out)
}

/// Writes the class sidecar of the table at `path`, so that opening it enumerates
/// nothing (docs/FORMAT.md, "Class sidecars").
pub(super) fn write_classes(side: &crate::index::Indexer, path: &Path) -> Result<(), TableError> {
    let path = crate::table::layout::classes_path(path);
    side.write_classes(&path)
        .map_err(|source| TableError::Io { path, source })
}

/// The worker threads `opts.threads` asks for, and how many.
fn thread_pool(opts: &Options) -> Result<(rayon::ThreadPool, usize), GenerateError> {
    let threads = thread_count(opts)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| GenerateError::Threads { threads, source })?;
    Ok((pool, threads))
}

fn build_pair(
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
) -> Result<Vec<TableReport>, GenerateError> {
    let kind = opts.kind;
    if let Some(done) = skipped_reports(dir, board, kind, key) {
        return Ok(done);
    }
    reset_peak_rss();
    // What the process already holds (the program, memory the allocator kept from
    // earlier pairs) comes on top of the pair's own bound.
    let before = resident_bytes().unwrap_or(0);
    let start = Instant::now();
    let (solved, bound, resumed_at_depth) = solve_pair(dir, board, key, opts)?;
    let bound = before + bound;
    let seconds = start.elapsed().as_secs_f64();
    let mut reports = Vec::new();
    for (side, codes, stats, depths) in solved {
        let sig = side.signature();
        let path = table_path(dir, board, kind, sig);
        let stage = Stage::new(opts, sig.to_string(), codes.len() as u64);
        stage.message("writing".into());
        let (file_bytes, checksum) = write_table(&path, board, sig, kind, &codes, stats)?;
        write_sidecar(&path, board, sig, kind, checksum, &depths)?;
        write_classes(&side, &path)?;
        stage.finish();
        reports.push(TableReport {
            sig,
            kind,
            path,
            entries: codes.len() as u64,
            stats,
            file_bytes,
            seconds,
            peak_rss: pair_peak(),
            skipped: false,
            resumed_at_depth,
            memory_bound: bound,
        });
    }
    // The tables are whole on disk: the pair's checkpoint has served.
    pair_checkpoint::remove(dir, board, kind, key);
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory a writer holds: a build with nothing to write goes on beside
    /// it, one with something to write is refused.
    #[test]
    fn complete_tables_are_read_beside_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::get(3, 3).unwrap();
        let opts = Options::default();
        let targets = [Signature::new(2, 1), Signature::new(1, 2)];
        generate(dir.path(), board, &targets, &opts, |_| {}).unwrap();
        let _writer = DirLock::acquire(dir.path()).unwrap();
        let again = generate(dir.path(), board, &targets, &opts, |_| {}).unwrap();
        assert!(again.iter().all(|r| r.skipped), "{again:?}");
        let more = generate(dir.path(), board, &[Signature::new(2, 2)], &opts, |_| {});
        assert!(
            matches!(&more, Err(e) if e.to_string().contains("in use by")),
            "{more:?}"
        );
    }
}
