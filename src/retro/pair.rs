//! A signature pair's working state and its stages: capture values, counters,
//! depth-ordered propagation over paika un-moves, the cursed and blessed draws.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::checkpoint::{self as pair_checkpoint, Resume};
use crate::board::Board;
use crate::index::{Indexer, Signature};
use crate::movegen::{capturers, for_each_paika, has_capture};
use crate::table::{BLESSED, CURSED, Decoded, Stats, Table, TableError, TableKind, code_wdl};
use crate::value::Wdl;

use super::capture::{CaptureBatch, prefetch};
use super::options::{GenerateError, Options, Stage};
use super::smaller::load_smaller_tables;

/// Entries per unit of parallel work.
pub(super) const CHUNK: usize = 1 << 14;

/// An entry that is an image of a smaller canonical entry.
pub(super) const REDUNDANT: u16 = 0x7fff;

/// Undecided entry: this bit plus the number of successors not yet known to be wins.
pub(super) const UNDECIDED: u16 = 0x8000;

pub(super) type Solved = (Indexer, Vec<u16>, Stats);

pub(super) fn solve_pair(
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
) -> Result<(Vec<Solved>, u64, Option<u32>), GenerateError> {
    let start = Instant::now();
    let sigs = members(key);
    let kind = opts.kind;
    let (deps, sums) = load_smaller_tables(dir, board, kind, &sigs)?;
    let pair = Pair::new(board, &sigs, kind);
    let bound = memory_bound(&pair.sides, deps.values(), kind.limit().is_some());
    let id = pair_checkpoint::Identity {
        board,
        key,
        kind,
        deps: &sums,
    };
    let ckpt = pair_checkpoint::path(dir, board, kind, key);
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
        if kind.limit().is_some() {
            mark_cursed(dir, board, &side, &mut codes)?;
        }
        let stats = Stats::count(&side, &codes, kind.limit());
        solved.push((side, codes, stats));
    }
    Ok((solved, bound, resumed.map(|at| at.level as u32)))
}

/// Marks the draws of a rule-aware table that its plain table calls won or lost as
/// cursed wins and blessed losses. A rule-aware win or loss must be one without the
/// limit too: a plain table that says otherwise is damaged.
pub(super) fn mark_cursed(
    dir: &Path,
    board: &'static Board,
    side: &Indexer,
    codes: &mut [u16],
) -> Result<(), GenerateError> {
    let sig = side.signature();
    let plain = Table::open(dir, board, TableKind::Plain, sig)?.file;
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
    /// The kind of tables built.
    kind: TableKind,
    /// Per side, whether its mover plays vela: quiet steps only, all of them.
    vela: Vec<bool>,
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
pub(super) struct Alone;

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
    fn new(board: &'static Board, sigs: &[Signature], kind: TableKind) -> Pair {
        Pair::slice(board, sigs, kind, |side| 0..side.size())
    }

    /// The entries `range(side)` of each side (class boundaries).
    pub(crate) fn slice(
        board: &'static Board,
        sigs: &[Signature],
        kind: TableKind,
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
            kind,
            vela: sigs.iter().map(|&s| kind.vela_to_move(board, s)).collect(),
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
    /// A vela side to move has no capture: every position of its side counts its
    /// steps.
    /// Returns the largest code decided.
    pub(crate) fn initialise(&self, deps: &HashMap<Signature, Decoded>, opts: &Options) -> u16 {
        let board = self.board;
        let max_init = AtomicU64::new(0);
        for (t, side) in self.sides.iter().enumerate() {
            let bar = Stage::new(opts, side.signature().to_string(), side.size());
            bar.message("captures/counters".into());
            let next = &self.sides[self.other(t)];
            let vela = self.vela[t];
            let sig = side.signature();
            let side_deps: Vec<Option<&Decoded>> = (0..=sig.them)
                .map(|left| deps.get(&Signature::new(left, sig.us)))
                .collect();
            self.states[t].par_chunks(CHUNK).enumerate().for_each_init(
                || (Vec::new(), CaptureBatch::new(self.kind.limit().is_some())),
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
                        } else if !vela && let caps @ 1.. = capturers(board, us, them) {
                            if let Some(code) =
                                batch.push(board, caps, (us, them), cell, &side_deps)
                            {
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
        let (quiet, last) = match self.kind.limit() {
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
            bar.message(match self.kind.limit() {
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
        match (lost, self.kind.limit()) {
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

    /// Notifies the entries `locals` of side `o` held here.
    fn notify_all(&self, o: usize, locals: &[u64], lost: bool, next: u16) {
        for &local in locals {
            self.notify_local(o, local, lost, next);
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
        let free = self.vela[o];
        let states = &self.states[t][(chunks.start * CHUNK).min(self.states[t].len())
            ..(chunks.end * CHUNK).min(self.states[t].len())];
        states
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| (chunks.start + c, chunk))
            .fold(
                || (false, Vec::new(), Vec::new(), Vec::new()),
                |(mut any, mut remote, mut preds, mut pending), (c, chunk)| {
                    if self.marks[t][c].load(Relaxed) & bit != 0 {
                        let first = self.first[t] + (c * CHUNK) as u64;
                        for (i, cell) in chunk.iter().enumerate() {
                            if cell.load(Relaxed) != code {
                                continue;
                            }
                            any = true;
                            let (us, them) = side.unrank(first + i as u64);
                            unmoves(board, us, them, prev, free, &mut preds);
                            // The predecessors are scattered over the other side's
                            // states: each is a cache miss, and the locked update of
                            // `notify` would wait for them one by one. So they are
                            // prefetched here and notified after the next entry's
                            // un-moves, by which time they are in the cache.
                            self.notify_all(o, &pending, lost, next);
                            pending.clear();
                            for &q in preds.iter() {
                                match q.wrapping_sub(first_o) {
                                    local if local < held_o => {
                                        prefetch(&self.states[o][local as usize]);
                                        pending.push(local);
                                    }
                                    _ => remote.push(q),
                                }
                            }
                        }
                        self.notify_all(o, &pending, lost, next);
                        pending.clear();
                    }
                    bar.inc(chunk.len() as u64);
                    (any, remote, preds, pending)
                },
            )
            .map(|(any, remote, _, _)| (any, remote))
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

/// The distinct table entries of the paika predecessors of `(us, them)` (the side
/// `them` moved last), keeping only those that had no capture, unless `them`
/// plays vela there (`vela`: every step is its move).
pub(super) fn unmoves(
    board: &Board,
    us: u64,
    them: u64,
    prev: &Indexer,
    vela: bool,
    out: &mut Vec<u64>,
) {
    out.clear();
    // A paika from p to q, undone: `them` steps back from q to p. Stepping back is a
    // paika itself, so the same enumeration serves.
    for_each_paika(board, them, us, |before, _, _| {
        if vela || !has_capture(board, before, us) {
            out.push(prev.index(before, us));
        }
    });
    out.sort_unstable();
    out.dedup();
}

/// Tells an undecided predecessor that one successor is decided: a lost successor
/// makes it won, a won one uses up one of its counter's successors. Returns whether
/// the predecessor became decided (with `code`).
pub(super) fn notify(cell: &AtomicU16, successor_lost: bool, code: u16) -> bool {
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
pub(super) fn depth_bit(code: u16) -> u64 {
    match code {
        0 => 0,
        c => 1 << (c - 1).min(63),
    }
}

/// The members of a pair (one when N == M).
pub(crate) fn members(key: Signature) -> Vec<Signature> {
    if key.us == key.them {
        vec![key]
    } else {
        vec![key, key.flipped()]
    }
}

/// The most working memory building a pair takes, by construction: while solving,
/// 2 bytes per entry of the pair (plus its chunk marks), the decoded smaller tables
/// (2 bytes per entry) and every indexer; while writing, the pair's codes and one
/// table's compressed blocks (never larger than 2.25 bytes per entry, the raw size);
/// plus 64 MiB for thread stacks, compression contexts and allocator slack.
pub(super) fn memory_bound<'a>(
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
