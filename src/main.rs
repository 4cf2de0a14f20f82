//! The `fanotb` command line: parses arguments, calls the library, prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use fanotb::check::check as check_proof;
use fanotb::Signature;
use fanotb::internals::Indexer;
use fanotb::probe::{MoveOutcome, Tablebase, best_count};
use fanotb::proof::{CheckpointPlan, Claim, Limits, ProveOptions, Proved, SearchProgress, prove};
use fanotb::retro::{Observer, Options, TableReport, generate, peak_rss};
use fanotb::solve::{SMALL_BOARDS, Solution, published, solve};
use fanotb::table::TableFile;
use fanotb::verify::verify;
use fanotb::{Board, Color, Outcome, Position, Wdl, perft, perft_divide};

/// Writes to stdout; a closed pipe (`fanotb ... | head`) ends the program quietly
/// instead of panicking.
fn emit(s: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if o.write_all(s.as_bytes()).and_then(|()| o.flush()).is_err() {
        std::process::exit(0);
    }
}

macro_rules! out {
    ($($t:tt)*) => { emit(&format!($($t)*)) };
}
macro_rules! outln {
    ($($t:tt)*) => { emit(&(format!($($t)*) + "\n")) };
}

#[derive(Parser)]
#[command(
    name = "fanotb",
    version,
    about = "Perfect-play endgame tables for Fanorona"
)]
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
    /// Build endgame tables (skips tables already complete; resumes after interruption).
    Generate {
        /// Board: tsivy, dimy or WxH.
        #[arg(long, default_value = "tsivy")]
        board: String,
        /// Every signature with up to this many stones.
        #[arg(
            long,
            conflicts_with = "signature",
            required_unless_present = "signature"
        )]
        max_stones: Option<usize>,
        /// Named signatures such as 3v2 (with every table they depend on).
        #[arg(long, num_args = 1..)]
        signature: Vec<Signature>,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Value, depth and every move's value of a position. With `-`, positions are
    /// read from stdin, one a line, and each is answered on one line (JSON Lines with
    /// `--json`): `fanotb probe - < positions.txt`.
    Probe {
        position: String,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// The principal line to the end of the game.
    Line {
        position: String,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Per-table statistics: placements, wins, draws, losses, longest win, size.
    Stats {
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Check tables: checksums, then re-derive every entry from its successors.
    Verify {
        /// Only these signatures (default: every table in the directory).
        #[arg(long, num_args = 1..)]
        signature: Vec<Signature>,
        /// Re-derive this many entries per table, chosen by a hash, through the probe
        /// API, decoding no table: for tables too large to check whole.
        #[arg(long)]
        sample: Option<u64>,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Solve a whole small board from its start position (or --position).
    Solve {
        /// Board: WxH (columns x rows), tsivy or dimy.
        #[arg(required_unless_present = "all_small")]
        board: Option<String>,
        /// Solve this position of the board instead of the start.
        #[arg(long, conflicts_with = "all_small")]
        position: Option<String>,
        /// Solve every small board this machine can do and print one results table.
        #[arg(long)]
        all_small: bool,
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Prove the exact value of a board's start (or --position) by proof-number
    /// search over tables of a few stones, and write a checkable certificate.
    Prove {
        /// Board: WxH (columns x rows), tsivy or dimy.
        board: String,
        /// Prove this position of the board instead of the start.
        #[arg(long)]
        position: Option<String>,
        /// Positions with at most this many stones are table leaves (built on demand).
        #[arg(long, default_value_t = 6)]
        max_table_stones: usize,
        /// Certificate file (default: DIR/proofs/WxH-start.fnproof, or the position's
        /// hash instead of `start`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Threads for table builds; with two or more, the two searches run at once.
        #[arg(long)]
        threads: Option<usize>,
        /// Give up after this many search nodes (per search).
        #[arg(long)]
        max_nodes: Option<u64>,
        /// Give up when a search's transposition table holds this many positions
        /// (about 60 bytes each; the default keeps both searches near 12 GiB).
        #[arg(long, default_value_t = 100_000_000)]
        max_entries: usize,
        /// Save each search's table to FILE.white.ckpt / FILE.black.ckpt every
        /// --checkpoint-minutes and when it stops undecided; the same command resumes.
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        #[arg(long, default_value_t = 10.0)]
        checkpoint_minutes: f64,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script: `fanotb completions bash >
    /// ~/.local/share/bash-completion/completions/fanotb`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Check a proof certificate from the rules and the tables, independently of the
    /// search that wrote it.
    CheckProof {
        file: PathBuf,
        #[command(flatten)]
        tables: TablesArg,
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct TablesArg {
    /// Table directory.
    #[arg(long, env = "FANOTB_TABLES", default_value = "tables")]
    dir: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.command.json();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A program asked for JSON: it gets the error as JSON too, unless the
            // command's own JSON already said it.
            if json && !e.is::<Reported>() {
                print_json(json!({"ok": false, "error": e.to_string()}));
            }
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A failure whose `--json` report the command has already printed.
#[derive(Debug)]
struct Reported(String);

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Reported {}

/// The error of a command that failed after printing its own report: with `--json`
/// that report already holds the error.
fn failure(msg: String, json: bool) -> Box<dyn std::error::Error> {
    if json {
        Box::new(Reported(msg))
    } else {
        msg.into()
    }
}

impl Command {
    /// Whether the command was asked for `--json`.
    fn json(&self) -> bool {
        match self {
            Command::Show { json, .. }
            | Command::Moves { json, .. }
            | Command::Play { json, .. }
            | Command::Perft { json, .. }
            | Command::Generate { json, .. }
            | Command::Probe { json, .. }
            | Command::Line { json, .. }
            | Command::Stats { json, .. }
            | Command::Verify { json, .. }
            | Command::Solve { json, .. }
            | Command::Prove { json, .. }
            | Command::CheckProof { json, .. } => *json,
            Command::Completions { .. } => false,
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn print_json(v: serde_json::Value) {
    outln!(
        "{}",
        serde_json::to_string_pretty(&v).expect("JSON values serialise")
    );
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
                out!("{}", pos.diagram());
                outln!("{pos}");
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
                    outln!(
                        "{:<16} takes {:<20} -> {}",
                        m.notation(b),
                        taken,
                        pos.apply(m)
                    );
                }
                outln!("{} moves, {} distinct results", moves.len(), distinct);
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
                print_json(
                    json!({"position": pos.to_string(), "moves": moves, "result": end.to_string()}),
                );
            } else {
                out!("{}", end.diagram());
                outln!("{end}");
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
                let total = lines
                    .iter()
                    .filter(|l| l.same_as.is_none())
                    .map(|l| l.count)
                    .sum();
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
                        None => outln!("{:<16} {}", l.notation, l.count),
                        Some(o) => outln!(
                            "{:<16} {} (same position as {o}: counted once)",
                            l.notation,
                            l.count
                        ),
                    }
                }
                outln!("perft {depth}: {total}");
                outln!(
                    "{:.3} s, {:.1} M leaves/s",
                    secs,
                    total as f64 / secs.max(1e-9) / 1e6
                );
            }
        }
        Command::Generate {
            board,
            max_stones,
            signature,
            threads,
            tables,
            json,
        } => {
            let board = Board::by_name(&board)?;
            let targets = match max_stones {
                Some(n) => Signature::all_up_to(n),
                None => signature,
            };
            let opts = Options {
                threads,
                observer: table_observer(json),
            };
            let start = std::time::Instant::now();
            let reports = generate(&tables.dir, board, &targets, &opts, |r| {
                if !json {
                    outln!("{}", generate_line(r));
                }
            })?;
            let secs = start.elapsed().as_secs_f64();
            let positions: u64 = reports.iter().map(|r| r.stats.placements).sum();
            let bytes: u64 = reports.iter().map(|r| r.file_bytes).sum();
            let peak = peak_rss().unwrap_or(0);
            if json {
                let list: Vec<_> = reports
                    .iter()
                    .map(|r| {
                        json!({"signature": r.sig.to_string(), "path": r.path, "positions": r.stats.placements,
                        "entries": r.entries, "seconds": r.seconds, "bytes": r.file_bytes, "skipped": r.skipped,
                        "peak_rss": r.peak_rss, "memory_bound": r.memory_bound})
                    })
                    .collect();
                print_json(
                    json!({"board": board.size_name(), "tables": list, "positions": positions,
                    "bytes": bytes, "seconds": secs, "peak_rss": peak}),
                );
            } else {
                outln!(
                    "total: {} tables, {} positions, {:.1} s, peak {}, {} on disk",
                    reports.len(),
                    positions,
                    secs,
                    human_bytes(peak),
                    human_bytes(bytes)
                );
            }
        }
        Command::Probe {
            position,
            tables,
            json,
        } => {
            if position == "-" {
                return probe_batch(&tables, json);
            }
            let (pos, tb, outcome) = open_and_probe(&position, &tables)?;
            let moves = tb.moves(&pos)?;
            let b = pos.board();
            let best: Vec<String> = moves[..best_count(&moves)]
                .iter()
                .map(|m| m.mv.notation(b))
                .collect();
            if json {
                print_json(
                    json!({"position": pos.to_string(), "value": outcome.wdl().name(),
                    "depth": outcome.depth(), "moves": moves_json(b, &moves), "best": best}),
                );
            } else {
                outln!("{pos}");
                outln!("{} to move: {}", pos.turn().name(), outcome);
                for m in &moves {
                    outln!("  {:<16} {}", m.mv.notation(b), m.outcome);
                }
                let best = if best.is_empty() {
                    "-".into()
                } else {
                    best.join(" ")
                };
                outln!("best: {best}");
            }
        }
        Command::Line {
            position,
            tables,
            json,
        } => {
            let (pos, tb, outcome) = open_and_probe(&position, &tables)?;
            let line = tb.line(&pos)?;
            let b = pos.board();
            if json {
                let list: Vec<_> = line
                    .iter()
                    .map(|m| json!({"move": m.mv.notation(b), "position": m.result.to_string()}))
                    .collect();
                print_json(
                    json!({"position": pos.to_string(), "value": outcome.wdl().name(),
                    "depth": outcome.depth(), "line": list}),
                );
            } else {
                outln!("{pos}: {} for {}", outcome, pos.turn().name());
                if line.is_empty() && outcome == Outcome::Draw {
                    outln!("drawn: best play never ends the game");
                }
                for (i, m) in line.iter().enumerate() {
                    outln!("{:>3}. {:<16} {}", i + 1, m.mv.notation(b), m.result);
                }
            }
        }
        Command::Stats { tables, json } => {
            let tb = Tablebase::open(&tables.dir)?;
            let mut rows = Vec::new();
            for (board, sig, path) in tb.list()? {
                let file = TableFile::open(&path, board, sig)?;
                let st = file.header().stats;
                let example = (st.wins > 0).then(|| {
                    let (us, them) = Indexer::new(board, sig).unrank(st.longest_win);
                    Position::from_sides(board, us, them, Color::White).to_string()
                });
                rows.push((board, sig, st, example, file.file_size()));
            }
            let total_pos: u64 = rows.iter().map(|r| r.2.placements).sum();
            let total_bytes: u64 = rows.iter().map(|r| r.4).sum();
            let sum =
                |f: fn(&fanotb::table::Stats) -> u64| rows.iter().map(|r| f(&r.2)).sum::<u64>();
            let (wins, draws, losses) = (sum(|s| s.wins), sum(|s| s.draws), sum(|s| s.losses));
            if json {
                let list: Vec<_> = rows
                    .iter()
                    .map(|(b, sig, st, ex, bytes)| {
                        json!({"board": b.size_name(), "signature": sig.to_string(), "positions": st.placements,
                        "wins": st.wins, "draws": st.draws, "losses": st.losses,
                        "longest_win": if st.wins > 0 { Some(st.max_win_depth) } else { None },
                        "longest_win_position": ex, "bytes": bytes,
                        "bits_per_position": *bytes as f64 * 8.0 / st.placements.max(1) as f64})
                    })
                    .collect();
                print_json(
                    json!({"tables": list, "total": {"positions": total_pos, "wins": wins,
                    "draws": draws, "losses": losses, "bytes": total_bytes}}),
                );
            } else {
                outln!(
                    "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6}  longest win position",
                    "board",
                    "table",
                    "positions",
                    "wins",
                    "draws",
                    "losses",
                    "win",
                    "bytes",
                    "bits"
                );
                for (b, sig, st, ex, bytes) in &rows {
                    outln!(
                        "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6.3}  {}",
                        b.size_name(),
                        sig.to_string(),
                        st.placements,
                        st.wins,
                        st.draws,
                        st.losses,
                        if st.wins > 0 {
                            st.max_win_depth.to_string()
                        } else {
                            "-".into()
                        },
                        bytes,
                        *bytes as f64 * 8.0 / st.placements.max(1) as f64,
                        ex.as_deref().unwrap_or("-")
                    );
                }
                outln!(
                    "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6.3}",
                    "total",
                    rows.len(),
                    total_pos,
                    wins,
                    draws,
                    losses,
                    "",
                    total_bytes,
                    total_bytes as f64 * 8.0 / total_pos.max(1) as f64
                );
            }
        }
        Command::Verify {
            signature,
            sample,
            tables,
            json,
        } => {
            let tb = Tablebase::open(&tables.dir)?;
            let reports = verify(&tb, &signature, sample, |r| {
                if !json {
                    outln!(
                        "{} {}: {} entries {}, checksums ok, {} inconsistent",
                        r.board.size_name(),
                        r.sig,
                        r.entries,
                        if sample.is_some() {
                            "sampled"
                        } else {
                            "checked"
                        },
                        r.mismatches
                    );
                    for e in &r.examples {
                        outln!("  {e}");
                    }
                }
            })?;
            let bad: u64 = reports.iter().map(|r| r.mismatches).sum();
            if json {
                let list: Vec<_> = reports
                    .iter()
                    .map(|r| {
                        json!({"board": r.board.size_name(), "signature": r.sig.to_string(),
                        "entries": r.entries, "mismatches": r.mismatches, "examples": r.examples})
                    })
                    .collect();
                let error = (bad > 0).then(|| format!("{bad} inconsistent entries"));
                print_json(json!({"tables": list, "ok": bad == 0, "error": error}));
            }
            if bad > 0 {
                return Err(failure(format!("{bad} inconsistent entries"), json));
            }
            if !json {
                outln!("all {} tables verified", reports.len());
            }
        }
        Command::Solve {
            board,
            position,
            all_small,
            threads,
            tables,
            json,
        } => {
            let opts = Options {
                threads,
                observer: table_observer(json),
            };
            let targets: Vec<Position> = if all_small {
                SMALL_BOARDS
                    .iter()
                    .map(|&(w, h)| Board::get(w, h).map(Position::start))
                    .collect::<std::result::Result<_, _>>()?
            } else {
                vec![board_position(
                    board.as_deref().unwrap_or_default(),
                    position.as_deref(),
                )?]
            };
            let mut solutions = Vec::new();
            for pos in &targets {
                let sol = solve(&tables.dir, pos, &opts, |r| {
                    if !json && !r.skipped {
                        outln!("{}", generate_line(r));
                    }
                })?;
                if !json && !all_small {
                    out!("{}", describe_solution(&sol));
                }
                solutions.push(sol);
            }
            if json {
                let list: Vec<_> = solutions.iter().map(solution_json).collect();
                print_json(if all_small {
                    json!(list)
                } else {
                    list.into_iter().next().expect("one solution")
                });
            } else if all_small {
                outln!(
                    "{:<6} {:<11} {:<9} {:<9} {:>5} {:<20} {:>13} {:>9} {:>10} {:>10} {:<9}",
                    "board",
                    "literature",
                    "material",
                    "value",
                    "depth",
                    "best first moves",
                    "positions",
                    "seconds",
                    "peak RSS",
                    "disk",
                    "published"
                );
                for s in &solutions {
                    let best: Vec<String> = s.moves[..best_count(&s.moves)]
                        .iter()
                        .map(|m| m.mv.notation(s.board))
                        .collect();
                    outln!(
                        "{:<6} {:<11} {:<9} {:<9} {:>5} {:<20} {:>13} {:>9.1} {:>10} {:>10} {:<9}",
                        s.board.size_name(),
                        format!("{}x{}", s.board.height(), s.board.width()),
                        s.signature.to_string(),
                        format!("{} {}", s.position.turn().name(), verdict(s.outcome)),
                        s.outcome.depth().map_or("-".into(), |d| d.to_string()),
                        best.join(" "),
                        s.positions,
                        s.seconds,
                        human_bytes(s.peak_rss.unwrap_or(0)),
                        human_bytes(s.disk_bytes),
                        published(s.board).unwrap_or("-")
                    );
                }
            }
        }
        Command::Prove {
            board,
            position,
            max_table_stones,
            out,
            threads,
            max_nodes,
            max_entries,
            checkpoint,
            checkpoint_minutes,
            tables,
            json,
        } => {
            let pos = board_position(&board, position.as_deref())?;
            let out = match out {
                Some(p) => p,
                None => {
                    let d = tables.dir.join("proofs");
                    std::fs::create_dir_all(&d)
                        .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
                    let name = if position.is_none() {
                        "start".to_string()
                    } else {
                        format!(
                            "{:016x}",
                            xxhash_rust::xxh3::xxh3_64(pos.to_string().as_bytes())
                        )
                    };
                    d.join(format!("{}-{name}.fnproof", pos.board().size_name()))
                }
            };
            let opts = ProveOptions {
                max_table_stones,
                threads,
                limits: Limits {
                    max_nodes: max_nodes.unwrap_or(u64::MAX),
                    max_entries,
                },
                checkpoint: checkpoint.map(|prefix| CheckpointPlan {
                    prefix,
                    every: std::time::Duration::from_secs_f64(checkpoint_minutes.max(0.0) * 60.0),
                }),
                table_observer: table_observer(json),
            };
            let display = SearchDisplay::new(json);
            let proved = prove(
                &tables.dir,
                &pos,
                &opts,
                |r| {
                    if !json && !r.skipped {
                        outln!("{}", generate_line(r));
                    }
                },
                &|p| display.show(p),
            )?;
            display.finish();
            let bytes = proved.certificate.write(&out)?;
            let summary = ProofSummary::new(&proved, &out, bytes);
            if json {
                print_json(summary.json(&pos));
            } else {
                out!("{}", summary.text(&pos));
            }
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "fanotb", &mut out);
            emit(&String::from_utf8_lossy(&out));
        }
        Command::CheckProof { file, tables, json } => {
            let report = check_proof(&file, &tables.dir)?;
            let parts: Vec<_> = report
                .parts
                .iter()
                .map(|(side, claim, n)| (side.name(), claim_name(*claim), *n))
                .collect();
            if json {
                let list: Vec<_> = parts
                    .iter()
                    .map(|(s, c, n)| json!({"side": s.to_lowercase(), "claim": c, "positions": n}))
                    .collect();
                print_json(json!({
                    "certificate": file.display().to_string(),
                    "ok": true,
                    "board": report.root.board().size_name(),
                    "position": report.root.to_string(),
                    "value": report.value.name(),
                    "max_table_stones": report.max_table_stones,
                    "tables": report.tables,
                    "proofs": list,
                    "positions": report.positions,
                    "moves": report.moves,
                    "seconds": report.seconds,
                }));
            } else {
                outln!(
                    "{} {}: {} for {} to move (table leaves up to {} stones, {} tables matched by checksum)",
                    report.root.board().size_name(),
                    report.root,
                    report.value.name(),
                    report.root.turn().name(),
                    report.max_table_stones,
                    report.tables
                );
                for (s, c, n) in &parts {
                    outln!("  {s} {c}: {n} positions");
                }
                outln!(
                    "ok: {} positions and {} moves checked in {:.2} s",
                    report.positions,
                    report.moves,
                    report.seconds
                );
            }
        }
    }
    Ok(())
}

/// The position a board name and an optional `--position` name: the board's start
/// unless the text gives another position of that board.
fn board_position(board: &str, position: Option<&str>) -> Result<Position> {
    let b = Board::by_name(board)?;
    let Some(text) = position else {
        return Ok(Position::start(b));
    };
    let p = Position::parse_arg(text)?;
    if p.board() != b {
        return Err(format!(
            "the position is on {}, not {}",
            p.board().size_name(),
            b.size_name()
        )
        .into());
    }
    Ok(p)
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

fn generate_line(r: &TableReport) -> String {
    if r.skipped {
        return format!(
            "{:<6} {:>15} positions: already complete ({})",
            r.sig.to_string(),
            r.stats.placements,
            r.path.display()
        );
    }
    format!(
        "{:<6} {:>15} positions {:>12} entries {:>8.2} s  peak {:>10} (bound {:>10})  {:>10} bytes  W {} D {} L {}",
        r.sig.to_string(),
        r.stats.placements,
        r.entries,
        r.seconds,
        human_bytes(r.peak_rss.unwrap_or(0)),
        human_bytes(r.memory_bound),
        r.file_bytes,
        r.stats.wins,
        r.stats.draws,
        r.stats.losses
    )
}

/// "win", "draw" or "loss" as a result for the side to move ("wins", "draws", "loses").
fn verdict(o: Outcome) -> &'static str {
    match o.wdl() {
        Wdl::Win => "wins",
        Wdl::Draw => "draws",
        Wdl::Loss => "loses",
    }
}

fn describe_solution(s: &Solution) -> String {
    let b = s.board;
    let mut t = String::new();
    let lit = format!("{}x{}", b.height(), b.width());
    t += &format!(
        "{} board ({lit} rows x columns in the literature), material {}\n",
        b.size_name(),
        s.signature
    );
    t += &format!("{}\n", s.position);
    t += &format!(
        "value: {} to move {} ({})",
        s.position.turn().name(),
        verdict(s.outcome),
        s.outcome
    );
    if let Some(p) = published(b).filter(|_| s.position == Position::start(b)) {
        t += &format!("; published: {p} for White");
    }
    t += "\n";
    t += &match s.search.outcome {
        Some(o) if o == s.outcome => format!(
            "search check: {} proved by a {}-node search over the move generator\n",
            o, s.search.nodes
        ),
        Some(o) => format!("search check: MISMATCH, the search finds {}\n", o),
        None => format!("search check: no verdict within {} nodes\n", s.search.nodes),
    };
    t += "first moves:\n";
    for m in &s.moves {
        t += &format!("  {:<16} {}\n", m.mv.notation(b), m.outcome);
    }
    if !s.line.is_empty() {
        t += "principal line:\n";
        for (i, m) in s.line.iter().enumerate() {
            t += &format!("{:>4}. {:<16} {}\n", i + 1, m.mv.notation(b), m.result);
        }
    }
    t += &format!(
        "{} tables, {} positions, {:.1} s, peak {}, {} on disk\n",
        s.tables.len(),
        s.positions,
        s.seconds,
        human_bytes(s.peak_rss.unwrap_or(0)),
        human_bytes(s.disk_bytes)
    );
    t
}

fn solution_json(s: &Solution) -> serde_json::Value {
    let b = s.board;
    json!({
        "board": b.size_name(),
        "literature": format!("{}x{}", b.height(), b.width()),
        "position": s.position.to_string(),
        "material": s.signature.to_string(),
        "value": s.outcome.wdl().name(),
        "depth": s.outcome.depth(),
        "published": published(b),
        "search": {"value": s.search.outcome.map(|o| o.wdl().name()), "depth": s.search.outcome.and_then(|o| o.depth()), "nodes": s.search.nodes},
        "moves": moves_json(b, &s.moves),
        "line": s.line.iter().map(|m| json!({"move": m.mv.notation(b), "position": m.result.to_string()})).collect::<Vec<_>>(),
        "tables": s.tables.len(),
        "positions": s.positions,
        "seconds": s.seconds,
        "peak_rss": s.peak_rss,
        "disk_bytes": s.disk_bytes,
    })
}

/// Parses a position, opens the tables and probes it.
/// `probe -`: one answer a line for each position on stdin, so that a script need not
/// start a process per position. Fails at the end if any line failed.
fn probe_batch(tables: &TablesArg, json: bool) -> Result<()> {
    use std::io::BufRead;
    let tb = Tablebase::open(&tables.dir)?;
    let mut failed = 0;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let answer = Position::parse_arg(text)
            .map_err(|e| e.to_string())
            .and_then(|pos| {
                let outcome = tb.probe(&pos).map_err(|e| e.to_string())?;
                let moves = tb.best_moves(&pos).map_err(|e| e.to_string())?;
                let best: Vec<String> = moves.iter().map(|m| m.mv.notation(pos.board())).collect();
                Ok((pos, outcome, best))
            });
        match (answer, json) {
            (Ok((pos, o, best)), true) => outln!(
                "{}",
                json!({"position": pos.to_string(), "value": o.wdl().name(),
                    "depth": o.depth(), "best": best})
            ),
            (Ok((pos, o, best)), false) => outln!("{pos}: {o}, best {}", best.join(" ")),
            (Err(e), true) => {
                failed += 1;
                outln!("{}", json!({"position": text, "error": e}));
            }
            (Err(e), false) => {
                failed += 1;
                outln!("{text}: error: {e}");
            }
        }
    }
    if failed > 0 {
        return Err(failure(
            format!("{failed} positions could not be probed"),
            json,
        ));
    }
    Ok(())
}

fn open_and_probe(position: &str, tables: &TablesArg) -> Result<(Position, Tablebase, Outcome)> {
    let pos = Position::parse_arg(position)?;
    let tb = Tablebase::open(&tables.dir)?;
    let outcome = tb.probe(&pos)?;
    Ok((pos, tb, outcome))
}

/// Moves with their outcomes, for `--json`.
fn moves_json(b: &Board, moves: &[MoveOutcome]) -> Vec<serde_json::Value> {
    moves
        .iter()
        .map(|m| json!({"move": m.mv.notation(b), "value": m.outcome.wdl().name(), "depth": m.outcome.depth()}))
        .collect()
}

fn claim_name(c: Claim) -> &'static str {
    match c {
        Claim::Win => "wins",
        Claim::NotLose => "does not lose",
    }
}

/// Search progress: a spinner per search on a terminal, a plain line every ten
/// seconds in a log, nothing with `--json`.
struct SearchDisplay {
    bars: Option<(indicatif::MultiProgress, [indicatif::ProgressBar; 2])>,
    quiet: bool,
    last: std::sync::Mutex<[std::time::Instant; 2]>,
}

impl SearchDisplay {
    fn new(quiet: bool) -> SearchDisplay {
        use std::io::IsTerminal;
        let bars = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let m = indicatif::MultiProgress::new();
            let bar = || {
                let b = m.add(indicatif::ProgressBar::new_spinner());
                b.enable_steady_tick(std::time::Duration::from_millis(200));
                b
            };
            let bars = [bar(), bar()];
            (m, bars)
        });
        SearchDisplay {
            bars,
            quiet,
            last: std::sync::Mutex::new([std::time::Instant::now(); 2]),
        }
    }

    fn show(&self, p: &SearchProgress) {
        if self.quiet {
            return;
        }
        let num = |x: u32| {
            if x >= u32::MAX / 2 {
                "inf".to_string()
            } else {
                x.to_string()
            }
        };
        let line = format!(
            "does {} win? {} nodes, {:.0} nodes/s, proof {} disproof {}, {} entries, peak {}",
            p.attacker.name(),
            p.nodes,
            p.nodes as f64 / p.seconds.max(1e-9),
            num(p.proof),
            num(p.disproof),
            p.table_entries,
            human_bytes(peak_rss().unwrap_or(0))
        );
        let i = p.attacker as usize;
        match &self.bars {
            Some((_, bars)) => bars[i].set_message(line),
            None => {
                let mut last = self.last.lock().expect("progress clock");
                if last[i].elapsed().as_secs() >= 10 {
                    last[i] = std::time::Instant::now();
                    eprintln!("[{:8.1} s] {line}", p.seconds);
                }
            }
        }
    }

    fn finish(&self) {
        if let Some((_, bars)) = &self.bars {
            for b in bars {
                b.finish_and_clear();
            }
        }
    }
}

/// What `prove` prints, in text or JSON.
struct ProofSummary<'a> {
    proved: &'a Proved,
    path: &'a std::path::Path,
    bytes: u64,
    nodes: u64,
    peak: u64,
    table_positions: u64,
}

impl<'a> ProofSummary<'a> {
    fn new(proved: &'a Proved, path: &'a std::path::Path, bytes: u64) -> ProofSummary<'a> {
        ProofSummary {
            proved,
            path,
            bytes,
            nodes: proved.searches.iter().map(|s| s.nodes).sum(),
            peak: peak_rss().unwrap_or(0),
            table_positions: proved.tables.iter().map(|r| r.stats.placements).sum(),
        }
    }

    /// Each proof with the search that produced it: a win proof comes from the search
    /// for that side's win, a "does not lose" proof from the search for the other's.
    fn proofs(&self) -> Vec<(&'static str, &'static str, usize, u64, f64)> {
        self.proved
            .certificate
            .parts
            .iter()
            .map(|part| {
                let attacker = match part.claim {
                    Claim::Win => part.side,
                    Claim::NotLose => part.side.other(),
                };
                let s = self
                    .proved
                    .searches
                    .iter()
                    .find(|s| s.attacker == attacker)
                    .expect("every proof comes from a search");
                (
                    part.side.name(),
                    claim_name(part.claim),
                    part.entries.len(),
                    s.nodes,
                    s.seconds,
                )
            })
            .collect()
    }

    fn text(&self, pos: &Position) -> String {
        let c = &self.proved.certificate;
        let mut t = format!(
            "{} {}: {} for {} to move\n",
            pos.board().size_name(),
            pos,
            c.value.name(),
            pos.turn().name()
        );
        for (side, claim, n, nodes, secs) in self.proofs() {
            t += &format!("  {side} {claim}: {n} positions ({nodes} search nodes, {secs:.1} s)\n");
        }
        t += &format!(
            "tables: {} up to {} stones, {} positions, {:.1} s\n",
            c.tables.len(),
            c.max_table_stones,
            self.table_positions,
            self.proved.table_seconds
        );
        t += &format!(
            "search: {} nodes in {:.1} s ({:.0} nodes/s), peak {}\n",
            self.nodes,
            self.proved.search_seconds,
            self.nodes as f64 / self.proved.search_seconds.max(1e-9),
            human_bytes(self.peak)
        );
        t += &format!(
            "certificate: {} ({} bytes)\n",
            self.path.display(),
            self.bytes
        );
        t
    }

    fn json(&self, pos: &Position) -> serde_json::Value {
        let c = &self.proved.certificate;
        let proofs: Vec<_> = self
            .proofs()
            .into_iter()
            .map(|(side, claim, n, nodes, secs)| {
                json!({"side": side.to_lowercase(), "claim": claim, "positions": n,
                    "nodes": nodes, "seconds": secs})
            })
            .collect();
        json!({
            "board": pos.board().size_name(),
            "position": pos.to_string(),
            "value": c.value.name(),
            "proofs": proofs,
            "nodes": self.nodes,
            "seconds": self.proved.table_seconds + self.proved.search_seconds,
            "search_seconds": self.proved.search_seconds,
            "peak_rss": self.peak,
            "max_table_stones": c.max_table_stones,
            "tables": {"count": c.tables.len(), "positions": self.table_positions,
                "seconds": self.proved.table_seconds},
            "certificate": self.path.display().to_string(),
            "certificate_bytes": self.bytes,
        })
    }
}

/// Table-build progress for people: `None` with `--json`.
fn table_observer(json: bool) -> Option<std::sync::Arc<dyn Observer>> {
    (!json).then(|| std::sync::Arc::new(BuildProgress::new()) as std::sync::Arc<dyn Observer>)
}

/// Progress of a table build: an indicatif bar per stage on a terminal; in a log
/// (stderr not a terminal), a line when a stage starts, at most every 30 s while it
/// runs, and when it ends.
struct BuildProgress {
    log: bool,
    start: std::time::Instant,
    bar: std::sync::Mutex<Option<indicatif::ProgressBar>>,
    stage: std::sync::Mutex<(String, u64, std::time::Instant)>,
    done: std::sync::atomic::AtomicU64,
}

impl BuildProgress {
    fn new() -> BuildProgress {
        use std::io::IsTerminal;
        let now = std::time::Instant::now();
        BuildProgress {
            log: !std::io::stderr().is_terminal(),
            start: now,
            bar: std::sync::Mutex::new(None),
            stage: std::sync::Mutex::new((String::new(), 0, now)),
            done: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn log_line(&self, end: bool) {
        if !self.log {
            return;
        }
        let mut stage = self.stage.lock().expect("progress lock");
        if end || stage.2.elapsed().as_secs() >= 30 {
            stage.2 = std::time::Instant::now();
            let done = self.done.load(std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "[{:>7.1} s] {}: {}/{} entries{}",
                self.start.elapsed().as_secs_f64(),
                stage.0,
                if end { stage.1 } else { done },
                stage.1,
                if end { ", done" } else { "" }
            );
        }
    }
}

impl Observer for BuildProgress {
    fn begin(&self, name: &str, what: &str, len: u64) {
        self.done.store(0, std::sync::atomic::Ordering::Relaxed);
        if self.log {
            *self.stage.lock().expect("progress lock") =
                (format!("{name} {what}"), len, std::time::Instant::now());
            return;
        }
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>12} {msg:<18} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(name.to_string());
        bar.set_message(what.to_string());
        if let Some(old) = self.bar.lock().expect("progress lock").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn advance(&self, n: u64) {
        self.done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        if let Some(bar) = &*self.bar.lock().expect("progress lock") {
            bar.inc(n);
        }
        self.log_line(false);
    }

    fn end(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish();
        }
        self.log_line(true);
    }
}
