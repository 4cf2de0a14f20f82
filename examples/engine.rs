//! A tiny engine on the tables: plays a covered position to the end, choosing at
//! each turn, among the legal moves, the one the tables rank best (fastest win,
//! else a draw, else the slowest loss); with a no-capture limit, from the
//! rule-aware tables, the counter stepping with each move.
//!   cargo run --release --example engine -- DIR POSITION [MAX_PLIES [LIMIT]]

use fanotb::{Limit, Position, Rules, Tablebase, Wdl};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, position, rest @ ..] = args.as_slice() else {
        return Err("usage: engine DIR POSITION [MAX_PLIES [LIMIT]]".into());
    };
    let max_plies: usize = rest.first().map_or(Ok(200), |s| s.parse())?;
    let mut rules = match rest.get(1) {
        Some(n) => Rules::from(Limit::new(n.parse()?)?),
        None => Rules::PLAIN,
    };
    let tb = Tablebase::open(dir)?;
    let mut pos: Position = position.parse()?;
    println!("{pos}: {}", tb.probe(&pos, rules)?);
    for ply in 1..=max_plies {
        // Every root move with its value for the mover, best first.
        let Some(best) = tb.moves(&pos, rules)?.into_iter().next() else {
            if rules.at_limit() {
                println!("drawn: the no-capture counter reached the limit");
            } else {
                println!("{} has no move and loses", pos.turn().name());
            }
            break;
        };
        println!(
            "{ply:>3}. {:<16} {:<12} {}",
            best.mv.notation(pos.board()),
            best.value.to_string(),
            best.result
        );
        (pos, rules) = (best.result, best.rules);
        if pos.us() == 0 {
            println!("{} has no stones left and loses", pos.turn().name());
            break;
        }
        if best.value.wdl() == Wdl::Draw && ply >= 10 {
            println!("a draw: the tables hold it forever; stopping");
            break;
        }
    }
    Ok(())
}
