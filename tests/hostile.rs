//! An attacker with write access to an output directory, and endless or crafted
//! inputs: every writer refuses planted links, FIFOs and devices at its final and
//! temporary names and at the lock, and every reader of a user-named file or stream
//! is bounded. Each command runs under a timeout, so a hang is a failure, not a
//! stuck suite.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use assert_cmd::Command;

fn fanotb() -> Command {
    let mut c = Command::cargo_bin("fanotb").unwrap();
    c.timeout(Duration::from_secs(60));
    c
}

/// Runs `fanotb ARGS`, which must fail without a panic; its stderr.
fn fails(args: &[&str]) -> String {
    let out = fanotb().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} should fail: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn succeeds(args: &[&str]) -> String {
    let out = fanotb().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mkfifo(path: &Path) {
    assert!(
        StdCommand::new("mkfifo")
            .arg(path)
            .status()
            .unwrap()
            .success()
    );
}

/// A character device like /dev/null at `path` (the tests run as root in CI; where
/// mknod is not allowed, a link to /dev/null stands in, refused all the same).
fn device(path: &Path) {
    let made = StdCommand::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        std::os::unix::fs::symlink("/dev/null", path).unwrap();
    }
}

fn tables(dir: &Path, board: &str, stones: &str) {
    succeeds(&[
        "generate",
        "--board",
        board,
        "--max-stones",
        stones,
        "--dir",
        dir.to_str().unwrap(),
    ]);
}

/// A link planted at every name a writer used to write before its rename (`X.tmp`),
/// and at the build lock: `prove --out`, `game --record` and `generate` write their
/// own files, and the links' target keeps its bytes.
#[test]
fn planted_links_at_temporary_names_and_the_lock_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "mine").unwrap();
    let plant = |name: &str| {
        std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
    };
    plant("x.fnproof.tmp");
    let out = dir.path().join("x.fnproof");
    succeeds(&[
        "prove",
        "3x3",
        "--max-table-stones",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--dir",
        d,
    ]);
    assert!(out.symlink_metadata().unwrap().file_type().is_file());
    assert!(std::fs::read(&out).unwrap().starts_with(b"FNPROOF\n"));
    plant("game.txt.tmp");
    let record = dir.path().join("game.txt");
    fanotb()
        .args(["game", "1B1/3/W1W w", "--dir", d, "--record"])
        .arg(&record)
        .write_stdin("quit\n")
        .assert()
        .success();
    assert!(record.symlink_metadata().unwrap().file_type().is_file());
    assert!(
        std::fs::read_to_string(&record)
            .unwrap()
            .contains("[Board \"3x3\"]")
    );
    // The lock of a table directory: a link there is refused with a clear error.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::os::unix::fs::symlink(&victim, other.join(".fanotb.lock")).unwrap();
    let err = fails(&[
        "generate",
        "--board",
        "3x3",
        "--max-stones",
        "2",
        "--dir",
        other.to_str().unwrap(),
    ]);
    assert!(err.contains("symbolic link: not followed"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
}

/// The charts of `stats --plot` and `analyse --chart` go through the same writer:
/// a link, a FIFO or a device at a chart's name is refused untouched (before, the
/// link's target was overwritten, the FIFO blocked for ever and the device was
/// written into).
#[test]
fn charts_never_write_through_links_fifos_or_devices() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    tables(dir.path(), "3x3", "3");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "mine").unwrap();
    let plots = dir.path().join("plots");
    std::fs::create_dir_all(plots.join("3x3")).unwrap();
    let svg = plots.join("3x3/1v1-depths.svg");
    let plot = ["stats", "--dir", d, "--plot", plots.to_str().unwrap()];
    std::os::unix::fs::symlink(&victim, &svg).unwrap();
    let err = fails(&plot);
    assert!(err.contains("not a regular file: not replaced"), "{err}");
    std::fs::remove_file(&svg).unwrap();
    mkfifo(&svg);
    assert!(fails(&plot).contains("not a regular file"));
    std::fs::remove_file(&svg).unwrap();
    device(&svg);
    assert!(fails(&plot).contains("not a regular file"));
    std::fs::remove_file(&svg).unwrap();
    succeeds(&plot);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // The game chart, at its PNG name this time.
    let record = dir.path().join("r.txt");
    std::fs::write(
        &record,
        "[Board \"3x3\"]\n[Start \"1B1/3/W1W w\"]\n[Result \"*\"]\n\n1. a1-a2 *\n",
    )
    .unwrap();
    let stem = dir.path().join("game");
    std::os::unix::fs::symlink(&victim, stem.with_extension("png")).unwrap();
    let chart = [
        "analyse",
        record.to_str().unwrap(),
        "--dir",
        d,
        "--chart",
        stem.to_str().unwrap(),
    ];
    assert!(fails(&chart).contains("not a regular file: not replaced"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    std::fs::remove_file(stem.with_extension("png")).unwrap();
    succeeds(&chart);
    assert!(std::fs::read(stem.with_extension("png")).unwrap()[1..4] == *b"PNG");
}

/// `verify --manifest` and `manifest --update` read a regular file of bounded size:
/// /dev/zero and /dev/urandom are refused at once (before, they grew past 1 GB),
/// and a FIFO standing under a listed table's name is refused, not waited on.
#[test]
fn manifests_are_read_bounded_and_fifos_among_the_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    tables(dir.path(), "3x3", "3");
    for dev in ["/dev/zero", "/dev/urandom"] {
        let err = fails(&["verify", "--dir", d, "--manifest", dev]);
        assert!(err.contains("not a regular file"), "{err}");
        let err = fails(&["manifest", "--dir", d, "--update", dev]);
        assert!(err.contains("not a regular file"), "{err}");
    }
    let manifest = dir.path().join("tables.manifest");
    std::fs::write(&manifest, succeeds(&["manifest", "--dir", d])).unwrap();
    let m = manifest.to_str().unwrap();
    succeeds(&["verify", "--dir", d, "--manifest", m]);
    let table = dir.path().join("3x3/1v2.fntb");
    std::fs::remove_file(&table).unwrap();
    mkfifo(&table);
    let out = fanotb()
        .args(["verify", "--dir", d, "--manifest", m])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("3x3/1v2.fntb: not a regular file: not read"),
        "{text}"
    );
}

/// Runs `fanotb ARGS` with /dev/zero (or another endless file) on stdin under a
/// 2 GiB address-space limit: it must end with an error naming the line, not grow
/// until killed (before: "memory allocation of 2147483648 bytes failed", signal 6).
fn endless_stdin(args: &[&str], input: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("fanotb");
    let mut child = StdCommand::new("bash")
        .arg("-c")
        .arg(r#"ulimit -v 2097152; exec "$@""#)
        .arg("bash")
        .arg(bin)
        .args(args)
        .stdin(std::fs::File::open(input).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{args:?} on {input}: still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{args:?} on {input}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    err
}

#[test]
fn endless_lines_on_standard_input_are_refused_with_their_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    tables(dir.path(), "3x3", "3");
    let err = endless_stdin(&["probe", "-", "--dir", d], "/dev/zero");
    assert!(err.contains("line 1: longer than 65536 bytes"), "{err}");
    let err = endless_stdin(&["game", "1B1/3/W1W w", "--dir", d], "/dev/zero");
    assert!(err.contains("line 1: longer than 65536 bytes"), "{err}");
    let err = endless_stdin(&["analyse", "-", "--dir", d], "/dev/zero");
    assert!(err.contains("longer than"), "{err}");
    // A long line after good ones is named by its number.
    let lines = dir.path().join("lines");
    let mut text = "1B1/3/W1W w\n".repeat(3);
    text.push_str(&"x".repeat(70_000));
    std::fs::write(&lines, text).unwrap();
    let err = endless_stdin(&["probe", "-", "--dir", d], lines.to_str().unwrap());
    assert!(err.contains("line 4: longer than 65536 bytes"), "{err}");
}

/// A certificate of many distinct positions is checked in memory that follows its
/// positions, not several times over: the payload is parsed as it is decompressed,
/// the sorted entries are their own index, and only a win keeps a graph. 300,000
/// positions took about 131 MB before (437 bytes a position), now about 30 MB; the
/// check runs here under a 100 MB data limit and fails where the proof does, at its
/// first position's move, not for want of memory.
#[test]
fn a_large_certificate_is_checked_in_memory_that_follows_its_positions() {
    use fanotb::{Board, Certificate, Claim, Color, Entry, Part, Position, Proves};
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(9, 5).unwrap();
    let start = Position::start(board);
    let mut entries = vec![Entry {
        position: start,
        mv: Some("d2-e3A".into()),
    }];
    let mut i = 0u64;
    while entries.len() < 300_000 {
        let (white, black) = ((i % (1 << 20)) | (1 << 20), ((i >> 20) | 1) << 27);
        i += 1;
        if let Ok(position) = Position::new(board, white, black, Color::White) {
            entries.push(Entry {
                position,
                mv: Some("a1-b2".into()),
            });
        }
    }
    entries.sort_by_key(|e| {
        let turn = (e.position.turn() == Color::Black) as u64;
        (e.position.white() | turn << 63, e.position.black())
    });
    let cert = Certificate {
        root: start,
        proves: Proves::Lemma(Color::White, Claim::NotLose),
        max_table_stones: 7,
        tables: vec![],
        parts: vec![Part {
            side: Color::White,
            claim: Claim::NotLose,
            entries,
        }],
        lemmas: vec![],
    };
    let file = dir.path().join("big.fnproof");
    cert.write(&file).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("fanotb");
    let out = StdCommand::new("bash")
        .arg("-c")
        .arg(r#"ulimit -d 102400; exec "$@""#)
        .arg("bash")
        .arg(bin)
        .args(["check-proof", file.to_str().unwrap(), "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("illegal move `a1-b2`"), "{err}");
}

/// The fuzzer's finding in lemma packs (fuzz/artifacts, the `pack` target): a pack
/// whose only segment is cut short holds no lemma; `check-proof` of it panicked
/// (an index into no certificates), now it says so and exits non-zero.
#[test]
fn a_pack_of_no_lemma_is_refused_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("x.fnpack");
    let bytes = b"FNLPACK\n\x01\x00\x00\x00\x00\x00\x00\x36\x00\x00\x01\xa8";
    std::fs::write(&pack, bytes).unwrap();
    let err = fails(&[
        "check-proof",
        pack.to_str().unwrap(),
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        err.contains("a pack of no lemma, nothing to check"),
        "{err}"
    );
}

/// The lemma tools on a directory with no lemma did nothing of what was asked: a
/// clear error, a non-zero exit, and no empty pack left behind.
#[test]
fn lemma_tools_on_no_lemma_fail_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(fails(&["pack-lemmas", d]).contains("nothing packed"));
    let out = dir.path().join("out");
    let err = fails(&["recode-lemmas", d, "--out", out.to_str().unwrap()]);
    assert!(
        err.contains("no lemma in the directory: nothing rewritten"),
        "{err}"
    );
    assert!(!out.exists());
}

/// `bundle-proof` refuses a link planted at its output, and never writes the file
/// it points to; `check-proof` of a FIFO or a device named as a bundle is refused
/// at once.
#[test]
fn bundles_are_never_written_through_links_nor_read_from_fifos() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cert = dir.path().join("3x3.fnproof");
    let c = cert.to_str().unwrap();
    succeeds(&[
        "prove",
        "3x3",
        "--max-table-stones",
        "4",
        "--dir",
        d,
        "--out",
        c,
    ]);
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let out = dir.path().join("start.fnproof");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    let o = out.to_str().unwrap();
    let err = fails(&["bundle-proof", c, "--lemmas", d, "--out", o]);
    assert!(err.contains("not replaced"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    std::fs::remove_file(&out).unwrap();
    // A directory that is not there is named, not the temporary file in it.
    let lost = dir.path().join("nodir/x.fnproof");
    let err = fails(&[
        "bundle-proof",
        c,
        "--lemmas",
        d,
        "--out",
        lost.to_str().unwrap(),
    ]);
    assert!(
        err.contains("nodir does not exist") && !err.contains("fnproof."),
        "{err}"
    );
    succeeds(&["bundle-proof", c, "--lemmas", d, "--out", o]);
    assert!(succeeds(&["check-proof", o, "--dir", d]).contains("win for White to move"));
    let fifo = dir.path().join("fifo.fnproof");
    mkfifo(&fifo);
    let err = fails(&["check-proof", fifo.to_str().unwrap(), "--dir", d]);
    assert!(err.contains("not a regular file"), "{err}");
    let dev = dir.path().join("dev.fnproof");
    device(&dev);
    fails(&["check-proof", dev.to_str().unwrap(), "--dir", d]);
}
