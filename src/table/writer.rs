//! The table writer: codes compressed into blocks of the two streams, written
//! atomically with the block directory and the checksums.

use std::fs;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::codes::{Codes, depth_bytes, pack_wdl};
use super::header::{BLOCK_ENTRIES, END_MAGIC, HEADER_LEN, Header, Stats};
use super::{TableError, TableKind, io_err};
use crate::files::bytes::{Hashing, seal};
use crate::index::Signature;
use crate::rules::board::Board;
use crate::rules::limit::Limit;

const ZSTD_LEVEL: i32 = 9;

thread_local! {
    /// Each thread's compression context, made once: a fresh one for every block
    /// costs its allocation and the clearing of its tables (3% more instructions
    /// than compressing on one context, the same bytes: `bulk::compress` compresses
    /// on a context of its own the same way).
    static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Blocks compressed at a time while writing: enough to keep every core busy, few
/// enough that the compressed bytes held stay small (at most 64 times 64 KiB).
const BATCH_BLOCKS: usize = 64;

/// Writes a complete table atomically: a temporary file, fsync, then rename, so a
/// file with the final name is always complete. Returns the file size and its
/// whole-file checksum. The blocks are compressed and written a batch at a time.
pub(crate) fn write_table(
    path: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    codes: &(impl Codes + ?Sized),
    stats: Stats,
) -> Result<(u64, u64), TableError> {
    let limit = kind.limit();
    let entries = codes.len() as u64;
    write_blocks(path, board, sig, kind, entries, stats, |stream, b| {
        compress_block(codes, limit, stream, b)
    })
}

/// Block `b` of stream `stream` (0 values, 1 depths), compressed.
fn compress_block(
    codes: &(impl Codes + ?Sized),
    limit: Option<Limit>,
    stream: usize,
    b: usize,
) -> Vec<u8> {
    let per = BLOCK_ENTRIES as usize;
    let mut block = Vec::with_capacity(per);
    codes.codes_into(b * per..((b + 1) * per).min(codes.len()), &mut block);
    let raw = match stream {
        0 => pack_wdl(&block),
        _ => depth_bytes(&block, limit),
    };
    let mut block = CONTEXT.with_borrow_mut(|context| {
        let compressor = context.get_or_insert_with(|| {
            zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd makes a context")
        });
        compressor
            .compress(&raw)
            .expect("zstd compresses in memory")
    });
    // The buffer comes with room for the worst case, about the raw size; blocks
    // are held a while, so keep only what it uses.
    block.shrink_to_fit();
    block
}

/// The compressed blocks of consecutive entries, value stream then depth stream:
/// whole blocks from a block boundary (the last one of a table may be short).
#[cfg(feature = "mpi")]
pub(crate) fn compress_blocks(
    codes: &(impl Codes + ?Sized),
    limit: Option<Limit>,
) -> [Vec<Vec<u8>>; 2] {
    let blocks = codes.len().div_ceil(BLOCK_ENTRIES as usize);
    [0, 1].map(|stream| {
        (0..blocks)
            .into_par_iter()
            .map(|b| compress_block(codes, limit, stream, b))
            .collect()
    })
}

/// Writes a table of `entries` entries whose block `b` of stream `s` is
/// `block(s, b)`, compressed, a batch at a time: the block directory is written
/// last, at its place, and the whole-file checksum, which covers it, is read back.
pub(crate) fn write_blocks(
    path: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    entries: u64,
    stats: Stats,
    block: impl Fn(usize, usize) -> Vec<u8> + Sync,
) -> Result<(u64, u64), TableError> {
    let header = Header {
        kind,
        width: board.width() as u8,
        height: board.height() as u8,
        sig,
        entries,
        block_entries: BLOCK_ENTRIES,
        stats,
    };
    let blocks = entries.div_ceil(BLOCK_ENTRIES as u64) as usize;
    let dir_len = 2 * (blocks + 1) * 8 + 2 * blocks * 8 + 8;
    let head_len = HEADER_LEN + dir_len;

    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let (mut checksum, mut end) = (0, 0);
    crate::files::durable::replace_file(path, |file| {
        let mut out = BufWriter::with_capacity(1 << 20, &mut *file);
        out.write_all(&vec![0; head_len])?;
        let mut offsets = Vec::with_capacity(2 * (blocks + 1));
        let mut sums = Vec::with_capacity(2 * blocks);
        let mut offset = head_len as u64;
        for stream in 0..2 {
            for batch in (0..blocks).step_by(BATCH_BLOCKS) {
                let done: Vec<Vec<u8>> = (batch..(batch + BATCH_BLOCKS).min(blocks))
                    .into_par_iter()
                    // A block a piece: rayon would cut the batch into four, and
                    // a thread done early would wait for another's last quarter.
                    .with_max_len(1)
                    .map(|b| block(stream, b))
                    .collect();
                let from = offset;
                for b in &done {
                    offsets.push(offset);
                    offset += b.len() as u64;
                    sums.push(xxh3_64(b));
                    out.write_all(b)?;
                }
                // On its way to the disk while the next batch compresses: the
                // sync at the end then waits for little.
                out.flush()?;
                crate::sys::start_writeback(out.get_ref(), from, offset - from);
            }
            offsets.push(offset);
        }
        out.flush()?;
        drop(out);
        let mut head = Vec::with_capacity(head_len);
        head.extend_from_slice(&header.encode());
        for x in offsets.iter().chain(&sums) {
            head.extend_from_slice(&x.to_le_bytes());
        }
        seal(&mut head, b"");
        debug_assert_eq!(head.len(), head_len);
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&head)?;
        // The whole-file checksum covers the directory, known only now.
        file.seek(SeekFrom::Start(0))?;
        let mut sum = Hashing::new(std::io::sink());
        std::io::copy(
            &mut BufReader::with_capacity(1 << 20, &mut *file).take(offset),
            &mut sum,
        )?;
        checksum = sum.digest();
        file.seek(SeekFrom::Start(offset))?;
        let mut out = BufWriter::new(&mut *file);
        out.write_all(&checksum.to_le_bytes())?;
        out.write_all(&END_MAGIC)?;
        out.flush()?;
        end = offset + 16;
        Ok(())
    })
    .map_err(io_err(path))?;
    Ok((end, checksum))
}
