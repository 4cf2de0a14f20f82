//! `game`: a person plays one side in the terminal, fanotb the other, from the
//! tables and the proofs (the solved game's player, never losing what is proved). Moves are read a line at a time from stdin, so a script can play too.
//! The game follows the rules to its end (no stones, no move, the third repetition,
//! the no-capture limit), and `--record` keeps its record after every move.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{
    BoundedLines, Color, End, Game, GameResult, Known, MAX_LINE_BYTES, Move, Position, Record,
    Value, Wdl,
};

use crate::args::{Result, RulesArgs, Side, SolutionArgs, TablesArg, VelaArgs};
use crate::output::emit;
use fanotb::report::MoveJson;

#[derive(Args)]
pub struct GameArgs {
    /// Position text, `start` or `start:WxH`. Example: "9/9/B8/9/3WW3B w".
    pub position: String,
    /// The side you play; fanotb plays the other (default: the side to move).
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
    pub solution: SolutionArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

const HELP: &str = "type a move (like d2-e3A), `moves` for every move with what is known \
after it, `best` to play fanotb's move for you, `undo` to take back your last move, \
`help`, or `quit`";

pub fn game(a: GameArgs) -> Result<()> {
    let mut player = a.solution.player(&a.tables.dir)?;
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
        "You play {}, fanotb plays {}: {HELP}.\n",
        you.name(),
        you.other().name()
    ));
    let mut input = BoundedLines::new(std::io::stdin().lock(), MAX_LINE_BYTES);
    // The board is shown again only once a move has been played.
    let mut show = true;
    let end = loop {
        if let Some(end) = game.end() {
            break Some(end);
        }
        let known = player.known(game.position(), game.rules())?;
        if show {
            emit(&format!(
                "\n{}{}\n",
                game.position().diagram(),
                status(&known, &game)
            ));
            show = false;
        }
        let mv = if game.position().turn() == you {
            emit("your move> ");
            let Some(line) = input.next().transpose()? else {
                emit("\n");
                break None;
            };
            match line.trim() {
                "quit" | "q" => break None,
                "" => continue,
                "help" | "h" | "?" => {
                    emit(&format!("{HELP}\n"));
                    continue;
                }
                "moves" => {
                    emit(&moves(&mut player, &game)?);
                    continue;
                }
                "undo" => {
                    match undo(&game, you) {
                        Some(g) => {
                            game = g;
                            save(&game, GameResult::Unfinished)?;
                            show = true;
                        }
                        None => emit("no move of yours to take back\n"),
                    }
                    continue;
                }
                "best" => {
                    let c = player.choose(game.position(), game.rules())?;
                    emit(&format!(
                        "best: {} ({})\n",
                        c.mv.notation(game.position().board()),
                        c.source.name()
                    ));
                    c.mv
                }
                text => match game.rules().parse_move(game.position(), text) {
                    Ok(mv) => {
                        emit(&slip(&mut player, &game, &known, &mv)?);
                        mv
                    }
                    Err(e) => {
                        emit(&format!("{e}; {HELP}\n"));
                        continue;
                    }
                },
            }
        } else {
            let c = player.choose(game.position(), game.rules())?;
            emit(&format!(
                "fanotb plays {} ({})\n",
                c.mv.notation(game.position().board()),
                c.source.name()
            ));
            c.mv
        };
        game.play(&mv)?;
        show = true;
        save(&game, GameResult::Unfinished)?;
    };
    let result = end.map_or(GameResult::Unfinished, End::result);
    save(&game, result)?;
    emit(&announce(&game, end, result, you));
    Ok(())
}

/// "tables: win in 49 for White", under the limit with T and the counter; "proof:
/// draw"; or "nothing proved".
fn status(known: &Known, game: &Game) -> String {
    let (pos, rules) = (game.position(), game.rules());
    let side = pos.turn().name();
    match known {
        Known::Table(value @ Value::Limited { .. }) => {
            let t = match (value.wdl(), value.depth()) {
                (Wdl::Draw, _) | (_, None) => String::new(),
                (_, Some(t)) => format!(", capture in {t}"),
            };
            let wdl = value.wdl().name();
            format!("tables: {wdl}{t} for {side} ({rules})")
        }
        Known::Table(value) => format!("tables: {value} for {side}"),
        Known::Proved(c) => format!("proof: {}", c.text()),
        Known::Unknown => "nothing proved".into(),
    }
}

/// Every move with what is known after it, best for the mover first where the
/// tables cover the position.
fn moves(player: &mut fanotb::Player, game: &Game) -> Result<String> {
    let (pos, rules) = (game.position(), game.rules());
    if let Some(tb) = player.tables()
        && let Ok(moves) = tb.moves(pos, rules)
    {
        return Ok(MoveJson::list(&moves, pos)
            .iter()
            .map(|m| format!("{m}\n"))
            .collect());
    }
    let mut out = String::new();
    for mv in rules.legal_moves(pos) {
        let after = pos.apply(&mv);
        let known = player.known(&after, rules.after(pos, &mv))?;
        out.push_str(&format!(
            "{} {}\n",
            mv.notation(pos.board()),
            status(&known, &game_after(game, &mv))
        ));
    }
    Ok(out)
}

fn game_after(game: &Game, mv: &Move) -> Game {
    let mut g = game.clone();
    g.play(mv).expect("a legal move");
    g
}

/// The game without the last move of `you` and the replies after it.
fn undo(game: &Game, you: Color) -> Option<Game> {
    let mut pos = *game.start();
    let mut last_yours = None;
    for (i, mv) in game.moves().iter().enumerate() {
        if pos.turn() == you {
            last_yours = Some(i);
        }
        pos = pos.apply(mv);
    }
    let keep = last_yours?;
    let mut g = Game::new(*game.start(), game.start_rules());
    for mv in &game.moves()[..keep] {
        g.play(mv).expect("a move already played");
    }
    Some(g)
}

/// A warning when `mv` throws away what is proved for the mover: a win, or a draw.
fn slip(player: &mut fanotb::Player, game: &Game, before: &Known, mv: &Move) -> Result<String> {
    let (pos, rules) = (game.position(), game.rules());
    let me = pos.turn();
    let after = pos.apply(mv);
    let Some(had) = before.value(me) else {
        return Ok(String::new());
    };
    if after.side_without_stones().is_some() || rules.after(pos, mv).is_lost(&after) {
        return Ok(String::new());
    }
    let known = player.known(&after, rules.after(pos, mv))?;
    let now = known.value(after.turn()).map(Wdl::flipped);
    let worse = match (had, now) {
        (Wdl::Win, Some(Wdl::Draw | Wdl::Loss)) | (Wdl::Draw, Some(Wdl::Loss)) => now,
        _ => None,
    };
    Ok(match worse {
        Some(w) => format!(
            "{} throws the {} away: it is a {} for you now\n",
            mv.notation(pos.board()),
            had.name(),
            w.name()
        ),
        None => String::new(),
    })
}

/// How the game ended, who won, and its record.
fn announce(game: &Game, end: Option<End>, result: GameResult, you: Color) -> String {
    let text = match end {
        Some(end) => {
            let who = match result {
                GameResult::Won(w) if w == you => " (you win)",
                GameResult::Won(_) => " (fanotb wins)",
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

/// A move of `/api/play`'s list: the move and the position it leads to.
#[derive(Serialize)]
pub struct PlayMove {
    #[serde(rename = "move")]
    notation: String,
    result: String,
}

/// What `/api/play` answers: the game after the engine's move (if it had one to
/// make), the move and why, what is proved about the position now, and its moves.
#[derive(Serialize)]
pub struct PlayReport {
    /// The engine's move, if it moved.
    engine_move: Option<String>,
    /// Why: `proof`, `table`, `win`, `search`, `unproved`.
    engine_source: Option<&'static str>,
    /// Every move of the game, the engine's included.
    moves: Vec<String>,
    /// What is proved about the position now, for the side to move as the engine
    /// protocol's value line gives it (`draw`, `notlose`, `win`, `unknown`, ...).
    value: &'static str,
    /// The same in words: `draw (proof)`, `win in 12 (tables)`, `unknown`.
    proved: String,
    legal: Vec<PlayMove>,
    #[serde(flatten)]
    game: GameReport,
}

impl PlayReport {
    pub fn new(
        mut game: Game,
        engine: Option<Color>,
        player: &mut fanotb::Player,
    ) -> Result<PlayReport> {
        let (mut engine_move, mut engine_source) = (None, None);
        if game.end().is_none() && engine == Some(game.position().turn()) {
            let c = player.choose(game.position(), game.rules())?;
            engine_move = Some(c.mv.notation(game.position().board()));
            engine_source = Some(c.source.name());
            game.play(&c.mv)?;
        }
        let pos = *game.position();
        let known = if game.end().is_some() {
            Known::Unknown
        } else {
            player.known(&pos, game.rules())?
        };
        let value = known.word(pos.turn());
        let legal = game
            .legal_moves()
            .iter()
            .map(|m| PlayMove {
                notation: m.notation(pos.board()),
                result: pos.apply(m).to_string(),
            })
            .collect();
        let moves = game.move_texts();
        Ok(PlayReport {
            engine_move,
            engine_source,
            moves,
            value,
            proved: known.to_string(),
            legal,
            game: GameReport::new(&game),
        })
    }
}
