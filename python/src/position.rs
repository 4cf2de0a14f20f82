//! Positions and moves: `Position`, a position argument (a `Position` or its text),
//! and `perft`.

use fanotb::Position as Pos;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::InvalidPositionError;
use crate::side_name;

/// A position: the stones of both sides on a board and the side to move. Immutable:
/// `play` returns the position after the move. `Position(text)` parses position text
/// (`"9/9/B8/9/3WW3B w"`), or `"start"` (tsivy) or `"start:WxH"`.
#[pyclass(frozen, eq, hash, module = "fanotb")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Position(Pos);

/// A position given as a `Position` or as its text; anything else is a `TypeError`
/// saying so in Python's terms.
pub(crate) struct PositionArg(pub(crate) Pos);

impl<'a, 'py> FromPyObject<'a, 'py> for PositionArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(p) = obj.cast::<Position>() {
            return Ok(PositionArg(p.get().0));
        }
        if let Ok(text) = obj.cast::<PyString>() {
            return parse_position(&text.to_cow()?).map(PositionArg);
        }
        Err(PyTypeError::new_err(format!(
            "a position is a fanotb.Position or its text, not {}",
            obj.get_type().name()?
        )))
    }
}

pub(crate) fn parse_position(text: &str) -> PyResult<Pos> {
    Pos::parse_arg(text).map_err(|e| InvalidPositionError::new_err(e.to_string()))
}

#[pymethods]
impl Position {
    /// Parses position text (`"9/9/B8/9/3WW3B w"`), or `"start"` (tsivy) or
    /// `"start:WxH"`.
    #[new]
    fn new(text: &str) -> PyResult<Position> {
        parse_position(text).map(Position)
    }

    /// The position's text, a str, as fanotb writes it (`Position(p.text) == p`).
    #[getter]
    fn text(&self) -> String {
        self.0.to_string()
    }

    /// The side to move, a str: `"white"` or `"black"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_name(self.0.turn())
    }

    /// The board's size, a str such as `"9x5"`.
    #[getter]
    fn board(&self) -> String {
        self.0.board().size_name()
    }

    /// Every legal move, a list of tuples (notation, the `Position` after the move);
    /// empty when the side to move has none.
    fn moves(&self) -> Vec<(String, Position)> {
        let b = self.0.board();
        self.0
            .legal_moves()
            .iter()
            .map(|m| (m.notation(b), Position(self.0.apply(m))))
            .collect()
    }

    /// The `Position` after `move` (its notation, as `moves` writes it); raises
    /// `InvalidPositionError` for a move that does not parse or is not legal.
    fn play(&self, r#move: &str) -> PyResult<Position> {
        let m = self
            .0
            .parse_move(r#move)
            .map_err(|e| InvalidPositionError::new_err(e.to_string()))?;
        Ok(Position(self.0.apply(&m)))
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.text())
    }
}

/// The leaf nodes of the move tree `depth` plies deep from `position` (a `Position`
/// or its text), an int; raises `ValueError` for a negative depth.
#[pyfunction]
pub(crate) fn perft(py: Python<'_>, position: PositionArg, depth: i64) -> PyResult<u64> {
    let pos = position.0;
    let depth = u32::try_from(depth)
        .map_err(|_| PyValueError::new_err(format!("depth {depth}: 0 or more plies")))?;
    Ok(py.detach(|| fanotb::perft(&pos, depth)))
}
