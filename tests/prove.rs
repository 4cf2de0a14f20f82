//! The proof search against the tables, and the checker against tampering.

mod common;

use std::path::{Path, PathBuf};

use common::Rng;
use fanotb::Signature;
use fanotb::Tablebase;
use fanotb::Wdl;
use fanotb::internals::ValueTables;
use fanotb::internals::needed_tables;
use fanotb::{Board, Color, Position};
use fanotb::{Certificate, Entry, Part, Proves};
use fanotb::{CheckError, CheckOptions, CheckReport};

/// `check-proof` as by default: the certificate against the tables by checksum.
fn check(file: &Path, dir: &Path) -> Result<CheckReport, CheckError> {
    fanotb::check_proof(file, dir, &CheckOptions::default())
}
use fanotb::{Claim, Lemmas, Limits, ProveOptions, Proved, prove};
use fanotb::{Options, generate};

fn opts(k: usize) -> ProveOptions {
    let mut o = ProveOptions::default();
    o.max_table_stones = k;
    o.threads = Some(2);
    o.limits = Limits::new(50_000_000, 50_000_000);
    o
}

fn run(dir: &Path, pos: &Position, k: usize) -> Proved {
    prove(dir, pos, &opts(k), |_| {}, &|_| {}).expect("the proof search decides")
}

/// Proves `pos`, writes and checks the certificate, and returns the value.
fn prove_and_check(dir: &Path, pos: &Position, k: usize) -> (Wdl, Certificate) {
    let proved = run(dir, pos, k);
    let file = dir.join("proof.fnproof");
    proved
        .certificate
        .write(&file)
        .expect("certificate written");
    let report = check(&file, dir).unwrap_or_else(|e| panic!("{pos}: {e}"));
    assert_eq!(report.proves, proved.certificate.proves);
    let value = proved.certificate.proves.value().expect("a value");
    (value, proved.certificate)
}

fn build(dir: &Path, board: &'static Board, max: usize, side: usize) {
    let sigs: Vec<Signature> = Signature::all_up_to(max)
        .into_iter()
        .filter(|s| s.us as usize <= side && s.them as usize <= side)
        .collect();
    generate(dir, board, &sigs, &Options::default(), |_| {}).expect("tables build");
}

/// A random position of `n` stones (each side at least one) whose side to move
/// has a move.
fn random_position(rng: &mut Rng, board: &'static Board, n: usize) -> Position {
    loop {
        let mine = 1 + rng.below(n as u64 - 1) as usize;
        let (us, them) = common::random_stones(rng, board, n, mine);
        let turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let pos = Position::from_sides(board, us, them, turn);
        if !pos.is_lost() {
            return pos;
        }
    }
}

#[test]
fn small_board_starts_agree_with_the_whole_tables() {
    for (w, h) in [(3, 3), (5, 3), (3, 5)] {
        let board = Board::get(w, h).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let start = Position::start(board);
        let (value, cert) = prove_and_check(dir.path(), &start, 4);
        assert_eq!(value, Wdl::Win, "{w}x{h}: the published value");
        assert_eq!(cert.parts.len(), 1);
        assert_eq!(cert.parts[0].claim, Claim::Win);
        // Ground truth: the table of the whole start material.
        let side = start.white().count_ones() as usize;
        build(dir.path(), board, 2 * side, side);
        let tb = Tablebase::open(dir.path()).unwrap();
        assert_eq!(common::plain(&tb, &start).unwrap().wdl(), value, "{w}x{h}");
    }
}

#[test]
fn dimy_start_is_a_draw_with_two_checked_proofs() {
    let dir = tempfile::tempdir().unwrap();
    let (value, cert) = prove_and_check(dir.path(), &Position::start(Board::get(5, 5).unwrap()), 6);
    assert_eq!(value, Wdl::Draw);
    let mut parts: Vec<(Color, Claim)> = cert.parts.iter().map(|p| (p.side, p.claim)).collect();
    parts.sort_by_key(|p| p.0 as u8);
    assert_eq!(
        parts,
        [
            (Color::White, Claim::NotLose),
            (Color::Black, Claim::NotLose)
        ]
    );
}

/// Random positions, proved over small tables, against the tables of their whole
/// material: wins, draws and losses must all occur and all agree.
#[test]
fn random_positions_agree_with_the_tables() {
    let cases = [((5, 3), 8, 4, 40), ((3, 5), 8, 4, 40), ((5, 5), 6, 4, 40)];
    for ((w, h), stones, k, count) in cases {
        let board = Board::get(w, h).unwrap();
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), board, stones, stones - 1);
        let tb = Tablebase::open(dir.path()).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (w * 10 + h) as u64);
        let mut seen = [0; 3];
        for _ in 0..count {
            let n = k + 1 + rng.below((stones - k) as u64) as usize;
            let pos = random_position(&mut rng, board, n);
            let truth = common::plain(&tb, &pos).unwrap().wdl();
            let (value, _) = prove_and_check(dir.path(), &pos, k);
            assert_eq!(value, truth, "{pos} with tables up to {k} stones");
            seen[truth as usize] += 1;
        }
        assert!(
            seen.iter().all(|&n| n > 0),
            "{w}x{h}: {seen:?} (loss, draw, win)"
        );
    }
}

/// Frames `payload` as a certificate file of `version` (docs/PROOF.md), as a forger
/// with the format in hand would.
fn framed(version: u32, payload: &[u8]) -> Vec<u8> {
    let packed = zstd::bulk::compress(payload, 3).unwrap();
    let mut b = b"FNPROOF\n".to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    b.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    b.extend_from_slice(&packed);
    let sum = xxhash_rust::xxh3::xxh3_64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b.extend_from_slice(b"FNPREND\n");
    b
}

/// Version 4 writes a proof as its side's moves: on small boards it reads back as
/// the very certificate written (positions and moves), checks as its version 2 form
/// does (the same positions and moves followed), takes a fraction of the bytes, and
/// a move number changed, a move too many or too few is refused.
#[test]
fn proofs_written_as_moves_read_back_whole_and_check_the_same() {
    for ((w, h), k) in [((3, 3), 4), ((5, 3), 4), ((5, 5), 6)] {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::get(w, h).unwrap();
        let (_, cert) = prove_and_check(dir.path(), &Position::start(board), k);
        let compact = cert.to_bytes();
        let listed = cert.to_listed_bytes();
        assert_eq!(compact[8..12], 4u32.to_le_bytes(), "{w}x{h}: version 4");
        let path = dir.path().join("x.fnproof");
        assert_eq!(Certificate::from_bytes(&path, &compact).unwrap(), cert);
        // Dimy's draw: 932 bytes as moves, 12,968 as positions.
        let ratio = if (w, h) == (5, 5) { 10 } else { 1 };
        assert!(
            compact.len() * ratio < listed.len(),
            "{w}x{h}: {} bytes as moves, {} as positions",
            compact.len(),
            listed.len()
        );
        let (a, b) = (dir.path().join("a.fnproof"), dir.path().join("b.fnproof"));
        std::fs::write(&a, &compact).unwrap();
        std::fs::write(&b, &listed).unwrap();
        let (ra, rb) = (
            check(&a, dir.path()).unwrap(),
            check(&b, dir.path()).unwrap(),
        );
        assert_eq!(
            (ra.positions, ra.moves),
            (rb.positions, rb.moves),
            "{w}x{h}"
        );
        // The payload, tampered: its last move number, one move more, one less.
        let payload = zstd::decode_all(&compact[28..compact.len() - 16]).unwrap();
        let mut last = payload.clone();
        *last.last_mut().unwrap() = 0x7f;
        let mut more = payload.clone();
        more.push(0);
        let fewer = payload[..payload.len() - 1].to_vec();
        for (what, p) in [("move number", last), ("more", more), ("fewer", fewer)] {
            std::fs::write(&a, framed(4, &p)).unwrap();
            let e = check(&a, dir.path()).unwrap_err().to_string();
            assert!(
                e.contains("move number")
                    || e.contains("moves")
                    || e.contains("ends early")
                    || e.contains("bytes after"),
                "{w}x{h} {what}: {e}"
            );
        }
    }
}

/// The check of `cert` written as positions (version 1 or 2: version 4 writes only
/// the moves of a walk, so a tampered order or notation could not be written).
fn rejected(dir: &Path, cert: &Certificate) -> String {
    let file = dir.join("tampered.fnproof");
    std::fs::write(&file, cert.to_listed_bytes()).unwrap();
    match check(&file, dir) {
        Ok(r) => panic!("a tampered certificate passed: {r:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn tampered_certificates_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 3).unwrap();
    let start = Position::start(board);
    let (_, cert) = prove_and_check(dir.path(), &start, 4);
    let part = &cert.parts[0];

    // A changed move: every other first move leaves the proof for the unknown.
    let root = part
        .entries
        .iter()
        .position(|e| e.position == start)
        .unwrap();
    let chosen = part.entries[root].mv.clone().unwrap();
    let target = start.apply(&start.parse_move(&chosen).unwrap());
    let mut changed = 0;
    for mv in start.legal_moves() {
        let text = mv.notation(board);
        if start.apply(&mv) == target {
            continue;
        }
        let mut bad = cert.clone();
        bad.parts[0].entries[root].mv = Some(text);
        let e = rejected(dir.path(), &bad);
        assert!(e.contains(&start.to_string()), "{e}");
        changed += 1;
    }
    assert!(changed > 0);
    let mut bad = cert.clone();
    bad.parts[0].entries[root].mv = Some("a1-a1".into());
    assert!(rejected(dir.path(), &bad).contains("a1-a1"));

    // A missing position: each non-root one in turn.
    for i in (0..part.entries.len()).filter(|&i| i != root) {
        let mut bad = cert.clone();
        bad.parts[0].entries.remove(i);
        let e = rejected(dir.path(), &bad);
        assert!(
            e.contains("neither in the proof nor a table position"),
            "{e}"
        );
    }
    let mut bad = cert.clone();
    bad.parts[0].entries.remove(root);
    assert!(rejected(dir.path(), &bad).contains("the root is not in the proof"));

    // A value the proofs do not support.
    let mut bad = cert.clone();
    bad.proves = Proves::Value(Wdl::Draw);
    assert!(rejected(dir.path(), &bad).contains("claims draw"));

    // A table other than the one proved with.
    let mut bad = cert.clone();
    bad.tables[0].1 ^= 1;
    assert!(matches!(
        check_written(dir.path(), &bad),
        Err(CheckError::TableMismatch { .. })
    ));

    // Every flipped byte of the file.
    let file = dir.path().join("proof.fnproof");
    cert.write(&file).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x20;
        std::fs::write(&file, &b).unwrap();
        assert!(check(&file, dir.path()).is_err(), "byte {i} flipped");
    }
    std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
    assert!(check(&file, dir.path()).is_err());

    // Crafted sizes with a recomputed checksum: a payload claimed larger than it
    // is, and one beyond any proof, are errors before any large allocation.
    for claimed in [1u64 << 31, 1 << 40] {
        let mut b = bytes.clone();
        b[12..20].copy_from_slice(&claimed.to_le_bytes());
        let end = b.len() - 16;
        let sum = xxhash_rust::xxh3::xxh3_64(&b[..end]);
        b[end..end + 8].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&file, &b).unwrap();
        let e = check(&file, dir.path()).unwrap_err().to_string();
        assert!(e.contains("payload"), "{e}");
    }
}

fn check_written(dir: &Path, cert: &Certificate) -> Result<fanotb::CheckReport, CheckError> {
    let file = dir.join("written.fnproof");
    cert.write(&file).unwrap();
    check(&file, dir)
}

/// A cycle offered as a win: White keeps a won position won by shuffling, which is
/// a valid "does not lose" proof but no win. The checker must reject exactly the
/// cycle: the same positions with fastest-win moves pass.
#[test]
fn a_cycle_offered_as_a_win_is_rejected() {
    let board = Board::get(5, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let stones = 5;
    build(dir.path(), board, stones, stones - 1);
    let tb = Tablebase::open(dir.path()).unwrap();
    let k = stones - 1;
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let pos = random_position(&mut rng, board, stones);
        if pos.turn() != Color::White || common::plain(&tb, &pos).unwrap().wdl() != Wdl::Win {
            continue;
        }
        let Some(cycle) = winning_cycle(&tb, &pos, k) else {
            continue;
        };
        let win_tables = |entries| Certificate {
            root: cycle[0],
            proves: Proves::Value(Wdl::Win),
            max_table_stones: k as u8,
            tables: ValueTables::load(dir.path(), board, &needed_tables(&cycle[0], k))
                .unwrap()
                .checksums()
                .to_vec(),
            parts: vec![Part {
                side: Color::White,
                claim: Claim::Win,
                entries,
            }],
            lemmas: vec![],
        };
        let honest = win_tables(closure(&tb, &cycle[0], k, &[]));
        check_written(dir.path(), &honest).expect("fastest wins make a proof");
        let looped = win_tables(closure(&tb, &cycle[0], k, &cycle));
        let e = check_written(dir.path(), &looped).unwrap_err().to_string();
        assert!(e.contains("lies on a cycle"), "{e}");
        // As a "does not lose" proof the cycle is fine.
        let mut draw = looped.clone();
        draw.parts[0].claim = Claim::NotLose;
        draw.proves = Proves::Value(Wdl::Draw);
        draw.parts.push(Part {
            side: Color::Black,
            claim: Claim::NotLose,
            entries: vec![],
        });
        let e = check_written(dir.path(), &draw).unwrap_err().to_string();
        assert!(e.contains("Black does not lose"), "{e}");
        return;
    }
    panic!("no won position with a win-keeping cycle found");
}

/// White positions (White to move, won) in a cycle of win-keeping paikas and Black
/// paikas, all with `k + 1` stones, starting at `pos`; `None` if there is none.
fn winning_cycle(tb: &Tablebase, pos: &Position, k: usize) -> Option<Vec<Position>> {
    let stones = |p: &Position| (p.white() | p.black()).count_ones() as usize;
    // Depth-first over White-to-move positions; an edge is a win-keeping White move
    // followed by any Black reply that keeps the material.
    let mut path = vec![*pos];
    let mut iters: Vec<Vec<Position>> = vec![];
    let next = |p: &Position| -> Vec<Position> {
        let mut v = Vec::new();
        for m in tb.moves(p, fanotb::Rules::PLAIN).unwrap() {
            if m.value.wdl() != Wdl::Win || stones(&m.result) <= k {
                continue;
            }
            for r in m.result.successors() {
                if stones(&r) > k && !v.contains(&r) {
                    v.push(r);
                }
            }
        }
        v
    };
    iters.push(next(pos));
    let mut visited = std::collections::HashSet::new();
    visited.insert(*pos);
    while let Some(top) = iters.last_mut() {
        match top.pop() {
            Some(c) => {
                if c == *pos {
                    return Some(path);
                }
                if visited.insert(c) && path.len() < 12 {
                    path.push(c);
                    iters.push(next(&c));
                }
            }
            None => {
                iters.pop();
                path.pop();
            }
        }
    }
    None
}

/// The closure of a White win strategy from `root`: on `cycle` White plays the
/// move to the next cycle position's predecessor, elsewhere a fastest win.
fn closure(tb: &Tablebase, root: &Position, k: usize, cycle: &[Position]) -> Vec<Entry> {
    let stones = |p: &Position| (p.white() | p.black()).count_ones() as usize;
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![*root];
    seen.insert(*root);
    while let Some(p) = stack.pop() {
        let mut next = Vec::new();
        let mv = if p.turn() == Color::White {
            let moves = tb.moves(&p, fanotb::Rules::PLAIN).unwrap();
            let on = cycle.iter().position(|c| *c == p);
            let m = match on {
                Some(i) => {
                    let target = cycle[(i + 1) % cycle.len()];
                    moves
                        .iter()
                        .find(|m| m.result.successors().contains(&target))
                        .expect("the cycle's move")
                }
                None => &moves[0],
            };
            next.push(m.result);
            Some(m.mv.notation(p.board()))
        } else {
            next.extend(p.successors());
            None
        };
        out.push(Entry { position: p, mv });
        for n in next {
            if stones(&n) > k && !n.is_lost() && seen.insert(n) {
                stack.push(n);
            }
        }
    }
    // In the order docs/PROOF.md gives: White's stones with the side to move in bit
    // 63, then Black's.
    out.sort_by_key(|e| {
        let p = &e.position;
        (
            p.white() | u64::from(p.turn() == Color::Black) << 63,
            p.black(),
        )
    });
    out
}

#[test]
fn an_interrupted_search_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let start = Position::start(Board::get(5, 5).unwrap());
    let prefix = dir.path().join("dimy");
    let with = |max_nodes| {
        let mut o = opts(6);
        o.threads = Some(1);
        o.limits = Limits::new(max_nodes, 50_000_000);
        o.checkpoint = Some(fanotb::CheckpointPlan::new(
            prefix.clone(),
            std::time::Duration::from_secs(3600),
        ));
        o
    };
    let mut without = with(u64::MAX);
    without.checkpoint = None;
    let fresh = prove(dir.path(), &start, &without, |_| {}, &|_| {}).unwrap();
    let e = prove(dir.path(), &start, &with(2_000), |_| {}, &|_| {}).unwrap_err();
    assert!(
        matches!(
            e,
            fanotb::ProveError::Undecided {
                checkpointed: true,
                ..
            }
        ),
        "{e}"
    );
    let white = dir.path().join("dimy.white.ckpt");
    assert!(white.exists());

    // A damaged checkpoint is an error, not a panic or a silent restart.
    let good = std::fs::read(&white).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n / 2] ^= 1;
    std::fs::write(&white, &bad).unwrap();
    let e = prove(dir.path(), &start, &with(u64::MAX), |_| {}, &|_| {}).unwrap_err();
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    std::fs::write(&white, &good).unwrap();

    let resumed = prove(dir.path(), &start, &with(u64::MAX), |_| {}, &|_| {}).unwrap();
    assert_eq!(resumed.certificate.proves, Proves::Value(Wdl::Draw));
    let first = &resumed.searches[0];
    assert!(first.resumed > 0);
    assert!(
        first.nodes < fresh.searches[0].nodes,
        "{} vs {}",
        first.nodes,
        fresh.searches[0].nodes
    );
    assert!(!white.exists(), "a decided search removes its checkpoint");
    let file = dir.path().join("resumed.fnproof");
    resumed.certificate.write(&file).unwrap();
    check(&file, dir.path()).unwrap();
}

/// Hostile certificates that cost nothing to refuse: a device read without end, a
/// compressed payload that would inflate far beyond the file, a table named twice,
/// and roots or positions that are not game positions (a side without stones).
#[test]
fn hostile_certificates_are_refused_cheaply() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(3, 3).unwrap();
    let (_, cert) = prove_and_check(dir.path(), &Position::start(board), 4);

    let e = check(Path::new("/dev/zero"), dir.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a regular file"), "{e}");

    // 16 MiB of zeros compress to a few hundred bytes: refused by the ratio, before
    // anything is decompressed.
    let zeros = vec![0u8; 16 << 20];
    let packed = zstd::bulk::compress(&zeros, 19).unwrap();
    let mut b = b"FNPROOF\n".to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&(zeros.len() as u64).to_le_bytes());
    b.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    b.extend_from_slice(&packed);
    let sum = xxhash_rust::xxh3::xxh3_64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b.extend_from_slice(b"FNPREND\n");
    let file = dir.path().join("bomb.fnproof");
    std::fs::write(&file, &b).unwrap();
    let e = check(&file, dir.path()).unwrap_err().to_string();
    assert!(e.contains("payload size beyond"), "{e}");

    let mut twice = cert.clone();
    twice.tables.push(twice.tables[0]);
    assert!(rejected(dir.path(), &twice).contains("named twice"));

    for root in ["WWW/WWW/WWW w", "3/3/3 w", "3/1W1/3 b"] {
        let mut bad = cert.clone();
        bad.root = root.parse().unwrap();
        let e = rejected(dir.path(), &bad);
        assert!(e.contains("not a game position"), "{root}: {e}");
    }
    let mut bad = cert.clone();
    bad.parts[0].entries[0].position = "3/1B1/3 w".parse().unwrap();
    assert!(rejected(dir.path(), &bad).contains("not a game position"));

    // As strict as docs/PROOF.md: positions in its order, moves exactly as the
    // notation writes them.
    let mut bad = cert.clone();
    bad.parts[0].entries.swap(0, 1);
    assert!(rejected(dir.path(), &bad).contains("out of order"));
    let mut bad = cert.clone();
    let e = bad.parts[0]
        .entries
        .iter_mut()
        .find(|e| e.mv.is_some())
        .unwrap();
    e.mv = Some(format!(" {} ", e.mv.as_deref().unwrap()));
    assert!(rejected(dir.path(), &bad).contains("not written as the notation gives it"));
}

/// A table altered with its checksums recomputed, and a certificate naming the
/// altered file: the default check trusts the table's contents, `verify_tables`
/// re-derives them and refuses it; a certificate naming too few tables to re-derive
/// them is refused too.
#[test]
fn verify_tables_catches_a_table_altered_with_recomputed_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(3, 3).unwrap();
    let (_, mut cert) = prove_and_check(dir.path(), &Position::start(board), 4);
    let strict = {
        let mut o = CheckOptions::default();
        o.verify_tables = true;
        o
    };
    let file = dir.path().join("proof.fnproof");
    cert.write(&file).unwrap();
    let r = fanotb::check_proof(&file, dir.path(), &strict).unwrap();
    assert!(r.tables_verified);

    let sig: fanotb::Signature = "2v1".parse().unwrap();
    let path = fanotb::internals::table_path(dir.path(), board, fanotb::TableKind::Plain, sig);
    let tb = Tablebase::open(dir.path()).unwrap();
    let pos = Position::from_sides(board, 0b11, 1 << 8, Color::White);
    let truth = common::plain(&tb, &pos).unwrap();
    drop(tb);
    let wrong = if truth == fanotb::Outcome::Draw {
        fanotb::Outcome::Win(1)
    } else {
        fanotb::Outcome::Draw
    };
    let idx = fanotb::internals::Indexer::new(board, sig);
    fanotb::internals::set_entry(&path, board, sig, idx.index(0b11, 1 << 8), wrong).unwrap();
    let sum = fanotb::internals::TableFile::open(&path, board, fanotb::TableKind::Plain, sig)
        .unwrap()
        .file_checksum();
    for t in cert.tables.iter_mut().filter(|t| t.0 == sig) {
        t.1 = sum;
    }
    cert.write(&file).unwrap();
    // Found in the altered table or in its pair's other member, whose entries the
    // altered ones no longer support (the tables are checked in signature order).
    let e = fanotb::check_proof(&file, dir.path(), &strict).unwrap_err();
    let pair = [sig, Signature::new(sig.them, sig.us)];
    assert!(
        matches!(e, CheckError::TableWrong { sig: s, mismatches, .. } if pair.contains(&s) && mismatches >= 1),
        "{e}"
    );

    cert.tables.retain(|t| t.0 != "1v1".parse().unwrap());
    cert.write(&file).unwrap();
    let e = fanotb::check_proof(&file, dir.path(), &strict).unwrap_err();
    assert!(e.to_string().contains("reads 1v1"), "{e}");
}

/// `check-proof --lemmas DIR`.
fn check_with(file: &Path, dir: &Path, lemmas: &Path) -> Result<CheckReport, CheckError> {
    let mut o = CheckOptions::default();
    o.lemmas = Some(lemmas.into());
    fanotb::check_proof(file, dir, &o)
}

/// Proves `pos` with the lemmas of `lemmas` as leaves, and writes its own lemmas
/// there, as `prove --lemmas` does.
fn prove_into(dir: &Path, lemmas: &Path, pos: &Position, k: usize) -> Proved {
    let mut o = opts(k);
    o.lemmas = Some(lemmas.into());
    let proved = prove(dir, pos, &o, |_| {}, &|_| {}).expect("the proof search decides");
    proved
        .certificate
        .write_lemmas(lemmas)
        .expect("lemmas written");
    proved
}

/// The distinct positions `depth` plies from `root`, sorted.
fn positions_at(root: &Position, depth: usize) -> Vec<Position> {
    let mut level = vec![*root];
    for _ in 0..depth {
        let mut next: Vec<Position> = level.iter().flat_map(|p| p.successors()).collect();
        next.sort_by_key(|p| (p.white(), p.black(), p.turn() as u8));
        next.dedup();
        level = next;
    }
    level
}

/// Composed proofs: the positions two plies and then one ply from the start proved
/// as lemmas (the deeper ones leaves of the shallower searches), then the start
/// over them. The composed certificate checks with the lemma directory, names the
/// lemmas it needs without it, and agrees with the value proved without lemmas and
/// the published one (5x3 a win, 5x5 a draw). A search over a directory that holds
/// only some of the lemmas (a run stopped part-way) also gives a checked proof.
#[test]
fn composed_proofs_check_and_agree_with_the_whole_proofs() {
    for ((w, h), k, published) in [((5, 3), 4, Wdl::Win), ((5, 5), 6, Wdl::Draw)] {
        let board = Board::get(w, h).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let start = Position::start(board);
        let (whole, _) = prove_and_check(dir.path(), &start, k);
        assert_eq!(whole, published, "{w}x{h}");

        // Part of the work: one position one ply deep, then the start over it.
        let partial = dir.path().join("partial");
        let first = positions_at(&start, 1);
        prove_into(dir.path(), &partial, &first[0], k);
        let p = prove_into(dir.path(), &partial, &start, k);
        let file = dir.path().join("partial.fnproof");
        p.certificate.write(&file).unwrap();
        let r = check_with(&file, dir.path(), &partial).unwrap();
        assert_eq!(r.proves, Proves::Value(published), "{w}x{h} partial");

        let lemmas = dir.path().join("lemmas");
        let mut deeper = 0;
        for depth in [2, 1] {
            for pos in positions_at(&start, depth) {
                if pos.legal_moves().is_empty() || pos.side_without_stones().is_some() {
                    continue;
                }
                let proved = prove_into(dir.path(), &lemmas, &pos, k);
                let value = proved.certificate.proves.value().unwrap();
                let file = dir.path().join("sub.fnproof");
                proved.certificate.write(&file).unwrap();
                let r =
                    check_with(&file, dir.path(), &lemmas).unwrap_or_else(|e| panic!("{pos}: {e}"));
                assert_eq!(r.proves, Proves::Value(value));
                if depth == 1 {
                    deeper += proved.certificate.lemmas.len();
                }
            }
        }
        assert!(deeper > 0, "{w}x{h}: no one-ply proof used a two-ply lemma");
        let proved = prove_into(dir.path(), &lemmas, &start, k);
        assert_eq!(proved.certificate.proves, Proves::Value(published));
        assert!(!proved.certificate.lemmas.is_empty());
        let file = dir.path().join("root.fnproof");
        proved.certificate.write(&file).unwrap();
        let r = check_with(&file, dir.path(), &lemmas).unwrap();
        assert_eq!(r.proves, Proves::Value(published), "{w}x{h}");
        assert!(r.lemmas >= proved.certificate.lemmas.len());
        let e = check(&file, dir.path()).unwrap_err();
        assert!(
            matches!(e, CheckError::LemmaMissing { .. }) && e.to_string().contains("--lemmas"),
            "{e}"
        );
        // Each lemma checks alone too (with the lemmas it names).
        for l in &proved.certificate.lemmas {
            let r = check_with(&lemmas.join(l.file_name()), dir.path(), &lemmas).unwrap();
            assert_eq!(r.proves, Proves::Lemma(l.side, l.claim));
            assert_eq!(r.root, l.position);
        }
        // The root alone as a set is the same check; every lemma of the directory
        // with the root, in one pass, checks each once.
        let mut o = CheckOptions::default();
        o.lemmas = Some(lemmas.clone());
        let one = fanotb::check_proofs(std::slice::from_ref(&file), dir.path(), &o).unwrap();
        assert_eq!(
            (one.certificates, one.lemmas, one.positions, one.moves),
            (1, r.lemmas, r.positions, r.moves)
        );
        let mut files: Vec<PathBuf> = std::fs::read_dir(&lemmas)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "fnlemma"))
            .collect();
        files.sort();
        let n = files.len();
        assert!(
            n > proved.certificate.lemmas.len(),
            "{w}x{h}: lemmas of two depths"
        );
        files.push(file.clone());
        files.push(file.clone());
        let all = fanotb::check_proofs(&files, dir.path(), &o).unwrap();
        assert_eq!((all.certificates, all.lemmas), (n + 1, 0), "{w}x{h}");
        assert!(all.positions > r.positions);
    }
}

/// Forged lemmas: a lemma of a position one ply into dimy whose claim was changed
/// ("White does not lose" made "White wins"), moved to another position, or given
/// another move, each saved under its new checksum name as a lemma would be. The
/// searches (`prove`, `prove_tree`, `prove_jobs`) check every lemma before they
/// trust it: each forgery is refused with its name, the search goes on without it,
/// and the answer stays the truth (dimy is a draw). Before, the changed claim made
/// `prove` answer a win for White.
#[test]
fn forged_lemmas_are_refused_and_the_searches_stay_right() {
    let board = Board::get(5, 5).unwrap();
    let k = 6;
    let dir = tempfile::tempdir().unwrap();
    let start = Position::start(board);
    let genuine = dir.path().join("genuine");
    let first = positions_at(&start, 1);
    for pos in &first {
        prove_into(dir.path(), &genuine, pos, k);
    }
    let read = |name: &std::ffi::OsStr| Certificate::read(&genuine.join(name)).unwrap();
    let names: Vec<_> = std::fs::read_dir(&genuine)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".fnlemma"))
        .collect();
    let lemma = names
        .iter()
        .map(|n| read(n))
        .find(|c| {
            c.proves == Proves::Lemma(Color::White, Claim::NotLose)
                && first.contains(&c.root)
                && c.parts[0]
                    .entries
                    .iter()
                    .any(|e| e.mv.is_some() && e.position.legal_moves().len() > 1)
        })
        .expect("a lemma that White does not lose after its first move");
    let mut claim = lemma.clone();
    claim.proves = Proves::Lemma(Color::White, Claim::Win);
    claim.parts[0].claim = Claim::Win;
    let mut moved = lemma.clone();
    moved.root = *first.iter().find(|p| **p != lemma.root).unwrap();
    let mut mv = lemma.clone();
    let e = mv.parts[0]
        .entries
        .iter_mut()
        .find(|e| e.mv.is_some() && e.position.legal_moves().len() > 1)
        .unwrap();
    let other = e
        .position
        .legal_moves()
        .iter()
        .map(|m| m.notation(e.position.board()))
        .find(|m| Some(m) != e.mv.as_ref())
        .unwrap();
    e.mv = Some(other);
    for (what, forged) in [("claim", claim), ("position", moved), ("move", mv)] {
        let lemmas = dir.path().join(what);
        std::fs::create_dir(&lemmas).unwrap();
        for n in &names {
            std::fs::copy(genuine.join(n), lemmas.join(n)).unwrap();
        }
        let name = forged.write_lemma(&lemmas).unwrap().file_name();
        let refused = |r: &[(String, String)]| {
            assert!(
                r.iter().any(|(n, _)| *n == name),
                "{what}: {name} not refused: {r:?}"
            );
        };
        let mut o = opts(k);
        o.lemmas = Some(lemmas.clone());
        let proved = prove(dir.path(), &start, &o, |_| {}, &|_| {}).unwrap();
        assert_eq!(
            proved.certificate.proves,
            Proves::Value(Wdl::Draw),
            "{what}"
        );
        refused(&proved.lemmas_refused);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let mut t = fanotb::TreeOptions::new(Color::White, &lemmas);
        t.prove = opts(k);
        t.workers = 1;
        let tree = fanotb::prove_tree(dir.path(), &start, &t, &stop, &|_| {}).unwrap();
        assert_eq!(
            tree.attacker_wins,
            Some(false),
            "{what}: White does not win dimy"
        );
        refused(&tree.lemmas_refused);
        let mut j = fanotb::JobOptions::new(1, &lemmas);
        j.prove = opts(k);
        j.workers = 1;
        let jobs = fanotb::prove_jobs(dir.path(), &start, &j, &stop, &|_| {}).unwrap();
        let root = jobs.root.expect("the root's value");
        assert_eq!(root.proves, Proves::Value(Wdl::Draw), "{what}");
        refused(&jobs.lemmas_refused);
    }
}

/// A 2 GB sparse file among the lemmas (before: read whole, 2.1 GB resident, 11 to
/// 21 s, before its header was looked at) is refused on its header and size, unread,
/// by the search and by the certificate reader.
#[test]
fn an_oversized_lemma_file_is_refused_unread() {
    let board = Board::get(3, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let lemmas = dir.path().join("lemmas");
    std::fs::create_dir(&lemmas).unwrap();
    let big = lemmas.join("0123456789abcdef.fnlemma");
    let f = std::fs::File::create(&big).unwrap();
    let mut head = b"FNPROOF\n".to_vec();
    head.extend_from_slice(&2u32.to_le_bytes());
    std::io::Write::write_all(&mut &f, &head).unwrap();
    f.set_len(2 << 30).unwrap();
    let mut o = opts(4);
    o.lemmas = Some(lemmas.clone());
    let proved = prove(dir.path(), &Position::start(board), &o, |_| {}, &|_| {}).unwrap();
    assert_eq!(proved.certificate.proves, Proves::Value(Wdl::Win));
    let (name, why) = &proved.lemmas_refused[0];
    assert_eq!(name, "0123456789abcdef.fnlemma");
    assert!(
        why.contains("bytes, more than any lemma") && why.contains("not read"),
        "{why}"
    );
    let e = Certificate::read(&big).unwrap_err().to_string();
    assert!(e.contains("truncated or extended"), "{e}");
}

/// A lemma directory of version 2 files (positions listed) and a certificate over
/// it, rewritten by `recode_lemmas`: one pack of version 4 lemmas, a fraction of
/// the bytes, and the certificate renamed to them checks as before (dimy's draw).
#[test]
fn a_lemma_directory_recoded_into_a_pack_proves_the_same() {
    let board = Board::get(5, 5).unwrap();
    let k = 6;
    let dir = tempfile::tempdir().unwrap();
    let start = Position::start(board);
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    for pos in positions_at(&start, 1) {
        let proved = run(dir.path(), &pos, k);
        for l in proved.certificate.split_lemmas() {
            let bytes = l.to_listed_bytes();
            let sum =
                u64::from_le_bytes(bytes[bytes.len() - 16..bytes.len() - 8].try_into().unwrap());
            std::fs::write(old.join(fanotb::lemma_file_name(sum)), bytes).unwrap();
        }
    }
    let mut o = opts(k);
    o.lemmas = Some(old.clone());
    let proved = prove(dir.path(), &start, &o, |_| {}, &|_| {}).unwrap();
    assert!(
        proved.lemmas_refused.is_empty(),
        "{:?}",
        proved.lemmas_refused
    );
    let root = old.join("root.fnproof");
    proved.certificate.write(&root).unwrap();
    let before = check_with(&root, dir.path(), &old).unwrap();
    assert!(before.lemmas > 0);
    let new = dir.path().join("new");
    let r = fanotb::recode_lemmas(&old, std::slice::from_ref(&root), &new).unwrap();
    let files = std::fs::read_dir(&old).unwrap();
    let loose = files
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "fnlemma")
        })
        .count();
    assert_eq!(r.lemmas, loose);
    assert_eq!(r.compact, r.lemmas, "every lemma as moves");
    assert!(
        r.bytes_after * 4 < r.bytes_before,
        "{} -> {}",
        r.bytes_before,
        r.bytes_after
    );
    let after = check_with(&new.join("root.fnproof"), dir.path(), &new).unwrap();
    assert_eq!(after.proves, Proves::Value(Wdl::Draw));
    assert_eq!(
        (after.lemmas, after.positions, after.moves),
        (before.lemmas, before.positions, before.moves)
    );
    let files: Vec<_> = std::fs::read_dir(&new).unwrap().collect();
    assert_eq!(files.len(), 2, "a pack and the certificate");
}

/// Rewrites the lemma `old` of `cert` as `lemma` (a new file, by its checksum) and
/// points `cert` at it; returns the new reference's file name.
fn replace_lemma(cert: &mut Certificate, lemmas: &Path, old: usize, lemma: &Certificate) -> String {
    let r = lemma.write_lemma(lemmas).unwrap();
    cert.lemmas[old].checksum = r.checksum;
    r.file_name()
}

/// Tampered composed proofs: a lemma whose move was changed, a missing lemma, a
/// lemma of another position under a used name, a lemma relying on another table,
/// a lemma used for a claim it does not prove, a lemma named and not used, and a
/// cycle of win lemmas attempted (each rewrite changes the checksum that names it).
#[test]
fn tampered_lemmas_are_rejected() {
    let board = Board::get(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (d, k) = (dir.path(), 6);
    let lemmas = d.join("lemmas");
    let start = Position::start(board);
    let first = positions_at(&start, 1);
    for pos in &first {
        prove_into(d, &lemmas, pos, k);
    }
    let honest = prove_into(d, &lemmas, &start, k).certificate;
    let file = d.join("root.fnproof");
    let rejected = |cert: &Certificate| -> String {
        cert.write(&file).unwrap();
        match check_with(&file, d, &lemmas) {
            Ok(r) => panic!("a tampered proof passed: {r:?}"),
            Err(e) => e.to_string(),
        }
    };
    honest.write(&file).unwrap();
    check_with(&file, d, &lemmas).expect("the honest proof checks");
    let read = |i: usize| Certificate::read(&lemmas.join(honest.lemmas[i].file_name())).unwrap();
    // The lemma with the largest proof, and a win lemma.
    let big = (0..honest.lemmas.len())
        .max_by_key(|&i| read(i).parts[0].entries.len())
        .unwrap();
    let win = (0..honest.lemmas.len())
        .find(|&i| honest.lemmas[i].claim == Claim::Win)
        .expect("a won first move for Black");

    // A changed move: to an illegal text, and to a legal move that leaves the
    // lemma's proof for a position nothing values.
    let lemma = read(big);
    let part = &lemma.parts[0];
    let inside: std::collections::HashSet<Position> =
        part.entries.iter().map(|e| e.position).collect();
    let (at, mv) = part
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.mv.is_some())
        .find_map(|(i, e)| {
            let p = e.position;
            p.legal_moves().into_iter().find_map(|m| {
                let to = p.apply(&m);
                let outside = !inside.contains(&to)
                    && (to.white() | to.black()).count_ones() as usize > k
                    && !honest.lemmas.iter().any(|l| l.position == to);
                outside.then(|| (i, m.notation(board)))
            })
        })
        .expect("a move out of the proof");
    for text in [mv, "a1-a1".to_string()] {
        let mut bad_lemma = lemma.clone();
        bad_lemma.parts[0].entries[at].mv = Some(text.clone());
        let mut bad = honest.clone();
        let name = replace_lemma(&mut bad, &lemmas, big, &bad_lemma);
        let e = rejected(&bad);
        assert!(e.contains(&name) && e.contains(&text), "{e}");
        // Checked among honest ones, the bad lemma is named by its file.
        let mut o = CheckOptions::default();
        o.lemmas = Some(lemmas.clone());
        let mut files: Vec<PathBuf> = honest
            .lemmas
            .iter()
            .map(|l| lemmas.join(l.file_name()))
            .collect();
        fanotb::check_proofs(&files, d, &o).expect("the honest lemmas check");
        files.push(lemmas.join(&name));
        let e = fanotb::check_proofs(&files, d, &o).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{name}: ")) && e.contains(&text),
            "{e}"
        );
        std::fs::remove_file(lemmas.join(&name)).unwrap();
    }

    // A missing lemma.
    let gone = lemmas.join(honest.lemmas[win].file_name());
    let kept = std::fs::read(&gone).unwrap();
    std::fs::remove_file(&gone).unwrap();
    let e = rejected(&honest);
    assert!(e.contains("is not in"), "{e}");

    // Another position's lemma under the used name; and the name pointed at it.
    let other = honest.lemmas[(win + 1) % honest.lemmas.len()];
    std::fs::copy(lemmas.join(other.file_name()), &gone).unwrap();
    let e = rejected(&honest);
    assert!(e.contains("checksum names it"), "{e}");
    std::fs::write(&gone, &kept).unwrap();
    let mut bad = honest.clone();
    bad.lemmas[win].checksum = other.checksum;
    let e = rejected(&bad);
    assert!(
        e.contains("it proves") && e.contains(&other.position.to_string()),
        "{e}"
    );

    // A lemma relying on another table than the directory's.
    let mut bad_lemma = read(win);
    bad_lemma.tables[0].1 ^= 1;
    let mut bad = honest.clone();
    replace_lemma(&mut bad, &lemmas, win, &bad_lemma);
    bad.write(&file).unwrap();
    assert!(matches!(
        check_with(&file, d, &lemmas),
        Err(CheckError::TableMismatch { .. })
    ));

    // A reference claiming more than its lemma proves.
    let nl = (0..honest.lemmas.len())
        .find(|&i| honest.lemmas[i].claim == Claim::NotLose)
        .expect("a drawn first move");
    let mut bad = honest.clone();
    bad.lemmas[nl].claim = Claim::Win;
    let e = rejected(&bad);
    assert!(
        e.contains("it proves") && e.contains("does not lose"),
        "{e}"
    );
    // A win offered over a "does not lose" lemma: White wins by its move there.
    let target = honest.lemmas[nl];
    let mv = start
        .legal_moves()
        .into_iter()
        .find(|m| start.apply(m) == target.position)
        .unwrap();
    let white_wins = Certificate {
        root: start,
        proves: Proves::Lemma(target.side, Claim::Win),
        max_table_stones: honest.max_table_stones,
        tables: honest.tables.clone(),
        parts: vec![Part {
            side: target.side,
            claim: Claim::Win,
            entries: vec![Entry {
                position: start,
                mv: Some(mv.notation(board)),
            }],
        }],
        lemmas: vec![target],
    };
    assert_eq!(target.side, Color::White);
    let e = rejected(&white_wins);
    assert!(e.contains("not that White wins"), "{e}");

    // A lemma named and not used: one of a position two plies deep.
    let deep = positions_at(&start, 2)[0];
    prove_into(d, &lemmas, &deep, k);
    let spare = Lemmas::load(&lemmas, board).unwrap().at(&deep)[0];
    let mut bad = honest.clone();
    bad.lemmas.push(spare);
    bad.sort_lemmas();
    let e = rejected(&bad);
    assert!(e.contains("no move of its proofs leads to it"), "{e}");

    // A cycle of win lemmas attempted: a win lemma made to rely on a lemma that
    // relies on it. Rewriting either changes its checksum, so the reference to it
    // no longer names it.
    let mut a = read(win);
    let a_ref = honest.lemmas[win];
    a.lemmas.push(a_ref);
    let a_file = lemmas.join(a_ref.file_name());
    std::fs::write(&a_file, a.to_bytes()).unwrap();
    let e = rejected(&honest);
    assert!(e.contains("checksum names it"), "{e}");
    std::fs::write(&a_file, &kept).unwrap();
    honest.write(&file).unwrap();
    check_with(&file, d, &lemmas).expect("restored, the proof checks again");
}

/// A proof split into jobs: a run stopped after a few jobs leaves their lemmas, a
/// second run goes on from them (the jobs done are known, not run again) and proves
/// the root, whose composed certificate checks; a job another live worker claims
/// is left to it; a job left undecided is not run again with the same limits and no
/// new lemma.
#[test]
fn jobs_resume_from_their_lemmas_and_compose_the_root() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let board = Board::get(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (d, k) = (dir.path(), 6);
    let start = Position::start(board);
    let lemmas = d.join("lemmas");
    let mut o = fanotb::JobOptions::new(2, &lemmas);
    o.prove = opts(k);
    let levels = fanotb::job_levels(&start, 2, k);
    assert_eq!(levels[0], vec![start]);
    assert_eq!(levels[1].len(), 5);

    // Stopped after three jobs.
    let stop = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    let first = fanotb::prove_jobs(d, &start, &o, &stop, &|e| {
        if matches!(e, fanotb::JobEvent::Done { .. }) && done.fetch_add(1, Relaxed) + 1 >= 3 {
            stop.store(true, Relaxed);
        }
    })
    .unwrap();
    assert!(first.root.is_none());
    let proved_before = first.levels[0].proved;
    assert!(proved_before >= 3, "{:?}", first.levels);

    // Another worker, alive (this process), holds one job of the deepest level.
    let held = levels[2]
        .iter()
        .find(|p| Lemmas::load(&lemmas, board).unwrap().at(p).is_empty())
        .copied()
        .expect("a job not done yet");
    let claims = lemmas.join("claims");
    let hash = xxhash_rust::xxh3::xxh3_64(held.to_string().as_bytes());
    let claim = claims.join(format!("{hash:016x}.claim"));
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    std::fs::write(
        &claim,
        format!("{}\t{}\t{held}\n", host.trim(), std::process::id()),
    )
    .unwrap();
    let never = AtomicBool::new(false);
    let second = fanotb::prove_jobs(d, &start, &o, &never, &|_| {}).unwrap();
    let deepest = second.levels[0];
    assert_eq!(deepest.ply, 2);
    assert_eq!(deepest.known, proved_before, "{deepest:?}");
    assert_eq!(deepest.claimed, 1, "{deepest:?}");
    assert_eq!(
        deepest.known + deepest.proved + deepest.claimed,
        deepest.jobs
    );
    assert!(claim.exists(), "another worker's claim is left alone");
    // The held position is not needed by the root, or is proved below it another
    // way: either way the root is proved and its certificate checks.
    let cert = second.root.expect("the root proved");
    assert_eq!(cert.proves, Proves::Value(Wdl::Draw));
    let file = d.join("root.fnproof");
    cert.write(&file).unwrap();
    let r = check_with(&file, d, &lemmas).unwrap();
    assert_eq!(r.proves, Proves::Value(Wdl::Draw));
    assert!(r.lemmas > 0);
    // A third run: everything known, the root's certificate composed from its
    // own lemmas.
    let third = fanotb::prove_jobs(d, &start, &o, &never, &|_| {}).unwrap();
    assert_eq!(third.levels.last().unwrap().known, 1);
    assert!(third.levels.iter().all(|l| l.nodes == 0 && l.proved == 0));
    third
        .root
        .expect("composed from lemmas")
        .write(&file)
        .unwrap();
    check_with(&file, d, &lemmas).unwrap();

    // Undecided at a tiny budget, then not run again with the same limits.
    let fresh = d.join("fresh");
    let mut tiny = fanotb::JobOptions::new(1, &fresh);
    tiny.prove = opts(k);
    tiny.prove.limits = Limits::new(1, 1000);
    let once = fanotb::prove_jobs(d, &start, &tiny, &never, &|_| {}).unwrap();
    assert!(once.levels[0].undecided > 0 && once.levels[0].nodes > 0);
    let again = fanotb::prove_jobs(d, &start, &tiny, &never, &|_| {}).unwrap();
    assert_eq!(again.levels[0].undecided, once.levels[0].undecided);
    assert_eq!(again.levels[0].nodes, 0, "tried before: not run again");
    // A log written by an older search (no version column: version 1) is tried
    // again by this one.
    let log = fresh.join("jobs.tsv");
    let older: String = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once('\t').unwrap().0))
        .collect();
    std::fs::write(&log, older).unwrap();
    let newer = fanotb::prove_jobs(d, &start, &tiny, &never, &|_| {}).unwrap();
    assert!(
        newer.levels[0].nodes > 0,
        "a weaker search's attempt is retried"
    );
}

/// Two processes on one lemma directory: a job the other ran to its end after this
/// level began (its claim let go) is not run again, whether it left lemmas (known)
/// or only a log line (tried before). The other process is a whole run started
/// from the observer of this one's first job.
#[test]
fn a_job_another_process_finished_is_not_run_again() {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;
    let board = Board::get(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (d, k) = (dir.path(), 6);
    let start = Position::start(board);
    let never = AtomicBool::new(false);
    for (name, max_nodes) in [("proved", 50_000_000), ("tiny", 1000)] {
        let mut o = fanotb::JobOptions::new(2, d.join(name));
        o.workers = 1;
        o.prove = opts(k);
        o.prove.limits = Limits::new(max_nodes, 50_000_000);
        let first_job = Mutex::new(None);
        let mine = fanotb::prove_jobs(d, &start, &o, &never, &|e| {
            if let fanotb::JobEvent::Done { ply: 2, nodes, .. } = e {
                let mut first = first_job.lock().unwrap();
                if first.is_none() {
                    *first = Some(*nodes);
                    fanotb::prove_jobs(d, &start, &o, &never, &|_| {}).unwrap();
                }
            }
        })
        .unwrap();
        let deepest = mine.levels[0];
        assert_eq!(deepest.ply, 2);
        assert!(deepest.jobs > 1, "{name}: {deepest:?}");
        assert_eq!(
            Some(deepest.nodes),
            *first_job.lock().unwrap(),
            "{name}: only the first job searched: {deepest:?}"
        );
        assert_eq!(deepest.claimed, 0, "{name}: {deepest:?}");
        if name == "proved" {
            assert_eq!(deepest.proved, 1, "{deepest:?}");
            assert_eq!(deepest.known, deepest.jobs - 1, "{deepest:?}");
        }
    }
}

/// A job whose one search decides and the other stops at its limit leaves that half
/// as a lemma ("partly"); a later run with a larger limit runs only the other search
/// and joins the two halves into the value's certificate.
#[test]
fn a_job_proved_partly_goes_on_from_its_half() {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;
    let board = Board::get(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (d, k) = (dir.path(), 4);
    let start = Position::start(board);
    let drawn: Position = "BBBB1/BBB1B/BWWBW/W1WWW/WWWWW b".parse().unwrap();
    let run = |lemmas: &Path, max_nodes: u64| {
        let mut o = fanotb::JobOptions::new(1, lemmas);
        o.workers = 1;
        o.prove = opts(k);
        o.prove.limits = Limits::new(max_nodes, 50_000_000);
        let seen = Mutex::new(None);
        let r = fanotb::prove_jobs(d, &start, &o, &AtomicBool::new(false), &|e| {
            if let fanotb::JobEvent::Done {
                position,
                result,
                nodes,
                ..
            } = e
                && *position == drawn
            {
                *seen.lock().unwrap() = Some((*result, *nodes));
            }
        })
        .unwrap();
        (
            r,
            seen.into_inner()
                .unwrap()
                .expect("the drawn position is a job"),
        )
    };
    let lemmas = d.join("lemmas");
    let (_, (half, _)) = run(&lemmas, 30_000);
    assert_eq!(
        half,
        fanotb::JobResult::Partly(Color::Black, Claim::NotLose)
    );
    let (done, (result, nodes)) = run(&lemmas, 50_000_000);
    assert_eq!(result, fanotb::JobResult::Proved(Wdl::Draw));
    let (_, (_, fresh)) = run(&d.join("fresh"), 50_000_000);
    assert!(nodes < fresh, "{nodes} nodes after the half, {fresh} fresh");
    let file = d.join("root.fnproof");
    done.root.expect("the root proved").write(&file).unwrap();
    let r = check_with(&file, d, &lemmas).unwrap();
    assert_eq!(r.proves, Proves::Value(Wdl::Draw));
}

/// Checks `cert` written in version 3 (`write_blocked`) as well as in version 1 or
/// 2: the same report, and read back whole, the same certificate.
fn check_both_ways(dir: &Path, cert: &Certificate) -> CheckReport {
    let whole = dir.join("whole.fnproof");
    let blocked = dir.join("blocked.fnproof");
    cert.write(&whole).unwrap();
    cert.write_blocked(&blocked).unwrap();
    let a = check(&whole, dir).unwrap();
    let mut few = CheckOptions::default();
    few.cache_mib = Some(0);
    let b = fanotb::check_proof(&blocked, dir, &few).unwrap();
    assert_eq!(
        (a.proves, a.positions, a.moves, &a.parts),
        (b.proves, b.positions, b.moves, &b.parts)
    );
    assert_eq!(&Certificate::read(&blocked).unwrap(), cert);
    b
}

#[test]
fn blocked_certificates_check_as_the_whole_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (_, cert) = prove_and_check(dir.path(), &Position::start(Board::get(5, 5).unwrap()), 6);
    assert!(check_both_ways(dir.path(), &cert).positions > 2000);
    // Wins, draws and losses from random 5x3 positions.
    let board = Board::get(5, 3).unwrap();
    build(dir.path(), board, 7, 6);
    let mut rng = Rng(31);
    let mut seen = [0; 3];
    while seen.iter().any(|&n| n < 3) {
        let n = 6 + rng.below(2) as usize;
        let pos = random_position(&mut rng, board, n);
        let (value, cert) = prove_and_check(dir.path(), &pos, 4);
        check_both_ways(dir.path(), &cert);
        seen[value as usize] += 1;
    }
}

/// The version 3 bytes of a one-proof certificate written as one block, with the
/// block's positions rewritten by `edit(entries)` (position, rank, move) and every
/// checksum made to match again, as a forger would.
fn forge_block(cert: &Certificate, edit: impl Fn(&mut Vec<(Vec<u8>, u32, Vec<u8>)>)) -> Vec<u8> {
    let bytes = cert.to_blocked_bytes(usize::MAX).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let record = bytes.len() - 16 - 41;
    let offset = u64::from_le_bytes(bytes[record..record + 8].try_into().unwrap()) as usize;
    let len = u32_at(record + 8) as usize;
    let raw = zstd::bulk::decompress(&bytes[offset..offset + len], 1 << 26).unwrap();
    let mut entries = Vec::new();
    let mut at = 0;
    while at < raw.len() {
        let rank = u32::from_le_bytes(raw[at + 17..at + 21].try_into().unwrap());
        let n = raw[at + 21] as usize;
        entries.push((
            raw[at..at + 17].to_vec(),
            rank,
            raw[at + 22..at + 22 + n].to_vec(),
        ));
        at += 22 + n;
    }
    edit(&mut entries);
    let mut block = Vec::new();
    for (p, rank, mv) in &entries {
        block.extend_from_slice(p);
        block.extend_from_slice(&rank.to_le_bytes());
        block.push(mv.len() as u8);
        block.extend_from_slice(mv);
    }
    let packed = zstd::bulk::compress(&block, 3).unwrap();
    let mut out = bytes[..offset].to_vec();
    out.extend_from_slice(&packed);
    out.extend_from_slice(&bytes[record..record + 8]);
    out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&entries[0].0);
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&packed).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(b"FNPREND\n");
    out
}

#[test]
fn forged_blocked_certificates_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(3, 3).unwrap();
    let (value, cert) = prove_and_check(dir.path(), &Position::start(board), 4);
    assert_eq!(value, Wdl::Win);
    assert!(cert.parts[0].entries.len() > 2);
    let file = dir.path().join("forged.fnproof");
    let rejected = |bytes: Vec<u8>| {
        std::fs::write(&file, bytes).unwrap();
        check(&file, dir.path()).unwrap_err().to_string()
    };
    // Untouched, the forger's rewrite passes: the edits below are what fails.
    std::fs::write(&file, forge_block(&cert, |_| {})).unwrap();
    check(&file, dir.path()).expect("the same block, recompressed");
    // Every rank the same: a move inside the win does not go down.
    let e = rejected(forge_block(&cert, |es| es.iter_mut().for_each(|e| e.1 = 7)));
    assert!(e.contains("ranks must fall along a win"), "{e}");
    // Two positions swapped: out of order.
    let e = rejected(forge_block(&cert, |es| es.swap(0, 1)));
    assert!(e.contains("out of order") || e.contains("first"), "{e}");
    // A position dropped (the directory says one fewer): a move leads nowhere, or
    // the root is gone.
    let e = rejected(forge_block(&cert, |es| {
        es.pop();
    }));
    assert!(
        e.contains("positions") || e.contains("neither in the proof"),
        "{e}"
    );
    // A move changed to another text.
    let e = rejected(forge_block(&cert, |es| {
        let mover = es.iter_mut().find(|e| !e.2.is_empty()).unwrap();
        mover.2 = b"a1-a2".to_vec();
    }));
    assert!(e.contains("illegal") || e.contains("a1-a2"), "{e}");
    // A rank in a proof that a side does not lose.
    let (_, draw) = prove_and_check(dir.path(), &Position::start(Board::get(5, 5).unwrap()), 6);
    let mut one = draw.split_lemmas().remove(0);
    one.lemmas.clear();
    let e = rejected(forge_block(&one, |es| es[0].1 = 1));
    assert!(
        e.contains("a rank in a proof that does not claim a win"),
        "{e}"
    );
}

/// PN² (`prove_tree`): each question answered over a first-level tree whose leaves
/// are searched with a small budget agrees with the whole-board values (dimy a
/// draw, 5x3 a win for White); a run stopped after a few expansions goes on from its
/// log and lemmas; the two answers compose the root's certificate, which checks.
#[test]
fn a_first_level_tree_answers_each_question_and_composes_the_root() {
    use std::sync::atomic::AtomicBool;
    let never = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tree = |board: &'static Board, k: usize, attacker: Color, leaf: u64, max: Option<u64>| {
        let mut o = fanotb::TreeOptions::new(attacker, d.join(board.size_name()));
        o.prove = opts(k);
        o.prove.limits = Limits::new(leaf, 50_000_000);
        o.max_expansions = max;
        fanotb::prove_tree(d, &Position::start(board), &o, &never, &|_| {}).unwrap()
    };
    let dimy = Board::get(5, 5).unwrap();
    let first = tree(dimy, 6, Color::White, 100, Some(3));
    assert_eq!(first.attacker_wins, None);
    assert_eq!(first.progress.expansions, 3);
    assert!(first.root.is_none());
    // The root's moves, each with its numbers while the root is open.
    let start = Position::start(dimy);
    let mut after: Vec<Position> = first.moves.iter().map(|m| m.0).collect();
    let mut moves = start.successors();
    after.sort_by_key(|p| (p.white(), p.black()));
    moves.sort_by_key(|p| (p.white(), p.black()));
    moves.dedup();
    assert_eq!(after, moves);
    // Dimy is a draw: neither side wins.
    let white = tree(dimy, 6, Color::White, 100, None);
    assert_eq!(white.attacker_wins, Some(false));
    assert!(white.progress.expansions > 3, "{:?}", white.progress);
    assert!(
        white.progress.reused >= first.progress.searched,
        "the first run's leaves come from its log: {:?}",
        white.progress
    );
    assert!(white.root.is_none(), "one half of the draw only");
    assert!(white.moves.is_empty(), "a decided root keeps no tree");
    let black = tree(dimy, 6, Color::Black, 100, None);
    assert_eq!(black.attacker_wins, Some(false));
    let lemmas = d.join(dimy.size_name());
    let file = d.join("dimy.fnproof");
    let cert = black.root.expect("both halves: the value");
    assert_eq!(cert.proves, Proves::Value(Wdl::Draw));
    cert.write(&file).unwrap();
    assert_eq!(
        check_with(&file, d, &lemmas).unwrap().proves,
        Proves::Value(Wdl::Draw)
    );
    // 5x3 is a win for White, who moves first.
    let five = Board::get(5, 3).unwrap();
    let w = tree(five, 2, Color::White, 20, None);
    assert_eq!(w.attacker_wins, Some(true));
    assert!(w.progress.expansions > 0, "{:?}", w.progress);
    let cert = w.root.expect("a win is the value");
    assert_eq!(cert.proves, Proves::Value(Wdl::Win));
    cert.write(&file).unwrap();
    let lemmas = d.join(five.size_name());
    assert_eq!(
        check_with(&file, d, &lemmas).unwrap().proves,
        Proves::Value(Wdl::Win)
    );
}
