//! The fixed-size header of a table file and the summary figures it holds
//! (docs/FORMAT.md).

use std::path::Path;

use rayon::prelude::*;

use super::codes::{BLESSED, CURSED, Codes, code_depth, code_limited, code_wdl};
use super::{TableError, TableKind};
use crate::files::bytes::{u32_at, u64_at};
use crate::index::{Indexer, Signature};
use crate::rules::board::Board;
use crate::rules::limit::Limit;
use crate::rules::value::Wdl;

pub(crate) const MAGIC: [u8; 8] = *b"FANOTB\r\n";

pub(crate) const END_MAGIC: [u8; 8] = *b"FNTBEND\n";

pub(crate) const VERSION: u32 = 1;

/// Index scheme 1: see `index`.
pub(crate) const INDEX_SCHEME: u32 = 1;

pub(crate) const HEADER_LEN: usize = 128;

/// Entries per block: a value block is 8 KiB raw, a depth block 64 KiB.
pub(crate) const BLOCK_ENTRIES: u32 = 32768;

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
    pub(crate) fn count(
        side: &Indexer,
        codes: &(impl Codes + ?Sized),
        limit: Option<Limit>,
    ) -> Stats {
        Stats::count_slice(side, 0, codes).finished(limit)
    }

    /// The raw counts of the entries from `first` on (`merge` them in order, then
    /// `finished`).
    pub(crate) fn count_slice(side: &Indexer, first: u64, codes: &(impl Codes + ?Sized)) -> Stats {
        fold_weighted(side, first, codes, Stats::default, Stats::add, Stats::merge)
    }

    /// Counts entry `index`, of weight `w` and code `c`, after the entries before it.
    #[inline]
    pub(crate) fn add(&mut self, index: u64, w: u64, c: u16) {
        match code_wdl(c) {
            Wdl::Win => {
                self.wins += w;
                let d = code_depth(c).expect("a win has a depth");
                if w > 0 && (self.wins == w || d > self.max_win_depth) {
                    self.max_win_depth = d;
                    self.longest_win = index;
                }
            }
            Wdl::Draw => {
                self.draws += w;
                self.cursed += if c == CURSED { w } else { 0 };
                self.blessed += if c == BLESSED { w } else { 0 };
            }
            Wdl::Loss => self.losses += w,
        }
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
    codes: &(impl Codes + ?Sized),
    init: impl Fn() -> A + Sync + Send,
    add: impl Fn(&mut A, u64, u64, u16) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> A {
    let per_class = side.per_class() as usize;
    debug_assert_eq!(first % per_class as u64, 0, "a slice starts a class");
    let first_class = first / per_class as u64;
    let full = side.board().symmetries().len() as u64;
    let len = codes.len();
    // Entries decoded a piece at a time (`Codes::codes_into`), into a buffer that a
    // fold keeps: one decode loop instead of one call an entry.
    const PIECE: usize = 1 << 16;
    (0..len.div_ceil(per_class))
        .into_par_iter()
        // A class a piece: no large piece left to one thread at the end.
        .with_max_len(1)
        .fold(
            || (init(), Vec::new()),
            |(mut acc, mut piece), c| {
                let class = first_class + c as u64;
                let first = class * per_class as u64;
                let at = c * per_class;
                let count = per_class.min(len - at);
                let symmetry = side.class_symmetry(class);
                if symmetry.is_trivial() {
                    for start in (0..count).step_by(PIECE) {
                        codes.codes_into(at + start..at + count.min(start + PIECE), &mut piece);
                        for (index, &code) in (first + start as u64..).zip(&piece) {
                            add(&mut acc, index, full, code);
                        }
                    }
                } else {
                    side.walk(first, count as u64, |index, _, them| {
                        let i = at + (index - first) as usize;
                        add(&mut acc, index, symmetry.weight(them), codes.code(i));
                    });
                }
                (acc, piece)
            },
        )
        .map(|(acc, _)| acc)
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
    /// The game the table values.
    pub kind: TableKind,
}

impl Header {
    /// Blocks per stream (`None` for a block size of 0).
    pub(super) fn blocks(&self) -> Option<u64> {
        self.entries.checked_div(self.block_entries as u64)?;
        Some(self.entries.div_ceil(self.block_entries as u64))
    }

    /// Checks the counts against the board: the fixed block size, a signature that
    /// fits, entries between the placements over the symmetries and the placements,
    /// statistics over exactly the placements, a longest win that is an entry.
    pub(super) fn check_counts(&self, board: &Board) -> Result<(), &'static str> {
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
        } else if let Some(n) = self.kind.limit() {
            s.longest_win < self.entries && (1..=n.plies()).contains(&s.max_win_depth)
        } else {
            s.longest_win < self.entries
                && s.max_win_depth % 2 == 1
                && s.max_win_depth < u16::MAX as u32 - 2
        };
        if !win_ok {
            return Err("a longest win that is not a win of the table");
        }
        let cursed_ok = match self.kind.limit() {
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

    pub(super) fn encode(&self) -> [u8; HEADER_LEN] {
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
        h[68..72].copy_from_slice(&self.kind.word().to_le_bytes());
        h[72..80].copy_from_slice(&s.longest_win.to_le_bytes());
        h[80..88].copy_from_slice(&s.cursed.to_le_bytes());
        h[88..96].copy_from_slice(&s.blessed.to_le_bytes());
        h
    }

    pub(super) fn decode(path: &Path, h: &[u8]) -> Result<Header, TableError> {
        let u32_at = |i: usize| u32_at(h, i);
        let u64_at = |i: usize| u64_at(h, i);
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
        let kind = TableKind::of_word(u32_at(68))
            .ok_or_else(|| corrupt("a rules word that is no kind of table"))?;
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
            kind,
        };
        Ok(header)
    }
}
