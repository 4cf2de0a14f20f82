//! Whole-board solutions of the small boards that solve in seconds, against the
//! published results (Schadd et al. 2007: White wins 3x3, 3x5 and 5x3).

use fanotb::Options;
use fanotb::Outcome;
use fanotb::Tablebase;
use fanotb::{Board, Position};
use fanotb::{published, solve};

fn win(d: u32) -> Outcome {
    Outcome::Win(d)
}

#[test]
fn small_boards_are_white_wins_proved_by_search() {
    let dir = tempfile::tempdir().unwrap();
    for (w, h, depth, best) in [
        (3, 3, 11, "c1-b2A"),
        (5, 3, 11, "c1-c2A"),
        (3, 5, 13, "b2-b3A"),
    ] {
        let board = Board::get(w, h).unwrap();
        let s = solve(
            dir.path(),
            &Position::start(board),
            &Options::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!(s.outcome, win(depth), "{w}x{h}");
        assert_eq!(published(board), Some("win"));
        // The independent search proves the same value and depth.
        assert_eq!(s.search.outcome, Some(s.outcome), "{w}x{h}");
        assert_eq!(s.moves[0].mv.notation(board), best);
        assert_eq!(s.moves[0].value, fanotb::Value::Plain(win(depth)));
        // The line ends the game in exactly `depth` plies.
        assert_eq!(s.line.len() as u32, depth);
        assert!(s.line.last().unwrap().result.is_lost());
        // The tables hold every position of each side up to the start material.
        let n = board.points();
        let half = (n - 1) / 2;
        let expected: u64 = (1..=half)
            .flat_map(|a| (1..=half).map(move |b| (a, b)))
            .map(|(a, b)| fanotb::internals::binom(n, a) * fanotb::internals::binom(n - a, b))
            .sum();
        assert_eq!(s.positions, expected, "{w}x{h}");
    }
}

#[test]
fn solve_from_another_position_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(3, 3).unwrap();
    let pos: Position = "W2/3/1B1 w".parse().unwrap();
    let s = solve(dir.path(), &pos, &Options::default(), |_| {}).unwrap();
    assert_eq!(s.outcome, Outcome::Win(3));
    assert_eq!(s.search.outcome, Some(s.outcome));
    // Solving again finds every table complete.
    let again = solve(dir.path(), &pos, &Options::default(), |_| {}).unwrap();
    assert!(again.tables.iter().all(|t| t.skipped));
    assert_eq!(again.outcome, s.outcome);
    assert!(
        solve(
            dir.path(),
            &"3/1B1/3 w".parse().unwrap(),
            &Options::default(),
            |_| {}
        )
        .is_err()
    );
    assert_eq!(Position::start(board).to_string(), "BBB/B1W/WWW w");
}

#[test]
fn tablebase_is_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Tablebase>();
}
