//! Lemma packs: any bytes offered as a pack in a lemma directory are read up to a
//! cut, with damaged segments left out, or refused with a clear error, by the
//! checker (a pack stands for its lemmas), by a search's reading of the directory
//! (through `pack-lemmas`), never with a panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use fanotb::{Board, CheckOptions, Packing, Signature, check_proofs, pack_lemmas};
use libfuzzer_sys::fuzz_target;

/// The table directory (every material on 3x3), built once per process.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fanotb-fuzz-pack-{}", std::process::id()));
        let three = Board::get(3, 3).unwrap();
        fanotb::generate(&d, three, &Signature::all_up_to(9), &fanotb::Options::default(), |_| {})
            .unwrap();
        d
    })
}

fuzz_target!(|bytes: &[u8]| {
    let dir = dir();
    let lemmas = dir.join("lemmas");
    let _ = std::fs::remove_dir_all(&lemmas);
    std::fs::create_dir_all(&lemmas).unwrap();
    let pack = lemmas.join("input.fnpack");
    std::fs::write(&pack, bytes).unwrap();
    let mut opts = CheckOptions::default();
    opts.lemmas = Some(lemmas.clone());
    if let Err(e) = check_proofs(&[pack], dir, &opts) {
        let _ = e.to_string();
    }
    if let Err(e) = pack_lemmas(&lemmas, Packing::All, &[]) {
        let _ = e.to_string();
    }
});
