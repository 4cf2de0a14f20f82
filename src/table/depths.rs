//! Depth histograms: how many placements of a table are won or lost at each depth.
//! The generator writes one beside each table, as a small text sidecar
//! (`NvM.depths`, docs/FORMAT.md) bound to the table by its whole-file checksum, so
//! that charts and statistics read a few hundred bytes instead of decompressing the
//! table; a missing, stale or damaged sidecar is never trusted: the table is
//! scanned instead.

use std::fmt::Write as _;
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use crate::index::{Indexer, Signature};
use crate::rules::board::Board;
use crate::rules::limit::{Limit, Limited};
use crate::rules::value::{Outcome, Wdl};
use crate::table::layout::depths_path;
use crate::table::{
    BLESSED, Codes, Stats, Table, TableError, TableKind, code_depth, code_limited, fold_weighted,
    limited_code, outcome_code,
};

/// Placements by depth, each entry weighted by its symmetry orbit as the header's
/// counts are. `wins[d]` are won in d plies and `losses[d]` lost in d plies; in a
/// rule-aware table d is T, the plies to the next capture (docs/FORMAT.md).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DepthHistogram {
    /// Won placements by depth.
    pub wins: Vec<u64>,
    /// Lost placements by depth.
    pub losses: Vec<u64>,
}

impl DepthHistogram {
    /// Counts a decoded table.
    pub(crate) fn count(
        side: &Indexer,
        codes: &(impl Codes + ?Sized),
        limit: Option<Limit>,
    ) -> DepthHistogram {
        DepthHistogram::count_slice(side, 0, codes, limit)
    }

    /// Counts the entries from `first` on (a class boundary); `merge` the slices.
    pub(crate) fn count_slice(
        side: &Indexer,
        first: u64,
        codes: &(impl Codes + ?Sized),
        limit: Option<Limit>,
    ) -> DepthHistogram {
        fold_weighted(
            side,
            first,
            codes,
            DepthHistogram::default,
            |h, _, w, code| h.add(w, code, limit),
            DepthHistogram::merge,
        )
    }

    /// The header's raw counts (`Stats::count_slice`) and the histogram of the
    /// entries from `first` on, in one pass over them.
    pub(crate) fn count_slice_with_stats(
        side: &Indexer,
        first: u64,
        codes: &(impl Codes + ?Sized),
        limit: Option<Limit>,
    ) -> (Stats, DepthHistogram) {
        fold_weighted(
            side,
            first,
            codes,
            Default::default,
            |(s, h): &mut (Stats, DepthHistogram), index, w, code| {
                s.add(index, w, code);
                h.add(w, code, limit);
            },
            |(s, h), (later_s, later_h)| (Stats::merge(s, later_s), h.merge(later_h)),
        )
    }

    /// Counts an entry of weight `w` and code `code`.
    #[inline]
    fn add(&mut self, w: u64, code: u16, limit: Option<Limit>) {
        let depth = match limit {
            None => code_depth(code),
            Some(_) => code_limited(code).plies_to_capture(),
        };
        let (Some(d), true) = (depth, w > 0) else {
            return;
        };
        let counts = match crate::table::code_wdl(code) {
            Wdl::Win => &mut self.wins,
            Wdl::Loss => &mut self.losses,
            Wdl::Draw => return,
        };
        bump(counts, d as usize, w);
    }

    pub(crate) fn merge(mut self, other: DepthHistogram) -> DepthHistogram {
        for (mine, theirs) in [
            (&mut self.wins, other.wins),
            (&mut self.losses, other.losses),
        ] {
            for (d, n) in theirs.into_iter().enumerate() {
                bump(mine, d, n);
            }
        }
        self
    }

    /// The deepest depth with a win or a loss (0 for none).
    pub fn max_depth(&self) -> usize {
        self.wins.len().max(self.losses.len()).saturating_sub(1)
    }

    /// The largest code of a decided entry counted (0 for none), in a table of
    /// `limit`: the inverse of `add`, so that a sidecar tells how deep the table's
    /// codes go without decoding it. A depth beyond the codes' range (only a crafted
    /// sidecar holds one) gives the deepest decided code.
    pub(crate) fn max_code(&self, limit: Option<Limit>) -> u16 {
        let deepest = |v: &[u64]| v.iter().rposition(|&n| n > 0);
        // Depths that still fit a `u16` code, which then stops below `BLESSED`.
        let top = match limit {
            None => BLESSED - 2,
            Some(_) => (BLESSED - 2) / 2,
        } as usize;
        let code = |d: usize, win: bool| {
            let d = d.min(top) as u32;
            let code = match (limit, win) {
                (None, true) => outcome_code(Outcome::Win(d)),
                (None, false) => outcome_code(Outcome::Loss(d)),
                (Some(_), true) => limited_code(Limited::Win(d)),
                (Some(_), false) => limited_code(Limited::Loss(d)),
            };
            code.min(BLESSED - 1)
        };
        let wins = deepest(&self.wins).map_or(0, |d| code(d, true));
        let losses = deepest(&self.losses).map_or(0, |d| code(d, false));
        wins.max(losses)
    }

    /// Whether the counts add up to the header's wins and losses.
    fn matches(&self, stats: &Stats) -> bool {
        let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &n| a.checked_add(n));
        sum(&self.wins) == Some(stats.wins) && sum(&self.losses) == Some(stats.losses)
    }
}

fn bump(counts: &mut Vec<u64>, d: usize, n: u64) {
    if n == 0 {
        return;
    }
    if counts.len() <= d {
        counts.resize(d + 1, 0);
    }
    counts[d] += n;
}

/// A table's depth histogram: from its sidecar when that is sound, else by decoding
/// the table (and then, with `repair`, writing the sidecar).
pub(crate) fn histogram(
    table: &Table,
    board: &Board,
    kind: TableKind,
    repair: bool,
) -> Result<DepthHistogram, TableError> {
    let (path, header) = (table.file.path(), table.file.header());
    let checksum = table.file.file_checksum();
    if let Some(h) = read_sidecar(path, board, header.sig, kind, checksum, &header.stats) {
        return Ok(h);
    }
    let h = DepthHistogram::count(&table.idx, &table.file.read_all()?[..], kind.limit());
    if repair {
        write_sidecar(path, board, header.sig, kind, checksum, &h)?;
    }
    Ok(h)
}

const MAGIC: &str = "fanotb depths 1";
/// Larger than any honest sidecar (depths are below 65,536).
const MAX_SIDECAR: u64 = 4 << 20;

/// The line naming the table a sidecar belongs to.
fn table_line(board: &Board, sig: Signature, kind: TableKind, checksum: u64) -> String {
    let rules = kind.dir_name().unwrap_or_else(|| "plain".into());
    format!("table {} {sig} {rules} {checksum:016x}", board.size_name())
}

/// The sidecar's text: magic, the table it belongs to, one `depth wins losses` line
/// per depth, and the xxh3 of everything above it.
fn render(
    board: &Board,
    sig: Signature,
    kind: TableKind,
    checksum: u64,
    h: &DepthHistogram,
) -> String {
    let mut s = format!(
        "{MAGIC}\n{}\ndepth wins losses\n",
        table_line(board, sig, kind, checksum)
    );
    for d in 0..=h.max_depth() {
        let get = |v: &[u64]| v.get(d).copied().unwrap_or(0);
        writeln!(s, "{d} {} {}", get(&h.wins), get(&h.losses)).expect("writes to a String");
    }
    let sum = xxh3_64(s.as_bytes());
    writeln!(s, "xxh3 {sum:016x}").expect("writes to a String");
    s
}

/// Writes the sidecar of a table atomically.
pub(crate) fn write_sidecar(
    table: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    checksum: u64,
    h: &DepthHistogram,
) -> Result<(), TableError> {
    let path = depths_path(table);
    let text = render(board, sig, kind, checksum, h);
    crate::files::durable::replace_file(&path, |f| std::io::Write::write_all(f, text.as_bytes()))
        .map_err(|source| TableError::Io {
            path: path.clone(),
            source,
        })
}

/// The histogram a sidecar holds, if it is whole, belongs to this very table (its
/// checksum) and adds up to the header's counts; `None` otherwise.
pub(crate) fn read_sidecar(
    table: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    checksum: u64,
    stats: &Stats,
) -> Option<DepthHistogram> {
    let path = depths_path(table);
    let text = crate::files::read::read_text_bounded(&path, MAX_SIDECAR).ok()?;
    let (body, last) = text.strip_suffix('\n')?.rsplit_once('\n')?;
    let body = &text[..body.len() + 1];
    let sum = u64::from_str_radix(last.strip_prefix("xxh3 ")?, 16).ok()?;
    if sum != xxh3_64(body.as_bytes()) {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != MAGIC
        || lines.next()? != table_line(board, sig, kind, checksum)
        || lines.next()? != "depth wins losses"
    {
        return None;
    }
    let mut h = DepthHistogram::default();
    for (d, line) in lines.enumerate() {
        let mut f = line.split(' ');
        let mut num = || f.next()?.parse::<u64>().ok();
        let (depth, wins, losses) = (num()?, num()?, num()?);
        if depth != d as u64 || f.next().is_some() {
            return None;
        }
        bump(&mut h.wins, d, wins);
        bump(&mut h.losses, d, losses);
    }
    h.matches(stats).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_code_gives_back_the_deepest_code_counted() {
        for limit in [None, Some(Limit::new(60).unwrap())] {
            let codes = (0..2_000).chain(0xfff0..=u16::MAX);
            let mut all = DepthHistogram::default();
            let mut deepest = 0;
            for code in codes {
                let mut h = DepthHistogram::default();
                h.add(1, code, limit);
                let decided = code != 0 && code < BLESSED;
                assert_eq!(h.max_code(limit), if decided { code } else { 0 }, "{code}");
                all = all.merge(h);
                deepest = deepest.max(if decided { code } else { 0 });
                assert_eq!(all.max_code(limit), deepest, "{code} {limit:?}");
            }
        }
        assert_eq!(DepthHistogram::default().max_code(None), 0);
        // A crafted sidecar's depth beyond the codes: the deepest decided code, never
        // one that wraps round to a shallow one or reads as a draw.
        let far = |d: usize| DepthHistogram {
            wins: (0..=d).map(|i| u64::from(i == d)).collect(),
            losses: Vec::new(),
        };
        assert_eq!(far(65_532).max_code(None), BLESSED - 1);
        assert_eq!(far(70_000).max_code(None), BLESSED - 1);
        let limit = Some(Limit::new(60).unwrap());
        assert_eq!(far(32_765).max_code(limit), BLESSED - 2);
        assert_eq!(far(32_766).max_code(limit), BLESSED - 1);
        assert_eq!(far(40_000).max_code(limit), BLESSED - 1);
    }

    #[test]
    fn a_sidecar_reads_back_only_for_its_own_table() {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("2v1.fntb");
        let board = Board::get(5, 3).unwrap();
        let sig: Signature = "2v1".parse().unwrap();
        let h = DepthHistogram {
            wins: vec![0, 5, 0, 7],
            losses: vec![2, 0, 4],
        };
        let stats = Stats {
            wins: 12,
            losses: 6,
            ..Stats::default()
        };
        write_sidecar(&table, board, sig, TableKind::Plain, 42, &h).unwrap();
        let read =
            |checksum, kind, stats: &Stats| read_sidecar(&table, board, sig, kind, checksum, stats);
        assert_eq!(read(42, TableKind::Plain, &stats), Some(h.clone()));
        // Another table, another limit, other counts: not trusted.
        assert_eq!(read(43, TableKind::Plain, &stats), None);
        assert_eq!(
            read(42, TableKind::Limit(Limit::new(60).unwrap()), &stats),
            None
        );
        assert_eq!(read(42, TableKind::Vela, &stats), None);
        let other = Stats { wins: 11, ..stats };
        assert_eq!(read(42, TableKind::Plain, &other), None);
        // Any changed byte: not trusted.
        let path = depths_path(&table);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("3 7 0", "3 6 1")).unwrap();
        assert_eq!(read(42, TableKind::Plain, &stats), None);
        std::fs::write(&path, &text[..text.len() - 3]).unwrap();
        assert_eq!(read(42, TableKind::Plain, &stats), None);
    }
}
