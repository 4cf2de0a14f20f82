//! The indexer: bijective ranks, canonical forms under the board's symmetries.

use std::collections::HashSet;
use std::sync::OnceLock;

use fanotb::Board;
use fanotb::Signature;
use fanotb::internals::bits;
use fanotb::internals::{Indexer, binom, rank_in, rank_set, unrank_in, unrank_set};
use proptest::prelude::*;

/// Every k-subset of n points, by brute force.
fn subsets(n: usize, k: usize) -> Vec<u64> {
    (0u64..1 << n)
        .filter(|s| s.count_ones() as usize == k)
        .collect()
}

#[test]
fn combinatorial_ranks_are_a_bijection() {
    for n in [9, 15] {
        for k in 0..=5 {
            let mut seen = vec![false; binom(n, k) as usize];
            for s in subsets(n, k) {
                let r = rank_set(s) as usize;
                assert!(!seen[r], "rank {r} twice");
                seen[r] = true;
                assert_eq!(unrank_set(r as u64, k, n), s);
            }
            assert!(seen.iter().all(|&x| x), "gap in ranks of {k} of {n}");
        }
    }
    // Relative ranks among the free points.
    let excluded = 0b1010_0110u64;
    for s in subsets(12, 3).into_iter().filter(|s| s & excluded == 0) {
        let r = rank_in(s, excluded);
        assert!(r < binom(12 - 4, 3));
        assert_eq!(unrank_in(r, 3, excluded, 12), s);
    }
}

/// `unrank_set` the plain way: the largest element first, by a scan down.
fn unrank_reference(mut rank: u64, k: usize, n: usize) -> u64 {
    let mut set = 0;
    let mut c = n;
    for i in (1..=k).rev() {
        c -= 1;
        while binom(c, i) > rank {
            c -= 1;
        }
        rank -= binom(c, i);
        set |= 1 << c;
    }
    set
}

proptest! {
    /// Unranks on boards too large to enumerate (up to 64 points) agree with the
    /// plain scan and rank back.
    #[test]
    fn unranks_of_large_sets_match_a_plain_scan(n in 1usize..=64, k_frac in 0.0f64..=1.0, r: u64) {
        let k = (k_frac * n as f64) as usize;
        let rank = r % binom(n, k);
        let set = unrank_set(rank, k, n);
        prop_assert_eq!(set, unrank_reference(rank, k, n));
        prop_assert_eq!(set.count_ones() as usize, k);
        prop_assert_eq!(rank_set(set), rank);
    }
}

/// The orbit of a position under the board's symmetries.
fn orbit(board: &Board, us: u64, them: u64) -> HashSet<(u64, u64)> {
    board
        .symmetries()
        .iter()
        .map(|g| (g.apply(us), g.apply(them)))
        .collect()
}

#[test]
fn exhaustive_on_small_boards() {
    let cases = [
        (3, 3, 2, 2),
        (3, 3, 1, 4),
        (5, 3, 3, 2),
        (5, 5, 2, 2),
        (3, 5, 1, 3),
        (5, 5, 3, 1),
    ];
    for (w, h, a, b) in cases {
        let board = Board::get(w, h).unwrap();
        let sig = Signature::new(a, b);
        let idx = Indexer::new(board, sig);
        let n = board.points();
        let mut orbits = HashSet::new();
        let mut hit = vec![false; idx.size() as usize];
        let theirs = subsets(n, b as usize);
        for us in subsets(n, a as usize) {
            for &them in theirs.iter().filter(|&&t| t & us == 0) {
                let i = idx.index(us, them);
                assert!(i < idx.size());
                hit[i as usize] = true;
                // The entry holds a position of the same orbit.
                let o = orbit(board, us, them);
                assert!(o.contains(&idx.unrank(i)), "{w}x{h} {sig}");
                // Every image lands on the same entry.
                for &(u, t) in &o {
                    assert_eq!(idx.index(u, t), i);
                }
                orbits.insert(o.into_iter().min().unwrap());
            }
        }
        // One canonical entry per orbit; the others are redundant, never hit.
        let canonical: Vec<u64> = (0..idx.size())
            .filter(|&i| {
                let (u, t) = idx.unrank(i);
                idx.index(u, t) == i
            })
            .collect();
        assert_eq!(canonical.len(), orbits.len(), "{w}x{h} {sig}");
        assert_eq!(hit.iter().filter(|&&x| x).count(), orbits.len());
        // A canonical entry weighs its orbit, a redundant one nothing; so weights
        // count every placement once.
        for i in 0..idx.size() {
            let (u, t) = idx.unrank(i);
            let orbit_size = if idx.index(u, t) == i {
                orbit(board, u, t).len() as u64
            } else {
                0
            };
            assert_eq!(idx.weight(i), orbit_size, "{w}x{h} {sig} entry {i}");
        }
        let total: u64 = (0..idx.size()).map(|i| idx.weight(i)).sum();
        assert_eq!(total, sig.placements(board));
        // walk visits the entries in order, as unrank gives them.
        let mut seen = 0;
        idx.walk(0, idx.size(), |i, u, t| {
            assert_eq!((u, t), idx.unrank(i));
            seen += 1;
        });
        assert_eq!(seen, idx.size());
        // advance steps to the entry `by` on, within a class or across it.
        for i in 0..idx.size() {
            for by in (0..20).chain([idx.size() - 1 - i]) {
                if i + by < idx.size() {
                    assert_eq!(idx.advance(i, idx.unrank(i), by), idx.unrank(i + by));
                }
            }
        }
    }
}

#[test]
fn symmetry_groups_have_the_expected_size() {
    assert_eq!(Board::tsivy().symmetries().len(), 4);
    assert_eq!(Board::get(5, 5).unwrap().symmetries().len(), 8);
    assert_eq!(Board::get(3, 3).unwrap().symmetries().len(), 8);
    assert_eq!(Board::get(7, 3).unwrap().symmetries().len(), 4);
    // Symmetries keep strong points strong.
    for b in Board::all_supported() {
        for g in b.symmetries() {
            assert_eq!(g.apply(b.strong()), b.strong());
            assert_eq!(g.apply(b.all()), b.all());
        }
    }
}

#[test]
fn published_position_count() {
    // docs/RULES.md: every tsivy signature of 2 to 7 stones holds 6,261,651,660 placements.
    let total: u64 = Signature::all_up_to(7)
        .iter()
        .map(|s| s.placements(Board::tsivy()))
        .sum();
    assert_eq!(total, 6_261_651_660);
    assert_eq!(
        "3v5"
            .parse::<Signature>()
            .unwrap()
            .placements(Board::tsivy()),
        12_070_978_920
    );
    for bad in ["3", "0v2", "v", "3v", "axb", "3v-1"] {
        assert!(bad.parse::<Signature>().is_err(), "{bad}");
    }
}

const LARGE: [(u8, u8); 4] = [(3, 5), (4, 4), (6, 2), (2, 6)];

fn large_indexers() -> &'static [Indexer] {
    static IDX: OnceLock<Vec<Indexer>> = OnceLock::new();
    IDX.get_or_init(|| {
        LARGE
            .iter()
            .map(|&(a, b)| Indexer::new(Board::tsivy(), Signature::new(a, b)))
            .collect()
    })
}

/// A signature of LARGE and a random placement of its stones on tsivy.
fn large_placement() -> impl Strategy<Value = (usize, u64, u64)> {
    (0..LARGE.len()).prop_flat_map(|i| {
        let (a, b) = LARGE[i];
        let points: Vec<u8> = (0..45).collect();
        proptest::sample::subsequence(points, (a + b) as usize)
            .prop_shuffle()
            .prop_map(move |v| {
                let set = |ps: &[u8]| ps.iter().fold(0u64, |s, &p| s | 1 << p);
                (i, set(&v[..a as usize]), set(&v[a as usize..]))
            })
    })
}

proptest! {
    #[test]
    fn large_signatures_round_trip((i, us, them) in large_placement()) {
        let board = Board::tsivy();
        let idx = &large_indexers()[i];
        let e = idx.index(us, them);
        prop_assert!(e < idx.size());
        let back = idx.unrank(e);
        prop_assert!(orbit(board, us, them).contains(&back));
        prop_assert_eq!(idx.index(back.0, back.1), e);
        for g in board.symmetries() {
            prop_assert_eq!(idx.index(g.apply(us), g.apply(them)), e);
        }
        prop_assert_eq!(bits(back.0).count(), LARGE[i].0 as usize);
    }
}
