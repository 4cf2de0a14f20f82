//! Proof bundles (docs/PROOF.md, "Proof bundles"): a certificate and exactly the
//! lemmas it relies on in one file, checked alone, played from, and refused when
//! damaged.

use std::path::Path;

use fanotb::{
    Board, CheckOptions, Color, Limits, Position, ProveOptions, Proves, SolvedGame, Wdl,
    bundle_proof, check_proof, prove,
};

/// Proves `pos` over the lemmas of `lemmas` (tables of up to 4 stones), writes its
/// own lemmas there and its certificate to `out`.
fn prove_into(dir: &Path, lemmas: &Path, pos: &Position, out: &Path) {
    let mut o = ProveOptions::default();
    o.max_table_stones = 4;
    o.threads = Some(2);
    o.limits = Limits::new(50_000_000, 50_000_000);
    o.lemmas = Some(lemmas.into());
    let proved = prove(dir, pos, &o, |_| {}, &|_| {}).expect("the search decides");
    proved.certificate.write_lemmas(lemmas).unwrap();
    proved.certificate.write(out).unwrap();
}

/// The 5x3 start proved over lemmas of its first moves, with one more lemma in the
/// directory that the start does not rely on: the directory, the root's file and
/// the lemma the root does not need.
fn composed(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let start = Position::start(Board::get(5, 3).unwrap());
    let lemmas = dir.join("lemmas");
    let scratch = dir.join("scratch.fnproof");
    for child in start.successors() {
        prove_into(dir, &lemmas, &child, &scratch);
    }
    let root = dir.join("root.fnproof");
    prove_into(dir, &lemmas, &start, &root);
    // A lemma of a position two plies deep, not relied on by the root.
    let deeper = start.successors()[0].successors()[0];
    prove_into(dir, &dir.join("other"), &deeper, &scratch);
    for entry in std::fs::read_dir(dir.join("other")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, lemmas.join(path.file_name().unwrap())).unwrap();
    }
    (lemmas, root)
}

#[test]
fn a_bundle_checks_alone_as_its_certificate_with_the_directory_does() {
    let dir = tempfile::tempdir().unwrap();
    let (lemmas, root) = composed(dir.path());
    let bundle = dir.path().join("start.fnproof");
    let written = bundle_proof(&root, &lemmas, &bundle).unwrap();
    assert_eq!(written.bytes, std::fs::metadata(&bundle).unwrap().len());

    let mut with_dir = CheckOptions::default();
    with_dir.lemmas = Some(lemmas.clone());
    let loose = check_proof(&root, dir.path(), &with_dir).unwrap();
    let alone = check_proof(&bundle, dir.path(), &CheckOptions::default()).unwrap();
    assert_eq!(alone.proves, Proves::Value(Wdl::Win));
    assert_eq!(
        (alone.proves, alone.positions, alone.moves, alone.lemmas),
        (loose.proves, loose.positions, loose.moves, loose.lemmas)
    );
    // Exactly the lemmas relied on: the directory holds one more.
    assert_eq!(written.lemmas, loose.lemmas);
    let in_dir = std::fs::read_dir(&lemmas).unwrap().count();
    assert!(in_dir > written.lemmas, "{in_dir} files, {written:?}");
    // The certificate alone names the lemmas it misses; the bundle does not.
    let e = check_proof(&root, dir.path(), &CheckOptions::default()).unwrap_err();
    assert!(e.to_string().contains("--lemmas"), "{e}");

    // Played from as the certificate with its directory is.
    let from_bundle = SolvedGame::load(&bundle, None).unwrap();
    let from_dir = SolvedGame::load(&root, Some(&lemmas)).unwrap();
    let start = Position::start(Board::get(5, 3).unwrap());
    assert!(from_bundle.proved(&start).is_some());
    for pos in std::iter::once(start).chain(start.successors()) {
        let (a, b) = (from_bundle.proved(&pos), from_dir.proved(&pos));
        assert_eq!(
            a.map(|f| f.claim(Color::White)),
            b.map(|f| f.claim(Color::White))
        );
        assert_eq!(
            from_bundle.move_for(&pos, pos.turn()),
            from_dir.move_for(&pos, pos.turn())
        );
    }
}

#[test]
fn a_damaged_or_cut_bundle_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (lemmas, root) = composed(dir.path());
    let bundle = dir.path().join("start.fnproof");
    bundle_proof(&root, &lemmas, &bundle).unwrap();
    let good = std::fs::read(&bundle).unwrap();
    let cert_len = u64::from_le_bytes(good[12..20].try_into().unwrap()) as usize;
    let bad = dir.path().join("bad.fnproof");
    let check = |bytes: &[u8]| {
        std::fs::write(&bad, bytes).unwrap();
        let e = check_proof(&bad, dir.path(), &CheckOptions::default());
        e.map(|r| r.proves).unwrap_err().to_string()
    };
    // A flipped byte in the certificate, in the pack's index, in its last segment.
    for at in [20 + cert_len / 2, 20 + cert_len + 40, good.len() - 30] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x10;
        let e = check(&bytes);
        assert!(e.contains("damaged"), "byte {at}: {e}");
    }
    // Cut short: in the pack, and in the certificate.
    for len in [good.len() - 5, 20 + cert_len - 5] {
        let e = check(&good[..len]);
        assert!(e.contains("damaged"), "{len} bytes: {e}");
    }
    // A lemma missing from the directory: nothing written.
    let missing = dir.path().join("empty");
    std::fs::create_dir(&missing).unwrap();
    let out = dir.path().join("none.fnproof");
    let e = bundle_proof(&root, &missing, &out).unwrap_err().to_string();
    assert!(e.contains("a lemma relied on, is not in"), "{e}");
    assert!(!out.exists());
    // What cannot be bundled, each said as it is.
    for (cert, lemmas, out, why) in [
        (&bundle, &lemmas, &out, "a bundle already"),
        (&root, &lemmas, &root, "the certificate itself"),
        (&root, &root, &out, "not a lemma directory"),
    ] {
        let e = bundle_proof(cert, lemmas, out).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
    assert!(!out.exists());
    // Cut in its header, after its certificate; another version, named.
    for (bytes, why) in [
        (good[..14].to_vec(), "cut short in its header"),
        (
            good[..20 + cert_len].to_vec(),
            "cut short after its certificate",
        ),
        (
            [&good[..8], &2u32.to_le_bytes(), &good[12..]].concat(),
            "format version 2; this build reads version 1",
        ),
    ] {
        let e = check(&bytes);
        assert!(e.contains(why), "{e}");
    }
    // A bundle that holds a lemma its certificate does not rely on is refused.
    let report = fanotb::pack_lemmas(&lemmas, fanotb::Packing::All, &[]).unwrap();
    let pack = std::fs::read(report.pack.unwrap()).unwrap();
    let cert = &good[20..20 + cert_len];
    let head = [&good[..12], &(cert.len() as u64).to_le_bytes()].concat();
    let e = check(&[&head[..], cert, &pack].concat());
    assert!(e.contains("nothing there relies on it"), "{e}");
}
