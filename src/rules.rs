//! What a question is asked under: the plain game, or a no-capture limit with the
//! counter of the position (docs/RULES.md, "The no-capture limit"). Validated once,
//! here; every reader of the tables (the probe, the command line, the server, the
//! game, the C ABI) takes a `Rules` and never checks a counter again.

use std::fmt;

use thiserror::Error;

use crate::limit::{Limit, LimitError};
use crate::movegen::Move;

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

    /// The rules of the position after `mv`: under a limit the counter is 0 after a
    /// capture and one more after a paika.
    pub fn after(self, mv: &Move) -> Rules {
        match self.limit {
            None => self,
            Some(_) if mv.is_capture() => Rules { counter: 0, ..self },
            Some(_) => Rules {
                counter: self.counter + 1,
                ..self
            },
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
        }
    }
}

/// `plain`, or `no-capture limit 60, counter 12`.
impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            None => f.write_str("plain"),
            Some(n) => write!(f, "no-capture limit {n}, counter {}", self.counter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

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
        assert_eq!(r.after(&capture).counter(), 0);
        let quiet = "B4/5/4W w".parse::<Position>().unwrap();
        let paika = quiet.legal_moves().into_iter().next().unwrap();
        assert!(!paika.is_capture());
        assert_eq!(r.after(&paika).counter(), 5);
        assert_eq!(Rules::PLAIN.after(&paika), Rules::PLAIN);
    }
}
