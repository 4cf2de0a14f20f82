//! The class table of an indexer: which sets of the side to move's stones are class
//! representatives (the least of their orbit), as a bitmap over the sets' ranks with
//! the count of representatives before each 64-bit word, so that a representative's
//! class is one popcount away and the table takes 1.5 bits a set.
//!
//! It is built by enumerating every set (the generator, and a reader whose table has
//! no sidecar), or mapped from the sidecar `NvM.classes` that the generator writes
//! beside a table, so that opening a table enumerates nothing and keeps the table
//! off the heap (docs/FORMAT.md, "Class sidecars"). The sidecar holds the same bytes
//! as the built table.

use std::path::Path;

use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use super::{binom, next_colex};
use crate::files::bytes::{u32_at, u64_at};
use crate::rules::board::Board;

const MAGIC: &[u8; 8] = b"FNCLASS1";
/// Magic, board and stones, then the set, class and word counts.
const HEADER: usize = 48;

/// Which sets of `k` stones on a board are class representatives.
pub(crate) struct ClassMap {
    bytes: Backing,
    words: usize,
    classes: u64,
}

enum Backing {
    Heap(Vec<u8>),
    Mapped(Mmap),
}

impl ClassMap {
    /// Builds the table by enumerating every set of `k` points in rank (colex)
    /// order; pushes each representative to `reps` when given.
    pub(crate) fn build(board: &Board, k: usize, mut reps: Option<&mut Vec<u64>>) -> ClassMap {
        let sets = binom(board.points(), k);
        let words = sets.div_ceil(64) as usize;
        let mut bits = vec![0u64; words];
        let mut set = (1u64 << k) - 1;
        for r in 0..sets {
            if board.symmetries().iter().all(|g| g.apply(set) >= set) {
                bits[(r / 64) as usize] |= 1 << (r % 64);
                if let Some(reps) = reps.as_deref_mut() {
                    reps.push(set);
                }
            }
            if r + 1 < sets {
                set = next_colex(set);
            }
        }
        let mut bytes = Vec::with_capacity(file_len(words));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&[board.width() as u8, board.height() as u8, k as u8, 0]);
        bytes.extend_from_slice(&[0; 4]);
        let classes: u64 = bits.iter().map(|w| w.count_ones() as u64).sum();
        for n in [sets, classes, words as u64, 0] {
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        for w in &bits {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let mut before = 0u32;
        for w in &bits {
            bytes.extend_from_slice(&before.to_le_bytes());
            before += w.count_ones();
        }
        bytes.resize(file_len(words) - 8, 0);
        let sum = xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        ClassMap {
            bytes: Backing::Heap(bytes),
            words,
            classes,
        }
    }

    /// Maps the sidecar at `path` if it is the class table of `k` stones on `board`:
    /// the header, the length, the checksum and every word's count agree. `None`
    /// otherwise (the caller builds the table instead).
    pub(crate) fn open(path: &Path, board: &Board, k: usize) -> Option<ClassMap> {
        let file = crate::files::read::open_regular(path).ok()?;
        // SAFETY: the file is opened read-only and sidecars are replaced by rename,
        // never rewritten in place; every read is bounds-checked (as table files).
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let sets = binom(board.points(), k);
        let words = sets.div_ceil(64) as usize;
        let head = [board.width() as u8, board.height() as u8, k as u8, 0];
        if map.len() != file_len(words)
            || &map[..8] != MAGIC
            || map[8..12] != head
            || u64_at(&map, 16) != sets
            || u64_at(&map, 32) != words as u64
            || u64_at(&map, map.len() - 8) != xxh3_64(&map[..map.len() - 8])
        {
            return None;
        }
        let m = ClassMap {
            classes: u64_at(&map, 24),
            bytes: Backing::Mapped(map),
            words,
        };
        // Counts that do not follow the bits would index outside the table.
        let mut before = 0u64;
        for w in 0..words {
            if m.before(w) as u64 != before {
                return None;
            }
            before += m.word(w).count_ones() as u64;
        }
        (before == m.classes).then_some(m)
    }

    /// Writes the table to `path`, whole or not at all.
    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        crate::files::durable::replace_file(path, |f| std::io::Write::write_all(f, self.as_bytes()))
    }

    fn as_bytes(&self) -> &[u8] {
        match &self.bytes {
            Backing::Heap(v) => v,
            Backing::Mapped(m) => m,
        }
    }

    #[inline]
    fn word(&self, w: usize) -> u64 {
        u64_at(self.as_bytes(), HEADER + 8 * w)
    }

    /// Representatives in the words before `w`.
    #[inline]
    fn before(&self, w: usize) -> u32 {
        u32_at(self.as_bytes(), HEADER + 8 * self.words + 4 * w)
    }

    /// The class of the set of rank `rank`, if it is a representative.
    #[inline]
    pub(crate) fn class(&self, rank: u64) -> Option<u64> {
        let (w, b) = ((rank / 64) as usize, rank % 64);
        if w >= self.words {
            return None;
        }
        let word = self.word(w);
        (word >> b & 1 == 1)
            .then(|| self.before(w) as u64 + (word & ((1 << b) - 1)).count_ones() as u64)
    }

    /// The rank of the representative of `class` (below [`ClassMap::classes`]).
    pub(crate) fn select(&self, class: u64) -> u64 {
        // The last word with no more representatives before it than `class`.
        let (mut lo, mut hi) = (0, self.words);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.before(mid) as u64 <= class {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut word = self.word(lo);
        for _ in 0..class - self.before(lo) as u64 {
            word &= word - 1;
        }
        lo as u64 * 64 + word.trailing_zeros() as u64
    }

    /// How many classes there are.
    pub(crate) fn classes(&self) -> u64 {
        self.classes
    }

    /// Whether this is the table [`ClassMap::build`] makes: a mapped sidecar that
    /// passed `open`'s checks could still hold representatives moved within a word.
    pub(crate) fn is_built_table(&self, board: &Board, k: usize) -> bool {
        self.as_bytes() == ClassMap::build(board, k, None).as_bytes()
    }

    /// Whether the table is mapped from a sidecar.
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self.bytes, Backing::Mapped(_))
    }

    /// Heap memory held (none when mapped).
    pub(crate) fn heap_bytes(&self) -> u64 {
        match &self.bytes {
            Backing::Heap(v) => v.len() as u64,
            Backing::Mapped(_) => 0,
        }
    }
}

/// Header, the words, their counts, padding to 8 bytes, the checksum.
fn file_len(words: usize) -> usize {
    (HEADER + 12 * words).next_multiple_of(8) + 8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map answers as the plain definition does: a set is a representative when
    /// no symmetry maps it below itself, its class counts those before it.
    #[test]
    fn built_and_mapped_tables_agree_with_the_definition() {
        let dir = tempfile::tempdir().unwrap();
        for (board, k) in [(Board::get(5, 3).unwrap(), 4), (Board::tsivy(), 3)] {
            let mut reps = Vec::new();
            let built = ClassMap::build(board, k, Some(&mut reps));
            let path = dir.path().join(format!("{k}.classes"));
            built.write(&path).unwrap();
            let mapped = ClassMap::open(&path, board, k).unwrap();
            assert!(mapped.is_mapped() && mapped.heap_bytes() == 0);
            let n = board.points();
            let mut class = 0;
            for r in 0..binom(n, k) {
                let set = crate::index::unrank_set(r, k, n);
                let rep = board.symmetries().iter().all(|g| g.apply(set) >= set);
                let want = rep.then_some(class);
                assert_eq!((built.class(r), mapped.class(r)), (want, want), "rank {r}");
                if rep {
                    assert_eq!((built.select(class), mapped.select(class)), (r, r));
                    assert_eq!(reps[class as usize], set);
                    class += 1;
                }
            }
            assert_eq!((built.classes(), mapped.classes()), (class, class));
            // Another board or stone count is not this table.
            assert!(ClassMap::open(&path, board, k + 1).is_none());
        }
    }

    #[test]
    fn a_damaged_or_inconsistent_sidecar_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::get(5, 3).unwrap();
        let path = dir.path().join("t.classes");
        ClassMap::build(board, 5, None).write(&path).unwrap();
        let good = std::fs::read(&path).unwrap();
        let bad = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            ClassMap::open(&path, board, 5).is_none()
        };
        // A flipped bit, a cut, an extension.
        let mut flipped = good.clone();
        flipped[HEADER + 3] ^= 4;
        assert!(bad(&flipped) && bad(&good[..good.len() - 1]) && bad(&[&good[..], &[0]].concat()));
        // Bits and counts that disagree, under a valid checksum.
        let mut crafted = good.clone();
        crafted[HEADER] ^= 1;
        let n = crafted.len() - 8;
        let sum = xxh3_64(&crafted[..n]);
        crafted[n..].copy_from_slice(&sum.to_le_bytes());
        assert!(bad(&crafted));
        assert!(!bad(&good));
    }
}
