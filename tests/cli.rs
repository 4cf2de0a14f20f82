//! The command line, end to end.

mod common;

use common::cli::{fails, fanotb, json};
use serde_json::Value;

#[test]
fn show_and_moves() {
    let out = fanotb().args(["show", "start"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(" 3 B---W---B---W---.---B---W---B---W"),
        "{text}"
    );
    assert!(text.contains("White to move"));
    let v = json(&["moves", "start"]);
    assert_eq!(
        v["position"],
        "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w"
    );
    assert_eq!(v["distinct_results"], 5);
    let d2 = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "d2-e3A")
        .unwrap();
    assert_eq!(d2["captured"], serde_json::json!(["f4", "g5"]));
    assert_eq!(
        d2["result"],
        "BBBBBB1BB/BBBBB1BBB/BWBWWBWBW/WWW1WWWWW/WWWWWWWWW b"
    );
    assert_eq!(
        json(&["show", "start:5x5"])["position"],
        "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w"
    );
}

#[test]
fn play_and_perft() {
    let v = json(&["play", "start", "d2-e3A", "c3-d2A"]);
    assert_eq!(
        v["result"],
        "BBBBBB1BB/BBBBB1BBB/BW1WWBWBW/WWWBWWWWW/WWWW1WWWW w"
    );
    let err = fails(&["play", "start", "d2-e3A", "e4-f4"]);
    assert!(
        err.contains("e4-f4") && err.contains("capture is compulsory"),
        "{err}"
    );
    let err = fails(&["play", "start", "zz"]);
    assert!(err.contains("malformed move `zz`"), "{err}");
    assert_eq!(json(&["perft", "start", "4"])["count"], 18026);
    let v = json(&["perft", "start", "3", "--divide"]);
    assert_eq!(v["count"], 724);
    assert_eq!(v["divide"].as_array().unwrap().len(), 5);
}

#[test]
fn bad_positions_are_clear_errors() {
    let err = fails(&["show", "BBB/BB/WWW w"]);
    assert!(err.contains("row 2") && err.contains("expected 3"), "{err}");
    let err = fails(&["moves", "BBBBBBBBBBB/B/W w"]);
    assert!(err.contains("row"), "{err}");
    let err = fails(&["show", "start:4x4"]);
    assert!(err.contains("unsupported board size 4x4"), "{err}");
    let err = fails(&["show", "BBB/B1W/WWW"]);
    assert!(err.contains("side to move"), "{err}");
    let err = fails(&["generate", "--signature", "21v3", "--dir", "/nonexistent"]);
    assert!(err.contains("more than this generator builds"), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let err = fails(&[
        "generate",
        "--signature",
        "5v5",
        "--dir",
        tmp.path().to_str().unwrap(),
    ]);
    assert!(err.contains("MiB available"), "{err}");
    let err = fails(&["generate", "--signature", "3x2", "--dir", "/nonexistent"]);
    assert!(err.contains("bad signature `3x2`"), "{err}");
}

#[test]
fn generate_probe_line_stats_verify() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&["generate", "--max-stones", "3", "--dir", d]);
    assert_eq!(v["tables"].as_array().unwrap().len(), 3);
    assert_eq!(v["positions"], 1980 + 2 * 42570);
    // Built again: everything is skipped.
    let v = json(&["generate", "--signature", "2v1", "--dir", d]);
    assert!(
        v["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["skipped"] == true)
    );

    // The longest 2v1 win: 29 plies.
    let pos = "9/9/3B5/9/WW7 w";
    let v = json(&["probe", pos, "--dir", d]);
    assert_eq!(v["value"], "win");
    assert_eq!(v["depth"], 29);
    let best = v["best"].as_array().unwrap();
    assert!(!best.is_empty());
    let first = &v["moves"][0];
    assert_eq!(first["value"], "win");
    assert_eq!(first["depth"], 29);
    assert_eq!(first["move"], best[0]);
    let line = json(&["line", pos, "--dir", d]);
    assert_eq!(line["line"].as_array().unwrap().len(), 29);

    // FANOTB_TABLES selects the directory too.
    let out = fanotb()
        .env("FANOTB_TABLES", d)
        .args(["probe", pos])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("White to move: win in 29"));

    let stats = json(&["stats", "--dir", d]);
    assert_eq!(stats["total"]["positions"], 1980 + 2 * 42570);
    let t21 = stats["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["signature"] == "2v1")
        .unwrap()
        .clone();
    assert_eq!(t21["longest_win"], 29);
    assert_eq!(t21["wins"], 40996);
    assert_eq!(json(&["verify", "--dir", d])["ok"], true);
    let v = json(&[
        "verify",
        "--signature",
        "2v1",
        "--sample",
        "500",
        "--dir",
        d,
    ]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["tables"].as_array().unwrap().len(), 1);
    assert_eq!(v["tables"][0]["entries"], 500);
    assert!(fails(&["verify", "--signature", "2x1", "--dir", d]).contains("bad signature"));

    // A signature that is not there: the error names it and the command to build it.
    let err = fails(&["probe", "9/9/3B5/9/WWW6 w", "--dir", d]);
    assert!(
        err.contains("3v1") && err.contains("fanotb generate"),
        "{err}"
    );
}

#[test]
fn solve_a_small_board() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&["solve", "3x3", "--dir", d]);
    assert_eq!(v["board"], "3x3");
    assert_eq!(v["value"], "win");
    assert_eq!(v["depth"], 11);
    assert_eq!(v["published"], "win");
    assert_eq!(v["search"]["value"], "win");
    assert_eq!(v["line"].as_array().unwrap().len(), 11);
    let out = fanotb()
        .args(["solve", "3x3", "--dir", d])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("White to move wins (win in 11)"), "{text}");
    let err = fails(&["solve", "3x3", "--position", "start", "--dir", d]);
    assert!(err.contains("not 3x3"), "{err}");
}

#[test]
fn probe_batch_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    json(&["generate", "--max-stones", "3", "--dir", d]);
    let input = "9/9/3B5/9/WW7 w\n\n9/9/3B5/9/WW7 b\n";
    let out = fanotb()
        .args(["probe", "-", "--dir", d])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0], "9/9/3B5/9/WW7 w: win in 29, best a1-b2");
    assert!(lines[1].starts_with("9/9/3B5/9/WW7 b: "), "{text}");

    // JSON Lines, a bad line answered in place, and a failing exit at the end.
    let out = fanotb()
        .args(["probe", "-", "--dir", d, "--json"])
        .write_stdin("9/9/3B5/9/WW7 w\n9/9/3X5/9/WW7 w\n9/9/9/9/WW7 w\n")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["depth"], 29);
    assert_eq!(rows[0]["best"][0], "a1-b2");
    assert!(rows[1]["error"].as_str().unwrap().contains('X'));
    assert!(
        rows[2]["error"].as_str().unwrap().contains("over"),
        "{}",
        rows[2]
    );
}

#[test]
fn shell_completions() {
    for shell in ["bash", "zsh", "fish"] {
        let out = fanotb().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in ["generate", "probe", "prove", "check-proof"] {
            assert!(script.contains(sub), "{shell} completes {sub}");
        }
    }
    fails(&["completions", "tcsh"]);
}

/// `kill -9` in the middle of a pair, after it saved a checkpoint: the rerun resumes
/// inside the pair and writes the same bytes as a build never interrupted.
#[test]
fn a_killed_build_resumes_inside_the_pair_byte_identical() {
    killed_build_resumes(&[], "9x5");
}

/// The same for a rule-aware pair (its plain tables already built).
#[test]
fn a_killed_rule_aware_build_resumes_inside_the_pair_byte_identical() {
    killed_build_resumes(&["--no-capture-limit", "20"], "9x5/n20");
}

/// Kills a build of 2v3 (with `rules` added to its arguments) after its pair
/// checkpoint in `sub` appears, resumes it and compares with a clean build.
fn killed_build_resumes(rules: &[&str], sub: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (killed, clean) = (dir.path().join("killed"), dir.path().join("clean"));
    let (k, c) = (killed.to_str().unwrap(), clean.to_str().unwrap());
    for d in [k, c] {
        let mut first = vec!["generate", "--max-stones", "4", "--dir", d];
        first.extend_from_slice(rules);
        json(&first);
        if !rules.is_empty() {
            // The plain pair, which a rule-aware build would otherwise build first.
            json(&["generate", "--signature", "2v3", "--dir", d]);
        }
    }
    let args = |d: &str| {
        let mut a: Vec<String> = [
            "generate",
            "--signature",
            "2v3",
            "--threads",
            "1",
            "--checkpoint-minutes",
            "0",
            "--dir",
            d,
            "--json",
        ]
        .map(String::from)
        .to_vec();
        a.extend(rules.iter().map(|r| r.to_string()));
        a
    };
    let bin = assert_cmd::cargo::cargo_bin("fanotb");
    let mut child = std::process::Command::new(&bin)
        .args(args(k))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ckpt = killed.join(sub).join("2v3.pair.ckpt");
    let start = std::time::Instant::now();
    // The first checkpoint follows stage 1; let a few levels pass after it.
    while !ckpt.exists() {
        assert!(start.elapsed().as_secs() < 60, "no checkpoint appeared");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before a checkpoint"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(ckpt.exists());

    let out = fanotb().args(args(k)).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let built: Vec<&Value> = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["skipped"] == false)
        .collect();
    assert_eq!(built.len(), 2, "{v}");
    assert!(built[0]["resumed_at_depth"].is_u64(), "{v}");
    assert!(
        !ckpt.exists(),
        "the checkpoint is removed once the tables are written"
    );

    let mut again = vec![
        "generate",
        "--signature",
        "2v3",
        "--dir",
        c,
        "--checkpoint-minutes",
        "1000",
    ];
    again.extend_from_slice(rules);
    let v = json(&again);
    assert!(
        v["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["resumed_at_depth"].is_null())
    );
    for t in ["2v3", "3v2"] {
        let a = std::fs::read(killed.join(sub).join(format!("{t}.fntb"))).unwrap();
        let b = std::fs::read(clean.join(sub).join(format!("{t}.fntb"))).unwrap();
        assert!(a == b, "{t} differs after the resumed build");
    }
}

/// Builds the tsivy tables up to 3 stones under the no-capture limit 20 (and the
/// plain ones they need); returns the report.
fn rule_aware_tables(d: &str) -> Value {
    json(&[
        "generate",
        "--max-stones",
        "3",
        "--no-capture-limit",
        "20",
        "--dir",
        d,
    ])
}

#[test]
fn probe_line_stats_and_verify_under_the_no_capture_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let built = rule_aware_tables(d);
    let tables = built["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 6, "3 plain tables, then 3 for the limit");
    assert!(tables[..3].iter().all(|t| t["limit"].is_null()));
    assert!(tables[3..].iter().all(|t| t["limit"] == 20));
    assert!(tables[3]["cursed"].is_u64());
    let probe = |pos: &str, more: &[&str]| {
        let mut args = vec!["probe", pos, "--dir", d, "--no-capture-limit", "20"];
        args.extend_from_slice(more);
        json(&args)
    };
    // Won in 5 plies to a capture: won up to counter 15, drawn from 16.
    let v = probe("9/9/B8/9/3WW4 w", &[]);
    assert_eq!(
        (
            &v["value"],
            &v["plies_to_capture"],
            &v["cursed"],
            &v["limit"],
            &v["counter"]
        ),
        (
            &"win".into(),
            &5.into(),
            &false.into(),
            &20.into(),
            &0.into()
        )
    );
    assert_eq!(v["moves"][0]["value"], "win");
    assert_eq!(v["moves"][0]["plies_to_capture"], 5);
    assert_eq!(v["best"][0], v["moves"][0]["move"]);
    assert_eq!(
        probe("9/9/B8/9/3WW4 w", &["--counter", "15"])["value"],
        "win"
    );
    let late = probe("9/9/B8/9/3WW4 w", &["--counter", "16"]);
    assert_eq!(
        (&late["value"], &late["plies_to_capture"]),
        (&"draw".into(), &5.into())
    );
    // Won in 29 without the limit: a cursed win under 20.
    let cursed = probe("9/9/3B5/9/WW7 w", &[]);
    assert_eq!(
        (
            &cursed["value"],
            &cursed["plies_to_capture"],
            &cursed["cursed"]
        ),
        (&"draw".into(), &Value::Null, &true.into())
    );
    // At the limit the game is over: no move.
    assert_eq!(
        probe("9/9/B8/9/3WW4 w", &["--counter", "20"])["moves"],
        serde_json::json!([])
    );
    let line = json(&[
        "line",
        "9/9/B8/9/3WW4 w",
        "--dir",
        d,
        "--no-capture-limit",
        "20",
    ]);
    let moves = line["line"].as_array().unwrap();
    assert_eq!(moves.len(), 5, "{line}");
    assert_eq!(moves[4]["counter"], 0, "the line ends with a capture");

    let err = fails(&[
        "probe",
        "9/9/B8/9/3WW4 w",
        "--dir",
        d,
        "--no-capture-limit",
        "20",
        "--counter",
        "21",
    ]);
    assert!(
        err.contains("counter 21 is above the no-capture limit 20"),
        "{err}"
    );
    let err = fails(&["probe", "9/9/B8/9/3WW4 w", "--dir", d, "--counter", "2"]);
    assert!(err.contains("--no-capture-limit"), "{err}");
    let err = fails(&[
        "probe",
        "9/9/B8/9/3WW4 w",
        "--dir",
        d,
        "--no-capture-limit",
        "30",
    ]);
    assert!(
        err.contains("--signature 2v1 --no-capture-limit 30"),
        "{err}"
    );
    let err = fails(&[
        "generate",
        "--max-stones",
        "3",
        "--no-capture-limit",
        "251",
        "--dir",
        d,
    ]);
    assert!(err.contains("give 1 to 250"), "{err}");

    let stats = json(&["stats", "--dir", d]);
    let rows = stats["tables"].as_array().unwrap();
    let n20: Vec<&Value> = rows.iter().filter(|r| r["limit"] == 20).collect();
    assert_eq!(n20.len(), 3);
    let cursed: u64 = n20.iter().map(|r| r["cursed"].as_u64().unwrap()).sum();
    assert!(cursed > 0);
    assert_eq!(
        json(&["verify", "--dir", d])["tables"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

/// `game`: a person (here stdin) plays one side against the tables.
#[test]
fn a_game_against_the_tables_ends_with_the_result_and_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    json(&["generate", "--max-stones", "3", "--dir", d]);
    rule_aware_tables(d);
    let pos = "9/9/3B5/9/WW7 w"; // White wins in 29
    let game = |args: &[&str], input: &str| {
        let out = fanotb()
            .args(["game", pos, "--dir", d])
            .args(args)
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let record = |out: &str| -> Vec<String> {
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("record: "))
            .unwrap();
        line.split(' ')
            .filter(|w| !w.ends_with('.'))
            .map(String::from)
            .collect()
    };

    // White against the tables, with a malformed move and a move list on the way.
    let out = game(&[], &format!("z9\nmoves\n{}", "best\n".repeat(15)));
    assert!(out.contains("malformed move `z9`"), "{out}");
    assert!(out.contains("tables: win in 29 for White"), "{out}");
    assert!(
        out.contains("game over: Black has no stones, White wins (you win)"),
        "{out}"
    );
    let moves = record(&out);
    assert_eq!(moves.len(), 30, "29 plies and the score: {moves:?}");
    assert_eq!(moves.last().unwrap(), "1-0");
    // The record replays to a position where Black has no stones.
    let end = json(
        &[
            &["play", pos][..],
            &moves[..29].iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat(),
    );
    assert!(!end["result"].as_str().unwrap().contains('B'), "{end}");

    // Black against the tables: the tables win, and the record starts with White.
    let out = game(&["--side", "black"], &"best\n".repeat(15));
    assert!(out.contains("White wins (fanotb wins)"), "{out}");
    assert_eq!(record(&out)[..29], moves[..29]);

    // Help, undo (nothing to take back, then a move and its reply), a move that
    // throws the win away named as it is played, `best` naming its move; the
    // board is not shown again after an error.
    let out = game(&[], "help\nz9\nundo\nb1-c1\nundo\nbest\nquit\n");
    assert!(
        out.contains("your move> type a move (like d2-e3A)"),
        "{out}"
    );
    assert!(out.contains("no move of yours to take back"), "{out}");
    assert!(
        out.contains("b1-c1 throws the win away: it is a draw for you now"),
        "{out}"
    );
    assert!(out.contains("best: a1-b2 (table)"), "{out}");
    assert_eq!(record(&out), ["a1-b2", "d3-e3", "*"]);
    assert_eq!(out.matches("White to move").count(), 5, "{out}");

    // Quitting, and stdin ending, stop the game unfinished.
    let out = game(&[], "best\nquit\n");
    assert!(out.contains("game stopped"), "{out}");
    assert_eq!(record(&out).last().unwrap(), "*");
    assert_eq!(record(&out).len(), 3);
    assert!(game(&[], "").contains("game stopped"));

    // Under the limit, one ply from it: drawn when the counter reaches it.
    let out = game(&["--no-capture-limit", "20", "--counter", "19"], "best\n");
    assert!(
        out.contains("tables: draw for White (no-capture limit 20, counter 19)"),
        "{out}"
    );
    assert!(
        out.contains("drawn, the no-capture counter reached the limit"),
        "{out}"
    );
    assert_eq!(record(&out).last().unwrap(), "1/2-1/2");

    assert!(fails(&["game", pos, "--dir", d, "--json"]).contains("interactive"));
}

/// `generate --vela`, then `game --vela` and `probe --vela` from a 5x3 position where
/// White plays vela: the tables answer with quiet steps until a capture ends it.
#[test]
fn a_game_under_vela_is_played_from_the_vela_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let built = json(&[
        "generate",
        "--board",
        "5x3",
        "--vela",
        "--max-stones",
        "7",
        "--dir",
        d,
    ]);
    let names: Vec<&str> = built["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["vela"] == true)
        .map(|t| t["signature"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["1v6", "6v1"]);
    let pos = "B4/WW3/WWWW1 w";
    let probe = json(&["probe", pos, "--vela", "white", "--dir", d]);
    assert_eq!(
        (probe["value"].clone(), probe["depth"].clone()),
        ("win".into(), 5.into())
    );
    assert_eq!(
        probe["vela"],
        serde_json::json!({"side": "white", "lost": 1})
    );
    let out = fanotb()
        .args(["game", pos, "--vela", "white", "--dir", d])
        .write_stdin("best\n".repeat(3))
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains("tables: win in 5 for White"), "{out}");
    assert!(
        out.contains("record: 1. c1-c2 a3-b3 2. a2-a3 b3-c3W 3. c2-c1W 1-0"),
        "{out}"
    );
    // A vela the tables do not hold is refused with the reason.
    let e = fails(&[
        "probe",
        pos,
        "--vela",
        "white",
        "--vela-lost",
        "0",
        "--dir",
        d,
    ]);
    assert!(e.contains("no table values this vela"), "{e}");
    let e = fails(&[
        "generate",
        "--board",
        "5x3",
        "--vela",
        "--signature",
        "3v3",
        "--dir",
        d,
    ]);
    assert!(e.contains("no vela table 3v3 on the 5x3 board"), "{e}");
}

/// `stats --plot`: a depth chart per table and a shares chart per board and limit,
/// in SVG and PNG.
#[test]
fn stats_plot_writes_svg_and_png_charts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    json(&[
        "generate",
        "--board",
        "5x3",
        "--max-stones",
        "3",
        "--dir",
        d,
    ]);
    json(&[
        "generate",
        "--board",
        "5x3",
        "--max-stones",
        "2",
        "--no-capture-limit",
        "4",
        "--dir",
        d,
    ]);
    let out = dir.path().join("charts");
    let v = json(&["stats", "--dir", d, "--plot", out.to_str().unwrap()]);
    let charts: Vec<&str> = v["charts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    // 3 plain and 1 rule-aware tables, and 2 shares charts, twice each.
    assert_eq!(charts.len(), 2 * (3 + 1 + 2), "{charts:?}");
    for c in &charts {
        let bytes = std::fs::read(c).unwrap();
        if c.ends_with(".png") {
            assert_eq!(&bytes[1..4], b"PNG", "{c}");
            assert!(bytes.len() > 5000, "{c}: a chart with text, not a blank");
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.starts_with("<svg") && text.contains("<text"), "{c}");
        }
    }
    let svg = std::fs::read_to_string(out.join("5x3/n4/1v1-depths.svg")).unwrap();
    assert!(svg.contains("no-capture limit 4"), "{svg:.300}");
    assert!(out.join("5x3/shares.png").exists());
    assert!(fails(&["stats", "--dir", d, "--plot", "/proc/no/such"]).contains("/proc/no/such"));
}

/// Arguments no command can act on are refused up front, the same way by every
/// command that takes them: never a panic, never a game that starts and ends at once.
#[test]
fn hostile_arguments_are_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path().to_str().unwrap();
    let ckpt = format!("{d}/ckpt");
    for minutes in ["inf", "1e300", "nan"] {
        for cmd in [
            vec!["prove", "3x3", "--checkpoint", &ckpt, "--dir", d],
            vec!["generate", "--max-stones", "2", "--dir", d],
        ] {
            let mut args = cmd.clone();
            args.extend(["--checkpoint-minutes", minutes]);
            let err = fails(&args);
            assert!(err.contains("give a finite number of minutes"), "{err}");
        }
    }
    assert!(
        !std::path::Path::new(&format!("{d}/3x3")).exists(),
        "nothing built"
    );
    // A counter above the limit: the game refuses it as probe does.
    let out = fanotb()
        .args(["game", "9/9/B8/9/3WW3B w", "--no-capture-limit", "60"])
        .args(["--counter", "61", "--dir", d])
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("counter 61 is above the no-capture limit 60"),
        "{err}"
    );
}

/// Outside a directory that holds `tables`, a probe says how to name the table
/// directory, and how to build one.
#[test]
fn a_missing_table_directory_names_the_flag_and_the_variable() {
    let empty = tempfile::tempdir().unwrap();
    let out = fanotb()
        .current_dir(empty.path())
        .env_remove("FANOTB_TABLES")
        .args(["probe", "9/9/B8/9/3WW3B w"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tables is not a directory: name the table directory with --dir DIR or the FANOTB_TABLES variable"),
        "{err}"
    );
    assert!(
        err.contains("fanotb generate --max-stones 4 --dir tables"),
        "{err}"
    );
}
