//! A proof split into jobs: the distinct positions some plies below a root, proved
//! deepest first, each by its own bounded search whose proof becomes a lemma that
//! the shallower searches take as a leaf (docs/PROOF.md, "Jobs"). Workers, threads
//! of one process or processes on many hosts sharing the lemma directory, claim a
//! job by creating its claim file, so that no two prove the same one; a run stopped
//! anywhere goes on from the lemmas and the job log.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use super::lemmas::{LemmaWriter, Lemmas, answers};
use super::prove::{ProveError, ProveOptions, certificate, on_workers, prepare_tables};
use super::search::{SEARCH_VERSION, search};
use crate::certificate::{Certificate, CertificateError, Claim, LemmaRef, Proves};
use crate::files::log::TsvLog;
use crate::probe::ValueTables;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// How to split and run a proof.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct JobOptions {
    /// Plies below the root of the deepest jobs.
    pub depth: usize,
    /// Jobs run at once in this process (one search thread each).
    pub workers: usize,
    /// The lemma directory: lemmas read and written, claims and the job log.
    pub lemmas: PathBuf,
    /// How each job is proved: table leaves and each search's limits (its
    /// `threads`, `checkpoint` and `lemmas` are the runner's own).
    pub prove: ProveOptions,
}

impl JobOptions {
    /// Jobs `depth` plies deep, two workers, the lemma directory `lemmas`.
    pub fn new(depth: usize, lemmas: impl Into<PathBuf>) -> JobOptions {
        JobOptions {
            depth,
            workers: 2,
            lemmas: lemmas.into(),
            prove: ProveOptions::default(),
        }
    }
}

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JobResult {
    /// Proved: the value for the side to move; its lemmas are written.
    Proved(Wdl),
    /// One side's claim proved (a search decided), the value not yet: its lemma is
    /// written.
    Partly(Color, Claim),
    /// The search stopped at its limits.
    Undecided,
    /// Already known: lemmas decide it.
    Known(Wdl),
    /// Tried before with these limits and no lemma has been added since (the job
    /// log says so): not run again.
    TriedBefore,
    /// Another worker holds its claim.
    Claimed,
}

impl JobResult {
    /// The word the job log and the displays use.
    pub fn name(self) -> &'static str {
        match self {
            JobResult::Proved(_) => "proved",
            JobResult::Partly(..) => "partly",
            JobResult::Undecided => "undecided",
            JobResult::Known(_) => "known",
            JobResult::TriedBefore => "tried-before",
            JobResult::Claimed => "claimed",
        }
    }
}

/// What the runner tells its observer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum JobEvent {
    /// A level of jobs starts: its ply, the number of its distinct positions.
    Level {
        /// Plies below the root.
        ply: usize,
        /// Positions of the level (finished games and table positions left out).
        jobs: usize,
    },
    /// A job ended.
    Done {
        /// Plies below the root.
        ply: usize,
        /// The job's position.
        position: Position,
        /// How it ended.
        result: JobResult,
        /// Search nodes spent on it.
        nodes: u64,
        /// Its wall time in seconds.
        seconds: f64,
    },
}

/// The figures of one level of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LevelReport {
    /// Plies below the root.
    pub ply: usize,
    /// Its distinct positions.
    pub jobs: usize,
    /// Proved in this run.
    pub proved: usize,
    /// Known from lemmas before.
    pub known: usize,
    /// Left undecided (in this run or before).
    pub undecided: usize,
    /// Held by other workers.
    pub claimed: usize,
    /// Search nodes spent.
    pub nodes: u64,
}

/// What a run established.
#[derive(Debug)]
#[non_exhaustive]
pub struct JobsReport {
    /// Per level, the deepest first.
    pub levels: Vec<LevelReport>,
    /// The root's certificate (over the lemmas), once it is proved.
    pub root: Option<Certificate>,
    /// The lemma files of the directory that did not check, with the reason: the
    /// search went on without them.
    pub lemmas_refused: Vec<(String, String)>,
    /// The lemmas passed over: they rely on tables not loaded (larger, or
    /// of more stones a side than the root has).
    pub lemmas_beyond: usize,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The value lemmas give `pos` for its side to move, if they give one: a win for
/// either side, or a draw when each side does not lose.
fn known(lemmas: &Lemmas, pos: &Position) -> Option<Wdl> {
    let me = pos.turn();
    let has = |side: Color, claim: Claim| lemmas.at(pos).iter().any(|l| l.serves(side, claim));
    if has(me, Claim::Win) {
        Some(Wdl::Win)
    } else if has(me.other(), Claim::Win) {
        Some(Wdl::Loss)
    } else if has(me, Claim::NotLose) && has(me.other(), Claim::NotLose) {
        Some(Wdl::Draw)
    } else {
        None
    }
}

/// The distinct positions each ply below `root` down to `depth`, root first;
/// finished games and positions of at most `k` stones (table leaves) left out, and
/// nothing below them.
pub fn job_levels(root: &Position, depth: usize, k: usize) -> Vec<Vec<Position>> {
    let open = |p: &Position| {
        p.side_without_stones().is_none()
            && (p.white() | p.black()).count_ones() as usize > k
            && !p.is_lost()
    };
    let mut out: Vec<Vec<Position>> = vec![vec![*root].into_iter().filter(open).collect()];
    for _ in 0..depth {
        let mut next: Vec<Position> = out
            .last()
            .expect("a level")
            .iter()
            .flat_map(|p| p.successors())
            .filter(open)
            .collect();
        next.sort_by_key(|p| (p.white(), p.black(), p.turn() as u8));
        next.dedup();
        out.push(next);
    }
    out
}

/// An undecided attempt of the job log: its position, table stones, node limit,
/// the lemmas present when it started and the search's version.
struct Attempt {
    position: String,
    k: usize,
    max_nodes: u64,
    lemmas: usize,
    search: u32,
}

impl Attempt {
    /// The undecided attempt a log line records, if it records one.
    fn parse(line: &str) -> Option<Attempt> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 8 || !(f[5] == "undecided" || f[5].starts_with("partly")) {
            return None;
        }
        Some(Attempt {
            position: f[1].to_string(),
            k: f[2].parse().ok()?,
            max_nodes: f[3].parse().ok()?,
            lemmas: f[4].parse().ok()?,
            // Lines written before the column was added are version 1's.
            search: f.get(8).map_or(Some(1), |v| v.parse().ok())?,
        })
    }
}

/// The job log, `jobs.tsv` in the lemma directory: one line per job run, appended.
struct Log(TsvLog);

impl Log {
    fn open(dir: &Path) -> Log {
        Log(TsvLog::new(
            dir,
            "jobs.tsv",
            "ply\tposition\tk\tmax_nodes\tlemmas\tresult\tnodes\tseconds\tsearch",
        ))
    }

    /// Whether `pos` was left undecided with these limits, at least `lemmas`
    /// lemmas present and this version of the search. The file is read each time:
    /// other processes on the lemma directory append to it.
    fn tried(
        &self,
        pos: &Position,
        k: usize,
        max_nodes: u64,
        lemmas: usize,
    ) -> std::io::Result<bool> {
        let text = self.0.read()?;
        let pos = pos.to_string();
        // Undecided attempts only: a proved job leaves lemmas, which say more.
        Ok(text.lines().filter_map(Attempt::parse).any(|a| {
            a.position == pos
                && a.k == k
                && a.max_nodes >= max_nodes
                && a.lemmas >= lemmas
                && a.search >= SEARCH_VERSION
        }))
    }

    /// Appends the line of an attempt of `job`: ply, position, table stones, node
    /// limit, lemmas present when it started, result, nodes, seconds, search version.
    fn append(
        &self,
        job: &Job,
        lemmas: usize,
        result: JobResult,
        nodes: u64,
        seconds: f64,
    ) -> std::io::Result<()> {
        let value = match result {
            JobResult::Proved(v) => format!(" {}", v.name()),
            JobResult::Partly(side, claim) => format!(" {} {}", side.name(), claim.name()),
            _ => String::new(),
        };
        self.0.append(&format!(
            "{}\t{}\t{}\t{}\t{lemmas}\t{}{value}\t{nodes}\t{seconds:.2}\t{SEARCH_VERSION}",
            job.ply,
            job.pos,
            job.k,
            job.max_nodes,
            result.name()
        ))
    }
}

/// A job's claim: `claims/<hash of the position>.claim` in the lemma directory,
/// created only if absent (so one worker of all gets it), holding the host and
/// process that hold it; removed when the job ends. It is a lease: its holder
/// touches it every `stale / 10`, and a claim untouched for `stale` (its holder's
/// host died, or lost the shared file system) is taken over by any worker.
struct JobClaim {
    path: PathBuf,
    /// The claim file's device and inode: after a takeover the path names another
    /// worker's claim, which this one must neither touch nor remove.
    id: (u64, u64),
    /// Dropped to stop the heartbeat, which then ends.
    beat: Option<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

/// How long a claim lives untouched before another worker takes it over: ten
/// heartbeats, so that a holder that is only slow (a loaded host, a file system
/// that stalls) is never mistaken for a dead one.
const STALE_CLAIM: Duration = Duration::from_secs(600);

impl JobClaim {
    /// Takes the claim of `pos`, or `None` if a live worker holds it. A claim left
    /// by a process of this host that is gone (a crash), or untouched for `stale`,
    /// is taken over: moved aside under a name of this worker's own and judged
    /// again there, so that a claim another worker has just taken over is put back
    /// rather than lost.
    fn take(dir: &Path, pos: &Position, stale: Duration) -> std::io::Result<Option<JobClaim>> {
        let claims = dir.join("claims");
        std::fs::create_dir_all(&claims)?;
        let hash = xxhash_rust::xxh3::xxh3_64(pos.to_string().as_bytes());
        let path = claims.join(format!("{hash:016x}.claim"));
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .trim()
            .to_string();
        for _ in 0..3 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    writeln!(f, "{host}\t{}\t{pos}", std::process::id())?;
                    return JobClaim::hold(path, f, stale / 10).map(Some);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if !expired(&path, &host, stale) {
                        return Ok(None);
                    }
                    let nanos = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap_or_default()
                        .as_nanos();
                    let aside = claims.join(format!(
                        "{hash:016x}.{host}.{}.{nanos}.aside",
                        std::process::id()
                    ));
                    if std::fs::rename(&path, &aside).is_err() {
                        continue; // gone meanwhile: try to create it again
                    }
                    let dead = expired(&aside, &host, stale);
                    if !dead {
                        // Another worker's fresh claim: back in its place, unless a
                        // third has taken the place meanwhile.
                        let _ = crate::files::durable::link_new(&aside, &path);
                    }
                    let _ = std::fs::remove_file(&aside);
                    if !dead {
                        return Ok(None);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The claim `file` at `path`, touched every `every` until dropped.
    fn hold(path: PathBuf, file: std::fs::File, every: Duration) -> std::io::Result<JobClaim> {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata()?;
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        // Touched through its own handle: after a takeover, only the file that was
        // this claim, never the one that now bears its name.
        let beat = std::thread::Builder::new()
            .name("claim heartbeat".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                    let _ = file.set_modified(std::time::SystemTime::now());
                }
            })?;
        Ok(JobClaim {
            path,
            id: (meta.dev(), meta.ino()),
            beat: Some((tx, beat)),
        })
    }
}

/// Whether the claim at `path` may be taken over: held by a process of this host
/// that is gone, or untouched for `stale` (times of the holder's clock against
/// this one's: hosts' clocks must agree to well within `stale`, as NTP keeps them).
fn expired(path: &Path, host: &str, stale: Duration) -> bool {
    let held = crate::files::read::read_text_bounded(path, 4096).unwrap_or_default();
    let mut f = held.split('\t');
    let (h, pid) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
    let gone = h == host && !pid.is_empty() && !Path::new("/proc").join(pid).exists();
    let untouched = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| std::time::SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age >= stale);
    gone || untouched
}

impl Drop for JobClaim {
    fn drop(&mut self) {
        use std::os::unix::fs::MetadataExt;
        if let Some((tx, beat)) = self.beat.take() {
            drop(tx);
            let _ = beat.join();
        }
        // Still this worker's claim (not taken over while it was stalled).
        if std::fs::metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Proves the positions `opts.depth` plies below `root` down to the root itself,
/// deepest level first, as jobs over the tables in `dir` (built where missing):
/// each job's proof is written as lemmas into `opts.lemmas`, where every later
/// search finds it. Returns the levels' figures and, once the root is proved, its
/// certificate. `stop` ends the run between jobs.
///
/// # Errors
///
/// Those of `prove` for the tables; a lemma directory that cannot be read or
/// written; a damaged lemma in it.
pub fn prove_jobs(
    dir: &Path,
    root: &Position,
    opts: &JobOptions,
    stop: &AtomicBool,
    observer: &(dyn Fn(&JobEvent) + Sync),
) -> Result<JobsReport, ProveError> {
    let start = Instant::now();
    let mut job_opts = opts.prove.clone();
    job_opts.threads = Some(1);
    job_opts.checkpoint = None;
    let (values, _) = prepare_tables(dir, root, &job_opts, |_| {})?;
    let k = job_opts.max_table_stones;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ProveError::Certificate(CertificateError::Io { path, source })
    };
    std::fs::create_dir_all(&opts.lemmas).map_err(io(&opts.lemmas))?;
    let max_nodes = job_opts.limits.max_nodes;
    let mut levels = job_levels(root, opts.depth, k);
    let mut reports = Vec::new();
    let mut root_cert = None;
    let mut refused: Vec<(String, String)> = Vec::new();
    // Each level reads the whole store again: its count of lemmas passed over is
    // the latest.
    let mut beyond = 0;
    let writer = LemmaWriter::new(&opts.lemmas);
    for ply in (0..levels.len()).rev() {
        if stop.load(Relaxed) {
            break;
        }
        let jobs = std::mem::take(&mut levels[ply]);
        observer(&JobEvent::Level {
            ply,
            jobs: jobs.len(),
        });
        let lemmas = Lemmas::load_checked(&opts.lemmas, &values)?;
        // The lemmas elsewhere than this level: what a job's attempt is compared by
        // (the level's own lemmas, its jobs', hardly ever serve a sibling).
        let below = lemmas.len() - jobs.iter().map(|p| lemmas.at(p).len()).sum::<usize>();
        let lemmas = RwLock::new(lemmas);
        let log = Log::open(&opts.lemmas);
        let report = Mutex::new(LevelReport {
            ply,
            jobs: jobs.len(),
            ..LevelReport::default()
        });
        let next = AtomicUsize::new(0);
        let failure: Mutex<Option<ProveError>> = Mutex::new(None);
        let proved_root: Mutex<Option<Certificate>> = Mutex::new(None);
        let worker = || {
            while !stop.load(Relaxed) && failure.lock().expect("not poisoned").is_none() {
                let i = next.fetch_add(1, Relaxed);
                let Some(pos) = jobs.get(i) else { break };
                let t = Instant::now();
                let job = Job {
                    ply,
                    pos,
                    k,
                    max_nodes,
                    below,
                };
                let (result, nodes, cert) =
                    match job.run(&values, (&lemmas, &writer), &log, &job_opts, opts) {
                        Ok(r) => r,
                        Err(e) => {
                            *failure.lock().expect("not poisoned") = Some(e);
                            break;
                        }
                    };
                report.lock().expect("not poisoned").count(result, nodes);
                if ply == 0 {
                    *proved_root.lock().expect("not poisoned") = cert;
                }
                observer(&JobEvent::Done {
                    ply,
                    position: *pos,
                    result,
                    nodes,
                    seconds: t.elapsed().as_secs_f64(),
                });
            }
        };
        on_workers(opts.workers, worker);
        if let Some(e) = failure.into_inner().expect("not poisoned") {
            return Err(e);
        }
        // With what the jobs read meanwhile (other workers' lemmas).
        let lemmas = lemmas.into_inner().expect("not poisoned");
        for r in lemmas.refused() {
            if !refused.contains(&r) {
                refused.push(r);
            }
        }
        beyond = lemmas.beyond();
        reports.push(report.into_inner().expect("not poisoned"));
        if ply == 0 {
            root_cert = match proved_root.into_inner().expect("not poisoned") {
                Some(c) => Some(c),
                // Proved by an earlier run: its lemmas make the certificate.
                None => root_from_lemmas(
                    &opts.lemmas,
                    &Lemmas::load_checked(&opts.lemmas, &values)?,
                    root,
                )?,
            };
        }
    }
    Ok(JobsReport {
        levels: reports,
        root: root_cert,
        lemmas_refused: refused,
        lemmas_beyond: beyond,
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl LevelReport {
    fn count(&mut self, result: JobResult, nodes: u64) {
        self.nodes += nodes;
        match result {
            JobResult::Proved(_) => self.proved += 1,
            JobResult::Known(_) => self.known += 1,
            JobResult::Partly(..) | JobResult::Undecided | JobResult::TriedBefore => {
                self.undecided += 1
            }
            JobResult::Claimed => self.claimed += 1,
        }
    }
}

/// One job: a position of a level, with the runner's table stones and node limit.
struct Job<'a> {
    ply: usize,
    pos: &'a Position,
    k: usize,
    max_nodes: u64,
    /// Lemmas present elsewhere than the job's level when the level started.
    below: usize,
}

impl Job<'_> {
    /// Runs the job unless lemmas decide it, the log shows it tried in vain with
    /// as many lemmas below, or another worker holds it. The lemmas of what it
    /// proves are written and added to `lemmas`; returns how it ended, the nodes
    /// spent and, when the value is proved, its certificate.
    fn run(
        &self,
        values: &ValueTables,
        (lemmas, writer): (&RwLock<Lemmas>, &LemmaWriter),
        log: &Log,
        job_opts: &ProveOptions,
        opts: &JobOptions,
    ) -> Result<(JobResult, u64, Option<Certificate>), ProveError> {
        let pos = self.pos;
        if let Some(v) = known(&lemmas.read().expect("not poisoned"), pos) {
            return Ok((JobResult::Known(v), 0, None));
        }
        let io = |source| {
            ProveError::Certificate(CertificateError::Io {
                path: opts.lemmas.clone(),
                source,
            })
        };
        let Some(_claim) = JobClaim::take(&opts.lemmas, pos, STALE_CLAIM).map_err(io)? else {
            return Ok((JobResult::Claimed, 0, None));
        };
        // Another process on the lemma directory may have run this job since the
        // level began and let its claim go: its lemmas and log line say so.
        // The searches read a snapshot: the lemmas of siblings proved meanwhile
        // serve the next jobs.
        let mut snapshot = {
            let mut all = lemmas.write().expect("not poisoned");
            all.refresh_checked(&opts.lemmas, values)?;
            if let Some(v) = known(&all, pos) {
                return Ok((JobResult::Known(v), 0, None));
            }
            all.clone()
        };
        if log
            .tried(pos, self.k, self.max_nodes, self.below)
            .map_err(io)?
        {
            return Ok((JobResult::TriedBefore, 0, None));
        }
        let t = Instant::now();
        let own = snapshot.remove(pos);
        let done = establish((values, &snapshot), (pos, &own), job_opts, &opts.lemmas)?;
        let mut written = Vec::new();
        for l in &done.lemmas {
            written.push(writer.write(l)?);
        }
        let result = match (&done.value, written.first()) {
            (Some(c), _) => JobResult::Proved(c.proves.value().expect("a value")),
            (None, Some(l)) => JobResult::Partly(l.side, l.claim),
            (None, None) => JobResult::Undecided,
        };
        {
            let mut all = lemmas.write().expect("not poisoned");
            for l in written {
                all.add(l);
            }
        }
        log.append(
            self,
            self.below,
            result,
            done.nodes,
            t.elapsed().as_secs_f64(),
        )
        .map_err(io)?;
        Ok((result, done.nodes, done.value))
    }
}

/// What a job's searches establish.
struct Established {
    /// The value's certificate, once the claims known decide it.
    value: Option<Certificate>,
    /// A lemma for each search that decided.
    lemmas: Vec<Certificate>,
    /// Search nodes spent.
    nodes: u64,
}

/// Runs the searches `pos` still needs, one after the other: "does the side to
/// move win?", then "does the other side win?", each unless a lemma answers it,
/// the second not after a win. Each decided search is a lemma; the value follows
/// from them and the lemmas of `pos` already in `dir`, `own` (left out of
/// `lemmas`, the searches' leaves).
fn establish(
    (values, lemmas): (&ValueTables, &Lemmas),
    (pos, own): (&Position, &[LemmaRef]),
    opts: &ProveOptions,
    dir: &Path,
) -> Result<Established, ProveError> {
    let k = opts.max_table_stones;
    let me = pos.turn();
    let stop = AtomicBool::new(false);
    let mut graphs = Vec::new();
    let mut nodes = 0;
    for attacker in [me, me.other()] {
        // A lemma of `pos` already answers "does the attacker win?".
        if answers(own, attacker).is_some() {
            continue;
        }
        let out = search(
            (values, lemmas),
            pos,
            attacker,
            opts.limits,
            None,
            &stop,
            &|_| {},
        )?;
        nodes += out.nodes;
        if let Some(g) = out.graph {
            let win = g.claim == Claim::Win;
            graphs.push(g);
            if win {
                break;
            }
        }
    }
    let new: Vec<Certificate> = graphs
        .iter()
        .map(|g| certificate(pos, Proves::Lemma(g.side, g.claim), k, values, vec![g]))
        .collect();
    // The value: a win proved here, or each side's "does not lose", proved here or
    // by a lemma of `pos`.
    let value = if let Some(g) = graphs.iter().find(|g| g.claim == Claim::Win) {
        let v = if g.side == me { Wdl::Win } else { Wdl::Loss };
        Some(certificate(pos, Proves::Value(v), k, values, vec![g]))
    } else {
        let mut halves = Vec::new();
        for side in [me, me.other()] {
            if let Some(c) = new
                .iter()
                .find(|c| c.proves == Proves::Lemma(side, Claim::NotLose))
            {
                halves.push(c.clone());
            } else if let Some(l) = own
                .iter()
                .find(|l| l.side == side && l.claim == Claim::NotLose)
            {
                halves.push(read_lemma(dir, l)?);
            }
        }
        if halves.len() == 2 {
            Certificate::join_lemmas(Wdl::Draw, halves)
        } else {
            None
        }
    };
    Ok(Established {
        value,
        lemmas: new,
        nodes,
    })
}

/// The lemma `l` of the lemma directory `dir`, loose or packed.
fn read_lemma(dir: &Path, l: &LemmaRef) -> Result<Certificate, ProveError> {
    match crate::certificate::store::LemmaDir::open(dir)?.read(l.checksum)? {
        Some((cert, _)) => Ok(cert),
        None => Err(ProveError::Certificate(CertificateError::damaged(
            &dir.join(l.file_name()),
            "the lemma is gone from the directory",
        ))),
    }
}

/// The certificate of `root`'s value composed from its own lemmas in `dir` (one
/// win, or two "does not lose"), if they give its value and agree on the tables.
pub(super) fn root_from_lemmas(
    dir: &Path,
    lemmas: &Lemmas,
    root: &Position,
) -> Result<Option<Certificate>, ProveError> {
    let Some(value) = known(lemmas, root) else {
        return Ok(None);
    };
    let me = root.turn();
    let wanted: Vec<(Color, Claim)> = match value {
        Wdl::Win => vec![(me, Claim::Win)],
        Wdl::Loss => vec![(me.other(), Claim::Win)],
        Wdl::Draw => vec![(me, Claim::NotLose), (me.other(), Claim::NotLose)],
    };
    let mut parts = Vec::new();
    for (side, claim) in wanted {
        let l = lemmas
            .at(root)
            .iter()
            .find(|l| l.side == side && l.claim == claim)
            .expect("`known` found it");
        parts.push(read_lemma(dir, l)?);
    }
    Ok(Certificate::join_lemmas(value, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Board;
    use std::time::SystemTime;

    fn claim_file(dir: &Path, pos: &Position) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_64(pos.to_string().as_bytes());
        dir.join("claims").join(format!("{hash:016x}.claim"))
    }

    fn age(path: &Path, by: Duration) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - by).unwrap();
    }

    /// A claim is one worker's: a live holder keeps it, another host's claim is
    /// left alone until it is untouched for `stale`, then taken over; dropping a
    /// claim removes its file.
    #[test]
    fn a_claim_is_a_lease_taken_over_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let pos = Position::start(Board::get(5, 5).unwrap());
        let stale = Duration::from_secs(600);
        let path = claim_file(dir.path(), &pos);

        let held = JobClaim::take(dir.path(), &pos, stale)
            .unwrap()
            .expect("free");
        assert!(path.exists());
        assert!(JobClaim::take(dir.path(), &pos, stale).unwrap().is_none());
        drop(held);
        assert!(!path.exists(), "a job's end lets its claim go");

        // Another host's claim: its process cannot be looked up from here.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("elsewhere\t1\t{pos}\n")).unwrap();
        age(&path, stale / 2);
        assert!(JobClaim::take(dir.path(), &pos, stale).unwrap().is_none());
        age(&path, stale * 2);
        let taken = JobClaim::take(dir.path(), &pos, stale)
            .unwrap()
            .expect("a stale claim is taken over");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("\t{}\t", std::process::id())),
            "{text}"
        );
        drop(taken);
        assert!(!path.exists());

        // A holder stalled past `stale` is taken over; when it ends at last, it
        // leaves the new holder's claim in place.
        let slow = JobClaim::take(dir.path(), &pos, stale).unwrap().unwrap();
        age(&path, stale * 2);
        let new = JobClaim::take(dir.path(), &pos, stale)
            .unwrap()
            .expect("taken over");
        drop(slow);
        assert!(path.exists(), "the new holder's claim stays");
        assert!(JobClaim::take(dir.path(), &pos, stale).unwrap().is_none());
        drop(new);
        assert!(!path.exists());
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert!(left.is_empty(), "nothing left aside: {left:?}");
    }

    /// The holder's heartbeat touches its claim, so that a long job is never
    /// mistaken for a dead one.
    #[test]
    fn a_held_claim_is_touched_by_its_heartbeat() {
        let dir = tempfile::tempdir().unwrap();
        let pos = Position::start(Board::get(5, 5).unwrap());
        let stale = Duration::from_secs(10);
        let path = claim_file(dir.path(), &pos);
        let held = JobClaim::take(dir.path(), &pos, stale).unwrap().unwrap();
        age(&path, Duration::from_secs(3600));
        let touched = || {
            let t = std::fs::metadata(&path).unwrap().modified().unwrap();
            SystemTime::now().duration_since(t).unwrap_or_default() < Duration::from_secs(60)
        };
        let mut waited = 0;
        while !touched() && waited < 200 {
            std::thread::sleep(Duration::from_millis(50));
            waited += 1;
        }
        assert!(touched(), "not touched in 10 s with a beat of 1 s");
        // Another worker finds it live.
        assert!(JobClaim::take(dir.path(), &pos, stale).unwrap().is_none());
        drop(held);
        assert!(!path.exists());
    }
}
