//! Building and proving: `generate`, `prove` and `check_proof`, each returning the
//! report its command prints with `--json`.

use std::path::PathBuf;

use fanotb::report::{CheckProofReport, ProveReport, TableLine};
use fanotb::{Board, CheckOptions, Position as Pos, Signature};
use pyo3::prelude::*;

use crate::errors::{FanotbError, error, probe_error};
use crate::position::PositionArg;
use crate::to_dict;

pub(crate) fn board(name: &str) -> PyResult<&'static Board> {
    Board::by_name(name).map_err(error)
}

/// Builds every table of up to `max_stones` stones on `board` into `path` (tables
/// already there are kept), and under the no-capture `limit` too when given, or
/// with `vela=True` the vela tables of up to `max_stones` stones (and the plain
/// tables they need).
/// `progress`, if given, is called with each table's report (a dict) as it is done.
/// Returns the reports, a list of dicts, each a table's line of `fanotb generate
/// --json`: signature, limit, vela (vela tables only), path, positions, entries,
/// wins, draws, losses, seconds, bytes, skipped, peak_rss, memory_bound,
/// resumed_at_depth, cursed, blessed.
#[pyfunction]
#[pyo3(signature = (path, max_stones, board="tsivy", limit=None, threads=None, progress=None, vela=false))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one call
pub(crate) fn generate<'py>(
    py: Python<'py>,
    path: PathBuf,
    max_stones: usize,
    board: &str,
    limit: Option<u64>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    vela: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let b = self::board(board)?;
    if !(2..=b.points()).contains(&max_stones) {
        return Err(FanotbError::new_err(format!(
            "max_stones {max_stones}: tables have 2 to {} stones on {}",
            b.points(),
            b.size_name()
        )));
    }
    let mut opts = match (limit, vela) {
        (Some(_), true) => {
            return Err(FanotbError::new_err(
                "vela tables have no no-capture limit: give limit or vela, not both",
            ));
        }
        (Some(n), false) => fanotb::Options::rule_aware(fanotb::Limit::new(n).map_err(error)?),
        (None, true) => fanotb::Options::vela(),
        (None, false) => fanotb::Options::default(),
    };
    opts.threads = threads;
    let sigs: Vec<Signature> = Signature::all_up_to(max_stones)
        .into_iter()
        .filter(|&s| !vela || opts.kind.holds(b, s))
        .collect();
    // The callback's own error stops nothing: it is raised once the build is done.
    let mut raised: Option<PyErr> = None;
    let reports = py
        .detach(|| {
            fanotb::generate(&path, b, &sigs, &opts, |r| {
                if let (Some(cb), None) = (&progress, &raised) {
                    Python::attach(|py| {
                        if let Err(e) =
                            to_dict(py, &TableLine::from(r)).and_then(|d| cb.call1(py, (d,)))
                        {
                            raised = Some(e);
                        }
                    });
                }
            })
        })
        .map_err(error)?;
    if let Some(e) = raised {
        return Err(e);
    }
    reports
        .iter()
        .map(|r| to_dict(py, &TableLine::from(r)))
        .collect()
}

/// Proves the value of `position` (default: the board's start) by proof-number
/// search over tables of at most `max_table_stones` stones (built in `path` as
/// needed), writes the certificate to `out`, and returns the dict `fanotb prove
/// --json` prints: board, position, value, proofs (side, claim, positions, nodes,
/// seconds), nodes, seconds, search_seconds, peak_rss, max_table_stones, tables,
/// certificate, certificate_bytes, lemmas_used, lemmas_written. With a lemma
/// directory `lemmas`, its lemmas are leaves of the search and the proof's own
/// lemmas are written there.
#[pyfunction]
#[pyo3(signature = (path, out, board="tsivy", position=None, max_table_stones=6, max_nodes=None, threads=None, lemmas=None))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of one call
pub(crate) fn prove<'py>(
    py: Python<'py>,
    path: PathBuf,
    out: PathBuf,
    board: &str,
    position: Option<PositionArg>,
    max_table_stones: usize,
    max_nodes: Option<u64>,
    threads: Option<usize>,
    lemmas: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let b = self::board(board)?;
    let pos = match position {
        Some(p) => p.0,
        None => Pos::start(b),
    };
    let mut opts = fanotb::ProveOptions::default();
    opts.max_table_stones = max_table_stones;
    opts.threads = threads;
    if let Some(n) = max_nodes {
        opts.limits.max_nodes = n;
    }
    opts.lemmas = lemmas.clone();
    let proved = py
        .detach(|| fanotb::prove(&path, &pos, &opts, |_| {}, &|_| {}))
        .map_err(|e| match e {
            fanotb::ProveError::Probe(e) => probe_error(e),
            e => error(e),
        })?;
    let bytes = py
        .detach(|| proved.certificate.write(&out))
        .map_err(error)?;
    let written = match &lemmas {
        Some(dir) => py
            .detach(|| proved.certificate.write_lemmas(dir))
            .map_err(error)?,
        None => Vec::new(),
    };
    to_dict(py, &ProveReport::new(&proved, &out, bytes, &written))
}

/// Checks a proof certificate against the tables in `path` (and, with
/// `verify_tables`, re-derives every entry of the tables it names), with the
/// lemmas it relies on from the lemma directory `lemmas`. Returns the dict
/// `fanotb check-proof --json` prints: certificate, ok, board, position, value
/// (None for a lemma, whose `lemma` says what it proves), max_table_stones, tables,
/// lemmas (checked), proofs (side, claim, positions), positions, moves, seconds;
/// raises FanotbError when the certificate is refused.
#[pyfunction]
#[pyo3(signature = (certificate, path, verify_tables=false, lemmas=None))]
pub(crate) fn check_proof<'py>(
    py: Python<'py>,
    certificate: PathBuf,
    path: PathBuf,
    verify_tables: bool,
    lemmas: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut opts = CheckOptions::default();
    opts.verify_tables = verify_tables;
    opts.lemmas = lemmas;
    let r = py
        .detach(|| fanotb::check_proof(&certificate, &path, &opts))
        .map_err(|e| match e {
            fanotb::CheckError::Probe(e) => probe_error(e),
            e => error(e),
        })?;
    to_dict(py, &CheckProofReport::new(&certificate, &r, false))
}
