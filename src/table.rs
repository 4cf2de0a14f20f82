//! The table file format (see docs/FORMAT.md): writer and memory-mapped reader.
//!
//! In memory a table is one `u16` code per entry: 0 is a draw, `d + 1` a decided
//! position at depth `d` (odd depth: win, even: loss). On disk the codes are split in
//! two streams of zstd blocks: a 2-bit value stream (read alone by value probes) and a
//! 16-bit depth stream.
//!
//! A rule-aware table (a no-capture limit N) uses the same codes with `d = 2T + 1`
//! for a win and `2T` for a loss (T: plies to the next capture, see `limit`), so the
//! parity and the order of the codes still tell the value and the urgency, plus two
//! codes for draws decided without the limit: `CURSED` and `BLESSED`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use memmap2::Mmap;
use rayon::prelude::*;
use thiserror::Error;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::board::Board;
use crate::index::{Indexer, Signature};
use crate::limit::{Limit, Limited};
use crate::value::{Outcome, Wdl};

pub(crate) const MAGIC: [u8; 8] = *b"FANOTB\r\n";
pub(crate) const END_MAGIC: [u8; 8] = *b"FNTBEND\n";
pub(crate) const VERSION: u32 = 1;
/// Index scheme 1: see `index`.
pub(crate) const INDEX_SCHEME: u32 = 1;
pub(crate) const HEADER_LEN: usize = 128;
/// Entries per block: a value block is 8 KiB raw, a depth block 64 KiB.
pub(crate) const BLOCK_ENTRIES: u32 = 32768;
const ZSTD_LEVEL: i32 = 9;
/// Default bytes of decompressed blocks a thread keeps: 256 depth blocks.
pub(crate) const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// A rule-aware table's code of a cursed win (drawn under the limit).
pub(crate) const CURSED: u16 = 0xffff;
/// A rule-aware table's code of a blessed loss (drawn under the limit).
pub(crate) const BLESSED: u16 = 0xfffe;

/// The in-memory code of a rule-aware value.
pub(crate) fn limited_code(v: Limited) -> u16 {
    match v {
        Limited::Win(t) => 2 * t as u16 + 2,
        Limited::Loss(t) => 2 * t as u16 + 1,
        Limited::Draw => 0,
        Limited::CursedWin => CURSED,
        Limited::BlessedLoss => BLESSED,
    }
}

/// The rule-aware value of a rule-aware table's code.
pub(crate) fn code_limited(code: u16) -> Limited {
    match code {
        0 => Limited::Draw,
        CURSED => Limited::CursedWin,
        BLESSED => Limited::BlessedLoss,
        c if c % 2 == 0 => Limited::Win(c as u32 / 2 - 1),
        c => Limited::Loss(c as u32 / 2),
    }
}

/// The 2-bit value code of the value stream.
fn wdl_bits(w: Wdl) -> u8 {
    match w {
        Wdl::Draw => 0,
        Wdl::Win => 1,
        Wdl::Loss => 2,
    }
}

/// The outcome an in-memory code stands for (0 draw, else depth + 1, the depth's
/// parity telling win from loss).
pub(crate) fn code_outcome(code: u16) -> Outcome {
    match (code_wdl(code), code_depth(code)) {
        (Wdl::Win, Some(d)) => Outcome::Win(d),
        (Wdl::Loss, Some(d)) => Outcome::Loss(d),
        _ => Outcome::Draw,
    }
}

/// The in-memory code of an outcome (depths beyond a code's range saturate).
pub(crate) fn outcome_code(o: Outcome) -> u16 {
    match o {
        Outcome::Draw => 0,
        Outcome::Win(d) | Outcome::Loss(d) => d.min(u16::MAX as u32 - 2) as u16 + 1,
    }
}

/// The value of an in-memory code.
#[inline]
pub(crate) fn code_wdl(code: u16) -> Wdl {
    if code == 0 || code >= BLESSED {
        Wdl::Draw
    } else if (code - 1) % 2 == 1 {
        Wdl::Win
    } else {
        Wdl::Loss
    }
}

/// The depth of a decided code (`None` for a draw).
#[inline]
pub(crate) fn code_depth(code: u16) -> Option<u32> {
    (code != 0 && code < BLESSED).then(|| code as u32 - 1)
}

/// Why a table file cannot be used.
#[derive(Debug, Error)]
pub enum TableError {
    /// The directory has no file for the table.
    #[error(
        "no table {sig}{} for the {} board in {}",
        limit.map(|n| format!(" under the no-capture limit {n}")).unwrap_or_default(),
        board.size_name(),
        dir.display()
    )]
    Missing {
        /// The board of the table.
        board: &'static Board,
        /// Its signature.
        sig: Signature,
        /// The no-capture limit of a rule-aware table.
        limit: Option<Limit>,
        /// The directory searched.
        dir: PathBuf,
    },
    /// The name is not a regular file (a directory, a FIFO, a dangling link).
    #[error("{path}: {what}")]
    NotAFile {
        /// The name.
        path: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not start with the table magic bytes.
    #[error("{path}: not a fanotb table (bad magic bytes)")]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// The file is a table of a format version this build does not read.
    #[error("{path}: table format version {found}, this fanotb reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file's length is not the one its header and block directory give.
    #[error("{path}: truncated or extended: {found} bytes, the header says {expected}")]
    Size {
        /// The file.
        path: PathBuf,
        /// Length it should have, in bytes (a lower bound when the header or the
        /// directory itself is cut short).
        expected: u64,
        /// Length it has, in bytes.
        found: u64,
    },
    /// A checksum fails, or the header, directory or a block is malformed.
    #[error("{path}: corrupted: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong, in a few words.
        what: String,
    },
    /// The file holds another signature or board than the one asked for.
    #[error("{path}: holds {found}, expected {expected}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The table asked for, such as `3v2 on 9x5`.
        expected: String,
        /// The table the header names.
        found: String,
    },
}

/// Summary figures stored in the header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Placements counted without symmetry reduction.
    pub placements: u64,
    /// Placements won for the side to move.
    pub wins: u64,
    /// Placements drawn.
    pub draws: u64,
    /// Placements lost for the side to move.
    pub losses: u64,
    /// Depth of the longest win, in plies (0 when there is no win).
    pub max_win_depth: u32,
    /// An entry with the longest win (meaningful when `wins > 0`).
    pub longest_win: u64,
    /// Placements drawn under the no-capture limit but won without it (a
    /// rule-aware table; 0 in a plain one).
    pub cursed: u64,
    /// Placements drawn under the no-capture limit but lost without it.
    pub blessed: u64,
}

impl Stats {
    /// Counts over every placement of a decoded table (each entry weighted by its
    /// symmetry orbit). The longest win of a rule-aware table is its largest T; it
    /// is the first entry of that depth, whatever the number of threads.
    pub(crate) fn count(side: &Indexer, codes: &[u16], limit: Option<Limit>) -> Stats {
        Stats::count_slice(side, 0, codes).finished(limit)
    }

    /// The raw counts of the entries from `first` on (`merge` them in order, then
    /// `finished`).
    pub(crate) fn count_slice(side: &Indexer, first: u64, codes: &[u16]) -> Stats {
        fold_weighted(
            side,
            first,
            codes,
            Stats::default,
            |s, index, w, c| match code_wdl(c) {
                Wdl::Win => {
                    s.wins += w;
                    let d = code_depth(c).expect("a win has a depth");
                    if w > 0 && (s.wins == w || d > s.max_win_depth) {
                        s.max_win_depth = d;
                        s.longest_win = index;
                    }
                }
                Wdl::Draw => {
                    s.draws += w;
                    s.cursed += if c == CURSED { w } else { 0 };
                    s.blessed += if c == BLESSED { w } else { 0 };
                }
                Wdl::Loss => s.losses += w,
            },
            Stats::merge,
        )
    }

    /// Counts of consecutive entries: `b`'s entries come after `a`'s, so it takes
    /// the longest win only if longer.
    pub(crate) fn merge(mut a: Stats, b: Stats) -> Stats {
        if b.wins > 0 && (a.wins == 0 || b.max_win_depth > a.max_win_depth) {
            a.max_win_depth = b.max_win_depth;
            a.longest_win = b.longest_win;
        }
        a.wins += b.wins;
        a.draws += b.draws;
        a.losses += b.losses;
        a.cursed += b.cursed;
        a.blessed += b.blessed;
        a
    }

    /// The header's figures from merged raw counts: the placements, and a
    /// rule-aware table's longest win as T.
    pub(crate) fn finished(mut self, limit: Option<Limit>) -> Stats {
        self.placements = self.wins + self.draws + self.losses;
        if limit.is_some() && self.wins > 0 {
            self.max_win_depth = code_limited(self.max_win_depth as u16 + 1)
                .plies_to_capture()
                .expect("a win has a T");
        }
        self
    }
}

/// Folds every entry of a decoded table with its weight (the placements it stands
/// for: its orbit, or 0 for a redundant entry), in parallel over symmetry classes.
/// `codes` are the entries from `first` on, a class boundary (a slice of the table,
/// in a distributed build). `add(acc, index, weight, code)` sees a class's entries
/// in order; `merge(a, b)` gets `b` from later entries than `a`.
pub(crate) fn fold_weighted<A: Send>(
    side: &Indexer,
    first: u64,
    codes: &[u16],
    init: impl Fn() -> A + Sync + Send,
    add: impl Fn(&mut A, u64, u64, u16) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> A {
    let per_class = side.per_class() as usize;
    debug_assert_eq!(first % per_class as u64, 0, "a slice starts a class");
    let first_class = first / per_class as u64;
    let full = side.board().symmetries().len() as u64;
    codes
        .par_chunks(per_class)
        .enumerate()
        .fold(&init, |mut acc, (c, chunk)| {
            let class = first_class + c as u64;
            let first = class * per_class as u64;
            let symmetric = side.class_is_symmetric(class);
            for (i, &c) in chunk.iter().enumerate() {
                let index = first + i as u64;
                let w = if symmetric { side.weight(index) } else { full };
                add(&mut acc, index, w, c);
            }
            acc
        })
        .reduce(&init, &merge)
}

/// The fixed-size header of a table file (docs/FORMAT.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Columns of the board.
    pub width: u8,
    /// Rows of the board.
    pub height: u8,
    /// The table's signature.
    pub sig: Signature,
    /// Entries stored (symmetry-reduced).
    pub entries: u64,
    /// Entries per block of each stream.
    pub block_entries: u32,
    /// The summary figures.
    pub stats: Stats,
    /// The no-capture limit of a rule-aware table.
    pub limit: Option<Limit>,
}

impl Header {
    /// Blocks per stream (`None` for a block size of 0).
    fn blocks(&self) -> Option<u64> {
        self.entries.checked_div(self.block_entries as u64)?;
        Some(self.entries.div_ceil(self.block_entries as u64))
    }

    /// Checks the counts against the board: the fixed block size, a signature that
    /// fits, entries between the placements over the symmetries and the placements,
    /// statistics over exactly the placements, a longest win that is an entry.
    fn check_counts(&self, board: &Board) -> Result<(), &'static str> {
        if self.block_entries != BLOCK_ENTRIES {
            return Err("not the fixed block size");
        }
        let (us, them) = (self.sig.us as usize, self.sig.them as usize);
        if us == 0 || them == 0 || us + them > board.points() {
            return Err("a signature that does not fit the board");
        }
        let placements = self.sig.placements(board);
        let group = board.symmetries().len() as u64;
        if self.entries > placements || self.entries < placements.div_ceil(group) {
            return Err("an entry count that does not fit the signature");
        }
        let s = &self.stats;
        let total = s
            .wins
            .checked_add(s.draws)
            .and_then(|x| x.checked_add(s.losses));
        if s.placements != placements || total != Some(placements) {
            return Err("statistics that do not add up to the placements");
        }
        let win_ok = if s.wins == 0 {
            s.max_win_depth == 0 && s.longest_win == 0
        } else if let Some(n) = self.limit {
            s.longest_win < self.entries && (1..=n.plies()).contains(&s.max_win_depth)
        } else {
            s.longest_win < self.entries
                && s.max_win_depth % 2 == 1
                && s.max_win_depth < u16::MAX as u32 - 2
        };
        if !win_ok {
            return Err("a longest win that is not a win of the table");
        }
        let cursed_ok = match self.limit {
            None => s.cursed == 0 && s.blessed == 0,
            Some(_) => s
                .cursed
                .checked_add(s.blessed)
                .is_some_and(|c| c <= s.draws),
        };
        if !cursed_ok {
            return Err("cursed wins and blessed losses that are not draws of the table");
        }
        Ok(())
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.width;
        h[13] = self.height;
        h[14] = self.sig.us;
        h[15] = self.sig.them;
        h[16..20].copy_from_slice(&INDEX_SCHEME.to_le_bytes());
        h[20..24].copy_from_slice(&self.block_entries.to_le_bytes());
        h[24..32].copy_from_slice(&self.entries.to_le_bytes());
        let s = &self.stats;
        h[32..40].copy_from_slice(&s.placements.to_le_bytes());
        h[40..48].copy_from_slice(&s.wins.to_le_bytes());
        h[48..56].copy_from_slice(&s.draws.to_le_bytes());
        h[56..64].copy_from_slice(&s.losses.to_le_bytes());
        h[64..68].copy_from_slice(&s.max_win_depth.to_le_bytes());
        h[68..72].copy_from_slice(&self.limit.map_or(0, Limit::plies).to_le_bytes());
        h[72..80].copy_from_slice(&s.longest_win.to_le_bytes());
        h[80..88].copy_from_slice(&s.cursed.to_le_bytes());
        h[88..96].copy_from_slice(&s.blessed.to_le_bytes());
        h
    }

    fn decode(path: &Path, h: &[u8]) -> Result<Header, TableError> {
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        if h[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.into() });
        }
        if u32_at(8) != VERSION {
            return Err(TableError::Version {
                path: path.into(),
                found: u32_at(8),
            });
        }
        let corrupt = |what: &str| TableError::Corrupt {
            path: path.into(),
            what: what.into(),
        };
        if u32_at(16) != INDEX_SCHEME {
            return Err(corrupt("unknown index scheme"));
        }
        let limit = match u32_at(68) {
            0 => None,
            n => Some(Limit::new(n as u64).map_err(|_| corrupt("a no-capture limit above 250"))?),
        };
        let header = Header {
            width: h[12],
            height: h[13],
            sig: Signature::new(h[14], h[15]),
            block_entries: u32_at(20),
            entries: u64_at(24),
            stats: Stats {
                placements: u64_at(32),
                wins: u64_at(40),
                draws: u64_at(48),
                losses: u64_at(56),
                max_win_depth: u32_at(64),
                longest_win: u64_at(72),
                cursed: u64_at(80),
                blessed: u64_at(88),
            },
            limit,
        };
        Ok(header)
    }
}

/// The directory of a board's tables: `DIR/WxH`, or `DIR/WxH/nN` for the
/// rule-aware tables of the limit N.
pub fn tables_dir(dir: &Path, board: &Board, limit: Option<Limit>) -> PathBuf {
    let plain = dir.join(board.size_name());
    match limit {
        Some(n) => plain.join(n.dir_name()),
        None => plain,
    }
}

/// The conventional path of a table: `DIR/WxH/NvM.fntb`, or `DIR/WxH/nN/NvM.fntb`
/// for a rule-aware table.
pub fn table_path(dir: &Path, board: &Board, limit: Option<Limit>, sig: Signature) -> PathBuf {
    tables_dir(dir, board, limit).join(format!("{sig}.fntb"))
}

/// What a table is, as error messages name it: `3v2 on 9x5`, `3v2 on 9x5 under the
/// no-capture limit 60`.
fn table_name(sig: Signature, width: usize, height: usize, limit: Option<Limit>) -> String {
    match limit {
        Some(n) => format!("{sig} on {width}x{height} under the no-capture limit {n}"),
        None => format!("{sig} on {width}x{height}"),
    }
}

/// A table file with the indexer of its signature: how the probe, the verifier and
/// the generator all open a table.
pub(crate) struct Table {
    pub(crate) idx: Indexer,
    pub(crate) file: TableFile,
    /// Its depth histogram, once asked for (`Table::depths`).
    pub(crate) depths: std::sync::OnceLock<crate::depths::DepthHistogram>,
}

impl Table {
    /// Opens the table `sig` of `board` in `dir`; a file that is not there is
    /// `TableError::Missing`.
    pub(crate) fn open(
        dir: &Path,
        board: &'static Board,
        limit: Option<Limit>,
        sig: Signature,
    ) -> Result<Table, TableError> {
        let file = match TableFile::open(&table_path(dir, board, limit, sig), board, limit, sig) {
            Err(TableError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(TableError::Missing {
                    board,
                    sig,
                    limit,
                    dir: dir.to_path_buf(),
                });
            }
            r => r?,
        };
        let idx = Indexer::new(board, sig);
        if file.header().entries != idx.size() {
            return Err(file.corrupt(format!(
                "{} entries, the index has {}",
                file.header().entries,
                idx.size()
            )));
        }
        Ok(Table {
            idx,
            file,
            depths: Default::default(),
        })
    }

    /// The whole table decoded into memory, for readers that visit every entry.
    pub(crate) fn decode(self) -> Result<Decoded, TableError> {
        Ok(Decoded {
            codes: self.file.read_all()?,
            idx: self.idx,
        })
    }
}

/// A table decoded whole: one storage code per entry.
pub(crate) struct Decoded {
    pub(crate) idx: Indexer,
    pub(crate) codes: Vec<u16>,
}

impl Decoded {
    /// The outcome of the position `(us, them)`, `us` to move.
    pub(crate) fn outcome(&self, us: u64, them: u64) -> Outcome {
        code_outcome(self.code(us, them))
    }

    /// The rule-aware value of the position `(us, them)`, `us` to move.
    pub(crate) fn limited(&self, us: u64, them: u64) -> Limited {
        code_limited(self.code(us, them))
    }

    /// The code of the position `(us, them)`, `us` to move.
    pub(crate) fn code(&self, us: u64, them: u64) -> u16 {
        self.codes[self.idx.index(us, them) as usize]
    }
}

/// Rewrites one entry of a table file in place of the file, keeping its header:
/// how the tests make a well-formed table that holds a wrong value.
pub fn set_entry(
    path: &Path,
    board: &'static Board,
    sig: Signature,
    index: u64,
    outcome: Outcome,
) -> Result<u64, TableError> {
    let file = TableFile::open(path, board, None, sig)?;
    let mut codes = file.read_all()?;
    let stats = file.header().stats;
    drop(file);
    let cell = codes
        .get_mut(index as usize)
        .ok_or_else(|| TableError::Corrupt {
            path: path.into(),
            what: format!("no entry {index}"),
        })?;
    *cell = outcome_code(outcome);
    Ok(write_table(path, board, sig, None, &codes, stats)?.0)
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.into(),
        source,
    }
}

fn pack_wdl(codes: &[u16]) -> Vec<u8> {
    codes
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |b, (i, &code)| b | wdl_bits(code_wdl(code)) << (2 * i))
        })
        .collect()
}

/// The value of entry `i` of a packed value block (`None` for the invalid code 3).
pub(crate) fn packed_wdl(block: &[u8], i: usize) -> Option<Wdl> {
    match block[i / 4] >> (2 * (i % 4)) & 3 {
        0 => Some(Wdl::Draw),
        1 => Some(Wdl::Win),
        2 => Some(Wdl::Loss),
        _ => None,
    }
}

/// The depth stream of a block: the depth (`u16`), or for a rule-aware table one
/// byte, T of a win or a loss and 0, 1 or 2 for a draw, a cursed win or a blessed
/// loss (a byte is 15% to 27% smaller than a `u16` once compressed: docs/FORMAT.md).
fn depth_bytes(codes: &[u16], limit: Option<Limit>) -> Vec<u8> {
    match limit {
        None => codes
            .iter()
            .flat_map(|&c| (code_depth(c).unwrap_or(0) as u16).to_le_bytes())
            .collect(),
        Some(_) => codes
            .iter()
            .map(|&c| match code_limited(c) {
                Limited::Win(t) | Limited::Loss(t) => t as u8,
                Limited::Draw => 0,
                Limited::CursedWin => 1,
                Limited::BlessedLoss => 2,
            })
            .collect(),
    }
}

/// Writes a complete table atomically: a temporary file, fsync, then rename, so a
/// file with the final name is always complete. Returns the file size and its
/// whole-file checksum.
pub(crate) fn write_table(
    path: &Path,
    board: &Board,
    sig: Signature,
    limit: Option<Limit>,
    codes: &[u16],
    stats: Stats,
) -> Result<(u64, u64), TableError> {
    let streams = compress_blocks(codes, limit);
    write_blocks(path, board, sig, limit, codes.len() as u64, stats, &streams)
}

/// The compressed blocks of consecutive entries, value stream then depth stream:
/// whole blocks from a block boundary (the last one of a table may be short).
pub(crate) fn compress_blocks(codes: &[u16], limit: Option<Limit>) -> [Vec<Vec<u8>>; 2] {
    let compress = |raw: Vec<u8>| {
        let mut block = zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses in memory");
        // The buffer comes with room for the worst case, about the raw size; every
        // block is held until the file is written, so keep only what it uses.
        block.shrink_to_fit();
        block
    };
    let chunks: Vec<&[u16]> = codes.chunks(BLOCK_ENTRIES as usize).collect();
    [
        chunks.par_iter().map(|c| compress(pack_wdl(c))).collect(),
        chunks
            .par_iter()
            .map(|c| compress(depth_bytes(c, limit)))
            .collect(),
    ]
}

/// Writes a table of `entries` entries from its compressed blocks (as
/// `write_table`).
pub(crate) fn write_blocks(
    path: &Path,
    board: &Board,
    sig: Signature,
    limit: Option<Limit>,
    entries: u64,
    stats: Stats,
    streams: &[Vec<Vec<u8>>; 2],
) -> Result<(u64, u64), TableError> {
    let header = Header {
        limit,
        width: board.width() as u8,
        height: board.height() as u8,
        sig,
        entries,
        block_entries: BLOCK_ENTRIES,
        stats,
    };
    let blocks = streams[0].len();
    let mut head = Vec::with_capacity(HEADER_LEN + 4 * (blocks + 1) * 8);
    head.extend_from_slice(&header.encode());
    let dir_len = 2 * (blocks + 1) * 8 + 2 * blocks * 8 + 8;
    let mut offset = (HEADER_LEN + dir_len) as u64;
    for stream in streams {
        for block in stream {
            head.extend_from_slice(&offset.to_le_bytes());
            offset += block.len() as u64;
        }
        head.extend_from_slice(&offset.to_le_bytes());
    }
    for stream in streams {
        for block in stream {
            head.extend_from_slice(&xxh3_64(block).to_le_bytes());
        }
    }
    let meta = xxh3_64(&head);
    head.extend_from_slice(&meta.to_le_bytes());

    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let mut checksum = 0;
    crate::durable::replace_file(path, |file| {
        // Streamed through a hasher: the compressed blocks are not copied into one
        // buffer.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut whole = Xxh3::new();
        for piece in std::iter::once(&head[..]).chain(streams.iter().flatten().map(Vec::as_slice)) {
            whole.update(piece);
            out.write_all(piece)?;
        }
        checksum = whole.digest();
        out.write_all(&checksum.to_le_bytes())?;
        out.write_all(&END_MAGIC)?;
        out.flush()
    })
    .map_err(io_err(path))?;
    Ok((offset + 16, checksum))
}

/// Which stream of blocks.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Stream {
    Wdl = 0,
    Depth = 1,
}

/// Which table file, stream and block a cached block is.
type BlockKey = (u64, Stream, usize);

/// Decompressed blocks of one thread, and their bytes.
#[derive(Default)]
struct BlockCache {
    blocks: HashMap<BlockKey, Vec<u8>>,
    bytes: usize,
}

thread_local! {
    /// Decompressed blocks, per thread, so that probes from many threads share no
    /// lock and no cache line. At most `CACHE_BYTES` a thread; when full, any block
    /// makes room (the cache only bounds memory).
    static BLOCKS: RefCell<BlockCache> = RefCell::new(BlockCache::default());
}

/// The bytes of decompressed blocks each thread may keep.
static CACHE_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_CACHE_BYTES);

/// Sets the bytes of decompressed blocks each thread may keep (0: none).
pub(crate) fn set_cache_bytes(bytes: usize) {
    CACHE_BYTES.store(bytes, Relaxed);
}

/// Numbers table files for the block cache (a closed file's blocks age out).
static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(0);

/// A table file opened read-only through a memory map; decompressed blocks are
/// cached per thread.
pub struct TableFile {
    path: PathBuf,
    map: Mmap,
    header: Header,
    /// Block offsets per stream (blocks + 1 each).
    offsets: [Vec<u64>; 2],
    checksums: [Vec<u64>; 2],
    /// This file's key in the block cache.
    id: u64,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableFile({})", self.path.display())
    }
}

impl TableFile {
    /// Opens and validates a table before anything is allocated from its contents:
    /// a regular file; magic and version; the header and block directory checksum;
    /// the board and signature expected; counts consistent with them (entries within
    /// the signature's placements, the fixed block size, statistics that add up) and
    /// with the file's length; ordered block offsets and the end marker.
    ///
    /// # Errors
    /// `Io` when the file cannot be read, `NotATable`, `Version`, `Size` (truncated or
    /// extended), `Corrupt` (damage anywhere else), `Mismatch` (a sound table of
    /// another board or signature).
    pub fn open(
        path: &Path,
        board: &Board,
        limit: Option<Limit>,
        sig: Signature,
    ) -> Result<TableFile, TableError> {
        // A FIFO would block the open, a directory fails late: only regular files.
        let meta = fs::metadata(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound && path.symlink_metadata().is_ok() {
                TableError::NotAFile {
                    path: path.into(),
                    what: "a symbolic link to nothing",
                }
            } else {
                io_err(path)(e)
            }
        })?;
        if !meta.is_file() {
            return Err(TableError::NotAFile {
                path: path.into(),
                what: "not a regular file",
            });
        }
        let file = File::open(path).map_err(io_err(path))?;
        // SAFETY: the file is opened read-only and table files are never modified in
        // place (the writer renames a new file over the name); every read below is
        // bounds-checked against the map's length. Truncating a table in place while
        // it is mapped is outside this contract (see `Tablebase`).
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        let len = map.len() as u64;
        let corrupt = |what: &str| TableError::Corrupt {
            path: path.into(),
            what: what.into(),
        };
        let truncated = |expected: u64| TableError::Size {
            path: path.into(),
            expected,
            found: len,
        };
        if map.len() < 8 || map[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.into() });
        }
        if map.len() < HEADER_LEN {
            return Err(truncated(HEADER_LEN as u64));
        }
        let header = Header::decode(path, &map[..HEADER_LEN])?;
        // The directory's extent, in checked arithmetic: a crafted entry count must
        // not wrap around into a small length.
        let blocks = header.blocks();
        let dir_end = blocks
            .and_then(|n| n.checked_mul(32)?.checked_add(HEADER_LEN as u64 + 16))
            .filter(|&end| end.saturating_add(8 + 16) <= len)
            .ok_or_else(|| corrupt("header counts do not fit the file's length"))?
            as usize;
        let blocks = blocks.expect("checked above") as usize;
        let u64_at = |i: usize| u64::from_le_bytes(map[i..i + 8].try_into().expect("8 bytes"));
        if xxh3_64(&map[..dir_end]) != u64_at(dir_end) {
            return Err(corrupt("header or block directory checksum mismatch"));
        }
        // The header is as written: a different board or signature is a sound table
        // under the wrong name, not damage.
        let expected = table_name(sig, board.width(), board.height(), limit);
        let found = table_name(
            header.sig,
            header.width.into(),
            header.height.into(),
            header.limit,
        );
        if expected != found {
            return Err(TableError::Mismatch {
                path: path.into(),
                expected,
                found,
            });
        }
        header.check_counts(board).map_err(corrupt)?;
        let mut offsets = [Vec::new(), Vec::new()];
        let mut checksums = [Vec::new(), Vec::new()];
        let mut at = HEADER_LEN;
        for o in offsets.iter_mut() {
            *o = (0..=blocks).map(|i| u64_at(at + 8 * i)).collect();
            at += 8 * (blocks + 1);
        }
        for c in checksums.iter_mut() {
            *c = (0..blocks).map(|i| u64_at(at + 8 * i)).collect();
            at += 8 * blocks;
        }
        let data_end = offsets[1][blocks];
        if data_end.checked_add(16) != Some(len) {
            return Err(truncated(data_end.saturating_add(16)));
        }
        let sorted = offsets[0][0] == (dir_end + 8) as u64
            && offsets[0][blocks] == offsets[1][0]
            && offsets.iter().all(|o| o.windows(2).all(|w| w[0] <= w[1]));
        if !sorted || map[map.len() - 8..] != END_MAGIC {
            return Err(corrupt("block directory or end marker"));
        }
        Ok(TableFile {
            path: path.into(),
            map,
            header,
            offsets,
            checksums,
            id: NEXT_FILE_ID.fetch_add(1, Relaxed),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }

    /// The whole-file checksum stored in the file's trailer (what a proof
    /// certificate records to name the exact table it relied on).
    pub fn file_checksum(&self) -> u64 {
        let n = self.map.len();
        u64::from_le_bytes(self.map[n - 16..n - 8].try_into().expect("8 bytes"))
    }

    /// The whole value stream, decoded: 2 bits per entry, four entries a byte, as
    /// stored (the block size is a multiple of four, so blocks concatenate).
    pub fn read_values(&self) -> Result<Vec<u8>, TableError> {
        let mut out = Vec::with_capacity(self.header.entries.div_ceil(4) as usize);
        for b in 0..self.blocks() {
            let raw = self.decompress(Stream::Wdl, b)?;
            // Code 3 is invalid: a pair of set bits in any entry.
            if raw.iter().any(|&x| x & (x >> 1) & 0x55 != 0) {
                return Err(
                    self.corrupt(format!("block {b} of the value stream: invalid value bits"))
                );
            }
            out.extend_from_slice(&raw);
        }
        Ok(out)
    }

    /// Checks the whole-file checksum and every block checksum.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        let n = self.map.len();
        let stored = u64::from_le_bytes(self.map[n - 16..n - 8].try_into().expect("8 bytes"));
        if xxh3_64(&self.map[..n - 16]) != stored {
            return Err(self.corrupt("whole-file checksum mismatch".into()));
        }
        for s in [Stream::Wdl, Stream::Depth] {
            for b in 0..self.blocks() {
                self.compressed(s, b)?;
            }
        }
        Ok(())
    }

    fn blocks(&self) -> usize {
        self.checksums[0].len()
    }

    fn corrupt(&self, what: String) -> TableError {
        TableError::Corrupt {
            path: self.path.clone(),
            what,
        }
    }

    /// The compressed bytes of a block, checksum verified.
    fn compressed(&self, s: Stream, b: usize) -> Result<&[u8], TableError> {
        let o = &self.offsets[s as usize];
        let bytes = &self.map[o[b] as usize..o[b + 1] as usize];
        if xxh3_64(bytes) != self.checksums[s as usize][b] {
            return Err(self.corrupt(format!("block {b} of the {s:?} stream: checksum mismatch")));
        }
        Ok(bytes)
    }

    fn raw_len(&self, s: Stream, b: usize) -> usize {
        let first = b as u64 * self.header.block_entries as u64;
        let n = (self.header.entries - first).min(self.header.block_entries as u64) as usize;
        match s {
            Stream::Wdl => n.div_ceil(4),
            Stream::Depth => self.depth_width() * n,
        }
    }

    fn decompress(&self, s: Stream, b: usize) -> Result<Vec<u8>, TableError> {
        let want = self.raw_len(s, b);
        let raw = zstd::bulk::decompress(self.compressed(s, b)?, want)
            .map_err(|e| self.corrupt(format!("block {b} of the {s:?} stream: {e}")))?;
        if raw.len() != want {
            return Err(self.corrupt(format!("block {b} of the {s:?} stream: wrong length")));
        }
        Ok(raw)
    }

    /// Runs `f` on a decompressed block, from this thread's cache when it is there.
    fn with_block<R>(
        &self,
        s: Stream,
        b: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, TableError> {
        let key = (self.id, s, b);
        BLOCKS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if let Some(blk) = cache.blocks.get(&key) {
                return Ok(f(blk));
            }
            let blk = self.decompress(s, b)?;
            let r = f(&blk);
            let budget = CACHE_BYTES.load(Relaxed);
            while cache.bytes + blk.len() > budget {
                let Some(&victim) = cache.blocks.keys().next() else {
                    // The budget is below one block: keep none.
                    return Ok(r);
                };
                let gone = cache.blocks.remove(&victim).expect("a key of the map");
                cache.bytes -= gone.len();
            }
            cache.bytes += blk.len();
            cache.blocks.insert(key, blk);
            Ok(r)
        })
    }

    fn check_index(&self, index: u64) -> Result<(usize, usize), TableError> {
        if index >= self.header.entries {
            return Err(self.corrupt(format!(
                "index {index} beyond {} entries",
                self.header.entries
            )));
        }
        let be = self.header.block_entries as u64;
        Ok(((index / be) as usize, (index % be) as usize))
    }

    /// The value of an entry, reading only the value stream.
    pub fn wdl(&self, index: u64) -> Result<Wdl, TableError> {
        let (b, i) = self.check_index(index)?;
        self.with_block(Stream::Wdl, b, |blk| packed_wdl(blk, i))?
            .ok_or_else(|| self.corrupt(format!("entry {index}: invalid value bits")))
    }

    /// The value and depth of an entry of a plain table.
    pub fn outcome(&self, index: u64) -> Result<Outcome, TableError> {
        self.code(index).map(code_outcome)
    }

    /// The value and T of an entry of a rule-aware table.
    pub fn limited(&self, index: u64) -> Result<Limited, TableError> {
        self.code(index).map(code_limited)
    }

    /// The in-memory code of an entry (value and depth).
    pub(crate) fn code(&self, index: u64) -> Result<u16, TableError> {
        let wdl = self.wdl(index)?;
        let (b, i) = self.check_index(index)?;
        let depth = self.with_block(Stream::Depth, b, |blk| self.depth_at(blk, i))?;
        self.make_code(index, wdl, depth)
    }

    /// Bytes an entry takes in the depth stream: 2 (a depth), or 1 (T, at most 250,
    /// in a rule-aware table).
    fn depth_width(&self) -> usize {
        if self.header.limit.is_some() { 1 } else { 2 }
    }

    /// Entry `i` of a decompressed depth block.
    fn depth_at(&self, blk: &[u8], i: usize) -> u16 {
        match self.depth_width() {
            1 => blk[i] as u16,
            _ => u16::from_le_bytes([blk[2 * i], blk[2 * i + 1]]),
        }
    }

    fn make_code(&self, index: u64, wdl: Wdl, depth: u16) -> Result<u16, TableError> {
        if let Some(n) = self.header.limit {
            let t = depth as u32;
            let value = match wdl {
                Wdl::Win if (1..=n.plies()).contains(&t) => Some(Limited::Win(t)),
                Wdl::Loss if t <= n.plies() => Some(Limited::Loss(t)),
                Wdl::Draw if t <= 2 => {
                    Some([Limited::Draw, Limited::CursedWin, Limited::BlessedLoss][t as usize])
                }
                _ => None,
            };
            return value.map(limited_code).ok_or_else(|| {
                self.corrupt(format!(
                    "entry {index}: {depth} plies to a capture does not fit its value"
                ))
            });
        }
        let ok = match wdl {
            Wdl::Draw => depth == 0,
            Wdl::Win => depth % 2 == 1,
            Wdl::Loss => depth.is_multiple_of(2),
        };
        if !ok || depth >= u16::MAX - 1 {
            return Err(self.corrupt(format!(
                "entry {index}: depth {depth} does not fit its value"
            )));
        }
        Ok(if wdl == Wdl::Draw { 0 } else { depth + 1 })
    }

    /// Every entry's code, decoded block by block in parallel.
    pub(crate) fn read_all(&self) -> Result<Vec<u16>, TableError> {
        // Decoded in place, block by block: no second copy of the table.
        let mut codes = vec![0u16; self.header.entries as usize];
        codes
            .par_chunks_mut(self.header.block_entries as usize)
            .enumerate()
            .try_for_each(|(b, out)| {
                let wdl = self.decompress(Stream::Wdl, b)?;
                let depth = self.decompress(Stream::Depth, b)?;
                let first = b as u64 * self.header.block_entries as u64;
                for (i, code) in out.iter_mut().enumerate() {
                    let w = packed_wdl(&wdl, i).ok_or_else(|| {
                        self.corrupt(format!("entry {}: invalid value bits", first + i as u64))
                    })?;
                    let d = self.depth_at(&depth, i);
                    *code = self.make_code(first + i as u64, w, d)?;
                }
                Ok(())
            })?;
        Ok(codes)
    }
}
