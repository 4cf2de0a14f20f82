//! The table reader: a file opened read-only through a memory map, validated
//! before anything is allocated from its contents; blocks decompressed on demand
//! and cached per thread.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::cache::{NEXT_FILE_ID, with_cached};
use super::codes::{code_limited, code_outcome, limited_code, packed_wdl};
use super::header::{END_MAGIC, HEADER_LEN, Header, MAGIC};
use super::{TableError, TableKind, io_err, table_name};
use crate::files::bytes::{u64_at, unseal};
use crate::index::Signature;
use crate::rules::board::Board;
use crate::rules::limit::Limited;
use crate::rules::value::{Outcome, Wdl};

/// Which stream of blocks.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Stream {
    Wdl = 0,
    Depth = 1,
}

/// A table file opened read-only through a memory map; decompressed blocks are
/// cached per thread.
pub struct TableFile {
    path: PathBuf,
    map: Mmap,
    header: Header,
    /// Block offsets per stream (blocks + 1 each).
    offsets: [Vec<u64>; 2],
    checksums: [Vec<u64>; 2],
    /// This file's key in the block cache.
    id: u64,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableFile({})", self.path.display())
    }
}

impl TableFile {
    /// Opens and validates a table before anything is allocated from its contents:
    /// a regular file; magic and version; the header and block directory checksum;
    /// the board and signature expected; counts consistent with them (entries within
    /// the signature's placements, the fixed block size, statistics that add up) and
    /// with the file's length; ordered block offsets and the end marker.
    ///
    /// # Errors
    /// `Io` when the file cannot be read, `NotATable`, `Version`, `Size` (truncated or
    /// extended), `Corrupt` (damage anywhere else), `Mismatch` (a sound table of
    /// another board or signature).
    pub fn open(
        path: &Path,
        board: &Board,
        kind: TableKind,
        sig: Signature,
    ) -> Result<TableFile, TableError> {
        // A FIFO would block the open, a directory fails late: only regular files.
        let meta = fs::metadata(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound && path.symlink_metadata().is_ok() {
                TableError::NotAFile {
                    path: path.into(),
                    what: "a symbolic link to nothing",
                }
            } else {
                io_err(path)(e)
            }
        })?;
        if !meta.is_file() {
            return Err(TableError::NotAFile {
                path: path.into(),
                what: "not a regular file",
            });
        }
        let file = crate::files::read::open_regular(path).map_err(io_err(path))?;
        // SAFETY: the file is opened read-only and table files are never modified in
        // place (the writer renames a new file over the name); every read below is
        // bounds-checked against the map's length. Truncating a table in place while
        // it is mapped is outside this contract (see `Tablebase`).
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        let len = map.len() as u64;
        let corrupt = |what: &str| TableError::Corrupt {
            path: path.into(),
            what: what.into(),
        };
        let truncated = |expected: u64| TableError::Size {
            path: path.into(),
            expected,
            found: len,
        };
        if map.len() < 8 || map[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.into() });
        }
        if map.len() < HEADER_LEN {
            return Err(truncated(HEADER_LEN as u64));
        }
        let header = Header::decode(path, &map[..HEADER_LEN])?;
        // The directory's extent, in checked arithmetic: a crafted entry count must
        // not wrap around into a small length.
        let blocks = header.blocks();
        let dir_end = blocks
            .and_then(|n| n.checked_mul(32)?.checked_add(HEADER_LEN as u64 + 16))
            .filter(|&end| end.saturating_add(8 + 16) <= len)
            .ok_or_else(|| corrupt("header counts do not fit the file's length"))?
            as usize;
        let blocks = blocks.expect("checked above") as usize;
        let u64_at = |i: usize| u64_at(&map, i);
        if unseal(&map[..dir_end + 8], b"").is_err() {
            return Err(corrupt("header or block directory checksum mismatch"));
        }
        // The header is as written: a different board or signature is a sound table
        // under the wrong name, not damage.
        let expected = table_name(sig, board.width(), board.height(), kind);
        let found = table_name(
            header.sig,
            header.width.into(),
            header.height.into(),
            header.kind,
        );
        if expected != found {
            return Err(TableError::Mismatch {
                path: path.into(),
                expected,
                found,
            });
        }
        header.check_counts(board).map_err(corrupt)?;
        let mut offsets = [Vec::new(), Vec::new()];
        let mut checksums = [Vec::new(), Vec::new()];
        let mut at = HEADER_LEN;
        for o in offsets.iter_mut() {
            *o = (0..=blocks).map(|i| u64_at(at + 8 * i)).collect();
            at += 8 * (blocks + 1);
        }
        for c in checksums.iter_mut() {
            *c = (0..blocks).map(|i| u64_at(at + 8 * i)).collect();
            at += 8 * blocks;
        }
        let data_end = offsets[1][blocks];
        if data_end.checked_add(16) != Some(len) {
            return Err(truncated(data_end.saturating_add(16)));
        }
        let sorted = offsets[0][0] == (dir_end + 8) as u64
            && offsets[0][blocks] == offsets[1][0]
            && offsets.iter().all(|o| o.windows(2).all(|w| w[0] <= w[1]));
        if !sorted || map[map.len() - 8..] != END_MAGIC {
            return Err(corrupt("block directory or end marker"));
        }
        Ok(TableFile {
            path: path.into(),
            map,
            header,
            offsets,
            checksums,
            id: NEXT_FILE_ID.fetch_add(1, Relaxed),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }

    /// The whole-file checksum stored in the file's trailer (what a proof
    /// certificate records to name the exact table it relied on).
    pub fn file_checksum(&self) -> u64 {
        let n = self.map.len();
        u64_at(&self.map, n - 16)
    }

    /// The whole value stream, decoded: 2 bits per entry, four entries a byte, as
    /// stored (the block size is a multiple of four, so blocks concatenate).
    pub fn read_values(&self) -> Result<Vec<u8>, TableError> {
        let mut out = Vec::with_capacity(self.header.entries.div_ceil(4) as usize);
        for b in 0..self.blocks() {
            let raw = self.decompress(Stream::Wdl, b)?;
            // Code 3 is invalid: a pair of set bits in any entry.
            if raw.iter().any(|&x| x & (x >> 1) & 0x55 != 0) {
                return Err(
                    self.corrupt(format!("block {b} of the value stream: invalid value bits"))
                );
            }
            out.extend_from_slice(&raw);
        }
        Ok(out)
    }

    /// Checks the whole-file checksum and every block checksum.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        if unseal(&self.map, &END_MAGIC).is_err() {
            return Err(self.corrupt("whole-file checksum mismatch".into()));
        }
        for s in [Stream::Wdl, Stream::Depth] {
            for b in 0..self.blocks() {
                self.compressed(s, b)?;
            }
        }
        Ok(())
    }

    fn blocks(&self) -> usize {
        self.checksums[0].len()
    }

    pub(super) fn corrupt(&self, what: String) -> TableError {
        TableError::Corrupt {
            path: self.path.clone(),
            what,
        }
    }

    /// The compressed bytes of a block, checksum verified.
    fn compressed(&self, s: Stream, b: usize) -> Result<&[u8], TableError> {
        let o = &self.offsets[s as usize];
        let bytes = &self.map[o[b] as usize..o[b + 1] as usize];
        if xxh3_64(bytes) != self.checksums[s as usize][b] {
            return Err(self.corrupt(format!("block {b} of the {s:?} stream: checksum mismatch")));
        }
        Ok(bytes)
    }

    fn raw_len(&self, s: Stream, b: usize) -> usize {
        let first = b as u64 * self.header.block_entries as u64;
        let n = (self.header.entries - first).min(self.header.block_entries as u64) as usize;
        match s {
            Stream::Wdl => n.div_ceil(4),
            Stream::Depth => self.depth_width() * n,
        }
    }

    fn decompress(&self, s: Stream, b: usize) -> Result<Vec<u8>, TableError> {
        // One decompression context a thread: making one for each block took more
        // time than decompressing it.
        thread_local! {
            static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let want = self.raw_len(s, b);
        let bytes = self.compressed(s, b)?;
        let raw = CONTEXT
            .with(|c| match &mut *c.borrow_mut() {
                Some(d) => d.decompress(bytes, want),
                slot @ None => slot
                    .insert(zstd::bulk::Decompressor::new()?)
                    .decompress(bytes, want),
            })
            .map_err(|e| self.corrupt(format!("block {b} of the {s:?} stream: {e}")))?;
        if raw.len() != want {
            return Err(self.corrupt(format!("block {b} of the {s:?} stream: wrong length")));
        }
        Ok(raw)
    }

    /// Runs `f` on a decompressed block, from this thread's cache when it is there.
    fn with_block<R>(
        &self,
        s: Stream,
        b: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, TableError> {
        with_cached((self.id, s as usize, b), || self.decompress(s, b), f)
    }

    fn check_index(&self, index: u64) -> Result<(usize, usize), TableError> {
        if index >= self.header.entries {
            return Err(self.corrupt(format!(
                "index {index} beyond {} entries",
                self.header.entries
            )));
        }
        let be = self.header.block_entries as u64;
        Ok(((index / be) as usize, (index % be) as usize))
    }

    /// The value of an entry, reading only the value stream.
    pub fn wdl(&self, index: u64) -> Result<Wdl, TableError> {
        let (b, i) = self.check_index(index)?;
        self.with_block(Stream::Wdl, b, |blk| packed_wdl(blk, i))?
            .ok_or_else(|| self.corrupt(format!("entry {index}: invalid value bits")))
    }

    /// The value and depth of an entry of a plain table.
    pub fn outcome(&self, index: u64) -> Result<Outcome, TableError> {
        self.code(index).map(code_outcome)
    }

    /// The value and T of an entry of a rule-aware table.
    pub fn limited(&self, index: u64) -> Result<Limited, TableError> {
        self.code(index).map(code_limited)
    }

    /// The in-memory code of an entry (value and depth).
    pub(crate) fn code(&self, index: u64) -> Result<u16, TableError> {
        let wdl = self.wdl(index)?;
        let (b, i) = self.check_index(index)?;
        let depth = self.with_block(Stream::Depth, b, |blk| self.depth_at(blk, i))?;
        self.make_code(index, wdl, depth)
    }

    /// Bytes an entry takes in the depth stream: 2 (a depth), or 1 (T, at most 250,
    /// in a rule-aware table).
    fn depth_width(&self) -> usize {
        if self.header.kind.limit().is_some() {
            1
        } else {
            2
        }
    }

    /// Entry `i` of a decompressed depth block.
    fn depth_at(&self, blk: &[u8], i: usize) -> u16 {
        match self.depth_width() {
            1 => blk[i] as u16,
            _ => u16::from_le_bytes([blk[2 * i], blk[2 * i + 1]]),
        }
    }

    fn make_code(&self, index: u64, wdl: Wdl, depth: u16) -> Result<u16, TableError> {
        if let Some(n) = self.header.kind.limit() {
            let t = depth as u32;
            let value = match wdl {
                Wdl::Win if (1..=n.plies()).contains(&t) => Some(Limited::Win(t)),
                Wdl::Loss if t <= n.plies() => Some(Limited::Loss(t)),
                Wdl::Draw if t <= 2 => {
                    Some([Limited::Draw, Limited::CursedWin, Limited::BlessedLoss][t as usize])
                }
                _ => None,
            };
            return value.map(limited_code).ok_or_else(|| {
                self.corrupt(format!(
                    "entry {index}: {depth} plies to a capture does not fit its value"
                ))
            });
        }
        let ok = match wdl {
            Wdl::Draw => depth == 0,
            Wdl::Win => depth % 2 == 1,
            Wdl::Loss => depth.is_multiple_of(2),
        };
        if !ok || depth >= u16::MAX - 1 {
            return Err(self.corrupt(format!(
                "entry {index}: depth {depth} does not fit its value"
            )));
        }
        Ok(if wdl == Wdl::Draw { 0 } else { depth + 1 })
    }

    /// Every entry's code, decoded block by block in parallel.
    pub(crate) fn read_all(&self) -> Result<Vec<u16>, TableError> {
        // Decoded in place, block by block: no second copy of the table.
        let mut codes = vec![0u16; self.header.entries as usize];
        // The generator looks captures up in it at random.
        crate::sys::advise_huge_pages(&codes);
        codes
            .par_chunks_mut(self.header.block_entries as usize)
            // A block a piece: no large piece left to one thread at the end.
            .with_max_len(1)
            .enumerate()
            .try_for_each(|(b, out)| {
                let wdl = self.decompress(Stream::Wdl, b)?;
                let depth = self.decompress(Stream::Depth, b)?;
                let first = b as u64 * self.header.block_entries as u64;
                for (i, code) in out.iter_mut().enumerate() {
                    let w = packed_wdl(&wdl, i).ok_or_else(|| {
                        self.corrupt(format!("entry {}: invalid value bits", first + i as u64))
                    })?;
                    let d = self.depth_at(&depth, i);
                    *code = self.make_code(first + i as u64, w, d)?;
                }
                Ok(())
            })?;
        Ok(codes)
    }
}
