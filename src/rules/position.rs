//! Positions: two stone sets and the side to move; position text in and out; start
//! positions; the board diagram.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use thiserror::Error;

use crate::rules::board::{Board, BoardError, bits};

/// A side: White or Black. White moves first from the start position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// White, `W` in position text.
    White,
    /// Black, `B` in position text.
    Black,
}

impl Color {
    /// The opponent.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    /// Its letter for the side to move in position text: `w` or `b`.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
    /// `White` or `Black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

/// Why position text (or a set of stones) is not a position.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum PositionError {
    /// The text is empty.
    #[error("empty position text")]
    Empty,
    /// The rows are not followed by the side to move.
    #[error("missing side to move: expected a space then `w` or `b` after the rows")]
    MissingSide,
    /// The side to move is not `w` or `b`; holds the text found.
    #[error("bad side to move `{0}`: expected `w` or `b`")]
    BadSide(String),
    /// More text follows the side to move; holds the first extra word.
    #[error("unexpected text after the side to move: `{0}`")]
    Trailing(String),
    /// A row holds a character other than `W`, `B` or a digit 1-9.
    #[error(
        "row {row} (text row {text_row}), column {column}: unexpected character `{ch}`; expected W, B or a digit 1-9"
    )]
    BadChar {
        /// Board row, 1 at the bottom.
        row: usize,
        /// Row in the text, 1 for the first (top) row.
        text_row: usize,
        /// Column of the point the character stands at, from 1.
        column: usize,
        /// The character.
        ch: char,
    },
    /// A row has a different number of points from the first row.
    #[error(
        "row {row} (text row {text_row}) has {found} points; expected {expected} like the first row"
    )]
    RowLength {
        /// Board row, 1 at the bottom.
        row: usize,
        /// Row in the text, 1 for the first (top) row.
        text_row: usize,
        /// Points in this row.
        found: usize,
        /// Points in the first row.
        expected: usize,
    },
    /// A row is empty (two `/` in a row, or one at either end).
    #[error("row {row} (text row {text_row}) is empty")]
    EmptyRow {
        /// Board row, 1 at the bottom.
        row: usize,
        /// Row in the text, 1 for the first (top) row.
        text_row: usize,
    },
    /// The rows give an unsupported board size, or `start:` names no board.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// Two digits side by side: each run of empty points is one digit.
    #[error(
        "row {row} (text row {text_row}), column {column}: two digits side by side; write each run of empty points as one digit 1-9"
    )]
    AdjacentDigits {
        /// Board row, counted from the bottom.
        row: usize,
        /// Row in the text, counted from the top.
        text_row: usize,
        /// Column of the second digit's first point.
        column: usize,
    },
    /// Both sides have a stone on the same point; holds its name.
    #[error("both sides have a stone on {0}")]
    Overlap(String),
}

/// A position: White's and Black's stones and the side to move.
///
/// ```
/// use fanotb::{Color, Position};
/// let start = Position::parse_arg("start")?; // the tsivy start
/// assert_eq!(start.to_string(), "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w");
/// assert_eq!((start.turn(), start.legal_moves().len()), (Color::White, 5));
/// let pos: Position = "9/9/B8/9/3WW3B w".parse()?;
/// assert_eq!(pos.to_string(), "9/9/B8/9/3WW3B w");
/// assert!("9/9/B8/9/3WW3B".parse::<Position>().is_err(), "no side to move");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct Position {
    board: &'static Board,
    white: u64,
    black: u64,
    turn: Color,
}

impl PartialEq for Position {
    fn eq(&self, o: &Self) -> bool {
        self.board == o.board
            && self.white == o.white
            && self.black == o.black
            && self.turn == o.turn
    }
}
impl Eq for Position {}
impl Hash for Position {
    fn hash<H: Hasher>(&self, s: &mut H) {
        (
            self.board.width(),
            self.board.height(),
            self.white,
            self.black,
            self.turn,
        )
            .hash(s)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl Position {
    /// A position from stone sets. Stones off the board or on both sides are an error.
    pub fn new(
        board: &'static Board,
        white: u64,
        black: u64,
        turn: Color,
    ) -> Result<Position, PositionError> {
        if let Some(p) = bits(white & black).next() {
            return Err(PositionError::Overlap(board.point_name(p)));
        }
        assert!((white | black) & !board.all() == 0, "stones off the board");
        Ok(Position {
            board,
            white,
            black,
            turn,
        })
    }

    /// A position from the side to move's stones and the other side's. The caller
    /// guarantees the sets are disjoint and on the board (hot path of the generator).
    #[inline]
    pub fn from_sides(board: &'static Board, us: u64, them: u64, turn: Color) -> Position {
        debug_assert!(us & them == 0 && (us | them) & !board.all() == 0);
        let (white, black) = match turn {
            Color::White => (us, them),
            Color::Black => (them, us),
        };
        Position {
            board,
            white,
            black,
            turn,
        }
    }

    /// The start position of a board (docs/RULES.md: middle row B W B W ... centre empty,
    /// right half mirrored with colours swapped), White to move.
    pub fn start(board: &'static Board) -> Position {
        let (w, h) = (board.width(), board.height());
        let mid = h / 2;
        let mut white = 0u64;
        let mut black = 0u64;
        for y in 0..h {
            for x in 0..w {
                let bit = 1u64 << (y * w + x);
                if y < mid {
                    white |= bit;
                } else if y > mid {
                    black |= bit;
                } else if x < w / 2 {
                    if x % 2 == 0 {
                        black |= bit
                    } else {
                        white |= bit
                    }
                } else if x > w / 2 {
                    // Mirror image of column w-1-x with colours swapped.
                    if (w - 1 - x) % 2 == 0 {
                        white |= bit
                    } else {
                        black |= bit
                    }
                }
            }
        }
        Position {
            board,
            white,
            black,
            turn: Color::White,
        }
    }

    /// The side with no stones, if one has none: the game is over.
    pub fn side_without_stones(&self) -> Option<Color> {
        if self.us() == 0 {
            Some(self.turn)
        } else if self.them() == 0 {
            Some(self.turn.other())
        } else {
            None
        }
    }

    /// Parses position text, or `start` (tsivy start) or `start:WxH`.
    pub fn parse_arg(s: &str) -> Result<Position, PositionError> {
        match s.trim_ascii() {
            "start" => Ok(Position::start(Board::tsivy())),
            t if t.starts_with("start:") => Ok(Position::start(Board::by_name(&t[6..])?)),
            t => t.parse(),
        }
    }

    /// The board the position is on.
    #[inline]
    pub fn board(&self) -> &'static Board {
        self.board
    }
    /// White's stones.
    #[inline]
    pub fn white(&self) -> u64 {
        self.white
    }
    /// Black's stones.
    #[inline]
    pub fn black(&self) -> u64 {
        self.black
    }
    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Stones of the side to move.
    #[inline]
    pub fn us(&self) -> u64 {
        match self.turn {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }
    /// Stones of the side not to move.
    #[inline]
    pub fn them(&self) -> u64 {
        match self.turn {
            Color::White => self.black,
            Color::Black => self.white,
        }
    }
    /// Empty points.
    #[inline]
    pub fn empty(&self) -> u64 {
        self.board.all() & !(self.white | self.black)
    }

    /// A text diagram with the board's lines, stones and the side to move.
    pub fn diagram(&self) -> String {
        let b = self.board;
        let (w, h) = (b.width(), b.height());
        let mut out = String::new();
        for y in (0..h).rev() {
            out.push_str(&format!("{:>2} ", y + 1));
            for x in 0..w {
                let p = y * w + x;
                let c = if self.white >> p & 1 != 0 {
                    'W'
                } else if self.black >> p & 1 != 0 {
                    'B'
                } else {
                    '.'
                };
                out.push(c);
                if x + 1 < w {
                    out.push_str("---");
                }
            }
            out.push('\n');
            if y > 0 {
                out.push_str("   ");
                for x in 0..w {
                    out.push('|');
                    if x + 1 < w {
                        // Between columns x and x+1, rows y and y-1: the diagonal runs
                        // from the strong point of the pair.
                        let strong_top_left = (x + y) % 2 == 0;
                        out.push_str(if strong_top_left { " \\ " } else { " / " });
                    }
                }
                out.push('\n');
            }
        }
        out.push_str("   ");
        for x in 0..w {
            out.push((b'a' + x as u8) as char);
            if x + 1 < w {
                out.push_str("   ");
            }
        }
        out.push('\n');
        out.push_str(&format!("{} to move\n", self.turn.name()));
        out
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, h) = (self.board.width(), self.board.height());
        for y in (0..h).rev() {
            let mut run = 0;
            for x in 0..w {
                let p = y * w + x;
                let c = if self.white >> p & 1 != 0 {
                    Some('W')
                } else if self.black >> p & 1 != 0 {
                    Some('B')
                } else {
                    None
                };
                match c {
                    None => run += 1,
                    Some(c) => {
                        if run > 0 {
                            write!(f, "{run}")?;
                            run = 0;
                        }
                        write!(f, "{c}")?;
                    }
                }
            }
            if run > 0 {
                write!(f, "{run}")?;
            }
            if y > 0 {
                write!(f, "/")?;
            }
        }
        write!(f, " {}", self.turn.letter())
    }
}

impl FromStr for Position {
    type Err = PositionError;

    fn from_str(s: &str) -> Result<Position, PositionError> {
        // Strict: the rows, one ASCII space, the side; nothing else but ASCII
        // whitespace around the whole.
        let s = s.trim_ascii();
        if s.is_empty() {
            return Err(PositionError::Empty);
        }
        let (rows_text, rest) = s.split_once(' ').ok_or(PositionError::MissingSide)?;
        let side = match rest.split_once(' ') {
            Some((side, extra)) => {
                if side.is_empty() {
                    return Err(PositionError::BadSide(rest.to_string()));
                }
                return Err(PositionError::Trailing(extra.to_string()));
            }
            None => rest,
        };
        let turn = match side {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(PositionError::BadSide(other.to_string())),
        };
        let rows: Vec<&str> = rows_text.split('/').collect();
        let h = rows.len();
        let mut cells: Vec<Vec<Option<Color>>> = Vec::with_capacity(h);
        for (i, row) in rows.iter().enumerate() {
            let board_row = h - i;
            if row.is_empty() {
                return Err(PositionError::EmptyRow {
                    row: board_row,
                    text_row: i + 1,
                });
            }
            let mut line = Vec::new();
            let mut after_digit = false;
            for ch in row.chars() {
                // One digit per run of empty points: `12` is not twelve, nor 1 + 2.
                if after_digit && ch.is_ascii_digit() {
                    return Err(PositionError::AdjacentDigits {
                        row: board_row,
                        text_row: i + 1,
                        column: line.len() + 1,
                    });
                }
                after_digit = ch.is_ascii_digit();
                match ch {
                    'W' => line.push(Some(Color::White)),
                    'B' => line.push(Some(Color::Black)),
                    '1'..='9' => line.extend(std::iter::repeat_n(None, ch as usize - '0' as usize)),
                    _ => {
                        return Err(PositionError::BadChar {
                            row: board_row,
                            text_row: i + 1,
                            column: line.len() + 1,
                            ch,
                        });
                    }
                }
            }
            if let Some(first) = cells.first()
                && first.len() != line.len()
            {
                return Err(PositionError::RowLength {
                    row: board_row,
                    text_row: i + 1,
                    found: line.len(),
                    expected: first.len(),
                });
            }
            cells.push(line);
        }
        let w = cells[0].len();
        let board = Board::get(w, h)?;
        let (mut white, mut black) = (0u64, 0u64);
        for (i, line) in cells.iter().enumerate() {
            let y = h - 1 - i;
            for (x, c) in line.iter().enumerate() {
                let bit = 1u64 << (y * w + x);
                match c {
                    Some(Color::White) => white |= bit,
                    Some(Color::Black) => black |= bit,
                    None => {}
                }
            }
        }
        Position::new(board, white, black, turn)
    }
}
