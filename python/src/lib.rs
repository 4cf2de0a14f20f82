//! The Python module `fanotb._fanotb`, re-exported by the package `fanotb`: positions
//! and moves, the probe API under both rule sets, table generation, proofs and their
//! checker. Errors are Python exceptions; long calls release the GIL.

mod build;
mod errors;
mod position;
mod solution;
mod tablebase;

use fanotb::Color;
use pyo3::prelude::*;

use build::{check_proof, generate, prove};
use errors::{DamagedTableError, FanotbError, InvalidPositionError, MissingTableError};
use position::{Position, perft};
use solution::Solution;
use tablebase::{MoveInfo, Probe, TableStats, Tablebase};

/// A string as Python writes it in a repr (fanotb's texts hold no quote or
/// backslash).
pub(crate) fn py_str(s: &str) -> String {
    format!("'{s}'")
}

/// Any string (a path) as a Python string literal in double quotes.
pub(crate) fn py_literal(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out += &format!("\\x{:02x}", u32::from(c)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An optional number as Python writes it: the number, or None.
pub(crate) fn py_opt(n: Option<u32>) -> String {
    n.map_or("None".into(), |n| n.to_string())
}

/// A side as the Python API names it: `"white"` or `"black"`.
pub(crate) fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A report as the dict `fanotb ... --json` prints: the same serde type makes both.
pub(crate) fn to_dict<'py, T: serde::Serialize>(
    py: Python<'py>,
    report: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, report).map_err(PyErr::from)
}

#[pymodule]
fn _fanotb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FanotbError", py.get_type::<FanotbError>())?;
    m.add(
        "InvalidPositionError",
        py.get_type::<InvalidPositionError>(),
    )?;
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add("DamagedTableError", py.get_type::<DamagedTableError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Position>()?;
    m.add_class::<Tablebase>()?;
    m.add_class::<Probe>()?;
    m.add_class::<MoveInfo>()?;
    m.add_class::<TableStats>()?;
    m.add_class::<Solution>()?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(check_proof, m)?)?;
    Ok(())
}
