//! Generated tables against the brute-force forward solver of tests/common/naive.rs,
//! position by position; file integrity; resumable, deterministic builds.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::naive::{self, NaivePos, Value};
use fanotb::Outcome;
use fanotb::Signature;
use fanotb::Tablebase;
use fanotb::internals::build_plan;
use fanotb::internals::{Indexer, binom};
use fanotb::internals::{TableFile, set_entry, table_path};
use fanotb::verify;
use fanotb::{Board, Position, TableKind};
use fanotb::{Options, generate};

fn build(dir: &Path, board: &'static Board, max: usize) {
    generate(
        dir,
        board,
        &Signature::all_up_to(max),
        &Options::default(),
        |_| {},
    )
    .unwrap();
}

/// Every position of the brute force, probed in the tables; returns the brute
/// force's (wins, draws, losses) counts.
fn compare_all(tb: &Tablebase, solved: &HashMap<NaivePos, Value>) -> (u64, u64, u64) {
    let mut counts = (0, 0, 0);
    for (np, &v) in solved {
        let pos: Position = naive::to_text(np).parse().unwrap();
        assert_eq!(
            common::plain(tb, &pos).unwrap(),
            common::outcome(v),
            "{pos}"
        );
        match v {
            Value::Win(_) => counts.0 += 1,
            Value::Draw => counts.1 += 1,
            Value::Loss(_) => counts.2 += 1,
        }
    }
    counts
}

/// The best moves of the tables are exactly the moves the brute force rates best.
fn compare_best_moves(tb: &Tablebase, solved: &HashMap<NaivePos, Value>, every: usize) {
    let rate = |v: Value| match v {
        Value::Loss(d) => (0, d as i64),
        Value::Draw => (1, 0),
        Value::Win(d) => (2, -(d as i64)),
    };
    for (np, _) in solved.iter().step_by(every) {
        let pos: Position = naive::to_text(np).parse().unwrap();
        let moves = naive::moves(np);
        if moves.is_empty() {
            continue;
        }
        // The opponent's value after each move: the best move leaves the worst for it.
        let after = |m: &naive::NaiveMove| {
            if m.result.count(m.result.mover()) == 0 {
                Value::Loss(0)
            } else {
                solved[&m.result]
            }
        };
        let best = moves.iter().map(|m| rate(after(m))).min().unwrap();
        let mut want: Vec<String> = moves
            .iter()
            .filter(|m| rate(after(m)) == best)
            .map(|m| m.notation.clone())
            .collect();
        let mut got: Vec<String> = tb
            .best_moves(&pos, fanotb::Rules::PLAIN)
            .unwrap()
            .iter()
            .map(|m| m.mv.notation(pos.board()))
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "best moves of {pos}");
    }
}

#[test]
fn tsivy_up_to_four_stones_match_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::tsivy();
    build(dir.path(), board, 4);
    let tb = Tablebase::open(dir.path()).unwrap();
    let solved = naive::solve_all(9, 5, 4);
    let (wins, draws, losses) = compare_all(&tb, &solved);
    compare_best_moves(&tb, &solved, 97);

    // stats: every placement counted once, with the side to move normalised; the brute
    // force holds each position with either colour to move, so twice as many.
    let mut total = (0, 0, 0, 0);
    for sig in Signature::all_up_to(4) {
        let f = TableFile::open(
            &table_path(dir.path(), board, TableKind::Plain, sig),
            board,
            TableKind::Plain,
            sig,
        )
        .unwrap();
        let s = f.header().stats;
        assert_eq!(
            s.placements,
            binom(45, sig.us as usize) * binom(45 - sig.us as usize, sig.them as usize)
        );
        total.0 += s.placements;
        total.1 += s.wins;
        total.2 += s.draws;
        total.3 += s.losses;
    }
    assert_eq!(total.0 * 2, solved.len() as u64);
    assert_eq!(
        (total.1 * 2, total.2 * 2, total.3 * 2),
        (wins, draws, losses)
    );

    let reports = verify(&tb, &[], None, |_| {}).unwrap();
    assert_eq!(reports.len(), 6);
    assert!(reports.iter().all(|r| r.mismatches == 0));
}

#[test]
fn whole_3x3_board_matches_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(3, 3).unwrap();
    build(dir.path(), board, 9);
    let tb = Tablebase::open(dir.path()).unwrap();
    let solved = naive::solve_all(3, 3, 9);
    compare_all(&tb, &solved);
    compare_best_moves(&tb, &solved, 7);
    check_depths(&tb, board, &solved);
    // The 3x3 start: White wins (Schadd et al.), in 11 plies by the brute force.
    let start = Position::start(board);
    assert_eq!(common::plain(&tb, &start).unwrap(), Outcome::Win(11));
    let line = tb.line(&start, fanotb::Rules::PLAIN).unwrap();
    assert_eq!(line.len(), 11);
    assert!(line.last().unwrap().result.is_lost());
}

#[test]
fn five_by_three_up_to_six_stones_match_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 3).unwrap();
    build(dir.path(), board, 6);
    let tb = Tablebase::open(dir.path()).unwrap();
    let solved = naive::solve_all(5, 3, 6);
    compare_all(&tb, &solved);
    check_depths(&tb, board, &solved);
}

/// The depth histograms (sidecars) hold the brute force's depths.
fn check_depths(tb: &Tablebase, board: &'static Board, solved: &HashMap<NaivePos, Value>) {
    common::check_depths(
        tb,
        board,
        None,
        solved.iter().map(|(p, v)| {
            let d = match *v {
                Value::Win(d) => Some((true, d)),
                Value::Loss(d) => Some((false, d)),
                Value::Draw => None,
            };
            (p, d)
        }),
    );
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("9x5"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn interrupted_build_resumes_to_identical_bytes() {
    let board = Board::tsivy();
    let a = tempfile::tempdir().unwrap();
    build(a.path(), board, 4);
    let b = tempfile::tempdir().unwrap();
    build(b.path(), board, 3);
    // An interruption leaves a partial temporary file, and perhaps a damaged table.
    let sub = b.path().join("9x5");
    std::fs::write(sub.join("1v3.fntb.tmp"), b"partial").unwrap();
    let damaged = sub.join("2v1.fntb");
    let len = std::fs::metadata(&damaged).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&damaged)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    // A build from before depth and class sidecars, or one killed between a table
    // and its sidecars: the complete table is kept and its sidecars written.
    std::fs::remove_file(sub.join("1v1.depths")).unwrap();
    std::fs::remove_file(sub.join("1v1.classes")).unwrap();
    let reports = generate(
        b.path(),
        board,
        &Signature::all_up_to(4),
        &Options::default(),
        |_| {},
    )
    .unwrap();
    let skipped: Vec<String> = reports
        .iter()
        .filter(|r| r.skipped)
        .map(|r| r.sig.to_string())
        .collect();
    assert_eq!(skipped, ["1v1"]);
    std::fs::remove_file(sub.join("1v3.fntb.tmp")).unwrap_or(());
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(
        fa.len(),
        18,
        "six tables and their depth and class sidecars"
    );
    assert_eq!(fa, fb);
}

/// Every tsivy table up to 3 stones in a fresh directory, with 2v1's signature and
/// file, the one the damage tests work on.
fn tables_with_2v1() -> (tempfile::TempDir, Signature, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), Board::tsivy(), 3);
    let sig: Signature = "2v1".parse().unwrap();
    let path = table_path(dir.path(), Board::tsivy(), TableKind::Plain, sig);
    (dir, sig, path)
}

#[test]
fn damaged_files_are_detected_never_misread() {
    let (dir, _, path) = tables_with_2v1();
    let good = std::fs::read(&path).unwrap();
    let pos: Position = "9/9/3B5/9/WW7 w".parse().unwrap();

    // A flipped byte anywhere: open, a probe or verify reports it.
    for at in [20, 140, good.len() / 2, good.len() - 40, good.len() - 12] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let probe = common::plain(&tb, &pos);
        let verified = verify(&tb, &[], None, |_| {});
        assert!(
            probe.is_err() || verified.is_err(),
            "flipped byte at {at} went unnoticed"
        );
        if let Err(e) = verified {
            assert!(e.to_string().contains("2v1.fntb"), "{e}");
        }
    }
    // A fresh tablebase each time, as a new engine process would open it.
    let probe_err = || {
        Tablebase::open(dir.path())
            .unwrap()
            .probe(&pos, fanotb::Rules::PLAIN)
            .unwrap_err()
            .to_string()
    };
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 100]).unwrap();
    let err = probe_err();
    assert!(
        err.contains("2v1.fntb") && err.contains("truncated"),
        "{err}"
    );
    // Foreign.
    std::fs::write(&path, b"this is not a table at all, just some text").unwrap();
    let err = probe_err();
    assert!(err.contains("not a fanotb table"), "{err}");
    // Missing: the error names the table, and says it is missing.
    std::fs::remove_file(&path).unwrap();
    let missing = Tablebase::open(dir.path())
        .unwrap()
        .probe(&pos, fanotb::Rules::PLAIN)
        .unwrap_err();
    assert!(
        matches!(
            &missing,
            fanotb::ProbeError::Table(fanotb::TableError::Missing { sig, .. }) if sig.to_string() == "2v1"
        ),
        "{missing}"
    );
    // Restored, the same probe answers.
    std::fs::write(&path, &good).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(common::plain(&tb, &pos).unwrap(), Outcome::Win(29));
}

#[test]
fn verify_finds_a_wrong_value_in_a_well_formed_file() {
    let board = Board::tsivy();
    let (dir, sig, path) = tables_with_2v1();
    let file = TableFile::open(&path, board, TableKind::Plain, sig).unwrap();
    let i = file.header().stats.longest_win;
    assert_eq!(file.outcome(i).unwrap(), Outcome::Win(29));
    drop(file);
    // The longest win, turned into a draw: checksums stay valid, the value is wrong.
    let idx = Indexer::new(board, sig);
    let (us, them) = idx.unrank(i);
    assert_eq!(
        idx.index(us, them),
        i,
        "the longest win is a canonical entry"
    );
    set_entry(&path, board, sig, i, Outcome::Draw).unwrap();

    let tb = Tablebase::open(dir.path()).unwrap();
    let full = verify(&tb, &[sig], None, |_| {}).unwrap();
    let sampled = verify(&tb, &[sig], Some(u64::MAX), |_| {}).unwrap();
    for reports in [&full, &sampled] {
        assert_eq!(reports.len(), 1, "only the table asked for");
        assert_eq!(reports[0].mismatches, 1);
        assert!(
            reports[0].examples[0].ends_with("stored draw, derived win in 29"),
            "{}",
            reports[0].examples[0]
        );
    }
    // The other tables are sound; a small sample of them checks as many entries.
    let others = verify(&tb, &["1v2".parse().unwrap()], Some(100), |_| {}).unwrap();
    assert_eq!((others[0].entries, others[0].mismatches), (100, 0));
}

#[test]
fn build_plan_puts_dependencies_first_and_keeps_the_order_asked() {
    let sigs = |v: &[&str]| -> Vec<Signature> { v.iter().map(|s| s.parse().unwrap()).collect() };
    let tsivy = Board::tsivy();
    let plain = |v: &[Signature]| build_plan(tsivy, TableKind::Plain, v);
    let plan = plain(&sigs(&["3v5", "4v4", "2v6", "1v7"]));
    // Every pair of up to 7 stones (named smaller side first), then the four asked.
    assert_eq!(plan.len(), 12 + 4);
    assert_eq!(plan[12..], sigs(&["3v5", "4v4", "2v6", "1v7"]));
    assert_eq!(plan[..3], sigs(&["1v1", "1v2", "1v3"]));
    let stones: Vec<usize> = plan.iter().map(|s| s.stones()).collect();
    assert!(stones.is_sorted());
    // A target named by its larger side builds the same pair.
    assert_eq!(plain(&sigs(&["5v3"])), plain(&sigs(&["3v5"])));
    // Vela pairs need only the vela pairs their captures reach (the plain ones are
    // another build's); a vela side to move captures nothing.
    let vela = |v: &[Signature]| build_plan(tsivy, TableKind::Vela, v);
    assert_eq!(vela(&sigs(&["7v1"])), sigs(&["1v6", "1v7"]));
    assert_eq!(vela(&sigs(&["6v2", "1v6"])), sigs(&["1v6", "2v6"]));
}

#[test]
fn a_vela_build_refuses_signatures_with_no_vela_table() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["3v3", "6v6", "23v1"] {
        let e = generate(
            dir.path(),
            Board::tsivy(),
            &[bad.parse().unwrap()],
            &Options::vela(),
            |_| {},
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "no vela table {bad} on the 9x5 board: the vela side, one side and only one, has more than 5 stones and at most the 22 it starts with"
            )
        );
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing built"
    );
}

#[test]
fn generate_clears_leftover_temporaries_and_refuses_a_directory_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::tsivy();
    let sub = dir.path().join("9x5");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("2v1.fntb.tmp"), b"half a table").unwrap();
    build(dir.path(), board, 3);
    assert!(!sub.join("2v1.fntb.tmp").exists());
    // Another process's lock (an flock on the lock file, with its pid).
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join(".fanotb.lock"))
        .unwrap();
    lock.lock().unwrap();
    std::fs::write(dir.path().join(".fanotb.lock"), "4242\n").unwrap();
    // Tables complete: nothing to write, so no lock is needed to read them.
    generate(
        dir.path(),
        board,
        &Signature::all_up_to(3),
        &Options::default(),
        |_| {},
    )
    .expect("complete tables go on beside a writer");
    let e = generate(
        dir.path(),
        board,
        &Signature::all_up_to(4),
        &Options::default(),
        |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("in use by process 4242"), "{e}");
}

#[test]
fn the_build_plan_counts_what_generate_builds() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 3).unwrap();
    let targets = Signature::all_up_to(5);
    let plan = fanotb::plan_build(dir.path(), board, &targets, TableKind::Plain).unwrap();
    assert_eq!(plan.pairs, build_plan(board, TableKind::Plain, &targets));
    let built = generate(dir.path(), board, &targets, &Options::default(), |_| {}).unwrap();
    let positions: u64 = built.iter().map(|r| r.stats.placements).sum();
    assert_eq!(plan.positions, positions);
    // The memory estimate stays under the generator's own bound, which adds what the
    // process already holds (here, other tests running beside this one), and above
    // the fixed 64 MiB allowance.
    let bound = built.iter().map(|r| r.memory_bound).max().unwrap();
    assert!(
        plan.peak_bytes <= bound && plan.peak_bytes > 64 << 20,
        "{plan:?} vs {bound}"
    );
    // Built, nothing is left to plan.
    let again = fanotb::plan_build(dir.path(), board, &targets, TableKind::Plain).unwrap();
    assert!(again.pairs.is_empty() && again.positions == 0);
}

#[test]
fn the_plan_counts_deep_bytes_only_where_the_smaller_tables_may_need_them() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 3).unwrap();
    generate(
        dir.path(),
        board,
        &Signature::all_up_to(4),
        &Options::default(),
        |_| {},
    )
    .unwrap();
    let targets = ["2v3".parse().unwrap(), "1v4".parse().unwrap()];
    let plan = || fanotb::plan_build(dir.path(), board, &targets, TableKind::Plain).unwrap();
    // The 4-stone tables' sidecars show no code that deep: the plan counts no deep
    // bytes while they are held.
    let known = plan();
    let mut removed = 0;
    for entry in std::fs::read_dir(dir.path().join("5x3")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "depths") {
            std::fs::remove_file(path).unwrap();
            removed += 1;
        }
    }
    assert_eq!(removed, 6);
    // Without them the depths are unknown: the worst case, a deep byte an entry more.
    let unknown = plan();
    assert_eq!(known.pairs, unknown.pairs);
    assert!(
        unknown.peak_bytes > known.peak_bytes,
        "{known:?} {unknown:?}"
    );
}

#[test]
fn a_checkpoint_that_cannot_be_saved_does_not_stop_the_build() {
    let board = Board::tsivy();
    let dir = common::tables(board, 4);
    // A non-empty directory where the pair's checkpoint goes: every save fails.
    let blocked = dir.path().join("9x5/2v3.pair.ckpt");
    std::fs::create_dir_all(blocked.join("x")).unwrap();
    let mut opts = Options::default();
    opts.checkpoint_every = Some(std::time::Duration::ZERO);
    let sig: Signature = "2v3".parse().unwrap();
    let built = generate(dir.path(), board, &[sig], &opts, |_| {}).unwrap();
    assert!(built.iter().any(|r| r.sig == sig && !r.skipped));
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(
        verify(&tb, &[sig], Some(2000), |_| {}).unwrap()[0].mismatches,
        0
    );
}

/// A depth sidecar is read when sound, the table is scanned when the sidecar is
/// gone, and verify catches a sidecar crafted to pass its own checks.
#[test]
fn depth_sidecars_are_scanned_when_missing_and_verified() {
    let board = Board::get(5, 3).unwrap();
    let dir = common::tables(board, 3);
    let sig: Signature = "2v1".parse().unwrap();
    // A fresh tablebase each time: one keeps a histogram once read.
    let depths = || {
        Tablebase::open(dir.path())
            .unwrap()
            .depths(board, TableKind::Plain, sig)
            .unwrap()
    };
    let sound = depths();
    assert!(
        sound.wins.iter().filter(|&&n| n > 0).count() >= 2,
        "{sound:?}"
    );
    let path = dir.path().join("5x3/2v1.depths");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(depths(), sound, "scanned");

    // Move one win from its depth to the next win depth: the sums still match the
    // header, and the file's own checksum is recomputed.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.pop();
    let rows: Vec<usize> = (3..lines.len())
        .filter(|&i| lines[i].split(' ').nth(1) != Some("0"))
        .take(2)
        .collect();
    for (i, delta) in [(rows[0], -1i64), (rows[1], 1)] {
        let f: Vec<i64> = lines[i].split(' ').map(|x| x.parse().unwrap()).collect();
        lines[i] = format!("{} {} {}", f[0], f[1] + delta, f[2]);
    }
    let body = lines.join("\n") + "\n";
    let sum = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
    std::fs::write(&path, format!("{body}xxh3 {sum:016x}\n")).unwrap();
    assert_ne!(depths(), sound, "crafted, trusted");
    let tb = Tablebase::open(dir.path()).unwrap();
    let reports = verify(&tb, &[sig], None, |_| {}).unwrap();
    let error = reports[0].stats_error.as_deref().unwrap_or("");
    assert!(error.starts_with("depth sidecar"), "{error}");
}

/// The block cache only saves work: with no cache, or one smaller than the tables,
/// every probe answers as with the default.
#[test]
fn probes_answer_the_same_whatever_the_block_cache() {
    let board = Board::get(5, 3).unwrap();
    let dir = common::tables(board, 4);
    let tb = Tablebase::open(dir.path()).unwrap();
    let solved = naive::solve_all(5, 3, 4);
    let positions: Vec<Position> = solved
        .keys()
        .map(|p| naive::to_text(p).parse().unwrap())
        .collect();
    let all = |tb: &Tablebase| -> Vec<_> {
        positions
            .iter()
            .map(|p| {
                (
                    common::plain(tb, p).unwrap(),
                    tb.moves(p, fanotb::Rules::PLAIN).unwrap().len(),
                )
            })
            .collect()
    };
    let want = all(&tb);
    for bytes in [0, 20_000, 1 << 30] {
        Tablebase::set_cache_per_thread(bytes);
        assert_eq!(all(&Tablebase::open(dir.path()).unwrap()), want, "{bytes}");
    }
    Tablebase::set_cache_per_thread(16 << 20);
}
