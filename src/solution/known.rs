//! What is known about one position: the tables' value where they cover it,
//! otherwise what the proofs establish, otherwise nothing.

use std::fmt;

use crate::certificate::Claim;
use crate::probe::Value;
use crate::rules::Rules;
use crate::rules::position::Color;
use crate::rules::value::Wdl;

/// What the proofs establish at a position: each side's claim, if a proof for that
/// side holds the position, with the certificate (or lemma) it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    /// White's claim.
    pub white: Option<Claim>,
    /// Black's claim.
    pub black: Option<Claim>,
    /// The certificate or lemma of White's claim.
    pub white_source: Option<String>,
    /// The certificate or lemma of Black's claim.
    pub black_source: Option<String>,
}

impl Claims {
    /// The claim proved for `side`.
    pub fn claim(&self, side: Color) -> Option<Claim> {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The certificate of `side`'s claim.
    pub fn source(&self, side: Color) -> Option<&str> {
        match side {
            Color::White => self.white_source.as_deref(),
            Color::Black => self.black_source.as_deref(),
        }
    }

    /// The value for the side to move `turn`, where the claims fix it: a win for
    /// one side, or a draw when each does not lose.
    pub fn value(&self, turn: Color) -> Option<Wdl> {
        match (self.claim(turn), self.claim(turn.other())) {
            (Some(Claim::Win), _) => Some(Wdl::Win),
            (_, Some(Claim::Win)) => Some(Wdl::Loss),
            (Some(_), Some(_)) => Some(Wdl::Draw),
            _ => None,
        }
    }

    /// The claims as they hold under `rules`: the proofs are of the plain game, in
    /// which play that never ends is a draw. Threefold repetition ends such play
    /// in a draw as well, so every claim stands; a no-capture limit can turn a win
    /// into a draw, so under one a win is only "does not lose" (a side that does
    /// not lose without the limit does not lose with it: the limit only adds
    /// draws).
    pub fn under(mut self, rules: Rules) -> Claims {
        if rules.limit().is_some() {
            for c in [&mut self.white, &mut self.black] {
                if *c == Some(Claim::Win) {
                    *c = Some(Claim::NotLose);
                }
            }
        }
        self
    }

    /// `draw`, `White wins`, `Black does not lose`.
    pub fn text(&self) -> String {
        match (self.white, self.black) {
            (Some(Claim::NotLose), Some(Claim::NotLose)) => "draw".into(),
            (Some(Claim::Win), _) => "White wins".into(),
            (_, Some(Claim::Win)) => "Black wins".into(),
            (Some(_), None) => "White does not lose".into(),
            (None, Some(_)) => "Black does not lose".into(),
            (None, None) => "nothing proved".into(),
        }
    }
}

/// What is known about a position: the tables' value, what the proofs establish,
/// or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// The tables' value for the side to move, under the rules asked.
    Table(Value),
    /// What the proofs (or a search, or the plain tables under a limit they do not
    /// value) establish.
    Proved(Claims),
    /// Nothing is proved.
    Unknown,
}

impl Known {
    /// The value for the side to move `turn`, when it is known.
    pub fn value(&self, turn: Color) -> Option<Wdl> {
        match self {
            Known::Table(v) => Some(v.wdl()),
            Known::Proved(p) => p.value(turn),
            Known::Unknown => None,
        }
    }

    /// Whether `side` is known not to lose (a win, a draw, or "does not lose").
    pub fn safe_for(&self, side: Color, turn: Color) -> bool {
        match self {
            Known::Table(v) => {
                let wdl = if side == turn {
                    v.wdl()
                } else {
                    v.wdl().flipped()
                };
                wdl != Wdl::Loss
            }
            Known::Proved(p) => p.claim(side).is_some(),
            Known::Unknown => false,
        }
    }

    /// The value for the side to move `turn` in one word, as the engine's value
    /// line gives it: `win`, `draw`, `loss`, `notlose` (the side to move does not
    /// lose), `notwin` (the other side does not lose), `unknown`.
    pub fn word(&self, turn: Color) -> &'static str {
        match self {
            Known::Table(v) => v.wdl().name(),
            Known::Proved(p) => match (p.value(turn), p.claim(turn), p.claim(turn.other())) {
                (Some(w), ..) => w.name(),
                (None, Some(_), _) => "notlose",
                (None, _, Some(_)) => "notwin",
                _ => "unknown",
            },
            Known::Unknown => "unknown",
        }
    }

    /// Where the knowledge comes from: `table`, `proof` or `none`.
    pub fn source_name(&self) -> &'static str {
        match self {
            Known::Table(_) => "table",
            Known::Proved(_) => "proof",
            Known::Unknown => "none",
        }
    }
}

/// `win in 12 (tables)`, `draw (proof)`, `White does not lose (proof)`, `unknown`.
impl fmt::Display for Known {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Known::Table(v) => write!(f, "{v} (tables)"),
            Known::Proved(p) => write!(f, "{} (proof)", p.text()),
            Known::Unknown => f.write_str("unknown"),
        }
    }
}
