//! A game being played by the rules: its positions, the rules of each (the
//! no-capture counter, the vela), and how it ends (docs/RULES.md, "End of the
//! game"): no stones, no move, the third occurrence of a position, the limit.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::rules::Rules;
use crate::rules::movegen::{Move, MoveError};
use crate::rules::position::{Color, Position};

/// How a game ended by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// The side to move has no stones: it has lost.
    NoStones(Color),
    /// The side to move has stones but no legal move: it has lost.
    NoMove(Color),
    /// The position occurred for the third time with the same side to move: drawn.
    Repetition,
    /// The no-capture counter reached the limit: drawn.
    NoCaptureLimit,
}

impl End {
    /// The result it gives.
    pub fn result(self) -> GameResult {
        match self {
            End::NoStones(loser) | End::NoMove(loser) => GameResult::Won(loser.other()),
            End::Repetition | End::NoCaptureLimit => GameResult::Drawn,
        }
    }

    /// Its name in a record's analysis: `no-stones`, `no-move`, `repetition`,
    /// `no-capture-limit`.
    pub fn name(self) -> &'static str {
        match self {
            End::NoStones(_) => "no-stones",
            End::NoMove(_) => "no-move",
            End::Repetition => "repetition",
            End::NoCaptureLimit => "no-capture-limit",
        }
    }
}

/// `Black has no stones: White wins`, `drawn by the third repetition`.
impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::NoStones(l) => write!(f, "{} has no stones, {} wins", l.name(), l.other().name()),
            End::NoMove(l) => write!(f, "{} has no move, {} wins", l.name(), l.other().name()),
            End::Repetition => f.write_str("drawn by the third repetition of the position"),
            End::NoCaptureLimit => f.write_str("drawn, the no-capture counter reached the limit"),
        }
    }
}

/// A game's result as a record gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// This side won: `1-0` for White, `0-1` for Black.
    Won(Color),
    /// Drawn: `1/2-1/2`.
    Drawn,
    /// Not finished, or not known: `*`.
    Unfinished,
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::Won(Color::White) => "1-0",
            GameResult::Won(Color::Black) => "0-1",
            GameResult::Drawn => "1/2-1/2",
            GameResult::Unfinished => "*",
        })
    }
}

impl FromStr for GameResult {
    type Err = String;
    fn from_str(s: &str) -> Result<GameResult, String> {
        match s {
            "1-0" => Ok(GameResult::Won(Color::White)),
            "0-1" => Ok(GameResult::Won(Color::Black)),
            "1/2-1/2" => Ok(GameResult::Drawn),
            "*" => Ok(GameResult::Unfinished),
            _ => Err(format!("{s:?} is not a result (1-0, 0-1, 1/2-1/2 or *)")),
        }
    }
}

/// A move a game cannot take.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum GameError {
    /// The game is already over.
    #[error("the game is over: {0}")]
    Over(End),
    /// The move is malformed or illegal in the position.
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// A game from a start position under some rules: every move played, and how
/// often each position has occurred.
///
/// ```
/// use fanotb::{End, Game, Position, Rules};
/// let mut game = Game::new("B4/5/4W w".parse()?, Rules::PLAIN);
/// for mv in ["e1-e2", "a3-a2", "e2-e1", "a2-a3", "e1-e2", "a3-a2", "e2-e1", "a2-a3"] {
///     game.play_text(mv)?;
/// }
/// assert_eq!(game.end(), Some(End::Repetition)); // the start, a third time
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    start_rules: Rules,
    pos: Position,
    rules: Rules,
    moves: Vec<Move>,
    seen: HashMap<Position, u32>,
}

impl Game {
    /// A game from `start` under `rules` (the limit's counter and the vela of the
    /// start position).
    pub fn new(start: Position, rules: Rules) -> Game {
        Game {
            start,
            start_rules: rules,
            pos: start,
            rules,
            moves: Vec::new(),
            seen: HashMap::from([(start, 1)]),
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The rules of the start position.
    pub fn start_rules(&self) -> Rules {
        self.start_rules
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The rules of the position now.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// How the game has ended, if it has: a side to move with no stones or no move
    /// loses; else the third occurrence of the position, or the limit, draws.
    pub fn end(&self) -> Option<End> {
        let turn = self.pos.turn();
        if self.pos.us() == 0 {
            Some(End::NoStones(turn))
        } else if self.pos.them() == 0 {
            // A start set up after the last capture: the other side has lost.
            Some(End::NoStones(turn.other()))
        } else if self.rules.is_lost(&self.pos) {
            Some(End::NoMove(turn))
        } else if self.seen.get(&self.pos).is_some_and(|&n| n >= 3) {
            Some(End::Repetition)
        } else {
            self.rules.at_limit().then_some(End::NoCaptureLimit)
        }
    }

    /// The legal moves now: none once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        match self.end() {
            Some(_) => Vec::new(),
            None => self.rules.legal_moves(&self.pos),
        }
    }

    /// Plays `mv`, a legal move of the position now.
    ///
    /// # Errors
    /// `Over` once the game has ended; `Move` for a move not legal here.
    pub fn play(&mut self, mv: &Move) -> Result<(), GameError> {
        let text = mv.notation(self.pos.board());
        self.play_text(&text).map(|_| ())
    }

    /// Plays a move given in notation, and returns it.
    ///
    /// # Errors
    /// As [`Game::play`], and malformed notation.
    pub fn play_text(&mut self, text: &str) -> Result<Move, GameError> {
        if let Some(end) = self.end() {
            return Err(GameError::Over(end));
        }
        let mv = self.rules.parse_move(&self.pos, text)?;
        self.rules = self.rules.after(&self.pos, &mv);
        self.pos = self.pos.apply(&mv);
        *self.seen.entry(self.pos).or_default() += 1;
        self.moves.push(mv.clone());
        Ok(mv)
    }

    /// The moves played, in notation.
    pub fn move_texts(&self) -> Vec<String> {
        let board = self.start.board();
        self.moves.iter().map(|m| m.notation(board)).collect()
    }

    /// The positions of the game, from the start, with their rules: one more than
    /// the moves.
    pub fn positions(&self) -> Vec<(Position, Rules)> {
        let mut out = vec![(self.start, self.start_rules)];
        let (mut pos, mut rules) = (self.start, self.start_rules);
        for mv in &self.moves {
            rules = rules.after(&pos, mv);
            pos = pos.apply(mv);
            out.push((pos, rules));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::limit::Limit;

    #[test]
    fn a_game_ends_by_each_rule() {
        // Lost with no stones: White's capture takes Black's last stone.
        let mut g = Game::new("5/5/B1W2 w".parse().unwrap(), Rules::PLAIN);
        g.play_text("c1-b1A").unwrap();
        assert_eq!(g.end(), Some(End::NoStones(Color::Black)));
        assert_eq!(g.end().unwrap().result(), GameResult::Won(Color::White));
        assert!(matches!(g.play_text("b1-c1"), Err(GameError::Over(_))));
        // A start where the side not to move has no stones is already over.
        let g = Game::new("W4/5/5 w".parse().unwrap(), Rules::PLAIN);
        assert_eq!(g.end(), Some(End::NoStones(Color::Black)));
        // The third occurrence comes before the limit reached on the same ply.
        let rules = Rules::from(Limit::new(8).unwrap());
        let mut g = Game::new("B4/5/4W w".parse().unwrap(), rules);
        for m in ["e1-e2", "a3-a2", "e2-e1", "a2-a3"].repeat(2) {
            g.play_text(m).unwrap();
        }
        assert!(g.rules().at_limit());
        assert_eq!(g.end(), Some(End::Repetition));
        // The limit: two paikas under a limit of 2.
        let rules = Rules::from(Limit::new(2).unwrap());
        let mut g = Game::new("B4/5/4W w".parse().unwrap(), rules);
        g.play_text("e1-e2").unwrap();
        assert_eq!(g.end(), None);
        g.play_text("a3-a2").unwrap();
        assert_eq!(g.end(), Some(End::NoCaptureLimit));
        assert_eq!(g.positions().len(), 3);
    }

    #[test]
    fn results_read_back() {
        for r in ["1-0", "0-1", "1/2-1/2", "*"] {
            assert_eq!(r.parse::<GameResult>().unwrap().to_string(), r);
        }
        assert!("2-0".parse::<GameResult>().is_err());
    }
}
