//! Perfect-play endgame tables and proofs for Fanorona, the board game of
//! Madagascar, under the rules of `docs/RULES.md`.
//!
//! This page introduces the library; the guide (`docs/guide/`) is the user's guide
//! to the command line. Every example below builds small tables and asserts what they answer, so
//! it runs as a test (`cargo test --doc`).
//!
//! # Positions and moves
//! A [`Position`] is two stone sets and the side to move, read from position text
//! (rows from the top, `w` or `b` to move). Its legal moves are in the seeds'
//! notation; [`perft`] counts the positions at a depth.
//! ```
//! use fanotb::{Position, perft};
//! let pos: Position = "BBB/B1W/WWW w".parse()?;   // the 3x3 start
//! let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.notation(pos.board())).collect();
//! assert_eq!(moves, ["a1-b2A", "b1-b2A", "c1-b2A", "c2-b2A"]); // capture is compulsory
//! assert_eq!(perft(&pos, 6), 280);
//! let after = pos.parse_move("c2-b2A").map(|m| pos.apply(&m))?;
//! assert_eq!(after.to_string(), "BBB/1W1/WWW b");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Building tables
//! [`generate`] builds every table a set of material signatures needs (smaller
//! ones first), skipping those already complete, into a directory, and reports each.
//! ```
//! use fanotb::{Board, Options, Signature, generate};
//! let dir = tempfile::tempdir()?;
//! let reports = generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(4), &Options::default(), |_| {})?;
//! assert_eq!(reports.len(), 6); // 1v1, 1v2, 2v1, 1v3, 2v2, 3v1
//! assert_eq!(reports.iter().map(|r| r.stats.placements).sum::<u64>(), 2340);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The tables of a directory, with their header's figures, and [`verify`], which
//! re-derives every entry from its successors:
//! ```
//! use fanotb::{Board, Options, Signature, Tablebase, generate, verify};
//! let dir = tempfile::tempdir()?;
//! generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(3), &Options::default(), |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let tables = tb.tables()?;
//! let names: Vec<String> = tables.iter().map(|t| t.signature.to_string()).collect();
//! assert_eq!(names, ["1v1", "1v2", "2v1"]);
//! assert_eq!(tables[0].stats.placements, 72);
//! let reports = verify(&tb, &[], None, |_| {})?;
//! assert!(reports.iter().all(|r| r.mismatches == 0 && r.stats_error.is_none()));
//! assert_eq!(tb.largest(Board::get(3, 3)?)?, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Probing: one method set, asked under [`Rules`]
//! [`Tablebase`] opens a directory of tables (files open lazily, memory-mapped; it
//! is `Send + Sync`). Every question takes the rules it is asked under:
//! [`Rules::PLAIN`], or a no-capture limit with the counter of the position.
//! ```
//! # use fanotb::{Board, Options, Signature, generate};
//! use fanotb::{Outcome, Position, Rules, Tablebase, Value, Wdl};
//! # let dir = tempfile::tempdir()?;
//! # generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(4), &Options::default(), |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "1B1/3/W1W w".parse()?;
//! assert_eq!(tb.probe(&pos, Rules::PLAIN)?, Value::Plain(Outcome::Win(7)));
//! assert_eq!(tb.value(&pos, Rules::PLAIN)?, Wdl::Win); // the value stream alone
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every move with its value for the mover, best first; the best ones; and the
//! principal line to the end of the game:
//! ```
//! # use fanotb::{Board, Options, Signature, generate};
//! use fanotb::{Outcome, Position, Rules, Tablebase, Value};
//! # let dir = tempfile::tempdir()?;
//! # generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(4), &Options::default(), |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "1B1/3/W1W w".parse()?;
//! let moves = tb.moves(&pos, Rules::PLAIN)?;
//! let listed: Vec<String> = moves.iter().map(|m| format!("{} {}", m.mv.notation(pos.board()), m.value)).collect();
//! assert_eq!(listed, ["a1-a2 win in 7", "c1-c2 win in 7", "a1-b2 draw", "c1-b2 draw", "a1-b1 loss in 2", "c1-b1 loss in 2"]);
//! let best = tb.best_moves(&pos, Rules::PLAIN)?;
//! assert_eq!(best.len(), 2);
//! assert_eq!(best[0].value, Value::Plain(Outcome::Win(7)));
//! let line = tb.line(&pos, Rules::PLAIN)?;
//! assert_eq!(line.len(), 7); // White wins with its fourth move
//! assert!(line.last().is_some_and(|m| m.result.is_lost()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The no-capture limit
//! Under a limit N the value depends on the counter c, plies since the last capture;
//! the rule-aware tables (`Options::rule_aware`) store for a win or loss the plies T to
//! the next capture that keeps it, won or lost for c <= N - T and drawn beyond.
//! Each move carries the rules of the position after it.
//! ```
//! # use fanotb::{Board, Options, Signature, generate};
//! use fanotb::{Limit, Position, Rules, Tablebase, Value, Wdl};
//! # let dir = tempfile::tempdir()?;
//! let opts = Options::rule_aware(Limit::new(4)?);
//! generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(4), &opts, |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "1B1/3/W1W w".parse()?;
//! let at = |c| Rules::no_capture_limit(Limit::new(4).unwrap(), c).unwrap();
//! assert_eq!(tb.value(&pos, at(0))?, Wdl::Win);
//! assert_eq!(tb.probe(&pos, at(0))?.depth(), Some(4)); // T: a capture in 4 plies
//! assert_eq!(tb.value(&pos, at(1))?, Wdl::Draw);       // 1 + 4 > 4
//! let best = &tb.best_moves(&pos, at(0))?[0];
//! assert_eq!(best.rules.counter(), 1, "a paika adds one");
//! assert!(matches!(best.value, Value::Limited { .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Vela
//! The vela tables (`Options::vela`, docs/RULES.md, "Vela") value the positions where
//! the side with more than five stones plays vela, quiet steps only, as a game from
//! the start gives it; the probe takes the vela from the rules.
//! ```
//! # use fanotb::{Board, Signature, generate};
//! use fanotb::{Color, Options, Position, Rules, Tablebase, Vela};
//! # let dir = tempfile::tempdir()?;
//! generate(dir.path(), Board::get(5, 3)?, &["6v1".parse()?], &Options::vela(), |_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! let pos: Position = "B4/WW3/WWWW1 w".parse()?;
//! let vela = Rules::PLAIN.with_vela(Some(Vela::at(&pos, Color::White, None)?));
//! assert_eq!(tb.probe(&pos, vela)?.depth(), Some(5)); // no capture: a win in 5
//! assert_eq!(tb.moves(&pos, vela)?.len(), 7); // every step, none a capture
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Proofs and certificates
//! [`prove`] decides the value of a position beyond the tables by proof-number
//! search with table leaves, and writes the proof as a [`Certificate`] that
//! [`check_proof`] verifies from the rules and the tables alone (`docs/PROOF.md`).
//! ```
//! use fanotb::{Board, CheckOptions, Limits, Position, ProveOptions, Proves, Wdl, check_proof, prove};
//! let dir = tempfile::tempdir()?;
//! let mut opts = ProveOptions::default();
//! opts.max_table_stones = 4;
//! let start = Position::start(Board::get(3, 3)?);
//! let proved = prove(dir.path(), &start, &opts, |_| {}, &|_| {})?;
//! assert_eq!(proved.certificate.proves, Proves::Value(Wdl::Win)); // White wins the 3x3 start
//! let file = dir.path().join("3x3.fnproof");
//! proved.certificate.write(&file)?;
//! let checked = check_proof(&file, dir.path(), &CheckOptions::default())?;
//! assert_eq!((checked.proves, checked.positions), (Proves::Value(Wdl::Win), 6));
//! // The same, with every entry of the tables it names re-derived from the rules:
//! let mut strict = CheckOptions::default();
//! strict.verify_tables = true;
//! assert!(check_proof(&file, dir.path(), &strict)?.tables_verified);
//! // A proof in pieces: each proof a lemma, named by its checksum, in a lemma
//! // directory that later searches and the checker read (`prove_jobs` runs whole
//! // levels of such jobs, `prove_tree` a best-first PN² tree of them).
//! let lemmas = dir.path().join("lemmas");
//! for lemma in proved.certificate.split_lemmas() {
//!     let named = lemma.write_lemma(&lemmas)?;
//!     let mut with = CheckOptions::default();
//!     with.lemmas = Some(lemmas.clone());
//!     let alone = check_proof(&lemmas.join(named.file_name()), dir.path(), &with)?;
//!     assert_eq!(alone.proves, Proves::Lemma(named.side, named.claim));
//! }
//! # let _ = Limits::default();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # From C
//! The C ABI (`src/ffi/fanotb.h`, documented in `docs/C-API.md`; the `ffi` module) makes
//! the same calls; its functions are callable from Rust too:
//! ```
//! # use fanotb::{Board, Options, Signature, generate};
//! use std::ffi::CString;
//! use fanotb::ffi::{FANOTB_OK, fanotb_close, fanotb_open, fanotb_probe};
//! # let dir = tempfile::tempdir()?;
//! # generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(4), &Options::default(), |_| {})?;
//! let path = CString::new(dir.path().to_str().unwrap())?;
//! let pos = CString::new("1B1/3/W1W w")?;
//! let (mut value, mut depth) = (0, 0);
//! // SAFETY: NUL-terminated strings, valid output pointers, a live handle.
//! unsafe {
//!     let tb = fanotb_open(path.as_ptr());
//!     assert_eq!(fanotb_probe(tb, pos.as_ptr(), &mut value, &mut depth), FANOTB_OK);
//!     fanotb_close(tb);
//! }
//! assert_eq!((value, depth), (1, 7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// Every public item is documented: a missing doc fails the build, not just warns.
#![deny(missing_docs)]
#![warn(
    missing_debug_implementations,
    unreachable_pub,
    clippy::undocumented_unsafe_blocks
)]

// The modules are private: the public API is the re-export block below, so that
// internal reshaping never breaks an engine that links fanotb.
mod certificate;
mod check;
mod files;
mod games;
mod index;
mod probe;
mod proof;
#[cfg(feature = "serde")]
pub mod report;
mod request;
mod retro;
mod rules;
mod solution;
mod sys;
mod table;

pub mod ffi;

pub use certificate::bundle::{BundleReport, bundle_proof};
pub use certificate::store::{
    PackReport, Packing, RecodeReport, pack_lemmas, pack_relied_on, recode_lemmas,
};
pub use certificate::{
    Certificate, CertificateError, Claim, Entry, LemmaRef, Part, Proves, lemma_file_name,
};
pub use check::proof::{
    CheckError, CheckOptions, CheckReport, CheckSetReport, DEFAULT_CACHE_MIB, OnTable,
    TableVerified, check_proof, check_proofs, is_lemma_pack,
};
pub use check::tables::{VerifyReport, verify};
pub use files::durable::{LockError, replace_file};
pub use files::log::read_log;
pub use files::read::{
    BoundedLines, MAX_LINE_BYTES, open_regular, read_bounded, read_stream_bounded,
    read_text_bounded,
};
pub use games::analysis::{
    AnalysedMove, Analysis, AnalysisError, Inaccuracy, Mistake, analyse, replay_moves,
};
pub use games::game::{End, Game, GameError, GameResult};
pub use games::record::{Record, RecordError};
pub use games::solve::{SMALL_BOARDS, SearchResult, Solution, SolveError, published, solve};
pub use index::{Signature, SignatureError};
pub use probe::{MoveValue, ProbeError, TableInfo, Tablebase, Value, best_count};
pub use proof::{
    CheckpointError, CheckpointPlan, JobEvent, JobOptions, JobResult, JobsReport, Lemmas,
    LevelReport, Limits, ProveError, ProveOptions, Proved, SearchOutcome, SearchProgress,
    TreeOptions, TreeProgress, TreeReport, job_levels, prove, prove_jobs, prove_tree,
};
pub use request::{
    ChartQuery, GameQuery, MAX_POSITION_TEXT, PositionQuery, QueryError, RulesRequest,
};
pub use retro::{BuildPlan, GenerateError, Observer, Options, TableReport, generate, plan_build};
#[cfg(feature = "mpi")]
pub use retro::{PairTraffic, TableSharing, generate_distributed};
pub use rules::board::{Board, BoardError};
pub use rules::limit::{Limit, LimitError, Limited};
pub use rules::movegen::{Capture, Move, MoveError, Step};
pub use rules::perft::{DivideLine, perft, perft_divide, perft_under};
pub use rules::position::{Color, Position, PositionError};
pub use rules::value::{Outcome, Wdl};
pub use rules::vela::{Vela, VelaError};
pub use rules::{Rules, RulesError};
pub use solution::{
    Choice, Claims, Engine, EngineOptions, Judged, Known, Player, PlayerError, PlayerOptions,
    Reply, SolutionError, SolutionSource, SolvedGame, Source, Verdict, info_value,
};
pub use sys::peak_rss;
pub use table::depths::DepthHistogram;
pub use table::manifest::{Difference, Manifest, ManifestCheck, ManifestEntry, ManifestError};
pub use table::{Stats, TableError, TableKind};

/// Internals for fanotb's own tests and benches: the indexing scheme, the file
/// writer, the in-memory value tables. Not part of the API; may change at any time.
#[doc(hidden)]
pub mod internals {
    pub use crate::index::{Indexer, binom, rank_in, rank_set, unrank_in, unrank_set};
    pub use crate::probe::ValueTables;
    pub use crate::proof::needed_tables;
    pub use crate::retro::build_plan;
    pub use crate::rules::board::bits;
    pub use crate::table::{TableFile, set_entry, table_path};
}

/// The guide's Rust example compiles: it is checked as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/api.md")]
struct GuideDoctests;
