//! Proof-number search (df-pn) for the exact value of a position whose material is
//! beyond the tables, with table probes as leaves, and the extraction of a
//! certificate that `check` can verify without trusting this search.
//!
//! One df-pn run answers "does side A win?". A proof is a win for A; a disproof is a
//! proof that the other side does not lose (a repetition counts against A: play that
//! never ends is a draw). The value of a position takes at most two runs: A = the side
//! to move, then A = the other side. With two threads both run at once and a win
//! found by either stops the other.
//!
//! Transpositions and repetitions make a df-pn value path-dependent (the "graph
//! history interaction"): a node disproved through a repetition with one ancestor
//! may be stored and reused under another. The certificate is therefore not read off
//! the search tree but computed from the transposition table by an exact fixpoint
//! over the game graph (least for a win, greatest for a draw); entries the fixpoint
//! rejects are cleared and the search resumes.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::position::{Color, Position};
use crate::probe::ValueTables;
use crate::value::Wdl;

/// Proof and disproof numbers at or above this are infinite.
const INF: u32 = u32::MAX / 2;
/// Search nodes between two progress reports.
const REPORT_EVERY: u64 = 1 << 16;
/// How often the fixpoint may reject the search's verdict before the search gives up.
const MAX_REPAIRS: usize = 8;

/// A position as a transposition-table key: White's stones with the side to move in
/// bit 63 (boards have at most 63 points), and Black's stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key(u64, u64);

impl Key {
    fn of(p: &Position) -> Key {
        Key(
            p.white() | ((p.turn() == Color::Black) as u64) << 63,
            p.black(),
        )
    }
}

/// What a proof establishes for its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The side wins: every line ends, in a table position won for it or a finished
    /// game (the proof graph is acyclic).
    Win,
    /// The side does not lose: cycles are allowed, since play that never ends is a
    /// draw.
    NotLose,
}

impl Claim {
    /// "wins" or "does not lose", as the claim reads after a side's name.
    pub fn name(self) -> &'static str {
        match self {
            Claim::Win => "wins",
            Claim::NotLose => "does not lose",
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
}

/// Where one search stands, for progress displays.
#[derive(Clone, Copy, Debug)]
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
}

/// Where and how often a search saves its transposition table.
#[derive(Clone, Debug)]
pub struct CheckpointPlan {
    /// Files `PREFIX.white.ckpt` and `PREFIX.black.ckpt`, one per search.
    pub prefix: std::path::PathBuf,
    /// Time between two saves of a running search.
    pub every: std::time::Duration,
}

impl CheckpointPlan {
    fn path(&self, attacker: Color) -> std::path::PathBuf {
        let mut p = self.prefix.as_os_str().to_owned();
        p.push(format!(".{}.ckpt", attacker.name().to_lowercase()));
        p.into()
    }
}

/// Search limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Give up after this many expanded nodes.
    pub max_nodes: u64,
    /// Give up when the transposition table holds this many positions (its memory
    /// is about 60 bytes a position, measured).
    pub max_entries: usize,
}

struct Dfpn<'a> {
    tables: &'a ValueTables,
    attacker: Color,
    tt: FxHashMap<Key, (u32, u32)>,
    path: FxHashSet<Key>,
    nodes: u64,
    limits: Limits,
    stop: &'a AtomicBool,
    start: Instant,
    progress: &'a (dyn Fn(&SearchProgress) + Sync),
    root: Key,
    checkpoint: Option<(
        std::path::PathBuf,
        std::time::Duration,
        crate::checkpoint::Identity,
    )>,
    last_save: Instant,
    save_error: Option<crate::checkpoint::CheckpointError>,
}

struct Child {
    pos: Position,
    key: Key,
    /// Settled without search: a finished game or a table position.
    leaf: Option<bool>,
}

/// The value of `pos` for its side to move when no search is needed: a finished
/// game or a table position. `None` for positions to search.
fn settled(tables: &ValueTables, pos: &Position) -> Option<Wdl> {
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

/// Whether a settled value for the side to move of `pos` is a win for `side`.
fn wins_for(side: Color, pos: &Position, v: Wdl) -> bool {
    if pos.turn() == side {
        v == Wdl::Win
    } else {
        v == Wdl::Loss
    }
}

fn add(a: u32, b: u32) -> u32 {
    if a >= INF || b >= INF {
        INF
    } else {
        (a + b).min(INF - 1)
    }
}

impl Dfpn<'_> {
    fn children(&self, pos: &Position) -> Vec<Child> {
        pos.successors()
            .into_iter()
            .map(|c| Child {
                key: Key::of(&c),
                leaf: settled(self.tables, &c).map(|v| wins_for(self.attacker, &c, v)),
                pos: c,
            })
            .collect()
    }

    /// Proof and disproof numbers of a child as the search knows them now.
    fn numbers(&self, c: &Child) -> (u32, u32) {
        match c.leaf {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            // A repetition: the attacker gains nothing by going round.
            None if self.path.contains(&c.key) => (INF, 0),
            None => self.tt.get(&c.key).copied().unwrap_or((1, 1)),
        }
    }

    fn save(&mut self) {
        if let Some((path, _, id)) = &self.checkpoint {
            let entries = self.tt.iter().map(|(k, v)| ((k.0, k.1), *v));
            if let Err(e) = crate::checkpoint::save(path, *id, self.tt.len(), entries) {
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
        let (pn, dn) = self.tt.get(&self.root).copied().unwrap_or((1, 1));
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
        let kids = self.children(pos);
        self.path.insert(key);
        let mut result;
        loop {
            // (pn, dn) of the node, and the child to descend into with its numbers
            // and the runner-up's number on the minimised side.
            let (mut pn, mut dn) = if or { (INF, 0) } else { (0, INF) };
            let mut best: Option<(usize, u32, u32)> = None;
            let mut second = INF;
            for (i, c) in kids.iter().enumerate() {
                let (cp, cd) = self.numbers(c);
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
            self.tt.insert(key, result);
            if pn >= th_pn || dn >= th_dn || pn == 0 || dn == 0 || self.halted() {
                break;
            }
            let Some((i, _, s)) = best else { break };
            // 1 + 1/4 threshold: fewer switches between siblings of close numbers.
            let grow = second.saturating_add(second / 4).saturating_add(1).min(INF);
            let c = &kids[i];
            let (cpos, ckey) = (c.pos, c.key);
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
        self.path.remove(&key);
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

    /// The certificate of the verdict at `root`, computed as a fixpoint over the
    /// positions the table marks decided that way. On failure, returns the keys
    /// whose marks the fixpoint rejected.
    fn extract(&self, root: &Position, win: bool) -> Result<ProofGraph, Vec<Key>> {
        let side = if win {
            self.attacker
        } else {
            self.attacker.other()
        };
        let rk = Key::of(root);
        let marked = |k: &Key| {
            self.tt
                .get(k)
                .is_some_and(|&(pn, dn)| if win { pn == 0 } else { dn == 0 })
        };
        // The candidate positions, the root first.
        let mut ids: FxHashMap<Key, usize> = FxHashMap::default();
        let mut nodes: Vec<Position> = vec![*root];
        ids.insert(rk, 0);
        for k in self.tt.keys() {
            if *k != rk && marked(k) {
                ids.insert(*k, nodes.len());
                nodes.push(key_position(root, *k));
            }
        }
        let n = nodes.len();
        // Per node: whether its side to move is S; its children as good leaves,
        // candidates or anything else (bad).
        let mut s_node = vec![false; n];
        let mut good_leaf: Vec<Option<Position>> = vec![None; n];
        let mut bad = vec![false; n];
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in nodes.iter().enumerate() {
            s_node[i] = p.turn() == side;
            for c in p.successors() {
                let ok = settled(self.tables, &c).map(|v| {
                    if win {
                        wins_for(side, &c, v)
                    } else {
                        !wins_for(side.other(), &c, v)
                    }
                });
                match (ok, ids.get(&Key::of(&c))) {
                    (Some(true), _) => {
                        if good_leaf[i].is_none() {
                            good_leaf[i] = Some(c);
                        }
                    }
                    (None, Some(&j)) => {
                        kids[i].push(j);
                        parents[j].push(i);
                    }
                    _ => bad[i] = true,
                }
            }
        }
        let mut choice: Vec<Option<usize>> = vec![None; n];
        let graph = (kids.as_slice(), parents.as_slice());
        let accepted = fixpoint(win, &s_node, &good_leaf, &bad, graph, &mut choice);
        if !accepted[0] {
            return Err(ids
                .iter()
                .filter(|&(_, &i)| !accepted[i])
                .map(|(k, _)| *k)
                .collect());
        }
        // The graph reachable from the root through S's choices.
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        let mut out = Vec::new();
        while let Some(i) = stack.pop() {
            let next: Vec<usize> = if s_node[i] {
                choice[i].into_iter().collect()
            } else {
                kids[i].clone()
            };
            let chosen = if s_node[i] {
                Some(match choice[i] {
                    Some(j) => nodes[j],
                    None => good_leaf[i].expect("an accepted S node has a move"),
                })
            } else {
                None
            };
            out.push((nodes[i], chosen));
            for j in next {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        out.sort_by_key(|(p, _)| Key::of(p));
        Ok(ProofGraph {
            side,
            claim: if win { Claim::Win } else { Claim::NotLose },
            nodes: out,
        })
    }
}

/// The position a key stands for, on the root's board.
fn key_position(root: &Position, k: Key) -> Position {
    let turn = if k.0 >> 63 == 1 {
        Color::Black
    } else {
        Color::White
    };
    let white = k.0 & !(1 << 63);
    let (us, them) = match turn {
        Color::White => (white, k.1),
        Color::Black => (k.1, white),
    };
    Position::from_sides(root.board(), us, them, turn)
}

/// The attractor of a player in the candidate graph: the nodes from which it can
/// force play into its target. A node where it chooses joins when it has a
/// `direct` way into the target or a child that joined (recorded in `choice`; the
/// child joined first, so the choices are acyclic); a node where the other side
/// moves joins when it is not `blocked` (no way out) and all its children joined.
fn attractor(
    chooser: &[bool],
    direct: &[bool],
    blocked: &[bool],
    kids: &[Vec<usize>],
    parents: &[Vec<usize>],
    choice: &mut [Option<usize>],
) -> Vec<bool> {
    let n = chooser.len();
    let mut joined = vec![false; n];
    let mut need: Vec<usize> = kids.iter().map(Vec::len).collect();
    let mut queue: Vec<usize> = (0..n)
        .filter(|&i| {
            if chooser[i] {
                direct[i]
            } else {
                !blocked[i] && need[i] == 0
            }
        })
        .collect();
    for &i in &queue {
        joined[i] = true;
    }
    while let Some(w) = queue.pop() {
        for &p in &parents[w] {
            if joined[p] {
                continue;
            }
            if chooser[p] {
                choice[p] = Some(w);
            } else {
                need[p] -= 1;
                if need[p] > 0 || blocked[p] {
                    continue;
                }
            }
            joined[p] = true;
            queue.push(p);
        }
    }
    joined
}

/// The nodes S's claim holds at, with S's choices. A win (`win`): the least
/// fixpoint, S's attractor to its good leaves. Not losing: the greatest fixpoint,
/// the complement of the opponent's attractor to a bad exit (an S node with a good
/// leaf cannot be forced); S's move at a kept node is a good leaf, else a kept child.
fn fixpoint(
    win: bool,
    s_node: &[bool],
    good_leaf: &[Option<Position>],
    bad: &[bool],
    (kids, parents): (&[Vec<usize>], &[Vec<usize>]),
    choice: &mut [Option<usize>],
) -> Vec<bool> {
    let exit: Vec<bool> = good_leaf.iter().map(Option::is_some).collect();
    if win {
        return attractor(s_node, &exit, bad, kids, parents, choice);
    }
    let opponent: Vec<bool> = s_node.iter().map(|s| !s).collect();
    let direct: Vec<bool> = (0..s_node.len()).map(|i| !s_node[i] && bad[i]).collect();
    let mut forced = vec![None; s_node.len()];
    let lost = attractor(&opponent, &direct, &exit, kids, parents, &mut forced);
    let alive: Vec<bool> = lost.iter().map(|l| !l).collect();
    for i in 0..s_node.len() {
        if alive[i] && s_node[i] && !exit[i] {
            choice[i] = kids[i].iter().copied().find(|&j| alive[j]);
        }
    }
    alive
}

/// Decides whether `attacker` wins `root` under the tables, and extracts the
/// certificate of the answer. `stop` ends the search early from outside. With a
/// checkpoint plan the search starts from its saved table if there is one, saves it
/// as it goes and when it stops undecided, and removes it once decided.
pub fn search(
    tables: &ValueTables,
    root: &Position,
    attacker: Color,
    limits: Limits,
    checkpoint: Option<&CheckpointPlan>,
    stop: &AtomicBool,
    progress: &(dyn Fn(&SearchProgress) + Sync),
) -> Result<SearchOutcome, crate::checkpoint::CheckpointError> {
    let color = |c: Color| (c == Color::Black) as u8;
    let id = crate::checkpoint::Identity {
        white: root.white(),
        black: root.black(),
        turn: color(root.turn()),
        attacker: color(attacker),
        table_stones: tables.max_stones() as u8,
    };
    let mut s = Dfpn {
        tables,
        attacker,
        tt: FxHashMap::default(),
        path: FxHashSet::default(),
        nodes: 0,
        limits,
        stop,
        start: Instant::now(),
        progress,
        root: Key::of(root),
        checkpoint: checkpoint.map(|c| (c.path(attacker), c.every, id)),
        last_save: Instant::now(),
        save_error: None,
    };
    let mut resumed = 0;
    if let Some((path, _, id)) = &s.checkpoint {
        let tt = &mut s.tt;
        resumed = crate::checkpoint::load(path, *id, |k, v| {
            tt.insert(Key(k.0, k.1), v);
        })?
        .unwrap_or(0);
    }
    let mut repairs = 0;
    loop {
        let verdict = s.run(root);
        if let Some(e) = s.save_error.take() {
            return Err(e);
        }
        let done = |s: &Dfpn, verdict, graph, repairs| SearchOutcome {
            attacker,
            attacker_wins: verdict,
            graph,
            nodes: s.nodes,
            seconds: s.start.elapsed().as_secs_f64(),
            repairs,
            resumed,
            entries: s.tt.len(),
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

/// Why `prove` could not answer.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// Building or finding the tables failed.
    #[error(transparent)]
    Generate(#[from] crate::retro::GenerateError),
    /// Loading the tables for the search failed.
    #[error(transparent)]
    Probe(#[from] crate::probe::ProbeError),
    /// Writing or reading a certificate failed (`prove` itself writes none).
    #[error(transparent)]
    Certificate(#[from] crate::certificate::CertificateError),
    /// Loading or saving a search checkpoint failed.
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
    /// The position is over: the named side has no stones.
    #[error("the position is over: {0} has no stones")]
    NoStones(&'static str),
    /// Table leaves of fewer than 2 stones were asked for; holds the number asked.
    #[error("table leaves of at most {0} stones asked for: tables start at 2 stones")]
    TooFewStones(usize),
    /// Table leaves of more stones than the board has points were asked for.
    #[error(
        "table leaves of at most {k} stones asked for: more than the {points} points of the board"
    )]
    TooManyStones {
        /// Stones asked for.
        k: usize,
        /// Points of the board.
        points: usize,
    },
    /// A search stopped at a limit (or its verdict could not be certified) before
    /// the value was known.
    #[error(
        "undecided after {nodes} search nodes and {entries} table positions (a limit){}",
        if *.checkpointed { ", saved in the checkpoint" } else { "" }
    )]
    Undecided {
        /// Nodes expanded over all searches.
        nodes: u64,
        /// Positions in the transposition tables at the end, over all searches.
        entries: u64,
        /// Whether the searches were saved to their checkpoints.
        checkpointed: bool,
    },
}

/// How to prove.
#[derive(Clone)]
pub struct ProveOptions {
    /// Positions with at most this many stones are probed in the tables.
    pub max_table_stones: usize,
    /// Table builds and the searches (two searches run at once with two or more).
    pub threads: Option<usize>,
    /// Node and memory limits of each search.
    pub limits: Limits,
    /// Where to save and resume the searches; `None`: no checkpoints.
    pub checkpoint: Option<CheckpointPlan>,
    /// Told of the table builds' progress.
    pub table_observer: Option<std::sync::Arc<dyn crate::retro::Observer>>,
}

impl std::fmt::Debug for ProveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProveOptions")
            .field("max_table_stones", &self.max_table_stones)
            .field("threads", &self.threads)
            .field("limits", &self.limits)
            .field("checkpoint", &self.checkpoint)
            .field("table_observer", &self.table_observer.is_some())
            .finish()
    }
}

/// A proved value with its certificate and the figures of the run.
#[derive(Debug)]
pub struct Proved {
    /// The value and its certificate, ready to write.
    pub certificate: crate::certificate::Certificate,
    /// Every search run, with its verdict (graphs dropped).
    pub searches: Vec<SearchOutcome>,
    /// One report per table built or found on disk.
    pub tables: Vec<crate::retro::TableReport>,
    /// Wall time of building or finding the tables.
    pub table_seconds: f64,
    /// Wall time of the searches and the extraction.
    pub search_seconds: f64,
}

/// The tables a proof of `pos` with table leaves of at most `k` stones needs.
pub fn needed_tables(pos: &Position, k: usize) -> Vec<crate::index::Signature> {
    let side = pos.white().count_ones().max(pos.black().count_ones()) as usize;
    crate::index::Signature::all_up_to(k)
        .into_iter()
        .filter(|s| (s.us as usize) <= side && (s.them as usize) <= side)
        .collect()
}

/// Builds (or finds) the tables of up to `opts.max_table_stones` stones in `dir`,
/// then proves the value of `pos`.
///
/// # Errors
///
/// `NoStones` for a finished game, `TooFewStones` or `TooManyStones` for a bad
/// `max_table_stones`, `Generate` or `Probe` when the tables cannot be built or
/// loaded, `Checkpoint` for a checkpoint that cannot be read or saved, `Undecided`
/// when a search stops at a limit.
pub fn prove(
    dir: &std::path::Path,
    pos: &Position,
    opts: &ProveOptions,
    table_report: impl FnMut(&crate::retro::TableReport),
    progress: &(dyn Fn(&SearchProgress) + Sync),
) -> Result<Proved, ProveError> {
    use crate::certificate::{Certificate, Entry, Part};
    if let Some(side) = pos.side_without_stones() {
        return Err(ProveError::NoStones(side.name()));
    }
    let k = opts.max_table_stones;
    if k < 2 {
        return Err(ProveError::TooFewStones(k));
    }
    let board = pos.board();
    if k > board.points() {
        return Err(ProveError::TooManyStones {
            k,
            points: board.points(),
        });
    }
    let sigs = needed_tables(pos, k);
    let t0 = Instant::now();
    let gen_opts = crate::retro::Options {
        threads: opts.threads,
        observer: opts.table_observer.clone(),
        force: false,
        checkpoint_every: None,
        limit: None,
    };
    let tables = crate::retro::generate(dir, board, &sigs, &gen_opts, table_report)?;
    let table_seconds = t0.elapsed().as_secs_f64();
    let values = ValueTables::load(dir, board, &sigs)?;
    let t1 = Instant::now();
    let me = pos.turn();
    let parallel = opts
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        >= 2;
    let stop = AtomicBool::new(false);
    let run = |attacker: Color| {
        let out = search(
            &values,
            pos,
            attacker,
            opts.limits,
            opts.checkpoint.as_ref(),
            &stop,
            progress,
        );
        if out.as_ref().is_ok_and(|o| o.attacker_wins == Some(true)) {
            stop.store(true, Relaxed);
        }
        out
    };
    // Deep recursion in long paika phases: a large stack (only touched pages count).
    const STACK: usize = 1 << 30;
    let searches: Vec<SearchOutcome> = if parallel {
        std::thread::scope(|s| {
            let spawn = |c: Color| {
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(s, move || run(c))
                    .expect("a search thread starts")
            };
            let (a, b) = (spawn(me), spawn(me.other()));
            vec![
                a.join().expect("the search does not panic"),
                b.join().expect("the search does not panic"),
            ]
        })
        .into_iter()
        .collect::<Result<_, _>>()?
    } else {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(s, || {
                    let first = run(me)?;
                    Ok::<_, crate::checkpoint::CheckpointError>(
                        if first.attacker_wins == Some(true) {
                            vec![first]
                        } else {
                            vec![first, run(me.other())?]
                        },
                    )
                })
                .expect("a search thread starts")
                .join()
                .expect("the search does not panic")
        })?
    };
    let wins = |c: Color| {
        searches
            .iter()
            .find(|s| s.attacker == c)
            .and_then(|s| s.attacker_wins)
    };
    let (value, graphs): (Wdl, Vec<&ProofGraph>) = match (wins(me), wins(me.other())) {
        (Some(true), _) => (Wdl::Win, graph_of(&searches, me)),
        (_, Some(true)) => (Wdl::Loss, graph_of(&searches, me.other())),
        (Some(false), Some(false)) => (
            Wdl::Draw,
            searches.iter().filter_map(|s| s.graph.as_ref()).collect(),
        ),
        _ => {
            return Err(ProveError::Undecided {
                nodes: searches.iter().map(|s| s.nodes).sum(),
                entries: searches.iter().map(|s| s.entries as u64).sum(),
                checkpointed: opts.checkpoint.is_some(),
            });
        }
    };
    let parts = graphs
        .into_iter()
        .map(|g| Part {
            side: g.side,
            claim: g.claim,
            entries: g
                .nodes
                .iter()
                .map(|(p, next)| Entry {
                    position: *p,
                    mv: next.map(|n| move_to(p, &n)),
                })
                .collect(),
        })
        .collect();
    let certificate = Certificate {
        root: *pos,
        value,
        max_table_stones: k as u8,
        tables: values.checksums().to_vec(),
        parts,
    };
    let searches = searches
        .into_iter()
        .map(|s| SearchOutcome { graph: None, ..s })
        .collect();
    Ok(Proved {
        certificate,
        searches,
        tables,
        table_seconds,
        search_seconds: t1.elapsed().as_secs_f64(),
    })
}

fn graph_of(searches: &[SearchOutcome], attacker: Color) -> Vec<&ProofGraph> {
    searches
        .iter()
        .filter(|s| s.attacker == attacker)
        .filter_map(|s| s.graph.as_ref())
        .collect()
}

/// The notation of a legal move from `p` to `next`.
fn move_to(p: &Position, next: &Position) -> String {
    p.legal_moves()
        .iter()
        .find(|m| p.apply(m) == *next)
        .expect("a successor is reached by a legal move")
        .notation(p.board())
}
