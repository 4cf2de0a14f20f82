//! perft counts from tests/data/perft.txt, each checked with the fast generator and
//! confirmed with the naive reference.

mod common;

use common::naive;
use fanotb::{Position, perft, perft_divide};

fn cases() -> Vec<(String, u32, u64)> {
    include_str!("data/perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_matches_data_file() {
    let cases = cases();
    assert!(cases.len() >= 20);
    for (text, depth, count) in cases {
        let pos: Position = text.parse().unwrap();
        assert_eq!(perft(&pos, depth), count, "{text} depth {depth}");
    }
}

#[test]
fn perft_data_confirmed_by_naive_generator() {
    for (text, depth, count) in cases() {
        assert_eq!(
            naive::perft(&naive::parse(&text), depth),
            count,
            "{text} depth {depth}"
        );
    }
}

#[test]
fn divide_sums_to_perft() {
    let pos = Position::parse_arg("start").unwrap();
    let lines = perft_divide(&pos, fanotb::Rules::PLAIN, 4);
    assert_eq!(lines.len(), 5);
    let total: u64 = lines
        .iter()
        .filter(|l| l.same_as.is_none())
        .map(|l| l.count)
        .sum();
    assert_eq!(total, 18026);
}
