//! Game records: any text reads to a record or a clear error; a record prints to
//! text that reads back to the same record, and replays by the rules or says which
//! ply cannot be played, without a panic.
#![no_main]

use fanotb::Record;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(record) = text.parse::<Record>() {
        let again: Record = record
            .to_string()
            .parse()
            .expect("printed records read back");
        assert_eq!(again, record);
        if let Ok(game) = record.replay() {
            let _ = game.end();
        }
    }
});
