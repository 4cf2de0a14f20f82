//! The HTTP API's query strings (`?position=...&limit=...`), parsed and validated
//! here rather than in the server so that a fuzzer and other front ends use the
//! same parser as `fanotb serve`.

use thiserror::Error;

use crate::games::game::{Game, GameError};
use crate::index::{Signature, SignatureError};
use crate::rules::board::{Board, BoardError};
use crate::rules::limit::{Limit, LimitError};
use crate::rules::position::{Color, Position, PositionError};
use crate::rules::vela::{Vela, VelaError};
use crate::rules::{Rules, RulesError};
use crate::table::TableKind;

/// Longest position text accepted (the largest board's text is under 100 bytes).
pub const MAX_POSITION_TEXT: usize = 256;

/// Why a query string was refused, in the terms of the query.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum QueryError {
    /// A field the request needs is absent.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// A field appears more than once.
    #[error("field `{0}` given twice")]
    Twice(&'static str),
    /// A number field that is not a whole number in range.
    #[error("{field}: {text:?} is not a whole number in range")]
    NotANumber {
        /// The field.
        field: &'static str,
        /// What was given.
        text: String,
    },
    /// The position text is longer than any board's.
    #[error("position text longer than {MAX_POSITION_TEXT} bytes")]
    TooLong,
    /// A counter without a limit.
    #[error("counter needs a limit (&limit=N)")]
    CounterWithoutLimit,
    /// A vela side that is neither `white` nor `black`.
    #[error("vela: {0:?} is not a side: give white or black")]
    VelaSide(String),
    /// Both a no-capture limit and vela asked of a chart: no table is both.
    #[error("vela=1 and limit: no table is under both")]
    VelaWithLimit,
    /// Stones lost under vela without a vela side.
    #[error("vela_lost needs a vela side (vela white or black)")]
    LostWithoutVela,
    /// More stones said lost than the vela side started with.
    #[error(transparent)]
    Vela(#[from] VelaError),
    /// The position text does not parse.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The limit or the counter is out of range.
    #[error(transparent)]
    Rules(RulesError),
    /// The board is not one fanotb knows.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// The signature does not parse.
    #[error(transparent)]
    Signature(#[from] SignatureError),
    /// The limit is out of range.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A move of a game cannot be played.
    #[error("move {ply} ({text}): {source}")]
    Move {
        /// The ply, from 1.
        ply: usize,
        /// The move as given.
        text: String,
        /// Why it cannot be played.
        source: GameError,
    },
}

/// `start=TEXT[&moves=M1+M2+...][&limit=N[&counter=C]][&vela=SIDE[&vela_lost=N]]`: a
/// game from a start position, its moves in notation separated by spaces, replayed
/// by the rules.
#[derive(Clone, Debug)]
pub struct GameQuery {
    /// The game, every move played.
    pub game: Game,
}

/// `position=TEXT[&limit=N[&counter=C]][&vela=white|black[&vela_lost=N]]`: a
/// position and the rules to ask under (the vela side, with the stones it has lost;
/// by default those it is missing from the start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionQuery {
    /// The position asked about.
    pub position: Position,
    /// The rules it is asked under.
    pub rules: Rules,
}

/// `board=WxH[&signature=NvM][&limit=N | &vela=1]`: which chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartQuery {
    /// The board.
    pub board: &'static Board,
    /// The kind of the tables: plain, of a no-capture limit, or vela.
    pub kind: TableKind,
    /// The table, where the chart is of one.
    pub signature: Option<Signature>,
}

/// The decoded fields of a query string, each at most once; names the parser does
/// not know are ignored, as a web page may add its own.
struct Fields<const N: usize> {
    values: [Option<String>; N],
}

impl<const N: usize> Fields<N> {
    fn parse(query: &str, names: [&'static str; N]) -> Result<Fields<N>, QueryError> {
        let mut values = [const { None }; N];
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            if let Some(i) = names.iter().position(|n| *n == key) {
                if values[i].is_some() {
                    return Err(QueryError::Twice(names[i]));
                }
                values[i] = Some(value.into_owned());
            }
        }
        Ok(Fields { values })
    }

    fn number<T: std::str::FromStr>(
        &mut self,
        i: usize,
        name: &'static str,
    ) -> Result<Option<T>, QueryError> {
        self.values[i]
            .take()
            .map(|text| {
                text.parse()
                    .map_err(|_| QueryError::NotANumber { field: name, text })
            })
            .transpose()
    }

    /// The position of field `at` (named `name`, required), and the rules of the
    /// four fields from `rules_at` on: `limit`, `counter`, `vela`, `vela_lost`.
    fn position_and_rules(
        &mut self,
        (at, name): (usize, &'static str),
        rules_at: usize,
    ) -> Result<(Position, Rules), QueryError> {
        let text = self.values[at].take().ok_or(QueryError::Missing(name))?;
        if text.len() > MAX_POSITION_TEXT {
            return Err(QueryError::TooLong);
        }
        let position = Position::parse_arg(&text)?;
        let vela = self.values[rules_at + 2].take();
        let asked = RulesRequest {
            limit: self.number(rules_at, "limit")?,
            counter: self.number(rules_at + 1, "counter")?,
            vela: vela.as_deref(),
            vela_lost: self.number(rules_at + 3, "vela_lost")?,
        };
        let rules = asked.rules(&position)?;
        Ok((position, rules))
    }
}

impl PositionQuery {
    /// Parses the query string (without the `?`).
    ///
    /// ```
    /// use fanotb::{Limit, PositionQuery, Rules};
    /// let q = PositionQuery::parse("position=9/9/B8/9/3WW3B%20w&limit=20&counter=3")?;
    /// assert_eq!(q.position.to_string(), "9/9/B8/9/3WW3B w");
    /// assert_eq!(q.rules, Rules::no_capture_limit(Limit::new(20)?, 3)?);
    /// assert_eq!(
    ///     PositionQuery::parse("position=start&counter=3").unwrap_err().to_string(),
    ///     "counter needs a limit (&limit=N)"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`QueryError`] saying which field is wrong.
    pub fn parse(query: &str) -> Result<PositionQuery, QueryError> {
        let mut f = Fields::parse(query, ["position", "limit", "counter", "vela", "vela_lost"])?;
        let (position, rules) = f.position_and_rules((0, "position"), 1)?;
        Ok(PositionQuery { position, rules })
    }
}

impl GameQuery {
    /// Parses the query string (without the `?`) and replays the game.
    ///
    /// ```
    /// use fanotb::{End, GameQuery};
    /// let q = GameQuery::parse("start=B4/5/4W+w&moves=e1-e2+a3-a2+e2-e1+a2-a3+e1-e2+a3-a2+e2-e1+a2-a3")?;
    /// assert_eq!(q.game.end(), Some(End::Repetition));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`QueryError`] saying which field is wrong, or which move cannot be played.
    pub fn parse(query: &str) -> Result<GameQuery, QueryError> {
        let mut f = Fields::parse(
            query,
            ["start", "moves", "limit", "counter", "vela", "vela_lost"],
        )?;
        let (start, rules) = f.position_and_rules((0, "start"), 2)?;
        let mut game = Game::new(start, rules);
        let moves = f.values[1].take().unwrap_or_default();
        for (i, m) in moves.split_whitespace().enumerate() {
            game.play_text(m).map_err(|source| QueryError::Move {
                ply: i + 1,
                text: m.to_string(),
                source,
            })?;
        }
        Ok(GameQuery { game })
    }
}

/// A question's rules as a request states them, in every front end (the command
/// line, HTTP, C, Python): a no-capture limit and its counter, a vela side and the
/// stones it has lost. [`RulesRequest::rules`] is the one place they become
/// [`Rules`], checked against the position asked about.
///
/// ```
/// use fanotb::{Position, RulesRequest};
/// let start = Position::parse_arg("start")?;
/// let asked = RulesRequest { vela: Some("white"), ..RulesRequest::default() };
/// assert_eq!(asked.rules(&start)?.vela().map(|v| v.lost()), Some(0));
/// let wrong = RulesRequest { vela: Some("red"), ..RulesRequest::default() };
/// assert_eq!(
///     wrong.rules(&start).unwrap_err().to_string(),
///     "vela: \"red\" is not a side: give white or black"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RulesRequest<'a> {
    /// The no-capture limit in plies, if any.
    pub limit: Option<u64>,
    /// Plies since the last capture (under a limit; 0 by default).
    pub counter: Option<u32>,
    /// The side that plays vela: `white` or `black`.
    pub vela: Option<&'a str>,
    /// Stones the vela side has lost (default: those it is missing).
    pub vela_lost: Option<u32>,
}

impl RulesRequest<'_> {
    /// The rules asked for in `pos`.
    ///
    /// # Errors
    ///
    /// A [`QueryError`]: a limit or counter out of range, a counter without a
    /// limit, a vela side that is not one, stones lost without a side or more than
    /// the side had.
    pub fn rules(&self, pos: &Position) -> Result<Rules, QueryError> {
        let rules = Rules::from_request(self.limit, self.counter).map_err(|e| match e {
            RulesError::CounterWithoutLimit => QueryError::CounterWithoutLimit,
            e => QueryError::Rules(e),
        })?;
        Ok(rules.with_vela(self.vela(pos)?))
    }

    /// The vela asked for in `pos`, if any.
    ///
    /// # Errors
    ///
    /// As [`RulesRequest::rules`], for the vela fields.
    pub fn vela(&self, pos: &Position) -> Result<Option<Vela>, QueryError> {
        let side = match self.vela {
            None if self.vela_lost.is_some() => return Err(QueryError::LostWithoutVela),
            None => return Ok(None),
            Some("white") => Color::White,
            Some("black") => Color::Black,
            Some(other) => return Err(QueryError::VelaSide(other.to_string())),
        };
        Ok(Some(Vela::at(pos, side, self.vela_lost)?))
    }
}

impl ChartQuery {
    /// Parses the query string (without the `?`).
    ///
    /// # Errors
    ///
    /// A [`QueryError`] saying which field is wrong.
    pub fn parse(query: &str) -> Result<ChartQuery, QueryError> {
        let mut f = Fields::parse(query, ["board", "signature", "limit", "vela"])?;
        let board = Board::by_name(&f.values[0].take().ok_or(QueryError::Missing("board"))?)?;
        let signature = f.values[1].take().map(|s| s.parse()).transpose()?;
        let limit = f.number(2, "limit")?.map(Limit::new).transpose()?;
        let kind = match (limit, f.values[3].take().as_deref()) {
            (limit, None | Some("0")) => limit.into(),
            (None, Some("1")) => TableKind::Vela,
            (Some(_), Some("1")) => return Err(QueryError::VelaWithLimit),
            (_, Some(other)) => {
                return Err(QueryError::NotANumber {
                    field: "vela",
                    text: other.to_string(),
                });
            }
        };
        Ok(ChartQuery {
            board,
            kind,
            signature,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(q: &str) -> String {
        PositionQuery::parse(q).unwrap_err().to_string()
    }

    #[test]
    fn fields_are_decoded_once_each_and_others_ignored() {
        let q = PositionQuery::parse("x=1&position=9/9/B8/9/3WW3B+w&limit=020").unwrap();
        assert_eq!(q.position.to_string(), "9/9/B8/9/3WW3B w");
        assert_eq!(
            q.rules,
            Rules::no_capture_limit(Limit::new(20).unwrap(), 0).unwrap()
        );
        assert_eq!(
            PositionQuery::parse("position=start").unwrap().rules,
            Rules::PLAIN
        );
        assert_eq!(
            error("position=start&position=start"),
            "field `position` given twice"
        );
        assert_eq!(error("limit=20"), "missing field `position`");
        assert_eq!(error(""), "missing field `position`");
        assert_eq!(
            error("position=start&limit=20&counter=-1"),
            "counter: \"-1\" is not a whole number in range"
        );
        assert_eq!(
            error("position=start&limit=99999999999999999999"),
            "limit: \"99999999999999999999\" is not a whole number in range"
        );
        assert!(error("position=start&limit=20&counter=21").contains("above"));
        assert!(error("position=start&limit=0").contains("limit"));
        assert_eq!(
            error(&format!("position={}", "B".repeat(257))),
            "position text longer than 256 bytes"
        );
        // Invalid percent-escapes and UTF-8 are decoded leniently, then refused as
        // position text.
        assert!(PositionQuery::parse("position=%FF%G0").is_err());
    }

    #[test]
    fn vela_fields() {
        let q = PositionQuery::parse("position=start&vela=black").unwrap();
        let v = q.rules.vela().unwrap();
        assert_eq!((v.side(), v.lost()), (Color::Black, 0));
        let q = PositionQuery::parse("position=9/9/B8/9/3WW3B+w&vela=white&vela_lost=4").unwrap();
        assert_eq!(q.rules.vela().unwrap().lost(), 4);
        assert_eq!(
            error("position=start&vela=red"),
            "vela: \"red\" is not a side: give white or black"
        );
        assert_eq!(
            error("position=start&vela_lost=2"),
            "vela_lost needs a vela side (vela white or black)"
        );
        assert!(error("position=start&vela=white&vela_lost=1").contains("more than the 22"));
        let g = GameQuery::parse("start=start&vela=white&moves=d3-e3W").unwrap_err();
        assert!(g.to_string().contains("White plays vela"), "{g}");
    }

    #[test]
    fn chart_queries() {
        let q = ChartQuery::parse("board=9x5&signature=2v1&limit=20").unwrap();
        assert_eq!(q.board, Board::tsivy());
        assert_eq!(q.signature, Some(Signature::new(2, 1)));
        assert_eq!(q.kind.limit().map(Limit::plies), Some(20));
        let q = ChartQuery::parse("board=dimy").unwrap();
        assert_eq!(
            (q.board.width(), q.signature, q.kind),
            (5, None, TableKind::Plain)
        );
        let q = ChartQuery::parse("board=9x5&signature=6v1&vela=1").unwrap();
        assert_eq!(q.kind, TableKind::Vela);
        assert!(ChartQuery::parse("board=9x5&vela=1&limit=20").is_err());
        assert!(ChartQuery::parse("board=9x5&vela=yes").is_err());
        assert!(
            ChartQuery::parse("board=4x4")
                .unwrap_err()
                .to_string()
                .contains("4x4")
        );
        assert_eq!(
            ChartQuery::parse("signature=2v1").unwrap_err().to_string(),
            "missing field `board`"
        );
        assert!(ChartQuery::parse("board=9x5&signature=0v9").is_err());
    }
}
