//! Crafted table files: well-formed enough to pass every checksum (the checksums are
//! recomputed), wrong in their counts. Each must be a clear error naming the file,
//! with no panic, no abort and no large allocation, from every reader; `generate`
//! must rebuild over it.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use fanotb::internals::table_path;
use fanotb::{Board, Options, Position, Signature, Tablebase, generate, verify};
use xxhash_rust::xxh3::xxh3_64;

/// Records the largest single allocation, so a test can assert that no crafted
/// count made a reader allocate from it.
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

const MIB: usize = 1 << 20;

/// The parts of a table file, to be written out with fresh checksums.
struct Parts {
    header: [u8; 128],
    /// Per block: (value stream bytes, depth stream bytes).
    blocks: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Parts {
    /// Splits a real table file.
    fn read(bytes: &[u8]) -> Parts {
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        let entries = u64_at(24);
        let per = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as u64;
        let n = entries.div_ceil(per) as usize;
        let off = |s: usize, i: usize| u64_at(128 + s * 8 * (n + 1) + 8 * i) as usize;
        let blocks = (0..n)
            .map(|b| {
                (
                    bytes[off(0, b)..off(0, b + 1)].to_vec(),
                    bytes[off(1, b)..off(1, b + 1)].to_vec(),
                )
            })
            .collect();
        Parts {
            header: bytes[..128].try_into().unwrap(),
            blocks,
        }
    }

    fn set_u32(&mut self, at: usize, v: u32) {
        self.header[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn set_u64(&mut self, at: usize, v: u64) {
        self.header[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// The file, laid out as docs/FORMAT.md says, every checksum recomputed.
    fn write(&self) -> Vec<u8> {
        let n = self.blocks.len();
        let mut f = self.header.to_vec();
        let dir_end = 128 + 32 * n + 16;
        let mut at = (dir_end + 8) as u64;
        let mut offsets = [vec![], vec![]];
        for (s, o) in offsets.iter_mut().enumerate() {
            for b in &self.blocks {
                o.push(at);
                at += if s == 0 { b.0.len() } else { b.1.len() } as u64;
            }
            o.push(at);
        }
        for o in &offsets {
            for x in o {
                f.extend_from_slice(&x.to_le_bytes());
            }
        }
        for s in 0..2 {
            for b in &self.blocks {
                let data = if s == 0 { &b.0 } else { &b.1 };
                f.extend_from_slice(&xxh3_64(data).to_le_bytes());
            }
        }
        let dir_sum = xxh3_64(&f);
        f.extend_from_slice(&dir_sum.to_le_bytes());
        for s in 0..2 {
            for b in &self.blocks {
                f.extend_from_slice(if s == 0 { &b.0 } else { &b.1 });
            }
        }
        let whole = xxh3_64(&f);
        f.extend_from_slice(&whole.to_le_bytes());
        f.extend_from_slice(b"FNTBEND\n");
        f
    }
}

fn sig(s: &str) -> Signature {
    s.parse().unwrap()
}

/// A directory with every tsivy table up to 3 stones.
fn tables() -> tempfile::TempDir {
    common::tables(Board::tsivy(), 3)
}

/// Every reader meets `path` (holding the table `s`) and must fail clearly, naming
/// the file, allocating nothing large; then `generate` rebuilds it when it is a
/// table the build plan covers.
fn assert_refused(dir: &Path, path: &Path, s: Signature, probe_at: Option<&str>) {
    let name = path.file_name().unwrap().to_str().unwrap();
    LARGEST.store(0, Relaxed);
    let tb = Tablebase::open(dir).unwrap();
    let listed = tb.tables().unwrap_err().to_string();
    assert!(listed.contains(name), "tables(): {listed}");
    if let Some(text) = probe_at {
        let pos: Position = text.parse().unwrap();
        let e = common::plain(&tb, &pos).unwrap_err().to_string();
        assert!(e.contains(name), "probe: {e}");
        let e = tb
            .value(&pos, fanotb::Rules::PLAIN)
            .unwrap_err()
            .to_string();
        assert!(e.contains(name), "value: {e}");
    }
    let e = verify(&tb, &[s], None, |_| {}).unwrap_err().to_string();
    assert!(e.contains(name), "verify: {e}");
    assert!(
        LARGEST.load(Relaxed) < 64 * MIB,
        "a reader allocated {} bytes",
        LARGEST.load(Relaxed)
    );
    if s.stones() <= 3 {
        let built = generate(dir, Board::tsivy(), &[s], &Options::default(), |_| {}).unwrap();
        let own = built.iter().find(|r| r.sig == s).unwrap();
        assert!(!own.skipped, "{s} was taken as complete");
        let pos: Position = probe_at.unwrap().parse().unwrap();
        Tablebase::open(dir)
            .unwrap()
            .probe(&pos, fanotb::Rules::PLAIN)
            .unwrap();
    } else {
        std::fs::remove_file(path).unwrap();
    }
}

/// A 1v1 position and a 2v1 one of tsivy.
const P1V1: &str = "9/9/4W4/9/B8 w";
const P2V1: &str = "9/9/3WW4/9/B8 w";

fn path_of(dir: &Path, s: &str) -> PathBuf {
    table_path(dir, Board::tsivy(), fanotb::TableKind::Plain, sig(s))
}

#[test]
fn a_wrapping_directory_length_is_refused() {
    let dir = tables();
    let path = path_of(dir.path(), "1v1");
    // The 168-byte file of the report: 4 entries a block, 2^61 entries.
    let mut f = std::fs::read(&path).unwrap()[..128].to_vec();
    f[20..24].copy_from_slice(&4u32.to_le_bytes());
    f[24..32].copy_from_slice(&(1u64 << 61).to_le_bytes());
    f.extend_from_slice(&[0; 16]);
    let sum = xxh3_64(&f);
    f.extend_from_slice(&sum.to_le_bytes());
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(b"FNTBEND\n");
    assert_eq!(f.len(), 168);
    std::fs::write(&path, &f).unwrap();
    assert_refused(dir.path(), &path, sig("1v1"), Some(P1V1));
}

#[test]
fn counts_that_do_not_fit_the_signature_are_refused() {
    let dir = tables();
    for s in ["1v1", "2v1"] {
        let path = path_of(dir.path(), s);
        let real = Parts::read(&std::fs::read(&path).unwrap());
        let probe_at = if s == "1v1" { P1V1 } else { P2V1 };
        // No entries at all.
        let mut p = Parts {
            header: real.header,
            blocks: vec![],
        };
        p.set_u64(24, 0);
        std::fs::write(&path, p.write()).unwrap();
        assert_refused(dir.path(), &path, sig(s), Some(probe_at));
        // 2^40 entries in 257 empty blocks.
        let mut p = Parts {
            header: real.header,
            blocks: vec![(vec![], vec![]); 257],
        };
        p.set_u32(20, ((1u64 << 40) / 256) as u32 & !3);
        p.set_u64(24, 1 << 40);
        std::fs::write(&path, p.write()).unwrap();
        assert_refused(dir.path(), &path, sig(s), Some(probe_at));
    }
}

#[test]
fn a_decompression_bomb_is_refused() {
    let dir = tables();
    let path = path_of(dir.path(), "1v1");
    let real = Parts::read(&std::fs::read(&path).unwrap());
    // 2^32 - 4 entries whose one value block is 256 MiB of zeros (all draws): the
    // report's bomb had 1 GiB; any size above the allocation bound makes the point.
    let zeros = vec![0u8; 1 << 28];
    let bomb = zstd::bulk::compress(&zeros, 3).unwrap();
    drop(zeros);
    let mut p = Parts {
        header: real.header,
        blocks: vec![(bomb, vec![])],
    };
    p.set_u32(20, u32::MAX - 3);
    p.set_u64(24, (1u64 << 32) - 4);
    std::fs::write(&path, p.write()).unwrap();
    assert_refused(dir.path(), &path, sig("1v1"), Some(P1V1));
}

#[test]
fn signatures_beyond_the_board_are_refused() {
    let dir = tables();
    let real = Parts::read(&std::fs::read(path_of(dir.path(), "2v1")).unwrap());
    for s in ["22v1", "40v10"] {
        let path = path_of(dir.path(), s);
        let mut p = Parts {
            header: real.header,
            blocks: real.blocks.clone(),
        };
        p.header[14] = sig(s).us;
        p.header[15] = sig(s).them;
        std::fs::write(&path, p.write()).unwrap();
        assert_refused(dir.path(), &path, sig(s), None);
    }
}

#[test]
fn header_statistics_that_do_not_add_up_are_refused() {
    let dir = tables();
    let path = path_of(dir.path(), "2v1");
    let real = Parts::read(&std::fs::read(&path).unwrap());
    // The longest win at entry u64::MAX.
    let mut p = Parts {
        header: real.header,
        blocks: real.blocks.clone(),
    };
    p.set_u64(72, u64::MAX);
    std::fs::write(&path, p.write()).unwrap();
    assert_refused(dir.path(), &path, sig("2v1"), Some(P2V1));
    // Totals moved from wins to losses: they still add up, so only the decoded
    // entries can tell; `verify` does.
    let real = Parts::read(&std::fs::read(&path).unwrap());
    let mut p = Parts {
        header: real.header,
        blocks: real.blocks.clone(),
    };
    let wins = u64::from_le_bytes(p.header[40..48].try_into().unwrap());
    let losses = u64::from_le_bytes(p.header[56..64].try_into().unwrap());
    p.set_u64(40, wins - 8);
    p.set_u64(56, losses + 8);
    std::fs::write(&path, p.write()).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let reports = verify(&tb, &[sig("2v1")], None, |_| {}).unwrap();
    let e = reports[0].stats_error.as_deref().unwrap();
    assert!(e.contains("header statistics"), "{e}");
}

#[test]
fn a_damaged_header_is_damage_not_a_foreign_table() {
    let dir = tables();
    let path = path_of(dir.path(), "2v1");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[13] ^= 0x10; // height 5 -> 21
    std::fs::write(&path, &bytes).unwrap();
    let pos: Position = P2V1.parse().unwrap();
    let e = Tablebase::open(dir.path())
        .unwrap()
        .probe(&pos, fanotb::Rules::PLAIN)
        .unwrap_err()
        .to_string();
    assert!(e.contains("corrupted") && !e.contains("holds"), "{e}");
}

#[cfg(unix)]
#[test]
fn names_that_are_not_regular_files_are_refused_without_hanging() {
    let dir = tables();
    let path = path_of(dir.path(), "1v1");
    std::fs::remove_file(&path).unwrap();
    let pos: Position = P1V1.parse().unwrap();
    let probe = || {
        Tablebase::open(dir.path())
            .unwrap()
            .probe(&pos, fanotb::Rules::PLAIN)
            .unwrap_err()
            .to_string()
    };
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(probe().contains("not a regular file"), "{}", probe());
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert!(probe().contains("not a regular file"), "{}", probe());
    std::fs::remove_dir(&path).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &path).unwrap();
    assert!(probe().contains("symbolic link to nothing"), "{}", probe());
}

/// The class sidecars `generate` writes answer as the class tables built without
/// them; a damaged one is not used; a crafted one that passes the checks (a
/// representative moved within its word, counts and checksum redone) never makes a
/// reader panic, and `verify` names it.
#[test]
fn class_sidecars_answer_as_the_built_class_tables() {
    let dir = tables();
    let sub = dir.path().join("9x5");
    let sidecar = sub.join("2v1.classes");
    assert!(sidecar.is_file() && sub.join("1v1.classes").is_file());
    let all: Vec<Position> = {
        let idx = fanotb::internals::Indexer::new(Board::tsivy(), sig("2v1"));
        (0..idx.size())
            .map(|i| {
                let (us, them) = idx.unrank(i);
                Position::from_sides(Board::tsivy(), us, them, fanotb::Color::White)
            })
            .collect()
    };
    let answers = |dir: &Path| -> Vec<String> {
        let tb = Tablebase::open(dir).unwrap();
        all.iter()
            .map(|p| {
                format!(
                    "{:?}",
                    tb.probe(p, fanotb::Rules::PLAIN).map_err(|e| e.to_string())
                )
            })
            .collect()
    };
    let mapped = answers(dir.path());
    let good = std::fs::read(&sidecar).unwrap();
    std::fs::remove_file(&sidecar).unwrap();
    assert_eq!(answers(dir.path()), mapped, "built, without the sidecar");
    // Damaged: not used.
    let mut damaged = good.clone();
    damaged[60] ^= 0x10;
    std::fs::write(&sidecar, &damaged).unwrap();
    assert_eq!(answers(dir.path()), mapped, "a damaged sidecar is ignored");
    // Crafted: the lowest representative of a word moved to the bit below it.
    let mut crafted = good.clone();
    let w = (48..crafted.len() - 8)
        .step_by(8)
        .find(|&at| {
            let word = u64::from_le_bytes(crafted[at..at + 8].try_into().unwrap());
            word != 0 && word.trailing_zeros() > 0
        })
        .unwrap();
    let word = u64::from_le_bytes(crafted[w..w + 8].try_into().unwrap());
    let low = word & word.wrapping_neg();
    crafted[w..w + 8].copy_from_slice(&(word ^ low ^ (low >> 1)).to_le_bytes());
    let n = crafted.len() - 8;
    let sum = xxh3_64(&crafted[..n]);
    crafted[n..].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&sidecar, &crafted).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    for p in &all {
        let _ = tb.probe(p, fanotb::Rules::PLAIN);
        let _ = tb.moves(p, fanotb::Rules::PLAIN);
    }
    let e = verify(&tb, &[sig("2v1")], Some(10), |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2v1.classes") && e.contains("not the class table"),
        "{e}"
    );
}
