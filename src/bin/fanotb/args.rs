//! What the subcommands share: common arguments (the table directory, the rules a
//! question is asked under, a board and position), the result type, and the error
//! messages with their hints.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use fanotb::{Board, Color, Limit, Position, ProbeError, ProveError, Rules, TableError};

#[derive(Args)]
pub struct TablesArg {
    /// Table directory. Example: /data/fanorona-tables.
    #[arg(long, env = "FANOTB_TABLES", default_value = "tables")]
    pub dir: PathBuf,
}

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Parses a no-capture limit (1 to 250 plies).
pub fn parse_limit(s: &str) -> std::result::Result<Limit, String> {
    let n: u64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of plies"))?;
    Limit::new(n).map_err(|e| e.to_string())
}

/// Parses a number of minutes (0 or more, finite, fractions allowed) into a duration.
pub fn parse_minutes(s: &str) -> std::result::Result<std::time::Duration, String> {
    let minutes: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of minutes"))?;
    std::time::Duration::try_from_secs_f64(minutes * 60.0)
        .map_err(|_| format!("{s} minutes: give a finite number of minutes, 0 or more"))
}

/// The game's rules for a question: a no-capture limit and the counter, or none.
#[derive(Args)]
pub struct RulesArgs {
    /// Answer under this no-capture limit, in plies (1 to 250), from the rule-aware
    /// tables built with `generate --no-capture-limit N`. Example: 60.
    #[arg(long, value_parser = parse_limit)]
    pub no_capture_limit: Option<Limit>,
    /// Plies played since the last capture (0 to the limit; default 0). Example: 12.
    #[arg(long, requires = "no_capture_limit")]
    pub counter: Option<u32>,
}

impl RulesArgs {
    /// The rules asked for, checked.
    pub fn rules(&self) -> Result<Rules> {
        Ok(Rules::from_request(
            self.no_capture_limit.map(|n| n.plies().into()),
            self.counter,
        )?)
    }
}

/// The solved game a player plays from: a proof and its search for wins.
#[derive(Args)]
pub struct SolutionArgs {
    /// The proof played from: `builtin` (the tsivy draw proof built into fanotb),
    /// `none`, a bundle (docs/PROOF.md), or a certificate file whose lemmas are in
    /// its directory.
    #[arg(long, default_value = "builtin")]
    pub solution: String,
    /// Nodes of the search for a win where the opponent has left the proved draw
    /// (0: none).
    #[arg(long, default_value_t = 20_000)]
    pub search_nodes: u64,
}

impl SolutionArgs {
    /// The player of these options over the tables of `dir` (none if `dir` is not
    /// there and a proof is played from, which needs no table above 7 stones).
    pub fn player(&self, dir: &std::path::Path) -> Result<fanotb::Player> {
        let source = fanotb::SolutionSource::parse(&self.solution);
        let solution = source.load()?;
        let tables = match fanotb::Tablebase::open(dir) {
            Ok(tb) => Some(tb),
            Err(_) if solution.is_some() && !dir.exists() => None,
            Err(e) => return Err(e.into()),
        };
        let mut opts = fanotb::PlayerOptions::default();
        opts.search_nodes = self.search_nodes;
        Ok(fanotb::Player::new(solution, tables, opts))
    }
}

/// A side, as options name it.
#[derive(Clone, Copy, ValueEnum)]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// `white` or `black`, as a request names the side.
    fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// The vela handicap (docs/RULES.md, "Vela").
#[derive(Args)]
pub struct VelaArgs {
    /// The side that plays vela: single quiet steps only, capturing nothing, until it
    /// has lost 17 stones on tsivy (all but five of its start stones elsewhere).
    #[arg(long, value_enum)]
    pub vela: Option<Side>,
    /// Stones the vela side has lost so far (default: those it is missing from the
    /// board's start). Example: 3.
    #[arg(long, requires = "vela")]
    pub vela_lost: Option<u32>,
}

impl VelaArgs {
    /// `rules` with the vela asked for, checked against the position.
    pub fn apply(&self, rules: Rules, pos: &Position) -> Result<Rules> {
        let asked = fanotb::RulesRequest {
            vela: self.vela.map(Side::name),
            vela_lost: self.vela_lost,
            ..Default::default()
        };
        Ok(rules.with_vela(asked.vela(pos)?))
    }
}

/// An error's message, with what the user can do about it.
pub fn message(e: &(dyn std::error::Error + 'static)) -> String {
    match hint(e) {
        Some(hint) => format!("{e}: {hint}"),
        None => e.to_string(),
    }
}

/// What the user can do about an error, in terms of this command line.
fn hint(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let table = e
        .downcast_ref::<TableError>()
        .or_else(|| match e.downcast_ref::<ProbeError>() {
            Some(ProbeError::Table(t)) => Some(t),
            _ => None,
        })
        .or_else(|| match e.downcast_ref::<fanotb::SolveError>() {
            Some(fanotb::SolveError::Probe(ProbeError::Table(t))) => Some(t),
            _ => None,
        })
        .or_else(|| match e.downcast_ref::<fanotb::CheckError>() {
            Some(fanotb::CheckError::Probe(ProbeError::Table(t))) => Some(t),
            _ => None,
        })
        .or_else(|| match e.downcast_ref::<fanotb::AnalysisError>() {
            Some(fanotb::AnalysisError::Probe(ProbeError::Table(t))) => Some(t),
            _ => None,
        });
    if let Some(hint) = table.and_then(TableError::build_hint) {
        return Some(hint);
    }
    if let Some(ProbeError::NotADirectory(dir)) = e.downcast_ref::<ProbeError>() {
        return Some(format!(
            "name the table directory with --dir DIR or the FANOTB_TABLES variable \
             (default ./tables), or build one there with `fanotb generate --max-stones 4 --dir {}`",
            dir.display()
        ));
    }
    match e.downcast_ref::<ProveError>()? {
        ProveError::TooFewStones(_) => Some("raise --max-table-stones".into()),
        ProveError::TooManyStones { .. } => Some("lower --max-table-stones".into()),
        ProveError::Undecided { checkpointed, .. } => Some(format!(
            "raise --max-nodes, --max-entries or --max-table-stones{}",
            if *checkpointed {
                "; the same command resumes from the checkpoint"
            } else {
                ""
            }
        )),
        _ => None,
    }
}

/// The position a board name and an optional `--position` name: the board's start
/// unless the text gives another position of that board.
pub fn board_position(board: &str, position: Option<&str>) -> Result<Position> {
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
