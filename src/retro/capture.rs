//! Capture positions, valued from the smaller tables: every chain and stopping
//! point, the reads batched so that their cache misses overlap.

use crate::rules::board::{Board, Images};
use crate::rules::limit::Limited;
use crate::rules::movegen::each_capture_result;
use crate::rules::value::Wdl;
use crate::table::{Decoded, code_wdl, limited_code};

/// Capture positions whose values wait for their results' codes: the reads from
/// the large smaller tables are prefetched as they are found and read in one batch,
/// so the cache misses of many positions overlap.
pub(super) struct CaptureBatch<'d> {
    /// The results' codes to read: (table, entry).
    lookups: Vec<(&'d [u16], usize)>,
    /// Per waiting position: its cell in the chunk and the end of its lookups.
    waiting: Vec<(usize, usize)>,
    /// Rule-aware codes: a capture is decided in one ply (T = 1).
    limited: bool,
}

/// Positions per batch: enough misses in flight to cover the memory latency.
pub(super) const BATCH: usize = 64;

impl<'d> CaptureBatch<'d> {
    pub(super) fn new(limited: bool) -> Self {
        CaptureBatch {
            lookups: Vec::new(),
            waiting: Vec::new(),
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
    /// `caps` are the capturers of `us`, found by the caller, and `us_images` the
    /// images of `us` (`Board::images`), which a class's entries share.
    pub(super) fn push(
        &mut self,
        board: &Board,
        caps: u64,
        (us, them): (u64, u64),
        us_images: &Images,
        cell: usize,
        deps: &[Option<&'d Decoded>],
    ) -> Option<u16> {
        // Every result, even one that two chains reach: the best of them is the
        // same, and looking one up twice costs less than finding the repeats.
        let (start, mut last_stone) = (self.lookups.len(), false);
        // A result moves one stone and takes a few: the images of its sets, which
        // indexing compares, come from these by look-ups.
        let them_images = board.images(them);
        each_capture_result(board, caps, us, them, |u, t| {
            if t == 0 {
                last_stone = true;
                return;
            }
            let dep = deps[t.count_ones() as usize].expect("capture tables are loaded");
            let (u_images, t_images) = (
                us_images.toggled_all(board, u ^ us),
                them_images.toggled_all(board, t ^ them),
            );
            let i = dep.idx.index_images(&t_images, &u_images) as usize;
            prefetch(&dep.codes[i]);
            self.lookups.push((&dep.codes, i));
        });
        if last_stone {
            // Taking the last stone wins in 1, the best there is.
            self.lookups.truncate(start);
            return Some(self.capture_code(2));
        }
        self.waiting.push((cell, self.lookups.len()));
        None
    }

    pub(super) fn full(&self) -> bool {
        self.waiting.len() >= BATCH
    }

    /// Calls `f(cell, code)` for every waiting position.
    pub(super) fn flush(&mut self, mut f: impl FnMut(usize, u16)) {
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
pub(super) fn prefetch<T>(x: &T) {
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
pub(super) fn best_of(children: impl Iterator<Item = u16>) -> u16 {
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

#[cfg(test)]
mod tests {
    use super::best_of;
    use crate::rules::value::Outcome;
    use crate::table::{BLESSED, CURSED, code_outcome};

    /// The generator's rule on storage codes is the value rule on outcomes: every
    /// list of up to three successor codes (draw, losses and wins in 0 to 10 plies,
    /// the rule-aware draws that are cursed wins and blessed losses).
    #[test]
    fn best_of_codes_is_the_value_rule() {
        let codes: Vec<u16> = (0..12).chain([BLESSED, CURSED]).collect();
        let mut lists: Vec<Vec<u16>> = vec![vec![]];
        for _ in 0..3 {
            let longer: Vec<Vec<u16>> = lists
                .iter()
                .filter(|l| l.len() == lists.last().map_or(0, Vec::len))
                .flat_map(|l| codes.iter().map(move |&c| [l.clone(), vec![c]].concat()))
                .collect();
            lists.extend(longer);
        }
        assert_eq!(lists.len(), 1 + 14 + 196 + 2744);
        for l in lists {
            let fast = code_outcome(best_of(l.iter().copied()));
            let reference = Outcome::from_successors(l.iter().map(|&c| code_outcome(c)));
            assert_eq!(fast, reference, "{l:?}");
        }
    }
}
