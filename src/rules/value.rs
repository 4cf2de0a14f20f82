//! Game values: win, draw or loss, the outcome with its depth, and the one rule that
//! values a position from its successors. At the bottom of the module graph: every
//! other module (generator, probe, verifier, solver) speaks these types.

use std::fmt;

/// The value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value for the other side.
    pub fn flipped(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

/// The value of a position for the side to move, with the depth of a decided game:
/// plies to its end with best play (the winner hurries, the loser delays). A win
/// has an odd depth, a loss an even one; a draw has none, so no impossible state
/// can be built from the variants' meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Won in this many plies.
    Win(u32),
    /// Neither side can force a win.
    Draw,
    /// Lost in this many plies (0: the side to move has no stones or no move).
    Loss(u32),
}

impl Outcome {
    /// The value without the depth.
    pub fn wdl(self) -> Wdl {
        match self {
            Outcome::Win(_) => Wdl::Win,
            Outcome::Draw => Wdl::Draw,
            Outcome::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to the end with best play; `None` for a draw.
    pub fn depth(self) -> Option<u32> {
        match self {
            Outcome::Win(d) | Outcome::Loss(d) => Some(d),
            Outcome::Draw => None,
        }
    }

    /// The outcome for the player who moved into this position: value flipped, one
    /// more ply.
    pub fn for_mover(self) -> Outcome {
        match self {
            Outcome::Win(d) => Outcome::Loss(d + 1),
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss(d) => Outcome::Win(d + 1),
        }
    }

    /// Sort key: best for the side to move first (fast wins, draws, slow losses).
    pub fn rank(self) -> (u8, i64) {
        match self {
            Outcome::Win(d) => (0, d as i64),
            Outcome::Draw => (1, 0),
            Outcome::Loss(d) => (2, -(d as i64)),
        }
    }

    /// The rule that defines every value: the outcome of a position from its
    /// successors' outcomes (each for its own side to move, the opponent). A win by
    /// the fastest successor loss, else a draw, else a loss by the slowest successor
    /// win; with no successor, a loss in 0.
    ///
    /// ```
    /// use fanotb::Outcome::{Draw, Loss, Win};
    /// use fanotb::Outcome;
    /// assert_eq!(Outcome::from_successors([Win(3), Loss(4), Loss(2), Draw]), Win(3));
    /// assert_eq!(Outcome::from_successors([Win(3), Draw]), Draw);
    /// assert_eq!(Outcome::from_successors([Win(3), Win(7)]), Loss(8), "the slowest loss");
    /// assert_eq!(Outcome::from_successors([]), Loss(0), "no move: lost");
    /// ```
    pub fn from_successors(successors: impl IntoIterator<Item = Outcome>) -> Outcome {
        successors
            .into_iter()
            .map(Outcome::for_mover)
            .min_by_key(|o| o.rank())
            .unwrap_or(Outcome::Loss(0))
    }
}

/// `win in 5`, `loss in 0`, `draw`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.depth() {
            Some(d) => write!(f, "{} in {d}", self.wdl().name()),
            None => f.write_str("draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Outcome::{self, Draw, Loss, Win};

    #[test]
    fn the_value_rule() {
        let of = |v: &[Outcome]| Outcome::from_successors(v.iter().copied());
        assert_eq!(of(&[]), Loss(0), "no move: lost");
        assert_eq!(of(&[Win(3), Loss(4), Loss(2), Draw]), Win(3), "fastest win");
        assert_eq!(of(&[Win(3), Draw, Win(1)]), Draw);
        assert_eq!(of(&[Win(3), Win(7), Win(1)]), Loss(8), "slowest loss");
        assert_eq!(Win(5).for_mover(), Loss(6));
        assert_eq!(Draw.for_mover(), Draw);
        assert_eq!(Win(5).to_string(), "win in 5");
        assert_eq!(Draw.to_string(), "draw");
        assert_eq!(Loss(0).depth(), Some(0));
        assert_eq!(Draw.depth(), None);
    }
}
