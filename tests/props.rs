//! Property tests: position text and notation round trips.

use fanotb::{Board, Color, Position};
use proptest::prelude::*;

/// A random position on a random supported board.
fn position() -> impl Strategy<Value = Position> {
    let boards = Board::all_supported();
    (0..boards.len(), any::<u64>(), any::<u64>(), any::<bool>()).prop_map(
        move |(b, x, y, white)| {
            let board = boards[b];
            let (w, bl) = (x & board.all(), y & board.all() & !x);
            // Thin out the stones so positions have room to move.
            let keep = x.rotate_left(17) | y.rotate_left(31);
            let turn = if white { Color::White } else { Color::Black };
            Position::new(board, w & keep, bl & !keep, turn).unwrap()
        },
    )
}

proptest! {
    #[test]
    fn position_text_round_trips(pos in position()) {
        let text = pos.to_string();
        prop_assert_eq!(text.parse::<Position>().unwrap(), pos);
        prop_assert_eq!(Position::parse_arg(&text).unwrap().to_string(), text);
    }

    #[test]
    fn every_move_parses_back_to_itself(pos in position()) {
        let b = pos.board();
        let successors = pos.successors();
        for mv in pos.legal_moves() {
            let text = mv.notation(b);
            prop_assert_eq!(&pos.parse_move(&text).unwrap(), &mv);
            prop_assert!(successors.contains(&pos.apply(&mv)));
        }
        // The count the search's initial numbers use, made without building them.
        prop_assert_eq!(pos.successor_count(), successors.len());
    }

    /// The buffer a search reuses holds exactly the successors after a reuse: the
    /// result of every legal move, once.
    #[test]
    fn a_reused_buffer_holds_the_successors_alone(pos in position(), before in position()) {
        let mut buffer = before.successors();
        pos.successors_into(&mut buffer);
        prop_assert_eq!(&buffer, &pos.successors());
        let by_stones = |p: &Position| (p.white(), p.black());
        let mut reference: Vec<Position> =
            pos.legal_moves().iter().map(|m| pos.apply(m)).collect();
        reference.sort_unstable_by_key(by_stones);
        reference.dedup();
        buffer.sort_unstable_by_key(by_stones);
        prop_assert_eq!(buffer, reference);
    }

    #[test]
    fn garbage_text_is_an_error_not_a_panic(s in "[WB1-9/ wbx]{0,40}") {
        let _ = s.parse::<Position>();
        let pos = Position::start(Board::tsivy());
        let _ = pos.parse_move(&s);
    }
}
