#!/usr/bin/env python3
"""The tsivy opening, solved move by move (issue 49): the value of the position after
each of White's first moves, and after each of Black's replies (the two-ply table).

  scripts/tsivy-opening.py run TABLES [--minutes M] [--k K] [--max-nodes N]
                                      [--workers W] [--plies 1,2] [--only LINE]...
                                      [--mover-only | --other-only]
                                      [--every SECONDS]
  scripts/tsivy-opening.py table

`run` asks each position's open questions ("does White win?", "does Black win?") in
turn with `fanotb prove-tree` over the shared lemma store proofs/tsivy/lemmas, each
for at most M minutes (default 10; 0: only what the store answers already), with
leaves of N nodes (default 50,000, the best budget measured: docs/guide/proofs.md),
over the tables of up to K stones (default 7), W workers (default 2); the one-ply
positions first, then the replies in the order of the first moves' importance (the
drawing moves first); `--only` (repeated) keeps the lines named, `--mover-only`
asks only the side to move's win (a quick pass for replies that lose at once),
`--other-only` only the other side's (where the side to move is known not to win).
Every run is appended to proofs/tsivy/opening/runs.tsv (its
answer, the root's numbers, nodes, seconds, peak memory, commit and date), so a
later run, here or on another machine, skips what is answered and goes on from the
lemmas and the leaves' log. A position whose value is known gets its certificate,
proofs/tsivy/opening/LINE.fnproof: after a first move, a bundle with its lemmas
(`fanotb check-proof FILE` checks it alone); after a reply, the certificate alone,
checked over the store (`fanotb check-proof FILE --lemmas proofs/tsivy/lemmas`).
While a question is asked, a line every SECONDS (default 60) gives the root's proof
and disproof numbers, the expansions, nodes and rate so far. Stop it with Ctrl-C or
SIGTERM: the question being asked logs where it stands.

`table` prints the Markdown table of the README from runs.tsv and the bundles:
first move, reply, value (or what is proved so far), certificate size, nodes and
time spent by these runs.

FANOTB=PATH runs that binary instead of building target/release/fanotb.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fanotb_json import follow, objects  # this script's folder is on the path

ROOT = Path(__file__).resolve().parent.parent
LEMMAS = ROOT / "proofs/tsivy/lemmas"
OUT = ROOT / "proofs/tsivy/opening"
RUNS = OUT / "runs.tsv"
# FANOTB=PATH runs that binary (a copy, so that builds meanwhile do not change it).
FANOTB = Path(os.environ.get("FANOTB", ROOT / "target/release/fanotb"))
START = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w"
# White's first moves, the drawing moves first (what a player needs first), then
# the others from the fewest replies to the most.
FIRST_ORDER = ["f2-e3A", "d3-e3A", "e2-e3A", "d2-e3A", "d3-e3W"]
FIELDS = ["line", "position", "attacker", "answer", "proof", "disproof", "expansions",
          "nodes", "seconds", "peak_kib", "k", "max_nodes", "commit", "date"]


def fanotb(*args):
    """Runs fanotb with --json and returns its last JSON object (a failure too)."""
    out = subprocess.run([str(FANOTB), "--json", *args], capture_output=True, text=True,
                         check=False).stdout
    return objects(out)[-1]


def moves(position):
    """(move, position after it) for each legal move of `position`."""
    return [(m["move"], m["result"]) for m in fanotb("moves", position)["moves"]]


def lines(plies):
    """(line, position) of the opening, ply 1 first, then ply 2 by first move."""
    first = dict(moves(START))
    order = [m for m in FIRST_ORDER if m in first] + sorted(set(first) - set(FIRST_ORDER))
    out = []
    if 1 in plies:
        out += [(m, first[m]) for m in order]
    if 2 in plies:
        for m in order:
            out += [(f"{m} {r}", p) for r, p in moves(first[m])]
    return out


def read_runs():
    if not RUNS.exists():
        return []
    rows = RUNS.read_text().splitlines()
    return [dict(zip(FIELDS, r.split("\t"))) for r in rows[1:] if r]


def append_run(row):
    OUT.mkdir(parents=True, exist_ok=True)
    new = not RUNS.exists()
    with RUNS.open("a") as f:
        if new:
            f.write("\t".join(FIELDS) + "\n")
        f.write("\t".join(str(row[k]) for k in FIELDS) + "\n")


def answers(runs, position):
    """attacker -> "win" / "no win" from the runs of `position`; runs that contradict
    each other (two answers to one question, or a win for both sides) stop the
    script, naming the position: no value is made of them."""
    got = {}
    for r in runs:
        if r["position"] != position or r["answer"] == "open":
            continue
        if got.setdefault(r["attacker"], r["answer"]) != r["answer"]:
            sys.exit(f"{RUNS.name} contradicts itself at {position}: "
                     f"{r['attacker']} both '{got[r['attacker']]}' and '{r['answer']}'")
    if got.get("White") == "win" and got.get("Black") == "win":
        sys.exit(f"{RUNS.name} contradicts itself at {position}: a win for both sides")
    return got


def value(ans):
    """The value for White (who moves after ply 2; Black after ply 1), or None."""
    if ans.get("White") == "win":
        return "White wins"
    if ans.get("Black") == "win":
        return "Black wins"
    if ans.get("White") == "no win" and ans.get("Black") == "no win":
        return "draw"
    return None


def cert_name(line):
    return OUT / (line.replace(" ", "_") + ".fnproof")


def commit():
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=8", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()


# HEAD when the run starts, not when each question ends: commits meanwhile do not
# change the binary. A binary given by FANOTB is taken to be built from it.
COMMIT = commit()


def ask(args, line, position, attacker, probe=False):
    """One question for at most args.minutes (`probe`: no expansion, only the
    lemmas and the root's own leaf search). Logs the run (a probe only if answered;
    one that is not says so) and returns its answer and whether the position's
    value is now known."""
    cert = OUT / ".root.fnproof"
    cmd = [str(FANOTB), "--json", "prove-tree", "tsivy", "--position", position,
           "--attacker", attacker, "--lemmas", str(LEMMAS), "--max-table-stones",
           str(args.k), "--max-nodes", str(args.max_nodes), "--workers",
           str(args.workers), "--dir", args.tables, "--out", str(cert)]
    if probe:
        cmd += ["--max-expansions", "0"]
    else:
        print(f"{line}: does {attacker} win? (at most {args.minutes} min)", flush=True)
    # Its own session (in `follow`): a Ctrl-C at the terminal reaches this script
    # alone, which stops the run with one SIGTERM (a second signal would cut its
    # report).
    out, err, stopped = follow(cmd, None if probe else args.minutes * 60, args.every,
                               None if probe else lambda p: show(args, p))
    # The progress lines, then the report (the object with an "attacker"), then a
    # failure object when it is not answered.
    found = objects(out)
    reports = [o for o in found if "attacker" in o]
    if not reports:
        why = [o["error"] for o in found if "error" in o] or [err.strip()]
        sys.exit(f"prove-tree gave no report for {line} ({attacker}): {why[-1]}")
    r = reports[-1]
    answer = r["answer"] or "open"
    if probe and answer == "open":
        print(f"{line}: does {attacker} win? not known from the lemmas nor from the "
              f"root's own leaf search ({r['nodes']:,} nodes, {r['seconds']:.0f} s)",
              flush=True)
        return answer, False
    append_run({
        "line": line, "position": position, "attacker": r["attacker"],
        "answer": answer, "proof": r["proof"], "disproof": r["disproof"],
        "expansions": r["expansions"], "nodes": r["nodes"],
        "seconds": round(r["seconds"], 1), "peak_kib": r["peak_rss"] // 1024,
        "k": args.k, "max_nodes": args.max_nodes, "commit": COMMIT,
        "date": time.strftime("%Y-%m-%d"),
    })
    print(f"{line}: does {attacker} win? {answer}: {r['nodes']} nodes, "
          f"{r['seconds']:.0f} s, root {r['proof']}/{r['disproof']}, a tree of "
          f"{r['tree']} ({r['transposed']} transposed)", flush=True)
    if r.get("value") and cert.exists():
        publish(line, cert)
        print(f"  {r['value']}: {cert_name(line).relative_to(ROOT)}", flush=True)
    if stopped:
        sys.exit("stopped; the run is logged in " + str(RUNS.relative_to(ROOT)))
    return answer, bool(r.get("value"))


def show(args, p):
    """One progress line of a question being asked: how far into its time, the
    root's numbers and the work so far."""
    print(f"  {p['seconds'] / 60:.1f} of {args.minutes:g} min: root {p['proof']:,}/"
          f"{p['disproof']:,}, {p['expansions']:,} expansions, a tree of {p['tree']:,}, "
          f"{p['nodes']:,} nodes ({p['nodes_per_second']:,.0f}/s), "
          f"{p['lemmas_written']:,} lemmas written, peak {p['peak_rss'] / 2**30:.1f} GiB",
          flush=True)


def publish(line, cert):
    """A first move's certificate as one bundle with its lemmas; a reply's as the
    certificate alone, over the store's lemmas (a bundle each would copy the same
    lemmas dozens of times)."""
    if " " in line:
        cert.replace(cert_name(line))
        return
    done = subprocess.run([str(FANOTB), "bundle-proof", str(cert), "--lemmas",
                           str(LEMMAS), "--out", str(cert_name(line))],
                          capture_output=True, text=True, check=False)
    cert.unlink()
    if done.returncode != 0:
        sys.exit(f"bundle-proof failed for {line}: {done.stderr.strip()}")


def run(args):
    # SIGTERM stops the question being asked as Ctrl-C does: logged, then exit.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if "FANOTB" not in os.environ:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    plies = {int(p) for p in args.plies.split(",")}
    every = lines(plies)
    unknown = set(args.only or []) - {l for l, _ in every}
    if unknown:
        sys.exit(f"no position {sorted(unknown)[0]!r} at plies {args.plies}: a line is "
                 "the first move, then a space and the reply")
    todo = [(l, p) for l, p in every if not args.only or l in args.only]
    # What the lemmas answer already, for every position, before any search.
    for line, position in todo:
        for attacker in ("white", "black"):
            known = answers(read_runs(), position)
            if not value(known) and attacker.capitalize() not in known:
                ask(args, line, position, attacker, probe=True)
    if args.minutes == 0:
        return
    for line, position in todo:
        # The side to move's own win first: a reply that blunders is lost quickly.
        mover = "white" if position.endswith(" w") else "black"
        settled = False
        other = "black" if mover == "white" else "white"
        asked = (mover,) if args.mover_only else (other,) if args.other_only else (mover, other)
        for attacker in asked:
            known = answers(read_runs(), position)
            if value(known) or attacker.capitalize() in known:
                continue
            # Once the value is known, the other answer is in the lemmas: a probe
            # logs it.
            answer, settled = ask(args, line, position, attacker, probe=settled)
            if answer == "win":
                break


def waiting_on(first, all_lines, runs):
    """For a first move after which Black is known not to lose: the note naming the
    replies that decide it. White does not lose after the first move iff White does
    not lose after every reply, so its value is a draw once Black's win is refuted at
    each, and a win for Black if it is proved at one."""
    def white_safe(ans):
        return ans.get("Black") == "no win" or ans.get("White") == "win"
    open_ = [line.partition(" ")[2] for line, position in all_lines
             if line.startswith(first + " ") and not white_safe(answers(runs, position))]
    if not open_:
        return ""
    names = ", ".join(f"`{r}`" for r in open_)
    return (f"; White does not lose against the other replies, so its value is that of "
            f"{'the reply' if len(open_) == 1 else 'the worst of the replies'} {names}")


def table(_args):
    runs = read_runs()
    all_lines = lines({1, 2})
    print("| first move | reply | value | certificate | nodes | time |")
    print("|---|---|---|---|---|---|")
    for line, position in all_lines:
        mine = [r for r in runs if r["position"] == position]
        ans = answers(runs, position)
        v = value(ans)
        if v is None and " " not in line and ans.get("White") == "no win":
            # A first move whose value its replies decide: their runs are the work.
            v = "undecided: Black does not lose" + waiting_on(line, all_lines, runs)
        elif v is None:
            proved = [f"{'Black' if a == 'White' else 'White'} does not lose"
                      for a, w in ans.items() if w == "no win"]
            # Each question still open, at its last run's numbers.
            still = {r["attacker"]: r for r in mine
                     if r["answer"] == "open" and r["attacker"] not in ans}
            left = "".join(f"; does {a} win? open at {r['proof']}/{r['disproof']}"
                           for a, r in still.items())
            if not mine:
                left = ": nothing proved yet"
            v = "undecided" + (": " + ", ".join(proved) if proved else "") + left
        b = cert_name(line)
        cert = f"`{b.name}`, {b.stat().st_size:,} B" if b.exists() else ""
        nodes = sum(int(r["nodes"]) for r in mine)
        secs = sum(float(r["seconds"]) for r in mine)
        first, _, reply = line.partition(" ")
        print(f"| `{first}` | {f'`{reply}`' if reply else '(the first move)'} | {v} | {cert} "
              f"| {nodes:,} | {secs:,.0f} s |")


def seconds(text):
    """A progress interval: a number of seconds above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="ask the open questions of the opening")
    r.add_argument("tables", help="the tsivy tables of up to K stones (built there if missing)")
    r.add_argument("--minutes", type=float, default=10,
                   help="at most this long a question (default 10; 0: only what the "
                        "store answers already)")
    r.add_argument("--k", type=int, default=7, help="table stones (default 7)")
    r.add_argument("--max-nodes", type=int, default=50000,
                   help="nodes a leaf search (default 50000)")
    r.add_argument("--workers", type=int, default=2, help="leaf searches at once (default 2)")
    r.add_argument("--every", type=seconds, default=60, metavar="SECONDS",
                   help="a progress line this often while a question is asked "
                        "(default 60)")
    r.add_argument("--plies", default="1,2",
                   help="the plies to work on: 1, 2 or 1,2 (default)")
    r.add_argument("--only", metavar="LINE", action="append",
                   help='a position, by its moves: "e2-e3A" or "f2-e3A c3-d4W"; '
                        "repeated, several (default: every one)")
    only_one = r.add_mutually_exclusive_group()
    only_one.add_argument("--mover-only", action="store_true",
                          help="ask only whether the side to move wins")
    only_one.add_argument("--other-only", action="store_true",
                          help="ask only whether the side not to move wins")
    sub.add_parser("table", help="print the README's table")
    args = p.parse_args()
    if args.cmd == "run":  # a relative TABLES names a place before the chdir
        args.tables = os.path.abspath(args.tables)
    os.chdir(ROOT)
    {"run": run, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
