//! The generator on MPI (feature `mpi`): every rank holds a slice of each side of a
//! pair, whole symmetry classes, runs stage 1 on it, and at each depth level sends
//! the predecessors its decided entries notify to the ranks that hold them (one
//! all-to-all exchange a side a level); a reduction over the ranks decides when a
//! level found nothing. The tables come out byte-identical to `generate`: the codes
//! are redistributed into whole blocks, each rank compresses its blocks, rank 0
//! writes the file. The smaller tables are read by every rank from the shared
//! table directory, or read by rank 0 and broadcast (`TableSharing`). A job resumes at pair granularity: a restarted job skips the
//! pairs whose tables are complete.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::checkpoint::Resume;
use super::options::{GenerateError, Options, TableReport, check_targets, thread_count};
use super::pair::members;
use super::pair::{Exchange, Pair};
use super::plan::{build_plan, plan_build, skipped_reports};
use super::smaller::{capture_deps, load_smaller_tables};
use crate::files::durable::{DirLock, remove_tmp_files};
use crate::index::{Indexer, Signature};
use crate::rules::board::Board;
use crate::sys::{pair_peak, reset_peak_rss};
use crate::table::depths::{DepthHistogram, write_sidecar};
use crate::table::{
    BLOCK_ENTRIES, Codes, Decoded, Stats, TableError, TableKind, compress_blocks, table_path,
    tables_dir, write_blocks,
};

/// How the ranks get the smaller tables a pair's captures lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableSharing {
    /// Every rank reads them from the shared table directory.
    Shared,
    /// Rank 0 reads them and broadcasts the decoded entries.
    Broadcast,
}

/// What the ranks measured while building one pair.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PairTraffic {
    /// The pair, by its smaller-first member.
    pub key: Signature,
    /// Peak resident memory of each rank while it built the pair (when the OS tells).
    pub peak_rss: Vec<Option<u64>>,
    /// Bytes the ranks sent each other at each depth level, summed over the ranks.
    pub bytes_per_level: Vec<u64>,
    /// Seconds rank 0 took to have the smaller tables (read, or read and broadcast).
    pub deps_seconds: f64,
    /// Seconds for the pair, stage 1 to the written files.
    pub seconds: f64,
}

/// Builds the tables of `targets` as one rank of `world` (every rank calls it, with
/// the same arguments); rank 0 writes the files and gets the reports, the other
/// ranks empty lists. Plain tables only: rule-aware builds run on one machine.
///
/// # Errors
/// As `generate`. A rank that fails returns its error; the caller should abort the
/// job (`SimpleCommunicator::abort`), as the other ranks wait in a collective.
pub fn generate_distributed(
    world: &SimpleCommunicator,
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: &Options,
    deps: TableSharing,
    mut report: impl FnMut(&TableReport, Option<&PairTraffic>),
) -> Result<(Vec<TableReport>, Vec<PairTraffic>), GenerateError> {
    if opts.kind != TableKind::Plain {
        return Err(GenerateError::Distributed(
            "rule-aware and vela tables (--no-capture-limit, --vela) are built on one machine"
                .into(),
        ));
    }
    check_targets(board, TableKind::Plain, targets)?;
    let threads = global_threads(opts)?;
    let root = world.process_at_rank(0);
    let rank0 = world.rank() == 0;
    let mut _lock = None;
    if rank0 {
        _lock = Some(DirLock::acquire(dir)?);
        let tables = tables_dir(dir, board, TableKind::Plain);
        remove_tmp_files(&tables).map_err(|source| TableError::Io {
            path: tables.clone(),
            source,
        })?;
        let plan = plan_build(dir, board, targets, TableKind::Plain)?;
        if let Some(o) = opts.observer.as_ref().filter(|_| !plan.pairs.is_empty()) {
            o.plan(&plan, threads * world.size() as usize);
        }
    }
    world.barrier();
    let (mut out, mut traffic) = (Vec::new(), Vec::new());
    for key in build_plan(board, TableKind::Plain, targets) {
        // Rank 0 looks at the shared directory; every rank follows its decision.
        let skipped = if rank0 {
            skipped_reports(dir, board, TableKind::Plain, key)
        } else {
            None
        };
        let mut done = u8::from(skipped.is_some());
        root.broadcast_into(&mut done);
        if done == 1 {
            for r in skipped.into_iter().flatten() {
                report(&r, None);
                out.push(r);
            }
            continue;
        }
        let (reports, t) = build_pair(world, dir, board, key, opts, deps)?;
        for r in &reports {
            report(r, t.as_ref());
        }
        out.extend(reports);
        traffic.extend(t);
    }
    Ok((out, traffic))
}

/// Sets rayon's global pool to `opts.threads` (default: every core): MPI is called
/// from this thread, between the parallel parts, so they run in the global pool.
fn global_threads(opts: &Options) -> Result<usize, GenerateError> {
    let threads = thread_count(opts)?;
    // A pool set before (a second build in this process) must have the same size.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    match rayon::current_num_threads() {
        n if n == threads => Ok(threads),
        n => Err(GenerateError::Distributed(format!(
            "{threads} threads asked for, but this process already runs {n}"
        ))),
    }
}

/// The first entry of `rank`'s slice of `side`, of `ranks`: whole classes, as
/// evenly as classes allow.
fn slice_start(side: &Indexer, rank: usize, ranks: usize) -> u64 {
    let classes = side.size() / side.per_class();
    (classes as u128 * rank as u128 / ranks as u128) as u64 * side.per_class()
}

/// The first entry of `rank`'s whole blocks of `side`, for writing.
fn block_start(side: &Indexer, rank: usize, ranks: usize) -> u64 {
    let b = BLOCK_ENTRIES as u64;
    let blocks = side.size().div_ceil(b);
    ((blocks as u128 * rank as u128 / ranks as u128) as u64 * b).min(side.size())
}

/// Predecessor notifications over MPI.
struct Mpi<'w> {
    world: &'w SimpleCommunicator,
    /// Per side, the first entry of each rank's slice, then the side's size.
    bounds: Vec<Vec<u64>>,
    /// Bytes this rank sent at each exchange.
    sent: RefCell<Vec<u64>>,
}

impl Exchange for Mpi<'_> {
    fn exchange(&self, side: usize, mut remote: Vec<u64>) -> Result<Vec<u64>, GenerateError> {
        let bounds = &self.bounds[side];
        let ranks = self.world.size() as usize;
        // Sorted, the entries fall into one run per holder.
        remote.sort_unstable();
        let mut counts = vec![0 as Count; ranks];
        let mut at = 0;
        for (r, count) in counts.iter_mut().enumerate() {
            let end = at + remote[at..].partition_point(|&q| q < bounds[r + 1]);
            *count = count_of(end - at)?;
            at = end;
        }
        *self.sent.borrow_mut().last_mut().expect("a level") += 8 * remote.len() as u64;
        all_to_all(self.world, &remote, &counts)
    }

    fn any(&self, found: bool) -> bool {
        let mut any = 0u8;
        self.world
            .all_reduce_into(&u8::from(found), &mut any, SystemOperation::max());
        // The level is over: the next one's bytes count apart.
        self.sent.borrow_mut().push(0);
        any == 1
    }

    fn windows(&self, chunks: usize) -> (usize, usize) {
        let mut most = 0u64;
        self.world.all_reduce_into(
            &(chunks.div_ceil(WINDOW_CHUNKS) as u64),
            &mut most,
            SystemOperation::max(),
        );
        (most as usize, WINDOW_CHUNKS)
    }
}

/// Chunks (of 16,384 entries) a rank scans between two exchanges: what it sends at
/// a time is the notifications of at most 4,194,304 entries. (Measured on tsivy up
/// to 6 stones at 2 ranks: 64 chunks took 100.8 s, 256 chunks 89.2 s, one window a
/// level 83.8 s but twice the peak memory.)
const WINDOW_CHUNKS: usize = 256;

/// A receive buffer of `n` elements, allocated even for none: an empty `Vec`'s
/// dangling pointer may equal the send buffer's, which MPI refuses as aliasing.
fn buffer<T: Copy + Default>(n: usize) -> Vec<T> {
    vec![T::default(); n.max(1)]
}

/// An MPI count: messages are limited to 2^31 - 1 elements.
fn count_of(n: usize) -> Result<Count, GenerateError> {
    Count::try_from(n).map_err(|_| {
        GenerateError::Distributed(format!(
            "a message of {n} elements, more than MPI's 2^31 - 1: use more ranks"
        ))
    })
}

/// Displacements of consecutive runs of `counts`, and their total.
fn displacements(counts: &[Count]) -> Result<(Vec<Count>, Count), GenerateError> {
    let mut displs = Vec::with_capacity(counts.len());
    let mut total: usize = 0;
    for &c in counts {
        displs.push(count_of(total)?);
        total += c as usize;
    }
    Ok((displs, count_of(total)?))
}

/// Builds one pair on every rank; rank 0 writes its tables and reports them.
fn build_pair(
    world: &SimpleCommunicator,
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
    from: TableSharing,
) -> Result<(Vec<TableReport>, Option<PairTraffic>), GenerateError> {
    let (rank, ranks) = (world.rank() as usize, world.size() as usize);
    let root = world.process_at_rank(0);
    let sigs = members(key);
    reset_peak_rss();
    let start = Instant::now();
    let deps = match from {
        TableSharing::Shared => load_smaller_tables(dir, board, TableKind::Plain, &sigs)?.0,
        TableSharing::Broadcast => broadcast_deps(world, dir, board, &sigs)?,
    };
    let deps_seconds = start.elapsed().as_secs_f64();
    let pair = Pair::slice(board, &sigs, TableKind::Plain, |side| {
        slice_start(side, rank, ranks)..slice_start(side, rank + 1, ranks)
    });
    let net = Mpi {
        world,
        bounds: pair
            .sides
            .iter()
            .map(|s| (0..=ranks).map(|r| slice_start(s, r, ranks)).collect())
            .collect(),
        sent: RefCell::new(vec![0]),
    };
    let local_max = pair.initialise(key, &deps, opts)?;
    drop(deps);
    let mut max_init = 0u16;
    world.all_reduce_into(&local_max, &mut max_init, SystemOperation::max());
    let from = Resume { level: 0, max_init };
    pair.propagate(key, from, opts, &net, |_, _| Ok(()))?;
    let mut sent = net.sent.take();
    sent.pop(); // the level after the last
    let mut reports = Vec::new();
    for (side, codes) in pair.finish() {
        let first = slice_start(&side, rank, ranks);
        let (stats, depths) = DepthHistogram::count_slice_with_stats(&side, first, &codes, None);
        let blocks = to_blocks(world, &side, first, codes.to_vec())?;
        let streams = compress_blocks(&blocks[..], None);
        drop(blocks);
        let stats = gather_stats(world, stats);
        let depths = gather_depths(world, &depths)?;
        let streams = [
            gather_blocks(world, &streams[0])?,
            gather_blocks(world, &streams[1])?,
        ];
        if rank == 0 {
            let sig = side.signature();
            let path = table_path(dir, board, TableKind::Plain, sig);
            let stats = stats.finished(None);
            let (file_bytes, checksum) = write_blocks(
                &path,
                board,
                sig,
                TableKind::Plain,
                side.size(),
                stats,
                |stream, b| streams[stream][b].clone(),
            )?;
            write_sidecar(&path, board, sig, TableKind::Plain, checksum, &depths)?;
            super::write_classes(&side, &path)?;
            reports.push(TableReport {
                sig,
                kind: TableKind::Plain,
                path,
                entries: side.size(),
                stats,
                file_bytes,
                seconds: 0.0,
                peak_rss: None,
                skipped: false,
                resumed_at_depth: None,
                memory_bound: 0,
            });
        }
    }
    // Every rank's peak, and the bytes of each exchange summed over the ranks.
    let peak = pair_peak().unwrap_or(0);
    let mut peaks = vec![0u64; if rank == 0 { ranks } else { 0 }];
    let mut bytes = vec![0u64; if rank == 0 { sent.len() } else { 0 }];
    if rank == 0 {
        root.gather_into_root(&peak, &mut peaks[..]);
        root.reduce_into_root(&sent[..], &mut bytes[..], SystemOperation::sum());
    } else {
        root.gather_into(&peak);
        root.reduce_into(&sent[..], SystemOperation::sum());
    }
    let seconds = start.elapsed().as_secs_f64();
    if rank != 0 {
        return Ok((reports, None));
    }
    let peak_rss: Vec<Option<u64>> = peaks.iter().map(|&p| (p > 0).then_some(p)).collect();
    for r in &mut reports {
        r.seconds = seconds;
        r.peak_rss = peak_rss.iter().flatten().max().copied();
    }
    Ok((
        reports,
        Some(PairTraffic {
            key,
            peak_rss,
            bytes_per_level: bytes,
            deps_seconds,
            seconds,
        }),
    ))
}

/// The smaller tables, read by rank 0 and broadcast decoded, in signature order.
fn broadcast_deps(
    world: &SimpleCommunicator,
    dir: &Path,
    board: &'static Board,
    sigs: &[Signature],
) -> Result<HashMap<Signature, Decoded>, GenerateError> {
    let root = world.process_at_rank(0);
    let mut deps = match world.rank() {
        0 => load_smaller_tables(dir, board, TableKind::Plain, sigs)?.0,
        _ => HashMap::new(),
    };
    let mut needed: Vec<Signature> = sigs
        .iter()
        .flat_map(|&s| capture_deps(board, TableKind::Plain, s).map(|(d, _)| d))
        .collect();
    needed.sort();
    needed.dedup();
    for sig in needed {
        let decoded = deps.entry(sig).or_insert_with(|| {
            let idx = Indexer::new(board, sig);
            let codes = vec![0; idx.size() as usize];
            Decoded { idx, codes }
        });
        // In pieces: an MPI count is an i32.
        for piece in decoded.codes.chunks_mut(1 << 30) {
            root.broadcast_into(piece);
        }
    }
    Ok(deps)
}

/// Moves the codes of this rank's slice (classes from `first`) to the ranks that
/// compress them: each rank gets whole blocks. Returns this rank's blocks' codes.
fn to_blocks(
    world: &SimpleCommunicator,
    side: &Indexer,
    first: u64,
    codes: Vec<u16>,
) -> Result<Vec<u16>, GenerateError> {
    let ranks = world.size() as usize;
    let rank = world.rank() as usize;
    let end = first + codes.len() as u64;
    let mut counts = vec![0 as Count; ranks];
    for (r, c) in counts.iter_mut().enumerate() {
        let (lo, hi) = (block_start(side, r, ranks), block_start(side, r + 1, ranks));
        *c = count_of(hi.min(end).saturating_sub(lo.max(first)) as usize)?;
    }
    let blocks = all_to_all(world, &codes, &counts)?;
    debug_assert_eq!(
        blocks.len() as u64,
        block_start(side, rank + 1, ranks) - block_start(side, rank, ranks)
    );
    Ok(blocks)
}

/// Sends each rank `r` its run of `send` (`counts[r]` elements; the runs in rank
/// order) and returns the runs the ranks sent here, in rank order.
fn all_to_all<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    send: &[T],
    counts: &[Count],
) -> Result<Vec<T>, GenerateError> {
    let mut incoming = vec![0 as Count; counts.len()];
    world.all_to_all_into(counts, &mut incoming[..]);
    let (send_displs, _) = displacements(counts)?;
    let (recv_displs, total) = displacements(&incoming)?;
    // An empty slice's dangling pointer can be Open MPI's MPI_IN_PLACE, (void *) 1.
    let pad = buffer::<T>(0);
    let send = if send.is_empty() { &pad[..0] } else { send };
    let mut recv = buffer(total as usize);
    world.all_to_all_varcount_into(
        &Partition::new(send, counts, &send_displs[..]),
        &mut PartitionMut::new(&mut recv[..total as usize], &incoming[..], &recv_displs[..]),
    );
    recv.truncate(total as usize);
    Ok(recv)
}

/// The ranks' counts merged at rank 0, in rank order (the entries' order).
fn gather_stats(world: &SimpleCommunicator, s: Stats) -> Stats {
    let root = world.process_at_rank(0);
    let mine = [
        s.wins,
        s.draws,
        s.losses,
        s.max_win_depth as u64,
        s.longest_win,
        s.cursed,
        s.blessed,
    ];
    if world.rank() != 0 {
        root.gather_into(&mine[..]);
        return s;
    }
    let mut all = vec![0u64; 7 * world.size() as usize];
    root.gather_into_root(&mine[..], &mut all[..]);
    all.chunks(7)
        .map(|c| Stats {
            wins: c[0],
            draws: c[1],
            losses: c[2],
            max_win_depth: c[3] as u32,
            longest_win: c[4],
            cursed: c[5],
            blessed: c[6],
            placements: 0,
        })
        .reduce(Stats::merge)
        .expect("at least one rank")
}

/// The ranks' depth histograms summed at rank 0.
fn gather_depths(
    world: &SimpleCommunicator,
    h: &DepthHistogram,
) -> Result<DepthHistogram, GenerateError> {
    let wins = gather_varcount(world, &h.wins)?;
    let losses = gather_varcount(world, &h.losses)?;
    let mut total = DepthHistogram::default();
    for (w, l) in wins.into_iter().zip(losses) {
        total = total.merge(DepthHistogram { wins: w, losses: l });
    }
    Ok(total)
}

/// Every rank's compressed blocks at rank 0, in rank order (the blocks' order).
fn gather_blocks(
    world: &SimpleCommunicator,
    blocks: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>, GenerateError> {
    let sizes: Vec<u64> = blocks.iter().map(|b| b.len() as u64).collect();
    let bytes: Vec<u8> = blocks.concat();
    let sizes = gather_varcount(world, &sizes)?;
    let bytes = gather_varcount(world, &bytes)?;
    let mut out = Vec::new();
    for (sizes, bytes) in sizes.into_iter().zip(bytes) {
        let mut at = 0;
        for s in sizes {
            out.push(bytes[at..at + s as usize].to_vec());
            at += s as usize;
        }
    }
    Ok(out)
}

/// Each rank's `v` at rank 0, one vector per rank (none elsewhere).
fn gather_varcount<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    v: &[T],
) -> Result<Vec<Vec<T>>, GenerateError> {
    let root = world.process_at_rank(0);
    let n = count_of(v.len())?;
    // An empty slice's dangling pointer can be Open MPI's MPI_IN_PLACE, (void *) 1.
    let pad = buffer::<T>(0);
    let v = if v.is_empty() { &pad[..0] } else { v };
    if world.rank() != 0 {
        root.gather_into(&n);
        root.gather_varcount_into(v);
        return Ok(Vec::new());
    }
    let mut counts = vec![0 as Count; world.size() as usize];
    root.gather_into_root(&n, &mut counts[..]);
    let (displs, total) = displacements(&counts)?;
    let mut all = buffer(total as usize);
    root.gather_varcount_into_root(
        v,
        &mut PartitionMut::new(&mut all[..total as usize], &counts[..], &displs[..]),
    );
    Ok(counts
        .iter()
        .zip(&displs)
        .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
        .collect())
}
