"""Type stubs of fanotb (the Rust extension fanotb._fanotb)."""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Literal

Value = Literal["win", "draw", "loss"]
Side = Literal["white", "black"]
PositionLike = Position | str
StrPath = str | PathLike[str]

class FanotbError(Exception): ...
class InvalidPositionError(FanotbError): ...
class MissingTableError(FanotbError): ...
class DamagedTableError(FanotbError): ...

class Position:
    """A position: the stones of both sides on a board and the side to move."""
    def __init__(self, text: str) -> None: ...
    @property
    def text(self) -> str: ...
    @property
    def side_to_move(self) -> Side: ...
    @property
    def board(self) -> str: ...
    def moves(self) -> list[tuple[str, Position]]: ...
    def play(self, move: str) -> Position: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class MoveInfo:
    """A move with the value it leads to, for the mover."""
    @property
    def move(self) -> str: ...
    @property
    def value(self) -> Value: ...
    @property
    def depth(self) -> int | None: ...
    @property
    def result(self) -> str: ...
    @property
    def counter(self) -> int | None: ...
    def to_dict(self) -> dict[str, Any]: ...

class Probe:
    """What the tables say of a position."""
    @property
    def position(self) -> str: ...
    @property
    def value(self) -> Value: ...
    @property
    def depth(self) -> int | None: ...
    @property
    def limit(self) -> int | None: ...
    @property
    def counter(self) -> int | None: ...
    @property
    def cursed(self) -> bool | None: ...
    @property
    def vela(self) -> Side | None: ...
    @property
    def vela_lost(self) -> int | None: ...
    @property
    def moves(self) -> list[MoveInfo]: ...
    @property
    def best(self) -> list[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class TableStats:
    """One table's figures, as `fanotb stats` gives them."""
    board: str
    signature: str
    limit: int | None
    positions: int
    wins: int
    draws: int
    losses: int
    longest_win: int | None
    longest_win_position: str | None
    bytes: int
    path: Path

__version__: str

class Solution:
    """The solved game: a proof (the built-in tsivy draw proof by default), tables,
    and a bounded search for wins."""
    def __init__(
        self,
        path: StrPath | None = None,
        tables: StrPath | None = None,
        search_nodes: int = 20000,
    ) -> None: ...
    def known(
        self, position: PositionLike, limit: int | None = None, counter: int | None = None
    ) -> dict[str, str]: ...
    def best_move(
        self, position: PositionLike, limit: int | None = None, counter: int | None = None
    ) -> dict[str, str] | None: ...
    def analyse(self, record: str) -> list[dict[str, object]]: ...

class Tablebase:
    """The tables in a directory, opened lazily."""
    def __init__(self, path: StrPath) -> None: ...
    def probe(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> Probe: ...
    def value(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> Value: ...
    def best_move(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> str | None: ...
    def line(
        self,
        position: PositionLike,
        limit: int | None = None,
        counter: int | None = None,
        vela: Side | None = None,
        vela_lost: int | None = None,
    ) -> list[MoveInfo]: ...
    def tables(self) -> list[TableStats]: ...

def perft(position: PositionLike, depth: int) -> int: ...
def generate(
    path: StrPath,
    max_stones: int,
    board: str = "tsivy",
    limit: int | None = None,
    threads: int | None = None,
    progress: Callable[[dict[str, Any]], object] | None = None,
    vela: bool = False,
) -> list[dict[str, Any]]: ...
def prove(
    path: StrPath,
    out: StrPath,
    board: str = "tsivy",
    position: PositionLike | None = None,
    max_table_stones: int = 6,
    max_nodes: int | None = None,
    threads: int | None = None,
    lemmas: StrPath | None = None,
) -> dict[str, Any]: ...
def check_proof(
    certificate: StrPath,
    path: StrPath,
    verify_tables: bool = False,
    lemmas: StrPath | None = None,
) -> dict[str, Any]: ...
