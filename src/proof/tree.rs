//! PN²: a proof-number search over a first-level tree whose leaves are bounded df-pn
//! searches, the 2007 design (docs/PROOF.md, "The first-level tree"). It answers one
//! question, "does the attacker win?", best first: the tree grows under its most
//! proving node, each new leaf is searched with a node budget, and the leaf's
//! proof and disproof numbers are the numbers its search ended with. What a search
//! decides is written as a lemma at once; a node of the tree that its children
//! decide is searched once more, over their lemmas, so that it gets a lemma of its
//! own. The tree lives in memory and is small (one node a position expanded or
//! evaluated); a leaf's numbers are logged (`tree.tsv`), so that a run started
//! again grows the same tree without searching the same leaves again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use super::jobs::root_from_lemmas;
use super::lemmas::{LemmaWriter, Lemmas};
use super::prove::{ProveError, ProveOptions, certificate, on_workers, prepare_tables};
use super::search::{INF, Limits, SEARCH_VERSION, add, search, settled, wins_for};
use crate::certificate::{Certificate, CertificateError, LemmaRef, Proves};
use crate::files::log::TsvLog;
use crate::probe::ValueTables;
use crate::rules::position::{Color, Position};

/// How to grow a first-level tree.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TreeOptions {
    /// The side whose win is asked: a proof is its win, a disproof is the other
    /// side's "does not lose".
    pub attacker: Color,
    /// Leaves searched at once (one search thread each).
    pub workers: usize,
    /// The lemma directory: lemmas read and written, and the leaves' log.
    pub lemmas: PathBuf,
    /// Table leaves and each leaf search's limits (its `threads`, `checkpoint` and
    /// `lemmas` are the runner's own).
    pub prove: ProveOptions,
    /// Stop after this many expansions; `None`: when the root is decided.
    pub max_expansions: Option<u64>,
}

impl TreeOptions {
    /// "Does `attacker` win?", two workers, the lemma directory `lemmas`.
    pub fn new(attacker: Color, lemmas: impl Into<PathBuf>) -> TreeOptions {
        TreeOptions {
            attacker,
            workers: 2,
            lemmas: lemmas.into(),
            prove: ProveOptions::default(),
            max_expansions: None,
        }
    }
}

/// Where a run stands after an expansion, for its observer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TreeProgress {
    /// Expansions so far.
    pub expansions: u64,
    /// The position expanded.
    pub position: Position,
    /// Its distinct successors.
    pub children: usize,
    /// Nodes of the tree (each position evaluated once a parent was expanded).
    pub tree: usize,
    /// Nodes of the tree whose position another node holds too (a transposition):
    /// at most what a tree that shared them would save.
    pub transposed: usize,
    /// The root's proof number (`u32::MAX / 2` is infinite).
    pub proof: u32,
    /// The root's disproof number.
    pub disproof: u32,
    /// Leaves searched so far.
    pub searched: u64,
    /// Leaves whose numbers came from the log of an earlier run.
    pub reused: u64,
    /// Search nodes so far.
    pub nodes: u64,
    /// Lemmas written so far.
    pub lemmas_written: usize,
    /// Seconds since the run started.
    pub seconds: f64,
    /// The proof and disproof numbers of each move of the root, in the order of
    /// the positions they lead to: a move is settled when either is 0.
    pub moves: Vec<(u32, u32)>,
}

/// The figures of a run.
#[derive(Debug)]
#[non_exhaustive]
pub struct TreeReport {
    /// `Some(true)`: the attacker wins the root; `Some(false)`: the other side does
    /// not lose; `None`: not answered yet. An answer is a lemma of the root (or
    /// the tables, for a root they hold).
    pub attacker_wins: Option<bool>,
    /// The last figures (those of the start when nothing was expanded).
    pub progress: TreeProgress,
    /// The root's value, once its lemmas give it (this question's and the other's).
    pub root: Option<Certificate>,
    /// The lemma files of the directory that did not check, with the reason: the
    /// search went on without them.
    pub lemmas_refused: Vec<(String, String)>,
    /// The lemmas passed over: they rely on tables not loaded (larger, or
    /// of more stones a side than the root has).
    pub lemmas_beyond: usize,
    /// The root's successors in the tree with their proof and disproof numbers at
    /// the end (none once the root is decided, or before it is expanded): where
    /// each move of the root stands.
    pub moves: Vec<(Position, u32, u32)>,
}

/// One node of the tree.
struct Node {
    pos: Position,
    parent: Option<usize>,
    children: Vec<usize>,
    pn: u32,
    dn: u32,
    /// Plies below the root.
    depth: usize,
    /// Disproved through a repetition of the position this many plies below the
    /// root, above it: true on this path only, so it has no lemma (the search at
    /// that position, where the cycle closes, proves it).
    cycle: Option<usize>,
}

impl Node {
    fn decided(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// What is known of a leaf.
enum Leaf {
    /// Decided: whether the attacker wins (a lemma written or found, a table, the
    /// end of the game).
    Exact(bool),
    /// Open, with its search's numbers.
    Open(u32, u32),
}

/// The columns of `tree.tsv`.
const TREE_LOG_HEADER: &str =
    "attacker\tposition\tk\tmax_nodes\tproof\tdisproof\tnodes\tseconds\tsearch";

/// The log of the leaves' searches, `tree.tsv` in the lemma directory: attacker,
/// position, table stones, node limit, proof, disproof, nodes, seconds, search
/// version. Open leaves only: a decided one leaves a lemma.
struct TreeLog {
    log: TsvLog,
    /// The attempts logged of each (attacker, position), this run's included.
    known: FxHashMap<(Color, String), Vec<Logged>>,
}

impl TreeLog {
    fn open(dir: &Path) -> std::io::Result<TreeLog> {
        let log = TsvLog::new(dir, "tree.tsv", TREE_LOG_HEADER);
        let mut known = FxHashMap::default();
        for f in log
            .read()?
            .lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
        {
            let parsed = (|| {
                let attacker = match *f.first()? {
                    "White" => Color::White,
                    "Black" => Color::Black,
                    _ => return None,
                };
                let entry = Logged {
                    k: f.get(2)?.parse().ok()?,
                    max_nodes: f.get(3)?.parse().ok()?,
                    proof: f.get(4)?.parse().ok()?,
                    disproof: f.get(5)?.parse().ok()?,
                    search: f.get(8)?.parse().ok()?,
                };
                Some(((attacker, f.get(1)?.to_string()), entry))
            })();
            if let Some((key, entry)) = parsed {
                known.entry(key).or_insert_with(Vec::new).push(entry);
            }
        }
        Ok(TreeLog { log, known })
    }

    /// The numbers an earlier search of `pos` with these table stones and at least
    /// this node limit left, the latest search's first, then the largest limit's.
    /// An older search's numbers are kept too: they only guide the tree (nothing
    /// is decided by them), and dropping them would throw away the tree a long run
    /// grew.
    fn numbers(
        &self,
        attacker: Color,
        pos: &Position,
        k: usize,
        max_nodes: u64,
    ) -> Option<(u32, u32)> {
        self.known
            .get(&(attacker, pos.to_string()))?
            .iter()
            .filter(|l| l.k == k && l.max_nodes >= max_nodes)
            .max_by_key(|l| (l.search, l.max_nodes))
            .map(|l| (l.proof, l.disproof))
    }

    /// Keeps this run's attempt, so that the same position met again in the tree
    /// takes its numbers.
    fn remember(
        &mut self,
        attacker: Color,
        pos: &Position,
        k: usize,
        max_nodes: u64,
        (proof, disproof): (u32, u32),
    ) {
        let l = Logged {
            k,
            max_nodes,
            proof,
            disproof,
            search: SEARCH_VERSION,
        };
        self.known
            .entry((attacker, pos.to_string()))
            .or_default()
            .push(l);
    }

    #[allow(clippy::too_many_arguments)]
    fn append(
        &self,
        attacker: Color,
        pos: &Position,
        k: usize,
        max_nodes: u64,
        (pn, dn): (u32, u32),
        nodes: u64,
        seconds: f64,
    ) -> std::io::Result<()> {
        self.log.append(&format!(
            "{}\t{pos}\t{k}\t{max_nodes}\t{pn}\t{dn}\t{nodes}\t{seconds:.2}\t{SEARCH_VERSION}",
            attacker.name()
        ))
    }
}

/// A leaf's search as the log keeps it.
#[derive(Clone, Copy)]
struct Logged {
    k: usize,
    max_nodes: u64,
    proof: u32,
    disproof: u32,
    search: u32,
}

/// A leaf's search: the lemma written if it decided (and whether the attacker
/// wins), else its numbers; its nodes and seconds.
struct Searched {
    verdict: Result<(bool, LemmaRef), (u32, u32)>,
    nodes: u64,
    seconds: f64,
}

/// The runner's shared state while it evaluates leaves.
struct Runner<'a> {
    values: &'a ValueTables,
    lemmas: Lemmas,
    writer: LemmaWriter,
    log: TreeLog,
    opts: &'a TreeOptions,
    job_opts: ProveOptions,
    stop: &'a AtomicBool,
    searched: u64,
    reused: u64,
    nodes: u64,
    written: usize,
}

impl Runner<'_> {
    /// What needs no search: the end of the game, a table position, a lemma.
    fn exact(&self, pos: &Position) -> Option<bool> {
        let a = self.opts.attacker;
        settled(self.values, pos)
            .map(|v| wins_for(a, pos, v))
            .or_else(|| self.lemmas.attacker_wins(a, pos))
    }

    /// Searches `pos` within the leaf budget over the lemmas (the search leaves
    /// out its root's own): the lemma written if it decides, else its numbers.
    /// `None` when stopped from outside, the search's figures then discarded.
    fn search_leaf(&self, pos: &Position, limits: Limits) -> Result<Option<Searched>, ProveError> {
        let k = self.job_opts.max_table_stones;
        let out = search(
            (self.values, &self.lemmas),
            pos,
            self.opts.attacker,
            limits,
            None,
            self.stop,
            &|_| {},
        )?;
        if self.stop.load(Relaxed) && out.attacker_wins.is_none() {
            return Ok(None);
        }
        let verdict = match (&out.graph, out.attacker_wins) {
            (Some(g), Some(win)) => {
                let cert =
                    certificate(pos, Proves::Lemma(g.side, g.claim), k, self.values, vec![g]);
                Ok((win, self.writer.write(&cert)?))
            }
            _ => Err((out.proof, out.disproof)),
        };
        Ok(Some(Searched {
            verdict,
            nodes: out.nodes,
            seconds: out.seconds,
        }))
    }

    /// Evaluates new leaves on the workers: exact where possible, else the log's
    /// numbers, else a search. `None` when stopped from outside.
    fn evaluate(&mut self, leaves: &[Position]) -> Result<Option<Vec<Leaf>>, ProveError> {
        let k = self.job_opts.max_table_stones;
        let max_nodes = self.job_opts.limits.max_nodes;
        let a = self.opts.attacker;
        let mut out: Vec<Option<Leaf>> = leaves
            .iter()
            .map(|p| {
                if let Some(w) = self.exact(p) {
                    Some(Leaf::Exact(w))
                } else {
                    self.log
                        .numbers(a, p, k, max_nodes)
                        .map(|(pn, dn)| Leaf::Open(pn, dn))
                }
            })
            .collect();
        self.reused += out
            .iter()
            .filter(|l| matches!(l, Some(Leaf::Open(..))))
            .count() as u64;
        let todo: Vec<usize> = (0..leaves.len()).filter(|&i| out[i].is_none()).collect();
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::new());
        let failure: Mutex<Option<ProveError>> = Mutex::new(None);
        let this = &*self;
        let worker = || {
            while failure.lock().expect("not poisoned").is_none() {
                let Some(&i) = todo.get(next.fetch_add(1, Relaxed)) else {
                    break;
                };
                let r = this
                    .search_leaf(&leaves[i], this.job_opts.limits)
                    .and_then(|r| {
                        if let Some(Searched {
                            verdict: Err(numbers),
                            nodes,
                            seconds,
                        }) = &r
                        {
                            let io = |source| {
                                ProveError::Certificate(CertificateError::Io {
                                    path: this.log.log.path().to_path_buf(),
                                    source,
                                })
                            };
                            this.log
                                .append(a, &leaves[i], k, max_nodes, *numbers, *nodes, *seconds)
                                .map_err(io)?;
                        }
                        Ok(r)
                    });
                match r {
                    Ok(r) => results.lock().expect("not poisoned").push((i, r)),
                    Err(e) => *failure.lock().expect("not poisoned") = Some(e),
                }
            }
        };
        on_workers(self.opts.workers.min(todo.len()), worker);
        if let Some(e) = failure.into_inner().expect("not poisoned") {
            return Err(e);
        }
        let mut stopped = false;
        for (i, r) in results.into_inner().expect("not poisoned") {
            let Some(Searched { verdict, nodes, .. }) = r else {
                stopped = true;
                continue;
            };
            self.searched += 1;
            self.nodes += nodes;
            out[i] = Some(match verdict {
                Ok((win, lemma)) => {
                    self.lemmas.add(lemma);
                    self.written += 1;
                    Leaf::Exact(win)
                }
                Err(numbers) => {
                    self.log.remember(a, &leaves[i], k, max_nodes, numbers);
                    Leaf::Open(numbers.0, numbers.1)
                }
            });
        }
        Ok((!stopped).then(|| out.into_iter().map(|l| l.expect("evaluated")).collect()))
    }
}

fn numbers(leaf: &Leaf) -> (u32, u32) {
    match *leaf {
        Leaf::Exact(true) => (0, INF),
        Leaf::Exact(false) => (INF, 0),
        // A search that stopped undecided may end on numbers of a decided node
        // (its verdict not certified): open is open, finite and nonzero.
        Leaf::Open(pn, dn) => (pn.clamp(1, INF - 1), dn.clamp(1, INF - 1)),
    }
}

/// Grows the first-level tree of "does `opts.attacker` win at `root`?" over the
/// tables in `dir` (built where missing) and the lemmas of `opts.lemmas`, until the
/// root is decided, `stop` is set or the expansions run out. `observer` is told of
/// each expansion.
///
/// # Errors
///
/// Those of `prove` for the tables; a lemma directory or log that cannot be read
/// or written; a damaged lemma; a node its children decided that its own search
/// did not decide the same way (a defect: no lemma is then written for it).
pub fn prove_tree(
    dir: &Path,
    root: &Position,
    opts: &TreeOptions,
    stop: &AtomicBool,
    observer: &dyn Fn(&TreeProgress),
) -> Result<TreeReport, ProveError> {
    let start = Instant::now();
    let mut job_opts = opts.prove.clone();
    job_opts.threads = Some(1);
    job_opts.checkpoint = None;
    let (values, _) = prepare_tables(dir, root, &job_opts, |_| {})?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ProveError::Certificate(CertificateError::Io { path, source })
    };
    std::fs::create_dir_all(&opts.lemmas).map_err(io(&opts.lemmas))?;
    let mut run = Runner {
        values: &values,
        lemmas: Lemmas::load_checked(&opts.lemmas, &values)?,
        writer: LemmaWriter::new(&opts.lemmas),
        log: TreeLog::open(&opts.lemmas).map_err(io(&opts.lemmas))?,
        opts,
        job_opts,
        stop,
        searched: 0,
        reused: 0,
        nodes: 0,
        written: 0,
    };
    let mut tree = vec![Node {
        pos: *root,
        parent: None,
        children: Vec::new(),
        pn: 1,
        dn: 1,
        depth: 0,
        cycle: None,
    }];
    let mut expansions = 0;
    // The positions of the tree, to count its transpositions.
    let mut held = FxHashSet::default();
    held.insert((root.white(), root.black(), root.turn()));
    let mut transposed = 0;
    let progress =
        |tree: &[Node], run: &Runner, transposed, expansions, position, children| TreeProgress {
            expansions,
            position,
            children,
            tree: tree.len(),
            transposed,
            proof: tree[0].pn,
            disproof: tree[0].dn,
            searched: run.searched,
            reused: run.reused,
            nodes: run.nodes,
            lemmas_written: run.written,
            seconds: start.elapsed().as_secs_f64(),
            moves: tree[0]
                .children
                .iter()
                .map(|&c| (tree[c].pn, tree[c].dn))
                .collect(),
        };
    if let Some(leaves) = run.evaluate(&[*root])? {
        (tree[0].pn, tree[0].dn) = numbers(&leaves[0]);
    }
    let mut last = progress(&tree, &run, 0, 0, *root, 0);
    while !tree[0].decided()
        && !stop.load(Relaxed)
        && opts.max_expansions.is_none_or(|m| expansions < m)
    {
        let (mpn, exact) = most_proving(&tree, opts.attacker, |p| run.exact(p));
        let pos = tree[mpn].pos;
        // Proved meanwhile elsewhere in the tree (a transposition): no expansion.
        if let Some(win) = exact {
            (tree[mpn].pn, tree[mpn].dn) = numbers(&Leaf::Exact(win));
            tree[mpn].children.clear();
            update(&mut tree, &mut run, mpn)?;
            continue;
        }
        let mut kids = pos.successors();
        kids.sort_by_key(|p| (p.white(), p.black()));
        kids.dedup();
        // No move: the side to move has lost.
        if kids.is_empty() {
            let win = pos.turn() != opts.attacker;
            (tree[mpn].pn, tree[mpn].dn) = numbers(&Leaf::Exact(win));
            update(&mut tree, &mut run, mpn)?;
            continue;
        }
        // A position above it again: going round wins the attacker nothing.
        let path = ancestors(&tree, mpn);
        let (repeated, fresh): (Vec<Position>, Vec<Position>) =
            kids.into_iter().partition(|p| path.contains(p));
        let Some(leaves) = run.evaluate(&fresh)? else {
            break;
        };
        let children = fresh.len() + repeated.len();
        let fresh = fresh.iter().zip(leaves.iter().map(numbers));
        let fresh = fresh.map(|(p, n)| (p, n, None));
        // The ancestor repeated, in plies below the root.
        let depth = tree[mpn].depth;
        let repeated = repeated.iter().map(|p| {
            let up = path.iter().position(|a| a == p).expect("an ancestor");
            (p, (INF, 0), Some(depth - up))
        });
        for (p, (pn, dn), cycle) in fresh.chain(repeated) {
            // A repetition is no transposition: its position is an ancestor's.
            transposed +=
                usize::from(cycle.is_none() && !held.insert((p.white(), p.black(), p.turn())));
            tree.push(Node {
                pos: *p,
                parent: Some(mpn),
                children: Vec::new(),
                pn,
                dn,
                depth: depth + 1,
                cycle,
            });
            let id = tree.len() - 1;
            tree[mpn].children.push(id);
        }
        expansions += 1;
        update(&mut tree, &mut run, mpn)?;
        last = progress(&tree, &run, transposed, expansions, pos, children);
        observer(&last);
    }
    // The figures after the last update (a transposition may have decided it).
    last = progress(
        &tree,
        &run,
        transposed,
        expansions,
        last.position,
        last.children,
    );
    // The answer is what the lemmas (or the tables) say: a root the tree decided
    // but whose search was stopped from outside is not answered yet.
    let attacker_wins = run.exact(root);
    let moves = tree[0]
        .children
        .iter()
        .map(|&c| (tree[c].pos, tree[c].pn, tree[c].dn))
        .collect();
    // What other runs on the store wrote meanwhile, read and checked (not the
    // whole store again): the root's other answer may be among it.
    run.lemmas.refresh_checked(&opts.lemmas, &values)?;
    Ok(TreeReport {
        attacker_wins,
        progress: last,
        root: root_from_lemmas(&opts.lemmas, &run.lemmas, root)?,
        lemmas_refused: run.lemmas.refused(),
        lemmas_beyond: run.lemmas.beyond(),
        moves,
    })
}

/// The most proving node: from the root, the open child of least proof number
/// where the attacker moves, of least disproof number where the other side moves,
/// down to a leaf; or, on the way, a node `exact` decides (a lemma written
/// elsewhere in the tree), with its answer.
fn most_proving(
    tree: &[Node],
    attacker: Color,
    exact: impl Fn(&Position) -> Option<bool>,
) -> (usize, Option<bool>) {
    let mut n = 0;
    loop {
        if let Some(win) = exact(&tree[n].pos) {
            return (n, Some(win));
        }
        let or = tree[n].pos.turn() == attacker;
        // An open node has an open child.
        let open = tree[n].children.iter().filter(|&&c| !tree[c].decided());
        match open.min_by_key(|&&c| if or { tree[c].pn } else { tree[c].dn }) {
            Some(&c) => n = c,
            None => return (n, None),
        }
    }
}

/// Sets the numbers of `n`'s ancestors, and of `n` itself if it has children, from
/// their children. A node with children that this decides is searched over their
/// lemmas for a lemma of its own, and its children are dropped.
fn update(tree: &mut [Node], run: &mut Runner, n: usize) -> Result<(), ProveError> {
    let attacker = run.opts.attacker;
    let mut at = Some(n);
    while let Some(i) = at {
        if !tree[i].children.is_empty() {
            let or = tree[i].pos.turn() == attacker;
            let (mut pn, mut dn) = if or { (INF, 0) } else { (0, INF) };
            for &c in &tree[i].children {
                let (cp, cd) = (tree[c].pn, tree[c].dn);
                if or {
                    pn = pn.min(cp);
                    dn = add(dn, cd);
                } else {
                    pn = add(pn, cp);
                    dn = dn.min(cd);
                }
            }
            (tree[i].pn, tree[i].dn) = (pn, dn);
            if tree[i].decided() {
                let pos = tree[i].pos;
                let win = tree[i].pn == 0;
                // Only a disproof goes through a repetition: the highest position
                // repeated that it needs.
                let cycle = if win { None } else { cycle_needed(tree, i, or) };
                match cycle {
                    Some(up) if up < tree[i].depth => tree[i].cycle = Some(up),
                    _ if run.exact(&pos) == Some(win) => {}
                    // Its children's lemmas (and the cycles that close here) decide
                    // it at once: no node limit.
                    _ => match run
                        .search_leaf(&pos, Limits::new(u64::MAX, run.job_opts.limits.max_entries))?
                    {
                        Some(Searched {
                            verdict: Ok((w, lemma)),
                            nodes,
                            ..
                        }) if w == win => {
                            run.lemmas.add(lemma);
                            run.written += 1;
                            run.nodes += nodes;
                        }
                        // Stopped from outside: the node stays decided in this
                        // tree, and the next run proves it again from the lemmas.
                        None => {}
                        Some(Searched { verdict, .. }) => {
                            return Err(ProveError::Uncertified {
                                position: pos.to_string(),
                                limit: verdict.is_err(),
                            });
                        }
                    },
                }
                tree[i].children.clear();
            }
        }
        at = tree[i].parent;
    }
    Ok(())
}

/// The highest repetition (in plies below the root) that the disproof of `n`
/// from its children goes through, if any: where the attacker moves, every child
/// is disproved and the highest of theirs counts; where the other side moves, one
/// disproved child is enough, the one whose repetition is lowest (none at best).
fn cycle_needed(tree: &[Node], n: usize, or: bool) -> Option<usize> {
    let disproved = tree[n]
        .children
        .iter()
        .map(|&c| &tree[c])
        .filter(|c| c.dn == 0);
    if or {
        disproved.filter_map(|c| c.cycle).min()
    } else if disproved.clone().any(|c| c.cycle.is_none()) {
        None
    } else {
        disproved.filter_map(|c| c.cycle).max()
    }
}

/// The positions from `n` up to the root.
fn ancestors(tree: &[Node], n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    let mut at = Some(n);
    while let Some(i) = at {
        out.push(tree[i].pos);
        at = tree[i].parent;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node with children of these disproof numbers and repetitions, as `n`.
    fn with_children(kids: &[(u32, Option<usize>)]) -> Vec<Node> {
        let pos = Position::start(crate::rules::board::Board::get(5, 5).expect("dimy"));
        let node = |parent, dn, cycle| Node {
            pos,
            parent,
            children: Vec::new(),
            pn: if dn == 0 { INF } else { 1 },
            dn,
            depth: 4,
            cycle,
        };
        let mut tree = vec![node(None, 0, None)];
        for &(dn, cycle) in kids {
            tree.push(node(Some(0), dn, cycle));
            let id = tree.len() - 1;
            tree[0].children.push(id);
        }
        tree
    }

    /// The descent takes the least number of the side to move's kind among the
    /// open children, and stops at a node a lemma now decides.
    #[test]
    fn the_most_proving_node_is_open_unless_a_lemma_closes_one_on_the_way() {
        // White moves at the root: for White it is an OR node, for Black an AND
        // node. Children: proved, open (5, 3), open (2, 9).
        let mut t = with_children(&[(INF, None), (3, None), (9, None)]);
        (t[1].pn, t[1].dn) = (0, INF);
        (t[2].pn, t[3].pn) = (5, 2);
        (t[0].pn, t[0].dn) = (2, 12);
        // Decided children are passed over whatever their numbers.
        assert_eq!(most_proving(&t, Color::White, |_| None), (3, None));
        assert_eq!(most_proving(&t, Color::Black, |_| None), (2, None));
        (t[3].pn, t[3].dn) = (INF, 0);
        assert_eq!(most_proving(&t, Color::White, |_| None), (2, None));
        let root = t[0].pos;
        assert_eq!(
            most_proving(&t, Color::White, |p| (*p == root).then_some(false)),
            (0, Some(false))
        );
    }

    /// Where the attacker moves every child counts, and the highest repetition
    /// wins; where the other side moves the best disproved child does.
    #[test]
    fn a_disproof_needs_the_repetitions_of_the_children_it_rests_on() {
        let t = with_children(&[(0, Some(3)), (0, None), (0, Some(1))]);
        assert_eq!(cycle_needed(&t, 0, true), Some(1));
        assert_eq!(cycle_needed(&t, 0, false), None);
        let t = with_children(&[(0, Some(3)), (0, Some(1)), (5, None)]);
        assert_eq!(cycle_needed(&t, 0, false), Some(3));
        let t = with_children(&[(0, None), (0, None)]);
        assert_eq!(cycle_needed(&t, 0, true), None);
    }

    /// A leaf's logged numbers serve a later run: those of the latest search
    /// first, an older search's when it is the only one, never those of a smaller
    /// node limit or other table stones.
    #[test]
    fn the_log_serves_the_latest_search_and_keeps_older_ones() {
        let dir = tempfile::tempdir().unwrap();
        let pos = Position::start(crate::rules::board::Board::get(5, 5).expect("dimy"));
        let line = |k, max_nodes, pn, dn, search| {
            format!("White\t{pos}\t{k}\t{max_nodes}\t{pn}\t{dn}\t1\t0.01\t{search}\n")
        };
        let write = |lines: &[String]| {
            std::fs::write(
                dir.path().join("tree.tsv"),
                format!("{TREE_LOG_HEADER}\n{}", lines.concat()),
            )
            .unwrap();
            TreeLog::open(dir.path()).unwrap()
        };
        let older = line(4, 2000, 7, 8, SEARCH_VERSION - 1);
        let log = write(std::slice::from_ref(&older));
        assert_eq!(log.numbers(Color::White, &pos, 4, 2000), Some((7, 8)));
        assert_eq!(log.numbers(Color::White, &pos, 4, 4000), None);
        assert_eq!(log.numbers(Color::White, &pos, 5, 2000), None);
        assert_eq!(log.numbers(Color::Black, &pos, 4, 2000), None);
        let log = write(&[
            older,
            line(4, 3000, 5, 6, SEARCH_VERSION),
            line(4, 9000, 1, 2, 1),
        ]);
        assert_eq!(log.numbers(Color::White, &pos, 4, 2000), Some((5, 6)));
        assert_eq!(log.numbers(Color::White, &pos, 4, 5000), Some((1, 2)));
    }
}
