//! The Python module `fanotb._fanotb`, re-exported by the package `fanotb`: positions
//! and moves, the probe API under both rule sets, table generation, proofs and their
//! checker. Errors are Python exceptions; long calls release the GIL.

use std::path::PathBuf;

use fanotb::report::{
    AnalyseReport, CheckProofReport, MoveJson, MoveValueJson, ProbeReport, ProveReport, TableLine,
    ValueJson, probe_report,
};
use fanotb::{
    Board, CheckOptions, Color, Position as Pos, ProbeError, Rules, Signature, TableError,
    TableKind, Tablebase as Tb,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

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
fn probe_error(e: ProbeError) -> PyErr {
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
fn build_hint(t: &TableError) -> Option<String> {
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
fn error(e: impl std::fmt::Display) -> PyErr {
    FanotbError::new_err(e.to_string())
}

/// A string as Python writes it in a repr (fanotb's texts hold no quote or
/// backslash).
fn py_str(s: &str) -> String {
    format!("'{s}'")
}

/// Any string (a path) as a Python string literal in double quotes.
fn py_literal(s: &str) -> String {
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
fn py_opt(n: Option<u32>) -> String {
    n.map_or("None".into(), |n| n.to_string())
}

/// A side as the Python API names it: `"white"` or `"black"`.
fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A position: the stones of both sides on a board and the side to move. Immutable:
/// `play` returns the position after the move. `Position(text)` parses position text
/// (`"9/9/B8/9/3WW3B w"`), or `"start"` (tsivy) or `"start:WxH"`.
#[pyclass(frozen, eq, hash, module = "fanotb")]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Position(Pos);

/// A position given as a `Position` or as its text; anything else is a `TypeError`
/// saying so in Python's terms.
struct PositionArg(Pos);

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

fn parse_position(text: &str) -> PyResult<Pos> {
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
fn perft(py: Python<'_>, position: PositionArg, depth: i64) -> PyResult<u64> {
    let pos = position.0;
    let depth = u32::try_from(depth).map_err(|_| {
        pyo3::exceptions::PyValueError::new_err(format!("depth {depth}: 0 or more plies"))
    })?;
    Ok(py.detach(|| fanotb::perft(&pos, depth)))
}

/// A report as the dict `fanotb ... --json` prints: the same serde type makes both.
fn to_dict<'py, T: serde::Serialize>(py: Python<'py>, report: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, report).map_err(PyErr::from)
}

/// A move with the value it leads to, for the mover.
#[pyclass(frozen, module = "fanotb")]
#[derive(Clone)]
struct MoveInfo(MoveJson);

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
        match self.0.value {
            MoveValueJson::Plain { value, .. } | MoveValueJson::Limited { value, .. } => value,
        }
    }

    /// Plies to the end of the game with best play, this move included, an int; None
    /// for a draw. Under a limit: plies to the next capture (T) of the rule-aware
    /// table's win or loss, None for its draws, cursed wins and blessed losses.
    #[getter]
    fn depth(&self) -> Option<u32> {
        match self.0.value {
            MoveValueJson::Plain { depth, .. } => depth,
            MoveValueJson::Limited {
                plies_to_capture, ..
            } => plies_to_capture,
        }
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
struct Probe(ProbeReport);

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
        match self.0.value {
            ValueJson::Plain { value, .. } | ValueJson::Limited { value, .. } => value,
        }
    }

    /// Plies to the end of the game with best play, an int; None for a draw. Under a
    /// limit: plies to the next capture (T) of the rule-aware table's win or loss,
    /// None for its draws, cursed wins and blessed losses.
    #[getter]
    fn depth(&self) -> Option<u32> {
        match self.0.value {
            ValueJson::Plain { depth, .. } => depth,
            ValueJson::Limited {
                plies_to_capture, ..
            } => plies_to_capture,
        }
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
#[pyclass(frozen, get_all, module = "fanotb")]
struct TableStats {
    /// The board's size, a str such as `"9x5"`.
    board: String,
    /// The material, a str such as `"3v2"` (the side to move's stones first).
    signature: String,
    /// The no-capture limit of a rule-aware table, an int; None for a plain or vela
    /// table.
    limit: Option<u32>,
    /// Whether it is a vela table, a bool.
    vela: bool,
    /// The positions in the table (placements, without symmetry reduction), an int.
    positions: u64,
    /// The positions won for the side to move, an int.
    wins: u64,
    /// The positions drawn, an int.
    draws: u64,
    /// The positions lost for the side to move, an int.
    losses: u64,
    /// The longest win in plies (a rule-aware table: its largest T), an int; None
    /// when the table holds no win.
    longest_win: Option<u32>,
    /// The text of a position of the longest win (White to move), a str; None when
    /// the table holds no win.
    longest_win_position: Option<String>,
    /// The file's size in bytes, an int.
    bytes: u64,
    /// The file's path, a `pathlib.Path`.
    path: PathBuf,
}

#[pymethods]
impl TableStats {
    fn __repr__(&self) -> String {
        let under = match (self.limit, self.vela) {
            (Some(n), _) => format!(" n{n}"),
            (None, true) => " vela".into(),
            (None, false) => String::new(),
        };
        format!(
            "TableStats({} {}{under}: {} positions, {} wins, {} draws, {} losses)",
            self.board, self.signature, self.positions, self.wins, self.draws, self.losses
        )
    }
}

/// The rules of `limit=`/`counter=` and `vela=`/`vela_lost=` for `pos`: the plain
/// game when all are None.
fn rules(pos: &Pos, asked: Asked) -> PyResult<Rules> {
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
type Asked<'a> = (Option<u64>, Option<u32>, Option<&'a str>, Option<u32>);

/// The tables in a directory (as `generate` writes them), opened lazily:
/// `Tablebase(path)`, which raises `FanotbError` when `path` is not a directory.
/// Every method takes a `Position` or position text, an optional no-capture
/// `limit` with its `counter` (plies since the last capture), and an optional
/// `vela` side (`"white"` or `"black"`) with the stones it has lost, `vela_lost`
/// (default: those it is missing from its start).
#[pyclass(frozen, module = "fanotb")]
struct Tablebase(Tb);

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
            .into_iter()
            .map(|t| TableStats {
                board: t.board.size_name(),
                signature: t.signature.to_string(),
                limit: t.kind.limit().map(fanotb::Limit::plies),
                vela: t.kind == fanotb::TableKind::Vela,
                positions: t.stats.placements,
                wins: t.stats.wins,
                draws: t.stats.draws,
                losses: t.stats.losses,
                longest_win: (t.stats.wins > 0).then_some(t.stats.max_win_depth),
                longest_win_position: t.longest_win.map(|p| p.to_string()),
                bytes: t.bytes,
                path: t.path,
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("Tablebase({:?})", self.0.dir().display().to_string())
    }
}

/// The solved game: a proof (by default the tsivy draw proof built into fanotb,
/// else a bundle or a certificate file whose lemmas are in its directory), the
/// tables of `tables` if given, and a bounded search of `search_nodes` for wins. It says what
/// is proved about a position, plays the move fanotb's engine plays, and analyses
/// a game from its first move, with the answers of `fanotb engine` and
/// `fanotb analyse --json`.
#[pyclass(frozen, module = "fanotb")]
struct Solution {
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
fn known_dict<'py>(
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

fn board(name: &str) -> PyResult<&'static Board> {
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
fn generate<'py>(
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
fn prove<'py>(
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
fn check_proof<'py>(
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
