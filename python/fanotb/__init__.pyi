"""Type stubs of fanotb (the Rust extension fanotb._fanotb)."""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Literal

Value = Literal["win", "draw", "loss"]
Side = Literal["white", "black"]
PositionLike = Position | str
StrPath = str | PathLike[str]

class FanotbError(Exception):
    """Any error fanotb reports."""

class InvalidPositionError(FanotbError):
    """Position or move text that does not parse, or is not legal."""

class MissingTableError(FanotbError):
    """A table the question needs is not in the directory (the message names the
    fanotb.generate call that builds it)."""

class DamagedTableError(FanotbError):
    """A table file that is damaged or cannot be read."""

class Position:
    """A position: the stones of both sides on a board and the side to move. Immutable:
    `play` returns the position after the move. `Position(text)` parses position text
    (`"9/9/B8/9/3WW3B w"`), or `"start"` (tsivy) or `"start:WxH"`."""
    def __init__(self, text: str) -> None: ...
    @property
    def text(self) -> str:
        """The position's text, a str, as fanotb writes it (`Position(p.text) == p`)."""
    @property
    def side_to_move(self) -> Side:
        """The side to move, a str: `"white"` or `"black"`."""
    @property
    def board(self) -> str:
        """The board's size, a str such as `"9x5"`."""
    def moves(self) -> list[tuple[str, Position]]:
        """Every legal move, a list of tuples (notation, the `Position` after the move);
        empty when the side to move has none."""
    def play(self, move: str) -> Position:
        """The `Position` after `move` (its notation, as `moves` writes it); raises
        `InvalidPositionError` for a move that does not parse or is not legal."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class MoveInfo:
    """A move with the value it leads to, for the mover."""
    @property
    def move(self) -> str:
        """The move's notation, a str such as `"e1-f2"`, as `Position.moves` writes it."""
    @property
    def value(self) -> Value:
        """The value the move leads to for the mover, a str: `"win"`, `"draw"` or `"loss"`."""
    @property
    def depth(self) -> int | None:
        """Plies to the end of the game with best play, this move included, an int; None
        for a draw. Under a limit: plies to the next capture (T) of the rule-aware
        table's win or loss, None for its draws, cursed wins and blessed losses."""
    @property
    def result(self) -> str:
        """The text of the position after the move, a str."""
    @property
    def counter(self) -> int | None:
        """Under a limit, the counter after the move (0 after a capture), an int; None
        without a limit."""
    def to_dict(self) -> dict[str, Any]:
        """The move as a dict, as `fanotb probe --json` lists it: move, value, depth
        (under a limit: plies_to_capture and counter), result."""

class Probe:
    """What the tables say of a position: its value for the side to move, every move
    with its value for the mover, and the best moves."""
    @property
    def position(self) -> str:
        """The position's text, a str."""
    @property
    def value(self) -> Value:
        """The position's value for the side to move, a str: `"win"`, `"draw"` or `"loss"`."""
    @property
    def depth(self) -> int | None:
        """Plies to the end of the game with best play, an int; None for a draw. Under a
        limit: plies to the next capture (T) of the rule-aware table's win or loss,
        None for its draws, cursed wins and blessed losses."""
    @property
    def limit(self) -> int | None:
        """The no-capture limit asked under, an int; None without a limit."""
    @property
    def counter(self) -> int | None:
        """The counter asked at (plies since the last capture), an int; None without a
        limit."""
    @property
    def cursed(self) -> bool | None:
        """Under a limit, whether the position is a cursed win or a blessed loss (decided
        without the limit, drawn under it), a bool; None without a limit."""
    @property
    def vela(self) -> Side | None:
        """The vela side asked under, a str: `"white"` or `"black"`; None without vela."""
    @property
    def vela_lost(self) -> int | None:
        """The stones the vela side has lost, an int; None without vela."""
    @property
    def moves(self) -> list[MoveInfo]:
        """Every legal move with its value for the mover, a list of `MoveInfo`, best
        first; empty when the game is over."""
    @property
    def best(self) -> list[str]:
        """The notations of the best moves (those of the best value and depth), a list of
        str in the order of `moves`."""
    def to_dict(self) -> dict[str, Any]:
        """The report as a dict, as `fanotb probe --json` prints it."""

class TableStats:
    """One table's figures, as `fanotb stats` gives them."""
    @property
    def board(self) -> str:
        """The board's size, a str such as `"9x5"`."""
    @property
    def signature(self) -> str:
        """The material, a str such as `"3v2"` (the side to move's stones first)."""
    @property
    def limit(self) -> int | None:
        """The no-capture limit of a rule-aware table, an int; None for a plain or vela
        table."""
    @property
    def vela(self) -> bool:
        """Whether it is a vela table, a bool."""
    @property
    def positions(self) -> int:
        """The positions in the table (placements, without symmetry reduction), an int."""
    @property
    def wins(self) -> int:
        """The positions won for the side to move, an int."""
    @property
    def draws(self) -> int:
        """The positions drawn, an int."""
    @property
    def losses(self) -> int:
        """The positions lost for the side to move, an int."""
    @property
    def longest_win(self) -> int | None:
        """The longest win in plies (a rule-aware table: its largest T), an int; None
        when the table holds no win."""
    @property
    def longest_win_position(self) -> str | None:
        """The text of a position of the longest win (White to move), a str; None when
        the table holds no win."""
    @property
    def bytes(self) -> int:
        """The file's size in bytes, an int."""
    @property
    def path(self) -> Path:
        """The file's path, a `pathlib.Path`."""
    def to_dict(self) -> dict[str, Any]:
        """The table's figures as a dict, as a row of `fanotb stats --json`'s `tables`."""

__version__: str

class Solution:
    """The solved game: a proof (by default the tsivy draw proof built into fanotb,
    else a bundle or a certificate file whose lemmas are in its directory), the
    tables of `tables` if given, and a bounded search of `search_nodes` for wins. It says what
    is proved about a position, plays the move fanotb's engine plays, and analyses
    a game from its first move, with the answers of `fanotb engine` and
    `fanotb analyse --json`."""
    def __init__(
        self,
        path: StrPath | None = None,
        tables: StrPath | None = None,
        search_nodes: int = 20000,
    ) -> None: ...
    def known(
        self, position: PositionLike, limit: int | None = None, counter: int | None = None
    ) -> dict[str, str]:
        """What is proved about the position: a dict of `value` (for the side to move),
        `text` and `source`."""
    def best_move(
        self, position: PositionLike, limit: int | None = None, counter: int | None = None
    ) -> dict[str, str] | None:
        """The move fanotb plays in the position, as a dict of `move` and `source`
        (`proof`, `table`, `win`, `search`, `unproved`); None when the game is over."""
    def analyse(self, record: str) -> dict[str, Any]:
        """A game record analysed from its first move, as `fanotb analyse --json` gives
        it: a dict of the result, how the game ended, the counts, and `moves`, a list
        of dicts, one a move: its value before and after by the tables (None where no
        table covers it, with the reason in `not_covered`), the mistake or
        inaccuracy with the best move, and what is proved before and after it with
        the verdict (`kept`, `thrown`, `unknown`, or None where nothing was proved)."""

class Tablebase:
    """The tables in a directory (as `generate` writes them), opened lazily:
    `Tablebase(path)`, which raises `FanotbError` when `path` is not a directory.
    Every method takes a `Position` or position text, an optional no-capture
    `limit` with its `counter` (plies since the last capture), and an optional
    `vela` side (`"white"` or `"black"`) with the stones it has lost, `vela_lost`
    (default: those it is missing from its start)."""
    def __init__(self, path: StrPath) -> None: ...
    def probe(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> Probe:
        """The position's value, every move's and the best moves, a `Probe`."""
    def value(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> Value:
        """`"win"`, `"draw"` or `"loss"` for the side to move (reads the value stream
        only)."""
    def best_move(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> str | None:
        """A best move's notation (the first of the best), or None when the side to
        move has no move."""
    def line(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> list[MoveInfo]:
        """The principal line: best moves to the end of the game (or, under a limit,
        to the draw at the limit), each with its value for its mover."""
    def tables(self) -> list[TableStats]:
        """Every table in the directory with its figures, a list of `TableStats`."""

def perft(position: PositionLike, depth: int) -> int:
    """The leaf nodes of the move tree `depth` plies deep from `position` (a `Position`
    or its text), an int; raises `ValueError` for a negative depth."""

def generate(
    path: StrPath,
    max_stones: int,
    board: str = "tsivy",
    limit: int | None = None,
    threads: int | None = None,
    progress: Callable[[dict[str, Any]], object] | None = None,
    vela: bool = False,
) -> list[dict[str, Any]]:
    """Builds every table of up to `max_stones` stones on `board` into `path` (tables
    already there are kept), and under the no-capture `limit` too when given, or
    with `vela=True` the vela tables of up to `max_stones` stones (and the plain
    tables they need).
    `progress`, if given, is called with each table's report (a dict) as it is done.
    Returns the reports, a list of dicts: signature, limit, vela (vela tables only),
    path, entries, wins, draws, losses, bytes, seconds, skipped."""

def prove(
    path: StrPath,
    out: StrPath,
    board: str = "tsivy",
    position: PositionLike | None = None,
    max_table_stones: int = 6,
    max_nodes: int | None = None,
    threads: int | None = None,
    lemmas: StrPath | None = None,
) -> dict[str, Any]:
    """Proves the value of `position` (default: the board's start) by proof-number
    search over tables of at most `max_table_stones` stones (built in `path` as
    needed), writes the certificate to `out`, and returns the dict `fanotb prove
    --json` prints: board, position, value, proofs (side, claim, positions, nodes,
    seconds), nodes, seconds, search_seconds, peak_rss, max_table_stones, tables,
    certificate, certificate_bytes, lemmas_used, lemmas_written. With a lemma
    directory `lemmas`, its lemmas are leaves of the search and the proof's own
    lemmas are written there."""

def check_proof(
    certificate: StrPath,
    path: StrPath,
    verify_tables: bool = False,
    lemmas: StrPath | None = None,
) -> dict[str, Any]:
    """Checks a proof certificate against the tables in `path` (and, with
    `verify_tables`, re-derives every entry of the tables it names), with the
    lemmas it relies on from the lemma directory `lemmas`. Returns the dict
    `fanotb check-proof --json` prints: certificate, ok, board, position, value
    (None for a lemma, whose `lemma` says what it proves), max_table_stones, tables,
    lemmas (checked), proofs (side, claim, positions), positions, moves, seconds;
    raises FanotbError when the certificate is refused."""
