//! The worked examples of the rules texts and hand-made positions for each rule.

use fanotb::{Board, MoveError, Position, PositionError};

fn pos(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn notations(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|m| m.notation(p.board()))
        .collect();
    v.sort();
    v
}

fn taken(p: &Position, mv: &str) -> Vec<String> {
    let m = p.parse_move(mv).unwrap();
    p.board().point_names(m.captured())
}

fn illegal_reason(p: &Position, mv: &str) -> String {
    match p.parse_move(mv) {
        Err(MoveError::Illegal { reason, .. }) => reason,
        other => panic!("{mv} should be illegal, got {other:?}"),
    }
}

#[test]
fn tsivy_start_text_and_moves() {
    let start = Position::start(Board::tsivy());
    assert_eq!(
        start.to_string(),
        "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w"
    );
    assert_eq!(Position::parse_arg("start").unwrap(), start);
    assert_eq!(
        notations(&start),
        ["d2-e3A", "d3-e3A", "d3-e3W", "e2-e3A", "f2-e3A"]
    );
    assert_eq!(taken(&start, "d2-e3A"), ["f4", "g5"]);
    // Withdrawal from c3 stops at b3, White's own: a3 stays.
    assert_eq!(taken(&start, "d3-e3W"), ["c3"]);
    assert_eq!(taken(&start, "d3-e3A"), ["f3"]);
    assert_eq!(start.successors().len(), 5);
}

#[test]
fn small_board_starts() {
    let cases = [
        ("5x5", "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w"),
        ("3x3", "BBB/B1W/WWW w"),
        ("7x3", "BBBBBBB/BWB1WBW/WWWWWWW w"),
        ("3x5", "BBB/BBB/B1W/WWW/WWW w"),
    ];
    for (name, text) in cases {
        let p = Position::parse_arg(&format!("start:{name}")).unwrap();
        assert_eq!(p.to_string(), text);
        // A half turn with colours swapped gives the same position.
        let b = p.board();
        let turn = &b.symmetries()[3];
        let swapped =
            Position::new(b, turn.apply(p.black()), turn.apply(p.white()), p.turn()).unwrap();
        assert_eq!(swapped, p, "{name}");
    }
}

#[test]
fn chain_may_not_repeat_its_direction() {
    // b1-c1 withdraws from a1 eastwards; c1-d1 would approach e1, east again.
    let p = pos("9/9/9/9/BW2B4 w");
    assert_eq!(notations(&p), ["b1-c1W"]);
    assert!(illegal_reason(&p, "b1-c1W-d1A").contains("repeats the direction"));
}

#[test]
fn chain_may_not_return_to_any_point_including_its_start() {
    // c1-d1A takes e1, d1-d2A takes d3; d2-c1W would take e3 but c1 is the start.
    let p = pos("9/9/3BB4/9/2W1B4 w");
    let moves = notations(&p);
    assert!(moves.contains(&"c1-d1A".to_string()));
    assert!(moves.contains(&"c1-d1A-d2A".to_string()), "{moves:?}");
    assert!(!moves.iter().any(|m| m.starts_with("c1-d1A-d2A-c1")));
    assert!(illegal_reason(&p, "c1-d1A-d2A-c1W").contains("already stood on c1"));
}

#[test]
fn every_stopping_point_is_a_move() {
    let p = pos("9/9/3BB4/9/2W1B4 w");
    let a = p.parse_move("c1-d1A").unwrap();
    let b = p.parse_move("c1-d1A-d2A").unwrap();
    assert_eq!(p.board().point_names(a.captured()), ["e1"]);
    assert_eq!(p.board().point_names(b.captured()), ["e1", "d3"]);
    assert_ne!(p.apply(&a), p.apply(&b));
}

#[test]
fn approach_or_withdrawal_is_a_choice_never_both() {
    let start = Position::start(Board::tsivy());
    let a = start.play(["d3-e3A"]).unwrap();
    let w = start.play(["d3-e3W"]).unwrap();
    assert_ne!(a, w);
    assert_eq!(a.white().count_ones(), 22);
    assert_eq!(a.black().count_ones() + w.black().count_ones(), 42);
    assert!(illegal_reason(&start, "d3-e3").contains("add A or W"));
}

#[test]
fn capture_is_compulsory_anywhere_on_the_board() {
    // Only a1 can capture (approach b1-> c1); the stone on i5 may not make a paika.
    let p = pos("8W/9/9/9/W1B6 w");
    assert_eq!(notations(&p), ["a1-b1A"]);
    let reason = illegal_reason(&p, "i5-h5");
    assert!(reason.contains("capture is compulsory"), "{reason}");
    // Without the capture, paikas are legal.
    let q = pos("8W/9/9/9/W8 w");
    assert!(q.parse_move("i5-h5").is_ok());
    assert!(!q.legal_moves()[0].is_capture());
}

#[test]
fn a_side_with_no_move_or_no_stones_has_lost() {
    let stuck = pos("3/BB1/WB1 w");
    assert!(stuck.legal_moves().is_empty());
    assert!(stuck.is_lost());
    assert!(illegal_reason(&stuck, "a1-b2").contains("no legal move"));
    let none = pos("3/1B1/3 w");
    assert!(none.is_lost());
    assert!(!pos("3/1B1/W2 w").is_lost());
}

#[test]
fn bad_position_text_is_a_clear_error() {
    let err = |t: &str| t.parse::<Position>().unwrap_err();
    assert_eq!(
        err("BBB/B1/WWW w"),
        PositionError::RowLength {
            row: 2,
            text_row: 2,
            found: 2,
            expected: 3
        }
    );
    assert!(matches!(
        err("BBB/BXW/WWW w"),
        PositionError::BadChar {
            row: 2,
            column: 2,
            ch: 'X',
            ..
        }
    ));
    assert_eq!(err("BBB/B1W/WWW"), PositionError::MissingSide);
    assert_eq!(err("BBB/B1W/WWW x"), PositionError::BadSide("x".into()));
    assert!(matches!(err("BBBB/B2W/WWWW w"), PositionError::Board(_)));
    assert!(matches!(err("BB/BW w"), PositionError::Board(_)));
    assert_eq!(err(""), PositionError::Empty);
    assert!(err("BBB//WWW w").to_string().contains("row 2"));
    assert!(Position::parse_arg("start:4x3").is_err());
}

#[test]
fn bad_notation_is_a_clear_error() {
    let start = Position::start(Board::tsivy());
    for bad in ["d2", "d2-", "z9-e3", "d2A-e3", "d2-e3X", ""] {
        assert!(
            matches!(start.parse_move(bad), Err(MoveError::Notation { .. })),
            "{bad}"
        );
    }
    assert!(
        illegal_reason(&start, "a3-a4").contains("not empty")
            || illegal_reason(&start, "a3-a4").contains("no White")
    );
    assert!(illegal_reason(&start, "e4-e3A").contains("no White stone on e4"));
    assert!(illegal_reason(&start, "d2-e3W").contains("nothing by withdrawal"));
    assert!(illegal_reason(&start, "c2-e3A").contains("no line joins"));
    // b1 is weak (x + y odd): no diagonal from it; b2 is strong.
    let p = pos("9/9/9/9/1W7 w");
    assert!(illegal_reason(&p, "b1-c2").contains("no line joins"));
    assert!(pos("9/9/9/1W7/9 w").parse_move("b2-c3").is_ok());
    let err = start.play(["d2-e3A", "e3-d3A"]).unwrap_err().to_string();
    assert!(err.contains("e3-d3A"), "{err}");
}

#[test]
fn parsing_is_strict() {
    let err = |s: &str| s.parse::<Position>().unwrap_err();
    // Adjacent digits are neither twelve nor one plus two.
    assert!(matches!(
        err("3WW12B/9/9/9/9 w"),
        PositionError::AdjacentDigits { column: 7, .. }
    ));
    // Only an ASCII space separates the rows from the side.
    assert_eq!(err("BBB/B1W/WWW\u{3000}w"), PositionError::MissingSide);
    assert_eq!(err("BBB/B1W/WWW\tw"), PositionError::MissingSide);
    assert!(matches!(
        err("BBB/B1W\u{3000}/WWW w"),
        PositionError::BadChar { .. }
    ));
    assert_eq!(err("BBB/B1W/WWW  w"), PositionError::BadSide(" w".into()));
    assert_eq!(err("BBB/B1W/WWW w x"), PositionError::Trailing("x".into()));
    // Surrounding ASCII whitespace is fine.
    assert!(" BBB/B1W/WWW w\n".parse::<Position>().is_ok());
    // Point names: one letter, one digit 1-9, nothing else.
    let start = Position::start(Board::tsivy());
    for bad in [
        "d+2-e3A",
        "d02-e+03A",
        "d2-e03A",
        "d2 -e3A",
        "D2-e3A",
        "d0-e3A",
    ] {
        assert!(
            matches!(start.parse_move(bad), Err(MoveError::Notation { .. })),
            "{bad}"
        );
    }
    assert!(start.parse_move("d2-e3A").is_ok());
}
