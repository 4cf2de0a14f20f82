//! Proofs: `prove` and `prove-jobs`, and what `prove-tree` shares with them.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{CheckpointPlan, Color, Limits, ProveOptions, peak_rss, prove};

use crate::args::{Result, TablesArg, board_position};
use crate::output::{print, print_line};
use crate::progress::{SearchDisplay, table_observer};
use fanotb::report::human_bytes;
use fanotb::report::{ProveReport, TableLine};

#[derive(Args)]
pub struct ProveArgs {
    /// Board: WxH (columns x rows), tsivy or dimy. Example: dimy.
    pub board: String,
    /// Prove this position of the board instead of the start. Example:
    /// "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w".
    #[arg(long)]
    pub position: Option<String>,
    /// Positions with at most this many stones are table leaves (built on demand).
    /// Example: 4.
    #[arg(long, default_value_t = 6)]
    pub max_table_stones: usize,
    /// Certificate file (default: DIR/proofs/WxH-start.fnproof, or the position's
    /// hash instead of `start`). Example: dimy.fnproof.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Threads for table builds; with two or more, the two searches run at once.
    /// Example: 2.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Give up after this many search nodes (per search). Example: 10000000.
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Give up when a search's transposition table holds this many positions
    /// (about 60 bytes each; the default keeps both searches near 12 GiB).
    /// Example: 50000000.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_entries: usize,
    /// Save each search's table to FILE.white.ckpt / FILE.black.ckpt every
    /// --checkpoint-minutes and when it stops undecided; the same command resumes.
    /// Example: tsivy-k7.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Minutes between checkpoints. Example: 30.
    #[arg(long, default_value = "10", value_parser = crate::args::parse_minutes)]
    pub checkpoint_minutes: std::time::Duration,
    /// Lemma directory: its lemmas are leaves of the search, and the proof's own
    /// lemmas (one per proof, named by checksum) are written into it. Example:
    /// proofs/tsivy/lemmas.
    #[arg(long)]
    pub lemmas: Option<PathBuf>,
    /// Write the certificate in version 3 (docs/PROOF.md): blocks of positions with
    /// ranks, checked block by block in bounded memory, for proofs too large to
    /// hold whole.
    #[arg(long)]
    pub blocked: bool,
    #[command(flatten)]
    pub tables: TablesArg,
}

pub fn prove_command(a: ProveArgs, json: bool) -> Result<ProveReport> {
    let pos = board_position(&a.board, a.position.as_deref())?;
    let out = match a.out {
        Some(p) => p,
        None => {
            let d = a.tables.dir.join("proofs");
            std::fs::create_dir_all(&d)
                .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            let name = if a.position.is_none() {
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
    // Refused before the search, as the writer would refuse it after.
    if std::fs::symlink_metadata(&out).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(format!(
            "{}: exists and is not a regular file: not replaced (give another --out)",
            out.display()
        )
        .into());
    }
    let mut opts = ProveOptions::default();
    opts.max_table_stones = a.max_table_stones;
    opts.threads = a.threads;
    opts.limits = Limits::new(a.max_nodes.unwrap_or(u64::MAX), a.max_entries);
    opts.checkpoint = a
        .checkpoint
        .map(|prefix| CheckpointPlan::new(prefix, a.checkpoint_minutes));
    opts.table_observer = table_observer(json);
    opts.lemmas = a.lemmas.clone();
    let display = SearchDisplay::new(json);
    let proved = prove(
        &a.tables.dir,
        &pos,
        &opts,
        |r| {
            if !json && !r.skipped {
                print_line(&TableLine::from(r), false);
            }
        },
        &|p| display.show(p),
    );
    display.finish();
    let proved = proved?;
    warn_refused(&proved.lemmas_refused, proved.lemmas_beyond);
    let bytes = if a.blocked {
        proved.certificate.write_blocked(&out)?
    } else {
        proved.certificate.write(&out)?
    };
    let written = match &a.lemmas {
        Some(dir) => proved.certificate.write_lemmas(dir)?,
        None => Vec::new(),
    };
    Ok(ProveReport::new(&proved, &out, bytes, &written))
}

/// What `prove-jobs` and `prove-tree` share: the root, the lemma directory, the
/// workers and each bounded search's limits.
#[derive(Args)]
pub struct LemmaRunArgs {
    /// Board: WxH (columns x rows), tsivy or dimy. Example: tsivy.
    pub board: String,
    /// Work on this position of the board instead of the start.
    #[arg(long)]
    pub position: Option<String>,
    /// The lemma directory: lemmas read and written, and the run's log (jobs.tsv,
    /// tree.tsv). Example: proofs/tsivy/lemmas.
    #[arg(long)]
    pub lemmas: PathBuf,
    /// Searches at once in this process, one thread each. Example: 2.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Positions with at most this many stones are table leaves (built on demand).
    /// Example: 7.
    #[arg(long, default_value_t = 6)]
    pub max_table_stones: usize,
    /// Each search gives up after this many nodes. Example: 200000.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_nodes: u64,
    /// Each search's transposition table holds at most this many positions (about
    /// 60 bytes each). Example: 20000000.
    #[arg(long, default_value_t = 20_000_000)]
    pub max_entries: usize,
    /// Where the root's certificate goes once it is proved (default:
    /// LEMMAS/root.fnproof, or LEMMAS/root-POSITION.fnproof for --position, its
    /// text with `/` and the space as `-`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub tables: TablesArg,
}

impl LemmaRunArgs {
    /// The root position, and the options of each search.
    pub fn prepare(&self, json: bool) -> Result<(fanotb::Position, ProveOptions)> {
        let pos = board_position(&self.board, self.position.as_deref())?;
        let mut o = ProveOptions::default();
        o.max_table_stones = self.max_table_stones;
        o.limits = Limits::new(self.max_nodes, self.max_entries);
        o.table_observer = table_observer(json);
        Ok((pos, o))
    }

    /// Writes the root's certificate, if there is one, to `--out`, by default
    /// LEMMAS/root.fnproof for the board's start and LEMMAS/root-POSITION.fnproof
    /// for `--position` (`pos`'s text with `/` and the space as `-`), so that a
    /// question asked of another position never replaces the start's certificate.
    pub fn write_root(
        &self,
        pos: &fanotb::Position,
        cert: Option<&fanotb::Certificate>,
    ) -> Result<RootWritten> {
        let Some(cert) = cert else {
            return Ok(RootWritten {
                value: None,
                certificate: None,
                certificate_bytes: None,
            });
        };
        let out = self.out.clone().unwrap_or_else(|| {
            self.lemmas.join(match self.position {
                None => "root.fnproof".into(),
                Some(_) => format!("root-{}.fnproof", pos.to_string().replace(['/', ' '], "-")),
            })
        });
        Ok(RootWritten {
            certificate_bytes: Some(cert.write(&out)?),
            certificate: Some(out.display().to_string()),
            value: cert.proves.value().map(|v| v.name()),
        })
    }
}

#[derive(Args)]
pub struct ProveJobsArgs {
    /// Plies below the root of the deepest jobs: every distinct position that deep,
    /// then each level above, then the root. Example: 3.
    #[arg(long)]
    pub depth: usize,
    #[command(flatten)]
    pub run: LemmaRunArgs,
}

/// One finished job, with where its level and the run stand.
#[derive(Serialize)]
struct JobLine {
    ply: usize,
    done: usize,
    jobs: usize,
    position: String,
    result: &'static str,
    /// The value, or for `partly` the claim proved.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    nodes: u64,
    seconds: f64,
    level_proved: usize,
    level_undecided: usize,
    run_nodes: u64,
    nodes_per_second: f64,
    peak_rss: u64,
}

impl fmt::Display for JobLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.value {
            Some(v) => format!("{} {v}", self.result),
            None => self.result.to_string(),
        };
        write!(
            f,
            "ply {} {:>5}/{:<5} {what:<27} {:>9} nodes {:>7.2} s  {}  | level: {} proved, {} undecided | run: {} nodes, {:.0} nodes/s, peak {}",
            self.ply,
            self.done,
            self.jobs,
            self.nodes,
            self.seconds,
            self.position,
            self.level_proved,
            self.level_undecided,
            self.run_nodes,
            self.nodes_per_second,
            human_bytes(self.peak_rss)
        )
    }
}

#[derive(Serialize)]
struct LevelLine {
    ply: usize,
    jobs: usize,
    proved: usize,
    known: usize,
    undecided: usize,
    claimed: usize,
    nodes: u64,
}

#[derive(Serialize)]
pub struct ProveJobsReport {
    board: String,
    position: String,
    levels: Vec<LevelLine>,
    #[serde(flatten)]
    root: RootWritten,
    lemmas: usize,
    seconds: f64,
    peak_rss: u64,
    #[serde(skip)]
    turn: Color,
}

impl fmt::Display for ProveJobsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}:", self.board, self.position)?;
        writeln!(
            f,
            "ply   jobs  proved  known  undecided  claimed       nodes"
        )?;
        for l in &self.levels {
            writeln!(
                f,
                "{:>3} {:>6} {:>7} {:>6} {:>10} {:>8} {:>11}",
                l.ply, l.jobs, l.proved, l.known, l.undecided, l.claimed, l.nodes
            )?;
        }
        match (self.root.value, &self.root.certificate) {
            (Some(v), Some(c)) => writeln!(
                f,
                "root: {v} for {} to move; certificate {c} ({} bytes)",
                self.turn.name(),
                self.root.certificate_bytes.unwrap_or(0)
            )?,
            _ => writeln!(f, "root: not proved yet")?,
        }
        writeln!(
            f,
            "{} lemmas in the directory; {:.1} s, peak {}",
            self.lemmas,
            self.seconds,
            human_bytes(self.peak_rss)
        )
    }
}

pub fn prove_jobs_command(args: ProveJobsArgs, json: bool) -> Result<()> {
    let a = args.run;
    let (pos, prove) = a.prepare(json)?;
    let mut opts = fanotb::JobOptions::new(args.depth, &a.lemmas);
    opts.workers = a.workers;
    opts.prove = prove;
    let start = std::time::Instant::now();
    // (done, jobs, proved, undecided) of the level, and the run's nodes.
    let state = std::sync::Mutex::new((0, 0, 0, 0, 0u64));
    let observer = |e: &fanotb::JobEvent| {
        let mut s = state.lock().expect("not poisoned");
        match *e {
            fanotb::JobEvent::Level { jobs, .. } => (s.0, s.1, s.2, s.3) = (0, jobs, 0, 0),
            fanotb::JobEvent::Done {
                ply,
                position,
                result,
                nodes,
                seconds,
            } => {
                s.0 += 1;
                s.4 += nodes;
                match result {
                    fanotb::JobResult::Proved(_) | fanotb::JobResult::Known(_) => s.2 += 1,
                    fanotb::JobResult::Partly(..)
                    | fanotb::JobResult::Undecided
                    | fanotb::JobResult::TriedBefore => s.3 += 1,
                    _ => {}
                }
                let value = match result {
                    fanotb::JobResult::Proved(v) | fanotb::JobResult::Known(v) => {
                        Some(v.name().to_string())
                    }
                    fanotb::JobResult::Partly(side, claim) => {
                        Some(format!("{} {}", side.name(), claim.name()))
                    }
                    _ => None,
                };
                print_line(
                    &JobLine {
                        ply,
                        done: s.0,
                        jobs: s.1,
                        position: position.to_string(),
                        result: result.name(),
                        value,
                        nodes,
                        seconds,
                        level_proved: s.2,
                        level_undecided: s.3,
                        run_nodes: s.4,
                        nodes_per_second: s.4 as f64 / start.elapsed().as_secs_f64().max(1e-9),
                        peak_rss: peak_rss().unwrap_or(0),
                    },
                    json,
                );
            }
            _ => {}
        }
    };
    let stop = stop_on_signals()?;
    let r = fanotb::prove_jobs(&a.tables.dir, &pos, &opts, &stop, &observer)?;
    warn_refused(&r.lemmas_refused, r.lemmas_beyond);
    let report = ProveJobsReport {
        board: pos.board().size_name(),
        position: pos.to_string(),
        levels: r
            .levels
            .iter()
            .map(|l| LevelLine {
                ply: l.ply,
                jobs: l.jobs,
                proved: l.proved,
                known: l.known,
                undecided: l.undecided,
                claimed: l.claimed,
                nodes: l.nodes,
            })
            .collect(),
        root: a.write_root(&pos, r.root.as_ref())?,
        lemmas: fanotb::Lemmas::load(&a.lemmas, pos.board())?.len(),
        seconds: r.seconds,
        peak_rss: peak_rss().unwrap_or(0),
        turn: pos.turn(),
    };
    print(&report, json);
    if r.root.is_none() {
        return Err(crate::output::failure(
            format!(
                "the root is not proved yet; the lemmas are kept in {}: run again (a larger --max-nodes or --depth) to go on",
                a.lemmas.display()
            ),
            json,
        ));
    }
    Ok(())
}

/// The root's value and its certificate as written, once proved.
#[derive(Serialize)]
pub struct RootWritten {
    /// The root's value, once proved.
    pub value: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate_bytes: Option<u64>,
}

/// Says on stderr which lemma files the search refused (they did not check) and
/// why: it went on without them; and, in one line, how many it passed over,
/// proved over tables it did not load.
pub fn warn_refused(refused: &[(String, String)], beyond: usize) {
    for (name, why) in refused {
        eprintln!("warning: lemma {name} refused, the search went on without it: {why}");
    }
    if beyond > 0 {
        eprintln!("note: {}", passed_over(beyond));
    }
}

/// The note on the lemmas a search passed over, in the singular for one.
fn passed_over(beyond: usize) -> String {
    let (lemmas, rely, were) = match beyond {
        1 => ("lemma", "relies", "was"),
        _ => ("lemmas", "rely", "were"),
    };
    format!("{beyond} {lemmas} {rely} on tables this search did not load and {were} passed over")
}

/// A flag that Ctrl-C or SIGTERM sets, so that a long run stops where it can (the
/// tree's searches at once, the jobs between jobs) and reports where it stands; a
/// second signal ends the process at once.
pub fn stop_on_signals() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        // In this order: the first signal finds the flag clear and sets it.
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(stop)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_passed_over_note_counts_in_the_singular_and_the_plural() {
        assert_eq!(
            super::passed_over(1),
            "1 lemma relies on tables this search did not load and was passed over"
        );
        assert_eq!(
            super::passed_over(38048),
            "38048 lemmas rely on tables this search did not load and were passed over"
        );
    }
}
