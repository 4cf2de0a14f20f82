//! Move notation and play: from a few fixed positions, any sequence of move texts
//! is played or refused with a clear error; what is played stays a legal position.
#![no_main]

use fanotb::Position;
use libfuzzer_sys::fuzz_target;

const STARTS: [&str; 4] = [
    "start",
    "start:5x5",
    "9/9/3BB4/9/2W1B4 w",
    "B1B1B1B1B/1W1W1W1W1/B1B1B1B1B/1W1W1W1W1/B1B1B1B1B/1W1W1W1W1/B1B1B1B1B w",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let mut pos = Position::parse_arg(STARTS[which as usize % STARTS.len()]).unwrap();
    let text = String::from_utf8_lossy(rest);
    for mv in text.split(',') {
        match pos.parse_move(mv) {
            Ok(m) => {
                let next = pos.apply(&m);
                assert!(pos.successors().contains(&next));
                pos = next;
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
