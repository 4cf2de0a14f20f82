//! Independent consistency check of stored tables: every entry's value and depth is
//! re-derived from its successors, found by the ordinary move generator
//! (`Position::successors`) and read back from the files. It shares no code with the
//! generator's propagation. A rule-aware table is re-derived by the rule-aware value
//! rule (`Limited::from_moves`), with each position's value without the limit read
//! from the plain table. A vela table is re-derived from the moves the rules engine
//! allows under vela (`Rules::legal_moves`).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::index::{Indexer, Signature};
use crate::probe::{ProbeError, Tablebase, Value};
use crate::retro::capture_deps;
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::limit::Limited;
use crate::rules::position::{Color, Position};
use crate::rules::value::Outcome;
use crate::rules::vela::Vela;
use crate::table::depths::{DepthHistogram, read_sidecar};
use crate::table::{Decoded, Stats, Table, TableError, TableKind, code_limited, table_path};

/// The result of verifying one table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct VerifyReport {
    /// The table's board.
    pub board: &'static Board,
    /// Its signature.
    pub sig: Signature,
    /// The game it values.
    pub kind: TableKind,
    /// Its file.
    pub path: PathBuf,
    /// Entries re-derived: every entry, or the sample taken.
    pub entries: u64,
    /// Entries whose stored code differs from the one re-derived.
    pub mismatches: u64,
    /// The first few mismatches, described.
    pub examples: Vec<String>,
    /// How the header's statistics differ from the counts of the decoded entries,
    /// if they do (checked by full verification only).
    pub stats_error: Option<String>,
}

/// Verifies the tables in `tb`'s directory, of every kind (those of `only`'s
/// signatures, or all when it is empty): checksums first, then consistency of every
/// entry, or of `sample` entries per table through the probe API (`verify_sample`).
pub fn verify(
    tb: &Tablebase,
    only: &[Signature],
    sample: Option<u64>,
    mut each: impl FnMut(&VerifyReport),
) -> Result<Vec<VerifyReport>, ProbeError> {
    let mut out = Vec::new();
    for (board, kind, sig, _) in tb.list()? {
        if !only.is_empty() && !only.contains(&sig) {
            continue;
        }
        let table = Table::open(tb.dir(), board, kind, sig)?;
        table.file.verify_checksums()?;
        if !table.idx.classes_sound() {
            return Err(TableError::Corrupt {
                path: crate::table::layout::classes_path(table.file.path()),
                what: "a class sidecar that is not the class table of its signature".into(),
            }
            .into());
        }
        let r = match sample {
            Some(n) => verify_sample(tb, board, kind, sig, n)?,
            None => verify_table(tb.dir(), board, kind, sig)?,
        };
        each(&r);
        out.push(r);
    }
    Ok(out)
}

/// Re-derives `samples` entries of one table (every entry if it has no more),
/// chosen by hashing 0, 1, 2 ..., from their successors' values read through
/// `Tablebase` (memory-mapped files, block by block). It decodes no table, so it
/// serves the 8-stone tables that `verify_table` would have to decode whole with all
/// their successors (about 13 GB for 3v5).
fn verify_sample(
    tb: &Tablebase,
    board: &'static Board,
    kind: TableKind,
    sig: Signature,
    samples: u64,
) -> Result<VerifyReport, ProbeError> {
    let idx = Indexer::new(board, sig);
    let size = idx.size();
    let count = samples.min(size);
    let found: Vec<String> = (0..count)
        .into_par_iter()
        .map(|k| {
            let i = if count == size {
                k
            } else {
                xxh3_64(&k.to_le_bytes()) % size
            };
            let (us, them) = idx.unrank(i);
            let pos = Position::from_sides(board, us, them, Color::White);
            let describe = |stored: &dyn Display, derived: &dyn Display| {
                describe_mismatch(i, &pos, stored, derived)
            };
            if let Some(limit) = kind.limit() {
                let stored = tb.limited(&pos, limit)?;
                let moves = tb.moves(&pos, limit.into())?;
                let plain = tb.value(&pos, Rules::PLAIN)?;
                let derived = Limited::from_moves(
                    limit,
                    moves.iter().filter_map(|m| match m.value {
                        Value::Limited { stored, .. } => Some(stored),
                        Value::Plain(_) => None,
                    }),
                    plain,
                );
                return Ok((stored != derived).then(|| describe(&stored, &derived)));
            }
            let rules = Rules::PLAIN.with_vela(vela_of(kind, &pos));
            let stored = tb.outcome(&pos, rules)?;
            // No move: lost in 0.
            let derived = match tb.moves(&pos, rules)?.first().map(|m| m.value) {
                Some(Value::Plain(o)) => o,
                _ => Outcome::Loss(0),
            };
            Ok((stored != derived).then(|| describe(&stored, &derived)))
        })
        .filter_map(Result::transpose)
        .collect::<Result<_, ProbeError>>()?;
    Ok(VerifyReport {
        board,
        sig,
        kind,
        path: table_path(tb.dir(), board, kind, sig),
        entries: count,
        mismatches: found.len() as u64,
        examples: found.into_iter().take(EXAMPLES).collect(),
        stats_error: None,
    })
}

/// How many mismatches a report describes.
const EXAMPLES: usize = 5;

fn describe_mismatch(
    i: u64,
    pos: &Position,
    stored: impl Display,
    derived: impl Display,
) -> String {
    format!("entry {i} ({pos}): stored {stored}, derived {derived}")
}

/// The vela a vela table's position (White to move) is valued under: the side above
/// the floor, having lost what it is missing.
fn vela_of(kind: TableKind, pos: &Position) -> Option<Vela> {
    (kind == TableKind::Vela).then(|| {
        let side = if kind.vela_to_move(pos.board(), Signature::of(pos.us(), pos.them())) {
            pos.turn()
        } else {
            pos.turn().other()
        };
        Vela::at(pos, side, None).expect("the missing stones are what a side lost")
    })
}

/// Re-derives every entry of one table from its successors.
pub(crate) fn verify_table(
    dir: &Path,
    board: &'static Board,
    kind: TableKind,
    sig: Signature,
) -> Result<VerifyReport, ProbeError> {
    let limit = kind.limit();
    // The table and its successors' tables: paikas keep the material (the opponent
    // to move), captures reduce the opponent's.
    let own = Table::open(dir, board, kind, sig)?;
    let stored_stats = own.file.header().stats;
    let sidecar = read_sidecar(
        own.file.path(),
        board,
        sig,
        kind,
        own.file.file_checksum(),
        &stored_stats,
    );
    let mut tables: HashMap<Signature, Decoded> = HashMap::new();
    tables.insert(sig, own.decode()?);
    let sigs = [sig, sig.flipped()]
        .into_iter()
        .map(|s| (s, kind))
        .chain(capture_deps(board, kind, sig));
    for (s, k) in sigs {
        if let Entry::Vacant(e) = tables.entry(s) {
            e.insert(Table::open(dir, board, k, s)?.decode()?);
        }
    }
    // A rule-aware table's draws are told apart by the plain values.
    let plain = match limit {
        Some(_) => Some(Table::open(dir, board, TableKind::Plain, sig)?.decode()?),
        None => None,
    };
    let own = &tables[&sig];
    let idx = &own.idx;
    let counted = Stats::count(idx, &own.codes[..], limit);
    let depths = sidecar.map(|h| (DepthHistogram::count(idx, &own.codes[..], limit), h));
    let stats_error = if counted != stored_stats {
        Some(format!(
            "header statistics {stored_stats:?}, the entries give {counted:?}"
        ))
    } else if let Some((counted, stored)) = depths.filter(|(c, s)| c != s) {
        Some(format!(
            "depth sidecar {stored:?}, the entries give {counted:?}"
        ))
    } else {
        None
    };
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    (0..idx.size()).into_par_iter().for_each(|i| {
        let (us, them) = idx.unrank(i);
        let pos = Position::from_sides(board, us, them, Color::White);
        let code = |s: &Position| tables[&Signature::of(s.us(), s.them())].code(s.us(), s.them());
        let found = match (limit, &plain) {
            (Some(limit), Some(plain)) => {
                // Captures are compulsory: all moves capture, or none.
                let capture = pos
                    .successors()
                    .iter()
                    .any(|s| s.us().count_ones() < them.count_ones());
                let moves = pos.successors().into_iter().map(|s| match s.us() {
                    0 => Limited::Win(1),
                    _ if capture => code_limited(code(&s)).after_capture(),
                    _ => code_limited(code(&s)).for_mover(),
                });
                let plain = crate::table::code_wdl(plain.code(us, them));
                let derived = Limited::from_moves(limit, moves, plain);
                let stored = own.limited(us, them);
                (stored != derived).then(|| describe_mismatch(i, &pos, stored, derived))
            }
            _ => {
                let successors = match vela_of(kind, &pos) {
                    Some(v) => {
                        let rules = Rules::PLAIN.with_vela(Some(v));
                        let mut s: Vec<Position> = rules
                            .legal_moves(&pos)
                            .iter()
                            .map(|m| pos.apply(m))
                            .collect();
                        s.sort_unstable_by_key(|p| (p.us(), p.them()));
                        s.dedup();
                        s
                    }
                    None => pos.successors(),
                };
                let derived = Outcome::from_successors(successors.iter().map(|s| {
                    if s.us() == 0 {
                        return Outcome::Loss(0);
                    }
                    tables[&Signature::of(s.us(), s.them())].outcome(s.us(), s.them())
                }));
                let stored = own.outcome(us, them);
                (derived != stored).then(|| describe_mismatch(i, &pos, stored, derived))
            }
        };
        if let Some(found) = found {
            mismatches.fetch_add(1, Relaxed);
            let mut ex = examples.lock().expect("examples lock");
            if ex.len() < EXAMPLES {
                ex.push(found);
            }
        }
    });
    let examples = examples.into_inner().expect("examples lock");
    Ok(VerifyReport {
        board,
        sig,
        kind,
        path: table_path(dir, board, kind, sig),
        entries: idx.size(),
        mismatches: mismatches.load(Relaxed),
        examples,
        stats_error,
    })
}
