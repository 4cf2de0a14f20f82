//! A tiny engine on the tables: plays a covered position to the end, choosing at
//! each turn, among the legal moves, the one the tables rank best (fastest win,
//! else a draw, else the slowest loss).
//!   cargo run --release --example engine -- DIR POSITION [MAX_PLIES]

use fanotb::Tablebase;
use fanotb::{Outcome, Position};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, position, rest @ ..] = args.as_slice() else {
        return Err("usage: engine DIR POSITION [MAX_PLIES]".into());
    };
    let max_plies: usize = rest.first().map_or(Ok(200), |s| s.parse())?;
    let tb = Tablebase::open(dir)?;
    let mut pos: Position = position.parse()?;
    println!("{pos}: {}", tb.probe(&pos)?);
    for ply in 1..=max_plies {
        // Every root move with its value for the mover, best first.
        let Some(best) = tb.moves(&pos)?.into_iter().next() else {
            println!("{} has no move and loses", pos.turn().name());
            break;
        };
        println!(
            "{ply:>3}. {:<16} {:<12} {}",
            best.mv.notation(pos.board()),
            best.outcome.to_string(),
            best.result
        );
        pos = best.result;
        if pos.us() == 0 {
            println!("{} has no stones left and loses", pos.turn().name());
            break;
        }
        if best.outcome == Outcome::Draw && ply >= 10 {
            println!("a draw: the tables hold it forever; stopping");
            break;
        }
    }
    Ok(())
}
