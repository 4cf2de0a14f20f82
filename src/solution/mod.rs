//! The solved game in hand: a proof certificate and the lemmas it relies on,
//! loaded into one value that says what is proved about a position and which move
//! the proof plays there; a player that never leaves what is proved; and the
//! engine protocol that lets other programs drive it (docs/ENGINE.md).
//!
//! Rooms: this file (`SolvedGame`, the proofs as a map), `known` (what is known about
//! one position, from the tables or the proofs), `player` (the move to play),
//! `engine` (the text protocol, as a state machine the binary feeds lines).

mod engine;
mod known;
mod player;

pub use engine::{Engine, EngineOptions, Reply, SolutionSource, info_value};
pub use known::{Claims, Known};
pub use player::{Choice, Judged, Player, PlayerError, PlayerOptions, Source, Verdict};

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use thiserror::Error;

use crate::certificate::bundle::Bundle;
use crate::certificate::store::LemmaDir;
use crate::certificate::{Certificate, CertificateError, Claim, LemmaRef, Proves, position_key};
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use rayon::prelude::*;

/// Why a solution could not be loaded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SolutionError {
    /// The certificate or a lemma could not be read.
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    /// A lemma the proofs rely on is not in the lemma directory.
    #[error("lemma {name} ({side} {claim} at {position}) is not in {dir}")]
    LemmaMissing {
        /// The lemma's file name.
        name: String,
        /// Its side.
        side: &'static str,
        /// Its claim.
        claim: &'static str,
        /// Its root.
        position: String,
        /// The directory looked in.
        dir: String,
    },
    /// A lemma is not what the certificate that relies on it names.
    #[error("{name}: {reason}")]
    LemmaWrong {
        /// The lemma's file name.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

/// What one proof says about a position for one side: the claim, the move the
/// proof plays there when that side is to move, and the certificate it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fact {
    claim: Claim,
    /// An index into `SolvedGame::moves`, or `NO_MOVE`.
    mv: u32,
    /// An index into `SolvedGame::sources`.
    source: u32,
}

const NO_MOVE: u32 = u32::MAX;

/// Which of two facts of a position and side is kept: a win before "does not
/// lose", a fact with a move before one without, then the root's before a lemma's,
/// lemmas by checksum; a search's replaces any. The order the lemmas are read in
/// (threads) never decides which move is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Order {
    Root,
    Lemma(u64),
    Search,
}

/// The facts of one position: White's and Black's.
#[derive(Clone, Copy, Debug, Default)]
struct Facts {
    white: Option<Fact>,
    black: Option<Fact>,
}

impl Facts {
    fn of(&mut self, side: Color) -> &mut Option<Fact> {
        match side {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    fn get(&self, side: Color) -> Option<Fact> {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }
}

/// A solution: every position of a certificate's proofs and of the lemmas they
/// rely on, with what each proof claims there and the proof's move.
///
/// Positions are exact (a proof does not key them up to symmetry), so a proof's
/// move is a move of the position looked up, in the notation of docs/RULES.md.
/// Loading reads every file's checksum but does not re-check the proofs against
/// the rules: `fanotb check-proof` does that.
///
/// ```
/// use fanotb::{Claim, Color, Position, SolvedGame};
/// let dir = tempfile::tempdir()?;
/// let proof = dir.path().join("3x3.fnproof");
/// let start = Position::start(fanotb::Board::get(3, 3)?);
/// fanotb::prove(dir.path(), &start, &Default::default(), |_| {}, &|_| {})?
///     .certificate
///     .write(&proof)?;
/// let solution = SolvedGame::load(&proof, None)?;
/// // White to move wins on 3x3, and the proof names White's first move.
/// let proved = solution.proved(&start).expect("the root is proved");
/// assert_eq!(proved.claim(Color::White), Some(Claim::Win));
/// assert!(solution.move_for(&start, Color::White).is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SolvedGame {
    board: &'static Board,
    root: Position,
    proves: Proves,
    max_table_stones: u8,
    facts: FxHashMap<(u64, u64), Facts>,
    /// Each distinct move text once, and its index there.
    moves: Vec<Box<str>>,
    move_ids: FxHashMap<Box<str>, u32>,
    /// The certificate file and each lemma's name.
    sources: Vec<String>,
    /// Each source's place in the order facts are preferred in.
    orders: Vec<Order>,
}

impl SolvedGame {
    /// Loads the certificate at `path` and every lemma it relies on, directly or
    /// through other lemmas, from `lemmas` (a lemma directory of loose files or
    /// packs; by default the certificate's own directory), or from the file itself
    /// if it is a bundle ([`crate::bundle_proof`]).
    ///
    /// # Errors
    /// A file that cannot be read or is damaged, a lemma that is missing or is not
    /// the one named.
    pub fn load(path: &Path, lemmas: Option<&Path>) -> Result<SolvedGame, SolutionError> {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        // A bundle holds every lemma its certificate relies on.
        if Bundle::is_bundle(path)? {
            let bundle = Bundle::read(path)?;
            return SolvedGame::gather(bundle.root, name, Some(bundle.lemmas), path);
        }
        let dir: PathBuf = match lemmas {
            Some(d) => d.into(),
            None => path.parent().map_or_else(|| ".".into(), Path::to_path_buf),
        };
        let root = Certificate::read(path)?;
        let store = if root.lemmas.is_empty() {
            None
        } else {
            Some(LemmaDir::open(&dir)?)
        };
        SolvedGame::gather(root, name, store, &dir)
    }

    /// The proof that the tsivy start is a draw, as the repository publishes it
    /// (`proofs/tsivy/start.fnproof`), built into the library: 1.8 MB that spare an
    /// installed program the search for a directory beside it.
    ///
    /// # Errors
    /// None for the files built in (they are read as any other, checksums and all).
    pub fn tsivy_draw() -> Result<SolvedGame, SolutionError> {
        static START: &[u8] = include_bytes!("../../proofs/tsivy/start.fnproof");
        let path = Path::new("(built in)/proofs/tsivy/start.fnproof");
        let bundle = Bundle::from_bytes(path, START)?;
        let name = "tsivy draw (built in)".into();
        SolvedGame::gather(bundle.root, name, Some(bundle.lemmas), path)
    }

    /// `root`, named `name`, and every lemma it relies on from `store` (`dir`).
    fn gather(
        root: Certificate,
        name: String,
        store: Option<LemmaDir>,
        dir: &Path,
    ) -> Result<SolvedGame, SolutionError> {
        let mut s = SolvedGame {
            board: root.root.board(),
            root: root.root,
            proves: root.proves,
            max_table_stones: root.max_table_stones,
            facts: FxHashMap::default(),
            moves: Vec::new(),
            move_ids: FxHashMap::default(),
            sources: Vec::new(),
            orders: Vec::new(),
        };
        let mut seen = rustc_hash::FxHashSet::default();
        let mut pending = s.add_new_refs(&root, &name, &mut seen);
        s.add(&root, name, Order::Root);
        // Level by level, each level read in pack order: a segment is decompressed
        // once a level, not once a lemma. The lemmas of a level are read on the
        // thread pool while this thread adds those read so far.
        while !pending.is_empty() {
            if let Some(store) = &store {
                pending.sort_by_key(|(l, _)| store.place(l.checksum).unwrap_or((usize::MAX, 0)));
            }
            let mut next = Vec::new();
            let (tx, rx) = std::sync::mpsc::channel();
            let (store, board, level) = (store.as_ref(), s.board, &pending);
            std::thread::scope(|scope| -> Result<(), SolutionError> {
                scope.spawn(move || {
                    level.par_iter().for_each_with(tx, |tx, (l, by)| {
                        // A send fails only once an error has ended the reading.
                        let _ = tx.send(read_lemma(store, l, by, dir, board));
                    });
                });
                for read in rx {
                    let (lemma, found, checksum) = read?;
                    next.extend(s.add_new_refs(&lemma, &found, &mut seen));
                    s.add(&lemma, found, Order::Lemma(checksum));
                }
                Ok(())
            })?;
            pending = next;
        }
        Ok(s)
    }

    /// The lemmas `cert` (named `name`) relies on that are not `seen` yet, each with
    /// the name of the certificate that names it; they are `seen` after.
    fn add_new_refs(
        &self,
        cert: &Certificate,
        name: &str,
        seen: &mut rustc_hash::FxHashSet<u64>,
    ) -> Vec<(LemmaRef, String)> {
        cert.lemmas
            .iter()
            .filter(|l| seen.insert(l.checksum))
            .map(|l| (*l, name.to_string()))
            .collect()
    }

    /// Nothing proved yet on `root`'s board, with table leaves of `k` stones: a
    /// solution that searches' wins are added to.
    pub(crate) fn empty(root: Position, k: u8) -> SolvedGame {
        SolvedGame {
            board: root.board(),
            root,
            proves: Proves::Lemma(root.turn(), Claim::NotLose),
            max_table_stones: k,
            facts: FxHashMap::default(),
            moves: Vec::new(),
            move_ids: FxHashMap::default(),
            sources: Vec::new(),
            orders: Vec::new(),
        }
    }

    /// Adds the win a search proved: its positions take its moves over any kept,
    /// so that play from here follows this one proof, which has no cycle.
    pub(crate) fn add_search(&mut self, cert: &Certificate) {
        let name = format!("a search's proof at {}", cert.root);
        self.add(cert, name, Order::Search);
    }

    /// Adds the proofs of `cert`, named `name`, keeping at each position and side
    /// the fact that comes first in `Order`'s rule.
    fn add(&mut self, cert: &Certificate, name: String, order: Order) {
        let source = self.sources.len() as u32;
        self.sources.push(name);
        self.orders.push(order);
        for part in &cert.parts {
            for e in &part.entries {
                let mv = match &e.mv {
                    Some(text) => match self.move_ids.get(text.as_str()) {
                        Some(&id) => id,
                        None => {
                            let id = self.moves.len() as u32;
                            self.moves.push(text.as_str().into());
                            self.move_ids.insert(text.as_str().into(), id);
                            id
                        }
                    },
                    None => NO_MOVE,
                };
                let fact = Fact {
                    claim: part.claim,
                    mv,
                    source,
                };
                let orders = &self.orders;
                let slot = self
                    .facts
                    .entry(position_key(&e.position))
                    .or_default()
                    .of(part.side);
                let better = match slot {
                    None => true,
                    Some(_) if order == Order::Search => true,
                    Some(old) => {
                        let rank = |f: &Fact| {
                            (
                                f.claim != Claim::Win,
                                f.mv == NO_MOVE,
                                orders[f.source as usize],
                            )
                        };
                        rank(&fact) < rank(old)
                    }
                };
                if better {
                    *slot = Some(fact);
                }
            }
        }
    }

    /// The board the proofs are on.
    pub fn board(&self) -> &'static Board {
        self.board
    }

    /// The certificate's root.
    pub fn root(&self) -> &Position {
        &self.root
    }

    /// What the certificate proves about its root.
    pub fn proves(&self) -> Proves {
        self.proves
    }

    /// Positions of at most this many stones are the proofs' table leaves.
    pub fn max_table_stones(&self) -> u8 {
        self.max_table_stones
    }

    /// Distinct positions the proofs hold.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether the proofs hold no position (never, for a loaded certificate).
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Certificates loaded: the root's and each lemma's.
    pub fn certificates(&self) -> usize {
        self.sources.len()
    }

    /// What the proofs establish at `pos` (a position of another board: nothing).
    pub fn proved(&self, pos: &Position) -> Option<Claims> {
        if pos.board() != self.board {
            return None;
        }
        let f = self.facts.get(&position_key(pos))?;
        let source = |f: Option<Fact>| f.map(|f| self.sources[f.source as usize].as_str());
        Some(Claims {
            white: f.white.map(|f| f.claim),
            black: f.black.map(|f| f.claim),
            white_source: source(f.white).map(String::from),
            black_source: source(f.black).map(String::from),
        })
    }

    /// The move a proof for `side` plays at `pos`, in notation, when `side` is to
    /// move there and a proof for it holds the position.
    pub fn move_for(&self, pos: &Position, side: Color) -> Option<&str> {
        if pos.board() != self.board || pos.turn() != side {
            return None;
        }
        let fact = self.facts.get(&position_key(pos))?.get(side)?;
        (fact.mv != NO_MOVE).then(|| &*self.moves[fact.mv as usize])
    }

    /// The claim and the certificate behind it, for `side` at `pos`.
    pub fn claim(&self, pos: &Position, side: Color) -> Option<(Claim, &str)> {
        if pos.board() != self.board {
            return None;
        }
        let fact = self.facts.get(&position_key(pos))?.get(side)?;
        Some((fact.claim, &self.sources[fact.source as usize]))
    }

    /// Bytes the map of positions takes, about.
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<((u64, u64), Facts)>() + 1;
        self.facts.capacity() * entry + self.moves.iter().map(|m| m.len() + 16).sum::<usize>()
    }
}

/// The lemma `l`, named by the certificate `by`, read from `store` (of `dir`) and
/// checked to be the lemma named, on `board`.
fn read_lemma(
    store: Option<&LemmaDir>,
    l: &LemmaRef,
    by: &str,
    dir: &Path,
    board: &'static Board,
) -> Result<(Certificate, String, u64), SolutionError> {
    let found = store.map(|d| d.read(l.checksum)).transpose()?;
    let Some((lemma, found)) = found.flatten() else {
        return Err(SolutionError::LemmaMissing {
            name: l.file_name(),
            side: l.side.name(),
            claim: l.claim.name(),
            position: l.position.to_string(),
            dir: dir.display().to_string(),
        });
    };
    if lemma.root != l.position || lemma.proves != Proves::Lemma(l.side, l.claim) {
        return Err(SolutionError::LemmaWrong {
            name: found,
            reason: format!(
                "it proves {} at {}; {by} names it for {} {} at {}",
                lemma.proves.text(&lemma.root),
                lemma.root,
                l.side.name(),
                l.claim.name(),
                l.position
            ),
        });
    }
    if lemma.root.board() != board {
        return Err(SolutionError::LemmaWrong {
            name: found,
            reason: format!("a proof on {}", lemma.root.board().size_name()),
        });
    }
    Ok((lemma, found, l.checksum))
}
