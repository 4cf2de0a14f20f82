//! A pair's cells: the state bytes (allocated zeroed and untouched until written),
//! the codes they decode to, the notifications that count a position's undecided
//! successors down, the un-moves a level walks back over, and the memory they
//! take.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use super::{MARK, REDUNDANT, UNDECIDED};
use crate::index::{Indexer, Signature};
use crate::rules::board::{Board, Images, bits};
use crate::rules::movegen::{can_capture_from, capture_points, capture_points_onto};
use crate::table::BLESSED;

/// `n` zeroed atomic bytes, from the allocator's zeroed pages: they take no memory
/// until written.
pub(crate) fn zeroed_bytes(n: usize) -> Vec<AtomicU8> {
    let mut zeros = std::mem::ManuallyDrop::new(vec![0u8; n]);
    let (ptr, len, cap) = (zeros.as_mut_ptr(), zeros.len(), zeros.capacity());
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`, so the
    // allocation of a `Vec<u8>` is one of a `Vec<AtomicU8>` of the same length and
    // capacity; `zeros` is not used or dropped again.
    unsafe { Vec::from_raw_parts(ptr as *mut AtomicU8, len, cap) }
}

/// `zeroed_bytes` undone once nothing writes them concurrently: the same
/// allocation as plain bytes, its untouched pages still taking no memory.
pub(crate) fn into_bytes(bytes: Vec<AtomicU8>) -> Vec<u8> {
    let mut bytes = std::mem::ManuallyDrop::new(bytes);
    let (ptr, len, cap) = (bytes.as_mut_ptr(), bytes.len(), bytes.capacity());
    // SAFETY: as in `zeroed_bytes`, the layouts are the same; `bytes` is not used
    // or dropped again.
    unsafe { Vec::from_raw_parts(ptr as *mut u8, len, cap) }
}

/// The code of a decided entry from its state byte and, from code `deep` on, its
/// deep byte (`high`, read only then).
#[inline]
pub(crate) fn decode(deep: u16, low: u8, high: impl FnOnce() -> u8) -> u16 {
    debug_assert!(low & UNDECIDED == 0 && low != REDUNDANT, "a decided entry");
    if (low as u16) < deep {
        low as u16
    } else {
        deep + 2 * high() as u16 + (low as u16 - deep)
    }
}

/// The distinct table entries of the paika predecessors of `(us, them)` (the side
/// `them` moved last; `us` comes with its images, `Board::images`), in no particular
/// order, keeping only those that had no capture, unless `them` plays vela there
/// (`vela`: every step is its move).
///
/// A predecessor has the stone of `q` back on an empty neighbour `p`. Whether it
/// had a capture is found from one look at the board with `q` lifted (every
/// point that could capture, landing on any empty point or `q`), computed once per
/// `q` and shared by its `p`s: only the stones next to `p`, which lose `p` as a
/// landing, need a look of their own.
pub(crate) fn unmoves(
    board: &Board,
    (us, us_images): (u64, &Images),
    them: u64,
    prev: &Indexer,
    vela: bool,
    out: &mut Vec<u64>,
) {
    out.clear();
    let empty = board.all() & !(us | them);
    // The capture points with `q` lifted are these plus those landing on `q`.
    let before = if vela {
        0
    } else {
        capture_points(board, empty, us)
    };
    // The predecessors' sets differ from `them` by a point or two: their images
    // under the symmetries, which indexing compares, come from these by look-ups.
    let them_images = board.images(them);
    for q in bits(them) {
        let lifted = them ^ (1 << q);
        let lifted_images = them_images.toggled(board, q);
        let open = empty | 1 << q;
        let points = if vela {
            0
        } else {
            before | capture_points_onto(board, q, us)
        };
        let others = lifted & points;
        // The empty neighbours only, taken as a set: fewer instructions than testing
        // each of the eight directions (callgrind).
        for p in bits(board.neighbours(q) & empty) {
            let p_bit = 1u64 << p;
            let near = board.neighbours(p);
            let captured = p_bit & points != 0
                || others & !near != 0
                || bits(others & near).any(|s| can_capture_from(board, s, open & !p_bit, us));
            if !captured {
                out.push(prev.index_images(&lifted_images.toggled(board, p), us_images));
            }
        }
    }
    // Two predecessors share an entry only when a symmetry maps one onto the other,
    // and it fixes `us`, which they share: most sets of `us` have no such symmetry.
    if us_images.are_fixed(board) {
        out.sort_unstable();
        out.dedup();
    }
}

/// Calls `f(j)` for every `j` with `bytes[j] == byte`, in order, testing eight bytes
/// at a time.
pub(crate) fn each_equal(bytes: &[u8], byte: u8, mut f: impl FnMut(usize)) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut words = bytes.chunks_exact(8);
    for (w, word) in (&mut words).enumerate() {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ pattern;
        // Bit 7 of each byte of x that is zero: the low seven bits carry into bit 7
        // only within their byte, so no byte borrows from another.
        let mut zero = !(((x & LOW7) + LOW7) | x | LOW7);
        while zero != 0 {
            f(8 * w + zero.trailing_zeros() as usize / 8);
            zero &= zero - 1;
        }
    }
    let done = bytes.len() - words.remainder().len();
    for (j, &b) in words.remainder().iter().enumerate() {
        if b == byte {
            f(done + j);
        }
    }
}

/// Tells an undecided predecessor that one successor is decided: a lost successor
/// makes it won, a won one uses up one of its counter's successors. Returns whether
/// the predecessor became decided (with state byte `code`).
///
/// A level's notifications are all of lost successors or all of won ones, so no
/// compare-and-swap is needed: an undecided cell that a lost successor reaches can
/// only be set to `code`, which two threads may both do; and a counter counts each
/// successor once, so after the decrement that takes it to zero no other notification
/// comes for the store of `code` to race with.
#[inline]
pub(crate) fn notify(cell: &AtomicU8, successor_lost: bool, code: u8) -> bool {
    if cell.load(Relaxed) & UNDECIDED == 0 {
        false
    } else if successor_lost || cell.fetch_sub(1, Relaxed) & !UNDECIDED == 1 {
        cell.store(code, Relaxed);
        true
    } else {
        false
    }
}

/// The chunk-mark bit of a decided code; none for a draw (code 0: a capture
/// position whose every result is drawn), which never propagates.
#[inline]
pub(crate) fn depth_bit(code: u16) -> u64 {
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

/// Whether stage 1 writes a deep byte (code `deep` on) when a capture leads to a
/// smaller table's `code`: its winner's code is one more.
pub(crate) fn writes_deep_early(deep: u16, code: u16) -> bool {
    code >= deep.saturating_sub(1) && code < BLESSED
}

/// The most working memory building a pair takes, by construction, from its sides'
/// entries, the heap of their indexers, the bytes of the decoded smaller tables its
/// captures read, whether it is rule-aware, and whether deep bytes may be written
/// while the smaller tables are held (`deep_early`: a resumed checkpoint that has
/// them, or smaller tables with codes that make stage 1 write them):
/// - stage 1: a state byte an entry (plus its depth marks), the smaller tables;
/// - then the smaller tables dropped, at most a deep byte more an entry (only the
///   pages written take memory, so far less in practice), and while writing,
///   rule-aware, every side's plain values (2 bits an entry) for its cursed wins;
///
/// plus 64 MiB for thread stacks, the blocks compressed at a time (of a table, or
/// of a checkpoint: 8 MiB and their compressed forms), compression contexts and
/// allocator slack.
pub(crate) fn memory_bound(
    sizes: &[u64],
    indexers: u64,
    deps: u64,
    limited: bool,
    deep_early: bool,
) -> u64 {
    let entries: u64 = sizes.iter().sum();
    let marks: u64 = sizes.iter().map(|s| 8 * s.div_ceil(MARK as u64)).sum();
    let early_deep = if deep_early { entries } else { 0 };
    let initial = entries + early_deep + marks + indexers + deps;
    let plain = if limited { entries / 4 } else { 0 };
    let later = 2 * entries + marks + indexers + plain;
    initial.max(later) + (64 << 20)
}
