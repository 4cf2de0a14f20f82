//! `engine`: the engine protocol of docs/ENGINE.md on stdin and stdout, a line at a
//! time (the library's `Engine` answers each line); and `match`, which plays two
//! such engines against each other by the rules and prints the results.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde::Serialize;

use fanotb::{
    BoundedLines, Color, Engine, EngineOptions, Game, GameResult, Limit, MAX_LINE_BYTES, Position,
    Record, Rules, SolutionSource,
};

use crate::args::{Result, SolutionArgs, parse_limit};

#[derive(Args)]
pub struct EngineArgs {
    /// Table directory (the `Tables` option; none: the proofs alone). Example: tables.
    #[arg(long, env = "FANOTB_TABLES")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub solution: SolutionArgs,
    /// Play uniformly random legal moves from this seed (an opponent for tests).
    #[arg(long)]
    pub random: Option<u64>,
    /// The games' no-capture limit in plies.
    #[arg(long, value_parser = parse_limit)]
    pub no_capture_limit: Option<Limit>,
}

pub fn engine(a: EngineArgs) -> Result<()> {
    let mut opts = EngineOptions::default();
    opts.tables = a.dir;
    opts.solution = SolutionSource::parse(&a.solution.solution);
    opts.search_nodes = a.solution.search_nodes;
    opts.random = a.random;
    opts.limit = a.no_capture_limit;
    let mut engine = Engine::new(opts);
    let mut input = BoundedLines::new(std::io::stdin().lock(), MAX_LINE_BYTES).past_bad_lines();
    let mut out = std::io::stdout().lock();
    loop {
        let line = match input.next() {
            None => return Ok(()),
            Some(Ok(line)) => line,
            // A line too long is an error the engine survives, as any bad input.
            Some(Err(e)) => {
                writeln!(out, "info string error: {e}")?;
                out.flush()?;
                continue;
            }
        };
        let reply = engine.handle(&line);
        for l in &reply.lines {
            writeln!(out, "{l}")?;
        }
        out.flush()?;
        if reply.quit {
            return Ok(());
        }
    }
}

#[derive(Args)]
pub struct MatchArgs {
    /// The first engine's command line, run by `sh -c`. Example: "fanotb engine --dir tables".
    pub first: String,
    /// The second engine's command line. Example: "fanotb engine --random 7".
    pub second: String,
    /// Games to play; the first engine has White in odd games, Black in even ones.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Random plies before the engines take over: each game draws a number from 0
    /// to this, then the moves, from --seed.
    #[arg(long, default_value_t = 0)]
    pub opening_plies: usize,
    /// The seed of the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The no-capture limit in plies (the engines are told with NoCaptureLimit).
    #[arg(long, value_parser = parse_limit)]
    pub no_capture_limit: Option<Limit>,
    /// Milliseconds an engine is given a move (`go movetime`).
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// A game still going after this many plies is stopped, unfinished.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: usize,
    /// Write every game's record here, one after the other. Example: match.fanrec.
    #[arg(long)]
    pub records: Option<PathBuf>,
}

/// One game of a match.
#[derive(Serialize)]
pub struct MatchGame {
    /// 1, 2, ...
    pub game: usize,
    /// Which engine had White: 1 or 2.
    pub white: usize,
    pub opening: Vec<String>,
    pub result: String,
    /// How it ended: `no-stones`, `repetition`, ..., `illegal-move`, `no-answer`,
    /// `max-plies`.
    pub end: String,
    pub plies: usize,
    /// Median and worst milliseconds of each engine's answers.
    pub millis: [(f64, f64); 2],
    pub record: String,
}

/// A match's games and each engine's wins, draws and losses.
#[derive(Serialize)]
pub struct MatchReport {
    pub engines: [String; 2],
    pub games: Vec<MatchGame>,
    /// Wins, draws, losses of the first engine (the second's are the reverse).
    pub first: (usize, usize, usize),
    pub unfinished: usize,
}

impl std::fmt::Display for MatchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for g in &self.games {
            writeln!(
                f,
                "game {}: engine {} White, {} ({}, {} plies, opening {}), ms median/worst {:.1}/{:.1} and {:.1}/{:.1}",
                g.game,
                g.white,
                g.result,
                g.end,
                g.plies,
                if g.opening.is_empty() {
                    "-".into()
                } else {
                    g.opening.join(" ")
                },
                g.millis[0].0,
                g.millis[0].1,
                g.millis[1].0,
                g.millis[1].1,
            )?;
        }
        let (w, d, l) = self.first;
        writeln!(f, "engine 1: {}", self.engines[0])?;
        writeln!(f, "engine 2: {}", self.engines[1])?;
        write!(
            f,
            "engine 1: {w} wins, {d} draws, {l} losses; engine 2: {l} wins, {d} draws, {w} losses"
        )?;
        if self.unfinished > 0 {
            write!(f, "; {} unfinished", self.unfinished)?;
        }
        Ok(())
    }
}

/// An engine process: its input, and its output lines on a channel (so that a
/// silent engine is timed out, not waited for).
struct Player {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Player {
    fn start(cmd: &str, limit: Option<Limit>) -> Result<Player> {
        let mut child = Command::new("sh")
            .args(["-c", cmd])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let input = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = Player {
            child,
            input,
            lines,
        };
        p.send("uci")?;
        p.wait_for("uciok", Duration::from_secs(30))
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        if let Some(l) = limit {
            p.send(&format!(
                "setoption name NoCaptureLimit value {}",
                l.plies()
            ))?;
        }
        p.send("isready")?;
        p.wait_for("readyok", Duration::from_secs(120))
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        Ok(p)
    }

    fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.input, "{line}")?;
        self.input.flush()?;
        Ok(())
    }

    /// Lines until one starting with `word`; that line.
    fn wait_for(&self, word: &str, within: Duration) -> std::result::Result<String, String> {
        let end = Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.split_ascii_whitespace().next() == Some(word) => return Ok(l),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no `{word}` within {} s", within.as_secs()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("it exited before `{word}`"));
                }
            }
        }
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.send("quit");
        if self.child.try_wait().ok().flatten().is_none() {
            std::thread::sleep(Duration::from_millis(50));
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

pub fn match_command(a: MatchArgs) -> Result<MatchReport> {
    if a.games == 0 {
        return Err("--games 0: no game to play".into());
    }
    let mut engines = [
        Player::start(&a.first, a.no_capture_limit)?,
        Player::start(&a.second, a.no_capture_limit)?,
    ];
    let mut rng = StdRng::seed_from_u64(a.seed);
    let rules = match a.no_capture_limit {
        Some(l) => Rules::no_capture_limit(l, 0)?,
        None => Rules::PLAIN,
    };
    let mut report = MatchReport {
        engines: [a.first.clone(), a.second.clone()],
        games: Vec::new(),
        first: (0, 0, 0),
        unfinished: 0,
    };
    let mut records = String::new();
    for n in 1..=a.games {
        // Engine 1 has White in odd games.
        let white = if n % 2 == 1 { 0 } else { 1 };
        let mut game = Game::new(Position::start(fanotb::Board::tsivy()), rules);
        let plies = (0..=a.opening_plies)
            .collect::<Vec<_>>()
            .choose(&mut rng)
            .copied()
            .unwrap_or(0);
        for _ in 0..plies {
            let moves = game.legal_moves();
            let Some(mv) = moves.choose(&mut rng) else {
                break;
            };
            game.play(mv)?;
        }
        let opening = game.move_texts();
        let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for e in &mut engines {
            e.send("ucinewgame")?;
        }
        let (result, end) = loop {
            if let Some(end) = game.end() {
                break (end.result(), end.name().to_string());
            }
            if game.moves().len() >= a.max_plies {
                break (GameResult::Unfinished, "max-plies".into());
            }
            let turn = game.position().turn();
            let who = if turn == Color::White {
                white
            } else {
                1 - white
            };
            let e = &mut engines[who];
            let moves = game.move_texts().join(" ");
            e.send(&format!(
                "position startpos{}{moves}",
                if moves.is_empty() { "" } else { " moves " }
            ))?;
            e.send(&format!("go movetime {}", a.movetime))?;
            let t0 = Instant::now();
            let within = Duration::from_millis(a.movetime) + Duration::from_secs(30);
            let answer = e.wait_for("bestmove", within);
            times[who].push(t0.elapsed().as_secs_f64() * 1000.0);
            let lost = GameResult::Won(turn.other());
            match answer {
                Err(_) => break (lost, "no-answer".into()),
                Ok(line) => {
                    let mv = line.split_ascii_whitespace().nth(1).unwrap_or("");
                    if game.play_text(mv).is_err() {
                        break (lost, "illegal-move".into());
                    }
                }
            }
        };
        let score = &mut report.first;
        match result {
            GameResult::Won(c) if (c == Color::White) == (white == 0) => score.0 += 1,
            GameResult::Won(_) => score.2 += 1,
            GameResult::Drawn => score.1 += 1,
            GameResult::Unfinished => report.unfinished += 1,
        }
        let record = Record::of_game(
            &game,
            result,
            &[
                ("White", &engine_name(&report.engines, white)),
                ("Black", &engine_name(&report.engines, 1 - white)),
                ("Round", &n.to_string()),
            ],
        );
        records.push_str(&format!("{record}\n"));
        report.games.push(MatchGame {
            game: n,
            white: white + 1,
            opening,
            result: result.to_string(),
            end,
            plies: game.moves().len(),
            millis: [median_worst(&mut times[0]), median_worst(&mut times[1])],
            record: record.movetext(),
        });
    }
    if let Some(path) = &a.records {
        fanotb::replace_file(path, |f| f.write_all(records.as_bytes()))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(report)
}

fn engine_name(engines: &[String; 2], i: usize) -> String {
    format!("engine {}: {}", i + 1, engines[i])
}

fn median_worst(v: &mut [f64]) -> (f64, f64) {
    v.sort_unstable_by(f64::total_cmp);
    match v.len() {
        0 => (0.0, 0.0),
        n => (v[n / 2], v[n - 1]),
    }
}
