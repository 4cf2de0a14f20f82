//! `pack-lemmas`, `recode-lemmas` and `bundle-proof`: a lemma directory packed, or
//! rewritten in the newest format (docs/PROOF.md, "Lemma packs"), or a result
//! written with its lemmas as one file ("Proof bundles").

use std::fmt;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::args::Result;
use fanotb::report::human_bytes;

#[derive(Args)]
pub struct PackLemmasArgs {
    /// The lemma directory. Example: proofs/tsivy/lemmas.
    pub dir: PathBuf,
    /// Instead, write into --out one pack of exactly the lemmas these certificates
    /// rely on (what a result needs to be checked), leaving DIR as it is. Example:
    /// proofs/tsivy/lemmas/root.fnproof.
    #[arg(long, num_args = 1.., requires = "out")]
    pub only: Vec<PathBuf>,
    /// The directory the pack of --only is written to.
    #[arg(long, requires = "only")]
    pub out: Option<PathBuf>,
    /// Pack every pack into one. By default the largest packs are kept as they are
    /// while each holds at least twice the bytes of all the rest, so that the old
    /// lemmas are not copied into each new pack (nor stored again by git).
    #[arg(long, conflicts_with = "only")]
    pub all: bool,
    /// Leave these packs of DIR as they are, and do not copy their lemmas: the
    /// packs a repository has committed, so that only new lemmas make a new pack.
    /// Example: --keep $(git ls-files 'proofs/tsivy/lemmas/*.fnpack').
    #[arg(long, num_args = 1.., conflicts_with_all = ["only", "logs_only"])]
    pub keep: Vec<PathBuf>,
    /// Only seal the logs (each *.tsv into a new compressed part, *.tsv.N.zst; the
    /// old parts kept while each is twice the newer ones), leaving every pack and
    /// loose lemma as it is.
    #[arg(long, conflicts_with_all = ["only", "all"])]
    pub logs_only: bool,
}

/// What `pack-lemmas` did.
#[derive(Serialize)]
pub struct PackLemmasReport {
    lemmas: usize,
    loose: usize,
    packs: usize,
    busy: Vec<String>,
    cut: Vec<String>,
    pack: Option<String>,
    bytes_before: u64,
    bytes_after: u64,
    logs: Vec<SealedLog>,
    kept: Vec<String>,
}

/// A log whose open part was sealed.
#[derive(Serialize)]
struct SealedLog {
    log: String,
    bytes_before: u64,
    bytes_after: u64,
}

impl fmt::Display for PackLemmasReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pack {
            None if !self.logs.is_empty() => {}
            None => writeln!(f, "no lemma to pack")?,
            Some(p) => writeln!(
                f,
                "{} lemmas packed into {p} ({}), from {} loose files and {} packs ({})",
                self.lemmas,
                human_bytes(self.bytes_after),
                self.loose,
                self.packs,
                human_bytes(self.bytes_before)
            )?,
        }
        for b in &self.busy {
            writeln!(f, "left as it is, a search is writing it: {b}")?;
        }
        for k in &self.kept {
            writeln!(f, "kept as it is: {k}")?;
        }
        for c in &self.cut {
            writeln!(f, "ended early, its segments before taken in: {c}")?;
        }
        for l in &self.logs {
            writeln!(
                f,
                "log sealed: {} ({} to {})",
                l.log,
                human_bytes(l.bytes_before),
                human_bytes(l.bytes_after)
            )?;
        }
        Ok(())
    }
}

pub fn pack_lemmas_command(a: &PackLemmasArgs) -> Result<PackLemmasReport> {
    let r = match &a.out {
        Some(out) => fanotb::pack_relied_on(&a.only, &a.dir, out)?,
        None => {
            let how = match (a.all, a.logs_only) {
                (true, _) => fanotb::Packing::All,
                (_, true) => fanotb::Packing::LogsOnly,
                _ => fanotb::Packing::Geometric,
            };
            fanotb::pack_lemmas(&a.dir, how, &a.keep)?
        }
    };
    // Nothing packed (or sealed) is nothing done of what was asked: a non-zero exit.
    if a.logs_only && r.logs.is_empty() {
        return Err(match r.busy.first() {
            Some(b) => format!(
                "a search is writing {}: the logs are sealed only when none runs",
                b.display()
            ),
            None => format!("no log to seal in {}", a.dir.display()),
        }
        .into());
    }
    if r.pack.is_none() && r.busy.is_empty() && r.logs.is_empty() {
        return Err(match a.out {
            Some(_) => "the certificates rely on no lemma: nothing packed".into(),
            None => format!("no lemma in {}: nothing packed", a.dir.display()).into(),
        });
    }
    let show = |p: &Path| p.display().to_string();
    Ok(PackLemmasReport {
        lemmas: r.lemmas,
        loose: r.loose,
        packs: r.packs,
        busy: r.busy.iter().map(|p| show(p)).collect(),
        kept: r.kept.iter().map(|p| show(p)).collect(),
        cut: r.cut,
        pack: r.pack.as_deref().map(show),
        bytes_before: r.bytes_before,
        bytes_after: r.bytes_after,
        logs: r
            .logs
            .iter()
            .map(|(p, before, after)| SealedLog {
                log: show(p),
                bytes_before: *before,
                bytes_after: *after,
            })
            .collect(),
    })
}

#[derive(Args)]
pub struct ReadLogArgs {
    /// The log, by the name of its open part (with or without it, and with or
    /// without its sealed part). Example: proofs/tsivy/lemmas/tree.tsv.
    pub log: PathBuf,
}

/// Prints the log's whole text; a log with neither part is an error.
pub fn read_log_command(a: &ReadLogArgs) -> Result<()> {
    let text = fanotb::read_log(&a.log).map_err(|e| format!("{}: {e}", a.log.display()))?;
    if text.is_empty() {
        return Err(format!(
            "{}: no such log (nor {}.zst, nor later sealed parts)",
            a.log.display(),
            a.log.display()
        )
        .into());
    }
    // As every report: a reader that stops early (`| head`) ends the print quietly.
    crate::output::emit(&text);
    Ok(())
}

#[derive(Args)]
pub struct RecodeLemmasArgs {
    /// The lemma directory read. Example: proofs/tsivy/lemmas.
    pub dir: PathBuf,
    /// Certificates that rely on its lemmas, rewritten with the new checksums.
    #[arg(long, num_args = 1..)]
    pub root: Vec<PathBuf>,
    /// The directory written: one pack, and each --root under its file name.
    #[arg(long)]
    pub out: PathBuf,
}

/// What `recode-lemmas` wrote.
#[derive(Serialize)]
pub struct RecodeLemmasReport {
    lemmas: usize,
    compact: usize,
    pack: Option<String>,
    roots: Vec<String>,
    bytes_before: u64,
    bytes_after: u64,
}

impl fmt::Display for RecodeLemmasReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} lemmas ({} as moves, version 4) rewritten into {}: {} (were {})",
            self.lemmas,
            self.compact,
            self.pack.as_deref().unwrap_or("no pack"),
            human_bytes(self.bytes_after),
            human_bytes(self.bytes_before)
        )?;
        for r in &self.roots {
            writeln!(f, "certificate rewritten: {r}")?;
        }
        Ok(())
    }
}

pub fn recode_lemmas_command(a: &RecodeLemmasArgs) -> Result<RecodeLemmasReport> {
    let r = fanotb::recode_lemmas(&a.dir, &a.root, &a.out)?;
    Ok(RecodeLemmasReport {
        lemmas: r.lemmas,
        compact: r.compact,
        pack: r.pack.as_ref().map(|p| p.display().to_string()),
        roots: r
            .roots
            .iter()
            .map(|(_, to)| to.display().to_string())
            .collect(),
        bytes_before: r.bytes_before,
        bytes_after: r.bytes_after,
    })
}

#[derive(Args)]
pub struct BundleProofArgs {
    /// The certificate. Example: proofs/tsivy/lemmas/root.fnproof.
    pub certificate: PathBuf,
    /// The lemma directory its lemmas are read from. Example: proofs/tsivy/lemmas.
    #[arg(long)]
    pub lemmas: PathBuf,
    /// The bundle written: the certificate and exactly the lemmas it relies on.
    /// Example: start.fnproof.
    #[arg(long)]
    pub out: PathBuf,
}

/// What `bundle-proof` wrote.
#[derive(Serialize)]
pub struct BundleProofReport {
    bundle: String,
    lemmas: usize,
    bytes: u64,
}

impl fmt::Display for BundleProofReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: the certificate and the {} lemmas it relies on, {} bytes",
            self.bundle, self.lemmas, self.bytes
        )
    }
}

pub fn bundle_proof_command(a: &BundleProofArgs) -> Result<BundleProofReport> {
    let r = fanotb::bundle_proof(&a.certificate, &a.lemmas, &a.out)?;
    Ok(BundleProofReport {
        bundle: a.out.display().to_string(),
        lemmas: r.lemmas,
        bytes: r.bytes,
    })
}
