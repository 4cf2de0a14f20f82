//! `game`: a person plays one side in the terminal, the tables play the other
//! perfectly. Moves are read a line at a time from stdin, so a script can play too.

use std::fmt::Write as _;
use std::io::BufRead;

use clap::{Args, ValueEnum};

use fanotb::{Color, Move, Position, Rules, Tablebase, Value, Wdl};

use crate::args::{Result, RulesArgs, TablesArg};
use crate::output::emit;
use crate::probe::MoveJson;

#[derive(Clone, Copy, ValueEnum)]
pub enum Side {
    White,
    Black,
}

#[derive(Args)]
pub struct GameArgs {
    /// Position text, `start` or `start:WxH`. Example: "9/9/B8/9/3WW3B w".
    pub position: String,
    /// The side you play; the tables play the other (default: the side to move).
    #[arg(long, value_enum)]
    pub side: Option<Side>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// How a game ended.
enum End {
    /// The side to move has no stone or no move.
    Lost(Color),
    /// The no-capture counter reached the limit.
    Drawn,
    /// The player quit (or stdin ended).
    Stopped,
}

const HELP: &str = "type a move (like d2-e3A), `moves` for every move with its value, \
`best` for the tables' move, or `quit`";

pub fn game(a: GameArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    let tb = Tablebase::open(&a.tables.dir)?;
    let start = Position::parse_arg(&a.position)?;
    let you = match a.side {
        Some(Side::White) => Color::White,
        Some(Side::Black) => Color::Black,
        None => start.turn(),
    };
    let mut game = Game {
        tb,
        pos: start,
        rules,
        record: Vec::new(),
    };
    emit(&format!(
        "You play {}, the tables play {}: {HELP}.\n",
        you.name(),
        you.other().name()
    ));
    let mut input = std::io::stdin().lock().lines();
    let end = loop {
        if let Some(end) = game.over() {
            break end;
        }
        emit(&format!("\n{}{}\n", game.pos.diagram(), game.status()?));
        let mv = if game.pos.turn() == you {
            emit("your move> ");
            let Some(line) = input.next().transpose()? else {
                emit("\n");
                break End::Stopped;
            };
            match line.trim() {
                "quit" | "q" => break End::Stopped,
                "" => continue,
                "moves" => {
                    emit(&game.moves()?);
                    continue;
                }
                "best" => game.best()?,
                text => match game.pos.parse_move(text) {
                    Ok(mv) => mv,
                    Err(e) => {
                        emit(&format!("{e}; {HELP}\n"));
                        continue;
                    }
                },
            }
        } else {
            let mv = game.best()?;
            emit(&format!("tables play {}\n", mv.notation(game.pos.board())));
            mv
        };
        game.play(&mv);
    };
    emit(&game.announce(&end, you));
    Ok(())
}

struct Game {
    tb: Tablebase,
    pos: Position,
    /// The rules now: under a limit, the counter of the position.
    rules: Rules,
    record: Vec<String>,
}

impl Game {
    fn over(&self) -> Option<End> {
        if self.pos.is_lost() {
            return Some(End::Lost(self.pos.turn()));
        }
        self.rules.at_limit().then_some(End::Drawn)
    }

    /// "tables: win in 49 for White", or under the limit with T and the counter.
    fn status(&self) -> Result<String> {
        let side = self.pos.turn().name();
        let value = self.tb.probe(&self.pos, self.rules)?;
        Ok(match value {
            Value::Limited { .. } => {
                let t = match (value.wdl(), value.depth()) {
                    (Wdl::Draw, _) | (_, None) => String::new(),
                    (_, Some(t)) => format!(", capture in {t}"),
                };
                let wdl = value.wdl().name();
                format!("tables: {wdl}{t} for {side} ({})", self.rules)
            }
            _ => format!("tables: {value} for {side}"),
        })
    }

    /// Every move with its value for the mover, best first.
    fn moves(&self) -> Result<String> {
        // Listed as `probe` lists them.
        let moves = self.tb.moves(&self.pos, self.rules)?;
        Ok(MoveJson::list(&moves, &self.pos)
            .iter()
            .map(|m| format!("{m}\n"))
            .collect())
    }

    /// The tables' move: the first of the best.
    fn best(&self) -> Result<Move> {
        let best = self
            .tb
            .best_moves(&self.pos, self.rules)?
            .into_iter()
            .next();
        Ok(best.ok_or("no legal move")?.mv)
    }

    fn play(&mut self, mv: &Move) {
        self.record.push(mv.notation(self.pos.board()));
        self.rules = self.rules.after(mv);
        self.pos = self.pos.apply(mv);
    }

    /// The result, who won, and the record in notation with move numbers.
    fn announce(&self, end: &End, you: Color) -> String {
        let (text, score) = match end {
            End::Lost(loser) => {
                let winner = loser.other();
                let who = if winner == you {
                    "you win"
                } else {
                    "the tables win"
                };
                let why = if self.pos.us() == 0 {
                    "has no stones"
                } else {
                    "has no move"
                };
                let score = match winner {
                    Color::White => "1-0",
                    Color::Black => "0-1",
                };
                (
                    format!(
                        "game over: {} {why}, {} wins ({who})",
                        loser.name(),
                        winner.name()
                    ),
                    score,
                )
            }
            End::Drawn => (
                "game over: drawn, the no-capture counter reached the limit".into(),
                "1/2-1/2",
            ),
            End::Stopped => ("game stopped".into(), "*"),
        };
        format!(
            "\n{}{text}\nrecord: {}\n",
            self.pos.diagram(),
            record(self.start_turn(), &self.record, score)
        )
    }

    /// Who moved first: the side to move now, or its opponent after an odd number
    /// of plies.
    fn start_turn(&self) -> Color {
        match self.record.len() % 2 {
            0 => self.pos.turn(),
            _ => self.pos.turn().other(),
        }
    }
}

/// `1. e1-f2 a3-b2 2. d1-e1 ... 1-0`; a game Black starts begins `1... a3-b2`.
fn record(first: Color, moves: &[String], score: &str) -> String {
    let mut out = String::new();
    let offset = usize::from(first == Color::Black);
    for (i, m) in moves.iter().enumerate() {
        let ply = i + offset;
        if ply % 2 == 0 {
            write!(out, "{}. ", ply / 2 + 1).expect("writes to a String");
        } else if i == 0 {
            out.push_str("1... ");
        }
        write!(out, "{m} ").expect("writes to a String");
    }
    out + score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_number_the_moves_from_whoever_starts() {
        let m = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            record(Color::White, &m(&["a1-b1", "c3-c2", "b1-b2"]), "1-0"),
            "1. a1-b1 c3-c2 2. b1-b2 1-0"
        );
        assert_eq!(
            record(Color::Black, &m(&["c3-c2", "b1-b2", "c2-c1"]), "*"),
            "1... c3-c2 2. b1-b2 c2-c1 *"
        );
        assert_eq!(record(Color::White, &[], "*"), "*");
    }
}
