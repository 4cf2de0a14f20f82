//! The proof checker: verifies a certificate (docs/PROOF.md) from the rules alone.
//!
//! It shares nothing with the search (`proof`) but the move generator and the table
//! probe: it reads the certificate, checks the tables it names by checksum, and then
//! checks every position of every proof against the definition, in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

use crate::certificate::pack::{PACK_EXTENSION, Pack};
use crate::certificate::store::LemmaDir;
use crate::certificate::{
    BlockCache, Blocked, Certificate, CertificateError, Claim, Entry, Part, Proves, position_key,
};
use crate::check::tables::verify_table;
use crate::index::Signature;
use crate::probe::{ProbeError, ValueTables};
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// What to check beyond the certificate itself.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Re-derive every entry of every table the certificate names from its
    /// successors (as `verify` does), so that the check rests on the rules alone and
    /// not on the tables' contents.
    pub verify_tables: bool,
    /// The lemma directory, where the lemmas a certificate names are found by their
    /// checksums (docs/PROOF.md, "Lemmas"); `None`: a certificate that names lemmas
    /// is refused.
    pub lemmas: Option<PathBuf>,
    /// MiB of decoded blocks a version 3 certificate's check keeps for its
    /// look-ups (`None`: `DEFAULT_CACHE_MIB`); with a block a thread, what bounds its
    /// memory.
    pub cache_mib: Option<usize>,
    /// Told after each table `verify_tables` re-derives, for progress and an
    /// estimate of the time left (the re-derivation is most of such a check).
    pub on_table: Option<OnTable>,
}

/// One table re-derived by a check with `verify_tables`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct TableVerified {
    /// The table.
    pub sig: Signature,
    /// Its place among the tables to re-derive, from 1, and their number.
    pub index: usize,
    /// How many tables there are to re-derive.
    pub count: usize,
    /// Positions of the tables re-derived so far, this one included, and of all.
    pub done_positions: u64,
    /// Positions of all the tables to re-derive.
    pub total_positions: u64,
    /// Seconds since the first table began.
    pub seconds: f64,
}

/// A callback for [`TableVerified`] events (shared, so that options stay `Clone`).
#[derive(Clone)]
pub struct OnTable(pub std::sync::Arc<dyn Fn(&TableVerified) + Send + Sync>);

impl std::fmt::Debug for OnTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnTable(..)")
    }
}

/// MiB of decoded blocks kept by default while a version 3 certificate is checked.
pub const DEFAULT_CACHE_MIB: usize = 512;

/// Why a certificate was not accepted.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CheckError {
    /// `--verify-tables`: a named table's entries do not follow from its successors.
    #[error("table {sig} is not what the rules give: {mismatches} entries differ ({example})")]
    TableWrong {
        /// The table.
        sig: Signature,
        /// Entries that differ from their re-derived values.
        mismatches: u64,
        /// The first difference.
        example: String,
    },
    /// `--verify-tables`: re-deriving a named table needs a table the certificate
    /// does not name.
    #[error("table {sig} cannot be re-derived from the named tables: it reads {missing}")]
    Unverifiable {
        /// The named table.
        sig: Signature,
        /// The table it reads that is not named.
        missing: Signature,
    },
    /// The certificate file could not be read, or is malformed.
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    /// A table the certificate names could not be loaded.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// A table's whole-file checksum differs from the one the certificate names.
    #[error(
        "table {sig} in {dir} is not the one the proof relied on: checksum {found:016x}, the certificate names {expected:016x}"
    )]
    TableMismatch {
        /// The table's material signature.
        sig: Signature,
        /// The table directory, for display.
        dir: String,
        /// Checksum of the file found.
        found: u64,
        /// Checksum the certificate names.
        expected: u64,
    },
    /// The proofs present are not the ones the claimed value needs.
    #[error("{certificate} claims {claimed} but its proofs are {found}")]
    Claims {
        /// The certificate: `the certificate`, or a lemma's file name.
        certificate: String,
        /// The claimed value and side, such as `draw for White`.
        claimed: String,
        /// The proofs present, as side and claim, or `none`.
        found: String,
    },
    /// A position of a proof fails the definition (docs/PROOF.md).
    #[error("{certificate}: proof that {side} {claim}: position {position}: {reason}")]
    Invalid {
        /// The certificate: `the certificate`, or a lemma's file name.
        certificate: String,
        /// The proof's side: `White` or `Black`.
        side: &'static str,
        /// The proof's claim: `wins` or `does not lose`.
        claim: &'static str,
        /// The first failing position, as position text.
        position: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A lemma a certificate names is not in the lemma directory, or no directory
    /// was given.
    #[error("lemma {name} ({side} {claim} at {position}) {place}")]
    LemmaMissing {
        /// The lemma's file name.
        name: String,
        /// The side it is named for.
        side: &'static str,
        /// The claim it is named for.
        claim: &'static str,
        /// Its position, as position text.
        position: String,
        /// Where it was looked for.
        place: String,
    },
    /// A lemma file is not the lemma its certificate names, or is named and not
    /// used.
    #[error("lemma {name}: {reason}")]
    LemmaWrong {
        /// The lemma's file name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A win that relies on itself through lemmas: no line of play has to end.
    #[error("lemma {name} lies on a cycle of lemmas that claim wins: a win must end")]
    LemmaCycle {
        /// A lemma on the cycle.
        name: String,
    },
}

/// What a successful check established.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckReport {
    /// The position whose value (or a lemma's claim) was proved.
    pub root: Position,
    /// What was proved.
    pub proves: Proves,
    /// Positions with at most this many stones were table leaves.
    pub max_table_stones: u8,
    /// Per proof of the certificate: side, claim, positions.
    pub parts: Vec<(Color, Claim, usize)>,
    /// Positions checked over all proofs, the lemmas' included.
    pub positions: u64,
    /// Moves followed over all proofs, the lemmas' included.
    pub moves: u64,
    /// Tables the certificate and its lemmas rely on.
    pub tables: usize,
    /// Lemmas checked (every lemma the certificate relies on, directly or through
    /// other lemmas, once each).
    pub lemmas: usize,
    /// Their file names in the lemma directory (`C.fnlemma`), in the order read.
    pub relied_on: Vec<String>,
    /// Whether every entry of those tables was re-derived (`verify_tables`).
    pub tables_verified: bool,
    /// Wall-clock time of the whole check, in seconds.
    pub seconds: f64,
}

/// The proofs a certificate needs, as (side, claim), sorted.
fn required(root: &Position, proves: Proves) -> Vec<(u8, u8)> {
    let code = |c: Color, k: Claim| (c as u8, k as u8);
    let (me, you) = (root.turn(), root.turn().other());
    let mut v = match proves {
        Proves::Value(Wdl::Win) => vec![code(me, Claim::Win)],
        Proves::Value(Wdl::Loss) => vec![code(you, Claim::Win)],
        Proves::Value(Wdl::Draw) => vec![code(me, Claim::NotLose), code(you, Claim::NotLose)],
        Proves::Lemma(side, claim) => vec![code(side, claim)],
    };
    v.sort();
    v
}

/// A certificate to check: the root's or a lemma's.
pub(super) struct Checked {
    /// `the certificate`, or the lemma's file name.
    pub(super) name: String,
    pub(super) cert: Certificate,
    /// Each of its lemmas: the index of that lemma's certificate here.
    pub(super) refs: Vec<usize>,
    /// A version 3 file's blocks, read as the check goes (then `cert` lists no
    /// positions).
    pub(super) blocked: Option<Blocked>,
}

impl Checked {
    /// Positions of proof `i`.
    fn positions(&self, i: usize) -> u64 {
        match &self.blocked {
            Some(b) => b.positions(i),
            None => self.cert.parts[i].entries.len() as u64,
        }
    }
}

/// Refuses a certificate whose proofs are not those that what it proves needs.
pub(super) fn check_claims(name: &str, cert: &Certificate) -> Result<(), CheckError> {
    let mut found: Vec<(u8, u8)> = cert
        .parts
        .iter()
        .map(|p| (p.side as u8, p.claim as u8))
        .collect();
    found.sort();
    if found == required(&cert.root, cert.proves) {
        return Ok(());
    }
    let list: Vec<String> = cert
        .parts
        .iter()
        .map(|p| format!("{} {}", p.side.name(), p.claim.name()))
        .collect();
    Err(CheckError::Claims {
        certificate: name.into(),
        claimed: cert.proves.text(&cert.root),
        found: if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        },
    })
}

/// The certificates `roots` (each with its checksum; one file given twice is kept
/// once) and every lemma they rely on, directly or through other lemmas, each read
/// once and matched against the reference that names it.
fn gather(roots: Vec<(Checked, u64)>, dir: Option<&Path>) -> Result<Vec<Checked>, CheckError> {
    let store = dir.map(LemmaDir::open).transpose()?;
    let mut all = Vec::new();
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (root, checksum) in roots {
        check_claims(&root.name, &root.cert)?;
        if let std::collections::hash_map::Entry::Vacant(e) = at.entry(checksum) {
            e.insert(all.len());
            all.push(root);
        }
    }
    let mut i = 0;
    while i < all.len() {
        let mut refs = Vec::new();
        for l in all[i].cert.lemmas.clone() {
            let name = l.file_name();
            let j = match at.get(&l.checksum) {
                Some(&j) => j,
                None => {
                    let missing = |place: String| CheckError::LemmaMissing {
                        name: name.clone(),
                        side: l.side.name(),
                        claim: l.claim.name(),
                        position: l.position.to_string(),
                        place,
                    };
                    let (Some(dir), Some(store)) = (dir, &store) else {
                        return Err(missing(
                            "is needed: give the lemma directory (--lemmas DIR)".into(),
                        ));
                    };
                    // Its file, or its place in a pack, checked to be the lemma named.
                    let Some((cert, found)) =
                        store.read(l.checksum).map_err(|e| CheckError::LemmaWrong {
                            name: name.clone(),
                            reason: e.to_string(),
                        })?
                    else {
                        return Err(missing(format!("is not in {}", dir.display())));
                    };
                    check_claims(&found, &cert)?;
                    all.push(Checked {
                        name: found,
                        cert,
                        refs: Vec::new(),
                        blocked: None,
                    });
                    at.insert(l.checksum, all.len() - 1);
                    all.len() - 1
                }
            };
            let c = &all[j].cert;
            if c.root != l.position || c.proves != Proves::Lemma(l.side, l.claim) {
                return Err(CheckError::LemmaWrong {
                    name,
                    reason: format!(
                        "it proves {} at {}; {} names it for {} {} at {}",
                        c.proves.text(&c.root),
                        c.root,
                        all[i].name,
                        l.side.name(),
                        l.claim.name(),
                        l.position
                    ),
                });
            }
            refs.push(j);
        }
        all[i].refs = refs;
        i += 1;
    }
    Ok(all)
}

/// Checks the certificate at `path` against the tables in `dir`, with the lemmas
/// it relies on from `opts.lemmas`.
///
/// # Errors
///
/// Any `CheckError`: an unreadable certificate, lemma or table, a table other than
/// the one named, proofs that do not match what is claimed, a lemma missing, other
/// than named, unused or on a cycle of wins, or the first position of a proof that
/// does not hold.
pub fn check_proof(
    path: &Path,
    dir: &Path,
    opts: &CheckOptions,
) -> Result<CheckReport, CheckError> {
    let start = Instant::now();
    let root = open_root(path, "the certificate".into())?;
    let (all, totals) = check_all(vec![root], dir, opts)?;
    let root = &all[0].cert;
    Ok(CheckReport {
        root: root.root,
        proves: root.proves,
        max_table_stones: root.max_table_stones,
        parts: root
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.side, p.claim, all[0].positions(i) as usize))
            .collect(),
        positions: totals.positions,
        moves: totals.moves,
        tables: totals.tables,
        lemmas: all.len() - 1,
        relied_on: all[1..].iter().map(|c| c.name.clone()).collect(),
        tables_verified: opts.verify_tables,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// What a check of several certificates at once established.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckSetReport {
    /// Certificates given (each file once).
    pub certificates: usize,
    /// Lemmas checked beyond them (relied on, not given).
    pub lemmas: usize,
    /// Their file names in the lemma directory (`C.fnlemma`), in the order read.
    pub relied_on: Vec<String>,
    /// Positions checked over all proofs.
    pub positions: u64,
    /// Moves followed over all proofs.
    pub moves: u64,
    /// Tables they rely on.
    pub tables: usize,
    /// Whether every entry of those tables was re-derived (`verify_tables`).
    pub tables_verified: bool,
    /// Wall-clock time of the whole check, in seconds.
    pub seconds: f64,
}

/// Checks the certificates at `paths` (a lemma directory's new lemmas, say) as
/// [`check_proof`] checks one, in one pass: the tables are loaded once and every
/// certificate, given or relied on, is checked once.
///
/// # Errors
///
/// As [`check_proof`], for the first certificate that fails, named by its file.
pub fn check_proofs(
    paths: &[PathBuf],
    dir: &Path,
    opts: &CheckOptions,
) -> Result<CheckSetReport, CheckError> {
    let start = Instant::now();
    if paths.is_empty() {
        return Ok(CheckSetReport {
            certificates: 0,
            lemmas: 0,
            relied_on: Vec::new(),
            positions: 0,
            moves: 0,
            tables: 0,
            tables_verified: opts.verify_tables,
            seconds: 0.0,
        });
    }
    let mut roots = Vec::new();
    for p in paths {
        // A pack stands for every lemma in it.
        if p.extension().is_some_and(|x| x == PACK_EXTENSION) {
            let pack = Pack::read(p)?;
            if pack.lemmas().is_empty() {
                let why = pack.cut().unwrap_or("it holds no segment");
                return Err(CertificateError::Damaged {
                    path: p.clone(),
                    what: format!("a pack of no lemma, nothing to check ({why})"),
                }
                .into());
            }
            for (cert, checksum, name) in pack.certificates()? {
                let checked = Checked {
                    name,
                    cert,
                    refs: Vec::new(),
                    blocked: None,
                };
                roots.push((checked, checksum));
            }
            continue;
        }
        let name = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        roots.push(open_root(p, name)?);
    }
    let given = roots
        .iter()
        .map(|r| r.1)
        .collect::<std::collections::HashSet<u64>>()
        .len();
    let (all, totals) = check_all(roots, dir, opts)?;
    Ok(CheckSetReport {
        certificates: given,
        lemmas: all.len() - given,
        relied_on: all[given..].iter().map(|c| c.name.clone()).collect(),
        positions: totals.positions,
        moves: totals.moves,
        tables: totals.tables,
        tables_verified: opts.verify_tables,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A certificate file to check, with its checksum; a version 3 file is checked
/// block by block, never read whole.
fn open_root(path: &Path, name: String) -> Result<(Checked, u64), CheckError> {
    let (cert, checksum, blocked) = Certificate::open_summed(path)?;
    let checked = Checked {
        name,
        cert,
        refs: Vec::new(),
        blocked,
    };
    Ok((checked, checksum))
}

/// Positions, moves and tables of a check.
struct Totals {
    positions: u64,
    moves: u64,
    tables: usize,
}

/// Checks `roots` and every lemma they rely on against the tables of `dir`.
fn check_all(
    roots: Vec<(Checked, u64)>,
    dir: &Path,
    opts: &CheckOptions,
) -> Result<(Vec<Checked>, Totals), CheckError> {
    let all = gather(roots, opts.lemmas.as_deref())?;
    let board = all[0].cert.root.board();
    if let Some(c) = all.iter().find(|c| c.cert.root.board() != board) {
        return Err(CheckError::LemmaWrong {
            name: c.name.clone(),
            reason: format!(
                "it is a proof on {}, the others on {}",
                c.cert.root.board().size_name(),
                board.size_name()
            ),
        });
    }
    // Every table any of them names, each by one checksum (the directory's).
    let mut named: Vec<(Signature, u64)> = all
        .iter()
        .flat_map(|c| c.cert.tables.iter().copied())
        .collect();
    named.sort();
    named.dedup();
    let mut sigs: Vec<Signature> = named.iter().map(|t| t.0).collect();
    sigs.dedup();
    let tables = ValueTables::load(dir, board, &sigs)?;
    for (sig, expected) in &named {
        let found = tables
            .checksums()
            .iter()
            .find(|t| t.0 == *sig)
            .map_or(0, |t| t.1);
        if found != *expected {
            return Err(CheckError::TableMismatch {
                sig: *sig,
                dir: dir.display().to_string(),
                found,
                expected: *expected,
            });
        }
    }
    if opts.verify_tables {
        verify_named(dir, board, &sigs, opts.on_table.as_ref())?;
    }
    let mut positions = 0;
    let mut moves = 0;
    for c in &all {
        let (p, m) = check_certificate(c, &tables, opts)?;
        positions += p;
        moves += m;
    }
    if let Some(i) = win_cycle(&all) {
        return Err(CheckError::LemmaCycle {
            name: all[i].name.clone(),
        });
    }
    let totals = Totals {
        positions,
        moves,
        tables: named.len(),
    };
    Ok((all, totals))
}

/// Checks every proof of one certificate against `tables`, each of its lemmas
/// taken as proved; returns its positions and the moves followed. Every lemma it
/// names must serve as a leaf somewhere.
pub(super) fn check_certificate(
    c: &Checked,
    tables: &ValueTables,
    opts: &CheckOptions,
) -> Result<(u64, u64), CheckError> {
    let used: Vec<AtomicBool> = c
        .cert
        .lemmas
        .iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let (mut positions, mut moves) = (0, 0);
    for (i, part) in c.cert.parts.iter().enumerate() {
        moves += match &c.blocked {
            Some(b) => {
                let mib = opts.cache_mib.unwrap_or(DEFAULT_CACHE_MIB);
                check_blocked_part(c, i, b, tables, &used, mib << 20)?
            }
            None => check_part(c, part, tables, &used)?,
        };
        positions += c.positions(i);
    }
    if let Some(j) = used.iter().position(|u| !u.load(Relaxed)) {
        return Err(CheckError::LemmaWrong {
            name: c.cert.lemmas[j].file_name(),
            reason: format!("{} names it, but no move of its proofs leads to it", c.name),
        });
    }
    Ok((positions, moves))
}

/// A certificate on a cycle of lemma references among certificates that claim
/// wins (a win's lemmas are wins: `check_part` takes no other), if there is one.
/// Each certificate's own proof is acyclic, so such a cycle is the only way a
/// composed win could go round for ever.
fn win_cycle(all: &[Checked]) -> Option<usize> {
    let wins = |c: &Checked| c.cert.parts.iter().all(|p| p.claim == Claim::Win);
    let adj: Vec<Vec<u32>> = all
        .iter()
        .map(|c| {
            let refs = if wins(c) { &c.refs[..] } else { &[] };
            refs.iter().map(|&r| r as u32).collect()
        })
        .collect();
    find_cycle(&adj)
}

/// Re-derives every entry of the tables `sigs`. Re-deriving a table reads its pair's
/// other member and the tables its captures lead to, so those must be named too:
/// otherwise a table could agree with one that nothing checked.
fn verify_named(
    dir: &Path,
    board: &'static crate::rules::board::Board,
    sigs: &[Signature],
    on_table: Option<&OnTable>,
) -> Result<(), CheckError> {
    for &sig in sigs {
        let reads = std::iter::once(Signature::new(sig.them, sig.us))
            .chain((1..sig.them).map(|left| Signature::new(left, sig.us)));
        if let Some(missing) = reads.into_iter().find(|s| !sigs.contains(s)) {
            return Err(CheckError::Unverifiable { sig, missing });
        }
    }
    let total_positions = sigs.iter().map(|s| s.placements(board)).sum();
    let (start, mut done_positions) = (Instant::now(), 0);
    for (i, &sig) in sigs.iter().enumerate() {
        let r = verify_table(dir, board, crate::table::TableKind::Plain, sig)?;
        done_positions += sig.placements(board);
        if let Some(OnTable(tell)) = on_table {
            tell(&TableVerified {
                sig,
                index: i + 1,
                count: sigs.len(),
                done_positions,
                total_positions,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
        if r.mismatches > 0 || r.stats_error.is_some() {
            return Err(CheckError::TableWrong {
                sig,
                mismatches: r.mismatches,
                example: r
                    .examples
                    .first()
                    .cloned()
                    .or(r.stats_error)
                    .unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// What a proof's moves may lead to outside the proof, and how each such end is
/// judged: a finished game, a table position of a table the certificate names, or a
/// lemma of the proof's claim that it names (marked in `used`).
struct Ends<'a> {
    checked: &'a Checked,
    side: Color,
    claim: Claim,
    tables: &'a ValueTables,
    lemmas: HashMap<Position, Vec<usize>>,
    used: &'a [AtomicBool],
}

impl<'a> Ends<'a> {
    fn new(
        checked: &'a Checked,
        part: &Part,
        tables: &'a ValueTables,
        used: &'a [AtomicBool],
    ) -> Ends<'a> {
        let mut lemmas: HashMap<Position, Vec<usize>> = HashMap::new();
        for (j, l) in checked.cert.lemmas.iter().enumerate() {
            lemmas.entry(l.position).or_default().push(j);
        }
        Ends {
            checked,
            side: part.side,
            claim: part.claim,
            tables,
            lemmas,
            used,
        }
    }

    fn invalid(&self, p: &Position, reason: String) -> CheckError {
        CheckError::Invalid {
            certificate: self.checked.name.clone(),
            side: self.side.name(),
            claim: self.claim.name(),
            position: p.to_string(),
            reason,
        }
    }

    /// Whether the move from `from` to `to`, a position not in the proof, ends well
    /// for the proof's side.
    fn judge(&self, from: &Position, to: Position) -> Result<(), String> {
        let (cert, side, claim) = (&self.checked.cert, self.side, self.claim);
        let k = cert.max_table_stones as u32;
        let mover_value = if to.us() == 0 || to.is_lost() {
            Wdl::Loss
        } else if (to.us() | to.them()).count_ones() <= k {
            let sig = Signature::of(to.us(), to.them());
            self.tables
                .value(to.us(), to.them())
                .filter(|_| cert.tables.iter().any(|t| t.0 == sig))
                .ok_or_else(|| {
                    format!("leads to {to}, whose table the certificate does not name")
                })?
        } else if let Some(js) = self.lemmas.get(&to) {
            let Some(&j) = js.iter().find(|&&j| cert.lemmas[j].serves(side, claim)) else {
                let l = &cert.lemmas[js[0]];
                return Err(format!(
                    "leads to {to}, whose lemma {} proves that {} {}, not that {} {}",
                    l.file_name(),
                    l.side.name(),
                    l.claim.name(),
                    side.name(),
                    claim.name()
                ));
            };
            self.used[j].store(true, Relaxed);
            return Ok(());
        } else {
            return Err(format!(
                "leads to {to}, which is neither in the proof nor a table position nor a lemma"
            ));
        };
        let for_side = if to.turn() == side {
            mover_value
        } else {
            mover_value.flipped()
        };
        let ok = match claim {
            Claim::Win => for_side == Wdl::Win,
            Claim::NotLose => for_side != Wdl::Loss,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{} leads to {to}, a {} for {}",
                if from.turn() == side {
                    "its move"
                } else {
                    "a reply"
                },
                for_side.name(),
                side.name()
            ))
        }
    }

    /// Checks the moves of `p` (with the proof's move `mv` where its side moves):
    /// each leads into the proof, where `inside` finds it (`Some`), or to an end
    /// `judge` accepts. Returns what `inside` found, and the moves followed.
    fn moves<T>(
        &self,
        p: &Position,
        mv: Option<&str>,
        inside: impl Fn(&Position) -> Result<Option<T>, CheckError>,
    ) -> Result<(Vec<T>, u64), CheckError> {
        let mut out = Vec::new();
        let mut follow = |to: Position, text: &str, sep: &str| -> Result<(), CheckError> {
            match inside(&to)? {
                Some(t) => out.push(t),
                None => self
                    .judge(p, to)
                    .map_err(|r| self.invalid(p, format!("{text}{sep} {r}")))?,
            }
            Ok(())
        };
        if p.turn() == self.side {
            let text = mv.ok_or_else(|| {
                self.invalid(p, format!("{} to move but no move given", self.side.name()))
            })?;
            let m = p
                .parse_move(text)
                .map_err(|err| self.invalid(p, err.to_string()))?;
            let canonical = m.notation(p.board());
            if canonical != text {
                return Err(self.invalid(
                    p,
                    format!("move {text:?} is not written as the notation gives it, {canonical:?}"),
                ));
            }
            follow(p.apply(&m), text, "")?;
            Ok((out, 1))
        } else {
            if mv.is_some() {
                return Err(self.invalid(p, "a move given for the opponent".into()));
            }
            let legal = p.legal_moves();
            for m in &legal {
                follow(p.apply(m), &m.notation(p.board()), ":")?;
            }
            Ok((out, legal.len() as u64))
        }
    }
}

/// Checks one proof of a certificate; returns the number of moves followed. A
/// lemma used is marked in `used`. The reader has the entries sorted by position
/// key, each once, so they are their own index (a binary search, no map); only a
/// win keeps the moves inside the proof, as a compact graph for its cycle check.
fn check_part(
    checked: &Checked,
    part: &Part,
    tables: &ValueTables,
    used: &[AtomicBool],
) -> Result<u64, CheckError> {
    let ends = Ends::new(checked, part, tables, used);
    let entries = &part.entries;
    let index = |to: &Position| -> Result<Option<u32>, CheckError> {
        let key = position_key(to);
        Ok(entries
            .binary_search_by_key(&key, |e| position_key(&e.position))
            .ok()
            .map(|i| i as u32))
    };
    let root = &checked.cert.root;
    if index(root)?.is_none() {
        return Err(ends.invalid(root, "the root is not in the proof".into()));
    }
    let follow = |e: &Entry| ends.moves(&e.position, e.mv.as_deref(), index);
    if part.claim == Claim::NotLose {
        return entries
            .par_iter()
            .map(|e| follow(e).map(|(_, n)| n))
            .try_reduce(|| 0, |a, b| Ok(a + b));
    }
    // Every position's moves, in parallel; the edges inside the proof are kept for
    // the acyclicity check of a win.
    let edges: Vec<(Box<[u32]>, u64)> = entries
        .par_iter()
        .map(|e| follow(e).map(|(out, n)| (out.into_boxed_slice(), n)))
        .collect::<Result<_, _>>()?;
    let moves = edges.iter().map(|e| e.1).sum();
    let adj: Vec<Box<[u32]>> = edges.into_iter().map(|e| e.0).collect();
    if let Some(i) = find_cycle(&adj) {
        return Err(ends.invalid(
            &entries[i].position,
            "lies on a cycle: a win must end".into(),
        ));
    }
    Ok(moves)
}

/// Checks proof `i` of a version 3 certificate block by block, in parallel, holding
/// about `cache_bytes` of decoded blocks for the look-ups of where moves lead: a
/// win's ranks must fall along every move inside the proof, which is what makes it
/// acyclic without a graph of the whole. Returns the number of moves followed.
fn check_blocked_part(
    checked: &Checked,
    i: usize,
    blocked: &Blocked,
    tables: &ValueTables,
    used: &[AtomicBool],
    cache_bytes: usize,
) -> Result<u64, CheckError> {
    let part = &checked.cert.parts[i];
    let ends = Ends::new(checked, part, tables, used);
    let cache = BlockCache::new(blocked, i, cache_bytes);
    let root = &checked.cert.root;
    if cache.rank(root)?.is_none() {
        return Err(ends.invalid(root, "the root is not in the proof".into()));
    }
    let win = part.claim == Claim::Win;
    let per_block: Result<Vec<u64>, CheckError> = (0..blocked.blocks(i))
        .into_par_iter()
        .map(|b| {
            let block = cache.get(b)?;
            let mut moves = 0;
            for e in block.iter() {
                let p = &e.entry.position;
                if !win && e.rank != 0 {
                    return Err(
                        ends.invalid(p, "a rank in a proof that does not claim a win".into())
                    );
                }
                let (inside, n) = ends.moves(p, e.entry.mv.as_deref(), |to| {
                    Ok(cache.rank(to)?.map(|r| (*to, r)))
                })?;
                if win && let Some((to, r)) = inside.into_iter().find(|&(_, r)| r >= e.rank) {
                    return Err(ends.invalid(
                        p,
                        format!(
                            "rank {} leads to {to} of rank {r}: ranks must fall along a win",
                            e.rank
                        ),
                    ));
                }
                moves += n;
            }
            Ok(moves)
        })
        .collect();
    Ok(per_block?.iter().sum())
}

/// A node on a cycle of the graph, if it has one. Kahn's algorithm peels off the
/// nodes in topological order; what remains holds a cycle and everything downstream
/// of one, so every node left has a predecessor left (not always a successor):
/// walking backwards inside the remainder must come back to a node.
fn find_cycle(adj: &[impl AsRef<[u32]>]) -> Option<usize> {
    let n = adj.len();
    let mut indeg = vec![0usize; n];
    for out in adj {
        for &j in out.as_ref() {
            indeg[j as usize] += 1;
        }
    }
    let mut queue: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut removed = vec![false; n];
    while let Some(i) = queue.pop() {
        removed[i] = true;
        for &j in adj[i].as_ref() {
            let j = j as usize;
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push(j);
            }
        }
    }
    let first = (0..n).find(|&i| !removed[i])?;
    // One predecessor left for each node left.
    let mut pred = vec![usize::MAX; n];
    for (i, out) in adj.iter().enumerate().filter(|(i, _)| !removed[*i]) {
        for &j in out.as_ref() {
            pred[j as usize] = i;
        }
    }
    let mut seen = vec![false; n];
    let mut i = first;
    while !seen[i] {
        seen[i] = true;
        i = pred[i];
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn cycles_are_found_from_anywhere_downstream() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        // A two-node cycle feeding a dead end, the dead end listed first: the walk
        // must not start forward from it.
        let on = find_cycle(&[vec![], vec![2, 0], vec![1]]).expect("a cycle");
        assert!(on == 1 || on == 2, "{on}");
        assert_eq!(find_cycle(&[vec![0]]), Some(0), "a loop");
        let long = find_cycle(&[vec![1], vec![2], vec![3], vec![1, 4], vec![]]).unwrap();
        assert!((1..=3).contains(&long), "{long}");
    }
}
