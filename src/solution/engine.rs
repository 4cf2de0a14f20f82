//! The engine protocol (docs/ENGINE.md): a UCI-style text protocol, one command a
//! line, kept here as a state machine that answers each line with the lines to
//! print, so that the binary only moves lines and a test can script a session.

use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

use super::known::Known;
use super::player::{Player, PlayerOptions};
use super::{SolutionError, SolvedGame};
use crate::games::game::Game;
use crate::probe::{Tablebase, Value};
use crate::rules::Rules;
use crate::rules::limit::Limit;
use crate::rules::position::{Color, Position};

/// The solution an engine plays from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolutionSource {
    /// The tsivy draw proof built into the program ([`SolvedGame::tsivy_draw`]).
    BuiltIn,
    /// A certificate file, with its lemmas in its own directory.
    File(PathBuf),
    /// None: the tables alone.
    None,
}

impl SolutionSource {
    /// `builtin`, `none`, or a path.
    pub fn parse(text: &str) -> SolutionSource {
        match text {
            "builtin" | "" => SolutionSource::BuiltIn,
            "none" => SolutionSource::None,
            path => SolutionSource::File(path.into()),
        }
    }

    fn name(&self) -> String {
        match self {
            SolutionSource::BuiltIn => "builtin".into(),
            SolutionSource::None => "none".into(),
            SolutionSource::File(p) => p.display().to_string(),
        }
    }

    /// The solution this names, loaded (none for `none`).
    ///
    /// # Errors
    /// As [`SolvedGame::load`].
    pub fn load(&self) -> Result<Option<SolvedGame>, SolutionError> {
        match self {
            SolutionSource::BuiltIn => SolvedGame::tsivy_draw().map(Some),
            SolutionSource::File(p) => SolvedGame::load(p, None).map(Some),
            SolutionSource::None => Ok(None),
        }
    }
}

/// How an engine starts.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EngineOptions {
    /// The table directory (none: the proofs alone).
    pub tables: Option<PathBuf>,
    /// The solution.
    pub solution: SolutionSource,
    /// The player's search budget in nodes.
    pub search_nodes: u64,
    /// Play uniformly random legal moves from this seed instead (a test opponent).
    pub random: Option<u64>,
    /// The no-capture limit of the games (none: the plain game).
    pub limit: Option<Limit>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            tables: None,
            solution: SolutionSource::BuiltIn,
            search_nodes: PlayerOptions::default().search_nodes,
            random: None,
            limit: None,
        }
    }
}

/// An engine session: its options, the player once loaded, and the game set by
/// the last `position`.
///
/// ```
/// use fanotb::{Engine, EngineOptions};
/// let mut engine = Engine::new(EngineOptions::default());
/// assert_eq!(engine.handle("isready").lines, ["readyok"]);
/// let reply = engine.handle("position startpos moves d3-e3X");
/// assert!(reply.lines[0].starts_with("info string error: "));
/// let reply = engine.handle("go");
/// assert_eq!(reply.lines[0], "info value draw source proof");
/// assert!(reply.lines.last().unwrap().starts_with("bestmove "));
/// ```
#[derive(Debug)]
pub struct Engine {
    opts: EngineOptions,
    player: Option<Player>,
    game: Game,
    rng: Option<StdRng>,
}

/// The lines an engine answers a command with, and whether it should stop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Lines to print, in order.
    pub lines: Vec<String>,
    /// `quit` was read.
    pub quit: bool,
}

impl Reply {
    fn of(lines: Vec<String>) -> Reply {
        Reply { lines, quit: false }
    }

    fn error(what: impl std::fmt::Display) -> Reply {
        Reply::of(vec![format!("info string error: {what}")])
    }
}

impl Engine {
    /// An engine with `opts`, at the tsivy start; the tables and the solution are
    /// loaded at the first `isready` or `go`.
    pub fn new(opts: EngineOptions) -> Engine {
        let rng = opts.random.map(StdRng::seed_from_u64);
        let rules = rules_of(opts.limit);
        Engine {
            opts,
            player: None,
            game: Game::new(Position::start(crate::rules::board::Board::tsivy()), rules),
            rng,
        }
    }

    /// The game as the last `position` set it.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Answers one line of the protocol.
    pub fn handle(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        match words.first().copied() {
            None | Some("stop" | "ponderhit") => Reply::default(),
            Some("uci") => Reply::of(self.identify()),
            Some("isready") => match self.load() {
                Ok(()) => Reply::of(vec!["readyok".into()]),
                Err(e) => Reply::of(vec![format!("info string error: {e}"), "readyok".into()]),
            },
            Some("ucinewgame") => {
                self.game = Game::new(*self.game.start(), self.game.start_rules());
                Reply::default()
            }
            Some("setoption") => match self.set_option(&words[1..]) {
                Ok(()) => Reply::default(),
                Err(e) => Reply::error(e),
            },
            Some("position") => match self.position(&words[1..]) {
                Ok(game) => {
                    self.game = game;
                    Reply::default()
                }
                Err(e) => Reply::error(e),
            },
            Some("go") => self.go(&words[1..]),
            Some("quit") => Reply {
                lines: Vec::new(),
                quit: true,
            },
            Some(other) => Reply::error(format!("unknown command {other:?}")),
        }
    }

    fn identify(&self) -> Vec<String> {
        let tables = self
            .opts
            .tables
            .as_ref()
            .map_or(String::new(), |d| d.display().to_string());
        vec![
            format!("id name fanotb {}", env!("CARGO_PKG_VERSION")),
            "id author the fanotb developers".into(),
            format!("option name Tables type string default {tables}"),
            format!(
                "option name Solution type string default {}",
                self.opts.solution.name()
            ),
            format!(
                "option name SearchNodes type spin default {} min 0 max 1000000000",
                self.opts.search_nodes
            ),
            format!(
                "option name NoCaptureLimit type spin default {} min 0 max {}",
                self.opts.limit.map_or(0, Limit::plies),
                Limit::MAX
            ),
            "uciok".into(),
        ]
    }

    /// Loads the tables and the solution, once.
    fn load(&mut self) -> Result<(), String> {
        if self.player.is_some() || self.rng.is_some() {
            return Ok(());
        }
        let tables = match &self.opts.tables {
            Some(d) => Some(Tablebase::open(d).map_err(|e| e.to_string())?),
            None => None,
        };
        let solution = self.opts.solution.load().map_err(|e| e.to_string())?;
        let opts = PlayerOptions {
            search_nodes: self.opts.search_nodes,
        };
        let mut player = Player::new(solution, tables, opts);
        player
            .prepare(crate::rules::board::Board::tsivy())
            .map_err(|e| e.to_string())?;
        self.player = Some(player);
        Ok(())
    }

    fn set_option(&mut self, words: &[&str]) -> Result<(), String> {
        // setoption name NAME [value VALUE]: a name and a value may hold spaces.
        let text = words.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or("setoption wants `name NAME value VALUE`")?;
        let (name, value) = match rest.split_once(" value ") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (rest.trim(), ""),
        };
        match name.to_ascii_lowercase().as_str() {
            "tables" => {
                self.opts.tables = (!value.is_empty()).then(|| value.into());
            }
            "solution" => self.opts.solution = SolutionSource::parse(value),
            "searchnodes" => {
                self.opts.search_nodes = value
                    .parse()
                    .map_err(|_| format!("SearchNodes {value:?} is not a number of nodes"))?;
            }
            "nocapturelimit" => {
                let n: u64 = value
                    .parse()
                    .map_err(|_| format!("NoCaptureLimit {value:?} is not a number of plies"))?;
                self.opts.limit = match n {
                    0 => None,
                    n => Some(Limit::new(n).map_err(|e| e.to_string())?),
                };
                self.game = Game::new(*self.game.start(), rules_of(self.opts.limit));
                return Ok(());
            }
            _ => return Err(format!("no option {name:?}")),
        }
        self.player = None;
        Ok(())
    }

    /// The game `position startpos|fen TEXT [moves M...]` sets, every move checked.
    fn position(&self, words: &[&str]) -> Result<Game, String> {
        let at = words.iter().position(|w| *w == "moves");
        let (setup, moves) = match at {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &[][..]),
        };
        let start = match setup {
            ["startpos"] => Position::start(crate::rules::board::Board::tsivy()),
            ["fen", text @ ..] if !text.is_empty() => Position::parse_arg(&text.join(" "))
                .map_err(|e| format!("bad position text: {e}"))?,
            _ => return Err("position wants `startpos` or `fen TEXT`, then `moves M...`".into()),
        };
        let mut game = Game::new(start, rules_of(self.opts.limit));
        for (i, mv) in moves.iter().enumerate() {
            game.play_text(mv)
                .map_err(|e| format!("move {} ({mv}): {e}", i + 1))?;
        }
        Ok(game)
    }

    fn go(&mut self, words: &[&str]) -> Reply {
        if let Some(end) = self.game.end() {
            return Reply::of(vec![
                format!("info string error: the game is over: {end}"),
                "bestmove (none)".into(),
            ]);
        }
        let (pos, rules) = (*self.game.position(), self.game.rules());
        if let Some(rng) = &mut self.rng {
            let moves = self.game.legal_moves();
            let mv = moves.choose(rng).expect("a game not over has a move");
            return Reply::of(vec![
                "info value unknown".into(),
                format!("bestmove {}", mv.notation(pos.board())),
            ]);
        }
        if let Err(e) = self.load() {
            return Reply::of(vec![
                format!("info string error: {e}"),
                "bestmove (none)".into(),
            ]);
        }
        let player = self.player.as_mut().expect("loaded");
        let budget = go_nodes(words, self.opts.search_nodes);
        let choice = match budget {
            Some(n) => player.with_search_nodes(n, |p| p.choose(&pos, rules)),
            None => player.choose(&pos, rules),
        };
        match choice {
            Ok(c) => {
                let mut lines = vec![info_value(&c.known, pos.turn())];
                let why = match &c.source {
                    super::Source::Proof(name) => format!("info string move from {name}"),
                    s => format!("info string move from {}", s.name()),
                };
                lines.push(why);
                lines.push(format!("bestmove {}", c.mv.notation(pos.board())));
                Reply::of(lines)
            }
            Err(e) => Reply::of(vec![
                format!("info string error: {e}"),
                "bestmove (none)".into(),
            ]),
        }
    }
}

/// The search budget of one `go`: `nodes N`; else under `movetime MS`, the
/// `SearchNodes` option but at most 250 nodes a millisecond (the search runs about
/// 400,000 a second on the machine docs/ENGINE.md names, so the budget stays
/// inside the time); else the option's.
fn go_nodes(words: &[&str], option: u64) -> Option<u64> {
    let arg = |name: &str| {
        words
            .windows(2)
            .find(|w| w[0] == name)
            .and_then(|w| w[1].parse::<u64>().ok())
    };
    arg("nodes").or_else(|| arg("movetime").map(|ms| ms.saturating_mul(250).min(option)))
}

fn rules_of(limit: Option<Limit>) -> Rules {
    match limit {
        Some(l) => Rules::no_capture_limit(l, 0).expect("counter 0 is under any limit"),
        None => Rules::PLAIN,
    }
}

/// `info value draw source proof`, `info value win depth 23 source table`,
/// `info value notlose source proof`, `info value unknown`: the value for the side
/// to move.
pub fn info_value(known: &Known, turn: Color) -> String {
    let word = known.word(turn);
    match known {
        Known::Table(v) => {
            let depth = match (v, v.depth()) {
                (_, None) => String::new(),
                (Value::Plain(_), Some(d)) => format!(" depth {d}"),
                (_, Some(t)) => format!(" capture {t}"),
            };
            format!("info value {word}{depth} source table")
        }
        Known::Proved(_) => format!("info value {word} source proof"),
        Known::Unknown => format!("info value {word}"),
    }
}
