"""fanotb: perfect-play endgame tables and proofs for Fanorona.

Positions and moves (`Position`, `perft`), the tables' answers under the plain rules
or a no-capture limit (`Tablebase`), table generation (`generate`), proofs of a
position's value and their checker (`prove`, `check_proof`), and the solved game
(`Solution`: what is proved about a position, fanotb's move, a game analysed from
its first move). The work is done by the
Rust library fanotb; long calls release the GIL.

>>> import fanotb
>>> fanotb.perft(fanotb.Position("start"), 2)
39
"""

from fanotb._fanotb import (
    DamagedTableError,
    FanotbError,
    InvalidPositionError,
    MissingTableError,
    MoveInfo,
    Position,
    Probe,
    Solution,
    Tablebase,
    TableStats,
    __version__,
    check_proof,
    generate,
    perft,
    prove,
)

__all__ = [
    "DamagedTableError",
    "FanotbError",
    "InvalidPositionError",
    "MissingTableError",
    "MoveInfo",
    "Position",
    "Probe",
    "Solution",
    "Tablebase",
    "TableStats",
    "__version__",
    "check_proof",
    "generate",
    "perft",
    "prove",
]
