//! What a question is asked under: the plain game, or a no-capture limit with the
//! counter of the position (docs/RULES.md, "The no-capture limit"), and the vela
//! handicap if one side plays it ("Vela"). Validated once, here; every reader of the
//! tables (the probe, the command line, the server, the game, the C ABI) takes a
//! `Rules` and never checks a counter again, and every player of moves asks it for
//! the legal moves.

use std::fmt;

use thiserror::Error;

use crate::rules::board::Board;
use crate::rules::limit::{Limit, LimitError};
use crate::rules::movegen::{Move, MoveError};
use crate::rules::position::Position;
use crate::rules::vela::Vela;

/// The rules a position is valued under: plain (play that never ends is a draw), or
/// a no-capture limit N with the counter c of plies since the last capture,
/// 0 <= c <= N.
///
/// ```
/// use fanotb::{Limit, Rules};
/// let plain = Rules::PLAIN;
/// assert_eq!(plain.limit(), None);
/// let under = Rules::no_capture_limit(Limit::new(60)?, 12)?;
/// assert_eq!((under.limit().map(Limit::plies), under.counter()), (Some(60), 12));
/// assert!(Rules::no_capture_limit(Limit::new(60)?, 61).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    limit: Option<Limit>,
    counter: u32,
    vela: Option<Vela>,
}

/// Rules that cannot be asked under.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RulesError {
    /// The limit is outside 1 to [`Limit::MAX`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A counter was given without a limit.
    #[error("a counter needs a limit: give the no-capture limit too")]
    CounterWithoutLimit,
    /// A counter above the limit: the game ended at the limit.
    #[error("counter {counter} is above the no-capture limit {limit}: the game ended at {limit}")]
    CounterAboveLimit {
        /// The counter given.
        counter: u32,
        /// The limit.
        limit: Limit,
    },
}

impl Rules {
    /// The plain game: no move-count rule.
    pub const PLAIN: Rules = Rules {
        limit: None,
        counter: 0,
        vela: None,
    };

    /// Under the no-capture limit `limit`, `counter` plies after the last capture.
    ///
    /// # Errors
    /// `CounterAboveLimit` when `counter` exceeds the limit.
    pub fn no_capture_limit(limit: Limit, counter: u32) -> Result<Rules, RulesError> {
        if counter > limit.plies() {
            return Err(RulesError::CounterAboveLimit { counter, limit });
        }
        Ok(Rules {
            limit: Some(limit),
            counter,
            vela: None,
        })
    }

    /// The rules a user asked for: no limit (and no counter) for the plain game, a
    /// limit in plies with an optional counter (0 by default) otherwise.
    ///
    /// # Errors
    /// A limit outside 1 to [`Limit::MAX`], a counter without a limit, a counter
    /// above the limit.
    pub fn from_request(limit: Option<u64>, counter: Option<u32>) -> Result<Rules, RulesError> {
        match (limit, counter) {
            (None, None) => Ok(Rules::PLAIN),
            (None, Some(_)) => Err(RulesError::CounterWithoutLimit),
            (Some(n), c) => Rules::no_capture_limit(Limit::new(n)?, c.unwrap_or(0)),
        }
    }

    /// The no-capture limit, if any.
    pub fn limit(self) -> Option<Limit> {
        self.limit
    }

    /// Plies since the last capture (0 for the plain game).
    pub fn counter(self) -> u32 {
        self.counter
    }

    /// These rules with `vela` playing the handicap (or none).
    pub fn with_vela(self, vela: Option<Vela>) -> Rules {
        Rules { vela, ..self }
    }

    /// These rules without the no-capture limit (the same vela).
    pub(crate) fn without_limit(self) -> Rules {
        Rules {
            limit: None,
            counter: 0,
            ..self
        }
    }

    /// The vela handicap, if a side plays it.
    pub fn vela(self) -> Option<Vela> {
        self.vela
    }

    /// The vela handicap, if it still holds on `board`.
    pub fn active_vela(self, board: &'static Board) -> Option<Vela> {
        self.vela.filter(|v| v.active(board))
    }

    /// Whether the side to move in `pos` plays vela now: quiet moves only.
    pub fn quiet_only(self, pos: &Position) -> bool {
        self.active_vela(pos.board())
            .is_some_and(|v| v.side() == pos.turn())
    }

    /// Every legal move in `pos` under these rules, in [`Position::legal_moves`]'
    /// order: a vela side's are its quiet moves.
    pub fn legal_moves(self, pos: &Position) -> Vec<Move> {
        if self.quiet_only(pos) {
            pos.quiet_moves()
        } else {
            pos.legal_moves()
        }
    }

    /// Whether the side to move has lost: no stones, or no legal move under these
    /// rules (a vela side with no quiet step has none).
    pub fn is_lost(self, pos: &Position) -> bool {
        if self.quiet_only(pos) {
            pos.us() == 0 || pos.quiet_moves().is_empty()
        } else {
            pos.is_lost()
        }
    }

    /// Parses a move in notation and checks it against the legal moves under these
    /// rules; a vela side's capture is refused with the reason.
    ///
    /// # Errors
    /// Malformed notation, or a move that is not legal here.
    pub fn parse_move(self, pos: &Position, text: &str) -> Result<Move, MoveError> {
        match self.active_vela(pos.board()) {
            Some(v) if v.side() == pos.turn() => pos.parse_quiet_move(
                text,
                &format!(
                    "{} plays vela until it has lost {} stones ({} so far)",
                    v.side().name(),
                    Vela::stones_to_lose(pos.board()),
                    v.lost()
                ),
            ),
            _ => pos.parse_move(text),
        }
    }

    /// The rules of the position after `mv` is played in `pos`: under a limit the
    /// counter is 0 after a capture and one more after a paika; under vela a
    /// capture of the vela side's stones adds to its stones lost.
    pub fn after(self, pos: &Position, mv: &Move) -> Rules {
        let vela = self.vela.map(|v| v.after(pos, mv));
        let counter = match self.limit {
            None => 0,
            Some(_) if mv.is_capture() => 0,
            Some(_) => self.counter + 1,
        };
        Rules {
            counter,
            vela,
            ..self
        }
    }

    /// The counter has reached the limit: the game is drawn unless the side to move
    /// has lost (no stones, or no move).
    pub fn at_limit(self) -> bool {
        self.limit.is_some_and(|n| self.counter >= n.plies())
    }
}

/// Under the limit at counter 0 (the start of a game, or right after a capture).
impl From<Limit> for Rules {
    fn from(limit: Limit) -> Rules {
        Rules {
            limit: Some(limit),
            counter: 0,
            vela: None,
        }
    }
}

/// `plain`, or `no-capture limit 60, counter 12`, then `, vela for White, 3 stones
/// lost` under vela.
impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            None => f.write_str("plain")?,
            Some(n) => write!(f, "no-capture limit {n}, counter {}", self.counter)?,
        }
        match self.vela {
            Some(v) => write!(f, ", {v}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Position;

    #[test]
    fn rules_are_validated_once() {
        assert_eq!(Rules::from_request(None, None), Ok(Rules::PLAIN));
        assert_eq!(
            Rules::from_request(None, Some(3)),
            Err(RulesError::CounterWithoutLimit)
        );
        assert_eq!(
            Rules::from_request(Some(0), None),
            Err(RulesError::Limit(LimitError(0)))
        );
        let n = Limit::new(10).unwrap();
        assert_eq!(
            Rules::from_request(Some(10), Some(11)),
            Err(RulesError::CounterAboveLimit {
                counter: 11,
                limit: n
            })
        );
        let r = Rules::from_request(Some(10), None).unwrap();
        assert_eq!((r.limit(), r.counter()), (Some(n), 0));
        assert_eq!(r.to_string(), "no-capture limit 10, counter 0");
        assert!(Rules::no_capture_limit(n, 10).unwrap().at_limit());
        assert!(!Rules::no_capture_limit(n, 9).unwrap().at_limit());
        assert!(!Rules::PLAIN.at_limit());
    }

    #[test]
    fn the_counter_steps() {
        // The 3x3 start has only captures; a lone stone each has only paikas.
        let start = "BBB/B1W/WWW w".parse::<Position>().unwrap();
        let capture = start.legal_moves().into_iter().next().unwrap();
        assert!(capture.is_capture());
        let r = Rules::no_capture_limit(Limit::new(10).unwrap(), 4).unwrap();
        assert_eq!(r.after(&start, &capture).counter(), 0);
        let quiet = "B4/5/4W w".parse::<Position>().unwrap();
        let paika = quiet.legal_moves().into_iter().next().unwrap();
        assert!(!paika.is_capture());
        assert_eq!(r.after(&quiet, &paika).counter(), 5);
        assert_eq!(Rules::PLAIN.after(&quiet, &paika), Rules::PLAIN);
    }
}
