//! The reports of `prove` and `check-proof`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::human_bytes;
use crate::{CheckReport, Claim, Color, Proved, Proves, peak_rss};

/// One proof of a certificate, with the search that produced it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ProofLine {
    /// The side the part is proved for, `white` or `black`.
    pub side: String,
    /// What it proves: `wins` or `does not lose`.
    pub claim: &'static str,
    /// The positions of its proof.
    pub positions: usize,
    /// The nodes of the search that found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// That search's seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

impl ProofLine {
    /// A part proving `claim` for `side` in `positions` positions, without its search.
    pub fn new(side: Color, claim: Claim, positions: usize) -> ProofLine {
        ProofLine {
            side: side.name().to_lowercase(),
            claim: claim.name(),
            positions,
            nodes: None,
            seconds: None,
        }
    }
}

impl fmt::Display for ProofLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut side = self.side.clone();
        side[..1].make_ascii_uppercase();
        write!(f, "  {side} {}: {} positions", self.claim, self.positions)?;
        if let (Some(nodes), Some(secs)) = (self.nodes, self.seconds) {
            write!(f, " ({nodes} search nodes, {secs:.1} s)")?;
        }
        Ok(())
    }
}

#[derive(Serialize, Clone, Debug, PartialEq)]
/// The tables a proof searched over.
pub struct TablesJson {
    /// The tables.
    pub count: usize,
    /// Their positions.
    pub positions: u64,
    /// Seconds spent building or loading them.
    pub seconds: f64,
}

/// `prove`'s report: the value proved, each part's proof with its search, the
/// tables, and the certificate written.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ProveReport {
    /// The board's size, `9x5`.
    pub board: String,
    /// The position proved.
    pub position: String,
    /// Its value for the side to move (`lemma` for a lemma).
    pub value: &'static str,
    /// Each part of the proof.
    pub proofs: Vec<ProofLine>,
    /// Search nodes in all.
    pub nodes: u64,
    /// Seconds in all, tables included.
    pub seconds: f64,
    /// Seconds of search.
    pub search_seconds: f64,
    /// The process's peak resident memory in bytes (0: not known).
    pub peak_rss: u64,
    /// Positions of at most this many stones are table leaves.
    pub max_table_stones: u8,
    /// The tables.
    pub tables: TablesJson,
    /// The certificate's file.
    pub certificate: String,
    /// Its size.
    pub certificate_bytes: u64,
    /// Lemmas the certificate relies on.
    pub lemmas_used: usize,
    /// Lemma files written (with --lemmas).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lemmas_written: Vec<String>,
    #[serde(skip)]
    turn: Color,
}

impl ProveReport {
    /// The report of a proof written to `path` (`bytes` long), with the lemma files
    /// written.
    pub fn new(proved: &Proved, path: &Path, bytes: u64, written: &[PathBuf]) -> ProveReport {
        let c = &proved.certificate;
        // A win proof comes from the search for that side's win, a "does not lose"
        // proof from the search for the other side's.
        let proofs = c
            .parts
            .iter()
            .map(|part| {
                let attacker = match part.claim {
                    Claim::Win => part.side,
                    Claim::NotLose => part.side.other(),
                };
                let search = proved.searches.iter().find(|s| s.attacker == attacker);
                ProofLine {
                    nodes: search.map(|s| s.nodes),
                    seconds: search.map(|s| s.seconds),
                    ..ProofLine::new(part.side, part.claim, part.entries.len())
                }
            })
            .collect();
        ProveReport {
            board: c.root.board().size_name(),
            position: c.root.to_string(),
            value: c.proves.value().map_or("lemma", |v| v.name()),
            proofs,
            nodes: proved.searches.iter().map(|s| s.nodes).sum(),
            seconds: proved.table_seconds + proved.search_seconds,
            search_seconds: proved.search_seconds,
            peak_rss: peak_rss().unwrap_or(0),
            max_table_stones: c.max_table_stones,
            tables: TablesJson {
                count: c.tables.len(),
                positions: proved.tables.iter().map(|r| r.stats.placements).sum(),
                seconds: proved.table_seconds,
            },
            certificate: path.display().to_string(),
            certificate_bytes: bytes,
            lemmas_used: c.lemmas.len(),
            lemmas_written: written.iter().map(|p| p.display().to_string()).collect(),
            turn: c.root.turn(),
        }
    }
}

impl fmt::Display for ProveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} {}: {} for {} to move",
            self.board,
            self.position,
            self.value,
            self.turn.name()
        )?;
        for p in &self.proofs {
            writeln!(f, "{p}")?;
        }
        writeln!(
            f,
            "tables: {} up to {} stones, {} positions, {:.1} s",
            self.tables.count, self.max_table_stones, self.tables.positions, self.tables.seconds
        )?;
        writeln!(
            f,
            "search: {} nodes in {:.1} s ({:.0} nodes/s), peak {}",
            self.nodes,
            self.search_seconds,
            self.nodes as f64 / self.search_seconds.max(1e-9),
            human_bytes(self.peak_rss)
        )?;
        write!(
            f,
            "certificate: {} ({} bytes",
            self.certificate, self.certificate_bytes
        )?;
        if self.lemmas_used > 0 {
            write!(f, ", relying on {} lemmas", self.lemmas_used)?;
        }
        writeln!(f, ")")?;
        for l in &self.lemmas_written {
            writeln!(f, "lemma: {l}")?;
        }
        Ok(())
    }
}

/// `check-proof`'s report of one certificate.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct CheckProofReport {
    /// The certificate's file.
    pub certificate: String,
    /// Always true: a refused certificate is an error.
    pub ok: bool,
    /// The board's size, `9x5`.
    pub board: String,
    /// The position it proves.
    pub position: String,
    /// The value proved; `null` for a lemma.
    pub value: Option<&'static str>,
    /// What a lemma proves (`White wins`), for a lemma.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lemma: Option<String>,
    /// Positions of at most this many stones are table leaves.
    pub max_table_stones: u8,
    /// The tables matched by checksum.
    pub tables: usize,
    /// The lemmas checked.
    pub lemmas: usize,
    /// Whether every entry of those tables was re-derived.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tables_verified: bool,
    /// Each part of the proof.
    pub proofs: Vec<ProofLine>,
    /// Positions checked.
    pub positions: u64,
    /// Moves checked.
    pub moves: u64,
    /// Seconds the check took.
    pub seconds: f64,
    #[serde(skip)]
    turn: Color,
    /// With `list_lemmas`, the files of the lemmas relied on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relied_on: Option<Vec<String>>,
}

impl fmt::Display for CheckProofReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} {}: {} (table leaves up to {} stones, {} tables matched by checksum{}{})",
            self.board,
            self.position,
            match (&self.lemma, self.value) {
                (Some(l), _) => format!("lemma: {l}"),
                (None, v) => format!("{} for {} to move", v.unwrap_or("?"), self.turn.name()),
            },
            self.max_table_stones,
            self.tables,
            if self.tables_verified {
                ", every entry re-derived"
            } else {
                ""
            },
            match self.lemmas {
                0 => String::new(),
                n => format!(", {n} lemmas checked"),
            }
        )?;
        for p in &self.proofs {
            writeln!(f, "{p}")?;
        }
        writeln!(
            f,
            "ok: {} positions and {} moves checked in {:.2} s",
            self.positions, self.moves, self.seconds
        )
    }
}

impl CheckProofReport {
    /// The report of the check of `file`; with `list_lemmas`, the files of the
    /// lemmas it relied on.
    pub fn new(file: &Path, r: &CheckReport, list_lemmas: bool) -> CheckProofReport {
        CheckProofReport {
            certificate: file.display().to_string(),
            ok: true,
            board: r.root.board().size_name(),
            position: r.root.to_string(),
            value: r.proves.value().map(|v| v.name()),
            lemma: match r.proves {
                Proves::Lemma(..) => Some(r.proves.text(&r.root)),
                Proves::Value(_) => None,
            },
            max_table_stones: r.max_table_stones,
            tables: r.tables,
            lemmas: r.lemmas,
            tables_verified: r.tables_verified,
            proofs: r
                .parts
                .iter()
                .map(|&(side, claim, n)| ProofLine::new(side, claim, n))
                .collect(),
            positions: r.positions,
            moves: r.moves,
            seconds: r.seconds,
            turn: r.root.turn(),
            relied_on: list_lemmas.then(|| r.relied_on.clone()),
        }
    }
}
