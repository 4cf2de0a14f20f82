//! The probe API: `Tablebase`, its answers (`Probe`, `MoveInfo`) and each table's
//! figures (`TableStats`).

use std::path::PathBuf;

use fanotb::report::{MoveJson, MoveValueJson, ProbeReport, StatsRow, ValueJson, probe_report};
use fanotb::{Position as Pos, Rules, Tablebase as Tb};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::probe_error;
use crate::position::PositionArg;
use crate::{py_opt, py_str, to_dict};

/// A move with the value it leads to, for the mover.
#[pyclass(frozen, module = "fanotb")]
#[derive(Clone)]
pub(crate) struct MoveInfo(MoveJson);

#[pymethods]
impl MoveInfo {
    /// The move's notation, a str such as `"e1-f2"`, as `Position.moves` writes it.
    #[getter(r#move)]
    fn notation(&self) -> &str {
        &self.0.notation
    }

    /// The value the move leads to for the mover, a str: `"win"`, `"draw"` or `"loss"`.
    #[getter]
    fn value(&self) -> &'static str {
        self.0.value.value()
    }

    /// Plies to the end of the game with best play, this move included, an int; None
    /// for a draw. Under a limit: plies to the next capture (T) of the rule-aware
    /// table's win or loss, None for its draws, cursed wins and blessed losses.
    #[getter]
    fn depth(&self) -> Option<u32> {
        self.0.value.depth()
    }

    /// The text of the position after the move, a str.
    #[getter]
    fn result(&self) -> &str {
        &self.0.result
    }

    /// Under a limit, the counter after the move (0 after a capture), an int; None
    /// without a limit.
    #[getter]
    fn counter(&self) -> Option<u32> {
        match self.0.value {
            MoveValueJson::Plain { .. } => None,
            MoveValueJson::Limited { counter, .. } => Some(counter),
        }
    }

    /// The move as a dict, as `fanotb probe --json` lists it: move, value, depth
    /// (under a limit: plies_to_capture and counter), result.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.0)
    }

    fn __repr__(&self) -> String {
        format!(
            "MoveInfo(move={}, value={}, depth={})",
            py_str(&self.0.notation),
            py_str(self.value()),
            py_opt(self.depth())
        )
    }
}

/// What the tables say of a position: its value for the side to move, every move
/// with its value for the mover, and the best moves.
#[pyclass(frozen, module = "fanotb")]
pub(crate) struct Probe(ProbeReport);

#[pymethods]
impl Probe {
    /// The position's text, a str.
    #[getter]
    fn position(&self) -> &str {
        &self.0.position
    }

    /// The position's value for the side to move, a str: `"win"`, `"draw"` or `"loss"`.
    #[getter]
    fn value(&self) -> &'static str {
        self.0.value.value()
    }

    /// Plies to the end of the game with best play, an int; None for a draw. Under a
    /// limit: plies to the next capture (T) of the rule-aware table's win or loss,
    /// None for its draws, cursed wins and blessed losses.
    #[getter]
    fn depth(&self) -> Option<u32> {
        self.0.value.depth()
    }

    /// The no-capture limit asked under, an int; None without a limit.
    #[getter]
    fn limit(&self) -> Option<u32> {
        self.0.rules.as_ref().and_then(|r| r.limit)
    }

    /// The counter asked at (plies since the last capture), an int; None without a
    /// limit.
    #[getter]
    fn counter(&self) -> Option<u32> {
        self.0.rules.as_ref().and_then(|r| r.counter)
    }

    /// Under a limit, whether the position is a cursed win or a blessed loss (decided
    /// without the limit, drawn under it), a bool; None without a limit.
    #[getter]
    fn cursed(&self) -> Option<bool> {
        match self.0.value {
            ValueJson::Plain { .. } => None,
            ValueJson::Limited { cursed, .. } => Some(cursed),
        }
    }

    /// The vela side asked under, a str: `"white"` or `"black"`; None without vela.
    #[getter]
    fn vela(&self) -> Option<&'static str> {
        self.0.rules.as_ref()?.vela.as_ref().map(|v| v.side)
    }

    /// The stones the vela side has lost, an int; None without vela.
    #[getter]
    fn vela_lost(&self) -> Option<u32> {
        self.0.rules.as_ref()?.vela.as_ref().map(|v| v.lost)
    }

    /// Every legal move with its value for the mover, a list of `MoveInfo`, best
    /// first; empty when the game is over.
    #[getter]
    fn moves(&self) -> Vec<MoveInfo> {
        self.0.moves.iter().cloned().map(MoveInfo).collect()
    }

    /// The notations of the best moves (those of the best value and depth), a list of
    /// str in the order of `moves`.
    #[getter]
    fn best(&self) -> Vec<String> {
        self.0.best.clone()
    }

    /// The report as a dict, as `fanotb probe --json` prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.0)
    }

    fn __repr__(&self) -> String {
        let best: Vec<String> = self.0.best.iter().map(|b| py_str(b)).collect();
        format!(
            "Probe(position={}, value={}, depth={}, best=[{}])",
            py_str(&self.0.position),
            py_str(self.value()),
            py_opt(self.depth()),
            best.join(", ")
        )
    }
}

/// One table's figures, as `fanotb stats` gives them.
#[pyclass(frozen, module = "fanotb")]
pub(crate) struct TableStats(StatsRow);

#[pymethods]
impl TableStats {
    /// The board's size, a str such as `"9x5"`.
    #[getter]
    fn board(&self) -> &str {
        &self.0.board
    }

    /// The material, a str such as `"3v2"` (the side to move's stones first).
    #[getter]
    fn signature(&self) -> String {
        self.0.signature.to_string()
    }

    /// The no-capture limit of a rule-aware table, an int; None for a plain or vela
    /// table.
    #[getter]
    fn limit(&self) -> Option<u32> {
        self.0.kind.0.limit().map(fanotb::Limit::plies)
    }

    /// Whether it is a vela table, a bool.
    #[getter]
    fn vela(&self) -> bool {
        self.0.kind.0 == fanotb::TableKind::Vela
    }

    /// The positions in the table (placements, without symmetry reduction), an int.
    #[getter]
    fn positions(&self) -> u64 {
        self.0.positions
    }

    /// The positions won for the side to move, an int.
    #[getter]
    fn wins(&self) -> u64 {
        self.0.wins
    }

    /// The positions drawn, an int.
    #[getter]
    fn draws(&self) -> u64 {
        self.0.draws
    }

    /// The positions lost for the side to move, an int.
    #[getter]
    fn losses(&self) -> u64 {
        self.0.losses
    }

    /// The longest win in plies (a rule-aware table: its largest T), an int; None
    /// when the table holds no win.
    #[getter]
    fn longest_win(&self) -> Option<u32> {
        self.0.longest_win
    }

    /// The text of a position of the longest win (White to move), a str; None when
    /// the table holds no win.
    #[getter]
    fn longest_win_position(&self) -> Option<String> {
        self.0.longest_win_position.clone()
    }

    /// The file's size in bytes, an int.
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }

    /// The file's path, a `pathlib.Path`.
    #[getter]
    fn path(&self) -> PathBuf {
        self.0.path.clone()
    }

    /// The table's figures as a dict, as a row of `fanotb stats --json`'s `tables`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.0)
    }

    fn __repr__(&self) -> String {
        let under = match (self.limit(), self.vela()) {
            (Some(n), _) => format!(" n{n}"),
            (None, true) => " vela".into(),
            (None, false) => String::new(),
        };
        let r = &self.0;
        format!(
            "TableStats({} {}{under}: {} positions, {} wins, {} draws, {} losses)",
            r.board, r.signature, r.positions, r.wins, r.draws, r.losses
        )
    }
}

/// The rules of `limit=`/`counter=` and `vela=`/`vela_lost=` for `pos`: the plain
/// game when all are None.
pub(crate) fn rules(pos: &Pos, asked: Asked) -> PyResult<Rules> {
    let (limit, counter, vela, vela_lost) = asked;
    let asked = fanotb::RulesRequest {
        limit,
        counter,
        vela,
        vela_lost,
    };
    // A limit, counter or vela out of range is a wrong argument: a ValueError.
    asked
        .rules(pos)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The rule keywords of a probe call: limit, counter, vela, vela_lost.
pub(crate) type Asked<'a> = (Option<u64>, Option<u32>, Option<&'a str>, Option<u32>);

/// The tables in a directory (as `generate` writes them), opened lazily:
/// `Tablebase(path)`, which raises `FanotbError` when `path` is not a directory.
/// Every method takes a `Position` or position text, an optional no-capture
/// `limit` with its `counter` (plies since the last capture), and an optional
/// `vela` side (`"white"` or `"black"`) with the stones it has lost, `vela_lost`
/// (default: those it is missing from its start).
#[pyclass(frozen, module = "fanotb")]
pub(crate) struct Tablebase(Tb);

#[pymethods]
impl Tablebase {
    #[new]
    fn new(path: PathBuf) -> PyResult<Tablebase> {
        Tb::open(path).map(Tablebase).map_err(probe_error)
    }

    /// The position's value, every move's and the best moves, a `Probe`.
    #[pyo3(signature = (position, limit=None, counter=None, vela=None, vela_lost=None))]
    fn probe(
        &self,
        py: Python<'_>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
        vela: Option<&str>,
        vela_lost: Option<u32>,
    ) -> PyResult<Probe> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, vela, vela_lost))?;
        py.detach(|| probe_report(&pos, &self.0, rules))
            .map(Probe)
            .map_err(probe_error)
    }

    /// `"win"`, `"draw"` or `"loss"` for the side to move (reads the value stream
    /// only).
    #[pyo3(signature = (position, limit=None, counter=None, vela=None, vela_lost=None))]
    fn value(
        &self,
        py: Python<'_>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
        vela: Option<&str>,
        vela_lost: Option<u32>,
    ) -> PyResult<&'static str> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, vela, vela_lost))?;
        let wdl = py
            .detach(|| self.0.value(&pos, rules))
            .map_err(probe_error)?;
        Ok(wdl.name())
    }

    /// A best move's notation (the first of the best), or None when the side to
    /// move has no move.
    #[pyo3(signature = (position, limit=None, counter=None, vela=None, vela_lost=None))]
    fn best_move(
        &self,
        py: Python<'_>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
        vela: Option<&str>,
        vela_lost: Option<u32>,
    ) -> PyResult<Option<String>> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, vela, vela_lost))?;
        let best = py
            .detach(|| self.0.best_moves(&pos, rules))
            .map_err(probe_error)?;
        Ok(best.first().map(|m| m.mv.notation(pos.board())))
    }

    /// The principal line: best moves to the end of the game (or, under a limit,
    /// to the draw at the limit), each with its value for its mover.
    #[pyo3(signature = (position, limit=None, counter=None, vela=None, vela_lost=None))]
    fn line(
        &self,
        py: Python<'_>,
        position: PositionArg,
        limit: Option<u64>,
        counter: Option<u32>,
        vela: Option<&str>,
        vela_lost: Option<u32>,
    ) -> PyResult<Vec<MoveInfo>> {
        let pos = position.0;
        let rules = rules(&pos, (limit, counter, vela, vela_lost))?;
        let line = py
            .detach(|| self.0.line(&pos, rules))
            .map_err(probe_error)?;
        // A move's notation depends on the board alone, the same along the line.
        Ok(MoveJson::list(&line, &pos)
            .into_iter()
            .map(MoveInfo)
            .collect())
    }

    /// Every table in the directory with its figures, a list of `TableStats`.
    fn tables(&self, py: Python<'_>) -> PyResult<Vec<TableStats>> {
        let infos = py.detach(|| self.0.tables()).map_err(probe_error)?;
        Ok(infos
            .iter()
            .map(|t| TableStats(StatsRow::from(t)))
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("Tablebase({:?})", self.0.dir().display().to_string())
    }
}
