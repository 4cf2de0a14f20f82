//! Position text: any string parses to a position or a clear error, and a position
//! prints to text that parses back to it.
#![no_main]

use fanotb::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(pos) = Position::parse_arg(text) {
        let again: Position = pos.to_string().parse().expect("printed text parses");
        assert_eq!(again, pos);
        let _ = pos.diagram();
    }
});
