//! A signature pair's working state and its stages: capture values, counters,
//! depth-ordered propagation over paika un-moves, the cursed and blessed draws.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::checkpoint::{self as pair_checkpoint, Resume};
use crate::index::{Indexer, Signature};
use crate::rules::board::Board;
use crate::rules::board::Images;
use crate::rules::movegen::{capturers, for_each_paika, paika_count};
use crate::rules::value::Wdl;
use crate::table::depths::DepthHistogram;
use crate::table::{
    BLESSED, CURSED, Codes, Decoded, Stats, Table, TableError, TableKind, code_wdl, packed_wdl,
};

use super::capture::{CaptureBatch, prefetch};
use super::options::{GenerateError, Options, Stage};
use super::smaller::load_smaller_tables;

mod cells;

use cells::{decode, each_equal, into_bytes, notify};
pub(crate) use cells::{
    depth_bit, members, memory_bound, unmoves, writes_deep_early, zeroed_bytes,
};

/// Entries per unit of parallel work. Loops over chunks take `with_max_len(1)`:
/// rayon otherwise cuts a loop into a few large pieces, splitting one further only
/// when another thread steals it, so the last large piece runs alone while the
/// other threads wait (the first stage of the 5v3 side ended with 16 s on one core).
pub(super) const CHUNK: usize = 1 << 14;

/// Entries per word of depth marks: a level scans only the blocks of this many
/// that hold an entry of its depth. Deep levels are sparse (in the 2v5 pair 2% of
/// the cells that whole chunks' marks made a level scan held an entry of its depth).
const MARK: usize = 1 << 10;

/// The state byte of an entry that is an image of a smaller canonical entry.
const REDUNDANT: u8 = 0x7f;

/// The state byte of an undecided entry: this bit plus the number of successors not
/// yet known to be wins (at most 8 a stone, so far below 128 on every buildable
/// table; `initialise` checks).
const UNDECIDED: u8 = 0x80;

/// The first code held in two parts: a code `c` at or above it has the state byte
/// `DEEP + (c - DEEP) % 2` and the deep byte `(c - DEEP) / 2`. Below it the state byte
/// is the code. Plain tables rarely go that deep (4v4 does, to 137 plies), so the deep
/// bytes are allocated for a side only when it first needs them, and then only the
/// pages written take memory.
pub(super) const DEEP: u16 = 0x7d;

pub(super) type Solved = (Indexer, Narrow, Stats, DepthHistogram);

/// Solves a pair; returns its sides, the pair's memory bound, and the level it
/// resumed at.
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
    let id = pair_checkpoint::Identity {
        board,
        key,
        kind,
        deps: &sums,
    };
    let ckpt = pair_checkpoint::path(dir, board, kind, key);
    let resumed = pair_checkpoint::load(&ckpt, &id, &pair.states, &pair.high, &pair.marks);
    // Deep bytes while the smaller tables are held: loaded with the checkpoint, or
    // written by stage 1 when a capture leads to a code from `deep` on.
    let deep_early = pair.high.iter().any(|h| h.get().is_some())
        || (resumed.is_none()
            && deps
                .values()
                .any(|d| d.codes.par_iter().any(|&c| writes_deep_early(pair.deep, c))));
    let bound = memory_bound(
        &pair.sides.iter().map(Indexer::size).collect::<Vec<_>>(),
        pair.sides.iter().map(Indexer::heap_bytes).sum(),
        deps.values()
            .map(|d| 2 * d.codes.len() as u64 + d.idx.heap_bytes())
            .sum(),
        kind.limit().is_some(),
        deep_early,
    );
    let from = match resumed {
        Some(at) => at,
        // Stage 1 sets every code and every mark, whatever a failed load left.
        None => Resume {
            level: 0,
            max_init: pair.initialise(key, &deps, opts)?,
        },
    };
    drop(deps);
    // Saving never takes more than a tenth of the time: the interval grows to ten
    // times the last save's duration when that is longer. Stage 1 counts towards
    // the first interval. A save that fails (a full disk) costs only the resume
    // point: the build goes on and tries no more saves. A save waits for the disk
    // on a thread of its own (an eight-stone pair's 6 GB took about 50 s of it, the
    // cores idle); the next save, or the pair's end, waits for it.
    let (mut last_save, mut save_cost, mut saving) = (
        start,
        std::time::Duration::ZERO,
        opts.checkpoint_every.is_some(),
    );
    let mut syncing: Option<std::thread::JoinHandle<std::io::Result<()>>> = None;
    let synced =
        |s: std::thread::JoinHandle<std::io::Result<()>>| s.join().is_ok_and(|r| r.is_ok());
    pair.propagate(key, from, opts, &Alone, |pair, at| {
        let every = opts.checkpoint_every.unwrap_or_default();
        if saving && Some(at) != resumed && last_save.elapsed() >= every.max(10 * save_cost) {
            let t = Instant::now();
            saving = syncing.take().is_none_or(synced);
            if saving {
                match pair_checkpoint::save(&ckpt, &id, at, &pair.states, &pair.high, &pair.marks) {
                    Ok(written) => syncing = Some(std::thread::spawn(move || written.commit())),
                    Err(_) => saving = false,
                }
            }
            (last_save, save_cost) = (Instant::now(), t.elapsed());
        }
        Ok(())
    })?;
    let mut solved = Vec::new();
    for (side, mut codes) in pair.finish() {
        if kind.limit().is_some() {
            mark_cursed(dir, board, &side, &mut codes)?;
        }
        let (stats, depths) =
            DepthHistogram::count_slice_with_stats(&side, 0, &codes, kind.limit());
        solved.push((side, codes, stats.finished(kind.limit()), depths));
    }
    // The caller removes the checkpoint once the tables are written: the last save
    // must be in place (or failed) by then.
    if let Some(s) = syncing {
        synced(s);
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
    codes: &mut Narrow,
) -> Result<(), GenerateError> {
    let sig = side.signature();
    let plain = Table::open(dir, board, TableKind::Plain, sig)?.file;
    let values = plain.read_values()?;
    let wrong = (0..codes.len()).into_par_iter().find_any(|&i| {
        let p = crate::table::packed_wdl(&values, i).expect("read_values checks the bits");
        let w = code_wdl(codes.code(i));
        w != Wdl::Draw && w != p
    });
    match wrong {
        Some(i) => Err(TableError::Corrupt {
            path: plain.path().into(),
            what: format!(
                "entry {i} is not a {}, as the rule-aware tables show",
                code_wdl(codes.code(i)).name()
            ),
        }
        .into()),
        None => {
            codes.plain = Some(values);
            Ok(())
        }
    }
}

/// A solved side's codes, as the generator holds them: a state byte an entry and
/// the deep bytes, read as `u16` codes a block at a time (never widened whole, so
/// that writing takes no more memory than solving). A rule-aware side also holds
/// its plain values, whose wins and losses make its draws cursed and blessed.
pub(crate) struct Narrow {
    low: Vec<u8>,
    high: Option<Vec<u8>>,
    deep: u16,
    plain: Option<Vec<u8>>,
}

impl Narrow {
    /// The code of a draw at entry `i`: cursed or blessed where the plain table
    /// has a win or a loss.
    #[inline]
    fn draw(&self, i: usize) -> u16 {
        match self.plain.as_ref().map(|p| packed_wdl(p, i)) {
            Some(Some(Wdl::Win)) => CURSED,
            Some(Some(Wdl::Loss)) => BLESSED,
            _ => 0,
        }
    }
}

impl Codes for Narrow {
    fn len(&self) -> usize {
        self.low.len()
    }

    #[inline]
    fn code(&self, i: usize) -> u16 {
        let high = || self.high.as_ref().map_or(0, |h| h[i]);
        match decode(self.deep, self.low[i], high) {
            0 => self.draw(i),
            c => c,
        }
    }

    fn codes_into(&self, range: std::ops::Range<usize>, out: &mut Vec<u16>) {
        let low = &self.low[range.clone()];
        out.clear();
        match &self.high {
            // Without deep bytes a code is its state byte.
            None => out.extend(low.iter().map(|&b| b as u16)),
            Some(high) => out.extend(
                low.iter()
                    .zip(&high[range.clone()])
                    .map(|(&b, &h)| decode(self.deep, b, || h)),
            ),
        }
        if self.plain.is_some() {
            for (c, i) in out.iter_mut().zip(range) {
                if *c == 0 {
                    *c = self.draw(i);
                }
            }
        }
    }
}

/// The working state of a signature pair: one state byte per entry of each side
/// (a code, or a count of undecided successors; deep bytes beside it for the codes
/// from `DEEP` on), and per `MARK` entries the depths decided in them (bit
/// min(depth, 63)), so that a level visits only the blocks that hold entries of
/// that depth.
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
    pub(crate) states: Vec<Vec<AtomicU8>>,
    /// Per side, its deep bytes, once a code from `deep` on was decided in it.
    high: Vec<OnceLock<Vec<AtomicU8>>>,
    /// The first code held in two parts: `DEEP`, lower in a test of the deep bytes.
    deep: u16,
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
        // Notified at random by the propagation: on huge pages.
        let states = ranges
            .iter()
            .map(|r| {
                let state = zeroed_bytes((r.end - r.start) as usize);
                crate::sys::advise_huge_pages(&state);
                state
            })
            .collect();
        let marks = ranges
            .iter()
            .map(|r| {
                (0..(r.end - r.start).div_ceil(MARK as u64))
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
            high: ranges.iter().map(|_| OnceLock::new()).collect(),
            states,
            deep: DEEP,
            marks,
        }
    }

    /// The largest code the state holds.
    fn max_code(&self) -> u16 {
        self.deep + 2 * u8::MAX as u16 + 1
    }

    /// The state byte of a decided code (at most `max_code`).
    #[inline]
    fn low(&self, code: u16) -> u8 {
        match code.checked_sub(self.deep) {
            None => code as u8,
            Some(d) => (self.deep + d % 2) as u8,
        }
    }

    /// Side `t`'s deep bytes, allocated zeroed on first use: the allocator's zeroed
    /// pages take no memory until written.
    fn high(&self, t: usize) -> &[AtomicU8] {
        self.high[t].get_or_init(|| zeroed_bytes(self.states[t].len()))
    }

    /// Records decided code `code` (at most `max_code`) of entry `local` of side `t`
    /// in its deep byte, when it has one (the state byte is set by the caller).
    #[inline]
    fn set_high(&self, t: usize, local: usize, code: u16) {
        if let Some(d) = code.checked_sub(self.deep) {
            self.high(t)[local].store((d / 2) as u8, Relaxed);
        }
    }

    /// Whether entry `local` of side `t`, of state byte `low`, is decided with `code`.
    #[inline]
    fn has_code(&self, t: usize, local: usize, low: u8, code: u16) -> bool {
        low == self.low(code)
            && code.checked_sub(self.deep).is_none_or(|d| {
                self.high[t]
                    .get()
                    .is_some_and(|h| h[local].load(Relaxed) == (d / 2) as u8)
            })
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
    pub(crate) fn initialise(
        &self,
        key: Signature,
        deps: &HashMap<Signature, Decoded>,
        opts: &Options,
    ) -> Result<u16, GenerateError> {
        let board = self.board;
        let max_init = AtomicU64::new(0);
        let too_many = std::sync::atomic::AtomicBool::new(false);
        for (t, side) in self.sides.iter().enumerate() {
            let bar = Stage::new(opts, side.signature().to_string(), side.size());
            bar.message("captures/counters".into());
            let next = &self.sides[self.other(t)];
            let vela = self.vela[t];
            let sig = side.signature();
            let side_deps: Vec<Option<&Decoded>> = (0..=sig.them)
                .map(|left| deps.get(&Signature::new(left, sig.us)))
                .collect();
            self.states[t]
                .par_chunks(CHUNK)
                .with_max_len(1)
                .enumerate()
                .for_each_init(
                    || (Vec::new(), CaptureBatch::new(self.kind.limit().is_some())),
                    |(succ, batch), (c, chunk)| {
                        let first = self.first[t] + (c * CHUNK) as u64;
                        let mut local_max = 0;
                        let mut masks = [0u64; CHUNK / MARK];
                        // Codes past `max_code` are kept to the largest, and the largest
                        // is an error below.
                        let mut decided = |cell: usize, code: u16| {
                            let code = code.min(self.max_code() + 1);
                            masks[cell / MARK] |= depth_bit(code);
                            local_max = local_max.max(code);
                            let code = code.min(self.max_code());
                            chunk[cell].store(self.low(code), Relaxed);
                            self.set_high(t, c * CHUNK + cell, code);
                        };
                        // Only classes with a symmetric stone set hold redundant entries.
                        // A class shares `us`, and so its images.
                        let mut class = (u64::MAX, None, Images([0; 8]));
                        side.walk(first, chunk.len() as u64, |index, us, them| {
                            let cell = (index - first) as usize;
                            let c = index / side.per_class();
                            if class.0 != c {
                                let symmetry = side.class_symmetry(c);
                                let images = board.images(us);
                                class = (c, (!symmetry.is_trivial()).then_some(symmetry), images);
                            }
                            if class.1.is_some_and(|s| s.weight(them) == 0) {
                                chunk[cell].store(REDUNDANT, Relaxed);
                            } else if !vela && let caps @ 1.. = capturers(board, us, them) {
                                if let Some(code) =
                                    batch.push(board, caps, (us, them), &class.2, cell, &side_deps)
                                {
                                    decided(cell, code);
                                } else if batch.full() {
                                    batch.flush(&mut decided);
                                }
                            } else {
                                // Each paika leads to a different position, so only
                                // stones with a symmetry of their own can give two of
                                // them one entry.
                                let n = if !board.is_fixed_by_a_symmetry(them) {
                                    paika_count(board, us, them) as usize
                                } else {
                                    // Every successor has `them` to move: canonicalise
                                    // that once.
                                    let fixed = next.with_us(them);
                                    succ.clear();
                                    for_each_paika(board, us, them, |u, _, _| {
                                        succ.push(fixed.index(u))
                                    });
                                    succ.sort_unstable();
                                    succ.dedup();
                                    succ.len()
                                };
                                match n {
                                    0 => decided(cell, 1), // stones but no move: lost in 0
                                    n => chunk[cell].store(UNDECIDED | n.min(127) as u8, Relaxed),
                                }
                                too_many.fetch_or(n > 127, Relaxed);
                            }
                        });
                        batch.flush(&mut decided);
                        let blocks = chunk.len().div_ceil(MARK);
                        for (k, &mask) in masks[..blocks].iter().enumerate() {
                            self.marks[t][c * (CHUNK / MARK) + k].store(mask, Relaxed);
                        }
                        max_init.fetch_max(local_max as u64, Relaxed);
                        bar.inc(chunk.len() as u64);
                    },
                );
            bar.finish();
        }
        match max_init.load(Relaxed) as u16 {
            m if m > self.max_code() || too_many.load(Relaxed) => {
                Err(GenerateError::DepthOverflow(key))
            }
            m => Ok(m),
        }
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
        let chunks: Vec<usize> = self
            .states
            .iter()
            .map(|s| s.len().div_ceil(CHUNK))
            .collect();
        let windows: Vec<(usize, usize)> = chunks.iter().map(|&n| net.windows(n)).collect();
        let mut empty = 0;
        while level < last {
            if self.successor(level).1 > self.max_code() {
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
                let chunks = chunks[t];
                for w in 0..windows {
                    let range = (w * per).min(chunks)..((w + 1) * per).min(chunks);
                    let (found, remote) = self.propagate_level(t, level, range, &bar);
                    let here = net.exchange(o, remote)?;
                    here.par_chunks(CHUNK).for_each(|qs| {
                        self.notify_all(o, qs.iter().map(|&q| q - self.first[o]), lost, next)
                    });
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

    /// Notifies the entries `locals` of side `o` held here, marking the blocks of
    /// those that this decides. What is the same for every entry (the state byte,
    /// the mark bit) is found once.
    fn notify_all(&self, o: usize, locals: impl IntoIterator<Item = u64>, lost: bool, next: u16) {
        let (states, marks) = (&self.states[o], &self.marks[o]);
        let (low, bit) = (self.low(next), depth_bit(next));
        for local in locals {
            let local = local as usize;
            if notify(&states[local], lost, low) {
                self.set_high(o, local, next);
                // Most blocks are marked by an earlier entry: a load spares the lock.
                let mark = &marks[local / MARK];
                if mark.load(Relaxed) & bit == 0 {
                    mark.fetch_or(bit, Relaxed);
                }
            }
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
        let (bit, low) = (depth_bit(code), self.low(code));
        let (lost, next) = self.successor(level);
        let free = self.vela[o];
        let states = &self.states[t][(chunks.start * CHUNK).min(self.states[t].len())
            ..(chunks.end * CHUNK).min(self.states[t].len())];
        // With two sides, the level's notifications all go to the other one, so no
        // thread stores into these states until this returns: they can be read as
        // plain bytes, eight at a time.
        let still: Option<&[u8]> = (o != t).then(|| {
            // SAFETY: `AtomicU8` has the layout of `u8`, and nothing writes the
            // bytes while the slice lives (only within this call).
            unsafe { std::slice::from_raw_parts(states.as_ptr().cast::<u8>(), states.len()) }
        });
        states
            .par_chunks(CHUNK)
            .with_max_len(1)
            .enumerate()
            .map(|(c, chunk)| (chunks.start + c, chunk))
            .fold(
                || (false, Vec::new(), Vec::new(), Vec::new(), Vec::new()),
                |(mut any, mut remote, mut preds, mut pending, mut hits), (c, chunk)| {
                    let first = self.first[t] + (c * CHUNK) as u64;
                    let mut mine = (0, Images([0; 8]));
                    for (k, block) in chunk.chunks(MARK).enumerate() {
                        // Only the blocks marked with this depth hold its entries.
                        if self.marks[t][c * (CHUNK / MARK) + k].load(Relaxed) & bit == 0 {
                            continue;
                        }
                        // The state byte first: most cells fail it.
                        hits.clear();
                        match still {
                            Some(bytes) => {
                                let at = (c - chunks.start) * CHUNK + k * MARK;
                                each_equal(&bytes[at..at + block.len()], low, |j| hits.push(j));
                            }
                            None => hits.extend(
                                (0..block.len()).filter(|&j| block[j].load(Relaxed) == low),
                            ),
                        }
                        // The last entry un-moved, to step on from.
                        let mut at: Option<(u64, (u64, u64))> = None;
                        for &j in &hits {
                            let i = k * MARK + j;
                            if !self.has_code(t, c * CHUNK + i, low, code) {
                                continue;
                            }
                            any = true;
                            let index = first + i as u64;
                            let (us, them) = match at {
                                Some((from, pos)) => side.advance(from, pos, index - from),
                                None => side.unrank(index),
                            };
                            at = Some((index, (us, them)));
                            // Entries of a class share `us`, and so its images.
                            if mine.0 != us {
                                mine = (us, board.images(us));
                            }
                            unmoves(board, (us, &mine.1), them, prev, free, &mut preds);
                            // The predecessors are scattered over the other side's
                            // states: each is a cache miss, and the locked update of
                            // `notify` would wait for them one by one. So they are
                            // prefetched here and notified after the next entry's
                            // un-moves, by which time they are in the cache.
                            self.notify_all(o, pending.iter().copied(), lost, next);
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
                    }
                    self.notify_all(o, pending.iter().copied(), lost, next);
                    pending.clear();
                    bar.inc(chunk.len() as u64);
                    (any, remote, preds, pending, hits)
                },
            )
            .map(|(any, remote, ..)| (any, remote))
            .reduce(
                || (false, Vec::new()),
                |(a, mut x), (b, y)| {
                    x.extend(y);
                    (a || b, x)
                },
            )
    }

    /// Stage 3: what is still undecided is a draw; redundant entries take their
    /// canonical twin's code. In place, in the state bytes and deep bytes.
    pub(crate) fn finish(self) -> Vec<(Indexer, Narrow)> {
        let sides = self.sides.iter().zip(&self.states).zip(&self.first);
        for (t, ((side, state), &start)) in sides.enumerate() {
            // A redundant entry's canonical twin is in the same class with a smaller
            // rank, so one pass per class, in order, fills it in place.
            let per_class = side.per_class() as usize;
            let first_class = start / per_class as u64;
            state
                .par_chunks(per_class)
                .with_max_len(1)
                .enumerate()
                .for_each(|(c, chunk)| {
                    let class = first_class + c as u64;
                    let first = class * per_class as u64;
                    let settle = |i: usize, code: u16| {
                        chunk[i].store(self.low(code), Relaxed);
                        self.set_high(t, c * per_class + i, code);
                    };
                    if side.class_symmetry(class).is_trivial() {
                        // No redundant entry: only the undecided to settle.
                        for (i, cell) in chunk.iter().enumerate() {
                            if cell.load(Relaxed) & UNDECIDED != 0 {
                                settle(i, 0);
                            }
                        }
                        return;
                    }
                    // The class's stones canonicalised once for its twins.
                    let fixed = side.with_us(side.class_set(class));
                    side.walk(first, chunk.len() as u64, |index, _, them| {
                        let i = (index - first) as usize;
                        match chunk[i].load(Relaxed) {
                            low if low & UNDECIDED != 0 => settle(i, 0),
                            REDUNDANT => {
                                let twin = c * per_class + (fixed.index(them) - first) as usize;
                                settle(i, self.code_of(t, twin));
                            }
                            _ => {}
                        }
                    });
                });
        }
        let deep = self.deep;
        self.sides
            .into_iter()
            .zip(self.states)
            .zip(self.high)
            .map(|((side, low), high)| {
                // Read-only from here: plain bytes, which the writer reads a block
                // at a time.
                let codes = Narrow {
                    low: into_bytes(low),
                    high: high.into_inner().map(into_bytes),
                    deep,
                    plain: None,
                };
                (side, codes)
            })
            .collect()
    }

    /// The code of entry `local` of side `t`, decided.
    fn code_of(&self, t: usize, local: usize) -> u16 {
        let low = self.states[t][local].load(Relaxed);
        let high = || self.high[t].get().map_or(0, |h| h[local].load(Relaxed));
        decode(self.deep, low, high)
    }
}

#[cfg(test)]
mod tests;
