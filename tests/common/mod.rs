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

/// A small deterministic generator (xorshift64*), so failures reproduce.
#[allow(dead_code)] // not every test crate draws random positions
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
