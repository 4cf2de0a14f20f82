//! The build plan: which pairs a build needs, in which order, and what it will
//! cost (time, memory, disk), estimated from the signatures alone.

use std::collections::BTreeSet;
use std::path::Path;

use crate::index::Signature;
use crate::rules::board::Board;
use crate::table::{TableFile, TableKind, table_path};

use super::checkpoint;
use super::options::{BuildPlan, GenerateError, TableReport};
use super::pair::{DEEP, members, memory_bound, writes_deep_early};
use super::smaller::capture_deps;
use crate::table::Table;
use crate::table::depths::{histogram, read_sidecar};

/// Every signature pair of `kind` needed for `targets`, in build order: fewest
/// stones first, and among pairs of as many stones, the targets in the order given.
/// Each pair is named by its smaller-first member. (The plain tables a vela build
/// reads are another build's: `plain_needs`.)
pub fn build_plan(board: &'static Board, kind: TableKind, targets: &[Signature]) -> Vec<Signature> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Signature> = targets.to_vec();
    while let Some(s) = stack.pop() {
        let key = pair_key(s);
        if seen.insert(key) {
            for t in [key, key.flipped()] {
                stack.extend(
                    capture_deps(board, kind, t)
                        .filter(|&(_, k)| k == kind)
                        .map(|(d, _)| d),
                );
            }
        }
    }
    let mut v: Vec<Signature> = seen.into_iter().collect();
    let asked = |k: Signature| targets.iter().position(|&t| pair_key(t) == k);
    v.sort_by_key(|&s| (s.stones(), asked(s).unwrap_or(usize::MAX), s));
    v
}

pub(super) fn pair_key(s: Signature) -> Signature {
    if s.us <= s.them { s } else { s.flipped() }
}

/// The plain tables a build of `kind` for `targets` reads, built before it: the
/// targets themselves for rule-aware tables (checked against them), where a vela
/// build's captures end the vela, none for a plain build.
pub(super) fn plain_needs(
    board: &'static Board,
    kind: TableKind,
    targets: &[Signature],
) -> Vec<Signature> {
    match kind {
        TableKind::Plain => Vec::new(),
        TableKind::Limit(_) => targets.to_vec(),
        TableKind::Vela => {
            let needs: BTreeSet<Signature> = build_plan(board, kind, targets)
                .into_iter()
                .flat_map(|key| [key, key.flipped()])
                .flat_map(|t| capture_deps(board, kind, t))
                .filter(|&(_, k)| k == TableKind::Plain)
                .map(|(d, _)| d)
                .collect();
            needs.into_iter().collect()
        }
    }
}

/// Estimates a build of `targets` into `dir` (tables complete there are not counted),
/// of the rule-aware tables of `limit` or the plain ones.
///
/// # Errors
/// As `generate`, for a signature it would refuse.
pub fn plan_build(
    dir: &Path,
    board: &'static Board,
    targets: &[Signature],
    kind: TableKind,
) -> Result<BuildPlan, GenerateError> {
    let group = board.symmetries().len() as u64;
    // Entries run a little above placements over the group (symmetric classes).
    let entries = |s: Signature| s.placements(board).div_ceil(group) * 33 / 32;
    let indexer = |s: Signature| 6 * crate::index::binom(board.points(), s.us as usize);
    let mut plan = BuildPlan {
        pairs: Vec::new(),
        positions: 0,
        peak_bytes: 0,
        disk_bytes: 0,
        checkpoint_bytes: 0,
        thread_seconds: 0.0,
    };
    for key in build_plan(board, kind, targets) {
        let sigs = members(key);
        let complete = sigs
            .iter()
            .all(|&s| TableFile::open(&table_path(dir, board, kind, s), board, kind, s).is_ok());
        if complete {
            continue;
        }
        for &s in &sigs {
            if !s.buildable(board) {
                return Err(GenerateError::TooLarge {
                    sig: s,
                    placements: s.placements(board),
                    board: board.size_name(),
                });
            }
        }
        let deps: BTreeSet<(Signature, TableKind)> = sigs
            .iter()
            .flat_map(|&s| capture_deps(board, kind, s))
            .collect();
        let dep_bytes = deps.iter().map(|&(d, _)| 2 * entries(d) + indexer(d)).sum();
        // Deep bytes beside the smaller tables unless their sidecars rule them out
        // (a checkpoint may hold them too).
        let deep_early = checkpoint::path(dir, board, kind, key).exists()
            || !deps.iter().all(|&(d, k)| shallow(dir, board, k, d, DEEP));
        let sizes: Vec<u64> = sigs.iter().map(|&s| entries(s)).collect();
        let indexers = sigs.iter().map(|&s| indexer(s)).sum();
        let limited = kind.limit().is_some();
        let bytes = memory_bound(&sizes, indexers, dep_bytes, limited, deep_early);
        let positions: u64 = sigs.iter().map(|&s| s.placements(board)).sum();
        plan.pairs.push(key);
        plan.positions += positions;
        plan.peak_bytes = plan.peak_bytes.max(bytes);
        // A state byte and at most a deep byte an entry, in the file and its
        // replacement.
        let codes: u64 = 2 * sizes.iter().sum::<u64>();
        plan.checkpoint_bytes = plan.checkpoint_bytes.max(2 * codes);
        plan.disk_bytes += positions * 11 / 80;
        plan.thread_seconds += positions as f64 / 5e6;
    }
    Ok(plan)
}

/// Whether a smaller table is on disk with a sound depth sidecar whose codes make
/// stage 1 write no deep byte (from code `deep` on). Not when that is unknown (not
/// built yet, no sidecar): decoding the table to find out is more than a plan
/// should cost.
fn shallow(dir: &Path, board: &'static Board, kind: TableKind, sig: Signature, deep: u16) -> bool {
    let Ok(t) = TableFile::open(&table_path(dir, board, kind, sig), board, kind, sig) else {
        return false;
    };
    let h = read_sidecar(
        t.path(),
        board,
        sig,
        kind,
        t.file_checksum(),
        &t.header().stats,
    );
    h.is_some_and(|h| !writes_deep_early(deep, h.max_code(kind.limit())))
}

/// A complete, valid table already on disk (checksums verified), with its depth
/// sidecar (written now if a build from before sidecars, or one interrupted
/// between the table and its sidecar, left none).
fn existing(
    dir: &Path,
    board: &'static Board,
    kind: TableKind,
    sig: Signature,
) -> Option<TableFile> {
    let t = Table::open(dir, board, kind, sig).ok()?;
    t.file.verify_checksums().ok()?;
    histogram(&t, board, kind, true).ok()?;
    if !t.idx.has_class_sidecar() {
        // Best effort, as the depth sidecar: the table is whole without it.
        let _ = super::write_classes(&t.idx, t.file.path());
    }
    Some(t.file)
}

/// The reports of a pair whose tables are complete and valid on disk (with their
/// depth sidecars), or `None` when it is to build.
pub(crate) fn skipped_reports(
    dir: &Path,
    board: &'static Board,
    kind: TableKind,
    key: Signature,
) -> Option<Vec<TableReport>> {
    let done: Vec<TableFile> = members(key)
        .iter()
        .map(|&s| existing(dir, board, kind, s))
        .collect::<Option<_>>()?;
    // A checkpoint left by a run killed after writing both tables.
    checkpoint::remove(dir, board, kind, key);
    Some(
        done.into_iter()
            .map(|t| TableReport {
                sig: t.header().sig,
                kind,
                path: t.path().into(),
                entries: t.header().entries,
                stats: t.header().stats,
                file_bytes: t.file_size(),
                seconds: 0.0,
                peak_rss: None,
                skipped: true,
                resumed_at_depth: None,
                memory_bound: 0,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retro::{Options, generate};
    use crate::rules::limit::Limit;
    use crate::table::BLESSED;

    /// The plan's reading of a sidecar says what the generator's test of the decoded
    /// codes says, at every threshold up to past the deepest code, plain and
    /// rule-aware; without the sidecar, nothing is known.
    #[test]
    fn a_sidecar_tells_what_the_decoded_codes_tell() {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::get(5, 3).unwrap();
        let sigs = Signature::all_up_to(4);
        for kind in [TableKind::Plain, TableKind::Limit(Limit::new(60).unwrap())] {
            let opts = Options {
                kind,
                ..Options::default()
            };
            generate(dir.path(), board, &sigs, &opts, |_| {}).unwrap();
            for &sig in &sigs {
                let table = Table::open(dir.path(), board, kind, sig).unwrap();
                let codes = table.file.read_all().unwrap();
                let max = codes.iter().filter(|&&c| c < BLESSED).max().copied();
                for deep in 0..=max.unwrap_or(0) + 2 {
                    let deep_early = codes.iter().any(|&c| writes_deep_early(deep, c));
                    let known = shallow(dir.path(), board, kind, sig, deep);
                    assert_eq!(known, !deep_early, "{kind:?} {sig} from {deep}");
                }
            }
        }
        let sig = sigs[0];
        let path = table_path(dir.path(), board, TableKind::Plain, sig);
        assert!(shallow(dir.path(), board, TableKind::Plain, sig, u16::MAX));
        std::fs::remove_file(crate::table::layout::depths_path(&path)).unwrap();
        assert!(!shallow(dir.path(), board, TableKind::Plain, sig, u16::MAX));
    }
}
