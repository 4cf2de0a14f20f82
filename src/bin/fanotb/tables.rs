//! Building and inspecting tables: `generate`, `stats`, `verify`.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{
    Board, Difference, Limit, Manifest, Options, Signature, TableInfo, TableKind, Tablebase,
    generate, verify,
};

use crate::args::{Result, TablesArg};
use crate::build_report::GenerateReport;
use crate::charts;
use crate::output::{failure, print_line};
use crate::progress::table_observer;
use fanotb::report::as_text;
use fanotb::report::{KindFields, StatsRow, TableLine, bits_per_position, table_name};

#[derive(Args)]
pub struct GenerateArgs {
    /// Board: tsivy (9x5), dimy (5x5) or WxH, columns x rows. Example: 5x3.
    #[arg(long, default_value = "tsivy")]
    pub board: String,
    /// Every signature with up to this many stones. Example: 5.
    #[arg(
        long,
        conflicts_with = "signature",
        required_unless_present = "signature"
    )]
    pub max_stones: Option<usize>,
    /// Named signatures, stones to move v stones not to move, with every table they
    /// depend on. Example: 3v2 2v3.
    #[arg(long, num_args = 1..)]
    pub signature: Vec<Signature>,
    /// Also build the rule-aware tables of this no-capture limit, in plies (1 to
    /// 250), into DIR/WxH/nN/ (the plain tables first). Example: 60.
    #[arg(long, value_parser = crate::args::parse_limit)]
    pub no_capture_limit: Option<Limit>,
    /// Build the vela tables instead, into DIR/WxH/vela/: the positions where the
    /// side with more than five stones plays vela, having lost the stones it is
    /// missing (docs/RULES.md, "Vela"), after the plain tables their captures lead
    /// to. With --max-stones, every vela table up to that many stones (on tsivy up
    /// to 8: 6v1, 6v2, 7v1 and their opposites).
    #[arg(long, conflicts_with = "no_capture_limit")]
    pub vela: bool,
    /// Run as one rank of an MPI job, every rank with the same arguments and the
    /// same (shared) --dir: `mpirun -np 4 fanotb generate --max-stones 6
    /// --distributed`. Plain tables only.
    #[cfg(feature = "mpi")]
    #[arg(long, conflicts_with_all = ["no_capture_limit", "vela"])]
    pub distributed: bool,
    /// With --distributed: rank 0 reads the smaller tables and broadcasts them,
    /// instead of every rank reading them from the shared --dir.
    #[cfg(feature = "mpi")]
    #[arg(long, requires = "distributed")]
    pub broadcast_tables: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// How table builds run, for `generate` and `solve`.
#[derive(Args)]
pub struct BuildArgs {
    /// Worker threads (default: every core). Example: 2.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Save a pair in progress after this many minutes, and again as often, so that
    /// an interrupted build resumes inside it (0: after the first stage and at every
    /// depth level; the interval stretches so that saving costs at most a tenth of
    /// the build). Example: 30.
    #[arg(long, default_value = "5", value_parser = crate::args::parse_minutes)]
    pub checkpoint_minutes: std::time::Duration,
    /// Build even when the largest pair's estimated memory exceeds the memory
    /// available.
    #[arg(long)]
    pub force: bool,
}

impl BuildArgs {
    pub fn options(&self, json: bool) -> Options {
        let mut opts = Options::default();
        opts.threads = self.threads;
        opts.observer = table_observer(json);
        opts.force = self.force;
        opts.checkpoint_every = Some(self.checkpoint_minutes);
        opts
    }
}

pub fn generate_command(a: GenerateArgs, json: bool) -> Result<GenerateReport> {
    let board = Board::by_name(&a.board)?;
    let targets = match a.max_stones {
        Some(n) if n < 2 => {
            return Err(format!("--max-stones {n}: the smallest table, 1v1, has 2 stones").into());
        }
        Some(n) if a.vela => Signature::all_up_to(n)
            .into_iter()
            .filter(|&s| TableKind::Vela.holds(board, s))
            .collect(),
        Some(n) => Signature::all_up_to(n),
        None => a.signature,
    };
    if targets.is_empty() {
        return Err(format!(
            "no vela table on {} has at most {} stones: one side needs more than {}",
            board.size_name(),
            a.max_stones.unwrap_or(0),
            fanotb::Vela::floor(board)
        )
        .into());
    }
    let mut opts = a.build.options(json);
    opts.kind = match (a.vela, a.no_capture_limit) {
        (true, _) => TableKind::Vela,
        (false, limit) => limit.into(),
    };
    #[cfg(feature = "mpi")]
    if a.distributed {
        let deps = match a.broadcast_tables {
            true => fanotb::TableSharing::Broadcast,
            false => fanotb::TableSharing::Shared,
        };
        return crate::distributed::generate(&a.tables.dir, board, &targets, opts, deps, json);
    }
    let start = std::time::Instant::now();
    let reports = generate(&a.tables.dir, board, &targets, &opts, |r| {
        if !json {
            print_line(&TableLine::from(r), false);
        }
    })?;
    Ok(GenerateReport::new(board, &reports, start))
}

#[derive(Args)]
pub struct StatsArgs {
    /// Also draw charts into this directory, as SVG and PNG: each table's positions
    /// by depth (wins and losses), and each board's win/draw/loss shares by
    /// signature. Example: charts.
    #[arg(long, value_name = "OUT")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub tables: TablesArg,
}

#[derive(Serialize)]
struct StatsTotal {
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    bytes: u64,
}

#[derive(Serialize)]
pub struct StatsReport {
    tables: Vec<StatsRow>,
    total: StatsTotal,
    /// The chart files `--plot` wrote.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    charts: Vec<PathBuf>,
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6}  longest win position",
            "board", "table", "positions", "wins", "draws", "losses", "win", "bytes", "bits"
        )?;
        for r in &self.tables {
            writeln!(
                f,
                "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6.3}  {}",
                r.board,
                table_name(r.signature, r.kind.0),
                r.positions,
                r.wins,
                r.draws,
                r.losses,
                r.longest_win.map_or("-".into(), |d| d.to_string()),
                r.bytes,
                r.bits_per_position,
                r.longest_win_position.as_deref().unwrap_or("-")
            )?;
        }
        let t = &self.total;
        writeln!(
            f,
            "{:<6} {:<6} {:>15} {:>15} {:>15} {:>15} {:>5} {:>10} {:>6.3}",
            "total",
            self.tables.len(),
            t.positions,
            t.wins,
            t.draws,
            t.losses,
            "",
            t.bytes,
            bits_per_position(t.bytes, t.positions)
        )?;
        let limited: Vec<&StatsRow> = self
            .tables
            .iter()
            .filter(|r| r.kind.0.limit().is_some())
            .collect();
        if !limited.is_empty() {
            writeln!(
                f,
                "\nrule-aware tables (win: the largest T, plies to a capture):\n{:<6} {:<10} {:>15} {:>15}",
                "board", "table", "cursed wins", "blessed losses"
            )?;
        }
        for r in limited {
            writeln!(
                f,
                "{:<6} {:<10} {:>15} {:>15}",
                r.board,
                table_name(r.signature, r.kind.0),
                r.cursed.unwrap_or(0),
                r.blessed.unwrap_or(0)
            )?;
        }
        if !self.charts.is_empty() {
            writeln!(f, "\n{} charts written:", self.charts.len())?;
        }
        for c in &self.charts {
            writeln!(f, "  {}", c.display())?;
        }
        Ok(())
    }
}

pub fn stats(a: StatsArgs) -> Result<StatsReport> {
    let tb = Tablebase::open(&a.tables.dir)?;
    let infos = tb.tables()?;
    if infos.is_empty() {
        return Err(format!("no tables in {}", a.tables.dir.display()).into());
    }
    let mut report = stats_report(&infos);
    if let Some(out) = &a.plot {
        report.charts = charts::plot(&tb, &infos, out)?;
    }
    Ok(report)
}

/// Every table's figures, and their totals.
pub fn stats_report(infos: &[TableInfo]) -> StatsReport {
    let tables: Vec<StatsRow> = infos.iter().map(StatsRow::from).collect();
    let sum = |f: fn(&StatsRow) -> u64| tables.iter().map(f).sum::<u64>();
    let total = StatsTotal {
        positions: sum(|r| r.positions),
        wins: sum(|r| r.wins),
        draws: sum(|r| r.draws),
        losses: sum(|r| r.losses),
        bytes: sum(|r| r.bytes),
    };
    StatsReport {
        tables,
        total,
        charts: Vec::new(),
    }
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Only these signatures (default: every table in the directory). Example: 2v2.
    #[arg(long, num_args = 1..)]
    pub signature: Vec<Signature>,
    /// Re-derive this many entries per table, chosen by a hash, through the probe
    /// API, decoding no table: for tables too large to check whole. Example: 100000.
    #[arg(long)]
    pub sample: Option<u64>,
    /// Instead, check the table files against a manifest (`fanotb manifest`): each
    /// listed file present, of its size and checksum; no table is decoded.
    /// Example: docs/MANIFEST.tsv.
    #[arg(long, conflicts_with_all = ["signature", "sample"])]
    pub manifest: Option<PathBuf>,
    /// With --manifest: the directory and the manifest share only some tables;
    /// those are checked, and the others are listed as missing or extra, not a
    /// failure.
    #[arg(long, requires = "manifest")]
    pub partial: bool,
    /// With --manifest: check every file's SHA-256 too (reads as fast as the disk).
    #[arg(long, requires = "manifest")]
    pub sha256: bool,
    #[command(flatten)]
    pub tables: TablesArg,
}

#[derive(Serialize)]
struct VerifyLine {
    board: String,
    #[serde(serialize_with = "as_text")]
    signature: Signature,
    #[serde(flatten)]
    kind: KindFields,
    entries: u64,
    mismatches: u64,
    examples: Vec<String>,
    stats_error: Option<String>,
    #[serde(skip)]
    sampled: bool,
}

impl fmt::Display for VerifyLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} entries {}, checksums ok, {} inconsistent",
            self.board,
            table_name(self.signature, self.kind.0),
            self.entries,
            if self.sampled { "sampled" } else { "checked" },
            self.mismatches
        )?;
        for e in &self.examples {
            write!(f, "\n  {e}")?;
        }
        if let Some(e) = &self.stats_error {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
pub struct VerifyReport {
    tables: Vec<VerifyLine>,
    ok: bool,
    error: Option<String>,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each table was printed as it was checked.
        match &self.error {
            None => writeln!(f, "all {} tables verified", self.tables.len()),
            Some(_) => Ok(()),
        }
    }
}

impl VerifyReport {
    /// The failure to report after printing, if any entry is inconsistent.
    pub fn failure(&self, json: bool) -> Result<()> {
        match &self.error {
            Some(e) => Err(failure(e.clone(), json)),
            None => Ok(()),
        }
    }
}

pub fn verify_command(a: VerifyArgs, json: bool) -> Result<VerifyReport> {
    let tb = Tablebase::open(&a.tables.dir)?;
    let line = |r: &fanotb::VerifyReport| VerifyLine {
        board: r.board.size_name(),
        signature: r.sig,
        kind: KindFields(r.kind),
        entries: r.entries,
        mismatches: r.mismatches,
        examples: r.examples.clone(),
        stats_error: r.stats_error.clone(),
        sampled: a.sample.is_some(),
    };
    let reports = verify(&tb, &a.signature, a.sample, |r| {
        if !json {
            print_line(&line(r), false);
        }
    })?;
    let bad: u64 = reports.iter().map(|r| r.mismatches).sum();
    let bad_stats = reports.iter().filter(|r| r.stats_error.is_some()).count();
    let absent: Vec<String> = a
        .signature
        .iter()
        .filter(|s| !reports.iter().any(|r| r.sig == **s))
        .map(Signature::to_string)
        .collect();
    let error = if !absent.is_empty() {
        Some(format!(
            "no table {} in {}",
            absent.join(", "),
            a.tables.dir.display()
        ))
    } else if reports.is_empty() {
        Some(format!("no table to verify in {}", a.tables.dir.display()))
    } else if bad > 0 || bad_stats > 0 {
        Some(format!(
            "{bad} inconsistent entries, {bad_stats} tables with wrong header statistics"
        ))
    } else {
        None
    };
    Ok(VerifyReport {
        tables: reports.iter().map(line).collect(),
        ok: error.is_none(),
        error,
    })
}

#[derive(Args)]
pub struct ManifestArgs {
    #[command(flatten)]
    pub tables: TablesArg,
    /// Print this manifest with the directory's tables added: its rows of tables
    /// not here are kept, and a table here must be the file it lists (tables are
    /// deterministic). For a manifest of more tables than one machine holds at once.
    #[arg(long, value_name = "FILE")]
    pub update: Option<PathBuf>,
}

/// The manifest of a directory, printed as its text (or as JSON).
#[derive(Serialize)]
pub struct ManifestReport {
    writer: String,
    files: Vec<ManifestFile>,
    #[serde(skip)]
    text: String,
}

#[derive(Serialize)]
struct ManifestFile {
    path: String,
    bytes: u64,
    xxh3: String,
    sha256: String,
}

impl fmt::Display for ManifestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

pub fn manifest(a: ManifestArgs) -> Result<ManifestReport> {
    let built = Manifest::of_dir(&a.tables.dir)?;
    if built.entries.is_empty() {
        return Err(format!("no table files under {}", a.tables.dir.display()).into());
    }
    let m = match &a.update {
        None => built,
        Some(file) => {
            let mut m = read_manifest(file)?;
            m.update(&built)?;
            m
        }
    };
    let files = m
        .entries
        .iter()
        .map(|e| ManifestFile {
            path: e.path.clone(),
            bytes: e.bytes,
            xxh3: e.xxh3_hex(),
            sha256: e.sha256_hex(),
        })
        .collect();
    Ok(ManifestReport {
        text: m.to_string(),
        writer: m.writer,
        files,
    })
}

/// A directory checked against a manifest.
#[derive(Serialize)]
pub struct ManifestCheckReport {
    matching: usize,
    missing: Vec<String>,
    extra: Vec<String>,
    different: Vec<DifferentFile>,
    ok: bool,
    error: Option<String>,
    #[serde(skip)]
    writer: String,
    #[serde(skip)]
    partial: bool,
}

#[derive(Serialize)]
struct DifferentFile {
    path: String,
    why: String,
}

impl fmt::Display for ManifestCheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.different {
            writeln!(f, "different: {}: {}", d.path, d.why)?;
        }
        // A part of the manifest's tables was expected: only their number.
        for p in self.missing.iter().filter(|_| !self.partial) {
            writeln!(f, "missing: {p}")?;
        }
        for p in &self.extra {
            writeln!(f, "extra: {p}")?;
        }
        writeln!(
            f,
            "{} files match the manifest ({}), {} different, {} missing, {} extra",
            self.matching,
            self.writer,
            self.different.len(),
            self.missing.len(),
            self.extra.len()
        )
    }
}

impl ManifestCheckReport {
    /// The failure to report after printing, if the directory is not the manifest's.
    pub fn failure(&self, json: bool) -> Result<()> {
        match &self.error {
            Some(e) => Err(failure(e.clone(), json)),
            None => Ok(()),
        }
    }
}

/// The largest manifest read: one line a file, about 150 bytes each.
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

fn read_manifest(file: &std::path::Path) -> Result<Manifest> {
    let text = fanotb::read_text_bounded(file, MAX_MANIFEST_BYTES)
        .map_err(|e| format!("cannot read the manifest {}: {e}", file.display()))?;
    Ok(text.parse()?)
}

pub fn verify_manifest(a: &VerifyArgs, file: &std::path::Path) -> Result<ManifestCheckReport> {
    let m = read_manifest(file)?;
    let check = m.check(&a.tables.dir, a.sha256)?;
    let (mut missing, mut extra, mut different) = (Vec::new(), Vec::new(), Vec::new());
    for (path, d) in check.differences {
        match d {
            Difference::Missing => missing.push(path),
            Difference::Extra => extra.push(path),
            Difference::Different(why) => different.push(DifferentFile { path, why }),
            _ => different.push(DifferentFile {
                path,
                why: "differs".into(),
            }),
        }
    }
    // The first few by name: the list above has them all.
    let named = |v: &[String]| match v.len() {
        n if n > 10 => format!("{} and {} more", v[..10].join(", "), n - 10),
        _ => v.join(", "),
    };
    let error = if !different.is_empty() {
        let names: Vec<String> = different.iter().map(|d| d.path.clone()).collect();
        Some(format!(
            "{} files differ from the manifest: {}",
            names.len(),
            named(&names)
        ))
    } else if !extra.is_empty() && !a.partial {
        Some(format!(
            "{} files are not in the manifest (--partial if expected): {}",
            extra.len(),
            named(&extra)
        ))
    } else if !missing.is_empty() && !a.partial {
        Some(format!(
            "{} files of the manifest are missing (--partial if expected): {}",
            missing.len(),
            named(&missing)
        ))
    } else if check.matching.is_empty() {
        Some(format!(
            "no file of the manifest is in {}",
            a.tables.dir.display()
        ))
    } else {
        None
    };
    Ok(ManifestCheckReport {
        matching: check.matching.len(),
        missing,
        extra,
        different,
        ok: error.is_none(),
        error,
        writer: m.writer,
        partial: a.partial,
    })
}
