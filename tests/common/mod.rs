#[allow(dead_code)] // the command-line tests' alone
pub mod cli;
pub mod naive;
#[allow(dead_code)] // the proof tests' alone
pub mod prove;
pub mod server;

use fanotb::{Board, Limit, Limited, Options, Outcome, Position, Signature, Tablebase, generate};
use naive::Value;

/// The value a rule-aware table stores for `pos` (at counter 0, with T).
#[allow(dead_code)] // not every test crate reads rule-aware tables
pub fn stored(tb: &Tablebase, pos: &Position, limit: Limit) -> Result<Limited, fanotb::ProbeError> {
    match tb.probe(pos, limit.into())? {
        fanotb::Value::Limited { stored, .. } => Ok(stored),
        v => panic!("a rule-aware probe answered {v:?}"),
    }
}

/// The plain value and depth of `pos`.
#[allow(dead_code)] // not every test crate probes
pub fn plain(tb: &Tablebase, pos: &Position) -> Result<Outcome, fanotb::ProbeError> {
    match tb.probe(pos, fanotb::Rules::PLAIN)? {
        fanotb::Value::Plain(o) => Ok(o),
        v => panic!("a plain probe answered {v:?}"),
    }
}

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

/// Checks every table's depth histogram against brute-force depths. `decided` gives,
/// for each brute-force position, `Some((won, depth))` for a win or a loss (depth:
/// plies, or T under a limit), `None` for a draw; each placement is counted once,
/// with White to move, as the tables count it.
#[allow(dead_code)] // not every test crate compares with tables
pub fn check_depths<'a>(
    tb: &fanotb::Tablebase,
    board: &'static Board,
    limit: Option<fanotb::Limit>,
    decided: impl Iterator<Item = (&'a naive::NaivePos, Option<(bool, u32)>)>,
) {
    use std::collections::HashMap;
    let mut want: HashMap<Signature, fanotb::DepthHistogram> = HashMap::new();
    for (p, d) in decided {
        let (us, them) = (p.count(naive::WHITE), p.count(naive::BLACK));
        if !p.white_to_move || us == 0 || them == 0 {
            continue;
        }
        let h = want
            .entry(Signature::new(us as u8, them as u8))
            .or_default();
        let Some((won, depth)) = d else { continue };
        let counts = if won { &mut h.wins } else { &mut h.losses };
        if counts.len() <= depth as usize {
            counts.resize(depth as usize + 1, 0);
        }
        counts[depth as usize] += 1;
    }
    assert!(!want.is_empty());
    for (sig, h) in want {
        assert_eq!(tb.depths(board, limit.into(), sig).unwrap(), h, "{sig}");
    }
}

/// A random position of 2 to 4 stones, each side at least one.
#[allow(dead_code)] // not every test crate draws positions
pub fn random_position(rng: &mut Rng, board: &'static Board) -> Position {
    let stones = 2 + rng.below(3) as usize;
    let mut points = Vec::new();
    while points.len() < stones {
        let p = rng.below(board.points() as u64);
        if !points.contains(&p) {
            points.push(p);
        }
    }
    let mine = 1 + rng.below(stones as u64 - 1) as usize;
    let bits = |ps: &[u64]| ps.iter().fold(0u64, |a, p| a | 1 << p);
    let turn = if rng.below(2) == 0 {
        fanotb::Color::White
    } else {
        fanotb::Color::Black
    };
    Position::from_sides(board, bits(&points[..mine]), bits(&points[mine..]), turn)
}

/// `n` stones on random points of `board`, as the stones of the side to move (the
/// first `mine`) and the other's.
#[allow(dead_code)] // not every test crate draws positions
pub fn random_stones(rng: &mut Rng, board: &'static Board, n: usize, mine: usize) -> (u64, u64) {
    let mut free: Vec<u8> = (0..board.points() as u8).collect();
    let (mut us, mut them) = (0u64, 0u64);
    for i in 0..n {
        let p = free.swap_remove(rng.below(free.len() as u64) as usize);
        if i < mine {
            us |= 1 << p;
        } else {
            them |= 1 << p;
        }
    }
    (us, them)
}
