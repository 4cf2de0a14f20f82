//! `fanotb prove-tree`: one question ("does SIDE win?") answered by PN² over the
//! lemma directory, a line per expansion, and the root's certificate once both
//! questions are answered.

use std::fmt;

use clap::Args;
use serde::Serialize;

use fanotb::peak_rss;

use crate::args::{Result, Side};
use crate::output::{print, print_line};
use crate::prove::{LemmaRunArgs, RootWritten};
use fanotb::report::human_bytes;

#[derive(Args)]
pub struct ProveTreeArgs {
    /// The side whose win is asked: a proof is its win, a disproof the other side's
    /// "does not lose". Example: white.
    #[arg(long)]
    pub attacker: Side,
    /// Stop after this many expansions (default: when the root is answered).
    #[arg(long)]
    pub max_expansions: Option<u64>,
    #[command(flatten)]
    pub run: LemmaRunArgs,
}

/// One expansion, with where the run stands.
#[derive(Serialize)]
struct ExpansionLine {
    expansions: u64,
    position: String,
    children: usize,
    tree: usize,
    /// Nodes of the tree whose position another node holds too.
    transposed: usize,
    proof: u32,
    disproof: u32,
    searched: u64,
    reused: u64,
    nodes: u64,
    lemmas_written: usize,
    seconds: f64,
    nodes_per_second: f64,
    peak_rss: u64,
    /// Each move of the root: its proof and disproof numbers.
    moves: Vec<[u32; 2]>,
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
            "{:>6}  root {}/{}  moves {}  tree {} ({} transposed)  leaves {} searched, {} from the log  {} lemmas  {} nodes, {:.0} nodes/s  {:.0} s  peak {}  | {} ({} moves)",
            self.expansions,
            number(self.proof),
            number(self.disproof),
            root_moves(&self.moves),
            self.tree,
            self.transposed,
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

/// The root's moves in brief: how many are settled (a number 0), then each one's
/// proof/disproof numbers, as "2/5 settled: 0/inf 412/17 ...".
fn root_moves(moves: &[[u32; 2]]) -> String {
    let settled = moves.iter().filter(|m| m.contains(&0)).count();
    let each: Vec<String> = moves
        .iter()
        .map(|&[p, d]| format!("{}/{}", number(p), number(d)))
        .collect();
    format!("{settled}/{} settled: {}", moves.len(), each.join(" "))
}

/// A move of the root: the position it leads to and its numbers.
#[derive(Serialize)]
struct MoveLine {
    position: String,
    proof: u32,
    disproof: u32,
}

#[derive(Serialize)]
struct ProveTreeReport {
    board: String,
    position: String,
    attacker: &'static str,
    /// "win" (the attacker wins), "no win" (the other side does not lose), or null.
    answer: Option<&'static str>,
    /// The root's proof and disproof numbers at the end (`u32::MAX / 2` is
    /// infinite): where an open question stands.
    proof: u32,
    disproof: u32,
    expansions: u64,
    tree: usize,
    transposed: usize,
    searched: u64,
    reused: u64,
    nodes: u64,
    lemmas_written: usize,
    /// Lemmas passed over, proved over tables this run did not load: the other
    /// question's answer may be among them.
    lemmas_beyond: usize,
    /// Where each move of the root stands, while the root is open.
    moves: Vec<MoveLine>,
    seconds: f64,
    peak_rss: u64,
    /// The root's value once both questions are answered, and its certificate.
    #[serde(flatten)]
    root: RootWritten,
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
            None => format!(
                "not answered yet: the root at {}/{}",
                number(self.proof),
                number(self.disproof)
            ),
        };
        writeln!(
            f,
            "{answer} ({} expansions, a tree of {} ({} transposed), {} leaves searched and {} from the log, {} nodes, {} lemmas written)",
            self.expansions,
            self.tree,
            self.transposed,
            self.searched,
            self.reused,
            self.nodes,
            self.lemmas_written
        )?;
        for m in &self.moves {
            let state = match (m.proof, m.disproof) {
                (0, _) => format!("{} wins", self.attacker),
                (_, 0) => format!("{} does not win", self.attacker),
                (p, d) => format!("open, {}/{}", number(p), number(d)),
            };
            writeln!(f, "  after the move: {} {state}", m.position)?;
        }
        match (self.root.value, &self.root.certificate) {
            (Some(v), Some(c)) => writeln!(
                f,
                "root: {v}; certificate {c} ({} bytes)",
                self.root.certificate_bytes.unwrap_or(0)
            )?,
            _ if self.lemmas_beyond > 0 => writeln!(
                f,
                "root: its value waits for the other question, which the lemmas passed \
                 over may answer: a run over their tables with --max-expansions 0 joins \
                 the two"
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

pub fn prove_tree_command(args: ProveTreeArgs, json: bool) -> Result<()> {
    let a = args.run;
    let (pos, prove) = a.prepare(json)?;
    let mut opts = fanotb::TreeOptions::new(args.attacker.into(), &a.lemmas);
    opts.workers = a.workers;
    opts.max_expansions = args.max_expansions;
    opts.prove = prove;
    let observer = |p: &fanotb::TreeProgress| {
        print_line(
            &ExpansionLine {
                expansions: p.expansions,
                position: p.position.to_string(),
                children: p.children,
                tree: p.tree,
                transposed: p.transposed,
                proof: p.proof,
                disproof: p.disproof,
                searched: p.searched,
                reused: p.reused,
                nodes: p.nodes,
                lemmas_written: p.lemmas_written,
                seconds: p.seconds,
                nodes_per_second: p.nodes as f64 / p.seconds.max(1e-9),
                peak_rss: peak_rss().unwrap_or(0),
                moves: p.moves.iter().map(|&(pn, dn)| [pn, dn]).collect(),
            },
            json,
        );
    };
    let stop = crate::prove::stop_on_signals()?;
    let r = fanotb::prove_tree(&a.tables.dir, &pos, &opts, &stop, &observer)?;
    crate::prove::warn_refused(&r.lemmas_refused, r.lemmas_beyond);
    let p = &r.progress;
    let report = ProveTreeReport {
        board: pos.board().size_name(),
        position: pos.to_string(),
        attacker: opts.attacker.name(),
        answer: r.attacker_wins.map(|w| if w { "win" } else { "no win" }),
        proof: p.proof,
        disproof: p.disproof,
        expansions: p.expansions,
        tree: p.tree,
        transposed: p.transposed,
        searched: p.searched,
        reused: p.reused,
        nodes: p.nodes,
        lemmas_written: p.lemmas_written,
        lemmas_beyond: r.lemmas_beyond,
        moves: r
            .moves
            .iter()
            .map(|&(pos, proof, disproof)| MoveLine {
                position: pos.to_string(),
                proof,
                disproof,
            })
            .collect(),
        seconds: p.seconds,
        peak_rss: peak_rss().unwrap_or(0),
        root: a.write_root(&pos, r.root.as_ref())?,
    };
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
