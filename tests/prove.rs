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
use fanotb::{Certificate, Entry, Part};
use fanotb::{CheckError, CheckOptions, CheckReport};

/// `check-proof` as by default: the certificate against the tables by checksum.
fn check(file: &Path, dir: &Path) -> Result<CheckReport, CheckError> {
    fanotb::check_proof(file, dir, &CheckOptions::default())
}
use fanotb::{Claim, Limits, ProveOptions, Proved, prove};
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
    assert_eq!(report.value, proved.certificate.value);
    (proved.certificate.value, proved.certificate)
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
        let mut free: Vec<u8> = (0..board.points() as u8).collect();
        let mine = 1 + rng.below(n as u64 - 1) as usize;
        let (mut us, mut them) = (0u64, 0u64);
        for i in 0..n {
            let p = free.swap_remove(rng.below(free.len() as u64) as usize);
            if i < mine {
                us |= 1 << p;
            } else {
                them |= 1 << p;
            }
        }
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

fn rejected(dir: &Path, cert: &Certificate) -> String {
    let file = dir.join("tampered.fnproof");
    cert.write(&file).unwrap();
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
    bad.value = Wdl::Draw;
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
            value: Wdl::Win,
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
        };
        let honest = win_tables(closure(&tb, &cycle[0], k, &[]));
        check_written(dir.path(), &honest).expect("fastest wins make a proof");
        let looped = win_tables(closure(&tb, &cycle[0], k, &cycle));
        let e = check_written(dir.path(), &looped).unwrap_err().to_string();
        assert!(e.contains("lies on a cycle"), "{e}");
        // As a "does not lose" proof the cycle is fine.
        let mut draw = looped.clone();
        draw.parts[0].claim = Claim::NotLose;
        draw.value = Wdl::Draw;
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
    assert_eq!(resumed.certificate.value, Wdl::Draw);
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
