//! The exceptions: every error of the library as a Python exception of its kind,
//! with a missing table's `fanotb.generate` call.

use fanotb::{Board, ProbeError, TableError, TableKind};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use crate::py_literal;

create_exception!(
    fanotb,
    FanotbError,
    PyException,
    "Any error fanotb reports."
);
create_exception!(
    fanotb,
    InvalidPositionError,
    FanotbError,
    "Position or move text that does not parse, or is not legal."
);
create_exception!(
    fanotb,
    MissingTableError,
    FanotbError,
    "A table the question needs is not in the directory (the message names the fanotb.generate call that builds it)."
);
create_exception!(
    fanotb,
    DamagedTableError,
    FanotbError,
    "A table file that is damaged or cannot be read."
);

/// An error of the library as the Python exception of its kind, with its message
/// and, for a missing table or table directory, what builds it in Python.
pub(crate) fn probe_error(e: ProbeError) -> PyErr {
    match &e {
        ProbeError::Table(t @ TableError::Missing { .. }) => match build_hint(t) {
            Some(hint) => MissingTableError::new_err(format!("{e}: {hint}")),
            None => MissingTableError::new_err(e.to_string()),
        },
        ProbeError::Table(_) => DamagedTableError::new_err(e.to_string()),
        ProbeError::NotADirectory(dir) => FanotbError::new_err(format!(
            "{e}: open the directory of your tables, or build tables there with \
             fanotb.generate({}, max_stones=4)",
            py_literal(&dir.display().to_string())
        )),
        _ => FanotbError::new_err(e.to_string()),
    }
}

/// For a missing table, the `fanotb.generate` call that builds it (the library's
/// hint names the command line, which `pip install` does not install), or the
/// library's word that fanotb builds no such table. None for other errors.
pub(crate) fn build_hint(t: &TableError) -> Option<String> {
    let TableError::Missing {
        board,
        sig,
        kind,
        dir,
    } = t
    else {
        return None;
    };
    if !kind.holds(board, *sig) || !sig.buildable(board) {
        // No vela table of this material, or no table this large: nothing to call.
        return t.build_hint();
    }
    let mut call = format!(
        "fanotb.generate({}, max_stones={}",
        py_literal(&dir.display().to_string()),
        sig.stones()
    );
    if board.size_name() != Board::tsivy().size_name() {
        call += &format!(", board={}", py_literal(&board.size_name()));
    }
    if let Some(n) = kind.limit() {
        call += &format!(", limit={}", n.plies());
    } else if *kind == TableKind::Vela {
        call += ", vela=True";
    }
    Some(format!("build it with {call})"))
}

/// Any other error of the library as a `FanotbError` with its message.
pub(crate) fn error(e: impl std::fmt::Display) -> PyErr {
    FanotbError::new_err(e.to_string())
}
