//! What a build is asked (options, an observer of its progress) and what it
//! reports (per table, or why it failed).

use std::path::PathBuf;

use thiserror::Error;

use crate::files::durable::LockError;
use crate::index::Signature;
use crate::rules::limit::Limit;
use crate::table::{Stats, TableError, TableKind};

use crate::rules::board::Board;

/// Why `generate` could not build the tables.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// Reading a smaller table or writing a new one failed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Another build holds the table directory.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A signature has more stones than the board has points.
    #[error(
        "signature {sig} needs {stones} stones, more than the {points} points of the {board} board"
    )]
    TooMany {
        /// The signature asked for.
        sig: Signature,
        /// Its stones, both sides.
        stones: usize,
        /// Points of the board.
        points: usize,
        /// The board, as `WxH`.
        board: String,
    },
    /// A vela table asked for that does not exist: exactly one side of a vela table
    /// has more stones than the board's vela floor.
    #[error(
        "no vela table {sig} on the {board} board: the vela side, one side and only one, has more than {floor} stones and at most the {start} it starts with"
    )]
    NotVela {
        /// The signature asked for.
        sig: Signature,
        /// The stones a vela side keeps when its vela ends.
        floor: u32,
        /// The stones a side starts with.
        start: u32,
        /// The board, as `WxH`.
        board: String,
    },
    /// A table needed is beyond this generator: more than 10^12 placements, or more
    /// than `u32::MAX` placements of the side to move's stones alone.
    #[error(
        "signature {sig} on the {board} board has {placements} positions, more than this generator builds (at most 10^12 per table)"
    )]
    TooLarge {
        /// The table's signature.
        sig: Signature,
        /// Its placements, before symmetry reduction.
        placements: u64,
        /// The board, as `WxH`.
        board: String,
    },
    /// A depth above 635 plies, more than the generator's working state holds (or a
    /// position with more than 127 paika successors, which no buildable table has);
    /// holds the pair's smaller-first signature.
    #[error("depth overflow in {0}: a depth above 635 plies")]
    DepthOverflow(Signature),
    /// The largest pair would need more memory than the system has available.
    #[error(
        "the largest pair needs about {} MiB, more than the {} MiB available",
        needs >> 20,
        available >> 20
    )]
    Memory {
        /// Bytes the largest pair's working state takes (estimate).
        needs: u64,
        /// Bytes available (MemAvailable).
        available: u64,
    },
    /// More worker threads than the machine has cores, or none.
    #[error("{asked} worker threads asked for: give 1 to {cores}, the cores of this machine")]
    ThreadCount {
        /// Threads asked for.
        asked: usize,
        /// Cores available to this process.
        cores: usize,
    },
    /// A distributed build cannot go on (why).
    #[error("distributed build: {0}")]
    Distributed(String),
    /// The worker thread pool could not be started.
    #[error("cannot start {threads} worker threads")]
    Threads {
        /// Threads asked for; 0 for the default (every core).
        threads: usize,
        /// The pool's error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// What a long build reports as it goes. The library draws nothing: the command line
/// implements this with progress bars and log lines; a program may log it or ignore
/// it. Stages run one after another; `advance` comes from worker threads.
pub trait Observer: Send + Sync {
    /// A stage of `len` units (table entries) begins: `name` is the table or pair,
    /// `what` the stage ("captures/counters", "depth 12", "writing").
    fn begin(&self, name: &str, what: &str, len: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is complete.
    fn end(&self);
    /// The build is about to start, on `threads` worker threads, as `plan` estimates
    /// (called only when there is something to build).
    fn plan(&self, plan: &BuildPlan, threads: usize) {
        let _ = (plan, threads);
    }
    /// A pair is complete: `done` of the job's `total` positions are built.
    fn job(&self, done: u64, total: u64) {
        let _ = (done, total);
    }
}

/// How to build.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Options {
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    /// Told of every stage and its progress.
    pub observer: Option<std::sync::Arc<dyn Observer>>,
    /// Build even when a pair's estimated working memory exceeds the memory the
    /// system has available.
    pub force: bool,
    /// Save a pair in progress this often (after its first stage, then at a depth
    /// level), so that an interrupted build resumes inside it; `None`: never. The
    /// interval stretches to ten times a save's duration, so saving costs at most a
    /// tenth of the build.
    pub checkpoint_every: Option<std::time::Duration>,
    /// The kind of tables to build: the plain ones; the rule-aware tables of a
    /// no-capture limit (in `DIR/WxH/nN/`), after the plain tables they are checked
    /// against; or the vela tables (in `DIR/WxH/vela/`), after the plain tables their
    /// captures lead to. Plain tables a build needs are built first when missing.
    pub kind: TableKind,
}

impl Options {
    /// The default build, plus the rule-aware tables of the no-capture limit `limit`.
    pub fn rule_aware(limit: Limit) -> Options {
        Options {
            kind: TableKind::Limit(limit),
            ..Options::default()
        }
    }

    /// The default build of the vela tables.
    pub fn vela() -> Options {
        Options {
            kind: TableKind::Vela,
            ..Options::default()
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("threads", &self.threads)
            .field("observer", &self.observer.is_some())
            .field("force", &self.force)
            .field("checkpoint_every", &self.checkpoint_every)
            .field("kind", &self.kind)
            .finish()
    }
}

/// What happened to one table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TableReport {
    /// The table's signature.
    pub sig: Signature,
    /// The game it values.
    pub kind: TableKind,
    /// Its file.
    pub path: PathBuf,
    /// Entries stored (symmetry-reduced).
    pub entries: u64,
    /// The counts its header holds.
    pub stats: Stats,
    /// Size of its file in bytes.
    pub file_bytes: u64,
    /// Seconds to build the pair this table belongs to (0 when skipped).
    pub seconds: f64,
    /// Peak resident memory while the pair was built, in bytes (when the OS tells).
    pub peak_rss: Option<u64>,
    /// Already complete and valid on disk.
    pub skipped: bool,
    /// The depth level the pair's build resumed at, from its checkpoint.
    pub resumed_at_depth: Option<u32>,
    /// The most memory the process may hold while building the pair: what it held
    /// before plus the pair's working memory (see `memory_bound`); 0 when skipped.
    pub memory_bound: u64,
}

/// One stage of a build, reported to the observer if there is one.
pub(super) struct Stage<'a> {
    observer: Option<&'a dyn Observer>,
    name: String,
    len: u64,
}

impl<'a> Stage<'a> {
    pub(super) fn new(opts: &'a Options, name: String, len: u64) -> Stage<'a> {
        Stage {
            observer: opts.observer.as_deref(),
            name,
            len,
        }
    }

    /// Begins (or begins again) the stage as `what`.
    pub(super) fn message(&self, what: String) {
        if let Some(o) = self.observer {
            o.begin(&self.name, &what, self.len);
        }
    }

    pub(super) fn inc(&self, n: u64) {
        if let Some(o) = self.observer {
            o.advance(n);
        }
    }

    pub(super) fn finish(&self) {
        if let Some(o) = self.observer {
            o.end();
        }
    }
}

/// What a build will do, estimated before it starts from the signatures alone.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct BuildPlan {
    /// The pairs still to build (each named by its smaller-first member), in order.
    pub pairs: Vec<Signature>,
    /// Placements in the tables still to build.
    pub positions: u64,
    /// The largest pair's working memory, in bytes (the build's peak).
    pub peak_bytes: u64,
    /// Bytes on disk, at the 1.1 bits a position the tsivy tables take.
    pub disk_bytes: u64,
    /// Bytes the largest pair's checkpoint takes on disk while it builds (twice its
    /// size while a new one replaces the old).
    pub checkpoint_bytes: u64,
    /// Seconds of one worker thread, at 5 million positions a second (the rate of
    /// the tsivy builds on the 2-core machine of docs/PERFORMANCE.md).
    pub thread_seconds: f64,
}

/// How many worker threads `opts.threads` asks for (default: every core).
pub(crate) fn thread_count(opts: &Options) -> Result<usize, GenerateError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match opts.threads {
        Some(asked) if asked == 0 || asked > cores => {
            Err(GenerateError::ThreadCount { asked, cores })
        }
        asked => Ok(asked.unwrap_or(cores)),
    }
}

/// Refuses a signature with more stones than the board has points.
pub(crate) fn check_targets(
    board: &'static Board,
    kind: TableKind,
    targets: &[Signature],
) -> Result<(), GenerateError> {
    if let Some(&sig) = targets.iter().find(|s| s.stones() > board.points()) {
        return Err(GenerateError::TooMany {
            sig,
            stones: sig.stones(),
            points: board.points(),
            board: board.size_name(),
        });
    }
    match targets.iter().find(|&&s| !kind.holds(board, s)) {
        Some(&sig) => Err(GenerateError::NotVela {
            sig,
            floor: crate::rules::vela::Vela::floor(board),
            start: crate::rules::vela::Vela::floor(board)
                + crate::rules::vela::Vela::stones_to_lose(board),
            board: board.size_name(),
        }),
        None => Ok(()),
    }
}
