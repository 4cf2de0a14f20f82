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
//! Working memory: one `u16` per entry of the pair, plus the decoded smaller tables.
//!
//! Rule-aware tables (a no-capture limit N) are built the same way: within a pair
//! every move is a paika, so the counter only grows, and a capture leaves the pair at
//! counter 0. The capture positions take the value at counter 0 of the smaller
//! rule-aware tables, with T = 1; the levels count T instead of the depth (the code
//! of `T` is `2T + 1` for a loss, `2T + 2` for a win); propagation stops at T = N.
//! Draws that the plain table of the same signature calls won or lost become cursed
//! wins and blessed losses.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

use crate::board::Board;
use crate::depths::{DepthHistogram, write_sidecar};
use crate::durable::{DirLock, LockError, remove_tmp_files};
use crate::index::{Indexer, Signature};
use crate::limit::{Limit, Limited};
use crate::movegen::{capture_results, capturers, for_each_paika, has_capture};
use crate::pair_checkpoint::{self, Resume};
use crate::table::{
    BLESSED, CURSED, Decoded, Stats, Table, TableError, TableFile, code_wdl, limited_code,
    table_path, tables_dir, write_table,
};
use crate::value::Wdl;

/// Undecided entry: this bit plus the number of successors not yet known to be wins.
const UNDECIDED: u16 = 0x8000;
/// An entry that is an image of a smaller canonical entry.
const REDUNDANT: u16 = 0x7fff;
/// Entries per unit of parallel work.
const CHUNK: usize = 1 << 14;

/// Why `generate` could not build the tables.
#[derive(Debug, Error)]
pub enum GenerateError {
    /// Reading a smaller table or writing a new one failed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Another build holds the table directory.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A signature has more stones than the board has points.
    #[error(
        "signature {sig} needs {stones} stones, more than the {points} points of the {board} board"
    )]
    TooMany {
        /// The signature asked for.
        sig: Signature,
        /// Its stones, both sides.
        stones: usize,
        /// Points of the board.
        points: usize,
        /// The board, as `WxH`.
        board: String,
    },
    /// A table needed is beyond this generator: more than 10^12 placements, or more
    /// than `u32::MAX` placements of the side to move's stones alone.
    #[error(
        "signature {sig} on the {board} board has {placements} positions, more than this generator builds (at most 10^12 per table)"
    )]
    TooLarge {
        /// The table's signature.
        sig: Signature,
        /// Its placements, before symmetry reduction.
        placements: u64,
        /// The board, as `WxH`.
        board: String,
    },
    /// A depth above 32765 plies, more than the table format stores; holds the pair's
    /// smaller-first signature.
    #[error("depth overflow in {0}: a depth above 32765 plies")]
    DepthOverflow(Signature),
    /// The largest pair would need more memory than the system has available.
    #[error(
        "the largest pair needs about {} MiB, more than the {} MiB available",
        needs >> 20,
        available >> 20
    )]
    Memory {
        /// Bytes the largest pair's working state takes (estimate).
        needs: u64,
        /// Bytes available (MemAvailable).
        available: u64,
    },
    /// More worker threads than the machine has cores, or none.
    #[error("{asked} worker threads asked for: give 1 to {cores}, the cores of this machine")]
    ThreadCount {
        /// Threads asked for.
        asked: usize,
        /// Cores available to this process.
        cores: usize,
    },
    /// A distributed build cannot go on (why).
    #[error("distributed build: {0}")]
    Distributed(String),
    /// The worker thread pool could not be started.
    #[error("cannot start {threads} worker threads")]
    Threads {
        /// Threads asked for; 0 for the default (every core).
        threads: usize,
        /// The pool's error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// What a long build reports as it goes. The library draws nothing: the command line
/// implements this with progress bars and log lines; a program may log it or ignore
/// it. Stages run one after another; `advance` comes from worker threads.
pub trait Observer: Send + Sync {
    /// A stage of `len` units (table entries) begins: `name` is the table or pair,
    /// `what` the stage ("captures/counters", "depth 12", "writing").
    fn begin(&self, name: &str, what: &str, len: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is complete.
    fn end(&self);
    /// The build is about to start, on `threads` worker threads, as `plan` estimates
    /// (called only when there is something to build).
    fn plan(&self, plan: &BuildPlan, threads: usize) {
        let _ = (plan, threads);
    }
    /// A pair is complete: `done` of the job's `total` positions are built.
    fn job(&self, done: u64, total: u64) {
        let _ = (done, total);
    }
}

/// How to build.
#[derive(Clone, Default)]
pub struct Options {
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    /// Told of every stage and its progress.
    pub observer: Option<std::sync::Arc<dyn Observer>>,
    /// Build even when a pair's estimated working memory exceeds the memory the
    /// system has available.
    pub force: bool,
    /// Save a pair in progress this often (after its first stage, then at a depth
    /// level), so that an interrupted build resumes inside it; `None`: never. The
    /// interval stretches to ten times a save's duration, so saving costs at most a
    /// tenth of the build.
    pub checkpoint_every: Option<std::time::Duration>,
    /// Build the rule-aware tables of this no-capture limit (in `DIR/WxH/nN/`), after
    /// the plain tables they are checked against (built first when missing).
    pub limit: Option<Limit>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("threads", &self.threads)
            .field("observer", &self.observer.is_some())
            .field("force", &self.force)
            .field("checkpoint_every", &self.checkpoint_every)
            .field("limit", &self.limit)
            .finish()
    }
}

/// What happened to one table.
#[derive(Clone, Debug)]
pub struct TableReport {
    /// The table's signature.
    pub sig: Signature,
    /// The no-capture limit of a rule-aware table.
    pub limit: Option<Limit>,
    /// Its file.
    pub path: PathBuf,
    /// Entries stored (symmetry-reduced).
    pub entries: u64,
    /// The counts its header holds.
    pub stats: Stats,
    /// Size of its file in bytes.
    pub file_bytes: u64,
    /// Seconds to build the pair this table belongs to (0 when skipped).
    pub seconds: f64,
    /// Peak resident memory while the pair was built, in bytes (when the OS tells).
    pub peak_rss: Option<u64>,
    /// Already complete and valid on disk.
    pub skipped: bool,
    /// The depth level the pair's build resumed at, from its checkpoint.
    pub resumed_at_depth: Option<u32>,
    /// The most memory the process may hold while building the pair: what it held
    /// before plus the pair's working memory (see `memory_bound`); 0 when skipped.
    pub memory_bound: u64,
}

/// Signatures a signature's captures lead to (with the opponent to move), excluding
/// the empty side.
pub(crate) fn capture_deps(sig: Signature) -> impl Iterator<Item = Signature> {
    (1..sig.them).map(move |left| Signature::new(left, sig.us))
}

/// Every signature pair needed for `targets`, in build order: fewest stones first,
/// and among pairs of as many stones, the targets in the order given.
/// Each pair is named by its smaller-first member.
pub fn build_plan(targets: &[Signature]) -> Vec<Signature> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Signature> = targets.to_vec();
    while let Some(s) = stack.pop() {
        let key = pair_key(s);
        if seen.insert(key) {
            for t in [key, key.flipped()] {
                stack.extend(capture_deps(t));
            }
        }
    }
    let mut v: Vec<Signature> = seen.into_iter().collect();
    let asked = |k: Signature| targets.iter().position(|&t| pair_key(t) == k);
    v.sort_by_key(|&s| (s.stones(), asked(s).unwrap_or(usize::MAX), s));
    v
}

fn pair_key(s: Signature) -> Signature {
    if s.us <= s.them { s } else { s.flipped() }
}

/// The largest peak of the pairs before the current one (the kernel's count
/// restarts with each pair).
static EARLIER_PEAK: AtomicU64 = AtomicU64::new(0);
/// The largest reading of the current pair's peak: the kernel's figure may read
/// lower after memory is returned, so every reading is kept.
static PAIR_PEAK: AtomicU64 = AtomicU64::new(0);

/// Starts a new peak for `pair_peak`, so each pair reports its own (Linux; elsewhere
/// the peak stays the process's). `peak_rss` still covers the whole run.
pub(crate) fn reset_peak_rss() {
    if let Some(p) = pair_peak() {
        EARLIER_PEAK.fetch_max(p, Relaxed);
    }
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    PAIR_PEAK.store(0, Relaxed);
}

/// Peak resident memory since the current pair began, in bytes (Linux).
pub(crate) fn pair_peak() -> Option<u64> {
    let now = status_bytes("VmHWM:")?;
    Some(PAIR_PEAK.fetch_max(now, Relaxed).max(now))
}

/// Peak resident memory of this process over its whole run, in bytes (Linux):
/// table builds restart the kernel's own count per pair, so this keeps the largest.
pub fn peak_rss() -> Option<u64> {
    pair_peak().map(|p| p.max(EARLIER_PEAK.load(Relaxed)))
}

/// A memory figure of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Builds every table of `targets` and everything they depend on into `dir`,
/// skipping tables already complete and valid. Calls `report` after each table.
/// With `opts.limit`, builds the plain tables first, then the rule-aware ones.
pub fn generate(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: &Options,
    mut report: impl FnMut(&TableReport),
) -> Result<Vec<TableReport>, GenerateError> {
    let mut out = Vec::new();
    if opts.limit.is_some() {
        let plain = Options {
            limit: None,
            ..opts.clone()
        };
        out = generate_tables(dir, board, targets, &plain, &mut report)?;
    }
    out.extend(generate_tables(dir, board, targets, opts, &mut report)?);
    Ok(out)
}

/// Builds the tables of `opts.limit` (the plain ones for none).
fn generate_tables(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    opts: &Options,
    mut report: impl FnMut(&TableReport),
) -> Result<Vec<TableReport>, GenerateError> {
    check_targets(board, targets)?;
    let todo = plan_build(dir, board, targets, opts.limit)?;
    let (pool, threads) = thread_pool(opts)?;
    if let Some(o) = opts.observer.as_ref().filter(|_| !todo.pairs.is_empty()) {
        o.plan(&todo, threads);
    }
    // One writer per directory; what an interrupted writer left half-written goes.
    let _lock = DirLock::acquire(dir)?;
    let tables = tables_dir(dir, board, opts.limit);
    remove_tmp_files(&tables).map_err(|source| TableError::Io {
        path: tables.clone(),
        source,
    })?;
    if let Some(available) = mem_available().filter(|&a| todo.peak_bytes > a && !opts.force) {
        return Err(GenerateError::Memory {
            needs: todo.peak_bytes,
            available,
        });
    }
    let mut out = Vec::new();
    let mut done = 0;
    for key in build_plan(targets) {
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

/// How many worker threads `opts.threads` asks for (default: every core).
pub(crate) fn thread_count(opts: &Options) -> Result<usize, GenerateError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match opts.threads {
        Some(asked) if asked == 0 || asked > cores => {
            Err(GenerateError::ThreadCount { asked, cores })
        }
        asked => Ok(asked.unwrap_or(cores)),
    }
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

/// Refuses a signature with more stones than the board has points.
pub(crate) fn check_targets(board: &Board, targets: &[Signature]) -> Result<(), GenerateError> {
    match targets.iter().find(|s| s.stones() > board.points()) {
        Some(&sig) => Err(GenerateError::TooMany {
            sig,
            stones: sig.stones(),
            points: board.points(),
            board: board.size_name(),
        }),
        None => Ok(()),
    }
}

/// What a build will do, estimated before it starts from the signatures alone.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildPlan {
    /// The pairs still to build (each named by its smaller-first member), in order.
    pub pairs: Vec<Signature>,
    /// Placements in the tables still to build.
    pub positions: u64,
    /// The largest pair's working memory, in bytes (the build's peak).
    pub peak_bytes: u64,
    /// Bytes on disk, at the 1.1 bits a position the tsivy tables take.
    pub disk_bytes: u64,
    /// Bytes the largest pair's checkpoint takes on disk while it builds (twice its
    /// size while a new one replaces the old).
    pub checkpoint_bytes: u64,
    /// Seconds of one worker thread, at 5 million positions a second (the rate of
    /// the tsivy builds on the 2-core machine of the README's figures).
    pub thread_seconds: f64,
}

/// Estimates a build of `targets` into `dir` (tables complete there are not counted),
/// of the rule-aware tables of `limit` or the plain ones.
///
/// # Errors
/// As `generate`, for a signature it would refuse.
pub fn plan_build(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    limit: Option<Limit>,
) -> Result<BuildPlan, GenerateError> {
    let group = board.symmetries().len() as u64;
    // Entries run a little above placements over the group (symmetric classes).
    let entries = |s: Signature| s.placements(board).div_ceil(group) * 33 / 32;
    let indexer = |s: Signature| 6 * crate::index::binom(board.points(), s.us as usize);
    let mut plan = BuildPlan {
        pairs: Vec::new(),
        positions: 0,
        peak_bytes: 0,
        disk_bytes: 0,
        checkpoint_bytes: 0,
        thread_seconds: 0.0,
    };
    for key in build_plan(targets) {
        let sigs = members(key);
        let complete = sigs
            .iter()
            .all(|&s| TableFile::open(&table_path(dir, board, limit, s), board, limit, s).is_ok());
        if complete {
            continue;
        }
        for &s in &sigs {
            if !s.buildable(board) {
                return Err(GenerateError::TooLarge {
                    sig: s,
                    placements: s.placements(board),
                    board: board.size_name(),
                });
            }
        }
        let own: u64 = sigs.iter().map(|&s| 2 * entries(s) + indexer(s)).sum();
        let deps: u64 = sigs
            .iter()
            .flat_map(|&s| capture_deps(s))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|d| 2 * entries(d) + indexer(d))
            .sum();
        let largest = sigs.iter().map(|&s| entries(s)).max().unwrap_or(0);
        // A rule-aware pair also reads its plain values (2 bits an entry) at the end.
        let plain = if limit.is_some() { largest / 4 } else { 0 };
        let bytes = (own + deps).max(own + plain + largest * 9 / 4) + (64 << 20);
        let positions: u64 = sigs.iter().map(|&s| s.placements(board)).sum();
        plan.pairs.push(key);
        plan.positions += positions;
        plan.peak_bytes = plan.peak_bytes.max(bytes);
        let codes: u64 = sigs.iter().map(|&s| 2 * entries(s)).sum();
        plan.checkpoint_bytes = plan.checkpoint_bytes.max(2 * codes);
        plan.disk_bytes += positions * 11 / 80;
        plan.thread_seconds += positions as f64 / 5e6;
    }
    Ok(plan)
}

/// Memory the system can give without swapping, in bytes (Linux).
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The members of a pair (one when N == M).
pub(crate) fn members(key: Signature) -> Vec<Signature> {
    if key.us == key.them {
        vec![key]
    } else {
        vec![key, key.flipped()]
    }
}

/// A complete, valid table already on disk (checksums verified), with its depth
/// sidecar (written now if a build from before sidecars, or one interrupted
/// between the table and its sidecar, left none).
fn existing(
    dir: &Path,
    board: &'static Board,
    limit: Option<Limit>,
    sig: Signature,
) -> Option<TableFile> {
    let t = Table::open(dir, board, limit, sig).ok()?;
    t.file.verify_checksums().ok()?;
    crate::depths::histogram(&t, board, limit, true).ok()?;
    Some(t.file)
}

/// The reports of a pair whose tables are complete and valid on disk (with their
/// depth sidecars), or `None` when it is to build.
pub(crate) fn skipped_reports(
    dir: &Path,
    board: &'static Board,
    limit: Option<Limit>,
    key: Signature,
) -> Option<Vec<TableReport>> {
    let done: Vec<TableFile> = members(key)
        .iter()
        .map(|&s| existing(dir, board, limit, s))
        .collect::<Option<_>>()?;
    // A checkpoint left by a run killed after writing both tables.
    remove_checkpoint(dir, board, limit, key);
    Some(
        done.into_iter()
            .map(|t| TableReport {
                sig: t.header().sig,
                limit,
                path: t.path().into(),
                entries: t.header().entries,
                stats: t.header().stats,
                file_bytes: t.file_size(),
                seconds: 0.0,
                peak_rss: None,
                skipped: true,
                resumed_at_depth: None,
                memory_bound: 0,
            })
            .collect(),
    )
}

fn build_pair(
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
) -> Result<Vec<TableReport>, GenerateError> {
    let limit = opts.limit;
    if let Some(done) = skipped_reports(dir, board, limit, key) {
        return Ok(done);
    }
    reset_peak_rss();
    // What the process already holds (the program, memory the allocator kept from
    // earlier pairs) comes on top of the pair's own bound.
    let before = status_bytes("VmRSS:").unwrap_or(0);
    let start = Instant::now();
    let (solved, bound, resumed_at_depth) = solve_pair(dir, board, key, opts)?;
    let bound = before + bound;
    let seconds = start.elapsed().as_secs_f64();
    let mut reports = Vec::new();
    for (side, codes, stats) in solved {
        let sig = side.signature();
        let path = table_path(dir, board, limit, sig);
        let stage = Stage::new(opts, sig.to_string(), codes.len() as u64);
        stage.message("writing".into());
        let depths = DepthHistogram::count(&side, &codes, limit);
        let (file_bytes, checksum) = write_table(&path, board, sig, limit, &codes, stats)?;
        write_sidecar(&path, board, sig, limit, checksum, &depths)?;
        stage.finish();
        reports.push(TableReport {
            sig,
            limit,
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
    remove_checkpoint(dir, board, limit, key);
    Ok(reports)
}

/// Removes a pair's checkpoint, if there is one. Best effort: the tables are
/// complete, and a checkpoint left behind is removed the next time.
fn remove_checkpoint(dir: &Path, board: &Board, limit: Option<Limit>, key: Signature) {
    let _ = std::fs::remove_file(pair_checkpoint::path(dir, board, limit, key));
}

/// One stage of a build, reported to the observer if there is one.
struct Stage<'a> {
    observer: Option<&'a dyn Observer>,
    name: String,
    len: u64,
}

impl<'a> Stage<'a> {
    fn new(opts: &'a Options, name: String, len: u64) -> Stage<'a> {
        Stage {
            observer: opts.observer.as_deref(),
            name,
            len,
        }
    }

    /// Begins (or begins again) the stage as `what`.
    fn message(&self, what: String) {
        if let Some(o) = self.observer {
            o.begin(&self.name, &what, self.len);
        }
    }

    fn inc(&self, n: u64) {
        if let Some(o) = self.observer {
            o.advance(n);
        }
    }

    fn finish(&self) {
        if let Some(o) = self.observer {
            o.end();
        }
    }
}

/// The smaller tables a pair reads, decoded, and their file checksums.
pub(crate) type Deps = (HashMap<Signature, Decoded>, Vec<(Signature, u64)>);

/// Loads every smaller table the pair's captures lead to; also returns their file
/// checksums, in signature order.
pub(crate) fn load_deps(
    dir: &Path,
    board: &'static Board,
    limit: Option<Limit>,
    sigs: &[Signature],
) -> Result<Deps, GenerateError> {
    let mut deps = HashMap::new();
    let mut sums = Vec::new();
    for &s in sigs {
        for d in capture_deps(s) {
            if deps.contains_key(&d) {
                continue;
            }
            let table = Table::open(dir, board, limit, d)?;
            sums.push((d, table.file.file_checksum()));
            deps.insert(d, table.decode()?);
        }
    }
    sums.sort();
    Ok((deps, sums))
}

/// Capture positions whose values wait for their results' codes: the reads from
/// the large smaller tables are prefetched as they are found and read in one batch,
/// so the cache misses of many positions overlap.
struct CaptureBatch<'d> {
    /// The results' codes to read: (table, entry).
    lookups: Vec<(&'d [u16], usize)>,
    /// Per waiting position: its cell in the chunk and the end of its lookups.
    waiting: Vec<(usize, usize)>,
    results: Vec<(u64, u64)>,
    /// Rule-aware codes: a capture is decided in one ply (T = 1).
    limited: bool,
}

/// Positions per batch: enough misses in flight to cover the memory latency.
const BATCH: usize = 64;

impl<'d> CaptureBatch<'d> {
    fn new(limited: bool) -> Self {
        CaptureBatch {
            lookups: Vec::new(),
            waiting: Vec::new(),
            results: Vec::new(),
            limited,
        }
    }

    /// The code of a capture position whose best result gives `best` (a code of
    /// `best_of`).
    fn capture_code(&self, best: u16) -> u16 {
        if !self.limited {
            return best;
        }
        match code_wdl(best) {
            Wdl::Win => limited_code(Limited::Win(1)),
            Wdl::Draw => 0,
            Wdl::Loss => limited_code(Limited::Loss(1)),
        }
    }

    /// Values the capture position `(us, them)` at `cell`: at once if a capture takes
    /// the last stone, else once its results are read (by `flush`). `deps[k]` is the
    /// table of the opponent to move with `k` stones left.
    fn push(
        &mut self,
        board: &Board,
        (us, them): (u64, u64),
        cell: usize,
        deps: &[Option<&'d Decoded>],
    ) -> Option<u16> {
        capture_results(board, us, them, &mut self.results);
        if self.results.iter().any(|&(_, t)| t == 0) {
            // Taking the last stone wins in 1, the best there is.
            return Some(self.capture_code(2));
        }
        for &(u, t) in &self.results {
            let dep = deps[t.count_ones() as usize].expect("capture tables are loaded");
            let i = dep.idx.index(t, u) as usize;
            prefetch(&dep.codes[i]);
            self.lookups.push((&dep.codes, i));
        }
        self.waiting.push((cell, self.lookups.len()));
        None
    }

    fn full(&self) -> bool {
        self.waiting.len() >= BATCH
    }

    /// Calls `f(cell, code)` for every waiting position.
    fn flush(&mut self, mut f: impl FnMut(usize, u16)) {
        let mut start = 0;
        for &(cell, end) in &self.waiting {
            let best = best_of(self.lookups[start..end].iter().map(|&(c, i)| c[i]));
            f(cell, self.capture_code(best));
            start = end;
        }
        self.waiting.clear();
        self.lookups.clear();
    }
}

/// Starts loading `x` into the cache.
#[inline]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect on memory and never faults.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The code of a position from its successors' codes (each from the opponent's view):
/// win by the fastest loss among them, else draw, else loss by the slowest win.
pub fn best_of(children: impl Iterator<Item = u16>) -> u16 {
    let mut best_loss = u16::MAX;
    let mut worst_win = 0u16;
    let mut draw = false;
    for c in children {
        match code_wdl(c) {
            Wdl::Loss => best_loss = best_loss.min(c),
            Wdl::Draw => draw = true,
            Wdl::Win => worst_win = worst_win.max(c),
        }
    }
    if best_loss != u16::MAX {
        best_loss + 1
    } else if draw {
        0
    } else {
        worst_win + 1
    }
}

type Solved = (Indexer, Vec<u16>, Stats);

fn solve_pair(
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
) -> Result<(Vec<Solved>, u64, Option<u32>), GenerateError> {
    let start = Instant::now();
    let sigs = members(key);
    let limit = opts.limit;
    let (deps, sums) = load_deps(dir, board, limit, &sigs)?;
    let pair = Pair::new(board, &sigs, limit);
    let bound = memory_bound(&pair.sides, deps.values(), limit.is_some());
    let id = pair_checkpoint::Identity {
        board,
        key,
        limit,
        deps: &sums,
    };
    let ckpt = pair_checkpoint::path(dir, board, limit, key);
    let resumed = pair_checkpoint::load(&ckpt, &id, &pair.states, &pair.marks);
    let from = match resumed {
        Some(at) => at,
        // Stage 1 sets every code and every mark, whatever a failed load left.
        None => Resume {
            level: 0,
            max_init: pair.initialise(&deps, opts),
        },
    };
    drop(deps);
    // Saving never takes more than a tenth of the time: the interval grows to ten
    // times the last save's duration when that is longer. Stage 1 counts towards
    // the first interval. A save that fails (a full disk) costs only the resume
    // point: the build goes on and tries no more saves.
    let (mut last_save, mut save_cost, mut saving) = (
        start,
        std::time::Duration::ZERO,
        opts.checkpoint_every.is_some(),
    );
    pair.propagate(key, from, opts, &Alone, |pair, at| {
        let every = opts.checkpoint_every.unwrap_or_default();
        if saving && Some(at) != resumed && last_save.elapsed() >= every.max(10 * save_cost) {
            let t = Instant::now();
            saving = pair_checkpoint::save(&ckpt, &id, at, &pair.states, &pair.marks).is_ok();
            (last_save, save_cost) = (Instant::now(), t.elapsed());
        }
        Ok(())
    })?;
    let mut solved = Vec::new();
    for (side, mut codes) in pair.finish() {
        if limit.is_some() {
            mark_cursed(dir, board, &side, &mut codes)?;
        }
        let stats = Stats::count(&side, &codes, limit);
        solved.push((side, codes, stats));
    }
    Ok((solved, bound, resumed.map(|at| at.level as u32)))
}

/// Marks the draws of a rule-aware table that its plain table calls won or lost as
/// cursed wins and blessed losses. A rule-aware win or loss must be one without the
/// limit too: a plain table that says otherwise is damaged.
fn mark_cursed(
    dir: &Path,
    board: &'static Board,
    side: &Indexer,
    codes: &mut [u16],
) -> Result<(), GenerateError> {
    let sig = side.signature();
    let plain = Table::open(dir, board, None, sig)?.file;
    let values = plain.read_values()?;
    let wrong = codes.par_iter_mut().enumerate().find_map_any(|(i, c)| {
        let p = crate::table::packed_wdl(&values, i).expect("read_values checks the bits");
        match (code_wdl(*c), p) {
            (Wdl::Draw, Wdl::Win) => *c = CURSED,
            (Wdl::Draw, Wdl::Loss) => *c = BLESSED,
            (w, p) if w != Wdl::Draw && w != p => return Some(i),
            _ => {}
        }
        None
    });
    match wrong {
        Some(i) => Err(TableError::Corrupt {
            path: plain.path().into(),
            what: format!(
                "entry {i} is not a {}, as the rule-aware tables show",
                code_wdl(codes[i]).name()
            ),
        }
        .into()),
        None => Ok(()),
    }
}

/// The working state of a signature pair: one code per entry of each side, and per
/// chunk of entries the depths decided in it (bit min(depth, 63)), so that a level
/// visits only the chunks that hold entries of that depth.
pub(crate) struct Pair {
    board: &'static Board,
    /// The no-capture limit of a rule-aware build.
    limit: Option<Limit>,
    pub(crate) sides: Vec<Indexer>,
    /// Per side, the first entry held here: 0, or in a distributed build the start
    /// of this process's slice (a class boundary).
    pub(crate) first: Vec<u64>,
    pub(crate) states: Vec<Vec<AtomicU16>>,
    marks: Vec<Vec<AtomicU64>>,
}

/// Moves predecessors' notifications between the processes that hold a pair's
/// slices; a single process holds all of it.
pub(crate) trait Exchange {
    /// Sends each predecessor entry of `side` held elsewhere to its holder; returns
    /// the entries of `side` the others sent here.
    fn exchange(&self, side: usize, remote: Vec<u64>) -> Result<Vec<u64>, GenerateError>;
    /// Whether any process found an entry at this level.
    fn any(&self, found: bool) -> bool;
    /// How a side's `chunks` held here are scanned at a level: in how many windows
    /// (the same number on every process) of how many chunks.
    fn windows(&self, chunks: usize) -> (usize, usize);
}

/// The whole pair in one process: nothing to send.
struct Alone;

impl Exchange for Alone {
    fn exchange(&self, _: usize, remote: Vec<u64>) -> Result<Vec<u64>, GenerateError> {
        debug_assert!(remote.is_empty(), "one process holds every entry");
        Ok(remote)
    }
    fn any(&self, found: bool) -> bool {
        found
    }
    fn windows(&self, chunks: usize) -> (usize, usize) {
        (1, chunks)
    }
}

impl Pair {
    fn new(board: &'static Board, sigs: &[Signature], limit: Option<Limit>) -> Pair {
        Pair::slice(board, sigs, limit, |side| 0..side.size())
    }

    /// The entries `range(side)` of each side (class boundaries).
    pub(crate) fn slice(
        board: &'static Board,
        sigs: &[Signature],
        limit: Option<Limit>,
        range: impl Fn(&Indexer) -> std::ops::Range<u64>,
    ) -> Pair {
        let sides: Vec<Indexer> = sigs.iter().map(|&s| Indexer::new(board, s)).collect();
        let ranges: Vec<_> = sides.iter().map(range).collect();
        let states = ranges
            .iter()
            .map(|r| r.clone().map(|_| AtomicU16::new(0)).collect())
            .collect();
        let marks = ranges
            .iter()
            .map(|r| {
                (0..(r.end - r.start).div_ceil(CHUNK as u64))
                    .map(|_| AtomicU64::new(0))
                    .collect()
            })
            .collect();
        Pair {
            board,
            limit,
            sides,
            first: ranges.iter().map(|r| r.start).collect(),
            states,
            marks,
        }
    }

    /// The side a paika from side `t` leads to.
    fn other(&self, t: usize) -> usize {
        if self.sides.len() == 1 { 0 } else { 1 - t }
    }

    /// Stage 1: values every capture position from the smaller tables, every
    /// position with no move as lost in 0, and gives the others their counters.
    /// Returns the largest code decided.
    pub(crate) fn initialise(&self, deps: &HashMap<Signature, Decoded>, opts: &Options) -> u16 {
        let board = self.board;
        let max_init = AtomicU64::new(0);
        for (t, side) in self.sides.iter().enumerate() {
            let bar = Stage::new(opts, side.signature().to_string(), side.size());
            bar.message("captures/counters".into());
            let next = &self.sides[self.other(t)];
            let sig = side.signature();
            let side_deps: Vec<Option<&Decoded>> = (0..=sig.them)
                .map(|left| deps.get(&Signature::new(left, sig.us)))
                .collect();
            self.states[t].par_chunks(CHUNK).enumerate().for_each_init(
                || (Vec::new(), CaptureBatch::new(self.limit.is_some())),
                |(succ, batch), (c, chunk)| {
                    let first = self.first[t] + (c * CHUNK) as u64;
                    let mut local_max = 0;
                    let mut mask = 0u64;
                    let mut decided = |cell: usize, code: u16| {
                        if code & UNDECIDED == 0 {
                            mask |= depth_bit(code);
                            local_max = local_max.max(code);
                        }
                        chunk[cell].store(code, Relaxed);
                    };
                    // Only classes with a symmetric stone set hold redundant entries.
                    let mut class = (u64::MAX, false);
                    side.walk(first, chunk.len() as u64, |index, us, them| {
                        let cell = (index - first) as usize;
                        let c = index / side.per_class();
                        if class.0 != c {
                            class = (c, side.class_is_symmetric(c));
                        }
                        if class.1 && side.index(us, them) != index {
                            chunk[cell].store(REDUNDANT, Relaxed);
                        } else if capturers(board, us, them) != 0 {
                            if let Some(code) = batch.push(board, (us, them), cell, &side_deps) {
                                decided(cell, code);
                            } else if batch.full() {
                                batch.flush(&mut decided);
                            }
                        } else {
                            succ.clear();
                            // Every successor has `them` to move: canonicalise that once.
                            let fixed = next.with_us(them);
                            for_each_paika(board, us, them, |u, _, _| succ.push(fixed.index(u)));
                            succ.sort_unstable();
                            succ.dedup();
                            decided(
                                cell,
                                if succ.is_empty() {
                                    1 // stones but no move: lost in 0
                                } else {
                                    UNDECIDED | succ.len() as u16
                                },
                            );
                        }
                    });
                    batch.flush(&mut decided);
                    self.marks[t][c].store(mask, Relaxed);
                    max_init.fetch_max(local_max as u64, Relaxed);
                    bar.inc(chunk.len() as u64);
                },
            );
            bar.finish();
        }
        max_init.load(Relaxed) as u16
    }

    /// Stage 2: depth-ordered propagation over paika un-moves from `from.level`,
    /// until no level can decide anything more (one empty level, three for
    /// rule-aware codes, whose losses make wins three levels on) and every code set by
    /// stage 1 has been passed, or the next level would pass the limit.
    /// `at_level` is called at each level boundary.
    pub(crate) fn propagate(
        &self,
        key: Signature,
        from: Resume,
        opts: &Options,
        net: &impl Exchange,
        mut at_level: impl FnMut(&Pair, Resume) -> Result<(), GenerateError>,
    ) -> Result<(), GenerateError> {
        let Resume {
            mut level,
            max_init,
        } = from;
        let total: u64 = self.states.iter().map(|s| s.len() as u64).sum();
        let bar = Stage::new(opts, format!("{key} pair"), total);
        let (quiet, last) = match self.limit {
            // Level 2N - 1 (wins at T = N - 1) decides the last losses, at T = N.
            Some(n) => (3, 2 * n.plies() as u16),
            None => (1, u16::MAX),
        };
        // Each side is scanned in windows of chunks, so that what is sent at a time
        // stays bounded; the same windows at every level.
        let windows: Vec<(usize, usize)> =
            self.marks.iter().map(|m| net.windows(m.len())).collect();
        let mut empty = 0;
        while level < last {
            let code = level + 1;
            if code >= REDUNDANT - 1 {
                return Err(GenerateError::DepthOverflow(key));
            }
            // A level boundary: the state is whole, the place to checkpoint.
            at_level(self, Resume { level, max_init })?;
            bar.message(match self.limit {
                // Two levels a T: the losses at T, then the wins.
                Some(_) => format!(
                    "T {} ({})",
                    level / 2,
                    ["losses", "wins"][level as usize % 2]
                ),
                None => format!("depth {level}"),
            });
            let mut any = false;
            for (t, &(windows, per)) in windows.iter().enumerate() {
                let o = self.other(t);
                let (lost, next) = self.successor(level);
                let chunks = self.marks[t].len();
                for w in 0..windows {
                    let range = (w * per).min(chunks)..((w + 1) * per).min(chunks);
                    let (found, remote) = self.propagate_level(t, level, range, &bar);
                    let here = net.exchange(o, remote)?;
                    here.par_iter()
                        .for_each(|&q| self.notify_local(o, q - self.first[o], lost, next));
                    any |= found;
                }
            }
            empty = if net.any(any) { 0 } else { empty + 1 };
            if empty >= quiet && level >= max_init {
                break;
            }
            level += 1;
        }
        bar.finish();
        Ok(())
    }

    /// What a predecessor of an entry decided at `level` learns: whether its
    /// successor is lost, and the code it takes if that decides it (a win one ply
    /// further; for rule-aware codes T + 1 of a win is three codes on from T of a
    /// loss; or the loss that follows its last win).
    fn successor(&self, level: u16) -> (bool, u16) {
        let code = level + 1;
        let lost = level.is_multiple_of(2);
        match (lost, self.limit) {
            (true, Some(_)) => (lost, code + 3),
            _ => (lost, code + 1),
        }
    }

    /// Notifies entry `local` of side `o` held here, marking its chunk if that
    /// decides it.
    fn notify_local(&self, o: usize, local: u64, lost: bool, next: u16) {
        if notify(&self.states[o][local as usize], lost, next) {
            self.marks[o][local as usize / CHUNK].fetch_or(depth_bit(next), Relaxed);
        }
    }

    /// Un-moves every entry of side `t` decided at depth `level` and notifies its
    /// predecessors held here. Returns whether there was any, and the predecessors
    /// held elsewhere.
    fn propagate_level(
        &self,
        t: usize,
        level: u16,
        chunks: std::ops::Range<usize>,
        bar: &Stage,
    ) -> (bool, Vec<u64>) {
        let (board, side) = (self.board, &self.sides[t]);
        let o = self.other(t);
        let prev = &self.sides[o];
        let (first_o, held_o) = (self.first[o], self.states[o].len() as u64);
        let code = level + 1;
        let bit = depth_bit(code);
        let (lost, next) = self.successor(level);
        let states = &self.states[t][(chunks.start * CHUNK).min(self.states[t].len())
            ..(chunks.end * CHUNK).min(self.states[t].len())];
        states
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| (chunks.start + c, chunk))
            .fold(
                || (false, Vec::new(), Vec::new()),
                |(mut any, mut remote, mut preds), (c, chunk)| {
                    if self.marks[t][c].load(Relaxed) & bit != 0 {
                        let first = self.first[t] + (c * CHUNK) as u64;
                        for (i, cell) in chunk.iter().enumerate() {
                            if cell.load(Relaxed) != code {
                                continue;
                            }
                            any = true;
                            let (us, them) = side.unrank(first + i as u64);
                            unmoves(board, us, them, prev, &mut preds);
                            for &q in preds.iter() {
                                match q.wrapping_sub(first_o) {
                                    local if local < held_o => {
                                        self.notify_local(o, local, lost, next)
                                    }
                                    _ => remote.push(q),
                                }
                            }
                        }
                    }
                    bar.inc(chunk.len() as u64);
                    (any, remote, preds)
                },
            )
            .map(|(any, remote, _)| (any, remote))
            .reduce(
                || (false, Vec::new()),
                |(a, mut x), (b, y)| {
                    x.extend(y);
                    (a || b, x)
                },
            )
    }

    /// Stage 3: what is still undecided is a draw; redundant entries take their
    /// canonical twin's code.
    pub(crate) fn finish(self) -> Vec<(Indexer, Vec<u16>)> {
        let mut out = Vec::new();
        for ((side, state), start) in self.sides.into_iter().zip(self.states).zip(self.first) {
            let mut codes: Vec<u16> = state
                .into_iter()
                .map(|c| {
                    let c = c.into_inner();
                    if c & UNDECIDED != 0 { 0 } else { c }
                })
                .collect();
            // A redundant entry's canonical twin is in the same class with a smaller
            // rank, so one pass per class, in order, fills it in place.
            let per_class = side.per_class() as usize;
            let first_class = start / per_class as u64;
            codes
                .par_chunks_mut(per_class)
                .enumerate()
                .map(|(c, chunk)| (first_class + c as u64, chunk))
                .filter(|(class, _)| side.class_is_symmetric(*class))
                .for_each(|(class, chunk)| {
                    let first = class * per_class as u64;
                    for i in 0..chunk.len() {
                        if chunk[i] == REDUNDANT {
                            let (us, them) = side.unrank(first + i as u64);
                            chunk[i] = chunk[(side.index(us, them) - first) as usize];
                        }
                    }
                });
            out.push((side, codes));
        }
        out
    }
}

/// The most working memory building a pair takes, by construction: while solving,
/// 2 bytes per entry of the pair (plus its chunk marks), the decoded smaller tables
/// (2 bytes per entry) and every indexer; while writing, the pair's codes and one
/// table's compressed blocks (never larger than 2.25 bytes per entry, the raw size);
/// plus 64 MiB for thread stacks, compression contexts and allocator slack.
fn memory_bound<'a>(
    sides: &[Indexer],
    deps: impl Iterator<Item = &'a Decoded>,
    limited: bool,
) -> u64 {
    let entries: u64 = sides.iter().map(Indexer::size).sum();
    let largest = sides.iter().map(Indexer::size).max().unwrap_or(0);
    let marks = sides
        .iter()
        .map(|s| 8 * s.size().div_ceil(CHUNK as u64))
        .sum::<u64>();
    let indexers: u64 = sides.iter().map(Indexer::heap_bytes).sum();
    let deps: u64 = deps
        .map(|d| 2 * d.codes.len() as u64 + d.idx.heap_bytes())
        .sum();
    let solving = 2 * entries + marks + indexers + deps;
    // A rule-aware pair reads one side's plain values (2 bits an entry) to mark the
    // cursed wins.
    let plain = if limited { largest / 4 } else { 0 };
    let writing = 2 * entries + indexers + plain + largest * 9 / 4;
    solving.max(writing) + (64 << 20)
}

/// The distinct table entries of the paika predecessors of `(us, them)` (the side
/// `them` moved last), keeping only those that had no capture.
fn unmoves(board: &Board, us: u64, them: u64, prev: &Indexer, out: &mut Vec<u64>) {
    out.clear();
    // A paika from p to q, undone: `them` steps back from q to p. Stepping back is a
    // paika itself, so the same enumeration serves.
    for_each_paika(board, them, us, |before, _, _| {
        if !has_capture(board, before, us) {
            out.push(prev.index(before, us));
        }
    });
    out.sort_unstable();
    out.dedup();
}

/// Tells an undecided predecessor that one successor is decided: a lost successor
/// makes it won, a won one uses up one of its counter's successors. Returns whether
/// the predecessor became decided (with `code`).
fn notify(cell: &AtomicU16, successor_lost: bool, code: u16) -> bool {
    cell.fetch_update(Relaxed, Relaxed, |cur| {
        if cur & UNDECIDED == 0 {
            None
        } else if successor_lost || cur & !UNDECIDED == 1 {
            Some(code)
        } else {
            Some(cur - 1)
        }
    })
    .is_ok_and(|prev| prev & !UNDECIDED == 1 || successor_lost)
}

/// The chunk-mark bit of a decided code; none for a draw (code 0: a capture
/// position whose every result is drawn), which never propagates.
#[inline]
fn depth_bit(code: u16) -> u64 {
    match code {
        0 => 0,
        c => 1 << (c - 1).min(63),
    }
}

#[cfg(test)]
mod tests {
    use super::best_of;
    use crate::table::code_outcome;
    use crate::value::Outcome;

    /// The generator's rule on storage codes is the value rule on outcomes: every
    /// list of up to three successor codes (draw, losses and wins in 0 to 10 plies).
    #[test]
    fn best_of_codes_is_the_value_rule() {
        let codes: Vec<u16> = (0..12).collect();
        let mut lists: Vec<Vec<u16>> = vec![vec![]];
        for _ in 0..3 {
            let longer: Vec<Vec<u16>> = lists
                .iter()
                .filter(|l| l.len() == lists.last().map_or(0, Vec::len))
                .flat_map(|l| codes.iter().map(move |&c| [l.clone(), vec![c]].concat()))
                .collect();
            lists.extend(longer);
        }
        assert_eq!(lists.len(), 1 + 12 + 144 + 1728);
        for l in lists {
            let fast = code_outcome(best_of(l.iter().copied()));
            let reference = Outcome::from_successors(l.iter().map(|&c| code_outcome(c)));
            assert_eq!(fast, reference, "{l:?}");
        }
    }
}
