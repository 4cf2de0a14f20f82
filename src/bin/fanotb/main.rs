//! The `fanotb` command line: parses arguments, calls the library, prints its
//! reports. One module per group of subcommands; each subcommand is one function
//! that returns a report (`Serialize` for `--json`, `Display` for text).

mod analyse;
mod args;
mod build_report;
mod charts;
mod check_proof;
#[cfg(feature = "mpi")]
mod distributed;
mod engine;
mod game;
mod lemmas;
mod output;
mod probe;
mod progress;
mod prove;
mod prove_tree;
mod rules;
mod serve;
mod solve;
mod tables;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use args::{Result, message};
use output::{Reported, emit, print};

#[derive(Parser)]
#[command(
    name = "fanotb",
    version,
    about = "Perfect-play endgame tables and proofs for Fanorona",
    after_help = "Examples:
  fanotb generate --max-stones 4
  fanotb probe \"9/9/B8/9/3WW3B w\"
  fanotb prove dimy --max-table-stones 2"
)]
struct Cli {
    /// Print the result as JSON on stdout; a failure too, as {"ok": false, "error": ...}.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a board diagram of a position.
    #[command(after_help = "Example: fanotb show start:5x3")]
    Show(rules::ShowArgs),
    /// List every legal move with the stones it takes and the resulting position.
    #[command(after_help = "Example: fanotb moves \"9/9/3BB4/9/2W1B4 w\"")]
    Moves(rules::MovesArgs),
    /// Apply moves in notation and print the final position.
    #[command(after_help = "Example: fanotb play start d2-e3A c3-d2A")]
    Play(rules::PlayArgs),
    /// Play a side against the tables in the terminal: they answer with perfect
    /// play; the result and the record are printed at the end.
    #[command(
        after_help = "Examples:\n  fanotb game \"9/9/B8/9/3WW3B w\" --record game.fanrec\n  fanotb game \"9/9/B8/9/3WW3B w\" --side black --no-capture-limit 60"
    )]
    Game(game::GameArgs),
    /// Speak the engine protocol of docs/ENGINE.md on stdin and stdout: the solved
    /// game's player (the tsivy draw proof, the tables, a bounded search for wins).
    #[command(
        after_help = "Examples:\n  fanotb engine --dir tables\n  printf 'position startpos\\ngo\\nquit\\n' | fanotb engine"
    )]
    Engine(engine::EngineArgs),
    /// Play two engines of the engine protocol against each other from the tsivy
    /// start, alternating colours, and print wins, draws, losses and the records.
    #[command(
        after_help = "Example:\n  fanotb match 'fanotb engine --dir tables' 'fanotb engine --random 7' --games 20 --opening-plies 4"
    )]
    Match(engine::MatchArgs),
    /// Replay a game record against the tables: the value before and after every
    /// move, the mistakes and inaccuracies with the best move, the plies no table
    /// covers, and how the game ended.
    #[command(
        after_help = "Examples:\n  fanotb analyse game.fanrec\n  fanotb analyse game.fanrec --json --chart game-chart"
    )]
    Analyse(analyse::AnalyseArgs),
    /// Count leaf positions at a depth (moves reaching the same position count once).
    #[command(after_help = "Example: fanotb perft start 3 --divide")]
    Perft(rules::PerftArgs),
    /// Build endgame tables (skips tables already complete; resumes after interruption).
    #[command(
        after_help = "Examples:\n  fanotb generate --max-stones 4\n  fanotb generate --board dimy --signature 3v2 --dir tables\n  fanotb generate --max-stones 5 --no-capture-limit 60"
    )]
    Generate(tables::GenerateArgs),
    /// Value, depth and every move's value of a position; `-` reads positions from stdin.
    #[command(
        after_help = "Examples:\n  fanotb probe \"9/9/B8/9/3WW3B w\"\n  fanotb probe - --json < positions.txt\n  fanotb probe \"9/9/B8/9/3WW3B w\" --no-capture-limit 60 --counter 12"
    )]
    Probe(probe::ProbeArgs),
    /// The principal line to the end of the game.
    #[command(
        after_help = "Examples:\n  fanotb line \"9/9/B8/9/3WW3B w\"\n  fanotb line \"9/9/B8/9/3WW3B w\" --no-capture-limit 60"
    )]
    Line(probe::LineArgs),
    /// Per-table statistics: placements, wins, draws, losses, longest win, size;
    /// with --plot, charts of depths and of win/draw/loss shares.
    #[command(
        after_help = "Examples:\n  fanotb stats --dir tables\n  fanotb stats --dir tables --plot charts"
    )]
    Stats(tables::StatsArgs),
    /// Check tables: checksums, then re-derive every entry from its successors.
    #[command(
        after_help = "Examples:\n  fanotb verify\n  fanotb verify --signature 3v5 --sample 100000\n  fanotb verify --manifest docs/MANIFEST.tsv --partial"
    )]
    Verify(tables::VerifyArgs),
    /// Print the checksum manifest of a table directory: every table file's path,
    /// size, stored xxh3 and SHA-256 (`verify --manifest` checks against it).
    #[command(
        after_help = "Examples:\n  fanotb manifest --dir tables > tables.manifest\n  fanotb manifest --dir new-tables --update docs/MANIFEST.tsv > merged.tsv"
    )]
    Manifest(tables::ManifestArgs),
    /// Solve a whole small board from its start position (or --position).
    #[command(after_help = "Examples:\n  fanotb solve 5x3\n  fanotb solve --all-small")]
    Solve(solve::SolveArgs),
    /// Prove the exact value of a board's start (or --position) by proof-number
    /// search over tables of a few stones, and write a checkable certificate.
    #[command(after_help = "Example: fanotb prove dimy --max-table-stones 2")]
    Prove(prove::ProveArgs),
    /// Check a proof certificate from the rules and the tables, independently of the
    /// search that wrote it.
    #[command(
        after_help = "Examples:\n  fanotb check-proof tables/proofs/5x5-start.fnproof\n  fanotb check-proof proofs/tsivy/lemmas/lemmas.fnpack --lemmas proofs/tsivy/lemmas"
    )]
    CheckProof(check_proof::CheckProofArgs),
    /// Pack a lemma directory: every loose lemma file and every pack no search is
    /// writing into one pack of large segments, keeping the largest packs as they
    /// are while each is twice the rest (--all: into one), and seal its logs
    /// (docs/PROOF.md, "Lemma packs").
    #[command(after_help = "Example: fanotb pack-lemmas proofs/tsivy/lemmas")]
    PackLemmas(lemmas::PackLemmasArgs),
    /// Print a lemma directory's log (jobs.tsv, tree.tsv or checked.tsv) whole: the
    /// lines pack-lemmas sealed (NAME.zst, NAME.1.zst, ...), then those appended since.
    #[command(after_help = "Example: fanotb read-log proofs/tsivy/lemmas/tree.tsv")]
    ReadLog(lemmas::ReadLogArgs),
    /// Rewrite a lemma directory in the newest format (version 4: proofs as their
    /// moves) into one pack, with the certificates that rely on it (--root).
    #[command(
        after_help = "Example: fanotb recode-lemmas proofs/tsivy/lemmas --root proofs/tsivy/lemmas/root.fnproof --out new"
    )]
    RecodeLemmas(lemmas::RecodeLemmasArgs),
    /// Write a result as one self-contained file: the certificate and exactly the
    /// lemmas it relies on (docs/PROOF.md, "Proof bundles"), which `check-proof`
    /// checks alone.
    #[command(
        after_help = "Example: fanotb bundle-proof proofs/tsivy/lemmas/root.fnproof --lemmas proofs/tsivy/lemmas --out start.fnproof"
    )]
    BundleProof(lemmas::BundleProofArgs),
    /// Prove a board's start (or --position) bottom up: every position --depth
    /// plies deep as a job whose proof is kept as a lemma, then each level above
    /// over them, then the root; a run stopped anywhere goes on from the lemmas.
    #[command(
        after_help = "Example: fanotb prove-jobs dimy --depth 2 --lemmas tables/lemmas/dimy --max-table-stones 6"
    )]
    ProveJobs(prove::ProveJobsArgs),
    /// Answer "does SIDE win?" at a board's start (or --position) by PN²: a
    /// best-first tree whose leaves are bounded searches, each proof kept as a
    /// lemma; a run stopped anywhere goes on from the lemmas and the leaves' log.
    #[command(
        after_help = "Example: fanotb prove-tree dimy --attacker white --lemmas tables/lemmas/dimy --max-table-stones 6"
    )]
    ProveTree(prove_tree::ProveTreeArgs),
    /// Serve the tables over HTTP: a JSON API (/api/probe, /api/moves, /api/line,
    /// /api/tables, /api/game, /api/play, POST /api/analyse) and a web board at /
    /// (/play plays the solved game).
    #[command(
        after_help = "Examples:\n  fanotb serve --dir tables\n  curl 'http://127.0.0.1:8080/api/probe?position=9/9/B8/9/3WW3B%20w'"
    )]
    Serve(serve::ServeArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Example: fanotb completions bash > ~/.local/share/bash-completion/completions/fanotb"
    )]
    Completions {
        /// bash, zsh, fish, elvish or powershell. Example: bash.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    // An empty FANOTB_TABLES means unset (the default directory), not an empty --dir.
    if std::env::var_os("FANOTB_TABLES").is_some_and(|v| v.is_empty()) {
        // SAFETY: no other thread exists yet to read the environment concurrently.
        unsafe { std::env::remove_var("FANOTB_TABLES") };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A usage error asked with --json is JSON on stdout too, as every other
            // failure (help and --version are not failures).
            if e.use_stderr() && std::env::args().any(|a| a == "--json") {
                // The message is the rendered error's first paragraph, on one line.
                let rendered = e.render().to_string();
                let first: Vec<&str> = rendered
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                let msg = first.join(" ").trim_start_matches("error: ").to_string();
                emit(&(output::to_json(&serde_json::json!({"ok": false, "error": msg})) + "\n"));
            }
            e.exit()
        }
    };
    let json = cli.json;
    match run(cli.command, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let msg = message(e.as_ref());
            // A program asked for JSON: it gets the error as JSON too, unless the
            // command's own JSON already said it.
            if json && !e.is::<Reported>() {
                emit(&(output::to_json(&serde_json::json!({"ok": false, "error": msg})) + "\n"));
            }
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(cmd: Command, json: bool) -> Result<()> {
    match cmd {
        Command::Show(a) => print(&rules::show(a)?, json),
        Command::Moves(a) => print(&rules::moves(a)?, json),
        Command::Play(a) => print(&rules::play(a)?, json),
        Command::Perft(a) => print(&rules::perft_command(a)?, json),
        Command::Generate(a) => print(&tables::generate_command(a, json)?, json),
        Command::Probe(a) if a.position == "-" => {
            probe::probe_batch(&a.tables, &a.rules, &a.vela, json)?
        }
        Command::Probe(a) => print(&probe::probe(a)?, json),
        Command::Line(a) => print(&probe::line(a)?, json),
        Command::Stats(a) => print(&tables::stats(a)?, json),
        Command::Verify(a) if a.manifest.is_some() => {
            let file = a.manifest.clone().expect("a manifest");
            let report = tables::verify_manifest(&a, &file)?;
            print(&report, json);
            report.failure(json)?;
        }
        Command::Verify(a) => {
            let report = tables::verify_command(a, json)?;
            print(&report, json);
            report.failure(json)?;
        }
        Command::Manifest(a) => print(&tables::manifest(a)?, json),
        Command::Solve(a) => print(&solve::solve_command(a, json)?, json),
        Command::Prove(a) => print(&prove::prove_command(a, json)?, json),
        Command::CheckProof(a) => print(&check_proof::check_proof_command(a)?, json),
        Command::PackLemmas(a) => print(&lemmas::pack_lemmas_command(&a)?, json),
        Command::ReadLog(a) => lemmas::read_log_command(&a)?,
        Command::RecodeLemmas(a) => print(&lemmas::recode_lemmas_command(&a)?, json),
        Command::BundleProof(a) => print(&lemmas::bundle_proof_command(&a)?, json),
        Command::ProveJobs(a) => prove::prove_jobs_command(a, json)?,
        Command::ProveTree(a) => prove_tree::prove_tree_command(a, json)?,
        Command::Serve(a) => serve::serve(a)?,
        Command::Game(_) if json => return Err("game is interactive: it has no --json".into()),
        Command::Game(a) => game::game(a)?,
        Command::Engine(_) if json => {
            return Err("engine speaks its own protocol: it has no --json".into());
        }
        Command::Engine(a) => engine::engine(a)?,
        Command::Match(a) => print(&engine::match_command(a)?, json),
        Command::Analyse(a) => print(&analyse::analyse_command(a)?, json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "fanotb", &mut out);
            emit(&String::from_utf8_lossy(&out));
        }
    }
    Ok(())
}
