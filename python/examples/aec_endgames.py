#!/usr/bin/env python3
"""fanotb's tables playing in fanorona-aec, the PettingZoo AEC environment of Fanorona.

  python examples/aec_endgames.py TABLES [--games N] [--stones K] [--opponent random|tables]

Draws N random tsivy endgames of 2 to K stones (default 4; TABLES must hold the
tables of that many stones: `fanotb generate --max-stones K --dir TABLES`), sets
each up in the environment, and plays it to the environment's end: the side to move
at the start plays the tables' best move, turned into the environment's step
actions (one per capture of a chain, then END_TURN); the other side plays a random
legal move, or the tables' best too. Every action is checked against the
environment's legal actions, and the environment's board against fanotb's after
each turn. It reports, per value the tables predict for their side, how the games
ended, and how many the environment's own rules decided (see README, "Python").

fanorona-aec 3.0.2 differs from docs/RULES.md where the example has to know:
- its game ends in a draw after 44 turns counted from the start of the game (here:
  from the endgame's setup), whatever captures: not the plain game, nor the
  no-capture limit of RULES.md;
- it scores that draw as a win for Black (White's reward -1, Black's +1);
- a side that has stones but no move does not lose there: the game does not end;
- its agent names drift from the colours during capture chains (every step switches
  `agent_selection`), so this example follows the side to move on the board.
"""

import argparse
import random
import sys
from collections import Counter

import numpy as np

import fanotb

import env.fanorona_env as fanorona_env  # fanorona-aec installs its package as `env`
from env.fanorona_move import END_TURN_ACTION
from env.utils import Piece

if not callable(fanorona_env.agent_selector):
    # PettingZoo 1.25 and later moved the class that fanorona-aec 3.0.2 calls.
    from pettingzoo.utils.agent_selector import AgentSelector

    fanorona_env.agent_selector = AgentSelector

# The environment's direction order: SW, S, SE, W, E, NW, N, NE as (d row, d column).
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
KIND = {"": 0, "A": 1, "W": 2}


def point(name):
    """fanotb's point name (`e3`) as the environment's (row, column)."""
    return int(name[1:]) - 1, ord(name[0]) - ord("a")


def actions(notation):
    """A fanotb move (`d2-e3A-f3W`) as the environment's step actions, without the
    END_TURN that ends a capturing turn."""
    parts = notation.split("-")
    out = []
    at = point(parts[0])
    for p in parts[1:]:
        kind = p[-1] if p[-1] in "AW" else ""
        to = point(p.rstrip("AW"))
        d = DIRECTIONS.index((to[0] - at[0], to[1] - at[1]))
        out.append((at[0] * 9 + at[1]) * 24 + d * 3 + KIND[kind])
        at = to
    return out


def env_text(pos):
    """fanotb's position text as the environment's board string (rows bottom-up)."""
    rows, side = pos.text.split()
    return "/".join(reversed(rows.split("/"))) + f" {side.upper()} - - - 0"


def random_endgame(rng, stones):
    """A random tsivy position of 2 to `stones` stones, each side at least one, whose
    side to move has a move."""
    while True:
        n = rng.randint(2, stones)
        points = rng.sample(range(45), n)
        white = set(points[: rng.randint(1, n - 1)])
        black = set(points) - white
        rows = []
        for r in range(4, -1, -1):
            row = ""
            for c in range(9):
                p = r * 9 + c
                row += "W" if p in white else "B" if p in black else "1"
            rows.append(row)
        text = "/".join(rows).replace("1" * 9, "9")
        for k in range(8, 1, -1):
            text = text.replace("1" * k, str(k))
        pos = fanotb.Position(text + " " + rng.choice("wb"))
        if pos.moves():
            return pos


def play(tb, pos, opponent, rng):
    """Plays one game in the environment: the outcome for the side to move at the
    start (`win`, `draw`, `loss`) and how it ended."""
    e = fanorona_env.env(render_mode=None)
    e.reset(seed=rng.randrange(1 << 30))
    state = e.unwrapped.board_state
    state.set_from_board_str(env_text(pos))
    if pos.side_to_move == "black":
        e.unwrapped.agent_selection = e.unwrapped._agent_selector.next()
    ours = pos.side_to_move
    while True:
        if not pos.moves():
            # Lost under RULES.md; the environment would wait for a move forever.
            return ("loss" if pos.side_to_move == ours else "win"), "blocked"
        if pos.side_to_move == ours or opponent == "tables":
            mv = tb.best_move(pos)
        else:
            mv = rng.choice(pos.moves())[0]
        steps = actions(mv)
        capture = mv[-1] in "AW"
        for a in steps + ([END_TURN_ACTION] if capture else []):
            if a == END_TURN_ACTION and state.done:
                break
            legal = {int(m) for m in state.legal_moves}
            if a not in legal:
                raise SystemExit(f"{pos.text}: {mv}: action {a} is not legal in the environment")
            e.step(a)
        pos = pos.play(mv)
        if state.done:
            if state.winner is None:
                return "draw", "move limit"
            won = (state.winner == Piece.WHITE) == (ours == "white")
            return ("win" if won else "loss"), "captured all"
        if env_text(pos).split()[:2] != str(state).split()[:2]:
            raise SystemExit(f"the boards differ after {mv}: {pos.text} against {state}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tables")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--stones", type=int, default=4)
    ap.add_argument("--opponent", choices=["random", "tables"], default="random")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tb = fanotb.Tablebase(a.tables)
    rng = random.Random(a.seed)
    results = Counter()
    for _ in range(a.games):
        pos = random_endgame(rng, a.stones)
        probe = tb.probe(pos)
        outcome, end = play(tb, pos, a.opponent, rng)
        results[(probe.value, outcome, end)] += 1
    print(f"{a.games} endgames of 2 to {a.stones} stones on tsivy, the tables' side to move "
          f"first, against a {a.opponent} opponent (seed {a.seed}):")
    print(f"{'predicted':<10} {'result':<7} {'how it ended':<13} games")
    for (pred, outcome, end), n in sorted(results.items()):
        print(f"{pred:<10} {outcome:<7} {end:<13} {n}")
    order = {"loss": 0, "draw": 1, "win": 2}
    worse = sum(n for (p, o, end), n in results.items() if order[o] < order[p])
    worse_by_limit = sum(n for (p, o, end), n in results.items()
                         if order[o] < order[p] and end == "move limit")
    by_limit = sum(n for (_, _, end), n in results.items() if end == "move limit")
    blocked = sum(n for (_, _, end), n in results.items() if end == "blocked")
    print(f"the environment's 44-turn limit ended {by_limit} games, each a draw it scores "
          f"as a win for Black; {blocked} games ended with a side unable to move, which "
          f"the environment does not end")
    print(f"the tables' side did worse than predicted in {worse} games, "
          f"{worse_by_limit} of them cut by the environment's 44-turn limit")
    # Against the tables, every game not cut by the limit ends as predicted; against
    # a random opponent, none ends worse. Anything else is a defect.
    off = sum(n for (p, o, end), n in results.items() if o != p and end != "move limit")
    if a.opponent == "tables":
        print(f"games not cut by the limit that ended other than predicted: {off}")
    sys.exit(1 if worse != worse_by_limit or (a.opponent == "tables" and off) else 0)


if __name__ == "__main__":
    main()
