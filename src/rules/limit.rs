//! The no-capture limit (docs/RULES.md): after N plies without a capture the game is
//! drawn, unless the side to move is stuck. Values under a limit depend on the counter
//! c of plies since the last capture; a rule-aware table stores one value per
//! position that answers every counter.
//!
//! Results only turn into draws as the counter grows, so a win (or loss) under the
//! limit has a threshold: `T`, the plies to the next capture or the end of the game
//! with the winner hurrying and the loser delaying. The position is won (lost) for
//! every c <= N - T and drawn beyond.

use std::fmt;

use thiserror::Error;

use crate::rules::value::Wdl;

/// A no-capture limit: N plies, from 1 to [`Limit::MAX`].
///
/// ```
/// use fanotb::Limit;
/// assert_eq!(Limit::new(60)?.plies(), 60);
/// assert!(Limit::new(0).is_err() && Limit::new(u64::from(Limit::MAX) + 1).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Limit(u8);

/// A limit outside 1 to [`Limit::MAX`].
#[derive(Debug, Error, PartialEq, Eq)]
#[error("no-capture limit {0}: give 1 to 250 plies")]
pub struct LimitError(pub u64);

impl Limit {
    /// The largest limit tables are built for.
    pub const MAX: u32 = 250;

    /// The limit of `plies` plies.
    ///
    /// # Errors
    /// `plies` is 0 or above [`Limit::MAX`].
    pub fn new(plies: u64) -> Result<Limit, LimitError> {
        match u8::try_from(plies) {
            Ok(n) if (1..=Limit::MAX as u64).contains(&plies) => Ok(Limit(n)),
            _ => Err(LimitError(plies)),
        }
    }

    /// The limit in plies.
    pub fn plies(self) -> u32 {
        self.0 as u32
    }

    /// The name of the directory of its tables beside the plain ones: `n60`.
    pub fn dir_name(self) -> String {
        format!("n{}", self.0)
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The value of a position under a no-capture limit N, as a rule-aware table stores
/// it: the value at counter 0, and for a win or loss the plies `T` to the next
/// capture (or the end) that keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limited {
    /// Won for every counter up to N - T, drawn beyond.
    Win(u32),
    /// Won without the limit, drawn under it even at counter 0.
    CursedWin,
    /// Drawn with or without the limit.
    Draw,
    /// Lost without the limit, drawn under it even at counter 0.
    BlessedLoss,
    /// Lost for every counter up to N - T, drawn beyond (a stuck side, T = 0, is
    /// lost at any counter).
    Loss(u32),
}

impl Limited {
    /// The value for the side to move when `counter` plies have passed since the
    /// last capture (at most the limit: at the limit the game is over).
    ///
    /// ```
    /// use fanotb::{Limit, Limited, Wdl};
    /// let n = Limit::new(10)?;
    /// assert_eq!(Limited::Win(3).at(n, 7), Wdl::Win);   // 7 + 3 <= 10
    /// assert_eq!(Limited::Win(3).at(n, 8), Wdl::Draw);  // the limit comes first
    /// assert_eq!(Limited::Loss(0).at(n, 10), Wdl::Loss, "a stuck side loses at any counter");
    /// assert_eq!(Limited::CursedWin.at(n, 0), Wdl::Draw);
    /// # Ok::<(), fanotb::LimitError>(())
    /// ```
    pub fn at(self, limit: Limit, counter: u32) -> Wdl {
        let within = |t: u32| counter.saturating_add(t) <= limit.plies();
        match self {
            Limited::Win(t) if within(t) => Wdl::Win,
            Limited::Loss(0) => Wdl::Loss,
            Limited::Loss(t) if within(t) => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// The value at counter 0.
    pub fn wdl(self) -> Wdl {
        match self {
            Limited::Win(_) => Wdl::Win,
            Limited::Loss(_) => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// `T`: plies to the next capture or the end, for a win or a loss.
    pub fn plies_to_capture(self) -> Option<u32> {
        match self {
            Limited::Win(t) | Limited::Loss(t) => Some(t),
            _ => None,
        }
    }

    /// A cursed win or a blessed loss: decided without the limit, drawn under it.
    pub fn cursed(self) -> bool {
        matches!(self, Limited::CursedWin | Limited::BlessedLoss)
    }

    /// The value for the player who moved into this position with a paika (a capture
    /// resets the counter, see [`Limited::after_capture`]): flipped, one more ply
    /// to the capture.
    pub fn for_mover(self) -> Limited {
        match self {
            Limited::Win(t) => Limited::Loss(t + 1),
            Limited::CursedWin => Limited::BlessedLoss,
            Limited::Draw => Limited::Draw,
            Limited::BlessedLoss => Limited::CursedWin,
            Limited::Loss(t) => Limited::Win(t + 1),
        }
    }

    /// The value of a capture for the player who made it, from the value of the
    /// position it leads to (at counter 0): the capture is the one ply to it.
    pub fn after_capture(self) -> Limited {
        match self.wdl() {
            Wdl::Win => Limited::Loss(1),
            Wdl::Draw => Limited::Draw,
            Wdl::Loss => Limited::Win(1),
        }
    }

    /// Sort key: best for the side to move first (wins by the fewest plies to the
    /// capture, draws, losses by the most).
    pub fn rank(self) -> (u8, i64) {
        match self {
            Limited::Win(t) => (0, t as i64),
            Limited::CursedWin | Limited::Draw | Limited::BlessedLoss => (1, 0),
            Limited::Loss(t) => (2, -(t as i64)),
        }
    }

    /// The rule that defines every rule-aware value: the value at counter 0 of a
    /// position from its moves' values for the mover (each from
    /// [`Limited::for_mover`] or [`Limited::after_capture`]), and `plain`, its value
    /// without the limit. A move is good only if its T fits the limit; with no move,
    /// a loss in 0.
    pub fn from_moves(
        limit: Limit,
        moves: impl IntoIterator<Item = Limited>,
        plain: Wdl,
    ) -> Limited {
        let mut best_win = None::<u32>;
        let mut slowest_loss = Some(0u32);
        for m in moves {
            match m {
                Limited::Win(t) if t <= limit.plies() => {
                    best_win = Some(best_win.map_or(t, |b| b.min(t)));
                }
                Limited::Loss(t) if t <= limit.plies() => {
                    slowest_loss = slowest_loss.map(|s| s.max(t));
                }
                _ => slowest_loss = None,
            }
        }
        match (best_win, slowest_loss) {
            (Some(t), _) => Limited::Win(t),
            (None, Some(t)) => Limited::Loss(t),
            (None, None) => match plain {
                Wdl::Win => Limited::CursedWin,
                Wdl::Loss => Limited::BlessedLoss,
                Wdl::Draw => Limited::Draw,
            },
        }
    }
}

/// `win, capture in 5`, `cursed win`, `draw`, `loss, capture in 0`.
impl fmt::Display for Limited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limited::Win(t) | Limited::Loss(t) => {
                write!(f, "{}, capture in {t}", self.wdl().name())
            }
            Limited::CursedWin => f.write_str("cursed win"),
            Limited::Draw => f.write_str("draw"),
            Limited::BlessedLoss => f.write_str("blessed loss"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Limited::{self, BlessedLoss, CursedWin, Draw, Loss, Win};
    use super::{Limit, LimitError};
    use crate::rules::value::Wdl;

    #[test]
    fn limits_are_checked() {
        assert_eq!(Limit::new(0), Err(LimitError(0)));
        assert_eq!(Limit::new(251), Err(LimitError(251)));
        assert_eq!(Limit::new(256), Err(LimitError(256)));
        assert_eq!(Limit::new(60).map(Limit::plies), Ok(60));
        assert_eq!(Limit::new(250).map(|l| l.dir_name()), Ok("n250".into()));
    }

    #[test]
    fn values_hold_up_to_the_threshold() {
        let n = Limit::new(10).unwrap();
        assert_eq!(Win(3).at(n, 7), Wdl::Win);
        assert_eq!(Win(3).at(n, 8), Wdl::Draw);
        assert_eq!(Loss(10).at(n, 0), Wdl::Loss);
        assert_eq!(Loss(10).at(n, 1), Wdl::Draw);
        assert_eq!(Loss(0).at(n, 10), Wdl::Loss, "stuck loses at any counter");
        assert_eq!(
            Win(1).at(n, 10),
            Wdl::Draw,
            "at the limit the game is drawn"
        );
        assert_eq!(CursedWin.at(n, 0), Wdl::Draw);
        assert_eq!(BlessedLoss.wdl(), Wdl::Draw);
    }

    #[test]
    fn the_rule_aware_value_rule() {
        let n = Limit::new(4).unwrap();
        let of = |v: &[Limited], plain| Limited::from_moves(n, v.iter().copied(), plain);
        assert_eq!(of(&[], Wdl::Loss), Loss(0));
        assert_eq!(of(&[Loss(2), Win(3), Win(2), Draw], Wdl::Win), Win(2));
        assert_eq!(of(&[Win(5), Draw], Wdl::Win), CursedWin, "too slow");
        assert_eq!(of(&[Loss(2), Loss(4)], Wdl::Loss), Loss(4));
        assert_eq!(of(&[Loss(2), Loss(5)], Wdl::Loss), BlessedLoss);
        assert_eq!(of(&[Loss(2), CursedWin], Wdl::Loss), BlessedLoss);
        assert_eq!(of(&[Draw, Loss(1)], Wdl::Draw), Draw);
        assert_eq!(Win(3).for_mover(), Loss(4));
        assert_eq!(Loss(3).for_mover(), Win(4));
        assert_eq!(CursedWin.for_mover(), BlessedLoss);
        assert_eq!(Win(7).after_capture(), Loss(1));
        assert_eq!(CursedWin.after_capture(), Draw);
        assert_eq!(Loss(0).after_capture(), Win(1));
        assert_eq!(Win(5).to_string(), "win, capture in 5");
    }
}
