//! The prove pipeline: the tables a proof needs, built or found and loaded; the two
//! searches (at once on two threads, a win by either stopping the other); the value
//! they decide; and the certificate of it.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use super::checkpoint::CheckpointError;
use super::lemmas::Lemmas;
use super::search::{CheckpointPlan, Limits, ProofGraph, SearchOutcome, SearchProgress, search};
use crate::certificate::{Certificate, Entry, Part, Proves};
use crate::probe::ValueTables;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// Why `prove` could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    Checkpoint(#[from] CheckpointError),
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
    /// A node of a first-level tree that its children decided was not decided by
    /// its own search over their lemmas: it reached its table limit (a cycle of
    /// positions without lemmas to search again), or it disagreed (a defect). No
    /// lemma is written for it.
    #[error("{}", if *.limit {
        format!("the first-level tree decided {position}, but its search over its children's lemmas reached --max-entries first: run again with a larger --max-entries")
    } else {
        format!("the first-level tree decided {position}, but its search over its children's lemmas decided otherwise (a defect)")
    })]
    Uncertified {
        /// The node's position.
        position: String,
        /// Whether the search stopped at its limit (else it disagreed).
        limit: bool,
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
#[non_exhaustive]
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
    /// A lemma directory whose lemmas are leaves of the search (docs/PROOF.md,
    /// "Lemmas"); `None`: no lemmas.
    pub lemmas: Option<std::path::PathBuf>,
}

/// Table leaves of up to 4 stones, every core, the default limits, no checkpoint.
impl Default for ProveOptions {
    fn default() -> ProveOptions {
        ProveOptions {
            max_table_stones: 4,
            threads: None,
            limits: Limits::default(),
            checkpoint: None,
            table_observer: None,
            lemmas: None,
        }
    }
}

impl std::fmt::Debug for ProveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProveOptions")
            .field("max_table_stones", &self.max_table_stones)
            .field("threads", &self.threads)
            .field("limits", &self.limits)
            .field("checkpoint", &self.checkpoint)
            .field("table_observer", &self.table_observer.is_some())
            .field("lemmas", &self.lemmas)
            .finish()
    }
}

/// A proved value with its certificate and the figures of the run.
#[derive(Debug)]
#[non_exhaustive]
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
    /// Lemmas the searches could use (those of the lemma directory on this board
    /// that check).
    pub lemmas_loaded: usize,
    /// The lemma files of the directory that did not check, with the reason: the
    /// searches went on without them.
    pub lemmas_refused: Vec<(String, String)>,
    /// The lemmas passed over: they rely on tables not loaded (larger, or
    /// of more stones a side than the root has).
    pub lemmas_beyond: usize,
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
    let t0 = Instant::now();
    let (values, tables) = prepare_tables(dir, pos, opts, table_report)?;
    let table_seconds = t0.elapsed().as_secs_f64();
    let mut lemmas = match &opts.lemmas {
        Some(d) => Lemmas::load_checked(d, &values)?,
        None => Lemmas::none(),
    };
    lemmas.remove(pos);
    let t1 = Instant::now();
    let (certificate, searches) = prove_over((&values, &lemmas), pos, opts, progress)?;
    Ok(Proved {
        certificate,
        searches,
        tables,
        table_seconds,
        search_seconds: t1.elapsed().as_secs_f64(),
        lemmas_loaded: lemmas.len(),
        lemmas_refused: lemmas.refused(),
        lemmas_beyond: lemmas.beyond(),
    })
}

/// The tables a proof of `pos` under `opts` reads, built where missing, then
/// loaded; with one report per table.
pub(super) fn prepare_tables(
    dir: &std::path::Path,
    pos: &Position,
    opts: &ProveOptions,
    table_report: impl FnMut(&crate::retro::TableReport),
) -> Result<(ValueTables, Vec<crate::retro::TableReport>), ProveError> {
    let k = table_stones(pos, opts)?;
    let board = pos.board();
    let sigs = needed_tables(pos, k);
    let gen_opts = crate::retro::Options {
        threads: opts.threads,
        observer: opts.table_observer.clone(),
        force: false,
        checkpoint_every: None,
        kind: crate::table::TableKind::Plain,
    };
    let tables = crate::retro::generate(dir, board, &sigs, &gen_opts, table_report)?;
    Ok((ValueTables::load(dir, board, &sigs)?, tables))
}

/// Proves `pos` over loaded tables and lemmas: the searches, the value they
/// decide and its certificate, with the searches (graphs dropped).
pub(super) fn prove_over(
    (values, lemmas): (&ValueTables, &Lemmas),
    pos: &Position,
    opts: &ProveOptions,
    progress: &(dyn Fn(&SearchProgress) + Sync),
) -> Result<(Certificate, Vec<SearchOutcome>), ProveError> {
    let k = table_stones(pos, opts)?;
    let searches = run_searches(values, lemmas, pos, opts, progress)?;
    let (value, graphs) = decide(&searches, pos.turn(), opts.checkpoint.is_some())?;
    let certificate = certificate(pos, Proves::Value(value), k, values, graphs);
    let searches = searches
        .into_iter()
        .map(|s| SearchOutcome { graph: None, ..s })
        .collect();
    Ok((certificate, searches))
}

/// Whether `attacker` wins `pos`, by a search within `limits` over loaded tables
/// and no lemma: a lemma's certificate of the answer (that `attacker` wins, or that
/// the other side does not lose), or `None` when the search stopped undecided.
pub(crate) fn prove_lemma(
    values: &ValueTables,
    pos: &Position,
    attacker: Color,
    limits: Limits,
) -> Option<Certificate> {
    let lemmas = Lemmas::none();
    let stop = AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || {
                search(
                    (values, &lemmas),
                    pos,
                    attacker,
                    limits,
                    None,
                    &stop,
                    &|_| {},
                )
            })
            .expect("a search thread starts")
            .join()
            .expect("the search does not panic")
    })
    .ok()?;
    let wins = out.attacker_wins?;
    let graph = out.graph?;
    let proves = if wins {
        Proves::Lemma(attacker, crate::certificate::Claim::Win)
    } else {
        Proves::Lemma(attacker.other(), crate::certificate::Claim::NotLose)
    };
    Some(certificate(
        pos,
        proves,
        values.max_stones(),
        values,
        vec![&graph],
    ))
}

/// The largest table leaves `opts` asks for, checked against the position.
fn table_stones(pos: &Position, opts: &ProveOptions) -> Result<usize, ProveError> {
    if let Some(side) = pos.side_without_stones() {
        return Err(ProveError::NoStones(side.name()));
    }
    let k = opts.max_table_stones;
    if k < 2 {
        return Err(ProveError::TooFewStones(k));
    }
    let points = pos.board().points();
    if k > points {
        return Err(ProveError::TooManyStones { k, points });
    }
    Ok(k)
}

/// The two searches, "does the side to move win?" and "does the other side win?":
/// at once on two threads (a win found by one stops the other), or one after the
/// other, the second only when the first found no win.
fn run_searches(
    values: &ValueTables,
    lemmas: &Lemmas,
    pos: &Position,
    opts: &ProveOptions,
    progress: &(dyn Fn(&SearchProgress) + Sync),
) -> Result<Vec<SearchOutcome>, CheckpointError> {
    let me = pos.turn();
    let parallel = opts
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        >= 2;
    let stop = AtomicBool::new(false);
    let run = |attacker: Color| {
        let out = search(
            (values, lemmas),
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
    if parallel {
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
        .collect()
    } else {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(s, || {
                    let first = run(me)?;
                    Ok(if first.attacker_wins == Some(true) {
                        vec![first]
                    } else {
                        vec![first, run(me.other())?]
                    })
                })
                .expect("a search thread starts")
                .join()
                .expect("the search does not panic")
        })
    }
}

/// The value the searches decide for `me`, the side to move, with the proofs that
/// establish it: a win for one side, or for a draw both "does not lose".
fn decide(
    searches: &[SearchOutcome],
    me: Color,
    checkpointed: bool,
) -> Result<(Wdl, Vec<&ProofGraph>), ProveError> {
    let wins = |c: Color| {
        searches
            .iter()
            .find(|s| s.attacker == c)
            .and_then(|s| s.attacker_wins)
    };
    Ok(match (wins(me), wins(me.other())) {
        (Some(true), _) => (Wdl::Win, graph_of(searches, me)),
        (_, Some(true)) => (Wdl::Loss, graph_of(searches, me.other())),
        (Some(false), Some(false)) => (
            Wdl::Draw,
            searches.iter().filter_map(|s| s.graph.as_ref()).collect(),
        ),
        _ => {
            return Err(ProveError::Undecided {
                nodes: searches.iter().map(|s| s.nodes).sum(),
                entries: searches.iter().map(|s| s.entries as u64).sum(),
                checkpointed,
            });
        }
    })
}

/// A search thread's stack: deep recursion in long paika phases wants a large one
/// (only the pages touched take memory).
const STACK: usize = 1 << 30;

/// Runs `worker` on `n` threads (at least one) with a search's stack, and waits
/// for them.
pub(super) fn on_workers(n: usize, worker: impl Fn() + Sync) {
    std::thread::scope(|s| {
        for _ in 0..n.max(1) {
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(s, &worker)
                .expect("a worker thread starts");
        }
    });
}

/// The certificate of `proves` (a value, or a lemma's claim) at `pos` from its proofs, with table leaves of at most
/// `k` stones, naming the tables loaded.
pub(super) fn certificate(
    pos: &Position,
    proves: Proves,
    k: usize,
    values: &ValueTables,
    graphs: Vec<&ProofGraph>,
) -> Certificate {
    let mut lemmas: Vec<_> = graphs
        .iter()
        .flat_map(|g| g.lemmas.iter().copied())
        .collect();
    crate::certificate::sort_lemmas(&mut lemmas);
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
    Certificate {
        root: *pos,
        proves,
        max_table_stones: k as u8,
        tables: values.checksums().to_vec(),
        parts,
        lemmas,
    }
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
