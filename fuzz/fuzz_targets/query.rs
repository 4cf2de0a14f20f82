//! The HTTP API's query strings, as `fanotb serve` parses them: any bytes are a
//! position query and a chart query, each refused with a clear error or answered
//! from real tables (tsivy up to 3 stones, plain and under the no-capture limit 20)
//! without a panic. HTTP itself (request lines, headers) is hyper's.
#![no_main]

use std::sync::OnceLock;

use fanotb::{Board, ChartQuery, Limit, Options, PositionQuery, Signature, Tablebase};
use libfuzzer_sys::fuzz_target;

fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fanotb-fuzz-query-{}", std::process::id()));
        let sigs = Signature::all_up_to(3);
        fanotb::generate(&d, Board::tsivy(), &sigs, &Options::default(), |_| {}).unwrap();
        let limited = Options::rule_aware(Limit::new(20).unwrap());
        fanotb::generate(&d, Board::tsivy(), &sigs, &limited, |_| {}).unwrap();
        Tablebase::open(&d).unwrap()
    })
}

fuzz_target!(|bytes: &[u8]| {
    let tb = tables();
    let text = String::from_utf8_lossy(bytes);
    match PositionQuery::parse(&text) {
        Ok(q) => {
            let _ = tb.probe(&q.position, q.rules).map(|v| v.to_string());
            let _ = tb.moves(&q.position, q.rules);
            if let Ok(line) = tb.line(&q.position, q.rules) {
                // A line is played out from the position: every move legal.
                let mut pos = q.position;
                for m in &line {
                    assert!(
                        pos.legal_moves().contains(&m.mv),
                        "{pos}: {}",
                        m.mv.notation(pos.board())
                    );
                    pos = pos.apply(&m.mv);
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    match ChartQuery::parse(&text) {
        Ok(q) => {
            if let Some(sig) = q.signature {
                let _ = tb.depths(q.board, q.kind, sig);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
