//! The table reader: any bytes under a table's name, plain or rule-aware, are read as
//! a table or refused with a clear error, whatever the probe, the statistics or the
//! verifier ask.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use fanotb::{Board, Position, Rules, Signature, Tablebase, verify};
use libfuzzer_sys::fuzz_target;

/// A directory of real tsivy tables up to 3 stones, plain and for the no-capture
/// limit 20, built once per process; each input replaces both 2v1 tables.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fanotb-fuzz-{}", std::process::id()));
        fanotb::generate(
            &d,
            Board::tsivy(),
            &Signature::all_up_to(3),
            &fanotb::Options::rule_aware(fanotb::Limit::new(20).unwrap()),
            |_| {},
        )
        .expect("tables build");
        d
    })
}

fuzz_target!(|bytes: &[u8]| {
    let dir = dir();
    std::fs::write(dir.join("9x5/2v1.fntb"), bytes).unwrap();
    std::fs::write(dir.join("9x5/n20/2v1.fntb"), bytes).unwrap();
    let tb = Tablebase::open(dir).unwrap();
    let pos: Position = "9/9/3WW4/9/B8 w".parse().unwrap();
    let limit = fanotb::Limit::new(20).unwrap();
    let limited = (limit.into(), Rules::no_capture_limit(limit, 7).unwrap());
    for (at_zero, at) in [(Rules::PLAIN, Rules::PLAIN), limited] {
        let _ = tb.probe(&pos, at_zero).map(|o| o.to_string());
        let _ = tb.value(&pos, at);
        let _ = tb.moves(&pos, at);
    }
    let _ = tb.tables();
    let _ = verify(&tb, &["2v1".parse().unwrap()], None, |_| {});
});
