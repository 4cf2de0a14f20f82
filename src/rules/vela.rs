//! The vela handicap (docs/RULES.md, "Vela"): the vela side plays single quiet steps
//! only, capturing nothing even where a capture is possible, until it has lost
//! seventeen stones on tsivy (on another board, all but five of its start stones).

use std::fmt;

use thiserror::Error;

use crate::rules::board::Board;
use crate::rules::movegen::Move;
use crate::rules::position::{Color, Position};

/// Who plays vela, and how many stones it has lost so far.
///
/// ```
/// use fanotb::{Board, Color, Position, Vela};
/// let start = Position::start(Board::tsivy());
/// let vela = Vela::at(&start, Color::White, None)?; // nothing lost at the start
/// assert_eq!((vela.lost(), Vela::stones_to_lose(Board::tsivy())), (0, 17));
/// assert!(vela.active(Board::tsivy()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vela {
    side: Color,
    lost: u8,
}

/// A vela that no game can reach.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum VelaError {
    /// The stones on the board and those lost add up to more than the side started with.
    #[error(
        "{side} has {on_board} stones on the board and {lost} lost: more than the {start} it starts with on {board}"
    )]
    TooManyLost {
        /// The vela side.
        side: &'static str,
        /// Its stones on the board.
        on_board: u32,
        /// The stones said lost.
        lost: u32,
        /// Its stones at the start.
        start: u32,
        /// The board's name.
        board: String,
    },
}

impl Vela {
    /// How many stones the vela side must lose before its game becomes normal: 17 on
    /// tsivy (22 stones a side), and on every board all but five of its start stones
    /// (7 on dimy), so that vela ends, as on tsivy, once the side is down to five.
    pub fn stones_to_lose(board: &'static Board) -> u32 {
        start_stones(board).saturating_sub(5)
    }

    /// The stones a vela side keeps when its vela ends, having lost
    /// [`Vela::stones_to_lose`] of its start stones: five, or the start count of a
    /// board with fewer (where vela never holds).
    pub fn floor(board: &'static Board) -> u32 {
        start_stones(board) - Vela::stones_to_lose(board)
    }

    /// Whether the vela tables value `pos` under this vela: it still holds, and the
    /// side has lost exactly the stones it is missing (as in a game from the start),
    /// so that it ends when the side is down to [`Vela::floor`].
    pub fn tabled(self, pos: &Position) -> bool {
        let board = pos.board();
        self.active(board) && self.lost() + stones(pos, self.side) == start_stones(board)
    }

    /// `side` plays vela in `pos`, having lost `lost` stones; by default all the
    /// stones it is missing from the board's start (stones leave only by capture).
    ///
    /// # Errors
    /// `TooManyLost` when its stones on the board and `lost` exceed its start count.
    pub fn at(pos: &Position, side: Color, lost: Option<u32>) -> Result<Vela, VelaError> {
        let board = pos.board();
        let start = start_stones(board);
        let on_board = stones(pos, side);
        let lost = lost.unwrap_or(start.saturating_sub(on_board));
        if on_board.checked_add(lost).is_none_or(|n| n > start) {
            return Err(VelaError::TooManyLost {
                side: side.name(),
                on_board,
                lost,
                start,
                board: board.size_name(),
            });
        }
        Ok(Vela {
            side,
            // At most the start count of the largest board, 22.
            lost: lost as u8,
        })
    }

    /// The side that plays vela.
    pub fn side(self) -> Color {
        self.side
    }

    /// The stones it has lost so far.
    pub fn lost(self) -> u32 {
        self.lost.into()
    }

    /// Whether the handicap still holds on `board`: fewer stones lost than
    /// [`Vela::stones_to_lose`].
    pub fn active(self, board: &'static Board) -> bool {
        self.lost() < Vela::stones_to_lose(board)
    }

    /// The vela after `mv` is played in `pos`: a capture by the other side adds
    /// what it takes to the stones lost.
    pub fn after(self, pos: &Position, mv: &Move) -> Vela {
        if pos.turn() == self.side {
            return self;
        }
        let taken = mv.captured().count_ones() as u8;
        Vela {
            lost: self.lost.saturating_add(taken),
            ..self
        }
    }
}

/// `vela for White, 3 stones lost`.
impl fmt::Display for Vela {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.lost == 1 { "" } else { "s" };
        write!(
            f,
            "vela for {}, {} stone{s} lost",
            self.side.name(),
            self.lost
        )
    }
}

/// Each side's stones at the board's start.
fn start_stones(board: &'static Board) -> u32 {
    Position::start(board).white().count_ones()
}

/// `side`'s stones on the board.
fn stones(pos: &Position, side: Color) -> u32 {
    match side {
        Color::White => pos.white(),
        Color::Black => pos.black(),
    }
    .count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stones_to_lose_by_board() {
        let n = |w, h| Vela::stones_to_lose(Board::get(w, h).unwrap());
        assert_eq!((n(9, 5), n(5, 5), n(5, 3), n(3, 3)), (17, 7, 2, 0));
        let f = |w, h| Vela::floor(Board::get(w, h).unwrap());
        assert_eq!((f(9, 5), f(5, 5), f(5, 3), f(3, 3)), (5, 5, 5, 4));
    }

    #[test]
    fn lost_defaults_to_what_is_missing_and_is_checked() {
        let pos: Position = "9/9/B8/9/3WW3B w".parse().unwrap();
        let v = Vela::at(&pos, Color::White, None).unwrap();
        assert_eq!(v.lost(), 20);
        assert!(!v.active(pos.board()));
        assert_eq!(Vela::at(&pos, Color::Black, Some(2)).unwrap().lost(), 2);
        assert_eq!(
            Vela::at(&pos, Color::White, Some(21))
                .unwrap_err()
                .to_string(),
            "White has 2 stones on the board and 21 lost: more than the 22 it starts with on 9x5"
        );
        // A count that would wrap is refused, not wrapped.
        assert!(Vela::at(&pos, Color::White, Some(u32::MAX)).is_err());
        // Tabled only with the lost count a game from the start gives.
        let six: Position = "9/9/B8/WWW6/3WWW2B w".parse().unwrap();
        assert!(Vela::at(&six, Color::White, None).unwrap().tabled(&six));
        assert!(!Vela::at(&six, Color::White, Some(15)).unwrap().tabled(&six));
    }
}
