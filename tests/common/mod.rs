pub mod naive;

use fanotb::{Board, Options, Outcome, Signature, generate};
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

/// Every table of `board` with up to `max` stones, in a new directory.
#[allow(dead_code)] // not every test crate builds tables
pub fn tables(board: &'static Board, max: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        board,
        &Signature::all_up_to(max),
        &Options::default(),
        |_| {},
    )
    .unwrap();
    dir
}
