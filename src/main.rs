//! The `fanotb` command line: parses arguments, calls the library, prints.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use fanotb::{Position, perft, perft_divide};

#[derive(Parser)]
#[command(name = "fanotb", version, about = "Perfect-play endgame tables for Fanorona")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a board diagram of a position.
    Show {
        /// Position text, `start` (tsivy) or `start:WxH`.
        position: String,
        #[arg(long)]
        json: bool,
    },
    /// List every legal move with the stones it takes and the resulting position.
    Moves {
        position: String,
        #[arg(long)]
        json: bool,
    },
    /// Apply moves in notation and print the final position.
    Play {
        position: String,
        #[arg(required = true)]
        moves: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Count leaf positions at a depth (moves reaching the same position count once).
    Perft {
        position: String,
        depth: u32,
        /// Count per first move.
        #[arg(long)]
        divide: bool,
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn print_json(v: serde_json::Value) {
    println!("{}", serde_json::to_string_pretty(&v).expect("JSON values serialise"));
}

fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Show { position, json } => {
            let pos = Position::parse_arg(&position)?;
            if json {
                let b = pos.board();
                print_json(json!({
                    "position": pos.to_string(),
                    "width": b.width(),
                    "height": b.height(),
                    "turn": pos.turn().name().to_lowercase(),
                    "white": b.point_names(pos.white()),
                    "black": b.point_names(pos.black()),
                }));
            } else {
                print!("{}", pos.diagram());
                println!("{pos}");
            }
        }
        Command::Moves { position, json } => {
            let pos = Position::parse_arg(&position)?;
            let b = pos.board();
            let moves = pos.legal_moves();
            let distinct = pos.successors().len();
            if json {
                let list: Vec<_> = moves
                    .iter()
                    .map(|m| {
                        json!({
                            "move": m.notation(b),
                            "captured": b.point_names(m.captured()),
                            "result": pos.apply(m).to_string(),
                        })
                    })
                    .collect();
                print_json(json!({
                    "position": pos.to_string(),
                    "moves": list,
                    "distinct_results": distinct,
                }));
            } else {
                for m in &moves {
                    let taken = b.point_names(m.captured()).join(" ");
                    let taken = if taken.is_empty() { "-".into() } else { taken };
                    println!("{:<16} takes {:<20} -> {}", m.notation(b), taken, pos.apply(m));
                }
                println!("{} moves, {} distinct results", moves.len(), distinct);
            }
        }
        Command::Play {
            position,
            moves,
            json,
        } => {
            let pos = Position::parse_arg(&position)?;
            let end = pos.play(moves.iter().map(String::as_str))?;
            if json {
                print_json(json!({"position": pos.to_string(), "moves": moves, "result": end.to_string()}));
            } else {
                print!("{}", end.diagram());
                println!("{end}");
            }
        }
        Command::Perft {
            position,
            depth,
            divide,
            json,
        } => {
            let pos = Position::parse_arg(&position)?;
            let start = std::time::Instant::now();
            let (lines, total) = if divide && depth > 0 {
                let lines = perft_divide(&pos, depth);
                let total = lines.iter().filter(|l| l.same_as.is_none()).map(|l| l.count).sum();
                (lines, total)
            } else {
                (Vec::new(), perft(&pos, depth))
            };
            let secs = start.elapsed().as_secs_f64();
            if json {
                let list: Vec<_> = lines
                    .iter()
                    .map(|l| json!({"move": l.notation, "count": l.count, "same_as": l.same_as}))
                    .collect();
                let mut v = json!({"position": pos.to_string(), "depth": depth, "count": total, "seconds": secs});
                if divide {
                    v["divide"] = json!(list);
                }
                print_json(v);
            } else {
                for l in &lines {
                    match &l.same_as {
                        None => println!("{:<16} {}", l.notation, l.count),
                        Some(o) => println!("{:<16} {} (same position as {o}: counted once)", l.notation, l.count),
                    }
                }
                println!("perft {depth}: {total}");
                println!(
                    "{:.3} s, {:.1} M leaves/s",
                    secs,
                    total as f64 / secs.max(1e-9) / 1e6
                );
            }
        }
    }
    Ok(())
}
