//! The proof search against the tables, and the checker against tampering.

mod common;

use std::path::Path;

use common::Rng;
use fanotb::Signature;
use fanotb::Tablebase;
use fanotb::Wdl;
use fanotb::internals::ValueTables;
use fanotb::internals::needed_tables;
use fanotb::{Board, Color, Position};
use fanotb::{Certificate, Entry, Part, Proves};
use fanotb::{CheckError, CheckOptions, CheckReport};
use fanotb::{Claim, Limits, prove};
use fanotb::{Options, generate};

use common::prove::{check, opts, prove_and_check, rejected};

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
        // Dimy's draw over 6 stones: under a tenth of the bytes as moves (932
        // against 12,968 when version 4 came).
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
