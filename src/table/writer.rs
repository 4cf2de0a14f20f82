//! The table writer: codes compressed into blocks of the two streams, written
//! atomically with the block directory and the checksums.

use std::fs;
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::codes::{depth_bytes, pack_wdl};
use super::header::{BLOCK_ENTRIES, END_MAGIC, HEADER_LEN, Header, Stats};
use super::{TableError, TableKind, io_err};
use crate::board::Board;
use crate::bytes::{Hashing, seal};
use crate::index::Signature;
use crate::limit::Limit;

const ZSTD_LEVEL: i32 = 9;

/// Writes a complete table atomically: a temporary file, fsync, then rename, so a
/// file with the final name is always complete. Returns the file size and its
/// whole-file checksum.
pub(crate) fn write_table(
    path: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    codes: &[u16],
    stats: Stats,
) -> Result<(u64, u64), TableError> {
    let streams = compress_blocks(codes, kind.limit());
    write_blocks(path, board, sig, kind, codes.len() as u64, stats, &streams)
}

/// The compressed blocks of consecutive entries, value stream then depth stream:
/// whole blocks from a block boundary (the last one of a table may be short).
pub(crate) fn compress_blocks(codes: &[u16], limit: Option<Limit>) -> [Vec<Vec<u8>>; 2] {
    let compress = |raw: Vec<u8>| {
        let mut block = zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses in memory");
        // The buffer comes with room for the worst case, about the raw size; every
        // block is held until the file is written, so keep only what it uses.
        block.shrink_to_fit();
        block
    };
    let chunks: Vec<&[u16]> = codes.chunks(BLOCK_ENTRIES as usize).collect();
    [
        chunks.par_iter().map(|c| compress(pack_wdl(c))).collect(),
        chunks
            .par_iter()
            .map(|c| compress(depth_bytes(c, limit)))
            .collect(),
    ]
}

/// Writes a table of `entries` entries from its compressed blocks (as
/// `write_table`).
pub(crate) fn write_blocks(
    path: &Path,
    board: &Board,
    sig: Signature,
    kind: TableKind,
    entries: u64,
    stats: Stats,
    streams: &[Vec<Vec<u8>>; 2],
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
    let blocks = streams[0].len();
    let mut head = Vec::with_capacity(HEADER_LEN + 4 * (blocks + 1) * 8);
    head.extend_from_slice(&header.encode());
    let dir_len = 2 * (blocks + 1) * 8 + 2 * blocks * 8 + 8;
    let mut offset = (HEADER_LEN + dir_len) as u64;
    for stream in streams {
        for block in stream {
            head.extend_from_slice(&offset.to_le_bytes());
            offset += block.len() as u64;
        }
        head.extend_from_slice(&offset.to_le_bytes());
    }
    for stream in streams {
        for block in stream {
            head.extend_from_slice(&xxh3_64(block).to_le_bytes());
        }
    }
    seal(&mut head, b"");

    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let mut checksum = 0;
    crate::durable::replace_file(path, |file| {
        // Streamed through a hasher: the compressed blocks are not copied into one
        // buffer.
        let mut out = Hashing::new(std::io::BufWriter::with_capacity(1 << 20, file));
        for piece in std::iter::once(&head[..]).chain(streams.iter().flatten().map(Vec::as_slice)) {
            out.write_all(piece)?;
        }
        checksum = out.digest();
        let mut out = out.seal()?;
        out.write_all(&END_MAGIC)?;
        out.flush()
    })
    .map_err(io_err(path))?;
    Ok((offset + 16, checksum))
}
