"""fanotb's Python API against the command line's JSON on the same tables."""

import json
import os
import random
import subprocess
import threading
from pathlib import Path

import pytest

import fanotb

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("FANOTB_CLI", str(ROOT / "target" / "release" / "fanotb"))
LIMIT = 20


def cli(*args):
    out = subprocess.run([CLI, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    """Tsivy tables up to 4 stones, plain and under the no-capture limit 20."""
    d = tmp_path_factory.mktemp("tables")
    seen = []
    fanotb.generate(d, 4, limit=LIMIT, progress=seen.append)
    # Every table is reported once as it is done: 6 plain and 6 rule-aware.
    assert len(seen) == 12
    assert {r["signature"] for r in seen} >= {"1v1", "3v1", "2v2"}
    return d


def random_positions(n, seed=1):
    """Random tsivy positions of 2 to 4 stones, each side at least one."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        stones = rng.randint(2, 4)
        points = rng.sample(range(45), stones)
        white = rng.randint(1, stones - 1)
        rows = []
        for r in range(5):
            row, empty = "", 0
            for c in range(9):
                p = (4 - r) * 9 + c
                s = "W" if p in points[:white] else "B" if p in points[white:] else None
                if s is None:
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + s
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        out.append("/".join(rows) + " " + rng.choice("wb"))
    return out


def test_positions_moves_and_perft():
    start = fanotb.Position("start")
    assert start.text == "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w"
    assert start.side_to_move == "white" and start.board == "9x5"
    moves = start.moves()
    assert sorted(m for m, _ in moves) == ["d2-e3A", "d3-e3A", "d3-e3W", "e2-e3A", "f2-e3A"]
    for notation, after in moves:
        assert start.play(notation) == after
        assert after.side_to_move == "black"
    assert fanotb.Position("start:5x5").board == "5x5"
    for depth in range(5):
        assert fanotb.perft(start, depth) == cli("perft", "start", str(depth), "--json")["count"]
    assert fanotb.perft("start", 6) == 9_204_447
    with pytest.raises(fanotb.InvalidPositionError, match="side to move"):
        fanotb.Position("9/9/B8/9/3WW3B")
    with pytest.raises(fanotb.InvalidPositionError, match="illegal move"):
        start.play("a1-a2")
    assert isinstance(fanotb.InvalidPositionError("x"), fanotb.FanotbError)


def test_probe_equals_the_cli_json(tables):
    tb = fanotb.Tablebase(tables)
    for i, text in enumerate(random_positions(60)):
        # Compared as JSON text: the keys in the CLI's order too.
        got = json.dumps(tb.probe(text).to_dict())
        assert got == json.dumps(cli("probe", text, "--json", "--dir", str(tables)))
        counter = i % (LIMIT + 1)
        got = json.dumps(tb.probe(fanotb.Position(text), limit=LIMIT, counter=counter).to_dict())
        want = cli("probe", text, "--no-capture-limit", str(LIMIT), "--counter", str(counter),
                   "--json", "--dir", str(tables))
        assert got == json.dumps(want), text


def test_value_best_move_and_line(tables):
    tb = fanotb.Tablebase(tables)
    pos = "9/9/B8/9/3WW3B w"
    p = tb.probe(pos)
    assert (p.value, p.depth, p.limit, p.cursed) == ("win", 49, None, None)
    assert tb.value(pos) == "win"
    assert tb.best_move(pos) in p.best
    line = tb.line(pos)
    want = cli("line", pos, "--json", "--dir", str(tables))
    assert [(m.move, m.result) for m in line] == [(m["move"], m["position"]) for m in want["line"]]
    assert len(line) == 49
    under = tb.probe(pos, limit=LIMIT, counter=3)
    assert (under.limit, under.counter) == (LIMIT, 3)
    assert tb.value(pos, limit=LIMIT, counter=LIMIT) == "draw"
    limited = tb.line(pos, limit=LIMIT, counter=0)
    want = cli("line", pos, "--no-capture-limit", str(LIMIT), "--json", "--dir", str(tables))
    assert [m.move for m in limited] == [m["move"] for m in want["line"]]
    with pytest.raises(ValueError, match="counter"):
        tb.value(pos, counter=3)
    with pytest.raises(ValueError, match="above"):
        tb.value(pos, limit=LIMIT, counter=LIMIT + 1)


def test_tables_equal_stats(tables):
    tb = fanotb.Tablebase(tables)
    want = cli("stats", "--json", "--dir", str(tables))["tables"]
    got = tb.tables()
    assert len(got) == len(want) == 12
    for g, w in zip(got, want):
        assert (g.board, g.signature, g.limit, g.positions, g.wins, g.draws, g.losses,
                g.longest_win, g.longest_win_position, g.bytes) == (
            w["board"], w["signature"], w["limit"], w["positions"], w["wins"], w["draws"],
            w["losses"], w["longest_win"], w["longest_win_position"], w["bytes"])
        assert g.to_dict() == w


def test_missing_and_damaged_tables_raise(tables, tmp_path):
    tb = fanotb.Tablebase(tables)
    with pytest.raises(fanotb.MissingTableError, match="3v2"):
        tb.probe("9/9/B8/9/2WWW3B w")
    with pytest.raises(fanotb.FanotbError):
        fanotb.Tablebase(tmp_path / "nowhere")
    # A copy of the tables with 2v1 damaged in the middle.
    bad = tmp_path / "bad"
    (bad / "9x5").mkdir(parents=True)
    for f in (tables / "9x5").glob("*.fntb"):
        data = bytearray(f.read_bytes())
        if f.name == "2v1.fntb":
            data[len(data) // 2] ^= 0xFF
        (bad / "9x5" / f.name).write_bytes(data)
    with pytest.raises(fanotb.DamagedTableError):
        fanotb.Tablebase(bad).probe("9/9/3WW4/9/B8 w")


def test_a_missing_tables_error_names_the_python_call_that_builds_it(tables, tmp_path):
    # pip installs no command line: the hint is a call of fanotb.generate.
    tb = fanotb.Tablebase(tables)
    with pytest.raises(fanotb.MissingTableError) as e:
        tb.probe("9/9/B8/9/2WWW3B w")
    assert str(e.value) == (
        f"no table 3v2 for the 9x5 board in {tables}: "
        f'build it with fanotb.generate("{tables}", max_stones=5)'
    )
    assert "fanotb generate --" not in str(e.value)
    with pytest.raises(fanotb.MissingTableError) as e:
        tb.value("9/9/B8/9/2WWW3B w", limit=LIMIT, counter=0)
    assert str(e.value).endswith(f'fanotb.generate("{tables}", max_stones=5, limit={LIMIT})')
    # A table fanotb builds on no machine gets no call to make.
    with pytest.raises(fanotb.MissingTableError, match="builds no table this large") as e:
        tb.probe("start")
    assert "fanotb.generate" not in str(e.value) and "fanotb generate" not in str(e.value)
    # Nor does a directory of no tables, or none at all, name the command line.
    with pytest.raises(fanotb.FanotbError, match=r'fanotb\.generate\(".*nowhere", max_stones=4\)') as e:
        fanotb.Tablebase(tmp_path / "nowhere")
    assert "fanotb generate" not in str(e.value)
    cert = tmp_path / "3x3.fnproof"
    fanotb.prove(tmp_path, cert, board="3x3", max_table_stones=4)
    (tmp_path / "empty").mkdir()
    with pytest.raises(fanotb.MissingTableError, match=r'fanotb\.generate\(.*board="3x3"\)'):
        fanotb.check_proof(cert, tmp_path / "empty")


def test_every_attribute_method_and_function_has_a_docstring():
    classes = [fanotb.Position, fanotb.Tablebase, fanotb.Probe, fanotb.MoveInfo,
               fanotb.TableStats, fanotb.Solution]
    for cls in classes:
        assert (cls.__doc__ or "").strip(), cls.__name__
        public = {n: a for n, a in vars(cls).items() if not n.startswith("_")}
        assert public, cls.__name__
        for name, attr in public.items():
            assert (attr.__doc__ or "").strip(), f"{cls.__name__}.{name}"
    # Every field of the reports, as help() shows it.
    for name in ["position", "value", "depth", "limit", "counter", "cursed", "vela",
                 "vela_lost", "moves", "best", "to_dict"]:
        assert name in vars(fanotb.Probe), name
    assert "None for a draw" in fanotb.Probe.depth.__doc__
    assert "a bool" in fanotb.TableStats.vela.__doc__
    for name in fanotb.__all__:
        obj = getattr(fanotb, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), name
    assert "fanotb.generate" in fanotb.MissingTableError.__doc__


def test_generate_refuses_impossible_sizes(tmp_path):
    for n in (0, 1, 46):
        with pytest.raises(fanotb.FanotbError, match="2 to 45 stones"):
            fanotb.generate(tmp_path, n)


def test_a_raising_progress_callback_is_raised_after_the_build(tmp_path):
    def boom(report):
        raise RuntimeError("stop " + report["signature"])

    with pytest.raises(RuntimeError, match="stop 1v1"):
        fanotb.generate(tmp_path, 2, progress=boom)
    # The build itself finished.
    assert fanotb.Tablebase(tmp_path).value("9/9/4W4/9/B8 w") in ("win", "draw", "loss")


def without_timing(report):
    """A report without the fields a second run measures anew (the total of nodes
    too: the two searches of a proof run at once, and the one that is not needed
    stops wherever it is when the other decides)."""
    measured = ("seconds", "search_seconds", "peak_rss", "nodes")
    return {k: v for k, v in report.items() if k not in measured}


def test_prove_and_check_proof_answer_as_the_command_line_does(tmp_path):
    cert = tmp_path / "3x3.fnproof"
    proved = fanotb.prove(tmp_path, cert, board="3x3", max_table_stones=4)
    assert (proved["value"], proved["certificate"]) == ("win", str(cert))
    theirs = cli("prove", "3x3", "--max-table-stones", "4", "--out", str(cert),
                 "--dir", str(tmp_path), "--json")
    for report in (proved, theirs):
        for part in report["proofs"]:
            del part["seconds"]
        report["tables"].pop("seconds")
    assert without_timing(proved) == without_timing(theirs)
    report = fanotb.check_proof(cert, tmp_path)
    assert (report["value"], report["position"]) == ("win", "BBB/B1W/WWW w")
    assert report["proofs"] == [{"side": "white", "claim": "wins",
                                 "positions": proved["proofs"][0]["positions"]}]
    theirs = cli("check-proof", str(cert), "--dir", str(tmp_path), "--json")
    assert without_timing(report) == without_timing(theirs)
    assert fanotb.check_proof(cert, tmp_path, verify_tables=True)["value"] == "win"
    data = bytearray(cert.read_bytes())
    data[40] ^= 1
    cert.write_bytes(data)
    with pytest.raises(fanotb.FanotbError, match="damaged"):
        fanotb.check_proof(cert, tmp_path)


def test_generate_reports_each_table_as_the_command_line_does(tmp_path):
    ours = fanotb.generate(tmp_path / "ours", 3, board="3x3")
    theirs = cli("generate", "--board", "3x3", "--max-stones", "3",
                 "--dir", str(tmp_path / "theirs"), "--json")["tables"]
    assert [r["signature"] for r in ours] == ["1v1", "1v2", "2v1"]
    measured = ("seconds", "peak_rss", "memory_bound", "path")
    for o, t in zip(ours, theirs, strict=True):
        assert list(o) == list(t)
        assert {k: v for k, v in o.items() if k not in measured} == {
            k: v for k, v in t.items() if k not in measured}
    assert ours[0]["positions"] == 72 and not ours[0]["skipped"]


def test_long_calls_release_the_gil():
    done = []
    t = threading.Thread(target=lambda: done.append(fanotb.perft("start", 6)))
    t.start()
    spins = 0
    while t.is_alive():
        spins += 1
    t.join()
    assert done == [9_204_447]
    # Holding the GIL, the perft would have let this thread run a few times at most.
    assert spins > 10_000


def test_vela_probes_equal_the_cli_json(tmp_path):
    built = fanotb.generate(tmp_path, 7, board="5x3", vela=True)
    assert sorted(r["signature"] for r in built if r.get("vela")) == ["1v6", "6v1"]
    tb = fanotb.Tablebase(tmp_path)
    for pos, side in [("B4/WW3/WWWW1 w", "white"), ("B4/WW3/WWWW1 b", "white"),
                      ("W4/BB3/BBBB1 b", "black")]:
        want = cli("probe", pos, "--vela", side, "--dir", str(tmp_path), "--json")
        got = tb.probe(pos, vela=side).to_dict()
        assert got == want, pos
        assert tb.value(pos, vela=side) == want["value"]
    # Without vela the same position is another game, of the plain 6v1: not built.
    with pytest.raises(fanotb.MissingTableError, match="6v1") as e:
        tb.value("B4/WW3/WWWW1 w")
    assert str(e.value).endswith(f'fanotb.generate("{tmp_path}", max_stones=7, board="5x3")')
    with pytest.raises(fanotb.FanotbError, match="no table values this vela"):
        tb.value("B4/WW3/WWWW1 w", vela="white", vela_lost=0)
    with pytest.raises(ValueError, match="vela_lost needs a vela side"):
        tb.value("B4/WW3/WWWW1 w", vela_lost=1)
    # Rules out of range are wrong arguments: ValueError, with the library's words.
    with pytest.raises(ValueError, match="give white or black"):
        tb.value("B4/WW3/WWWW1 w", vela="red")
    with pytest.raises(ValueError, match="limit"):
        tb.value("B4/WW3/WWWW1 w", limit=0)


def test_prove_with_lemmas_and_check_the_composition(tmp_path):
    lemmas = tmp_path / "lemmas"
    start = fanotb.prove(tmp_path, tmp_path / "s.fnproof", board="5x3", max_table_stones=4)
    # Every first move proved as lemmas, then the start over them.
    for _, child in fanotb.Position(start["position"]).moves():
        first = fanotb.prove(tmp_path, tmp_path / "a.fnproof", board="5x3",
                             position=child, max_table_stones=4, lemmas=lemmas)
        assert len(first["lemmas_written"]) >= 1
    root = tmp_path / "root.fnproof"
    proved = fanotb.prove(tmp_path, root, board="5x3", max_table_stones=4, lemmas=lemmas)
    assert proved["value"] == "win" and proved["lemmas_used"] >= 1
    with pytest.raises(fanotb.FanotbError, match="--lemmas"):
        fanotb.check_proof(root, tmp_path)
    report = fanotb.check_proof(root, tmp_path, lemmas=lemmas)
    assert (report["value"], report["lemmas"]) == ("win", proved["lemmas_used"])
    lemma = fanotb.check_proof(first["lemmas_written"][0], tmp_path, lemmas=lemmas)
    assert lemma["value"] is None and lemma["lemma"].startswith(("White ", "Black "))


def engine(*commands, tables=None):
    """A `fanotb engine` session: the lines it answers."""
    args = [CLI, "engine", "--search-nodes", "0"]
    if tables:
        args += ["--dir", str(tables)]
    out = subprocess.run(
        args, input="\n".join(commands) + "\nquit\n", check=True, capture_output=True, text=True
    )
    return out.stdout.splitlines()


def test_the_solution_answers_as_the_engine_does(tables):
    solution = fanotb.Solution(tables=tables, search_nodes=0)
    assert repr(solution) == 'Solution("builtin")'
    for moves in ["", "f2-e3A", "d2-e3A", "d2-e3A g4-g5W", "f2-e3A f3-f2A d3-d4A"]:
        lines = engine(f"position startpos moves {moves}".strip(), "go", tables=tables)
        value = next(l for l in lines if l.startswith("info value")).split()[2]
        best = next(l for l in lines if l.startswith("bestmove")).split()[1]
        position = fanotb.Position("start")
        for m in moves.split():
            position = position.play(m)
        assert solution.known(position)["value"] == value, moves
        assert solution.best_move(position)["move"] == best, moves
    assert solution.known("start") == {"value": "draw", "text": "draw (proof)", "source": "proof"}
    assert solution.best_move("9/9/9/9/8W b") is None


def test_a_game_is_analysed_from_its_first_move_as_the_command_line_does(tables, tmp_path):
    # Five plies: the proof's first two, then each side's first legal move.
    position, plies = fanotb.Position("start"), ["f2-e3A", "f3-f2A"]
    for m in plies:
        position = position.play(m)
    for _ in range(3):
        move, position = position.moves()[0]
        plies.append(move)
    record = '[Board "9x5"]\n\n1. {} {} 2. {} {} 3. {} *\n'.format(*plies)
    solution = fanotb.Solution(tables=tables, search_nodes=0)
    ours = solution.analyse(record)
    path = tmp_path / "game.fanrec"
    path.write_text(record)
    theirs = cli("analyse", str(path), "--dir", str(tables), "--search-nodes", "0", "--json")
    assert ours == theirs
    assert ours["result"] == "*" and len(ours["moves"]) == 5
    first = ours["moves"][0]
    assert (first["ply"], first["move"], first["proved_before"], first["verdict"]) == (
        1, "f2-e3A", "draw (proof)", "kept")
    assert first["before"] is None and "no table 22v22" in first["not_covered"]
    with pytest.raises(fanotb.FanotbError):
        solution.analyse("1. a1-a9 *")


def test_reprs_and_errors_read_as_python(tables):
    tb = fanotb.Tablebase(tables)
    probe = tb.probe("9/9/B8/9/3WW3B w")
    assert repr(probe.moves[0]) == "MoveInfo(move='e1-f2', value='win', depth=49)"
    assert repr(probe).startswith("Probe(position='9/9/B8/9/3WW3B w', value='win', depth=49, best=['e1-f2'")
    drawn = tb.probe("9/9/B8/9/8W w")
    assert "depth=None" in repr(drawn)
    with pytest.raises(ValueError, match="0 or more plies"):
        fanotb.perft("start", -1)
    # A wrong type is a TypeError that says what is expected, not PyO3's internals.
    with pytest.raises(TypeError, match="a position is a fanotb.Position or its text, not int") as e:
        tb.probe(42)
    assert "PositionArg" not in str(e.value) and "variant" not in str(e.value)
    with pytest.raises(TypeError, match="not NoneType"):
        fanotb.perft(None, 2)
    version = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True)
    assert version.stdout.split() == ["fanotb", fanotb.__version__]
