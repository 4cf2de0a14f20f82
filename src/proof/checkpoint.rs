//! Checkpoints of a proof search: its transposition table, saved now and then so a
//! long search that is stopped (or reaches its memory budget) resumes where it was.
//!
//! File: magic `FNCKPT1\n`, then zstd of: root white u64, black u64, turn u8,
//! attacker u8, table stones u8, entries u64, and per entry (key.0 u64, key.1 u64,
//! pn u32, dn u32); then the xxh3-64 of every byte before it. Little-endian. Written
//! to a temporary name, fsynced and renamed.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::files::bytes::{Hashing, u32_at, u64_at, unseal};

const MAGIC: [u8; 8] = *b"FNCKPT1\n";

/// The largest checkpoint read: it is read whole, and its table of proved nodes must
/// then fit beside the search in memory.
const MAX_CHECKPOINT: u64 = 8 << 30;

/// Why a search checkpoint could not be saved or loaded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// Reading, writing or decompressing the file failed.
    #[error("checkpoint {path}: {source}")]
    Io {
        /// The checkpoint file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not a checkpoint, is damaged, or belongs to another search.
    #[error("checkpoint {path}: {what}")]
    Invalid {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong, in a few words.
        what: String,
    },
}

/// What a checkpoint belongs to: a search is resumed only from its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Identity {
    pub white: u64,
    pub black: u64,
    pub turn: u8,
    pub attacker: u8,
    pub table_stones: u8,
}

impl Identity {
    fn bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(19);
        v.extend_from_slice(&self.white.to_le_bytes());
        v.extend_from_slice(&self.black.to_le_bytes());
        v.extend_from_slice(&[self.turn, self.attacker, self.table_stones]);
        v
    }
}

/// Saves `entries` (key, pn, dn) as the checkpoint of `id` at `path`.
pub(super) fn save<'a>(
    path: &Path,
    id: Identity,
    count: usize,
    entries: impl Iterator<Item = ((u64, u64), (u32, u32))> + 'a,
) -> Result<(), CheckpointError> {
    let io = |source| CheckpointError::Io {
        path: path.into(),
        source,
    };
    crate::files::durable::replace_file(path, |file| {
        let mut out = Hashing::new(BufWriter::new(file));
        out.write_all(&MAGIC)?;
        let mut z = zstd::Encoder::new(&mut out, 1)?;
        z.write_all(&id.bytes())?;
        z.write_all(&(count as u64).to_le_bytes())?;
        let mut written = 0usize;
        for ((a, b), (pn, dn)) in entries {
            z.write_all(&a.to_le_bytes())?;
            z.write_all(&b.to_le_bytes())?;
            z.write_all(&pn.to_le_bytes())?;
            z.write_all(&dn.to_le_bytes())?;
            written += 1;
        }
        assert_eq!(written, count, "the entry count is the table's length");
        z.finish()?;
        out.seal()?.flush()
    })
    .map_err(io)
}

/// Loads the checkpoint at `path` if there is one; it must belong to `id`.
pub(super) fn load(
    path: &Path,
    id: Identity,
    mut insert: impl FnMut((u64, u64), (u32, u32)),
) -> Result<Option<usize>, CheckpointError> {
    let invalid = |what: &str| CheckpointError::Invalid {
        path: path.into(),
        what: what.into(),
    };
    let io = |source| CheckpointError::Io {
        path: path.into(),
        source,
    };
    let bytes = match crate::files::read::read_bounded(path, MAX_CHECKPOINT) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    if bytes.len() < 16 || bytes[..8] != MAGIC {
        return Err(invalid("not a fanotb search checkpoint"));
    }
    let body =
        unseal(&bytes, b"").map_err(|_| invalid("checksum mismatch (damaged or incomplete)"))?;
    let mut z = BufReader::new(zstd::Decoder::new(&body[8..]).map_err(io)?);
    let mut head = vec![0u8; 19 + 8];
    z.read_exact(&mut head).map_err(io)?;
    if head[..19] != id.bytes()[..] {
        return Err(invalid(
            "belongs to another search (position, side or table stones differ): remove it or name another",
        ));
    }
    let count = u64_at(&head, 19) as usize;
    let mut rec = [0u8; 24];
    for _ in 0..count {
        z.read_exact(&mut rec).map_err(io)?;
        let (u, w) = (|i| u64_at(&rec, i), |i| u32_at(&rec, i));
        insert((u(0), u(8)), (w(16), w(20)));
    }
    Ok(Some(count))
}
