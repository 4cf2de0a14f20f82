#!/usr/bin/env python3
"""Measures the proof search on tsivy sub-problems: every position PLY plies from the
start, each proved with a node budget (issue 20: choose the design by measurement).

  scripts/tsivy-subproblems.py FANOTB TABLES PLY K MAX_NODES [JOBS] [OUT]

Lists the distinct positions PLY plies from the tsivy start (with `fanotb moves`),
then runs `fanotb prove tsivy --position P --max-table-stones K --max-nodes MAX_NODES
--threads 1` on each, JOBS at a time (default 2, one a core), under /usr/bin/time.
Each result is appended to OUT (default proofs/tsivy/subproblems.tsv) as a line:
ply, the moves from the start, the position, K, the node budget, the value proved
(or `undecided`), search nodes, seconds, peak RSS in KiB. Positions already in OUT
with the same K and budget are skipped, so an interrupted run resumes.
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

fanotb, tables, ply, k, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
jobs = int(sys.argv[6]) if len(sys.argv) > 6 else 2
out = sys.argv[7] if len(sys.argv) > 7 else "proofs/tsivy/subproblems.tsv"
HEADER = "ply\tline\tposition\tk\tmax_nodes\tvalue\tnodes\tseconds\tpeak_kib\n"


def successors(text):
    r = subprocess.run([fanotb, "moves", text, "--json"], check=True, capture_output=True, text=True)
    return [(m["move"], m["result"]) for m in json.loads(r.stdout)["moves"]]


def positions_at(depth):
    """The distinct positions `depth` plies from the start, each with one line to it."""
    start = subprocess.run([fanotb, "moves", "start", "--json"], check=True,
                           capture_output=True, text=True).stdout
    level = {json.loads(start)["position"]: ""}
    for _ in range(depth):
        nxt = {}
        for pos, line in level.items():
            for mv, result in successors(pos):
                nxt.setdefault(result, (line + " " + mv).strip())
        level = nxt
    return sorted(level.items(), key=lambda x: x[1])


def prove(pos):
    with tempfile.TemporaryDirectory() as tmp:
        # Each job its own table directory (the tables linked, not copied): `prove`
        # locks the directory it may build tables in.
        dir = os.path.join(tmp, "tables")
        os.mkdir(dir)
        os.symlink(os.path.abspath(os.path.join(tables, "9x5")), os.path.join(dir, "9x5"))
        cert = os.path.join(tmp, "p.fnproof")
        timing = os.path.join(tmp, "time")
        r = subprocess.run(
            ["/usr/bin/time", "-o", timing, "-f", "%e %M", fanotb, "prove", "tsivy",
             "--position", pos, "--max-table-stones", k, "--max-nodes", budget,
             "--threads", "1", "--dir", dir, "--out", cert, "--json"],
            capture_output=True, text=True)
        seconds, peak = open(timing).read().split()[-2:]
    report = json.loads(r.stdout) if r.stdout.strip() else {}
    if r.returncode == 0:
        nodes = report.get("nodes", 0)
        return report.get("value", "?"), nodes, seconds, peak
    error = report.get("error", r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "?")
    if "undecided after" in error:
        return "undecided", int(error.split("undecided after ")[1].split()[0]), seconds, peak
    raise SystemExit(f"{pos}: {error}")


def main():
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    done = set()
    if os.path.exists(out):
        for line in open(out).read().splitlines()[1:]:
            f = line.split("\t")
            done.add((f[2], f[3], f[4]))
    else:
        open(out, "w").write(HEADER)
    todo = [(p, line) for p, line in positions_at(ply) if (p, k, budget) not in done]
    print(f"{len(todo)} positions {ply} plies from the start to prove (K = {k}, "
          f"{budget} nodes each)", flush=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for (pos, line), result in zip(todo, pool.map(lambda t: prove(t[0]), todo)):
            value, nodes, seconds, peak = result
            with open(out, "a") as f:
                f.write(f"{ply}\t{line}\t{pos}\t{k}\t{budget}\t{value}\t{nodes}\t{seconds}\t{peak}\n")
            print(f"{line:<30} {value:<10} {nodes:>12} nodes {seconds:>8} s {int(peak) // 1024:>6} MiB",
                  flush=True)


main()
