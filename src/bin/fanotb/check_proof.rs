//! `check-proof`: certificates checked from the rules and the tables, one or a set
//! (a pack stands for its lemmas), with their figures.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use fanotb::{CheckOptions, check_proof, check_proofs};

use crate::args::{Result, TablesArg};
use fanotb::report::CheckProofReport;

#[derive(Args)]
pub struct CheckProofArgs {
    /// The certificate, or several (a lemma directory's new lemmas, say), checked
    /// in one pass: the tables loaded once, every certificate given or relied on
    /// checked once. A bundle (`bundle-proof`) brings its own lemmas, a pack
    /// (told by its first bytes) stands for the lemmas in it. Example:
    /// proofs/tsivy/start.fnproof.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also re-derive every entry of every table the certificate names from its
    /// successors (as `verify` does), so that the check rests on the rules alone.
    #[arg(long)]
    pub verify_tables: bool,
    /// The lemma directory the certificate's lemmas are read from (by the
    /// checksums it names). Example: proofs/tsivy/lemmas.
    #[arg(long)]
    pub lemmas: Option<PathBuf>,
    /// MiB of decoded blocks a version 3 certificate's check keeps for its
    /// look-ups, which with one block a thread bounds its memory. Example: 256.
    #[arg(long, default_value_t = fanotb::DEFAULT_CACHE_MIB)]
    pub cache_mib: usize,
    /// Also list the file of every lemma relied on (not given), one a line after
    /// the report (`relied_on` in JSON): what a lemma directory must keep for these
    /// certificates.
    #[arg(long)]
    pub list_lemmas: bool,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// What `check-proof` found: one certificate's report, or several's in all.
#[derive(Serialize)]
#[serde(untagged)]
pub enum CheckOutput {
    One(CheckProofReport),
    Set(CheckSetOutput),
}

impl fmt::Display for CheckOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let relied_on = match self {
            CheckOutput::One(r) => {
                r.fmt(f)?;
                &r.relied_on
            }
            CheckOutput::Set(r) => {
                r.fmt(f)?;
                &r.relied_on
            }
        };
        for name in relied_on.iter().flatten() {
            writeln!(f, "relies on {name}")?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
pub struct CheckSetOutput {
    ok: bool,
    certificates: usize,
    lemmas: usize,
    tables: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    tables_verified: bool,
    positions: u64,
    moves: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    relied_on: Option<Vec<String>>,
}

impl fmt::Display for CheckSetOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "ok: {} certificates and {} lemmas they rely on ({} tables matched by checksum{}): {} positions and {} moves checked in {:.2} s",
            self.certificates,
            self.lemmas,
            self.tables,
            if self.tables_verified {
                ", every entry re-derived"
            } else {
                ""
            },
            self.positions,
            self.moves,
            self.seconds
        )
    }
}

pub fn check_proof_command(a: CheckProofArgs) -> Result<CheckOutput> {
    let mut opts = CheckOptions::default();
    opts.verify_tables = a.verify_tables;
    opts.lemmas = a.lemmas.clone();
    opts.cache_mib = Some(a.cache_mib);
    opts.on_table = Some(fanotb::OnTable(std::sync::Arc::new(
        crate::progress::table_verified,
    )));
    // A set, or a pack (which stands for the lemmas in it).
    let one = match &a.files[..] {
        [file] if !fanotb::is_lemma_pack(file) => Some(file),
        _ => None,
    };
    let Some(file) = one else {
        let r = check_proofs(&a.files, &a.tables.dir, &opts)?;
        return Ok(CheckOutput::Set(CheckSetOutput {
            ok: true,
            certificates: r.certificates,
            lemmas: r.lemmas,
            tables: r.tables,
            tables_verified: r.tables_verified,
            positions: r.positions,
            moves: r.moves,
            seconds: r.seconds,
            relied_on: a.list_lemmas.then_some(r.relied_on),
        }));
    };
    let r = check_proof(file, &a.tables.dir, &opts)?;
    Ok(CheckOutput::One(CheckProofReport::new(
        file,
        &r,
        a.list_lemmas,
    )))
}
