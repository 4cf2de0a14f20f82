//! Checksum manifests: written from built tables, checked against directories
//! (matching, damaged, truncated, missing, extra files), read back, refused when
//! malformed; and the committed manifest against freshly built small tables.

mod common;

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use fanotb::{Board, Difference, Manifest, Tablebase};
use xxhash_rust::xxh3::xxh3_64;

fn fanotb() -> Command {
    Command::cargo_bin("fanotb").unwrap()
}

/// `fanotb ARGS`: its exit status and what it printed on stdout and stderr.
fn run(args: &[&str]) -> (bool, String) {
    let out = fanotb().args(args).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("panicked"), "{text}");
    (out.status.success(), text)
}

/// SHA-256 by coreutils' `sha256sum`, an implementation the library does not share.
fn sha256sum(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn a_manifest_lists_every_table_with_checksums_users_can_recompute() {
    let dir = common::tables(Board::get(3, 3).unwrap(), 5);
    let m = Manifest::of_dir(dir.path()).unwrap();
    assert_eq!(m.entries.len(), 10, "1v1 to 4v1");
    let tb = Tablebase::open(dir.path()).unwrap();
    let tables = tb.tables().unwrap();
    assert_eq!(tables.len(), m.entries.len());
    for t in tables {
        let name = format!("3x3/{}.fntb", t.signature);
        let e = m.entries.iter().find(|e| e.path == name).unwrap();
        let path = dir.path().join(&e.path);
        assert_eq!(e.bytes, std::fs::metadata(&path).unwrap().len());
        let hex: String = e.sha256.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, sha256sum(&path), "{}", e.path);
        // The whole-file checksum of docs/FORMAT.md: xxh3 of every byte before
        // end-16, stored there.
        let bytes = std::fs::read(&path).unwrap();
        let body = bytes.len() - 16;
        assert_eq!(e.xxh3, xxh3_64(&bytes[..body]), "{}", e.path);
        assert_eq!(e.xxh3.to_le_bytes(), bytes[body..body + 8], "{}", e.path);
    }
    // The text reads back to the same manifest, and the command prints that text.
    let text = m.to_string();
    assert_eq!(text.parse::<Manifest>().unwrap(), m);
    let d = dir.path().to_str().unwrap();
    let (ok, printed) = run(&["manifest", "--dir", d]);
    assert!(ok);
    assert_eq!(printed, text);
    assert!(m.check(dir.path(), true).unwrap().differences.is_empty());
}

#[test]
fn every_difference_is_named_and_fails_the_check() {
    let dir = common::tables(Board::get(3, 3).unwrap(), 4);
    let d = dir.path().to_str().unwrap();
    let file = dir.path().join("tables.manifest");
    std::fs::write(&file, Manifest::of_dir(dir.path()).unwrap().to_string()).unwrap();
    let f = file.to_str().unwrap();
    let (ok, out) = run(&["verify", "--manifest", f, "--dir", d]);
    assert!(ok, "{out}");
    assert!(out.contains("6 files match the manifest"), "{out}");

    let t = |name: &str| dir.path().join("3x3").join(name);
    // A flipped byte: the file's own checksum no longer holds.
    let mut bytes = std::fs::read(t("2v2.fntb")).unwrap();
    bytes[200] ^= 1;
    std::fs::write(t("2v2.fntb"), &bytes).unwrap();
    // A truncated file, a missing one and an extra one.
    let short = std::fs::read(t("1v3.fntb")).unwrap();
    std::fs::write(t("1v3.fntb"), &short[..short.len() - 1]).unwrap();
    std::fs::remove_file(t("1v1.fntb")).unwrap();
    std::fs::write(t("9v9.fntb"), b"not a table").unwrap();
    let m: Manifest = std::fs::read_to_string(&file).unwrap().parse().unwrap();
    let check = m.check(dir.path(), false).unwrap();
    let kinds: Vec<(&str, &Difference)> = check
        .differences
        .iter()
        .map(|(p, d)| (p.as_str(), d))
        .collect();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    assert_eq!(kinds[0], ("3x3/1v1.fntb", &Difference::Missing));
    assert!(
        matches!(kinds[1], ("3x3/1v3.fntb", Difference::Different(w)) if w.contains("bytes, the manifest says"))
    );
    assert!(
        matches!(kinds[2], ("3x3/2v2.fntb", Difference::Different(w)) if w.starts_with("damaged"))
    );
    assert_eq!(kinds[3], ("3x3/9v9.fntb", &Difference::Extra));
    assert_eq!(check.matching.len(), 3);
    let (ok, out) = run(&["verify", "--manifest", f, "--dir", d]);
    assert!(!ok);
    assert!(
        out.contains("error: 2 files differ from the manifest: 3x3/1v3.fntb, 3x3/2v2.fntb"),
        "{out}"
    );
    // Missing and extra files alone pass with --partial; different ones never do.
    std::fs::remove_file(t("1v3.fntb")).unwrap();
    std::fs::remove_file(t("2v2.fntb")).unwrap();
    let (ok, out) = run(&["verify", "--manifest", f, "--dir", d]);
    assert!(
        !ok && out.contains("are not in the manifest (--partial if expected)"),
        "{out}"
    );
    let (ok, out) = run(&[
        "verify",
        "--manifest",
        f,
        "--dir",
        d,
        "--partial",
        "--sha256",
    ]);
    assert!(ok, "{out}");
    assert!(out.contains("3 files match the manifest"), "{out}");
}

#[test]
fn a_manifest_is_updated_with_tables_built_elsewhere_and_keeps_the_rest() {
    let board = Board::get(3, 3).unwrap();
    let (small, large) = (common::tables(board, 4), common::tables(board, 5));
    let whole = Manifest::of_dir(large.path()).unwrap();
    // Built a few tables at a time: the 4-stone ones' manifest, then the 5-stone
    // directory's tables added, is the whole directory's manifest.
    let mut m = Manifest::of_dir(small.path()).unwrap();
    assert_eq!(m.update(&whole).unwrap(), 4, "2v3, 3v2, 1v4, 4v1");
    assert_eq!(m, whole);
    // Tables absent from the directory keep their rows; nothing is added twice.
    let mut kept = whole.clone();
    assert_eq!(
        kept.update(&Manifest::of_dir(small.path()).unwrap())
            .unwrap(),
        0
    );
    assert_eq!(kept, whole);
    // The command prints the merged text.
    let file = small.path().join("small.manifest");
    std::fs::write(&file, Manifest::of_dir(small.path()).unwrap().to_string()).unwrap();
    let (f, d) = (file.to_str().unwrap(), large.path().to_str().unwrap());
    let (ok, out) = run(&["manifest", "--dir", d, "--update", f]);
    assert!(ok, "{out}");
    assert_eq!(out, whole.to_string());
    // A table built here that is not the manifest's file is refused, by name.
    let mut wrong = whole.clone();
    wrong.entries[2].xxh3 ^= 1;
    let err = wrong.update(&whole).unwrap_err().to_string();
    assert!(err.starts_with("3x3/1v3.fntb: xxh3 "), "{err}");
    std::fs::write(&file, wrong.to_string()).unwrap();
    let (ok, out) = run(&["manifest", "--dir", d, "--update", f]);
    assert!(!ok && out.contains("tables are deterministic"), "{out}");
    // So is a manifest of another version, which is made anew.
    let mut other = whole.clone();
    other.writer = "fanotb 0.0.9, table format 1, index scheme 1".into();
    let err = other.update(&whole).unwrap_err().to_string();
    assert!(err.contains("written by fanotb 0.0.9"), "{err}");
}

#[test]
fn malformed_manifests_are_refused_with_the_line() {
    let head = "# fanotb table manifest: written by test\n";
    let sha = "0".repeat(64);
    let bad = |body: &str| {
        format!("{head}{body}")
            .parse::<Manifest>()
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad(&format!("../x.fntb\t1\t{:016x}\t{sha}\n", 0)),
        "manifest line 2: \"../x.fntb\" is not a table path under the directory"
    );
    assert_eq!(
        bad(&format!("/etc/x.fntb\t1\t{:016x}\t{sha}\n", 0)),
        "manifest line 2: \"/etc/x.fntb\" is not a table path under the directory"
    );
    assert_eq!(
        bad("a.fntb\t1\tzz\tyy\n"),
        "manifest line 2: \"zz\" is not 16 hex digits"
    );
    assert_eq!(
        bad("a.fntb\t1\n"),
        "manifest line 2: 2 fields, not 4 (path, bytes, xxh3, sha256)"
    );
    let line = format!("a.fntb\t1\t{:016x}\t{sha}\n", 0);
    assert_eq!(
        bad(&line.repeat(2)),
        "manifest line 3: a.fntb is out of order or listed twice"
    );
    assert!(
        "not a manifest"
            .parse::<Manifest>()
            .unwrap_err()
            .to_string()
            .starts_with("manifest line 1:")
    );
}

/// The committed manifest (docs/MANIFEST.tsv) against tables built here and now:
/// the small boards whole and tsivy up to 4 stones, byte for byte.
#[test]
fn the_committed_manifest_matches_freshly_built_small_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for args in [
        &["solve", "3x3", "--dir", d][..],
        &["solve", "5x3", "--dir", d],
        &["generate", "--max-stones", "4", "--dir", d],
        &[
            "generate",
            "--board",
            "dimy",
            "--max-stones",
            "4",
            "--dir",
            d,
        ],
    ] {
        let (ok, out) = run(args);
        assert!(ok, "{args:?}: {out}");
    }
    let built = Manifest::of_dir(dir.path()).unwrap().entries.len();
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/MANIFEST.tsv");
    let (ok, out) = run(&["verify", "--manifest", manifest, "--dir", d, "--partial"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("{built} files match the manifest")),
        "{built}: {out}"
    );
    assert!(out.contains(" 0 different, "), "{out}");
}
