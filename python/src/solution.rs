//! The solved game: `Solution`, what is proved, the engine's move, and a game
//! analysed from its first move.

use std::path::PathBuf;

use fanotb::report::AnalyseReport;
use fanotb::{Color, Tablebase as Tb};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{error, probe_error};
use crate::position::PositionArg;
use crate::tablebase::rules;
use crate::to_dict;

/// The solved game: a proof (by default the tsivy draw proof built into fanotb,
/// else a bundle or a certificate file whose lemmas are in its directory), the
/// tables of `tables` if given, and a bounded search of `search_nodes` for wins. It says what
/// is proved about a position, plays the move fanotb's engine plays, and analyses
/// a game from its first move, with the answers of `fanotb engine` and
/// `fanotb analyse --json`.
#[pyclass(frozen, module = "fanotb")]
pub(crate) struct Solution {
    player: std::sync::Mutex<fanotb::Player>,
    name: String,
}

impl Solution {
    fn player(&self) -> std::sync::MutexGuard<'_, fanotb::Player> {
        // A panic cannot leave the player half-changed: a poisoned lock is taken.
        self.player.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `{"value": ..., "text": ..., "source": ...}`: what is known, as the engine's
/// value line gives it (`win`, `draw`, `loss`, `notlose`, `notwin`, `unknown`),
/// in words, and from where (`table`, `proof`, `none`).
pub(crate) fn known_dict<'py>(
    py: Python<'py>,
    known: &fanotb::Known,
    turn: Color,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("value", known.word(turn))?;
    d.set_item("text", known.to_string())?;
    d.set_item("source", known.source_name())?;
    Ok(d)
}

#[pymethods]
impl Solution {
    #[new]
    #[pyo3(signature = (path=None, tables=None, search_nodes=20000))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        tables: Option<PathBuf>,
        search_nodes: u64,
    ) -> PyResult<Solution> {
        let source = match &path {
            Some(p) => fanotb::SolutionSource::File(p.clone()),
            None => fanotb::SolutionSource::BuiltIn,
        };
        let name = path.map_or("builtin".into(), |p| p.display().to_string());
        let solution = py.detach(|| source.load()).map_err(error)?;
        let tables = tables.map(Tb::open).transpose().map_err(probe_error)?;
        let mut opts = fanotb::PlayerOptions::default();
        opts.search_nodes = search_nodes;
        Ok(Solution {
            player: std::sync::Mutex::new(fanotb::Player::new(solution, tables, opts)),
            name,
        })
    }

    /// What is proved about the position: a dict of `value` (for the side to move),
    /// `text` and `source`.
    #[pyo3(signature = (position, limit=None, counter=None))]
    fn known<'py>(
        &self,
        py: Python<'py>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, None, None))?;
        let known = py
            .detach(|| self.player().known(&pos, rules))
            .map_err(probe_error)?;
        known_dict(py, &known, pos.turn())
    }

    /// The move fanotb plays in the position, as a dict of `move` and `source`
    /// (`proof`, `table`, `win`, `search`, `unproved`); None when the game is over.
    #[pyo3(signature = (position, limit=None, counter=None))]
    fn best_move<'py>(
        &self,
        py: Python<'py>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, None, None))?;
        let choice = match py.detach(|| self.player().choose(&pos, rules)) {
            Ok(c) => c,
            Err(fanotb::PlayerError::NoMove) => return Ok(None),
            Err(fanotb::PlayerError::Probe(e)) => return Err(probe_error(e)),
            Err(e) => return Err(error(e)),
        };
        let d = PyDict::new(py);
        d.set_item("move", choice.mv.notation(pos.board()))?;
        d.set_item("source", choice.source.name())?;
        Ok(Some(d))
    }

    /// A game record analysed from its first move, as `fanotb analyse --json` gives
    /// it: a dict of the result, how the game ended, the counts, and `moves`, a list
    /// of dicts, one a move: its value before and after by the tables (None where no
    /// table covers it, with the reason in `not_covered`), the mistake or
    /// inaccuracy with the best move, and what is proved before and after it with
    /// the verdict (`kept`, `thrown`, `unknown`, or None where nothing was proved).
    fn analyse<'py>(&self, py: Python<'py>, record: &str) -> PyResult<Bound<'py, PyAny>> {
        let record: fanotb::Record = record.parse().map_err(error)?;
        let (analysis, judged) =
            py.detach(|| self.player().analyse_game(&record))
                .map_err(|e| match e {
                    fanotb::AnalysisError::Probe(e) => probe_error(e),
                    e => error(e),
                })?;
        to_dict(py, &AnalyseReport::new(&analysis, &judged))
    }

    fn __repr__(&self) -> String {
        format!("Solution({:?})", self.name)
    }
}
