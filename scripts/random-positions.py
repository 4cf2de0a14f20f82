#!/usr/bin/env python3
"""Random tsivy positions of 2 to MAX stones, both sides with stones, either side to
move, one position text a line; the same seed gives the same positions.
    scripts/random-positions.py MAX COUNT [SEED]"""
import random
import sys

top, count = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261130)
for _ in range(count):
    n = rng.randint(2, top)
    points = rng.sample(range(45), n)
    whites = rng.randint(1, n - 1)
    cells = ["."] * 45
    for i, p in enumerate(points):
        cells[p] = "W" if i < whites else "B"
    rows = []
    for y in range(4, -1, -1):
        row, empty = "", 0
        for x in range(9):
            c = cells[y * 9 + x]
            if c == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + c
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    print("/".join(rows) + " " + rng.choice("wb"))
