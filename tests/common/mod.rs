pub mod naive;

use fanotb::probe::Outcome;
use fanotb::table::Wdl;
use naive::Value;

/// The crate's form of a brute-force value.
#[allow(dead_code)] // not every test crate compares with tables
pub fn outcome(v: Value) -> Outcome {
    match v {
        Value::Win(d) => Outcome {
            value: Wdl::Win,
            depth: Some(d),
        },
        Value::Loss(d) => Outcome {
            value: Wdl::Loss,
            depth: Some(d),
        },
        Value::Draw => Outcome {
            value: Wdl::Draw,
            depth: None,
        },
    }
}
