//! `fanotb prove-tree`: one question ("does SIDE win?") answered by PN² over the
//! lemma directory, a line per expansion, and the root's certificate once both
//! questions are answered.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{Limits, peak_rss};

use crate::args::{Result, Side, TablesArg, board_position};
use crate::output::{human_bytes, print, print_line};
use crate::progress::table_observer;

#[derive(Args)]
pub struct ProveTreeArgs {
    /// Board: WxH (columns x rows), tsivy or dimy. Example: tsivy.
    pub board: String,
    /// The side whose win is asked: a proof is its win, a disproof the other side's
    /// "does not lose". Example: white.
    #[arg(long)]
    pub attacker: Side,
    /// Answer at this position of the board instead of the start.
    #[arg(long)]
    pub position: Option<String>,
    /// The lemma directory: lemmas read and written, and the leaves' log
    /// (tree.tsv). Example: proofs/tsivy/lemmas.
    #[arg(long)]
    pub lemmas: PathBuf,
    /// Leaves searched at once, one search thread each. Example: 2.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Positions with at most this many stones are table leaves (built on demand).
    /// Example: 7.
    #[arg(long, default_value_t = 6)]
    pub max_table_stones: usize,
    /// Each leaf's search gives up after this many nodes. Example: 200000.
    #[arg(long, default_value_t = 200_000)]
    pub max_nodes: u64,
    /// Each search's transposition table holds at most this many positions (about
    /// 60 bytes each). Example: 20000000.
    #[arg(long, default_value_t = 20_000_000)]
    pub max_entries: usize,
    /// Stop after this many expansions (default: when the root is answered).
    #[arg(long)]
    pub max_expansions: Option<u64>,
    /// Where the root's certificate goes once both questions are answered
    /// (default: LEMMAS/root.fnproof).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// One expansion, with where the run stands.
#[derive(Serialize)]
struct ExpansionLine {
    expansions: u64,
    position: String,
    children: usize,
    tree: usize,
    proof: u32,
    disproof: u32,
    searched: u64,
    reused: u64,
    nodes: u64,
    lemmas_written: usize,
    seconds: f64,
    nodes_per_second: f64,
    peak_rss: u64,
}

/// A proof or disproof number, `inf` for infinite.
fn number(n: u32) -> String {
    if n >= u32::MAX / 2 {
        "inf".into()
    } else {
        n.to_string()
    }
}

impl fmt::Display for ExpansionLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>6}  root {}/{}  tree {}  leaves {} searched, {} from the log  {} lemmas  {} nodes, {:.0} nodes/s  {:.0} s  peak {}  | {} ({} moves)",
            self.expansions,
            number(self.proof),
            number(self.disproof),
            self.tree,
            self.searched,
            self.reused,
            self.lemmas_written,
            self.nodes,
            self.nodes_per_second,
            self.seconds,
            human_bytes(self.peak_rss),
            self.position,
            self.children
        )
    }
}

#[derive(Serialize)]
struct ProveTreeReport {
    board: String,
    position: String,
    attacker: &'static str,
    /// "win" (the attacker wins), "no win" (the other side does not lose), or null.
    answer: Option<&'static str>,
    expansions: u64,
    tree: usize,
    searched: u64,
    reused: u64,
    nodes: u64,
    lemmas_written: usize,
    seconds: f64,
    peak_rss: u64,
    /// The root's value, once both questions are answered.
    value: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate_bytes: Option<u64>,
}

impl fmt::Display for ProveTreeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} {}: does {} win?",
            self.board, self.position, self.attacker
        )?;
        let answer = match self.answer {
            Some("win") => format!("yes: {} wins", self.attacker),
            Some(_) => format!("no: {} does not win", self.attacker),
            None => "not answered yet".into(),
        };
        writeln!(
            f,
            "{answer} ({} expansions, a tree of {}, {} leaves searched and {} from the log, {} nodes, {} lemmas written)",
            self.expansions, self.tree, self.searched, self.reused, self.nodes, self.lemmas_written
        )?;
        match (self.value, &self.certificate) {
            (Some(v), Some(c)) => writeln!(
                f,
                "root: {v}; certificate {c} ({} bytes)",
                self.certificate_bytes.unwrap_or(0)
            )?,
            _ => writeln!(f, "root: its value waits for the other question")?,
        }
        writeln!(
            f,
            "{:.1} s, peak {}",
            self.seconds,
            human_bytes(self.peak_rss)
        )
    }
}

pub fn prove_tree_command(a: ProveTreeArgs, json: bool) -> Result<()> {
    let pos = board_position(&a.board, a.position.as_deref())?;
    let mut opts = fanotb::TreeOptions::new(a.attacker.into(), &a.lemmas);
    opts.workers = a.workers;
    opts.max_expansions = a.max_expansions;
    opts.prove.max_table_stones = a.max_table_stones;
    opts.prove.limits = Limits::new(a.max_nodes, a.max_entries);
    opts.prove.table_observer = table_observer(json);
    let observer = |p: &fanotb::TreeProgress| {
        print_line(
            &ExpansionLine {
                expansions: p.expansions,
                position: p.position.to_string(),
                children: p.children,
                tree: p.tree,
                proof: p.proof,
                disproof: p.disproof,
                searched: p.searched,
                reused: p.reused,
                nodes: p.nodes,
                lemmas_written: p.lemmas_written,
                seconds: p.seconds,
                nodes_per_second: p.nodes as f64 / p.seconds.max(1e-9),
                peak_rss: peak_rss().unwrap_or(0),
            },
            json,
        );
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let r = fanotb::prove_tree(&a.tables.dir, &pos, &opts, &stop, &observer)?;
    let p = &r.progress;
    let mut report = ProveTreeReport {
        board: pos.board().size_name(),
        position: pos.to_string(),
        attacker: opts.attacker.name(),
        answer: r.attacker_wins.map(|w| if w { "win" } else { "no win" }),
        expansions: p.expansions,
        tree: p.tree,
        searched: p.searched,
        reused: p.reused,
        nodes: p.nodes,
        lemmas_written: p.lemmas_written,
        seconds: p.seconds,
        peak_rss: peak_rss().unwrap_or(0),
        value: None,
        certificate: None,
        certificate_bytes: None,
    };
    if let Some(cert) = &r.root {
        let out = a.out.unwrap_or_else(|| a.lemmas.join("root.fnproof"));
        report.certificate_bytes = Some(cert.write(&out)?);
        report.certificate = Some(out.display().to_string());
        report.value = cert.proves.value().map(|v| v.name());
    }
    print(&report, json);
    if r.attacker_wins.is_none() {
        return Err(crate::output::failure(
            format!(
                "not answered yet; the lemmas and the leaves' log are kept in {}: run again to go on",
                a.lemmas.display()
            ),
            json,
        ));
    }
    Ok(())
}
