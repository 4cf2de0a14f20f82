//! Table files (docs/FORMAT.md): what a table is, where it lives and why it cannot
//! be used; the storage codes, the header, the writer, the reader and its block
//! cache each in a room of their own.

mod cache;
mod codes;
mod header;
mod kind;
mod reader;
mod writer;

pub(crate) mod depths;
pub(crate) mod layout;
pub(crate) mod manifest;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::index::{Indexer, Signature};
use crate::rules::board::Board;
use crate::rules::limit::Limited;
use crate::rules::value::Outcome;

pub(crate) use cache::{process_cache_bytes, set_cache_bytes, set_process_cache_bytes};
pub(crate) use codes::{
    BLESSED, CURSED, Codes, code_depth, code_limited, code_outcome, code_wdl, limited_code,
    outcome_code, packed_wdl,
};
#[cfg(feature = "mpi")]
pub(crate) use header::BLOCK_ENTRIES;
pub use header::Stats;
pub(crate) use header::{END_MAGIC, INDEX_SCHEME, VERSION, fold_weighted};
pub use kind::TableKind;
pub use layout::table_path;
pub(crate) use layout::tables_dir;
pub use reader::TableFile;
pub(crate) use writer::write_table;
#[cfg(feature = "mpi")]
pub(crate) use writer::{compress_blocks, write_blocks};

/// Why a table file cannot be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TableError {
    /// The directory has no file for the table.
    #[error("no table {sig}{kind} for the {} board in {}", board.size_name(), dir.display())]
    Missing {
        /// The board of the table.
        board: &'static Board,
        /// Its signature.
        sig: Signature,
        /// The game it values.
        kind: TableKind,
        /// The directory searched.
        dir: PathBuf,
    },
    /// The name is not a regular file (a directory, a FIFO, a dangling link).
    #[error("{path}: {what}")]
    NotAFile {
        /// The name.
        path: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not start with the table magic bytes.
    #[error("{path}: not a fanotb table (bad magic bytes)")]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// The file is a table of a format version this build does not read.
    #[error("{path}: table format version {found}, this fanotb reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file's length is not the one its header and block directory give.
    #[error("{path}: truncated or extended: {found} bytes, the header says {expected}")]
    Size {
        /// The file.
        path: PathBuf,
        /// Length it should have, in bytes (a lower bound when the header or the
        /// directory itself is cut short).
        expected: u64,
        /// Length it has, in bytes.
        found: u64,
    },
    /// A checksum fails, or the header, directory or a block is malformed.
    #[error("{path}: corrupted: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong, in a few words.
        what: String,
    },
    /// The file holds another signature or board than the one asked for.
    #[error("{path}: holds {found}, expected {expected}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The table asked for, such as `3v2 on 9x5`.
        expected: String,
        /// The table the header names.
        found: String,
    },
}

impl TableError {
    /// For a missing table, what builds it: the `fanotb generate` command line, or
    /// that no table this large is built. `None` for other errors.
    pub fn build_hint(&self) -> Option<String> {
        let TableError::Missing {
            board,
            sig,
            kind,
            dir,
        } = self
        else {
            return None;
        };
        Some(if !kind.holds(board, *sig) {
            format!(
                "fanotb builds no vela table {sig}: the vela side, one side and only one, has more than {} stones",
                crate::rules::vela::Vela::floor(board)
            )
        } else if sig.buildable(board) {
            format!(
                "build it with `fanotb generate --board {} --signature {sig}{} --dir {}`",
                board.size_name(),
                kind.flag(),
                dir.display()
            )
        } else {
            format!(
                "fanotb builds no table this large ({sig} has {} placements)",
                sig.placements(board)
            )
        })
    }
}

/// What a table is, as error messages name it: `3v2 on 9x5`, `3v2 on 9x5 under the
/// no-capture limit 60`, `6v1 on 9x5 under vela`.
fn table_name(sig: Signature, width: usize, height: usize, kind: TableKind) -> String {
    format!("{sig} on {width}x{height}{kind}")
}

/// A table file with the indexer of its signature: how the probe, the verifier and
/// the generator all open a table.
pub(crate) struct Table {
    pub(crate) idx: Indexer,
    pub(crate) file: TableFile,
}

impl Table {
    /// Opens the table `sig` of `board` in `dir`; a file that is not there is
    /// `TableError::Missing`.
    pub(crate) fn open(
        dir: &Path,
        board: &'static Board,
        kind: TableKind,
        sig: Signature,
    ) -> Result<Table, TableError> {
        let file = match TableFile::open(&table_path(dir, board, kind, sig), board, kind, sig) {
            Err(TableError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(TableError::Missing {
                    board,
                    sig,
                    kind,
                    dir: dir.to_path_buf(),
                });
            }
            r => r?,
        };
        // A crafted name and header could ask for class tables beyond any memory.
        if !sig.buildable(board) {
            return Err(file.corrupt(format!("{sig} is larger than any table fanotb builds")));
        }
        let idx = Indexer::for_table(board, sig, &layout::classes_path(file.path()));
        if file.header().entries != idx.size() {
            return Err(file.corrupt(format!(
                "{} entries, the index has {}",
                file.header().entries,
                idx.size()
            )));
        }
        Ok(Table { idx, file })
    }

    /// The whole table decoded into memory, for readers that visit every entry.
    pub(crate) fn decode(self) -> Result<Decoded, TableError> {
        Ok(Decoded {
            codes: self.file.read_all()?,
            idx: self.idx,
        })
    }
}

/// A table decoded whole: one storage code per entry.
pub(crate) struct Decoded {
    pub(crate) idx: Indexer,
    pub(crate) codes: Vec<u16>,
}

impl Decoded {
    /// The outcome of the position `(us, them)`, `us` to move.
    pub(crate) fn outcome(&self, us: u64, them: u64) -> Outcome {
        code_outcome(self.code(us, them))
    }

    /// The rule-aware value of the position `(us, them)`, `us` to move.
    pub(crate) fn limited(&self, us: u64, them: u64) -> Limited {
        code_limited(self.code(us, them))
    }

    /// The code of the position `(us, them)`, `us` to move.
    pub(crate) fn code(&self, us: u64, them: u64) -> u16 {
        self.codes[self.idx.index(us, them) as usize]
    }
}

/// Rewrites one entry of a table file in place of the file, keeping its header:
/// how the tests make a well-formed table that holds a wrong value.
pub fn set_entry(
    path: &Path,
    board: &'static Board,
    sig: Signature,
    index: u64,
    outcome: Outcome,
) -> Result<u64, TableError> {
    let file = TableFile::open(path, board, TableKind::Plain, sig)?;
    let mut codes = file.read_all()?;
    let stats = file.header().stats;
    drop(file);
    let cell = codes
        .get_mut(index as usize)
        .ok_or_else(|| TableError::Corrupt {
            path: path.into(),
            what: format!("no entry {index}"),
        })?;
    *cell = outcome_code(outcome);
    Ok(write_table(path, board, sig, TableKind::Plain, &codes[..], stats)?.0)
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.into(),
        source,
    }
}
