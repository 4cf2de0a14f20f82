//! What the proof tests share: searches with their options, certificates checked
//! with and without a lemma directory, and tampered certificates checked.

use std::path::Path;

use fanotb::{
    Certificate, CheckError, CheckOptions, CheckReport, Limits, Position, ProveOptions, Proved,
    Wdl, prove,
};

/// `check-proof` as by default: the certificate against the tables by checksum.
pub fn check(file: &Path, dir: &Path) -> Result<CheckReport, CheckError> {
    fanotb::check_proof(file, dir, &CheckOptions::default())
}

pub fn opts(k: usize) -> ProveOptions {
    let mut o = ProveOptions::default();
    o.max_table_stones = k;
    o.threads = Some(2);
    o.limits = Limits::new(50_000_000, 50_000_000);
    o
}

pub fn run(dir: &Path, pos: &Position, k: usize) -> Proved {
    prove(dir, pos, &opts(k), |_| {}, &|_| {}).expect("the proof search decides")
}

/// Proves `pos`, writes and checks the certificate, and returns the value.
pub fn prove_and_check(dir: &Path, pos: &Position, k: usize) -> (Wdl, Certificate) {
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

/// The check of `cert` written as positions (version 1 or 2: version 4 writes only
/// the moves of a walk, so a tampered order or notation could not be written).
pub fn rejected(dir: &Path, cert: &Certificate) -> String {
    let file = dir.join("tampered.fnproof");
    std::fs::write(&file, cert.to_listed_bytes()).unwrap();
    match check(&file, dir) {
        Ok(r) => panic!("a tampered certificate passed: {r:?}"),
        Err(e) => e.to_string(),
    }
}

/// `check-proof --lemmas DIR`.
pub fn check_with(file: &Path, dir: &Path, lemmas: &Path) -> Result<CheckReport, CheckError> {
    let mut o = CheckOptions::default();
    o.lemmas = Some(lemmas.into());
    fanotb::check_proof(file, dir, &o)
}

/// Proves `pos` with the lemmas of `lemmas` as leaves, every one of them checked
/// and taken (none refused).
pub fn prove_over(dir: &Path, lemmas: &Path, pos: &Position, k: usize) -> Proved {
    let mut o = opts(k);
    o.lemmas = Some(lemmas.into());
    let proved = prove(dir, pos, &o, |_| {}, &|_| {}).expect("the proof search decides");
    assert!(
        proved.lemmas_refused.is_empty(),
        "{:?}",
        proved.lemmas_refused
    );
    proved
}

/// Proves `pos` with the lemmas of `lemmas` as leaves, and writes its own lemmas
/// there, as `prove --lemmas` does.
pub fn prove_into(dir: &Path, lemmas: &Path, pos: &Position, k: usize) -> Proved {
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
pub fn positions_at(root: &Position, depth: usize) -> Vec<Position> {
    let mut level = vec![*root];
    for _ in 0..depth {
        let mut next: Vec<Position> = level.iter().flat_map(|p| p.successors()).collect();
        next.sort_by_key(|p| (p.white(), p.black(), p.turn() as u8));
        next.dedup();
        level = next;
    }
    level
}
