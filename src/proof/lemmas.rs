//! The lemma directory as the search reads it: each lemma's claim, by position, so
//! that a proved sub-position is a leaf of every later search (docs/PROOF.md,
//! "Lemmas"). The search checks each lemma before it trusts it (`load_checked`):
//! a false one is refused, with its name and the reason, and the search goes on
//! without it. A lemma that relies on tables the search has not loaded (larger
//! ones, say) is passed over and counted, not refused. Checked lemmas are recorded by
//! checksum in the directory's `checked.tsv`, so that a later search does not check
//! them again.

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use super::search::Key;
use crate::certificate::pack::PackWriter;
use crate::certificate::store::LemmaDir;
use crate::certificate::{Certificate, CertificateError, Claim, LemmaRef};
use crate::check::lemmas::LemmaChecker;
use crate::files::log::TsvLog;
use crate::probe::ValueTables;
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};

/// The lemmas of one board, by position.
#[derive(Clone, Debug, Default)]
pub struct Lemmas {
    by_key: FxHashMap<Key, Vec<LemmaRef>>,
    /// One bit a hash of each position with lemmas (`PRESENT_BITS` bits; none
    /// while there are no lemmas): most positions a search probes have none, and
    /// this table, small enough for the cache, says so without a probe of the map.
    present: Vec<u64>,
    count: usize,
    /// The checksums of the lemma files read or added, so that `refresh` reads
    /// only the files written since.
    files: FxHashSet<u64>,
    /// The lemma files refused by `refresh_checked`: the file's checksum, its
    /// name and why.
    refused: Vec<(u64, String, String)>,
    /// How many lemmas `refresh_checked` passed over because they rely on
    /// tables not loaded (larger ones, or of more stones a side than the root has,
    /// which no position of the search reaches): not false, only not checkable here.
    beyond: usize,
}

/// log2 of the bits of `Lemmas::present`: 512 KiB, a false hit in twenty at
/// 200,000 positions.
const PRESENT_BITS: u32 = 22;

/// The bit of `present` a position's key falls on.
fn present_bit(k: Key) -> usize {
    let h = (k.0 ^ k.1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - PRESENT_BITS)) as usize
}

/// The record of checked lemmas in a lemma directory, one checksum a line under a
/// header that names the checker; a record by another version is not used.
const CHECKED_LOG: &str = "checked.tsv";

impl Lemmas {
    /// No lemmas: every position is searched.
    pub fn none() -> Lemmas {
        Lemmas::default()
    }

    /// Reads every lemma of `dir`, loose `*.fnlemma` files and packs (none if `dir`
    /// does not exist yet), and keeps those of `board`, as their files claim them:
    /// unchecked (what a report counts). The searches check each lemma before they
    /// trust it (docs/PROOF.md, "A search checks a lemma before it trusts it").
    ///
    /// # Errors
    ///
    /// A file that cannot be read or is damaged, that is not a lemma, or whose
    /// checksum is not the one its name gives; the error names the file.
    pub fn load(dir: &Path, board: &'static Board) -> Result<Lemmas, CertificateError> {
        let mut lemmas = Lemmas::none();
        lemmas.refresh(dir, board)?;
        Ok(lemmas)
    }

    /// Reads every lemma of `dir` (loose files and packs) for the board of `tables`, and keeps
    /// those that check (`refresh_checked`).
    ///
    /// # Errors
    ///
    /// Those of [`Lemmas::refresh_checked`].
    pub(crate) fn load_checked(
        dir: &Path,
        tables: &ValueTables,
    ) -> Result<Lemmas, CertificateError> {
        let mut lemmas = Lemmas::none();
        lemmas.refresh_checked(dir, tables)?;
        Ok(lemmas)
    }

    /// Reads the `*.fnlemma` files of `dir` not read yet, and keeps those of the
    /// board of `tables` whose proofs hold over `tables`, checked in the order of
    /// their references (a lemma after those it relies on). A file that cannot be
    /// read, is damaged or too large (its header and size are read first), is not
    /// named by its checksum, or does not prove what it claims is refused, with its
    /// name and the reason (`refused`); so is every lemma that relies on a refused
    /// one. Returns how many files it read.
    ///
    /// # Errors
    ///
    /// Only the directory's own: it cannot be listed, or the record of checked
    /// lemmas cannot be written.
    pub(crate) fn refresh_checked(
        &mut self,
        dir: &Path,
        tables: &ValueTables,
    ) -> Result<usize, CertificateError> {
        let io = |source| CertificateError::Io {
            path: dir.into(),
            source,
        };
        let (lemma_dir, sums) = self.unread(dir)?;
        // A file refused before is judged again (a lemma it relies on may have
        // come since): its old refusal goes.
        let again: FxHashSet<u64> = sums.iter().copied().collect();
        self.refused.retain(|(sum, _, _)| !again.contains(sum));
        let log = TsvLog::new(dir, CHECKED_LOG, checked_header());
        let recorded: FxHashSet<u64> = match log.read() {
            Ok(text) if text.lines().next() == Some(checked_header()) => text
                .lines()
                .skip(1)
                .filter_map(|l| u64::from_str_radix(l.trim(), 16).ok())
                .collect(),
            _ => FxHashSet::default(),
        };
        let mut checker = LemmaChecker::new(tables);
        for l in self.by_key.values().flatten() {
            checker.trust(*l);
        }
        // Every file read, its header and size first; the lemmas of other boards are
        // passed over. A lemma waiting for its check keeps only the lemmas it names,
        // read without its proofs, and is read whole when they are trusted: held
        // whole, a store of 360,821 unchecked lemmas took 11.5 GB.
        let mut waiting: Vec<(String, Vec<u64>, u64)> = Vec::new();
        for &sum in &sums {
            // A lemma checked before is taken on its claim, its proofs not read,
            // if the tables it names are still these.
            if recorded.contains(&sum)
                && let Ok(Some((head, _))) = lemma_dir.read_head(sum)
            {
                if head.root.board() != tables.board() || self.pass_over(&checker, &head) {
                    self.files.insert(sum);
                    continue;
                }
                if let (Ok(()), Some(l)) = (checker.same_tables(&head), head.lemma_ref(sum)) {
                    checker.trust(l);
                    self.add(l);
                    continue;
                }
            }
            match lemma_dir.read_lemmas(sum) {
                Err(e) => {
                    self.files.insert(sum);
                    self.refused.push((
                        sum,
                        crate::certificate::lemma_file_name(sum),
                        e.to_string(),
                    ));
                }
                Ok(None) => {}
                Ok(Some((cert, _, _)))
                    if cert.root.board() != tables.board() || self.pass_over(&checker, &cert) =>
                {
                    self.files.insert(sum);
                }
                Ok(Some((cert, name, _))) => {
                    waiting.push((name, cert.lemmas.iter().map(|l| l.checksum).collect(), sum));
                }
            }
        }
        // In waves: the lemmas whose references are all trusted, checked in
        // parallel; what is left when no lemma is ready relies on a refused or
        // missing lemma, or on a cycle.
        let mut newly = Vec::new();
        loop {
            let (ready, rest): (Vec<_>, Vec<_>) = waiting
                .into_iter()
                .partition(|(_, named, _)| named.iter().all(|&c| checker.trusts(c)));
            waiting = rest;
            if ready.is_empty() {
                break;
            }
            use rayon::prelude::*;
            let results: Vec<_> = ready
                .into_par_iter()
                .map(|(name, _, sum)| {
                    let r = match lemma_dir.read(sum) {
                        Ok(Some((cert, _))) => {
                            checker.check(&name, cert, sum).map_err(|e| e.to_string())
                        }
                        Ok(None) => Err("it was removed while the search read it".into()),
                        Err(e) => Err(e.to_string()),
                    };
                    (name, sum, r)
                })
                .collect();
            for (name, sum, r) in results {
                match r {
                    Ok(l) => {
                        if !recorded.contains(&sum) {
                            newly.push(sum);
                        }
                        checker.trust(l);
                        self.add(l);
                    }
                    Err(why) => self.refused.push((sum, name, why)),
                }
            }
        }
        for (name, named, sum) in waiting {
            let missing = named
                .iter()
                .find(|&&c| !checker.trusts(c))
                .map_or_else(String::new, |&c| crate::certificate::lemma_file_name(c));
            self.refused.push((
                sum,
                name,
                format!("it relies on lemma {missing}, which is missing, refused or on a cycle"),
            ));
        }
        for sum in newly {
            log.append(&format!("{sum:016x}")).map_err(io)?;
        }
        Ok(sums.len())
    }

    /// Whether the lemma `cert` relies on a table `checker` has not loaded, counted
    /// if so (each file is read once): a store may hold lemmas over the tables of 8
    /// stones, which a search over those of 7 passes over without a word each.
    fn pass_over(&mut self, checker: &LemmaChecker, cert: &Certificate) -> bool {
        let lacks = checker.lacks_table(cert).is_some();
        self.beyond += usize::from(lacks);
        lacks
    }

    /// How many lemma files were passed over, proved over tables not loaded.
    pub fn beyond(&self) -> usize {
        self.beyond
    }

    /// The lemma files refused so far, with the reason: each name once.
    pub fn refused(&self) -> Vec<(String, String)> {
        self.refused
            .iter()
            .map(|(_, name, why)| (name.clone(), why.clone()))
            .collect()
    }

    /// Reads the lemmas of `dir` not read or added yet (another worker's, written
    /// meanwhile), keeps those of `board`, and returns how many it read.
    ///
    /// # Errors
    ///
    /// A file that cannot be read or is damaged, that is not a lemma, or whose
    /// checksum is not the one its name gives: each would mislead the search, and
    /// the error names the file to remove.
    fn refresh(&mut self, dir: &Path, board: &'static Board) -> Result<usize, CertificateError> {
        let (lemma_dir, sums) = self.unread(dir)?;
        // A file refused before is judged again (a lemma it relies on may have
        // come since): its old refusal goes.
        let again: FxHashSet<u64> = sums.iter().copied().collect();
        self.refused.retain(|(sum, _, _)| !again.contains(sum));
        for &checksum in &sums {
            let Some((cert, name)) = lemma_dir.read(checksum)? else {
                continue;
            };
            if cert.root.board() != board {
                self.files.insert(checksum);
                continue;
            }
            self.add(
                lemma_ref(&cert, checksum).map_err(|what| CertificateError::Damaged {
                    path: dir.join(name),
                    what,
                })?,
            );
        }
        Ok(sums.len())
    }

    /// The lemma directory `dir` with the checksums of its lemmas not read or added
    /// yet (loose files and packs).
    fn unread(&self, dir: &Path) -> Result<(LemmaDir, Vec<u64>), CertificateError> {
        let lemma_dir = LemmaDir::open(dir)?;
        let mut sums = lemma_dir.checksums()?;
        sums.retain(|c| !self.files.contains(c));
        Ok((lemma_dir, sums))
    }

    /// Adds a lemma (kept once per side and claim).
    pub fn add(&mut self, l: LemmaRef) {
        self.files.insert(l.checksum);
        let key = Key::of(&l.position);
        if self.present.is_empty() {
            self.present = vec![0; 1 << (PRESENT_BITS - 6)];
        }
        let bit = present_bit(key);
        self.present[bit / 64] |= 1 << (bit % 64);
        let v = self.by_key.entry(key).or_default();
        if !v.iter().any(|o| o.side == l.side && o.claim == l.claim) {
            v.push(l);
            self.count += 1;
        }
    }

    /// Takes out the lemmas at `pos`, and returns them: a root's own lemmas, which
    /// its search does not take as leaves anyway (`Dfpn::lemma_answer`), set apart.
    pub fn remove(&mut self, pos: &Position) -> Vec<LemmaRef> {
        let out = self.by_key.remove(&Key::of(pos)).unwrap_or_default();
        self.count -= out.len();
        out
    }

    /// The number of lemmas.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The lemmas at `pos`.
    pub fn at(&self, pos: &Position) -> &[LemmaRef] {
        let key = Key::of(pos);
        if !self.may_hold(key) {
            return &[];
        }
        self.by_key.get(&key).map_or(&[], Vec::as_slice)
    }

    /// Whether `key`'s bit is set: false means no lemma there (a bit left set by
    /// `remove`, or shared with another position, only costs a probe of the map).
    fn may_hold(&self, key: Key) -> bool {
        let bit = present_bit(key);
        self.present
            .get(bit / 64)
            .is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }

    /// What the lemmas settle of "does `attacker` win at `pos`?": yes when one
    /// proves its win, no when one proves the other side does not lose.
    pub(super) fn attacker_wins(&self, attacker: Color, pos: &Position) -> Option<bool> {
        answers(self.at(pos), attacker)
    }

    /// What the lemmas settle of "does `side` make its claim (a win, or not
    /// losing) at `pos`?": the lemma that proves it, or `Err` when one proves the
    /// contrary (the other side wins; for a win, the other side does not lose).
    pub(super) fn serving(
        &self,
        side: Color,
        claim: Claim,
        pos: &Position,
    ) -> Option<Result<LemmaRef, ()>> {
        let at = self.at(pos);
        if let Some(l) = at.iter().find(|l| l.serves(side, claim)) {
            return Some(Ok(*l));
        }
        // "S wins" is refuted by "the other side does not lose", and the other way
        // round.
        let dual = match claim {
            Claim::Win => Claim::NotLose,
            Claim::NotLose => Claim::Win,
        };
        at.iter()
            .any(|l| l.serves(side.other(), dual))
            .then_some(Err(()))
    }
}

/// The header of `checked.tsv`: the checker that checked the lemmas it lists.
fn checked_header() -> &'static str {
    concat!("lemma checked by fanotb ", env!("CARGO_PKG_VERSION"))
}

/// The reference to the lemma `cert` of this checksum: what it claims.
fn lemma_ref(cert: &Certificate, checksum: u64) -> Result<LemmaRef, String> {
    cert.lemma_ref(checksum)
        .ok_or_else(|| "a certificate of a value, not a lemma".into())
}

/// Where a search writes the lemmas it proves: a pack of its own in the lemma
/// directory (docs/PROOF.md, "Lemma packs"), created with its first lemma, each
/// lemma appended as a segment made durable at once, so a search killed at any
/// point keeps every lemma it wrote. Several threads share one writer.
#[derive(Debug)]
pub(crate) struct LemmaWriter {
    dir: std::path::PathBuf,
    pack: std::sync::Mutex<Option<PackWriter>>,
}

impl LemmaWriter {
    /// A writer into the lemma directory `dir`; nothing is created before a lemma.
    pub(crate) fn new(dir: &Path) -> LemmaWriter {
        LemmaWriter {
            dir: dir.into(),
            pack: std::sync::Mutex::new(None),
        }
    }

    /// Appends the lemma `cert` to this writer's pack and returns the reference to
    /// it (its checksum is that of its file's bytes, as for a loose lemma).
    pub(crate) fn write(&self, cert: &Certificate) -> Result<LemmaRef, CertificateError> {
        let bytes = cert.to_bytes();
        let checksum = crate::files::bytes::u64_at(&bytes, bytes.len() - 16);
        let l = lemma_ref(cert, checksum).map_err(|what| CertificateError::Damaged {
            path: self.dir.clone(),
            what,
        })?;
        let mut pack = self.pack.lock().expect("not poisoned");
        let io = |source| CertificateError::Io {
            path: self.dir.clone(),
            source,
        };
        if pack.is_none() {
            *pack = Some(PackWriter::create(&self.dir).map_err(io)?);
        }
        let writer = pack.as_mut().expect("created above");
        writer
            .append(&[(l, &bytes)])
            .map_err(|source| CertificateError::Io {
                path: writer.path().into(),
                source,
            })?;
        Ok(l)
    }
}

/// What lemmas of one position settle of "does `attacker` win there?": yes when one
/// proves its win, no when one proves the other side does not lose.
pub(super) fn answers(at: &[LemmaRef], attacker: Color) -> Option<bool> {
    if at.iter().any(|l| l.serves(attacker, Claim::Win)) {
        Some(true)
    } else if at.iter().any(|l| l.side == attacker.other()) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit table only answers "none here" early: every position with lemmas
    /// is found with all of them, a removed one is gone, and the positions
    /// without lemmas (thousands, so that some share a bit with one that has)
    /// get none.
    #[test]
    fn the_present_bits_never_hide_a_lemma() {
        let mut lemmas = Lemmas::none();
        let mut seen = FxHashSet::default();
        let mut frontier = vec![Position::start(Board::get(9, 5).expect("tsivy"))];
        while seen.len() < 20_000 {
            let next: Vec<Position> = frontier.iter().flat_map(|p| p.successors()).collect();
            seen.extend(next.iter().copied());
            frontier = next;
        }
        let mut all: Vec<Position> = seen.into_iter().collect();
        all.sort_by_key(|p| (p.white(), p.black(), p.turn() == Color::Black));
        let (with, without) = all.split_at(all.len() / 2);
        for (i, p) in with.iter().enumerate() {
            for (side, claim) in [(Color::White, Claim::Win), (Color::Black, Claim::NotLose)] {
                lemmas.add(LemmaRef {
                    position: *p,
                    side,
                    claim,
                    checksum: i as u64 * 2 + (side == Color::Black) as u64,
                });
            }
        }
        assert!(with.iter().all(|p| lemmas.at(p).len() == 2));
        assert!(with.iter().all(|p| lemmas.at(p)[0].position == *p));
        assert!(without.iter().all(|p| lemmas.at(p).is_empty()));
        let shares = |p: &Position| lemmas.may_hold(Key::of(p));
        assert!(without.iter().any(shares), "no false hit was tried");
        assert_eq!(lemmas.remove(&with[0]).len(), 2);
        assert!(lemmas.at(&with[0]).is_empty());
        assert_eq!(lemmas.len(), 2 * (with.len() - 1));
    }
}
