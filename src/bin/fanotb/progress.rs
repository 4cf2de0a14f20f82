//! Progress for people: indicatif bars on a terminal, plain lines in a log.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use fanotb::{BuildPlan, Observer, SearchProgress, peak_rss};

use crate::output::emit;
use fanotb::report::human_bytes;

/// Search progress: a spinner per search on a terminal, a plain line every ten
/// seconds in a log, nothing with `--json`.
pub struct SearchDisplay {
    bars: Option<(MultiProgress, [ProgressBar; 2])>,
    quiet: bool,
    last: Mutex<[Instant; 2]>,
}

impl SearchDisplay {
    pub fn new(quiet: bool) -> SearchDisplay {
        let bars = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let m = MultiProgress::new();
            let bar = || {
                let b = m.add(ProgressBar::new_spinner());
                b.enable_steady_tick(Duration::from_millis(200));
                b
            };
            let bars = [bar(), bar()];
            (m, bars)
        });
        SearchDisplay {
            bars,
            quiet,
            last: Mutex::new([Instant::now(); 2]),
        }
    }

    pub fn show(&self, p: &SearchProgress) {
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
                    last[i] = Instant::now();
                    eprintln!("[{:8.1} s] {line}", p.seconds);
                }
            }
        }
    }

    pub fn finish(&self) {
        if let Some((_, bars)) = &self.bars {
            for b in bars {
                b.finish_and_clear();
            }
        }
    }
}

/// Table-build progress for people: `None` with `--json`.
pub fn table_observer(json: bool) -> Option<Arc<dyn Observer>> {
    (!json).then(|| Arc::new(BuildProgress::new()) as Arc<dyn Observer>)
}

/// Progress of a table build: an indicatif bar per stage on a terminal; in a log
/// (stderr not a terminal), a line when a stage starts, at most every 30 s while it
/// runs, and when it ends.
struct BuildProgress {
    log: bool,
    start: Instant,
    bar: Mutex<Option<ProgressBar>>,
    stage: Mutex<(String, u64, Instant)>,
    done: AtomicU64,
}

impl BuildProgress {
    fn new() -> BuildProgress {
        let now = Instant::now();
        BuildProgress {
            log: !std::io::stderr().is_terminal(),
            start: now,
            bar: Mutex::new(None),
            stage: Mutex::new((String::new(), 0, now)),
            done: AtomicU64::new(0),
        }
    }

    fn log_line(&self, end: bool) {
        if !self.log {
            return;
        }
        let mut stage = self.stage.lock().expect("progress lock");
        if end || stage.2.elapsed().as_secs() >= 30 {
            stage.2 = Instant::now();
            let done = self.done.load(Relaxed);
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
        self.done.store(0, Relaxed);
        if self.log {
            *self.stage.lock().expect("progress lock") =
                (format!("{name} {what}"), len, Instant::now());
            return;
        }
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template(
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
        self.done.fetch_add(n, Relaxed);
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

    /// The plan goes to stdout, as the first line of the build's report.
    fn plan(&self, plan: &BuildPlan, threads: usize) {
        emit(&format!(
            "plan: {} pairs, {} positions, about {:.1} s on {threads} threads, peak about {}, about {} on disk (and up to {} for a checkpoint)\n",
            plan.pairs.len(),
            plan.positions,
            plan.thread_seconds / threads as f64,
            human_bytes(plan.peak_bytes),
            human_bytes(plan.disk_bytes),
            human_bytes(plan.checkpoint_bytes)
        ));
    }

    fn job(&self, done: u64, total: u64) {
        if total == 0 {
            return;
        }
        let secs = self.start.elapsed().as_secs_f64();
        let eta = eta(secs, done, total);
        eprintln!(
            "[{secs:>7.1} s] job: {done}/{total} positions built ({:.1}%), ETA {eta}",
            100.0 * done as f64 / total as f64
        );
    }
}

/// The time left at the rate so far: `secs` for `done` of `total` units.
fn eta(secs: f64, done: u64, total: u64) -> String {
    match done {
        0 => "-".to_string(),
        _ => format!(
            "{:.0} s",
            secs * (total - done.min(total)) as f64 / done as f64
        ),
    }
}

/// Progress of `check-proof --verify-tables` on stderr, a line a table re-derived,
/// with the time left at the rate so far (positions re-derived a second).
pub fn table_verified(t: &fanotb::TableVerified) {
    eprintln!(
        "[{:>7.1} s] verified table {} ({} of {}): {}/{} positions ({:.1}%), ETA {}",
        t.seconds,
        t.sig,
        t.index,
        t.count,
        t.done_positions,
        t.total_positions,
        100.0 * t.done_positions as f64 / t.total_positions.max(1) as f64,
        eta(t.seconds, t.done_positions, t.total_positions)
    );
}
