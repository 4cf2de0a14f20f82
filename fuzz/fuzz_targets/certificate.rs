//! The certificate reader and checker: any bytes offered as a proof certificate are
//! refused with a clear error or accepted, and an accepted one states the true
//! value (or, for a lemma, a true claim). The truth comes from tables of every material on 3x3 (any 3x3 root) and
//! of up to 3 stones on tsivy (tsivy roots that small): a certificate of another
//! root can only be checked for not panicking.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use fanotb::{Board, CheckOptions, Claim, Proves, Rules, Signature, Tablebase, Wdl, check_proof};
use libfuzzer_sys::fuzz_target;

/// The table directory, built once per process, and the tables opened on it.
fn tables() -> &'static (PathBuf, Tablebase) {
    static DIR: OnceLock<(PathBuf, Tablebase)> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fanotb-fuzz-cert-{}", std::process::id()));
        let opts = fanotb::Options::default();
        let three = Board::get(3, 3).unwrap();
        fanotb::generate(&d, three, &Signature::all_up_to(9), &opts, |_| {}).unwrap();
        fanotb::generate(&d, Board::tsivy(), &Signature::all_up_to(3), &opts, |_| {}).unwrap();
        let tb = Tablebase::open(&d).unwrap();
        (d, tb)
    })
}

fuzz_target!(|bytes: &[u8]| {
    let (dir, tb) = tables();
    let file = dir.join("input.fnproof");
    std::fs::write(&file, bytes).unwrap();
    match check_proof(&file, dir, &CheckOptions::default()) {
        Err(e) => {
            let _ = e.to_string();
        }
        Ok(report) => {
            let root = report.root;
            let small =
                root.board().points() == 9 || (root.white() | root.black()).count_ones() <= 3;
            if small {
                let truth = tb.value(&root, Rules::PLAIN).unwrap();
                match report.proves {
                    Proves::Value(v) => assert_eq!(v, truth, "accepted a false value for {root}"),
                    Proves::Lemma(side, claim) => {
                        let for_side = if side == root.turn() {
                            truth
                        } else {
                            truth.flipped()
                        };
                        let holds = match claim {
                            Claim::Win => for_side == Wdl::Win,
                            Claim::NotLose => for_side != Wdl::Loss,
                        };
                        assert!(holds, "accepted a false lemma for {root}");
                    }
                }
            }
        }
    }
});
