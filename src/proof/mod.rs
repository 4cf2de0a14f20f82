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
//!
//! Rooms: `search` (the df-pn engine), `extract` (the certificate of a verdict),
//! `prove` (the pipeline: tables, the two searches, the certificate), `checkpoint`
//! (the search's saved transposition table), `lemmas` (proved sub-positions the
//! search takes as leaves), `jobs` (a proof split into jobs that leave lemmas),
//! `tree` (PN²: a best-first first-level tree over bounded searches, leaving lemmas).

mod checkpoint;
mod extract;
mod jobs;
mod lemmas;
mod prove;
mod search;
mod tree;

pub use checkpoint::CheckpointError;
pub use jobs::{JobEvent, JobOptions, JobResult, JobsReport, LevelReport, job_levels, prove_jobs};
pub use lemmas::Lemmas;
pub(crate) use prove::prove_lemma;
pub use prove::{ProveError, ProveOptions, Proved, needed_tables, prove};
pub use search::{CheckpointPlan, Limits, SearchOutcome, SearchProgress};
pub use tree::{TreeOptions, TreeProgress, TreeReport, prove_tree};
