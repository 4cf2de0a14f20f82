//! Proofs in pieces: lemmas composed into a root, forged or damaged lemmas refused,
//! a lemma directory recoded, jobs and PN² trees that resume from their lemmas.

mod common;

use std::path::{Path, PathBuf};

use fanotb::{Board, Certificate, CheckError, CheckOptions, Claim, Color, Position};
use fanotb::{Entry, Lemmas, Limits, Part, Proves, Wdl, prove};

use common::prove::{
    check, check_with, opts, positions_at, prove_and_check, prove_into, prove_over, run,
};

/// The loose lemma files of `dir`.
fn loose_lemmas(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "fnlemma")
        })
        .count()
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
        // With no record of earlier checks, a search checks the lemmas of both
        // depths in one load, each after those it names: it takes all it took
        // with the record.
        let recorded = prove_over(dir.path(), &lemmas, &start, k);
        std::fs::remove_file(lemmas.join("checked.tsv")).unwrap();
        let again = prove_over(dir.path(), &lemmas, &start, k);
        assert!(again.lemmas_loaded > 0);
        assert_eq!(again.lemmas_loaded, recorded.lemmas_loaded, "{w}x{h}");

        // The lemmas that name none, written in version 3 (read whole, never in
        // part) under their new names: a search checks and takes every one, and
        // takes them again from its record; each checks alone.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        let mut leaves = Vec::new();
        for f in &files[..n] {
            let cert = Certificate::read(f).unwrap();
            if cert.lemmas.is_empty() {
                let tmp = dir.path().join("tmp.fnlemma");
                cert.write_blocked(&tmp).unwrap();
                let (_, sum) = Certificate::read_summed(&tmp).unwrap();
                let named = blocked.join(fanotb::lemma_file_name(sum));
                std::fs::rename(&tmp, &named).unwrap();
                leaves.push(named);
            }
        }
        assert!(!leaves.is_empty(), "{w}x{h}");
        for _ in 0..2 {
            let over = prove_over(dir.path(), &blocked, &start, k);
            assert_eq!(over.lemmas_loaded, leaves.len(), "{w}x{h}");
            assert_eq!(over.certificate.proves, Proves::Value(published));
        }
        let mut o = CheckOptions::default();
        o.lemmas = Some(blocked.clone());
        let all = fanotb::check_proofs(&leaves, dir.path(), &o).unwrap();
        assert_eq!((all.certificates, all.lemmas), (leaves.len(), 0), "{w}x{h}");
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
        // Refused once, however often the store is read again.
        let refused = |r: &[(String, String)]| {
            assert_eq!(
                r.iter().filter(|(n, _)| *n == name).count(),
                1,
                "{what}: {name} not refused once: {r:?}"
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

/// A store may hold lemmas proved over larger tables (8 stones) than a search
/// loads (7): those are passed over and counted, not refused (they are not false),
/// by `prove`, `prove-tree` and `prove-jobs`; the lemmas over the tables loaded are
/// used; and a search over the larger tables uses them all.
#[test]
fn lemmas_over_larger_tables_are_passed_over_not_refused() {
    use std::sync::atomic::AtomicBool;
    let board = Board::get(5, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let start = Position::start(board);
    let first = positions_at(&start, 1);
    for pos in &first[1..] {
        prove_into(dir.path(), &store, pos, 4);
    }
    let larger = loose_lemmas(&store);
    assert!(
        larger > 1,
        "{larger} lemma files over the tables of 4 stones"
    );
    let at3 = prove_over(dir.path(), &store, &start, 3);
    assert_eq!(at3.certificate.proves, Proves::Value(Wdl::Win));
    assert_eq!((at3.lemmas_loaded, at3.lemmas_beyond), (0, larger));
    // Lemmas over 3 stones beside them: used at 3, and at 4 with the others.
    let own = prove_into(dir.path(), &store, &first[0], 3)
        .certificate
        .split_lemmas()
        .len();
    let at3 = prove_over(dir.path(), &store, &start, 3);
    assert_eq!(at3.certificate.proves, Proves::Value(Wdl::Win));
    assert_eq!(at3.lemmas_beyond, larger);
    assert!(
        at3.lemmas_loaded > 0 && at3.lemmas_loaded <= own,
        "{own}: {}",
        at3.lemmas_loaded
    );
    let at4 = prove_over(dir.path(), &store, &start, 4);
    assert_eq!(at4.certificate.proves, Proves::Value(Wdl::Win));
    assert_eq!(at4.lemmas_beyond, 0);
    assert!(at4.lemmas_loaded > at3.lemmas_loaded);
    let never = AtomicBool::new(false);
    let mut t = fanotb::TreeOptions::new(Color::White, &store);
    t.prove = opts(3);
    t.workers = 1;
    let tree = fanotb::prove_tree(dir.path(), &start, &t, &never, &|_| {}).unwrap();
    assert_eq!(tree.attacker_wins, Some(true));
    assert_eq!((tree.lemmas_refused.len(), tree.lemmas_beyond), (0, larger));
    let mut j = fanotb::JobOptions::new(1, &store);
    j.prove = opts(3);
    j.workers = 1;
    let jobs = fanotb::prove_jobs(dir.path(), &start, &j, &never, &|_| {}).unwrap();
    assert_eq!(
        jobs.root.expect("the root's value").proves,
        Proves::Value(Wdl::Win)
    );
    assert_eq!((jobs.lemmas_refused.len(), jobs.lemmas_beyond), (0, larger));
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
/// The lemmas are stored uncompressed and the pack compresses them together: 15,911
/// bytes become 1,366 (2,140 when each lemma was compressed alone and the index
/// not at all). A search over the pack checks and loads every lemma.
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
    let proved = prove_over(dir.path(), &old, &start, k);
    let root = old.join("root.fnproof");
    proved.certificate.write(&root).unwrap();
    let before = check_with(&root, dir.path(), &old).unwrap();
    assert!(before.lemmas > 0);
    let new = dir.path().join("new");
    let r = fanotb::recode_lemmas(&old, std::slice::from_ref(&root), &new).unwrap();
    let loose = loose_lemmas(&old);
    assert_eq!(r.lemmas, loose);
    assert_eq!(r.compact, r.lemmas, "every lemma as moves");
    assert!(
        r.bytes_after * 9 < r.bytes_before,
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
    // A search over the pack checks every lemma before it trusts it.
    let again = prove_over(dir.path(), &new, &start, k);
    assert_eq!(again.lemmas_loaded, r.lemmas);
    assert_eq!(again.certificate.proves, Proves::Value(Wdl::Draw));
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

/// The two halves of a draw proved over tables of two sizes (a store with lemmas
/// over the tables of 7 and of 8 stones, say): the root's certificate joins them,
/// the smaller one's proof cut at the larger tables' leaves, and it checks. A
/// whole certificate moved onto larger tables checks too, with fewer positions;
/// onto smaller tables, or tables that lack its own, it is not moved.
#[test]
fn halves_over_tables_of_two_sizes_join_into_a_checked_value() {
    use std::sync::atomic::AtomicBool;
    let never = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dimy = Board::get(5, 5).unwrap();
    let start = Position::start(dimy);
    let store = d.join("store");
    let tree = |k: usize, attacker: Color| {
        let mut o = fanotb::TreeOptions::new(attacker, &store);
        o.prove = opts(k);
        o.prove.limits = Limits::new(100, 50_000_000);
        fanotb::prove_tree(d, &start, &o, &never, &|_| {}).unwrap()
    };
    let white = tree(5, Color::White);
    assert_eq!(
        (white.attacker_wins, white.root.is_none()),
        (Some(false), true)
    );
    let black = tree(6, Color::Black);
    assert_eq!(black.attacker_wins, Some(false));
    let cert = black.root.expect("both halves: the value");
    assert_eq!(
        (cert.proves, cert.max_table_stones),
        (Proves::Value(Wdl::Draw), 6)
    );
    let file = d.join("joined.fnproof");
    cert.write(&file).unwrap();
    assert_eq!(
        check_with(&file, d, &store).unwrap().proves,
        Proves::Value(Wdl::Draw)
    );

    let five = run(d, &start, 5).certificate;
    let size = |c: &Certificate| c.parts.iter().map(|p| p.entries.len()).sum::<usize>();
    let moved = five
        .over_tables(6, &cert.tables)
        .expect("onto larger tables");
    assert_eq!((moved.max_table_stones, &moved.tables), (6, &cert.tables));
    assert!(
        size(&moved) < size(&five),
        "{} {}",
        size(&moved),
        size(&five)
    );
    moved.write(&file).unwrap();
    assert_eq!(check(&file, d).unwrap().proves, Proves::Value(Wdl::Draw));
    assert!(
        moved.over_tables(5, &five.tables).is_none(),
        "smaller tables"
    );
    assert!(
        five.over_tables(6, &cert.tables[..3]).is_none(),
        "its own lacking"
    );
    // Over the store's lemmas of one question (Black's, "does White win?"): White's
    // proof goes through positions where only Black has a lemma, which end a walk
    // of Black's proof alone.
    let over = prove_over(d, &store, &start, 5).certificate;
    let moved = over
        .over_tables(6, &cert.tables)
        .expect("onto larger tables");
    assert!(!moved.lemmas.is_empty());
    moved.write(&file).unwrap();
    assert_eq!(
        check_with(&file, d, &store).unwrap().proves,
        Proves::Value(Wdl::Draw)
    );
}
