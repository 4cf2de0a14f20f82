#![doc = include_str!("../README.md")]
#![warn(
    missing_docs,
    missing_debug_implementations,
    clippy::undocumented_unsafe_blocks
)]

// The modules are private: the public API is the re-export block below, so that
// internal reshaping never breaks an engine that links fanotb.
mod board;
mod certificate;
mod check;
mod depths;
#[cfg(feature = "mpi")]
mod distributed;
mod durable;
mod index;
mod limit;
mod movegen;
mod pair_checkpoint;
mod position;
mod probe;
mod proof;
mod retro;
mod rules;
mod solve;
mod table;
mod value;
mod verify;

pub mod ffi;

pub use board::{Board, BoardError};
pub use certificate::{Certificate, CertificateError, Claim, Entry, Part};
pub use check::{CheckError, CheckReport, check_proof};
pub use depths::DepthHistogram;
#[cfg(feature = "mpi")]
pub use distributed::{Deps, PairTraffic, generate_distributed};
pub use durable::LockError;
pub use index::{Signature, SignatureError};
pub use limit::{Limit, LimitError, Limited};
pub use movegen::{Capture, DivideLine, Move, MoveError, Step, perft, perft_divide};
pub use position::{Color, Position, PositionError};
pub use probe::{MoveValue, ProbeError, TableInfo, Tablebase, Value, best_count};
pub use proof::{
    CheckpointError, CheckpointPlan, Limits, ProveError, ProveOptions, Proved, SearchOutcome,
    SearchProgress, prove,
};
pub use retro::{
    BuildPlan, GenerateError, Observer, Options, TableReport, generate, peak_rss, plan_build,
};
pub use rules::{Rules, RulesError};
pub use solve::{SMALL_BOARDS, SearchResult, Solution, SolveError, published, solve};
pub use table::{Stats, TableError};
pub use value::{Outcome, Wdl};
pub use verify::{VerifyReport, verify};

/// Internals for fanotb's own tests and benches: the indexing scheme, the file
/// writer, the in-memory value tables. Not part of the API; may change at any time.
#[doc(hidden)]
pub mod internals {
    pub use crate::board::bits;
    pub use crate::index::{Indexer, binom, rank_in, rank_set, unrank_in, unrank_set};
    pub use crate::probe::ValueTables;
    pub use crate::proof::needed_tables;
    pub use crate::retro::build_plan;
    pub use crate::table::{TableFile, set_entry, table_path};
}
