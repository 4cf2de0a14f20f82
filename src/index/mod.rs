//! Signatures and the combinatorial indexer.
//!
//! # Scheme (index scheme 1)
//! A position of signature `NvM` is a pair of disjoint point sets: `us` (N stones,
//! side to move) and `them` (M stones).
//!
//! * Raw rank (every placement, bijective and gapless on `0..C(n,N)·C(n-N,M)`):
//!   `rank(us) · C(n-N, M) + rank_in(them, complement of us)`, where `rank` of a set
//!   `{p0 < p1 < ... < pk-1}` is the combinatorial number system `Σ C(pi, i+1)`, and
//!   `rank_in` does the same after renumbering the free points `0..n-N` in order.
//! * Table index (one representative per symmetry class): the board's symmetry group
//!   acts on `us`; the orbit representatives are the sets whose raw rank is the least
//!   in their orbit ("classes", numbered in rank order). A position is mapped by the
//!   symmetry that takes `us` to its representative (among several such, the one giving
//!   the least `them` rank), and indexed `class · C(n-N, M) + rank_in(them')`.
//!   Gapless over classes × placements of `them`; when the representative of `us` has
//!   a non-trivial stabiliser, some entries are images of others ("redundant"):
//!   `is_canonical` tells them apart, the generator skips them and the writer stores
//!   them with the value of their canonical twin.

mod classes;

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::OnceLock;

use thiserror::Error;

use crate::rules::board::{Board, Images, bits};

pub(crate) use classes::ClassMap;

/// Binomial coefficients, `t[k][n]` = C(n, k) for n, k <= 64: by k, so that a scan
/// over n for one k reads consecutive words.
fn binomials() -> &'static [[u64; 65]; 65] {
    static T: OnceLock<Box<[[u64; 65]; 65]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([[0u64; 65]; 65]);
        for n in 0..=64 {
            t[0][n] = 1;
            for k in 1..=n {
                t[k][n] = t[k - 1][n - 1].saturating_add(if k < n { t[k][n - 1] } else { 0 });
            }
        }
        t
    })
}

/// Where `unrank_set`'s scans for an element start: `t[k][l]` is the largest `c`
/// (at most 64) with C(c, k) below 2^l, past which a rank of `l` bits has no `k`th
/// element.
fn scan_starts() -> &'static [[u8; 65]; 65] {
    static T: OnceLock<Box<[[u8; 65]; 65]>> = OnceLock::new();
    T.get_or_init(|| {
        let b = binomials();
        let mut t = Box::new([[0u8; 65]; 65]);
        for (k, row) in t.iter_mut().enumerate() {
            for (l, start) in row.iter_mut().enumerate() {
                let below = |c: usize| l == 64 || b[k][c] < 1 << l;
                *start = (0..=64).rev().find(|&c| below(c)).unwrap_or(0) as u8;
            }
        }
        t
    })
}

/// C(n, k), zero when k > n.
#[inline]
pub fn binom(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { binomials()[k][n] }
}

/// Combinatorial-number-system rank of a set of points.
#[inline]
pub fn rank_set(set: u64) -> u64 {
    let t = binomials();
    bits(set)
        .enumerate()
        .map(|(i, p)| t[i + 1][p as usize])
        .sum()
}

/// The `k`-set of points below `n` (`k <= n`) with the given rank.
pub fn unrank_set(mut rank: u64, k: usize, n: usize) -> u64 {
    debug_assert!(k <= n, "a {k}-set of {n} points");
    let (t, starts) = (binomials(), scan_starts());
    let mut set = 0u64;
    let mut c = n; // every element left is below c
    for i in (2..=k).rev() {
        // The largest c below the last with C(c, i) <= rank, scanning down from
        // the largest the rank's bit length allows: C(c, i) doubles every few c, so
        // a scan takes a few steps, whose branch goes the same way but at the
        // element found, where a bisection takes log n steps of unpredictable
        // branches. C(i - 1, i) = 0 stops it.
        let column = &t[i];
        c = (c - 1).min(starts[i][(u64::BITS - rank.leading_zeros()) as usize] as usize);
        while column[c] > rank {
            c -= 1;
        }
        rank -= column[c];
        set |= 1 << c;
    }
    // C(c, 1) = c: the last element is the rank left.
    if k >= 1 {
        debug_assert!(rank < c as u64, "rank {rank} out of range: at least {c}");
        set |= 1 << rank;
    }
    set
}

/// Rank of `set` among the points not in `excluded`, renumbered in order.
#[inline]
pub fn rank_in(set: u64, excluded: u64) -> u64 {
    rank_set(compact(set, !excluded))
}

/// Inverse of `rank_in` for a `k`-set on a board of `n` points.
#[inline]
pub fn unrank_in(rank: u64, k: usize, excluded: u64, n: usize) -> u64 {
    let free = n - excluded.count_ones() as usize;
    spread(unrank_set(rank, k, free), !excluded)
}

/// Whether the CPU has BMI2 (`pext`, `pdep`). The standard library asks the CPU
/// once and caches the answer (one atomic load); in a build for a CPU with BMI2 it is
/// a constant and the instructions inline.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_bmi2() -> bool {
    std::arch::is_x86_feature_detected!("bmi2")
}

/// `pext`, for CPUs with BMI2.
///
/// # Safety
/// The CPU has BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn pext(set: u64, mask: u64) -> u64 {
    std::arch::x86_64::_pext_u64(set, mask)
}

/// `pdep`, for CPUs with BMI2.
///
/// # Safety
/// The CPU has BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn pdep(packed: u64, mask: u64) -> u64 {
    std::arch::x86_64::_pdep_u64(packed, mask)
}

/// The bits of `set` at the points of `mask`, packed to the low end in order
/// (`pext`): one instruction where the CPU has BMI2 (chosen at run time), bit by bit
/// elsewhere.
#[inline]
fn compact(set: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { pext(set, mask) };
    }
    compact_portable(set, mask)
}

/// The inverse of `compact`: the low bits of `packed` placed on the points of `mask`,
/// in order (`pdep`).
#[inline]
fn spread(packed: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { pdep(packed, mask) };
    }
    spread_portable(packed, mask)
}

/// `compact` bit by bit: for CPUs without BMI2, and the reference the instruction
/// is tested against.
fn compact_portable(set: u64, mask: u64) -> u64 {
    bits(mask)
        .enumerate()
        .filter(|&(_, p)| set & (1 << p) != 0)
        .fold(0, |acc, (i, _)| acc | 1 << i)
}

/// `spread` bit by bit: for CPUs without BMI2, and the reference the instruction is
/// tested against.
fn spread_portable(packed: u64, mask: u64) -> u64 {
    bits(mask)
        .enumerate()
        .filter(|&(i, _)| packed & (1 << i) != 0)
        .fold(0, |acc, (_, p)| acc | 1 << p)
}

/// The next set of the same size in colex order (Gosper's hack).
#[inline]
fn next_colex(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    // `c` is a power of two: a shift in place of the division.
    (((r ^ x) >> 2) >> c.trailing_zeros()) | r
}

/// A signature text that is not `NvM` with N, M >= 1; holds the text as given.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("bad signature `{0}`: expected NvM with N, M >= 1, such as 3v5")]
pub struct SignatureError(pub String);

/// The largest table `generate` takes on, in placements.
pub(crate) const MAX_PLACEMENTS: u64 = 1_000_000_000_000;

/// Material: the side to move has `us` stones, the other side `them`.
///
/// ```
/// use fanotb::{Board, Signature};
/// let sig: Signature = "3v2".parse()?;
/// assert_eq!((sig.stones(), sig.flipped().to_string()), (5, "2v3".to_string()));
/// assert_eq!(sig.placements(Board::tsivy()), 12_217_590);
/// assert_eq!(Signature::all_up_to(3).len(), 3); // 1v1, 1v2, 2v1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// Stones of the side to move.
    pub us: u8,
    /// Stones of the other side.
    pub them: u8,
}

impl Signature {
    /// The signature `usvthem`.
    pub fn new(us: u8, them: u8) -> Signature {
        Signature { us, them }
    }
    /// The signature of a position.
    pub fn of(us: u64, them: u64) -> Signature {
        Signature::new(us.count_ones() as u8, them.count_ones() as u8)
    }
    /// The same material with the other side to move.
    pub fn flipped(self) -> Signature {
        Signature::new(self.them, self.us)
    }
    /// Stones on the board, both sides.
    pub fn stones(self) -> usize {
        self.us as usize + self.them as usize
    }
    /// Every placement with the `us` side to move, without symmetry reduction.
    pub fn placements(self, board: &Board) -> u64 {
        let n = board.points();
        // 0 for a signature that does not fit; saturated where it overflows.
        binom(n, self.us as usize).saturating_mul(binom(
            n.saturating_sub(self.us as usize),
            self.them as usize,
        ))
    }
    /// Whether `generate` builds this table on `board`: it fits the board and has at
    /// most 10^12 placements (working memory is about half a byte per placement),
    /// and its class numbers fit 32 bits.
    pub fn buildable(self, board: &Board) -> bool {
        self.us >= 1
            && self.them >= 1
            && self.stones() <= board.points()
            && self.placements(board) <= MAX_PLACEMENTS
            && binom(board.points(), self.us as usize) <= u32::MAX as u64
    }
    /// Every signature with 2..=max stones, each side at least one, fewest stones first.
    pub fn all_up_to(max: usize) -> Vec<Signature> {
        let mut v = Vec::new();
        for total in 2..=max {
            for us in 1..total {
                v.push(Signature::new(us as u8, (total - us) as u8));
            }
        }
        v
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.us, self.them)
    }
}

impl FromStr for Signature {
    type Err = SignatureError;
    fn from_str(s: &str) -> Result<Signature, SignatureError> {
        let err = || SignatureError(s.to_string());
        let (a, b) = s.split_once('v').ok_or_else(err)?;
        let a: u8 = a.parse().map_err(|_| err())?;
        let b: u8 = b.parse().map_err(|_| err())?;
        if a == 0 || b == 0 {
            return Err(err());
        }
        Ok(Signature::new(a, b))
    }
}

/// Rank and unrank of symmetry-reduced positions of one signature on one board.
///
/// ```
/// use fanotb::{Board, internals::Indexer};
/// let board = Board::get(3, 3)?;
/// let ix = Indexer::new(board, "1v1".parse()?);
/// // The 72 placements of one stone against one, fewer entries up to symmetry.
/// assert!(ix.size() < 72);
/// let (us, them) = ix.unrank(0);
/// assert_eq!(ix.index(us, them), 0);
/// // A position and its mirror image share their entry.
/// let at = |p: &str| board.parse_point(p).map(|p| 1u64 << p);
/// assert_eq!(ix.index(at("a1")?, at("b2")?), ix.index(at("c1")?, at("b2")?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Indexer {
    board: &'static Board,
    sig: Signature,
    /// C(n - N, M): placements of `them` for one placement of `us`.
    per_class: u64,
    /// Which sets of `us` are representatives, and their classes.
    classes: ClassMap,
    /// The representative set of each class, in rank order (built by `new`; a
    /// mapped indexer selects it from `classes`).
    class_rep: Vec<u64>,
}

/// Shows the board, the signature and the table size, not the class tables.
impl fmt::Debug for Indexer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Indexer")
            .field("board", &self.board)
            .field("sig", &self.sig)
            .field("classes", &self.classes.classes())
            .field("per_class", &self.per_class)
            .finish()
    }
}

impl Indexer {
    /// Builds the class tables of `sig` on `board` by enumerating every set of `us`
    /// stones (1.5 bits per set, and 8 bytes per class for walks and unranks).
    ///
    /// # Panics
    ///
    /// If the signature has more stones than the board has points.
    pub fn new(board: &'static Board, sig: Signature) -> Indexer {
        let (k, m) = (sig.us as usize, sig.them as usize);
        assert!(
            k + m <= board.points(),
            "signature {sig} does not fit on {board:?}"
        );
        let mut class_rep = Vec::new();
        let classes = ClassMap::build(board, k, Some(&mut class_rep));
        Indexer {
            board,
            sig,
            per_class: binom(board.points() - k, m),
            classes,
            class_rep,
        }
    }

    /// The indexer of a table whose class sidecar is at `classes`: the sidecar
    /// mapped when it is sound (nothing enumerated, nothing on the heap), else built.
    /// Unranks then select each class's set from the map.
    pub(crate) fn for_table(board: &'static Board, sig: Signature, classes: &Path) -> Indexer {
        let (k, m) = (sig.us as usize, sig.them as usize);
        match ClassMap::open(classes, board, k) {
            Some(classes) => Indexer {
                board,
                sig,
                per_class: binom(board.points() - k, m),
                classes,
                class_rep: Vec::new(),
            },
            None => Indexer::new(board, sig),
        }
    }

    /// Whether a mapped class sidecar is the table enumeration gives (true for a
    /// built one): `fanotb verify` checks it, as it checks the table's entries.
    pub(crate) fn classes_sound(&self) -> bool {
        !self.has_class_sidecar()
            || self
                .classes
                .is_built_table(self.board, self.sig.us as usize)
    }

    /// Whether the class table is mapped from a sidecar.
    pub(crate) fn has_class_sidecar(&self) -> bool {
        self.classes.is_mapped()
    }

    /// Writes the class sidecar to `path` (`NvM.classes` beside its table).
    pub(crate) fn write_classes(&self, path: &Path) -> std::io::Result<()> {
        self.classes.write(path)
    }

    /// The board indexed.
    pub fn board(&self) -> &'static Board {
        self.board
    }
    /// The signature indexed.
    pub fn signature(&self) -> Signature {
        self.sig
    }
    /// Number of table entries.
    pub fn size(&self) -> u64 {
        self.classes.classes() * self.per_class
    }

    /// The class of a representative set; the class count (past the last class) for
    /// any other set, which only a damaged class sidecar gives: the read is then
    /// refused as out of the table.
    #[inline]
    fn class_of(&self, rep: u64) -> u64 {
        self.classes
            .class(rank_set(rep))
            .unwrap_or(self.classes.classes())
    }

    /// The table index of a position (its symmetry class).
    ///
    /// Ranks follow colex order, which is the numeric order of the bitboards, so the
    /// representative is found by comparing bitboards and ranked once.
    #[inline]
    pub fn index(&self, us: u64, them: u64) -> u64 {
        let syms = self.board.symmetries();
        let mut best = (us, them);
        for g in &syms[1..] {
            let u = g.apply(us);
            if u < best.0 {
                best = (u, g.apply(them));
            } else if u == best.0 {
                best.1 = best.1.min(g.apply(them));
            }
        }
        self.class_of(best.0) * self.per_class + rank_in(best.1, best.0)
    }

    /// `index` from the images of the two sets (`Board::images`): the least pair of
    /// images, compared as `index` compares them.
    #[inline]
    pub(crate) fn index_images(&self, us: &Images, them: &Images) -> u64 {
        fn least(us: &[u64], them: &[u64]) -> (u64, u64) {
            us.iter()
                .zip(them)
                .fold((u64::MAX, 0), |best, (&u, &t)| best.min((u, t)))
        }
        // A rectangle has four symmetries: its last four slots are zero.
        // Slices of fixed length, so that either fold unrolls.
        let (u, t) = if self.board.symmetries().len() <= 4 {
            least(&us.0[..4], &them.0[..4])
        } else {
            least(&us.0, &them.0)
        };
        self.class_of(u) * self.per_class + rank_in(t, u)
    }

    /// Fixes the side to move's stones, so that the indexes of many positions sharing
    /// them (all the paika successors of one position) cost one canonicalisation.
    #[inline]
    pub fn with_us(&self, us: u64) -> FixedUs<'_> {
        let syms = self.board.symmetries();
        let mut best = u64::MAX;
        let mut which = 0u8;
        for (k, g) in syms.iter().enumerate() {
            let u = g.apply(us);
            if u < best {
                best = u;
                which = 1 << k;
            } else if u == best {
                which |= 1 << k;
            }
        }
        FixedUs {
            indexer: self,
            us: best,
            base: self.class_of(best) * self.per_class,
            which,
        }
    }

    /// The position stored at an index: `(us, them)`.
    #[inline]
    pub fn unrank(&self, index: u64) -> (u64, u64) {
        let (class, rest) = (index / self.per_class, index % self.per_class);
        let n = self.board.points();
        let us = self.class_set(class);
        let them = unrank_in(rest, self.sig.them as usize, us, n);
        (us, them)
    }

    /// The position stored at `index + by`, from `(us, them)` stored at `index`: `by`
    /// steps in colex order when they stay in the class and `by` is small, which costs
    /// less than an unrank's scans for near entries (a level's entries in one block).
    #[inline]
    pub fn advance(&self, index: u64, (us, them): (u64, u64), by: u64) -> (u64, u64) {
        if by <= 16 && index % self.per_class + by < self.per_class {
            let mut packed = compact(them, !us);
            for _ in 0..by {
                packed = next_colex(packed);
            }
            (us, spread(packed, !us))
        } else {
            self.unrank(index + by)
        }
    }

    /// Calls `f(index, us, them)` for the entries `first..first + count` in order,
    /// stepping from one placement to the next instead of unranking each.
    #[inline]
    pub fn walk(&self, first: u64, count: u64, mut f: impl FnMut(u64, u64, u64)) {
        let end = (first + count).min(self.size());
        if first >= end {
            return;
        }
        let (mut us, _) = self.unrank(first);
        let n = self.board.points();
        let free = n - self.sig.us as usize;
        let mut rest = first % self.per_class;
        let mut packed = unrank_set(rest, self.sig.them as usize, free);
        for index in first..end {
            f(index, us, spread(packed, !us));
            rest += 1;
            if rest == self.per_class {
                rest = 0;
                if index + 1 < end {
                    us = self.class_set((index + 1) / self.per_class);
                }
                packed = (1u64 << self.sig.them) - 1;
            } else {
                packed = next_colex(packed);
            }
        }
    }

    /// `us` of every entry in class `class` (entries `class*per_class ..`).
    pub fn class_set(&self, class: u64) -> u64 {
        match self.class_rep.get(class as usize) {
            Some(&set) => set,
            None => unrank_set(
                self.classes.select(class),
                self.sig.us as usize,
                self.board.points(),
            ),
        }
    }

    /// Heap memory of the indexer's class tables.
    pub fn heap_bytes(&self) -> u64 {
        self.classes.heap_bytes() + self.class_rep.len() as u64 * 8
    }

    /// Entries per class.
    pub fn per_class(&self) -> u64 {
        self.per_class
    }

    /// The symmetries other than the identity that map the stones of class `class`
    /// onto themselves. When none does, every entry of the class is canonical and
    /// stands for a full orbit.
    pub fn class_symmetry(&self, class: u64) -> ClassSymmetry {
        let us = self.class_set(class);
        let fixing = self.board.symmetries()[1..]
            .iter()
            .enumerate()
            .filter(|(_, g)| g.apply(us) == us)
            .fold(0u8, |m, (k, _)| m | 1 << (k + 1));
        ClassSymmetry {
            board: self.board,
            fixing,
        }
    }

    /// How many distinct placements the entry stands for: its orbit size, or 0 for a
    /// redundant entry (an image of a smaller canonical entry).
    pub fn weight(&self, index: u64) -> u64 {
        let (_, them) = self.unrank(index);
        self.class_symmetry(index / self.per_class).weight(them)
    }
}

/// The symmetries that fix a class's stones (`Indexer::class_symmetry`): they tell
/// the class's canonical entries and their orbits from `them` alone.
#[derive(Clone, Copy, Debug)]
pub struct ClassSymmetry {
    board: &'static Board,
    /// Bit k: the k-th symmetry (never the identity, 0) fixes the stones.
    fixing: u8,
}

impl ClassSymmetry {
    /// Whether only the identity fixes the stones.
    #[inline]
    pub fn is_trivial(&self) -> bool {
        self.fixing == 0
    }

    /// The placements the class's entry of stones `them` opposite stands for: 0 when
    /// a fixing symmetry maps `them` lower (the entry is redundant: `index` takes the
    /// least image), else the group's size over the symmetries fixing `them` too.
    #[inline]
    pub fn weight(&self, them: u64) -> u64 {
        let syms = self.board.symmetries();
        let mut fixed = 1;
        for k in bits(self.fixing as u64) {
            let image = syms[k as usize].apply(them);
            if image < them {
                return 0;
            }
            fixed += (image == them) as u64;
        }
        syms.len() as u64 / fixed
    }
}

/// An `Indexer` with the side to move's stones fixed (see `Indexer::with_us`).
#[derive(Debug)]
pub struct FixedUs<'a> {
    indexer: &'a Indexer,
    /// The representative of the stones.
    us: u64,
    base: u64,
    /// The symmetries that map the stones to their representative (bit k: k-th).
    which: u8,
}

impl FixedUs<'_> {
    /// The index of the position with these stones to move and `them` opposite.
    #[inline]
    pub fn index(&self, them: u64) -> u64 {
        let syms = self.indexer.board.symmetries();
        let t = if self.which == 1 {
            them
        } else {
            bits(self.which as u64)
                .map(|k| syms[k as usize].apply(them))
                .min()
                .expect("at least one symmetry maps to the representative")
        };
        self.base + rank_in(t, self.us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The index from the sets' images is the index from the sets, on two
        /// rectangles and a square (up to three stones to move, for quick class
        /// tables).
        #[test]
        fn the_index_from_images_is_the_index(
            picks in proptest::collection::vec(any::<u8>(), 2..8),
            cut: usize,
        ) {
            for board in [Board::tsivy(), Board::get(5, 5).unwrap(), Board::get(7, 3).unwrap()] {
                let n = board.points() as u8;
                let mut points = Vec::new();
                for p in picks.iter().map(|p| p % n) {
                    if !points.contains(&p) {
                        points.push(p);
                    }
                }
                prop_assume!(points.len() >= 2);
                let k = 1 + cut % (points.len() - 1).min(3);
                let set = |ps: &[u8]| ps.iter().fold(0u64, |s, &p| s | 1 << p);
                let (us, them) = (set(&points[..k]), set(&points[k..]));
                let idx = Indexer::new(board, Signature::of(us, them));
                let images = idx.index_images(&board.images(us), &board.images(them));
                prop_assert_eq!(images, idx.index(us, them), "{:?}", board);
            }
        }

        #[test]
        fn compact_and_spread_match_the_bitwise_reference(set: u64, mask: u64) {
            let packed = compact(set, mask);
            prop_assert_eq!(packed, compact_portable(set, mask));
            prop_assert_eq!(spread(packed, mask), spread_portable(packed, mask));
            prop_assert_eq!(spread(packed, mask), set & mask);
        }

        /// The generator's counter takes stones that no symmetry but the identity
        /// fixes to give different stones opposite different indices: checked on the
        /// indices of every one-stone change of `them`.
        #[test]
        fn injective_stones_give_every_opposite_set_its_own_index(
            points in proptest::sample::subsequence(
                bits(crate::rules::board::Board::tsivy().all()).collect::<Vec<u8>>(),
                5,
            )
            .prop_shuffle(),
        ) {
            let board = crate::rules::board::Board::tsivy();
            let idx = Indexer::new(board, Signature::new(2, 3));
            let all = board.all();
            let set = |ps: &[u8]| ps.iter().fold(0u64, |s, &p| s | 1 << p);
            let (us, them) = (set(&points[..2]), set(&points[2..]));
            let fixed = idx.with_us(us);
            // Move one stone of `them` to each empty point: all different sets.
            let empty = all & !(us | them);
            let mut seen: Vec<u64> = bits(them)
                .flat_map(|p| bits(empty).map(move |q| them ^ (1 << p) ^ (1 << q)))
                .map(|t| fixed.index(t))
                .collect();
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            if !board.is_fixed_by_a_symmetry(us) {
                prop_assert_eq!(seen.len(), n);
            }
        }
    }
}
