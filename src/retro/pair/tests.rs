use super::*;
use crate::index::{binom, unrank_in, unrank_set};
use crate::rules::limit::Limit;
use crate::rules::movegen::has_capture;
use proptest::prelude::*;

/// `unmoves` the plain way: every step back of `them` as a paika, kept where
/// the position before it had no capture.
fn unmoves_reference(board: &Board, us: u64, them: u64, prev: &Indexer, vela: bool) -> Vec<u64> {
    let mut out = Vec::new();
    for_each_paika(board, them, us, |before, _, _| {
        if vela || !has_capture(board, before, us) {
            out.push(prev.index(before, us));
        }
    });
    out.sort_unstable();
    out.dedup();
    out
}

proptest! {
    #[test]
    fn unmoves_match_the_plain_way(seed: u64, n_us in 1usize..5, n_them in 1usize..6, vela: bool) {
        let board = Board::tsivy();
        // Random disjoint stone sets from the seed.
        let mut rng = seed | 1;
        let mut next = || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; rng };
        let mut pick = |taken: u64, n: usize| {
            let mut set = 0u64;
            while set.count_ones() < n as u32 {
                let p = next() % board.points() as u64;
                if (taken | set) >> p & 1 == 0 {
                    set |= 1 << p;
                }
            }
            set
        };
        let us = pick(0, n_us);
        let them = pick(us, n_them);
        let prev = Indexer::new(board, Signature::new(n_them as u8, n_us as u8));
        let mut fast = Vec::new();
        unmoves(board, (us, &board.images(us)), them, &prev, vela, &mut fast);
        fast.sort_unstable();
        prop_assert_eq!(fast, unmoves_reference(board, us, them, &prev, vela));
    }
}

proptest! {
    #[test]
    fn each_equal_finds_the_bytes_a_plain_scan_finds(
        bytes in proptest::collection::vec(prop_oneof![Just(0u8), Just(0x80), Just(0x7f), any::<u8>()], 0..100),
        byte in prop_oneof![Just(0u8), Just(0x80), Just(0x7f), any::<u8>()],
    ) {
        let mut found = Vec::new();
        each_equal(&bytes, byte, |j| found.push(j));
        let plain: Vec<usize> = (0..bytes.len()).filter(|&j| bytes[j] == byte).collect();
        prop_assert_eq!(found, plain);
    }
}

proptest! {
    /// A block of codes decoded at once is the codes entry by entry, with and
    /// without deep bytes and plain values.
    #[test]
    fn a_block_of_codes_is_its_codes_one_by_one(
        low in proptest::collection::vec(0u8..REDUNDANT, 1..300),
        high: Option<u64>,
        plain: Option<u64>,
        deep in 1u16..8,
        from in 0usize..300,
        len in 0usize..300,
    ) {
        let n = low.len();
        // Deep and plain bytes from a seed: any byte is a deep byte; any packed
        // value but the invalid 3.
        let bytes = |seed: u64, k: usize| -> Vec<u8> {
            (0..k as u64).map(|i| (seed.wrapping_mul(i + 1) >> 17) as u8).collect()
        };
        let narrow = Narrow {
            low,
            high: high.map(|s| bytes(s, n)),
            deep,
            plain: plain.map(|s| bytes(s, n.div_ceil(4)).iter().map(|b| b & 0x66).collect()),
        };
        let range = from.min(n)..(from + len).min(n);
        let mut block = vec![7];
        narrow.codes_into(range.clone(), &mut block);
        let one_by_one: Vec<u16> = range.map(|i| narrow.code(i)).collect();
        prop_assert_eq!(block, one_by_one);
    }
}

/// Every position of up to two stones a side on the 5x5 board, many with stones
/// a symmetry fixes, where predecessors can share an entry.
#[test]
fn unmoves_match_the_plain_way_on_every_small_position() {
    let board = Board::get(5, 5).unwrap();
    let mut fast = Vec::new();
    let mut symmetric = 0;
    for (n_us, n_them) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
        let prev = Indexer::new(board, Signature::new(n_them, n_us));
        let (n, k, m) = (board.points(), n_us as usize, n_them as usize);
        for us in (0..binom(n, k)).map(|r| unrank_set(r, k, n)) {
            symmetric += board.is_fixed_by_a_symmetry(us) as u32;
            for them in (0..binom(n - k, m)).map(|r| unrank_in(r, m, us, n)) {
                for vela in [false, true] {
                    unmoves(board, (us, &board.images(us)), them, &prev, vela, &mut fast);
                    fast.sort_unstable();
                    assert_eq!(fast, unmoves_reference(board, us, them, &prev, vela));
                }
            }
        }
    }
    assert!(symmetric > 0);
}

/// The codes of every side of pair `key`, solved with the deep bytes from code
/// `deep` on, from the smaller tables in `dir`.
fn solve(
    dir: &Path,
    board: &'static Board,
    key: Signature,
    opts: &Options,
    deep: u16,
) -> Vec<Vec<u16>> {
    let sigs = members(key);
    let (deps, _) = load_smaller_tables(dir, board, opts.kind, &sigs).unwrap();
    let mut pair = Pair::new(board, &sigs, opts.kind);
    pair.deep = deep;
    let max_init = pair.initialise(key, &deps, opts).unwrap();
    let from = Resume { level: 0, max_init };
    pair.propagate(key, from, opts, &Alone, |_, _| Ok(()))
        .unwrap();
    pair.finish()
        .into_iter()
        .map(|(_, codes)| codes.to_vec())
        .collect()
}

#[test]
fn codes_split_into_deep_bytes_are_the_codes_held_whole() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 5).unwrap();
    let key = Signature::new(2, 3);
    for kind in [TableKind::Plain, TableKind::Limit(Limit::new(20).unwrap())] {
        let opts = Options {
            kind,
            ..Options::default()
        };
        crate::retro::generate(dir.path(), board, &Signature::all_up_to(4), &opts, |_| {}).unwrap();
        let whole = solve(dir.path(), board, key, &opts, DEEP);
        let max = whole.iter().flatten().max().copied().unwrap();
        // Deep enough that a split at 2 puts codes in both halves of the pair of
        // state bytes, with deep bytes above 0.
        assert!(max >= 8, "{kind:?}: the longest code is {max}");
        for deep in [0, 1, 2, 3] {
            assert_eq!(
                solve(dir.path(), board, key, &opts, deep),
                whole,
                "{kind:?}, {deep}"
            );
        }
    }
}
