//! The df-pn search: one run answers "does side A win?" over table leaves, with a
//! transposition table of proof and disproof numbers, checkpoints, limits and
//! progress; a verdict is handed to `extract` for its certificate.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::checkpoint::{self, CheckpointError};
use super::lemmas::Lemmas;
use crate::certificate::Claim;
use crate::probe::ValueTables;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// Proof and disproof numbers at or above this are infinite.
pub(super) const INF: u32 = u32::MAX / 2;
/// A bit above every number, set on the stored proof number of each node on the
/// current search path: a child's repetition check then costs no lookup beyond the
/// one for its numbers.
const ON_PATH: u32 = INF + 1;
/// Search nodes between two progress reports.
const REPORT_EVERY: u64 = 1 << 16;
/// The search's version, raised whenever its choices change (version 2: initial
/// numbers from mobility; 3: and from material): the job log records it, so that
/// a job a weaker search left undecided is tried again.
pub(super) const SEARCH_VERSION: u32 = 3;
/// How often the fixpoint may reject the search's verdict before the search gives up.
const MAX_REPAIRS: usize = 8;
/// Nodes whose children a search keeps, so that a node visited again does not
/// generate its moves, probe its children and count their moves again (df-pn
/// comes back to the same nodes many times); the cache is emptied when full.
/// About 700 bytes a node on tsivy on average (some 45 MB a search when full; a
/// node of many moves takes more).
const CHILDREN_CACHED: usize = 1 << 16;

/// The children buffers of a thread's last search, emptied: PN² runs thousands of
/// small searches a thread, and each would otherwise grow them again from nothing
/// (tens of megabytes of fresh pages); a thread keeps at most the children cache's
/// size. The numbers' table is not among them: the order of its keys, which a
/// larger table would change, orders the certificate.
#[derive(Default)]
struct Spare {
    kids: FxHashMap<Key, (usize, usize)>,
    kid_store: Vec<Child>,
    path_kids: Vec<Child>,
    moves: Vec<Position>,
}

thread_local! {
    static SPARE: std::cell::RefCell<Option<Spare>> = const { std::cell::RefCell::new(None) };
}

/// A position as a transposition-table key: White's stones with the side to move in
/// bit 63 (boards have at most 63 points), and Black's stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Key(pub(super) u64, pub(super) u64);

impl Key {
    pub(super) fn of(p: &Position) -> Key {
        Key(
            p.white() | ((p.turn() == Color::Black) as u64) << 63,
            p.black(),
        )
    }

    /// The position the key stands for, on the board of `on`.
    pub(super) fn position(self, on: &Position) -> Position {
        let turn = if self.0 >> 63 == 1 {
            Color::Black
        } else {
            Color::White
        };
        let white = self.0 & !(1 << 63);
        let (us, them) = match turn {
            Color::White => (white, self.1),
            Color::Black => (self.1, white),
        };
        Position::from_sides(on.board(), us, them, turn)
    }
}

/// Where one search stands, for progress displays.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SearchProgress {
    /// The side whose win the search tries to prove.
    pub attacker: Color,
    /// Nodes expanded so far (a node expanded again counts again).
    pub nodes: u64,
    /// Seconds since the search started.
    pub seconds: f64,
    /// The root's proof number (`u32::MAX / 2` is infinite).
    pub proof: u32,
    /// The root's disproof number (`u32::MAX / 2` is infinite).
    pub disproof: u32,
    /// Positions in the transposition table.
    pub table_entries: usize,
}

/// The outcome of one search.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SearchOutcome {
    /// The side whose win the search tried to prove.
    pub attacker: Color,
    /// `Some(true)`: the attacker wins; `Some(false)`: it does not; `None`: stopped
    /// (by the other search, or at the node limit).
    pub attacker_wins: Option<bool>,
    /// The certificate of the verdict: a win for the attacker, or "does not lose" for
    /// the other side.
    pub graph: Option<ProofGraph>,
    /// Nodes expanded (a node expanded again counts again).
    pub nodes: u64,
    /// Wall time of the search and its extraction, in seconds.
    pub seconds: f64,
    /// Times the fixpoint rejected the search's verdict and the search resumed.
    pub repairs: usize,
    /// Positions loaded from a checkpoint at the start.
    pub resumed: usize,
    /// Positions in the transposition table at the end.
    pub entries: usize,
    /// The root's proof number at the end (`u32::MAX / 2` is infinite).
    pub proof: u32,
    /// The root's disproof number at the end.
    pub disproof: u32,
}

/// Where and how often a search saves its transposition table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckpointPlan {
    /// Files `PREFIX.white.ckpt` and `PREFIX.black.ckpt`, one per search.
    pub prefix: std::path::PathBuf,
    /// Time between two saves of a running search.
    pub every: std::time::Duration,
}

impl CheckpointPlan {
    /// Saves to `PREFIX.white.ckpt` and `PREFIX.black.ckpt` every `every`.
    pub fn new(prefix: impl Into<std::path::PathBuf>, every: std::time::Duration) -> Self {
        CheckpointPlan {
            prefix: prefix.into(),
            every,
        }
    }

    fn path(&self, attacker: Color) -> std::path::PathBuf {
        let mut p = self.prefix.as_os_str().to_owned();
        p.push(format!(".{}.ckpt", attacker.name().to_lowercase()));
        p.into()
    }
}

/// Search limits.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// Give up after this many expanded nodes.
    pub max_nodes: u64,
    /// Give up when the transposition table holds this many positions (its memory
    /// is about 60 bytes a position, measured).
    pub max_entries: usize,
}

impl Limits {
    /// At most `max_nodes` expanded nodes and `max_entries` table positions.
    pub fn new(max_nodes: u64, max_entries: usize) -> Limits {
        Limits {
            max_nodes,
            max_entries,
        }
    }
}

/// No node limit; 100 million positions a transposition table (about 6 GB, so that
/// two searches stay near 12 GiB).
impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_nodes: u64::MAX,
            max_entries: 100_000_000,
        }
    }
}

pub(super) struct Dfpn<'a> {
    pub(super) tables: &'a ValueTables,
    pub(super) lemmas: &'a Lemmas,
    pub(super) attacker: Color,
    /// Proof and disproof numbers; those of the nodes on the path carry `ON_PATH`.
    pub(super) tt: FxHashMap<Key, (u32, u32)>,
    /// The children of nodes expanded lately, at most `kids_cap` nodes': where
    /// each node's lie in `kid_store`, one run of it. Flat, so that a node costs no
    /// allocation of its own, and emptied with the map.
    pub(super) kids: FxHashMap<Key, (usize, usize)>,
    kid_store: Vec<Child>,
    pub(super) kids_cap: usize,
    /// The children of each node on the search path, a node's after its parent's:
    /// what the node loop reads, so that emptying `kid_store` on the way down
    /// changes nothing above.
    path_kids: Vec<Child>,
    /// The buffer `children` generates moves into.
    moves: Vec<Position>,
    pub(super) nodes: u64,
    pub(super) limits: Limits,
    pub(super) stop: &'a AtomicBool,
    pub(super) start: Instant,
    pub(super) progress: &'a (dyn Fn(&SearchProgress) + Sync),
    pub(super) root: Key,
    pub(super) checkpoint: Option<(
        std::path::PathBuf,
        std::time::Duration,
        checkpoint::Identity,
    )>,
    pub(super) last_save: Instant,
    pub(super) save_error: Option<CheckpointError>,
}

/// A child as its key and first numbers (its position is the key's), 24 bytes, so
/// that the children of many nodes fit the cache.
#[derive(Clone, Copy)]
pub(super) struct Child {
    key: Key,
    /// Its numbers before any search: (0, INF) or (INF, 0) when settled without
    /// one (a finished game, a table position or a lemma), else `fresh_numbers`,
    /// never 0.
    fresh: (u32, u32),
}

/// The value of `pos` for its side to move when no search is needed: a finished
/// game or a table position. `None` for positions to search.
pub(super) fn settled(tables: &ValueTables, pos: &Position) -> Option<Wdl> {
    let (us, them) = (pos.us(), pos.them());
    if us == 0 {
        return Some(Wdl::Loss);
    }
    if them == 0 {
        return Some(Wdl::Win);
    }
    if (us | them).count_ones() as usize <= tables.max_stones() {
        return tables.value(us, them);
    }
    None
}

/// What each stone the attacker is behind adds to a fresh position's proof number,
/// and each stone ahead to its disproof number (measured: `docs/guide/proofs.md`,
/// "The search's initial numbers, measured").
const MATERIAL_WEIGHT: u32 = 2;

/// The numbers of a position the search meets for the first time (df-pn with
/// initial numbers): from its mobility m, the number of distinct positions its
/// moves lead to, (1, m) where the attacker moves (one good move proves it, all m
/// must be refuted) and (m, 1) where the other side does; then each stone the
/// attacker is behind makes the proof harder by `MATERIAL_WEIGHT`, each stone
/// ahead the disproof (the game is won by taking every stone).
pub(super) fn fresh_numbers(pos: &Position, attacker: Color) -> (u32, u32) {
    let m = pos.successor_count().clamp(1, 1 << 16) as u32;
    let (attackers, defenders, (pn, dn)) = if pos.turn() == attacker {
        (pos.us(), pos.them(), (1, m))
    } else {
        (pos.them(), pos.us(), (m, 1))
    };
    let (a, d) = (attackers.count_ones(), defenders.count_ones());
    (
        pn + MATERIAL_WEIGHT * d.saturating_sub(a),
        dn + MATERIAL_WEIGHT * a.saturating_sub(d),
    )
}

/// Whether a settled value for the side to move of `pos` is a win for `side`.
pub(super) fn wins_for(side: Color, pos: &Position, v: Wdl) -> bool {
    if pos.turn() == side {
        v == Wdl::Win
    } else {
        v == Wdl::Loss
    }
}

/// Stored numbers with the path mark taken off.
fn unmarked(&(pn, dn): &(u32, u32)) -> (u32, u32) {
    (pn & !ON_PATH, dn)
}

/// A sum of proof or disproof numbers: infinite if either is, else at most INF - 1.
pub(super) fn add(a: u32, b: u32) -> u32 {
    if a >= INF || b >= INF {
        INF
    } else {
        (a + b).min(INF - 1)
    }
}

impl<'a> Dfpn<'a> {
    /// A search of "does `attacker` win at `root`?", nothing searched yet, no
    /// checkpoint.
    pub(super) fn new(
        (tables, lemmas): (&'a ValueTables, &'a Lemmas),
        root: &Position,
        attacker: Color,
        limits: Limits,
        stop: &'a AtomicBool,
        progress: &'a (dyn Fn(&SearchProgress) + Sync),
    ) -> Dfpn<'a> {
        let spare = SPARE.with_borrow_mut(Option::take).unwrap_or_default();
        Dfpn {
            tables,
            lemmas,
            attacker,
            tt: FxHashMap::default(),
            kids: spare.kids,
            kid_store: spare.kid_store,
            kids_cap: CHILDREN_CACHED,
            path_kids: spare.path_kids,
            moves: spare.moves,
            nodes: 0,
            limits,
            stop,
            start: Instant::now(),
            progress,
            root: Key::of(root),
            checkpoint: None,
            last_save: Instant::now(),
            save_error: None,
        }
    }
}

impl Drop for Dfpn<'_> {
    /// Leaves the children buffers, emptied, to the thread's next search.
    fn drop(&mut self) {
        let mut spare = Spare {
            kids: std::mem::take(&mut self.kids),
            kid_store: std::mem::take(&mut self.kid_store),
            path_kids: std::mem::take(&mut self.path_kids),
            moves: std::mem::take(&mut self.moves),
        };
        spare.kids.clear();
        spare.kid_store.clear();
        spare.path_kids.clear();
        SPARE.with_borrow_mut(|s| *s = Some(spare));
    }
}

impl Dfpn<'_> {
    /// Puts the children of `pos` (`key`) on top of `path_kids`, from the cache
    /// when it holds them; returns where they start. Nothing they hold changes
    /// during a search: the tables and lemmas are fixed, and the initial numbers
    /// depend on the position alone.
    fn children(&mut self, pos: &Position, key: Key) -> usize {
        let base = self.path_kids.len();
        if let Some(&(start, len)) = self.kids.get(&key) {
            self.path_kids
                .extend_from_slice(&self.kid_store[start..start + len]);
            return base;
        }
        let mut moves = std::mem::take(&mut self.moves);
        pos.successors_into(&mut moves);
        for c in &moves {
            let leaf = settled(self.tables, c)
                .map(|v| wins_for(self.attacker, c, v))
                .or_else(|| self.lemma_answer(c));
            let fresh = match leaf {
                Some(true) => (0, INF),
                Some(false) => (INF, 0),
                None => fresh_numbers(c, self.attacker),
            };
            self.path_kids.push(Child {
                key: Key::of(c),
                fresh,
            });
        }
        self.moves = moves;
        if self.kids.len() >= self.kids_cap {
            self.kids.clear();
            self.kid_store.clear();
        }
        if self.kids_cap > 0 {
            let start = self.kid_store.len();
            self.kid_store.extend_from_slice(&self.path_kids[base..]);
            self.kids.insert(key, (start, self.path_kids.len() - base));
        }
        base
    }

    /// What the lemmas settle of "does the attacker win at `pos`?", the root's own
    /// lemmas left out: play that comes back to the root must not end on them (a
    /// win would go round the cycle the checker refuses).
    fn lemma_answer(&self, pos: &Position) -> Option<bool> {
        (Key::of(pos) != self.root)
            .then(|| self.lemmas.attacker_wins(self.attacker, pos))
            .flatten()
    }

    /// The lemma that serves `side`'s `claim` at `pos` (`Err`: one refutes it), the
    /// root's own lemmas left out, as in `lemma_answer`.
    pub(super) fn lemma_serving(
        &self,
        side: Color,
        claim: Claim,
        pos: &Position,
    ) -> Option<Result<crate::certificate::LemmaRef, ()>> {
        (Key::of(pos) != self.root)
            .then(|| self.lemmas.serving(side, claim, pos))
            .flatten()
    }

    /// Proof and disproof numbers of a child as the search knows them now.
    fn numbers(&self, c: &Child) -> (u32, u32) {
        if c.fresh.0 == 0 || c.fresh.1 == 0 {
            // Settled: never searched, so never in the table.
            return c.fresh;
        }
        match self.tt.get(&c.key) {
            // A repetition: the attacker gains nothing by going round.
            Some(&(pn, _)) if pn & ON_PATH != 0 => (INF, 0),
            Some(&numbers) => numbers,
            None => c.fresh,
        }
    }

    fn save(&mut self) {
        if let Some((path, _, id)) = &self.checkpoint {
            let entries = self.tt.iter().map(|(k, v)| ((k.0, k.1), unmarked(v)));
            if let Err(e) = checkpoint::save(path, *id, self.tt.len(), entries) {
                self.save_error = Some(e);
            }
            self.last_save = Instant::now();
        }
    }

    fn report(&mut self) {
        if self
            .checkpoint
            .as_ref()
            .is_some_and(|(_, every, _)| self.last_save.elapsed() >= *every)
        {
            self.save();
        }
        let (pn, dn) = self.tt.get(&self.root).map(unmarked).unwrap_or((1, 1));
        (self.progress)(&SearchProgress {
            attacker: self.attacker,
            nodes: self.nodes,
            seconds: self.start.elapsed().as_secs_f64(),
            proof: pn,
            disproof: dn,
            table_entries: self.tt.len(),
        });
    }

    fn halted(&self) -> bool {
        self.stop.load(Relaxed)
            || self.nodes >= self.limits.max_nodes
            || self.tt.len() >= self.limits.max_entries
            || self.save_error.is_some()
    }

    /// Multiple iterative deepening: expands `pos` until its proof number reaches
    /// `th_pn` or its disproof number `th_dn`; returns and stores the numbers.
    fn mid(&mut self, pos: &Position, key: Key, th_pn: u32, th_dn: u32) -> (u32, u32) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(REPORT_EVERY) {
            self.report();
        }
        let or = pos.turn() == self.attacker;
        let base = self.children(pos, key);
        let end = self.path_kids.len();
        let mut result;
        loop {
            // (pn, dn) of the node, and the child to descend into with its numbers
            // and the runner-up's number on the minimised side.
            let (mut pn, mut dn) = if or { (INF, 0) } else { (0, INF) };
            let mut best: Option<(usize, u32, u32)> = None;
            let mut second = INF;
            for i in base..end {
                let (cp, cd) = self.numbers(&self.path_kids[i]);
                // m: the number the node minimises over its children; s: the other.
                let (m, s) = if or {
                    pn = pn.min(cp);
                    dn = add(dn, cd);
                    (cp, cd)
                } else {
                    pn = add(pn, cp);
                    dn = dn.min(cd);
                    (cd, cp)
                };
                match best {
                    Some((_, bm, _)) if m >= bm => second = second.min(m),
                    _ => {
                        if let Some((_, bm, _)) = best {
                            second = bm;
                        }
                        best = Some((i, m, s));
                    }
                }
            }
            result = (pn, dn);
            // The child to descend into, if the node goes on (a halted search goes
            // no deeper); it keeps its path mark only then, so that leaving the loop
            // stores it plain.
            let next =
                best.filter(|_| pn < th_pn && dn < th_dn && pn != 0 && dn != 0 && !self.halted());
            self.tt.insert(
                key,
                if next.is_some() {
                    (pn | ON_PATH, dn)
                } else {
                    result
                },
            );
            let Some((i, _, s)) = next else { break };
            // 1 + 1/4 threshold: fewer switches between siblings of close numbers.
            let grow = second.saturating_add(second / 4).saturating_add(1).min(INF);
            let ckey = self.path_kids[i].key;
            let cpos = ckey.position(pos);
            if or {
                let cth_pn = th_pn.min(grow);
                let cth_dn = (th_dn - dn).saturating_add(s).min(INF);
                self.mid(&cpos, ckey, cth_pn, cth_dn);
            } else {
                let cth_dn = th_dn.min(grow);
                let cth_pn = (th_pn - pn).saturating_add(s).min(INF);
                self.mid(&cpos, ckey, cth_pn, cth_dn);
            }
        }
        self.path_kids.truncate(base);
        result
    }

    /// Runs the search at the root until it is decided or halted.
    fn run(&mut self, root: &Position) -> Option<bool> {
        let key = Key::of(root);
        self.root = key;
        let (pn, dn) = self.mid(root, key, INF, INF);
        self.report();
        match (pn, dn) {
            (0, _) => Some(true),
            (_, 0) => Some(false),
            _ => None,
        }
    }
}

/// Decides whether `attacker` wins `root` under the tables, and extracts the
/// certificate of the answer. `stop` ends the search early from outside. With a
/// checkpoint plan the search starts from its saved table if there is one, saves it
/// as it goes and when it stops undecided, and removes it once decided.
pub(super) fn search(
    (tables, lemmas): (&ValueTables, &Lemmas),
    root: &Position,
    attacker: Color,
    limits: Limits,
    checkpoint: Option<&CheckpointPlan>,
    stop: &AtomicBool,
    progress: &(dyn Fn(&SearchProgress) + Sync),
) -> Result<SearchOutcome, CheckpointError> {
    let color = |c: Color| (c == Color::Black) as u8;
    let id = checkpoint::Identity {
        white: root.white(),
        black: root.black(),
        turn: color(root.turn()),
        attacker: color(attacker),
        table_stones: tables.max_stones() as u8,
    };
    let mut s = Dfpn::new((tables, lemmas), root, attacker, limits, stop, progress);
    s.checkpoint = checkpoint.map(|c| (c.path(attacker), c.every, id));
    let mut resumed = 0;
    if let Some((path, _, id)) = &s.checkpoint {
        let tt = &mut s.tt;
        resumed = checkpoint::load(path, *id, |k, v| {
            // Numbers above INF are infinite; none may pass for a path mark.
            tt.insert(Key(k.0, k.1), (v.0.min(INF), v.1.min(INF)));
        })?
        .unwrap_or(0);
    }
    let mut repairs = 0;
    loop {
        let verdict = s.run(root);
        if let Some(e) = s.save_error.take() {
            return Err(e);
        }
        let (proof, disproof) = s.tt.get(&s.root).copied().unwrap_or((1, 1));
        let done = |s: &Dfpn, verdict, graph, repairs| SearchOutcome {
            attacker,
            attacker_wins: verdict,
            graph,
            nodes: s.nodes,
            seconds: s.start.elapsed().as_secs_f64(),
            repairs,
            resumed,
            entries: s.tt.len(),
            proof,
            disproof,
        };
        let Some(win) = verdict else {
            if !stop.load(Relaxed) {
                s.save();
                if let Some(e) = s.save_error.take() {
                    return Err(e);
                }
            }
            return Ok(done(&s, None, None, repairs));
        };
        match s.extract(root, win) {
            Ok(g) => {
                if let Some((path, _, _)) = &s.checkpoint {
                    let _ = std::fs::remove_file(path);
                }
                return Ok(done(&s, verdict, Some(g), repairs));
            }
            Err(rejected) if repairs < MAX_REPAIRS => {
                for k in rejected {
                    s.tt.remove(&k);
                }
                repairs += 1;
            }
            Err(_) => return Ok(done(&s, None, None, repairs)),
        }
    }
}

/// One proof: the positions of the proof graph, each S-to-move one with S's move.
#[derive(Clone, Debug)]
pub struct ProofGraph {
    /// The side S the proof is for.
    pub side: Color,
    /// What it proves for S.
    pub claim: Claim,
    /// Every position of the graph, sorted, with S's chosen successor where S moves.
    pub nodes: Vec<(Position, Option<Position>)>,
    /// The lemmas its moves lead to, in certificate order.
    pub lemmas: Vec<crate::certificate::LemmaRef>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::LemmaRef;
    use crate::proof::prove::{ProveOptions, prepare_tables};

    /// A child is kept as its key alone: the key gives back its position, either
    /// side to move, on every board up to tsivy (every position two plies from
    /// each start).
    #[test]
    fn a_key_gives_back_its_position() {
        for (w, h) in [(3, 3), (5, 3), (5, 5), (9, 5)] {
            let start = Position::start(crate::rules::board::Board::get(w, h).unwrap());
            let mut all = vec![start];
            for p in start.successors() {
                all.push(p);
                all.extend(p.successors());
            }
            assert!(all.iter().any(|p| p.turn() == Color::Black));
            for p in &all {
                assert_eq!(Key::of(p).position(&start), *p);
            }
        }
    }

    /// A search reads every lemma but its root's own: a "White wins" lemma at the
    /// root and one at a successor, and only the successor's settles anything.
    #[test]
    fn a_search_leaves_out_its_root_own_lemmas() {
        let dir = tempfile::tempdir().unwrap();
        let root: Position = "W3W/5/5/5/2B2 w".parse().unwrap();
        let next = root.successors()[0];
        let opts = ProveOptions {
            max_table_stones: 2,
            ..ProveOptions::default()
        };
        let (tables, _) = prepare_tables(dir.path(), &root, &opts, |_| {}).unwrap();
        let mut lemmas = Lemmas::none();
        for (position, checksum) in [(root, 1), (next, 2)] {
            lemmas.add(LemmaRef {
                position,
                side: Color::White,
                claim: Claim::Win,
                checksum,
            });
        }
        let stop = AtomicBool::new(false);
        let progress = |_: &SearchProgress| {};
        let d = Dfpn::new(
            (&tables, &lemmas),
            &root,
            Color::White,
            Limits::default(),
            &stop,
            &progress,
        );
        assert_eq!(d.lemma_answer(&root), None);
        assert_eq!(d.lemma_answer(&next), Some(true));
        let serving = |p| {
            d.lemma_serving(Color::White, Claim::Win, p)
                .map(|l| l.map(|l| l.checksum))
        };
        assert_eq!(serving(&root), None);
        assert_eq!(serving(&next), Some(Ok(2)));
        // Black's "does not lose" is refuted at the successor, not at the root.
        assert_eq!(d.lemma_serving(Color::Black, Claim::NotLose, &root), None);
        assert_eq!(
            d.lemma_serving(Color::Black, Claim::NotLose, &next),
            Some(Err(()))
        );
    }

    /// The dimy start and its tables of up to 2 stones, built in `dir`.
    fn dimy_start(dir: &std::path::Path) -> (Position, ValueTables) {
        let root = Position::start(crate::rules::board::Board::get(5, 5).unwrap());
        let opts = ProveOptions {
            max_table_stones: 2,
            ..ProveOptions::default()
        };
        let (tables, _) = prepare_tables(dir, &root, &opts, |_| {}).unwrap();
        (root, tables)
    }

    /// Keeping a node's children is a cache and nothing more: without it, with
    /// room for one node (emptied at every new node) and with the default room, a
    /// search expands the same nodes to the same numbers and the same verdict,
    /// over lemmas too (one at the root, which the search leaves out, and some
    /// three plies down: claims taken as given here, unchecked).
    #[test]
    fn the_children_cache_changes_nothing_the_search_finds() {
        let dir = tempfile::tempdir().unwrap();
        let (root, tables) = dimy_start(dir.path());
        let mut lemmas = Lemmas::none();
        let last = |p: &Position| *p.successors().last().expect("a move");
        let deeper = last(&last(&root)).successors();
        let given = [(root, Color::Black, Claim::Win)].into_iter().chain(
            deeper
                .iter()
                .take(2)
                .map(|p| (*p, p.turn(), Claim::NotLose)),
        );
        for (checksum, (position, side, claim)) in given.enumerate() {
            lemmas.add(LemmaRef {
                position,
                side,
                claim,
                checksum: checksum as u64,
            });
        }
        let stop = AtomicBool::new(false);
        let progress = |_: &SearchProgress| {};
        let no_lemmas = Lemmas::none();
        let mut lemmas_mattered = false;
        for attacker in [Color::White, Color::Black] {
            let run_over = |lemmas, cap| {
                let mut d = Dfpn::new(
                    (&tables, lemmas),
                    &root,
                    attacker,
                    Limits::default(),
                    &stop,
                    &progress,
                );
                d.kids_cap = cap;
                let verdict = d.run(&root);
                let mut tt: Vec<_> = std::mem::take(&mut d.tt).into_iter().collect();
                tt.sort_unstable();
                (verdict, d.nodes, tt)
            };
            let run = |cap| run_over(&lemmas, cap);
            let reference = run(0);
            lemmas_mattered |= run_over(&no_lemmas, CHILDREN_CACHED).1 != reference.1;
            assert!(reference.0.is_some(), "decided");
            assert!(
                reference.1 > 1000,
                "{} nodes: too small to revisit",
                reference.1
            );
            assert_eq!(run(1), reference);
            assert_eq!(run(CHILDREN_CACHED), reference);
        }
        assert!(
            lemmas_mattered,
            "the lemmas three plies down changed no search"
        );
    }

    /// A thread's earlier searches leave it their buffers, never their children:
    /// after searches of other positions for the other side (whose children
    /// overlap the root's, with other numbers), a search finds what it finds in a
    /// fresh thread, node for node.
    #[test]
    fn a_search_finds_the_same_after_others_in_its_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (root, tables) = dimy_start(dir.path());
        let lemmas = Lemmas::none();
        static NEVER: AtomicBool = AtomicBool::new(false);
        fn quiet(_: &SearchProgress) {}
        let run = |pos: &Position, attacker| {
            let limits = Limits::new(20_000, 1 << 20);
            let mut d = Dfpn::new((&tables, &lemmas), pos, attacker, limits, &NEVER, &quiet);
            let verdict = d.run(pos);
            let mut tt: Vec<_> = std::mem::take(&mut d.tt).into_iter().collect();
            tt.sort_unstable();
            (verdict, d.nodes, tt)
        };
        let fresh = std::thread::scope(|s| s.spawn(|| run(&root, Color::White)).join())
            .expect("the fresh thread's search");
        assert!(fresh.1 > 1000, "{} nodes: too small to revisit", fresh.1);
        for p in root.successors() {
            run(&p, Color::Black);
        }
        assert_eq!(run(&root, Color::White), fresh);
    }

    /// The path marks stay inside the search: the checkpoints saved in the middle
    /// of it (at every report here, the first with the root on the path at least)
    /// and the table it ends with, halted or decided, hold plain numbers, and a
    /// search resumed from the middle reaches the same verdict.
    #[test]
    fn the_path_marks_stay_inside_the_search() {
        let dir = tempfile::tempdir().unwrap();
        let (root, tables) = dimy_start(dir.path());
        let lemmas = Lemmas::none();
        let stop = AtomicBool::new(false);
        let file = dir.path().join("dimy.ckpt");
        let saved = std::sync::Mutex::new(Vec::new());
        let progress = |_: &SearchProgress| {
            saved.lock().unwrap().push(std::fs::read(&file).unwrap());
        };
        let id = checkpoint::Identity {
            white: root.white(),
            black: root.black(),
            turn: 0,
            attacker: 0,
            table_stones: 2,
        };
        let new_within = |limits| {
            let mut d = Dfpn::new(
                (&tables, &lemmas),
                &root,
                Color::White,
                limits,
                &stop,
                &progress,
            );
            d.checkpoint = Some((file.clone(), std::time::Duration::ZERO, id));
            d
        };
        let plain = |d: &Dfpn| d.tt.values().all(|&(pn, dn)| pn <= INF && dn <= INF);
        // Halted with the whole path below the root open, and then decided.
        let mut halted = new_within(Limits::new(5_000, usize::MAX));
        assert_eq!(halted.run(&root), None);
        assert!(plain(&halted));
        saved.lock().unwrap().clear();
        let new = || new_within(Limits::default());
        let mut d = new();
        let verdict = d.run(&root);
        assert!(verdict.is_some(), "decided");
        assert!(plain(&d));
        let saved = std::mem::take(&mut *saved.lock().unwrap());
        assert!(
            saved.len() >= 2,
            "{} reports: none in the middle",
            saved.len()
        );
        let middle = &saved[0];
        std::fs::write(&file, middle).unwrap();
        let mut resumed = new();
        let entries = checkpoint::load(&file, id, |k, (pn, dn)| {
            assert!(pn <= INF && dn <= INF, "a path mark saved: {pn:#x} {dn:#x}");
            resumed.tt.insert(Key(k.0, k.1), (pn, dn));
        });
        assert!(entries.unwrap().unwrap() > 0);
        assert_eq!(resumed.run(&root), verdict);
    }

    /// A fresh position starts from its mobility, turned by who moves, and each
    /// stone of difference makes the behind side's number harder by the weight.
    #[test]
    fn fresh_numbers_come_from_mobility_and_material() {
        // White: two stones, Black: one; White to move, three steps from each
        // corner, none capturing.
        let ahead: Position = "W3W/5/5/5/2B2 w".parse().unwrap();
        assert_eq!(ahead.successor_count(), 6);
        assert_eq!(fresh_numbers(&ahead, Color::White), (1, 8));
        assert_eq!(fresh_numbers(&ahead, Color::Black), (8, 1));
        // Stones level: mobility alone (the black stone's five steps).
        let level: Position = "W4/5/5/5/2B2 b".parse().unwrap();
        assert_eq!(level.successor_count(), 5);
        assert_eq!(fresh_numbers(&level, Color::Black), (1, 5));
        assert_eq!(fresh_numbers(&level, Color::White), (5, 1));
        // Three stones behind, the attacker to move: its proof is harder.
        let behind: Position = "W4/5/5/5/BB1BB w".parse().unwrap();
        assert_eq!(behind.successor_count(), 3);
        assert_eq!(fresh_numbers(&behind, Color::White), (7, 3));
        assert_eq!(fresh_numbers(&behind, Color::Black), (3, 7));
    }
}
