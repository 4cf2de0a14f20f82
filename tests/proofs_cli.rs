//! The proof commands, end to end: `prove`, `check-proof`, `prove-tree` and its
//! workers on one lemma store.

mod common;

use common::cli::{fails, fanotb, json};
use serde_json::Value;
use std::path::Path;

#[test]
fn prove_and_check_proof() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&["prove", "5x3", "--max-table-stones", "4", "--dir", d]);
    assert_eq!(v["board"], "5x3");
    assert_eq!(v["position"], "BBBBB/BW1BW/WWWWW w");
    assert_eq!(v["value"], "win");
    assert_eq!(v["proofs"][0]["side"], "white");
    assert_eq!(v["proofs"][0]["claim"], "wins");
    assert_eq!(v["proofs"][0]["positions"], 33);
    assert!(v["nodes"].as_u64().unwrap() > 0 && v["peak_rss"].as_u64().unwrap() > 0);
    let cert = v["certificate"].as_str().unwrap().to_string();
    assert!(cert.ends_with("proofs/5x3-start.fnproof"), "{cert}");
    let c = json(&["check-proof", &cert, "--dir", d]);
    assert_eq!(
        (c["ok"].clone(), c["value"].clone()),
        (true.into(), "win".into())
    );
    assert_eq!(c["positions"], 33);
    // With its tables re-derived: a progress line a table on stderr, with the
    // positions done and the time left.
    let out = fanotb()
        .args(["check-proof", &cert, "--dir", d, "--verify-tables"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("verified table"))
        .collect();
    assert_eq!(lines.len(), 6, "{err}");
    assert!(
        lines[0].contains("(1 of 6)") && lines[0].contains(" ETA "),
        "{err}"
    );
    assert!(
        lines[5].contains("(6 of 6): 22050/22050 positions (100.0%), ETA 0 s"),
        "{err}"
    );
    // The same proof in version 3, checked block by block with no room for blocks.
    let blocked = dir.path().join("blocked.fnproof");
    let b = blocked.to_str().unwrap();
    let v = json(&[
        "prove",
        "5x3",
        "--max-table-stones",
        "4",
        "--dir",
        d,
        "--out",
        b,
        "--blocked",
    ]);
    assert_eq!(v["proofs"][0]["positions"], 33);
    let c = json(&["check-proof", b, "--dir", d, "--cache-mib", "0"]);
    assert_eq!(
        (c["ok"].clone(), c["positions"].clone()),
        (true.into(), 33.into())
    );

    // A flipped byte: a non-zero exit, the error on stderr, and as JSON on stdout.
    let mut bytes = std::fs::read(&cert).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(&cert, &bytes).unwrap();
    let err = fails(&["check-proof", &cert, "--dir", d]);
    assert!(err.contains("checksum mismatch"), "{err}");
    let out = fanotb()
        .args(["check-proof", &cert, "--dir", d, "--json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains("checksum mismatch"));
    // A usage error asked with --json is JSON too (exit 2, clap's usage on stderr).
    for (args, says) in [
        (
            &["probe", "--json"][..],
            "the following required arguments were not provided: <POSITION>",
        ),
        (
            &["probe", "start", "--bogus", "--json"],
            "unexpected argument '--bogus' found",
        ),
    ] {
        let out = fanotb().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["ok"].as_bool(), v["error"].as_str()),
            (Some(false), Some(says))
        );
    }

    let err = fails(&["prove", "5x3", "--max-table-stones", "1", "--dir", d]);
    assert!(err.contains("tables start at 2 stones"), "{err}");
    let err = fails(&["prove", "5x3", "--max-table-stones", "300", "--dir", d]);
    assert!(err.contains("more than the 15 points"), "{err}");
    let err = fails(&["prove", "dimy", "--position", "9/9/9/9/WW7 w", "--dir", d]);
    assert!(err.contains("not 5x5"), "{err}");
    let err = fails(&["check-proof", "/nonexistent.fnproof", "--dir", d]);
    assert!(err.contains("/nonexistent.fnproof"), "{err}");
}

/// `prove --out` never replaces what is not a regular file: a symbolic link, a FIFO
/// or a device given as the output is refused untouched, before any search.
#[test]
fn prove_never_replaces_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mine = dir.path().join("mine.txt");
    std::fs::write(&mine, "mine").unwrap();
    let link = dir.path().join("link.fnproof");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    let fifo = dir.path().join("fifo.fnproof");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for out in [link.to_str().unwrap(), fifo.to_str().unwrap(), "/dev/null"] {
        let err = fails(&[
            "prove",
            "3x3",
            "--max-table-stones",
            "4",
            "--out",
            out,
            "--dir",
            d,
        ]);
        assert!(err.contains("is not a regular file: not replaced"), "{err}");
    }
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(!fifo.symlink_metadata().unwrap().file_type().is_file());
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "mine");
    assert!(!dir.path().join("3x3").exists(), "no table was built");
}

/// The last JSON value of a streamed report (JSON lines, then the report).
fn last_json(args: &[&str]) -> Value {
    let out = fanotb().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let values = serde_json::Deserializer::from_slice(&out.stdout).into_iter::<Value>();
    values.map(Result::unwrap).last().expect("a report")
}

/// The arguments of a small `prove-tree` run on dimy (table leaves up to 4 stones,
/// leaves of 300 nodes, one worker) over lemma directory `lemmas` and table
/// directory `dir`, then `extra`.
fn dimy_tree(attacker: &str, lemmas: &str, dir: &str, extra: &[&str]) -> Vec<String> {
    dimy_tree_over(4, attacker, lemmas, dir, extra)
}

/// `dimy_tree` with table leaves up to `k` stones.
fn dimy_tree_over(k: u32, attacker: &str, lemmas: &str, dir: &str, extra: &[&str]) -> Vec<String> {
    let k = k.to_string();
    let mut a: Vec<String> = [
        "prove-tree",
        "dimy",
        "--attacker",
        attacker,
        "--max-table-stones",
        &k,
        "--max-nodes",
        "300",
        "--workers",
        "1",
        "--lemmas",
        lemmas,
        "--dir",
        dir,
    ]
    .map(String::from)
    .to_vec();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// `read-log | head`: a reader that stops early ends the print quietly, as for
/// every other report (no "Broken pipe" error, exit 0).
#[test]
fn read_log_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tree.tsv");
    std::fs::write(
        &log,
        "attacker\tnodes\n".to_string() + &"White\t1\n".repeat(100_000),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fanotb"))
        .args(["read-log", log.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 8];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    assert_eq!(&first, b"attacker");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// `prove-tree`: a run cut short exits non-zero and says how to go on; the two
/// questions answered "no" write the root's draw certificate, which checks, and
/// `prove-jobs` over the same lemmas knows the root without a search.
#[test]
fn prove_tree_answers_each_question_and_says_when_it_has_not() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let lemmas = dir.path().join("lemmas");
    let l = lemmas.to_str().unwrap();
    let run = |attacker: &str, extra: &[&str]| dimy_tree(attacker, l, d, extra);
    let cut = run("white", &["--max-expansions", "1"]);
    let err = fails(&cut.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(err.contains("not answered yet"), "{err}");
    // Its report says where the root stands.
    let again = fanotb().args(&cut).output().unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("not answered yet: the root at "), "{text}");
    // Sealed between runs: the leaves' log is compressed, and the next run still
    // takes the cut run's leaves from it.
    let tree_log = lemmas.join("tree.tsv");
    let before = std::fs::read_to_string(&tree_log).unwrap();
    let sealed = json(&["pack-lemmas", l, "--logs-only"]);
    assert_eq!(sealed["packs"], 0, "{sealed}");
    let logs: Vec<&str> = sealed["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["log"].as_str().unwrap())
        .collect();
    assert!(logs.iter().any(|g| g.ends_with("tree.tsv")), "{sealed}");
    assert!(!lemmas.join("tree.tsv").exists() && lemmas.join("tree.tsv.zst").exists());
    let err = fails(&["pack-lemmas", l, "--logs-only"]);
    assert!(err.contains("no log to seal"), "{err}");
    // `read-log` gives the sealed log's lines as they were written.
    let t = tree_log.to_str().unwrap();
    let read = fanotb().args(["read-log", t]).output().unwrap();
    assert!(read.status.success());
    assert_eq!(String::from_utf8(read.stdout).unwrap(), before);
    let missing = lemmas.join("no.tsv");
    assert!(fails(&["read-log", missing.to_str().unwrap()]).contains("no such log"));
    let white = last_json(
        &run("white", &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(white["answer"], "no win");
    assert_eq!(white["disproof"], 0, "{white}");
    assert_eq!(white["attacker"], "White");
    assert!(white["value"].is_null(), "{white}");
    assert!(
        white["reused"].as_u64().unwrap() > 0,
        "the cut run's leaves: {white}"
    );
    // Dimy's small board comes back to the same positions by other orders of
    // moves: the tree counts the nodes it holds twice.
    let (tree, transposed) = (
        white["tree"].as_u64().unwrap(),
        white["transposed"].as_u64().unwrap(),
    );
    assert!(0 < transposed && transposed < tree, "{white}");
    let black = last_json(
        &run("black", &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(black["answer"], "no win");
    assert_eq!(black["value"], "draw");
    let cert = black["certificate"].as_str().unwrap().to_string();
    let c = json(&["check-proof", &cert, "--lemmas", l, "--dir", d]);
    assert_eq!(
        (c["ok"].clone(), c["value"].clone()),
        (true.into(), "draw".into())
    );
    // The lemmas it relies on, listed (sorted): a directory of only those checks
    // it, and one fewer does not.
    let relied_on = |files: &[&str]| -> (u64, Vec<String>) {
        let mut args = vec!["check-proof"];
        args.extend(files);
        args.extend(["--lemmas", l, "--dir", d, "--list-lemmas"]);
        let r = json(&args);
        let mut names: Vec<String> = r["relied_on"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        names.sort_unstable();
        (r["lemmas"].as_u64().unwrap(), names)
    };
    let (count, used) = relied_on(&[&cert]);
    assert_eq!(count, used.len() as u64);
    assert!(used.len() >= 2, "a lemma for each question: {used:?}");
    // The search wrote its lemmas into a pack; the lemmas the certificate relies
    // on, packed on their own, check it.
    assert!(
        used.iter().all(|n| n.contains(".fnlemma in lemmas-")),
        "{used:?}"
    );
    let kept = dir.path().join("kept");
    let k = kept.to_str().unwrap();
    let packed = json(&["pack-lemmas", l, "--only", &cert, "--out", k]);
    assert_eq!(packed["lemmas"], count);
    let only = json(&["check-proof", &cert, "--lemmas", k, "--dir", d]);
    assert_eq!(only["lemmas"], count);
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = fails(&[
        "check-proof",
        &cert,
        "--lemmas",
        empty.to_str().unwrap(),
        "--dir",
        d,
    ]);
    assert!(
        err.contains(".fnlemma") && err.contains("is not in"),
        "{err}"
    );
    // Packing the whole directory keeps every answer: the same check after.
    let before = json(&["check-proof", &cert, "--lemmas", l, "--dir", d]);
    let repacked = json(&["pack-lemmas", l, "--all"]);
    assert_eq!(repacked["packs"], 2, "the two questions' packs: {repacked}");
    let after = json(&["check-proof", &cert, "--lemmas", l, "--dir", d]);
    assert_eq!(
        (before["lemmas"].clone(), before["positions"].clone()),
        (after["lemmas"].clone(), after["positions"].clone())
    );
    // The root and every lemma at once (a pack stands for its lemmas): each checked
    // once.
    let mut files: Vec<String> = std::fs::read_dir(l)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".fnpack"))
        .collect();
    assert_eq!(files.len(), 1, "one pack after pack-lemmas: {files:?}");
    let n = repacked["lemmas"].as_u64().unwrap() as usize;
    files.push(cert.clone());
    let mut args: Vec<&str> = vec!["check-proof"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--lemmas", l, "--dir", d]);
    let set = json(&args);
    assert_eq!(
        (
            set["ok"].clone(),
            set["certificates"].clone(),
            set["lemmas"].clone()
        ),
        (true.into(), (n + 1).into(), 0.into())
    );
    // A pack is told by its first bytes, not its name: copied as `.fnproof`, alone,
    // it is checked as the set of its lemmas.
    let renamed = dir.path().join("renamed.fnproof");
    std::fs::copy(&files[0], &renamed).unwrap();
    let alone = json(&[
        "check-proof",
        &renamed.display().to_string(),
        "--lemmas",
        l,
        "--dir",
        d,
    ]);
    assert_eq!(
        (alone["ok"].clone(), alone["certificates"].clone()),
        (true.into(), n.into()),
        "{alone}"
    );
    let jobs = last_json(&[
        "prove-jobs",
        "dimy",
        "--depth",
        "1",
        "--max-table-stones",
        "4",
        "--lemmas",
        l,
        "--dir",
        d,
    ]);
    assert_eq!(jobs["value"], "draw");
    assert_eq!(jobs["levels"][1]["known"], 1, "{jobs}");
}

/// A question asked of another position than the start writes its root's
/// certificate under a name of that position, leaving the start's `root.fnproof`
/// in the same lemma directory as it was.
#[test]
fn prove_tree_of_a_position_keeps_the_start_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let lemmas = dir.path().join("lemmas");
    std::fs::create_dir(&lemmas).unwrap();
    let start = lemmas.join("root.fnproof");
    std::fs::write(&start, b"the start's certificate").unwrap();
    let l = lemmas.to_str().unwrap();
    let args = dimy_tree("white", l, d, &["--position", "BB3/5/5/5/WWW2 w"]);
    let r = last_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r["value"], "win", "{r}");
    let cert = lemmas.join("root-BB3-5-5-5-WWW2-w.fnproof");
    assert_eq!(r["certificate"], cert.display().to_string());
    assert_eq!(std::fs::read(&start).unwrap(), b"the start's certificate");
    let c = json(&[
        "check-proof",
        cert.to_str().unwrap(),
        "--lemmas",
        l,
        "--dir",
        d,
    ]);
    assert_eq!(
        (c["ok"].clone(), c["value"].clone()),
        (true.into(), "win".into())
    );
}

/// A tree run stopped by SIGTERM ends at once with its report (the root's moves and
/// their numbers) and a non-zero exit, keeping what it proved.
#[test]
fn prove_tree_stopped_by_a_signal_reports_where_it_stands() {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let lemmas = dir.path().join("lemmas");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
        .args([
            "prove-tree",
            "dimy",
            "--attacker",
            "white",
            "--max-table-stones",
            "4",
        ])
        .args([
            "--max-nodes",
            "30",
            "--workers",
            "1",
            "--json",
            "--dir",
            d,
            "--lemmas",
        ])
        .arg(&lemmas)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let first: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(first["expansions"], 1, "{line}");
    // The root's moves, each with its numbers: White moves at the root, so the
    // root's proof number is their least and its disproof number their sum.
    let numbers: Vec<(u64, u64)> = first["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m[0].as_u64().unwrap(), m[1].as_u64().unwrap()))
        .collect();
    assert_eq!(numbers.len() as u64, first["children"], "{line}");
    assert_eq!(
        (first["proof"].as_u64(), first["disproof"].as_u64()),
        (
            numbers.iter().map(|m| m.0).min(),
            Some(numbers.iter().map(|m| m.1).sum())
        ),
        "{line}"
    );
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(!child.wait().unwrap().success());
    let report = serde_json::Deserializer::from_str(&rest)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .last()
        .expect("the report");
    assert!(report["answer"].is_null(), "{report}");
    let moves = report["moves"].as_array().unwrap();
    assert!(!moves.is_empty(), "{report}");
    assert!(moves.iter().all(|m| m["proof"].is_u64()), "{report}");
    // The root's numbers are its moves': White moves, so it takes the least proof
    // number and the sum of the disproof numbers.
    let of = |key: &'static str| moves.iter().map(move |m| m[key].as_u64().unwrap());
    assert_eq!(report["proof"].as_u64(), of("proof").min(), "{report}");
    assert_eq!(
        report["disproof"].as_u64(),
        Some(of("disproof").sum()),
        "{report}"
    );
    assert!(lemmas.join("tree.tsv").exists());
}

/// Two `prove-jobs` processes at once on one lemma store (as workers on two hosts
/// sharing a file system would be): each writes into its own pack, no job is
/// proved twice, the root is proved, and the store checks whole.
#[test]
fn two_workers_share_one_lemma_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    json(&[
        "generate",
        "--board",
        "dimy",
        "--max-stones",
        "4",
        "--dir",
        d,
    ]);
    let lemmas = dir.path().join("lemmas");
    let l = lemmas.to_str().unwrap();
    let args = [
        "prove-jobs",
        "dimy",
        "--depth",
        "2",
        "--max-table-stones",
        "4",
        "--workers",
        "1",
        "--dir",
        d,
        "--lemmas",
        l,
    ];
    let spawn = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    // A worker that meets the other's claims leaves those jobs to it and, if the
    // root is among them, ends saying so (a non-zero exit: it proved less than
    // asked); at least one proves the root.
    let mut proved_root = 0;
    for worker in [a, b] {
        let out = worker.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        if out.status.success() {
            assert!(text.contains("root: draw for White to move"), "{text}");
            proved_root += 1;
        } else {
            assert!(text.contains("root: not proved yet"), "{text}");
            assert!(text.contains(" claimed "), "{text}");
        }
    }
    assert!(proved_root >= 1);
    let packs: Vec<String> = std::fs::read_dir(&lemmas)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".fnpack"))
        .collect();
    // A pack a writer that wrote (the second may find everything done).
    assert!((1..=2).contains(&packs.len()), "{packs:?}");
    // Each job's line is written once, by the worker that held its claim.
    let log = std::fs::read_to_string(lemmas.join("jobs.tsv")).unwrap();
    let mut proved: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("\tproved "))
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    let all = proved.len();
    proved.sort_unstable();
    proved.dedup();
    assert_eq!((all, proved.len()), (27, 27), "21 + 5 + 1 jobs, each once");
    let packed: Vec<String> = packs.iter().map(|p| format!("{l}/{p}")).collect();
    let mut check = vec!["check-proof"];
    check.extend(packed.iter().map(String::as_str));
    check.extend(["--lemmas", l, "--dir", d]);
    let c = json(&check);
    assert_eq!(
        (c["ok"].clone(), c["certificates"].clone()),
        (true.into(), 43.into())
    );
    let root = format!("{l}/root.fnproof");
    let c = json(&["check-proof", &root, "--lemmas", l, "--dir", d]);
    assert_eq!(
        (c["ok"].clone(), c["value"].clone()),
        (true.into(), "draw".into())
    );
}

/// The scripts that drive long `prove-tree` runs (`scripts/tsivy-opening.py run`)
/// follow them through `fanotb_json.follow`: a progress line while the run goes on,
/// one SIGTERM at the time limit or on an interrupt, and fanotb's report after it.
const FOLLOW: &str = r#"
import importlib.util, json, os, signal, sys, threading
scripts, fanotb, tables, lemmas = sys.argv[1:5]
sys.path.insert(0, scripts)
from fanotb_json import follow, objects
spec = importlib.util.spec_from_file_location("opening", scripts + "/tsivy-opening.py")
opening = importlib.util.module_from_spec(spec)
spec.loader.exec_module(opening)

class Args:
    minutes = 1

# A real run to its end, a progress line looked at every 20 ms, each shown as the
# opening script shows it.
shown = []
def show(p):
    shown.append(p["expansions"])
    opening.show(Args, p)
cmd = [fanotb, "--json", "prove-tree", "dimy", "--attacker", "black",
       "--max-table-stones", "4", "--max-nodes", "300", "--workers", "1",
       "--lemmas", lemmas, "--dir", tables]
out, err, stopped = follow(cmd, None, 0.02, show)
report = objects(out)[-1]
assert len(objects(out)) == 1, out
# A run that goes on until it is stopped, and says so, as fanotb does.
endless = ("import json, signal, sys, time\n"
           "stop = []\n"
           "signal.signal(signal.SIGTERM, lambda *a: stop.append(1))\n"
           "i = 0\n"
           "while not stop:\n"
           "    i += 1\n"
           "    print(json.dumps({'expansions': i}), flush=True)\n"
           "    time.sleep(0.02)\n"
           "print(json.dumps({'stopped at': i}), flush=True)\n"
           "if len(sys.argv) > 1:\n"
           "    open(sys.argv[1], 'w').write('stopped')\n")
timed = []
t_out, _, t_stopped = follow([sys.executable, "-c", endless], 1.0, 0.1,
                             lambda p: timed.append(p["expansions"]))
# A SIGTERM to the script, 0.6 s in, which `run` turns into an interrupt as it does
# a Ctrl-C (SIGINT itself is ignored where the test runs in the background).
signal.signal(signal.SIGTERM, signal.default_int_handler)
threading.Timer(0.6, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
i_out, _, i_stopped = follow([sys.executable, "-c", endless], 60, 0.1)
# An error in `show` stops the run too (it writes its marker once stopped), and
# is raised again.
marker = lemmas + "-marker"
def broken(p):
    raise ValueError("show failed")
try:
    follow([sys.executable, "-c", endless, marker], 60, 0.1, broken)
    raised = False
except ValueError:
    raised = True
print(json.dumps({
    "raised": raised, "marker": open(marker).read(),
    "shown": shown, "stopped": stopped, "answer": report["answer"],
    "expansions": report["expansions"],
    "timed": timed, "timed_stopped": t_stopped, "timed_out": objects(t_out),
    "interrupted": i_stopped, "interrupted_last": objects(i_out)[-1],
}))
"#;

#[test]
fn the_opening_script_follows_a_run_and_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let out = std::process::Command::new("python3")
        .args(["-c", FOLLOW])
        .arg(&scripts)
        .arg(env!("CARGO_BIN_EXE_fanotb"))
        .arg(dir.path().join("tables"))
        .arg(dir.path().join("lemmas"))
        .output()
        .expect("python3 runs");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (lines, last) = text.trim_end().rsplit_once('\n').expect("progress lines");
    let v: Value = serde_json::from_str(last).unwrap();
    // The real run: progress shown as it went, each line once, then its answer.
    let shown: Vec<u64> = v["shown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(!shown.is_empty(), "{text}");
    assert!(shown.windows(2).all(|w| w[0] < w[1]), "{shown:?}");
    assert!(shown.last().unwrap() <= &v["expansions"].as_u64().unwrap());
    assert_eq!(
        (v["answer"].clone(), v["stopped"].clone()),
        ("no win".into(), false.into())
    );
    assert_eq!(lines.lines().count(), shown.len(), "{text}");
    assert!(
        lines
            .lines()
            .all(|l| l.starts_with("  ") && l.contains(" of 1 min: root ") && l.contains(" GiB")),
        "{text}"
    );
    // At the time limit: stopped by one SIGTERM, its report kept; not an interrupt.
    let timed = v["timed"].as_array().unwrap();
    assert!(timed.len() >= 2, "{v}");
    assert_eq!(v["timed_stopped"], false);
    // The progress lines are not kept in what it returns: the report alone.
    let timed_out = v["timed_out"].as_array().unwrap();
    assert_eq!(timed_out.len(), 1, "{v}");
    assert!(timed_out[0]["stopped at"].as_u64().unwrap() > 5, "{v}");
    // An error in the caller's `show`: raised, and the run stopped all the same.
    assert_eq!(
        (v["raised"].clone(), v["marker"].clone()),
        (true.into(), "stopped".into())
    );
    // A progress interval that is no interval is refused before anything runs.
    for every in ["0", "-5", "nan"] {
        let bad = std::process::Command::new("python3")
            .arg(scripts.join("tsivy-opening.py"))
            .args(["run", "no-such-tables", "--every", every])
            .output()
            .expect("python3 runs");
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{err}");
        assert!(err.contains("is not a number of seconds above 0"), "{err}");
    }
    // On a SIGTERM or Ctrl-C: stopped the same way, and said to be interrupted.
    assert_eq!(v["interrupted"], true);
    assert!(
        v["interrupted_last"]["stopped at"].as_u64().unwrap() > 0,
        "{v}"
    );
}

/// A probe (`run --minutes 0`) that the lemmas and the root's leaf search do not
/// answer says so in a line, and is not logged as a run; fanotb stands in here as
/// a script that reports an open question.
const PROBE: &str = r#"
import importlib.util, os, sys
scripts, fake = sys.argv[1:3]
os.environ["FANOTB"] = fake
sys.path.insert(0, scripts)
spec = importlib.util.spec_from_file_location("opening", scripts + "/tsivy-opening.py")
opening = importlib.util.module_from_spec(spec)
spec.loader.exec_module(opening)
logged = []
opening.append_run = logged.append
class Args:
    k, max_nodes, workers, tables, minutes, every = 8, 50000, 1, "t", 0, 60
print(opening.ask(Args, "e2-e3A f4-e5W", "P w", "black", probe=True), logged)
"#;

#[test]
fn an_unanswered_probe_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fanotb");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho '{\"attacker\": \"Black\", \"answer\": null, \"nodes\": 50001, \
         \"seconds\": 36.4}'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let out = std::process::Command::new("python3")
        .args(["-c", PROBE])
        .arg(&scripts)
        .arg(&fake)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        text,
        "e2-e3A f4-e5W: does black win? not known from the lemmas nor from the root's \
         own leaf search (50,001 nodes, 36 s)\n('open', False) []\n"
    );
}

/// The two questions over tables of two sizes, the larger first: the run over the
/// smaller tables passes over the other's lemmas, so it cannot give the root's
/// value and says how to join the two; a run over the larger tables with no
/// expansion does, and its certificate checks.
#[test]
fn halves_over_two_table_sizes_are_joined_by_a_run_over_the_larger() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let lemmas = dir.path().join("lemmas");
    let l = lemmas.to_str().unwrap();
    let args = |k, attacker, extra: &[&str]| dimy_tree_over(k, attacker, l, d, extra);
    let run = |a: Vec<String>| {
        let out = fanotb().args(&a).output().unwrap();
        assert!(out.status.success(), "{a:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let black = run(args(5, "black", &[]));
    assert!(black.contains("no: Black does not win"), "{black}");
    let white = run(args(4, "white", &[]));
    assert!(
        white.contains("no: White does not win")
            && white.contains("root: its value waits for the other question, which the lemmas passed over may answer"),
        "{white}"
    );
    let join = last_json(
        &args(5, "white", &["--max-expansions", "0"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        (
            join["value"].clone(),
            join["expansions"].clone(),
            join["lemmas_beyond"].clone()
        ),
        ("draw".into(), 0.into(), 0.into()),
        "{join}"
    );
    let cert = join["certificate"].as_str().unwrap();
    let c = json(&["check-proof", cert, "--lemmas", l, "--dir", d]);
    assert_eq!(
        (c["ok"].clone(), c["value"].clone()),
        (true.into(), "draw".into())
    );
}
