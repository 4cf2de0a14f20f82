#!/usr/bin/env python3
"""How often the leaves of PN² searches meet the same position up to the board's
symmetries (issue 49, "transpositions and the board's symmetries"): reads the
leaves' log of a lemma directory (tree.tsv: one line a leaf search stopped at its
budget) and counts, per question, the distinct positions, their classes under the
board's mirror images, and the positions whose image was searched too: what a
search keyed by symmetry classes would have spared at most.

  scripts/tree-symmetries.py [TREE_TSV]      (default proofs/tsivy/lemmas/tree.tsv)

The images are the left-right and top-bottom mirrors and both (a board of odd
sides keeps its diagonals under each). The log is read with `fanotb read-log` (its
sealed part too): FANOTB=PATH names the binary (default target/release/fanotb).
"""

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def rows(board):
    """The rows of a position's board text, each point a character ('1' empty)."""
    return tuple(re.sub(r"\d+", lambda m: "1" * int(m.group()), r) for r in board.split("/"))


def images(r):
    lr = tuple(x[::-1] for x in r)
    return [r, lr, r[::-1], lr[::-1]]


def main():
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "proofs/tsivy/lemmas/tree.tsv")
    fanotb = os.environ.get("FANOTB", Path(__file__).resolve().parent.parent / "target/release/fanotb")
    text = subprocess.run([str(fanotb), "read-log", str(path)], capture_output=True,
                          text=True, check=False)
    if text.returncode != 0:
        sys.exit(text.stderr.strip())
    leaves = defaultdict(set)
    for line in text.stdout.splitlines()[1:]:
        attacker, position = line.split("\t")[:2]
        board, turn = position.split(" ")
        r = rows(board)
        if len(r) % 2 == 0 or len(r[0]) % 2 == 0:
            sys.exit(f"{position}: a board of an even side has no diagonal-keeping mirror")
        leaves[attacker].add((r, turn))
    print("question         leaves  classes  with an image searched too")
    for attacker, seen in sorted(leaves.items()):
        classes = {(min(images(r)), t) for r, t in seen}
        paired = sum(any(i != r and (i, t) in seen for i in images(r)[1:]) for r, t in seen)
        print(f"{attacker + ' wins?':<14} {len(seen):>8} {len(classes):>8} {paired:>8}")


if __name__ == "__main__":
    main()
