//! The proof checker: verifies a certificate (docs/PROOF.md) from the rules alone.
//!
//! It shares nothing with the search (`proof`) but the move generator and the table
//! probe: it reads the certificate, checks the tables it names by checksum, and then
//! checks every position of every proof against the definition, in parallel.

use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use thiserror::Error;

use crate::certificate::bundle::Bundle;
use crate::certificate::pack::Pack;
use crate::certificate::store::LemmaDir;
use crate::certificate::{Blocked, Certificate, CertificateError, Claim, Proves};
use crate::check::tables::verify_table;
use crate::check::walk::{check_blocked_part, check_part, find_cycle};
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
    /// Where its proofs are when `cert` holds only its head and lemma list: the
    /// store (its place among the check's stores) and the lemma's checksum. A
    /// lemma of a store is read whole only when it is checked, so that a check
    /// of a large pack holds one certificate a thread, not all of them.
    pub(super) proofs_in: Option<(usize, u64)>,
}

impl Checked {
    /// A certificate read whole.
    pub(super) fn whole(name: String, cert: Certificate, blocked: Option<Blocked>) -> Checked {
        Checked {
            name,
            cert,
            refs: Vec::new(),
            blocked,
            proofs_in: None,
        }
    }

    /// Whether it proves wins only (by what it claims: its proofs are those the
    /// claim needs, `check_claims`).
    fn wins(&self) -> bool {
        required(&self.cert.root, self.cert.proves)
            .iter()
            .all(|&(_, claim)| claim == Claim::Win as u8)
    }

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
/// once) and every lemma they rely on, directly or through other lemmas, each
/// matched against the reference that names it; with the stores they are read
/// from: the packs `given` (whose lemmas are among the roots), the bundles' own
/// lemmas, then the lemma directory's. A lemma of a store is read as its head and
/// lemma list, and left there to be read whole when it is checked (`proofs_in`).
fn gather(
    roots: Vec<(Checked, u64)>,
    given: Vec<LemmaDir>,
    bundled: Vec<LemmaDir>,
    dir: Option<&Path>,
) -> Result<(Vec<Checked>, Vec<LemmaDir>), CheckError> {
    let bundles = given.len()..given.len() + bundled.len();
    let mut stores = given;
    stores.extend(bundled);
    if let Some(dir) = dir {
        stores.push(LemmaDir::open(dir)?);
    }
    let mut all = Vec::new();
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (root, checksum) in roots {
        if root.proofs_in.is_none() {
            check_claims(&root.name, &root.cert)?;
        }
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
                    if stores.is_empty() {
                        return Err(missing(
                            "is needed: give the lemma directory (--lemmas DIR)".into(),
                        ));
                    }
                    // Its file, or its place in a pack, checked to be the lemma named.
                    let mut read = None;
                    for (k, store) in stores.iter().enumerate() {
                        read = store
                            .read_lemmas(l.checksum)
                            .map(|r| {
                                r.map(|(c, n, whole)| (c, n, (!whole).then_some((k, l.checksum))))
                            })
                            .map_err(|e| CheckError::LemmaWrong {
                                name: name.clone(),
                                reason: e.to_string(),
                            })?;
                        if read.is_some() {
                            break;
                        }
                    }
                    let Some((cert, found, proofs_in)) = read else {
                        let places: Vec<String> = stores
                            .iter()
                            .map(|s| s.name().display().to_string())
                            .collect();
                        return Err(missing(format!("is not in {}", places.join(" or "))));
                    };
                    if proofs_in.is_none() {
                        check_claims(&found, &cert)?;
                    }
                    all.push(Checked {
                        proofs_in,
                        ..Checked::whole(found, cert, None)
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
    // A bundle holds exactly the lemmas its certificate relies on.
    for store in &stores[bundles] {
        if let Some(c) = store.checksums()?.into_iter().find(|c| !at.contains_key(c)) {
            return Err(CheckError::LemmaWrong {
                name: crate::certificate::lemma_file_name(c),
                reason: format!(
                    "{} holds it, but nothing there relies on it: a bundle holds exactly the lemmas its certificate relies on",
                    store.name().display()
                ),
            });
        }
    }
    Ok((all, stores))
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
    let mut bundled = Vec::new();
    let root = open_root(path, "the certificate".into(), &mut bundled)?;
    let (all, totals) = check_all(vec![root], Vec::new(), bundled, dir, opts)?;
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
    let mut given = Vec::new();
    let mut bundled = Vec::new();
    for p in paths {
        // A pack stands for every lemma in it, each read as its head until it is
        // checked.
        if Pack::is_pack(p)? {
            let pack = Pack::read(p)?;
            if pack.lemmas().is_empty() {
                let why = pack.cut().unwrap_or("it holds no segment");
                return Err(CertificateError::Damaged {
                    path: p.clone(),
                    what: format!("a pack of no lemma, nothing to check ({why})"),
                }
                .into());
            }
            let sums: Vec<u64> = pack.lemmas().iter().map(|l| l.lemma.checksum).collect();
            let store = LemmaDir::packed(p, vec![pack]);
            for checksum in sums {
                let (cert, name, _) = store.read_lemmas(checksum)?.ok_or_else(|| {
                    CertificateError::damaged(p, "a lemma its index lists is not found")
                })?;
                let checked = Checked {
                    proofs_in: Some((given.len(), checksum)),
                    ..Checked::whole(name, cert, None)
                };
                roots.push((checked, checksum));
            }
            given.push(store);
            continue;
        }
        let name = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        roots.push(open_root(p, name, &mut bundled)?);
    }
    let distinct = roots
        .iter()
        .map(|r| r.1)
        .collect::<std::collections::HashSet<u64>>()
        .len();
    let (all, totals) = check_all(roots, given, bundled, dir, opts)?;
    Ok(CheckSetReport {
        certificates: distinct,
        lemmas: all.len() - distinct,
        relied_on: all[distinct..].iter().map(|c| c.name.clone()).collect(),
        positions: totals.positions,
        moves: totals.moves,
        tables: totals.tables,
        tables_verified: opts.verify_tables,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Whether `path` is a lemma pack, told by its first bytes whatever its name (a
/// file that cannot be read is not): [`check_proofs`] checks every lemma in one.
pub fn is_lemma_pack(path: &Path) -> bool {
    Pack::is_pack(path).unwrap_or(false)
}

/// A certificate file to check, with its checksum; a version 3 file is checked
/// block by block, never read whole; a bundle's lemmas go to `bundled`.
fn open_root(
    path: &Path,
    name: String,
    bundled: &mut Vec<LemmaDir>,
) -> Result<(Checked, u64), CheckError> {
    if Bundle::is_bundle(path)? {
        let bundle = Bundle::read(path)?;
        bundled.push(bundle.lemmas);
        return Ok((Checked::whole(name, bundle.root, None), bundle.checksum));
    }
    let (cert, checksum, blocked) = Certificate::open_summed(path)?;
    Ok((Checked::whole(name, cert, blocked), checksum))
}

/// Positions, moves and tables of a check.
struct Totals {
    positions: u64,
    moves: u64,
    tables: usize,
}

/// Checks `roots` and every lemma they rely on against the tables of `dir`
/// (`gather` says what `given` and `bundled` are).
fn check_all(
    roots: Vec<(Checked, u64)>,
    given: Vec<LemmaDir>,
    bundled: Vec<LemmaDir>,
    dir: &Path,
    opts: &CheckOptions,
) -> Result<(Vec<Checked>, Totals), CheckError> {
    let (all, stores) = gather(roots, given, bundled, opts.lemmas.as_deref())?;
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
    // Each certificate on its own (a lemma read whole now, its head kept), in the
    // order of the stores' segments, so that each is decompressed once (in the
    // order found, the lemmas relied on took one a lemma); the first failure in
    // the certificates' order is reported.
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| {
        all[i]
            .proofs_in
            .map(|(store, checksum)| (store, stores[store].place(checksum)))
    });
    let mut checked: Vec<_> = order
        .into_par_iter()
        .with_min_len(64)
        .map(|i| (i, check_one(&all[i], &stores, &tables, opts)))
        .collect();
    checked.sort_by_key(|r| r.0);
    let (mut positions, mut moves) = (0, 0);
    for (_, r) in checked {
        let (p, m) = r?;
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

/// Checks one certificate of a check: a lemma left on its store is read whole
/// first, and dropped after.
fn check_one(
    c: &Checked,
    stores: &[LemmaDir],
    tables: &ValueTables,
    opts: &CheckOptions,
) -> Result<(u64, u64), CheckError> {
    let Some((store, checksum)) = c.proofs_in else {
        return check_certificate(c, tables, opts);
    };
    let wrong = |reason: String| CheckError::LemmaWrong {
        name: c.name.clone(),
        reason,
    };
    let (cert, _) = stores[store]
        .read(checksum)
        .map_err(|e| wrong(e.to_string()))?
        .ok_or_else(|| wrong("it was removed while the check read it".into()))?;
    check_claims(&c.name, &cert)?;
    let whole = Checked {
        refs: c.refs.clone(),
        ..Checked::whole(c.name.clone(), cert, None)
    };
    check_certificate(&whole, tables, opts)
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
    let adj: Vec<Vec<u32>> = all
        .iter()
        .map(|c| {
            let refs = if c.wins() { &c.refs[..] } else { &[] };
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
