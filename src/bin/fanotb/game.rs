//! `game`: a person plays one side in the terminal, the tables play the other
//! perfectly. Moves are read a line at a time from stdin, so a script can play too.
//! The game follows the rules to its end (no stones, no move, the third repetition,
//! the no-capture limit), and `--record` keeps its record after every move.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{
    BoundedLines, Color, End, Game, GameResult, MAX_LINE_BYTES, Move, Position, Record, Tablebase,
    Value, Wdl,
};

use crate::args::{Result, RulesArgs, Side, TablesArg, VelaArgs};
use crate::output::emit;
use crate::probe::MoveJson;

#[derive(Args)]
pub struct GameArgs {
    /// Position text, `start` or `start:WxH`. Example: "9/9/B8/9/3WW3B w".
    pub position: String,
    /// The side you play; the tables play the other (default: the side to move).
    #[arg(long, value_enum)]
    pub side: Option<Side>,
    /// Write the game's record here (docs/FORMAT.md, "Game records"), rewritten
    /// whole after every move. Example: game.fanrec.
    #[arg(long)]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub vela: VelaArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

const HELP: &str = "type a move (like d2-e3A), `moves` for every move with its value, \
`best` for the tables' move, or `quit`";

pub fn game(a: GameArgs) -> Result<()> {
    let tb = Tablebase::open(&a.tables.dir)?;
    let start = Position::parse_arg(&a.position)?;
    let rules = a.vela.apply(a.rules.rules()?, &start)?;
    let you = a.side.map_or(start.turn(), Color::from);
    let mut game = Game::new(start, rules);
    let tags = [(
        if you == Color::White {
            "White"
        } else {
            "Black"
        },
        "you",
    )];
    let save = |game: &Game, result: GameResult| -> Result<()> {
        match &a.record {
            Some(path) => Record::of_game(game, result, &tags)
                .write(path)
                .map_err(|e| format!("cannot write the record to {}: {e}", path.display()).into()),
            None => Ok(()),
        }
    };
    save(&game, GameResult::Unfinished)?;
    emit(&format!(
        "You play {}, the tables play {}: {HELP}.\n",
        you.name(),
        you.other().name()
    ));
    let mut input = BoundedLines::new(std::io::stdin().lock(), MAX_LINE_BYTES);
    let end = loop {
        if let Some(end) = game.end() {
            break Some(end);
        }
        emit(&format!(
            "\n{}{}\n",
            game.position().diagram(),
            status(&tb, &game)?
        ));
        let mv = if game.position().turn() == you {
            emit("your move> ");
            let Some(line) = input.next().transpose()? else {
                emit("\n");
                break None;
            };
            match line.trim() {
                "quit" | "q" => break None,
                "" => continue,
                "moves" => {
                    emit(&moves(&tb, &game)?);
                    continue;
                }
                "best" => best(&tb, &game)?,
                text => match game.rules().parse_move(game.position(), text) {
                    Ok(mv) => mv,
                    Err(e) => {
                        emit(&format!("{e}; {HELP}\n"));
                        continue;
                    }
                },
            }
        } else {
            let mv = best(&tb, &game)?;
            emit(&format!(
                "tables play {}\n",
                mv.notation(game.position().board())
            ));
            mv
        };
        game.play(&mv)?;
        save(&game, GameResult::Unfinished)?;
    };
    let result = end.map_or(GameResult::Unfinished, End::result);
    save(&game, result)?;
    emit(&announce(&game, end, result, you));
    Ok(())
}

/// "tables: win in 49 for White", or under the limit with T and the counter.
fn status(tb: &Tablebase, game: &Game) -> Result<String> {
    let (pos, rules) = (game.position(), game.rules());
    let side = pos.turn().name();
    let value = tb.probe(pos, rules)?;
    Ok(match value {
        Value::Limited { .. } => {
            let t = match (value.wdl(), value.depth()) {
                (Wdl::Draw, _) | (_, None) => String::new(),
                (_, Some(t)) => format!(", capture in {t}"),
            };
            let wdl = value.wdl().name();
            format!("tables: {wdl}{t} for {side} ({rules})")
        }
        _ => format!("tables: {value} for {side}"),
    })
}

/// Every move with its value for the mover, best first, as `probe` lists them.
fn moves(tb: &Tablebase, game: &Game) -> Result<String> {
    let moves = tb.moves(game.position(), game.rules())?;
    Ok(MoveJson::list(&moves, game.position())
        .iter()
        .map(|m| format!("{m}\n"))
        .collect())
}

/// The tables' move: the first of the best.
fn best(tb: &Tablebase, game: &Game) -> Result<Move> {
    let best = tb
        .best_moves(game.position(), game.rules())?
        .into_iter()
        .next();
    Ok(best.ok_or("no legal move")?.mv)
}

/// How the game ended, who won, and its record.
fn announce(game: &Game, end: Option<End>, result: GameResult, you: Color) -> String {
    let text = match end {
        Some(end) => {
            let who = match result {
                GameResult::Won(w) if w == you => " (you win)",
                GameResult::Won(_) => " (the tables win)",
                _ => "",
            };
            format!("game over: {end}{who}")
        }
        None => "game stopped".into(),
    };
    format!(
        "\n{}{text}\nrecord: {}\n",
        game.position().diagram(),
        Record::of_game(game, result, &[]).movetext()
    )
}

/// A game as `/api/game` answers it: the position now, how the game ended by the
/// rules if it has, and its record.
#[derive(Serialize)]
pub struct GameReport {
    position: String,
    plies: usize,
    end: Option<&'static str>,
    end_text: Option<String>,
    result: String,
    record: String,
}

impl GameReport {
    pub fn new(game: &Game) -> GameReport {
        let end = game.end();
        let result = end.map_or(GameResult::Unfinished, End::result);
        GameReport {
            position: game.position().to_string(),
            plies: game.moves().len(),
            end: end.map(End::name),
            end_text: end.map(|e| e.to_string()),
            result: result.to_string(),
            record: Record::of_game(game, result, &[]).to_string(),
        }
    }
}
