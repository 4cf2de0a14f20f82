pub mod naive;

use fanotb::Outcome;
use naive::Value;

/// The crate's form of a brute-force value.
#[allow(dead_code)] // not every test crate compares with tables
pub fn outcome(v: Value) -> Outcome {
    match v {
        Value::Win(d) => Outcome::Win(d),
        Value::Loss(d) => Outcome::Loss(d),
        Value::Draw => Outcome::Draw,
    }
}
