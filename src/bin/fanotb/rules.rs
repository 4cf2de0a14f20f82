//! The rules engine: `show`, `moves`, `play`, `perft`.

use std::fmt;

use clap::Args;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use fanotb::{Game, Move, Position, Rules, perft_divide, perft_under};

use crate::args::{Result, VelaArgs};

#[derive(Args)]
pub struct ShowArgs {
    /// Position text (rows from the top, W/B stones, digits for empty runs, then w
    /// or b), `start` (tsivy) or `start:WxH`. Example: "BBBBB/BW1BW/WWWWW w".
    pub position: String,
}

#[derive(Serialize)]
pub struct ShowReport {
    position: String,
    width: usize,
    height: usize,
    turn: String,
    white: Vec<String>,
    black: Vec<String>,
    #[serde(skip)]
    diagram: String,
}

impl fmt::Display for ShowReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}{}", self.diagram, self.position)
    }
}

pub fn show(a: ShowArgs) -> Result<ShowReport> {
    let pos = Position::parse_arg(&a.position)?;
    let b = pos.board();
    Ok(ShowReport {
        position: pos.to_string(),
        width: b.width(),
        height: b.height(),
        turn: pos.turn().name().to_lowercase(),
        white: b.point_names(pos.white()),
        black: b.point_names(pos.black()),
        diagram: pos.diagram(),
    })
}

#[derive(Args)]
pub struct MovesArgs {
    /// Position text, `start` or `start:WxH`. Example: "9/9/3BB4/9/2W1B4 w".
    pub position: String,
    #[command(flatten)]
    pub vela: VelaArgs,
}

/// A move as `moves` lists it.
#[derive(Serialize)]
struct MoveLine {
    #[serde(rename = "move")]
    notation: String,
    captured: Vec<String>,
    result: String,
}

impl MoveLine {
    fn new(pos: &Position, m: &Move) -> MoveLine {
        let b = pos.board();
        MoveLine {
            notation: m.notation(b),
            captured: b.point_names(m.captured()),
            result: pos.apply(m).to_string(),
        }
    }
}

/// Every legal move; each line is made as it is printed, so a position with a
/// million moves streams out in little memory.
pub struct MovesReport {
    pos: Position,
    moves: Vec<Move>,
    distinct_results: usize,
}

impl Serialize for MovesReport {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        struct Lines<'a>(&'a MovesReport);
        impl Serialize for Lines<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let r = self.0;
                s.collect_seq(r.moves.iter().map(|m| MoveLine::new(&r.pos, m)))
            }
        }
        let mut st = s.serialize_struct("MovesReport", 3)?;
        st.serialize_field("position", &self.pos.to_string())?;
        st.serialize_field("moves", &Lines(self))?;
        st.serialize_field("distinct_results", &self.distinct_results)?;
        st.end()
    }
}

impl fmt::Display for MovesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.moves {
            let m = MoveLine::new(&self.pos, m);
            let taken = if m.captured.is_empty() {
                "-".to_string()
            } else {
                m.captured.join(" ")
            };
            writeln!(f, "{:<16} takes {:<20} -> {}", m.notation, taken, m.result)?;
        }
        writeln!(
            f,
            "{} moves, {} distinct results",
            self.moves.len(),
            self.distinct_results
        )
    }
}

pub fn moves(a: MovesArgs) -> Result<MovesReport> {
    let pos = Position::parse_arg(&a.position)?;
    let rules = a.vela.apply(Rules::PLAIN, &pos)?;
    Ok(MovesReport::new(pos, rules))
}

impl MovesReport {
    /// Every legal move of `pos` under `rules`, from the rules alone (no table).
    pub fn new(pos: Position, rules: Rules) -> MovesReport {
        let moves = rules.legal_moves(&pos);
        MovesReport {
            // Quiet moves all lead to different positions.
            distinct_results: match rules.quiet_only(&pos) {
                true => moves.len(),
                false => pos.successors().len(),
            },
            moves,
            pos,
        }
    }
}

#[derive(Args)]
pub struct PlayArgs {
    /// Position text, `start` or `start:WxH`. Example: start.
    pub position: String,
    /// Moves in notation, played in turn. Example: d2-e3A c3-d2A.
    #[arg(required = true)]
    pub moves: Vec<String>,
    #[command(flatten)]
    pub vela: VelaArgs,
}

#[derive(Serialize)]
pub struct PlayReport {
    position: String,
    moves: Vec<String>,
    result: String,
    #[serde(skip)]
    diagram: String,
}

impl fmt::Display for PlayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}{}", self.diagram, self.result)
    }
}

pub fn play(a: PlayArgs) -> Result<PlayReport> {
    let pos = Position::parse_arg(&a.position)?;
    let mut game = Game::new(pos, a.vela.apply(Rules::PLAIN, &pos)?);
    for m in &a.moves {
        game.play_text(m)?;
    }
    let end = *game.position();
    Ok(PlayReport {
        position: pos.to_string(),
        moves: a.moves,
        result: end.to_string(),
        diagram: end.diagram(),
    })
}

#[derive(Args)]
pub struct PerftArgs {
    /// Position text, `start` or `start:WxH`. Example: start.
    pub position: String,
    /// Plies to count. Example: 5.
    pub depth: u32,
    /// Count per first move.
    #[arg(long)]
    pub divide: bool,
    #[command(flatten)]
    pub vela: VelaArgs,
}

#[derive(Serialize)]
pub struct DivideLine {
    #[serde(rename = "move")]
    notation: String,
    count: u64,
    same_as: Option<String>,
}

#[derive(Serialize)]
pub struct PerftReport {
    position: String,
    depth: u32,
    count: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<Vec<DivideLine>>,
}

impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in self.divide.iter().flatten() {
            match &l.same_as {
                None => writeln!(f, "{:<16} {}", l.notation, l.count)?,
                Some(o) => writeln!(
                    f,
                    "{:<16} {} (same position as {o}: counted once)",
                    l.notation, l.count
                )?,
            }
        }
        writeln!(f, "perft {}: {}", self.depth, self.count)?;
        writeln!(
            f,
            "{:.3} s, {:.1} M leaves/s",
            self.seconds,
            self.count as f64 / self.seconds.max(1e-9) / 1e6
        )
    }
}

pub fn perft_command(a: PerftArgs) -> Result<PerftReport> {
    let pos = Position::parse_arg(&a.position)?;
    let rules = a.vela.apply(Rules::PLAIN, &pos)?;
    let start = std::time::Instant::now();
    let (divide, count) = if a.divide && a.depth > 0 {
        let lines = perft_divide(&pos, rules, a.depth);
        let total = lines
            .iter()
            .filter(|l| l.same_as.is_none())
            .map(|l| l.count)
            .sum();
        let lines = lines
            .into_iter()
            .map(|l| DivideLine {
                notation: l.notation,
                count: l.count,
                same_as: l.same_as,
            })
            .collect();
        (Some(lines), total)
    } else {
        (a.divide.then(Vec::new), perft_under(&pos, rules, a.depth))
    };
    Ok(PerftReport {
        position: pos.to_string(),
        depth: a.depth,
        count,
        seconds: start.elapsed().as_secs_f64(),
        divide,
    })
}
