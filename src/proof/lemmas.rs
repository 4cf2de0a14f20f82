//! The lemma directory as the search reads it: each lemma's claim, by position, so
//! that a proved sub-position is a leaf of every later search (docs/PROOF.md,
//! "Lemmas"). The search trusts the lemmas; `check` verifies them.

use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};

use super::search::Key;
use crate::certificate::{Certificate, CertificateError, Claim, LemmaRef, Proves};
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};

/// The lemmas of one board, by position.
#[derive(Clone, Debug, Default)]
pub struct Lemmas {
    by_key: FxHashMap<Key, Vec<LemmaRef>>,
    count: usize,
    /// The checksums of the lemma files read or added, so that `refresh` reads
    /// only the files written since.
    files: FxHashSet<u64>,
}

impl Lemmas {
    /// No lemmas: every position is searched.
    pub fn none() -> Lemmas {
        Lemmas::default()
    }

    /// Reads every `*.fnlemma` file of `dir` (none if `dir` does not exist yet) and
    /// keeps those of `board`.
    ///
    /// # Errors
    ///
    /// Those of [`Lemmas::refresh`].
    pub fn load(dir: &Path, board: &'static Board) -> Result<Lemmas, CertificateError> {
        let mut lemmas = Lemmas::none();
        lemmas.refresh(dir, board)?;
        Ok(lemmas)
    }

    /// Reads the `*.fnlemma` files of `dir` not read or added yet (another worker's,
    /// written meanwhile), keeps those of `board`, and returns how many files it read.
    ///
    /// # Errors
    ///
    /// A file that cannot be read or is damaged, that is not a lemma, or whose
    /// checksum is not the one its name gives: each would mislead the search, and
    /// the error names the file to remove.
    pub fn refresh(
        &mut self,
        dir: &Path,
        board: &'static Board,
    ) -> Result<usize, CertificateError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(CertificateError::Io {
                    path: dir.into(),
                    source,
                });
            }
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "fnlemma"))
            // A lemma's name is its checksum in hex (checked below as it is read).
            .filter(|p| {
                p.file_stem()
                    .and_then(|s| u64::from_str_radix(s.to_str()?, 16).ok())
                    .is_none_or(|c| !self.files.contains(&c))
            })
            .collect();
        paths.sort();
        for path in &paths {
            let (cert, checksum) = Certificate::read_summed(path)?;
            let damaged = |what: String| CertificateError::Damaged {
                path: path.clone(),
                what,
            };
            let Proves::Lemma(side, claim) = cert.proves else {
                return Err(damaged("a certificate of a value, not a lemma".into()));
            };
            let name = crate::certificate::lemma_file_name(checksum);
            if path.file_name().is_none_or(|n| *n != *name) {
                return Err(damaged(format!(
                    "its checksum names it {name}: a lemma is kept under that name"
                )));
            }
            if cert.root.board() != board {
                self.files.insert(checksum);
                continue;
            }
            self.add(LemmaRef {
                position: cert.root,
                side,
                claim,
                checksum,
            });
        }
        Ok(paths.len())
    }

    /// Adds a lemma (kept once per side and claim).
    pub fn add(&mut self, l: LemmaRef) {
        self.files.insert(l.checksum);
        let v = self.by_key.entry(Key::of(&l.position)).or_default();
        if !v.iter().any(|o| o.side == l.side && o.claim == l.claim) {
            v.push(l);
            self.count += 1;
        }
    }

    /// Takes out the lemmas at `pos`, and returns them. A search at a root must not
    /// take the root's own lemmas as leaves: play that comes back to the root would
    /// end there, and a win would go round the cycle the checker refuses.
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
        self.by_key.get(&Key::of(pos)).map_or(&[], Vec::as_slice)
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
