//! Rule-aware tables (the no-capture limit) against the brute-force solver over
//! (position, counter) states, on boards and limits small enough that the limit
//! really bites.

mod common;

use std::collections::HashMap;

use common::naive::{self, NaivePos, Value};
use fanotb::{
    Board, Limit, Limited, Options, Position, Rules, Signature, Tablebase, Wdl, generate, verify,
};

/// Under `limit` at `counter`.
fn rules(limit: Limit, counter: u32) -> Rules {
    Rules::no_capture_limit(limit, counter).unwrap()
}

fn rule_aware_tables(board: &'static Board, max: usize, limit: Limit) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::rule_aware(limit);
    generate(dir.path(), board, &Signature::all_up_to(max), &opts, |_| {}).unwrap();
    dir
}

/// Every position with stones on both sides: the stored rule-aware value answers
/// every counter 0..=N as the brute force does; its draws are cursed or blessed
/// exactly when the plain value is a win or a loss; every move's value at the
/// counter it leads to is the brute force's; the best moves keep the value and T.
/// Returns the cursed wins and blessed losses seen.
fn ours(w: &naive::Wdl) -> Wdl {
    match w {
        naive::Wdl::Win => Wdl::Win,
        naive::Wdl::Draw => Wdl::Draw,
        naive::Wdl::Loss => Wdl::Loss,
    }
}

fn compare(
    tb: &Tablebase,
    limit: Limit,
    limited: &HashMap<NaivePos, Vec<naive::Wdl>>,
    plain: &HashMap<NaivePos, Value>,
) -> (u64, u64) {
    let (mut cursed, mut blessed) = (0, 0);
    for (p, per_counter) in limited {
        if p.count(1) == 0 || p.count(2) == 0 {
            continue;
        }
        let pos = naive::to_text(p).parse::<Position>().unwrap();
        let stored = common::stored(tb, &pos, limit).unwrap();
        for (c, want) in per_counter.iter().map(ours).enumerate() {
            let got = tb.value(&pos, rules(limit, c as u32)).unwrap();
            assert_eq!(got, want, "{pos} at counter {c}: stored {stored}");
        }
        let without = match plain[p] {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        };
        match stored {
            Limited::CursedWin => {
                assert_eq!(without, Wdl::Win, "{pos}");
                cursed += 1;
            }
            Limited::BlessedLoss => {
                assert_eq!(without, Wdl::Loss, "{pos}");
                blessed += 1;
            }
            Limited::Draw => assert_eq!(without, Wdl::Draw, "{pos}"),
            decided => assert_eq!(decided.wdl(), without, "{pos}"),
        }
        // The moves at a counter where the value holds, and one beyond.
        let c = stored
            .plies_to_capture()
            .map_or(0, |t| limit.plies().saturating_sub(t));
        for c in [c, (c + 1).min(limit.plies())] {
            let moves = tb.moves(&pos, rules(limit, c)).unwrap();
            for m in &moves {
                let after = naive::parse(&m.result.to_string());
                let want = if m.result.us() == 0 {
                    Wdl::Loss
                } else {
                    ours(&limited[&after][m.rules.counter() as usize])
                };
                assert_eq!(
                    m.value.wdl(),
                    want.flipped(),
                    "{pos} at {c}: {}",
                    m.mv.notation(pos.board())
                );
            }
            let best = tb.best_moves(&pos, rules(limit, c)).unwrap();
            let value = tb.value(&pos, rules(limit, c)).unwrap();
            if c == limit.plies() {
                assert!(moves.is_empty(), "{pos}: no move at the limit");
                continue;
            }
            if let Some(b) = best.first() {
                assert_eq!(
                    b.value.wdl(),
                    value,
                    "{pos} at {c}: the best move keeps the value"
                );
                if value != Wdl::Draw {
                    assert_eq!(
                        b.value.depth(),
                        stored.plies_to_capture(),
                        "{pos} at {c}: the best move has T"
                    );
                }
            }
        }
    }
    (cursed, blessed)
}

/// The depth histograms hold T: a position won (lost) at counter 0 stays so up to
/// counter N - T (a stuck side, T = 0, loses at every counter).
fn check_depths(
    tb: &Tablebase,
    board: &'static Board,
    limit: Limit,
    limited: &HashMap<NaivePos, Vec<naive::Wdl>>,
) {
    common::check_depths(
        tb,
        board,
        Some(limit),
        limited.iter().map(|(p, per_counter)| {
            let first = ours(&per_counter[0]);
            let kept = per_counter.iter().filter(|w| ours(w) == first).count() as u32;
            let t = limit.plies() + 1 - kept;
            (p, (first != Wdl::Draw).then_some((first == Wdl::Win, t)))
        }),
    );
}

#[test]
fn five_by_three_up_to_four_stones_match_brute_force_for_small_limits() {
    let board = Board::get(5, 3).unwrap();
    let plain = naive::solve_all(5, 3, 4);
    let mut seen = Vec::new();
    for n in [1, 2, 3, 6, 12] {
        let limit = Limit::new(n).unwrap();
        let dir = rule_aware_tables(board, 4, limit);
        let tb = Tablebase::open(dir.path()).unwrap();
        let limited = naive::solve_limited(5, 3, 4, n as u32);
        seen.push((n, compare(&tb, limit, &limited, &plain)));
        check_depths(&tb, board, limit, &limited);
        // The independent verifier agrees, plain and rule-aware tables alike.
        let reports = verify(&tb, &[], None, |_| {}).unwrap();
        assert_eq!(reports.len(), 2 * 6, "6 plain and 6 rule-aware tables");
        for r in &reports {
            assert_eq!(r.mismatches, 0, "{:?}", r.examples);
            assert_eq!(r.stats_error, None);
        }
    }
    // The limit really bites at small N, and no more once N exceeds every depth.
    assert!(seen[0].1.0 > 1000 && seen[0].1.1 > 100, "{seen:?}");
    assert_eq!(seen[4].1, (0, 0), "{seen:?}");
}

/// A square board (eight symmetries, more symmetric stone sets).
#[test]
fn three_by_three_up_to_five_stones_match_brute_force() {
    let board = Board::get(3, 3).unwrap();
    let plain = naive::solve_all(3, 3, 5);
    let mut seen = Vec::new();
    for n in [1, 2, 4] {
        let limit = Limit::new(n).unwrap();
        let dir = rule_aware_tables(board, 5, limit);
        let tb = Tablebase::open(dir.path()).unwrap();
        let limited = naive::solve_limited(3, 3, 5, n as u32);
        seen.push(compare(&tb, limit, &limited, &plain));
        check_depths(&tb, board, limit, &limited);
    }
    assert!(seen[0].0 > 0 && seen[0].1 > 0, "N = 1 bites: {seen:?}");
}

#[test]
fn line_under_the_limit_keeps_the_result_and_ends_the_game() {
    let board = Board::get(5, 3).unwrap();
    let limit = Limit::new(6).unwrap();
    let dir = rule_aware_tables(board, 4, limit);
    let tb = Tablebase::open(dir.path()).unwrap();
    let limited = naive::solve_limited(5, 3, 4, 6);
    let mut lines = 0;
    for (p, per_counter) in &limited {
        if p.count(1) == 0 || p.count(2) == 0 || per_counter[0] != naive::Wdl::Win {
            continue;
        }
        let pos = naive::to_text(p).parse::<Position>().unwrap();
        let line = tb.line(&pos, limit.into()).unwrap();
        let last = line.last().expect("a win has a line");
        assert!(last.result.us() == 0 || last.result.is_lost(), "{pos}");
        assert_eq!(line.len() % 2, 1, "{pos}: the winner makes the last move");
        // Each move keeps the win for whoever moved, at the counter it leads to.
        for (i, m) in line.iter().enumerate() {
            let mover_wins = i % 2 == 0;
            assert_eq!(
                m.value.wdl(),
                if mover_wins { Wdl::Win } else { Wdl::Loss },
                "{pos}"
            );
            assert!(m.rules.counter() <= limit.plies(), "{pos}");
        }
        lines += 1;
    }
    assert!(lines > 1000, "{lines}");
}

#[test]
fn counters_above_the_limit_and_foreign_tables_are_refused() {
    let board = Board::get(5, 3).unwrap();
    let limit = Limit::new(3).unwrap();
    let dir = rule_aware_tables(board, 3, limit);
    let tb = Tablebase::open(dir.path()).unwrap();
    let pos = "5/1W3/3B1 w".parse::<Position>().unwrap();
    let err = Rules::no_capture_limit(limit, 4).unwrap_err();
    assert_eq!(
        err.to_string(),
        "counter 4 is above the no-capture limit 3: the game ended at 3"
    );
    // Tables of another limit are not there; a plain table put in their place is
    // refused as another table.
    let other = Limit::new(4).unwrap();
    assert!(
        tb.probe(&pos, other.into())
            .unwrap_err()
            .to_string()
            .starts_with("no table 1v1")
    );
    let n4 = dir.path().join("5x3/n4");
    std::fs::create_dir_all(&n4).unwrap();
    std::fs::copy(dir.path().join("5x3/1v1.fntb"), n4.join("1v1.fntb")).unwrap();
    let err = tb.probe(&pos, other.into()).unwrap_err().to_string();
    assert!(
        err.ends_with("holds 1v1 on 5x3, expected 1v1 on 5x3 under the no-capture limit 4"),
        "{err}"
    );
}
