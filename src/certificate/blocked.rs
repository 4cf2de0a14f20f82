//! Certificate file version 3 (docs/PROOF.md, "Certificate file, version 3"): each
//! proof's positions in independent zstd blocks with a directory, and every
//! position of a win with a rank that falls along every move inside the proof, so
//! that a checker reads one block at a time, in bounded memory, on every core, and
//! needs no graph of the whole proof to know that a win ends.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::{
    Certificate, CertificateError, Claim, END_MAGIC, Entry, MAGIC, PayloadFields, parse_payload,
    position_key, put_position, put_u64,
};
use crate::files::bytes::{Reader, u32_at, u64_at};
use crate::rules::position::Position;

/// The blocked format's version number.
pub(crate) const BLOCKED: u32 = 3;
/// Positions a block holds (the last of a proof may hold fewer).
pub(crate) const BLOCK_POSITIONS: usize = 4096;
/// The most positions a reader takes in one block.
pub(super) const MAX_BLOCK_POSITIONS: u32 = 1 << 16;
/// A position in a block takes at most this many bytes: position, rank, move.
const MAX_ENTRY: usize = 17 + 4 + 1 + 255;
/// The largest header a reader takes.
const MAX_HEADER: u32 = 1 << 26;
/// Bytes of one directory record.
const RECORD: usize = 41;
const ZSTD_LEVEL: i32 = 19;

/// One position of a blocked proof: as in an `Entry`, with its rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RankedEntry {
    /// The position and the proving side's move there.
    pub(crate) entry: Entry,
    /// For a win, larger than the rank of every position of the proof a move from
    /// here reaches; 0 in a proof that a side does not lose.
    pub(crate) rank: u32,
}

/// Where a block is and what it starts with.
#[derive(Clone, Debug)]
struct BlockRef {
    offset: u64,
    len: u32,
    positions: u32,
    first: Position,
    checksum: u64,
}

/// A version 3 certificate opened for checking: its header as a `Certificate` whose
/// proofs list no positions, and the blocks of each proof, read on demand.
#[derive(Debug)]
pub(crate) struct Blocked {
    path: PathBuf,
    file: File,
    /// Per proof, its blocks in order.
    blocks: Vec<Vec<BlockRef>>,
    /// Per proof, its number of positions.
    positions: Vec<u64>,
}

/// The ranks of a win proof's positions: 0 for a position whose moves leave the
/// proof, else one more than the largest rank its moves reach inside it (Kahn's
/// algorithm on the reversed graph). `None` if the proof has a cycle.
fn win_ranks(entries: &[Entry], side: crate::rules::position::Color) -> Option<Vec<u32>> {
    let index: HashMap<Position, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.position, i))
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    let mut out = vec![0usize; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        let p = &e.position;
        let next: Vec<Position> = if p.turn() == side {
            let mv = p.parse_move(e.mv.as_deref()?).ok()?;
            vec![p.apply(&mv)]
        } else {
            p.legal_moves().iter().map(|m| p.apply(m)).collect()
        };
        for q in next {
            if let Some(&j) = index.get(&q) {
                preds[j].push(i);
                out[i] += 1;
            }
        }
    }
    let mut rank = vec![0u32; entries.len()];
    let mut ready: Vec<usize> = (0..entries.len()).filter(|&i| out[i] == 0).collect();
    let mut done = 0;
    while let Some(j) = ready.pop() {
        done += 1;
        for &i in &preds[j] {
            rank[i] = rank[i].max(rank[j] + 1);
            out[i] -= 1;
            if out[i] == 0 {
                ready.push(i);
            }
        }
    }
    (done == entries.len()).then_some(rank)
}

impl Certificate {
    /// The bytes of the certificate in version 3, blocks of `block` positions.
    ///
    /// # Errors
    ///
    /// `Unrankable` when a proof of a win has a cycle or a move that does not parse
    /// (it could not be checked either).
    pub fn to_blocked_bytes(&self, block: usize) -> Result<Vec<u8>, CertificateError> {
        let block = block.clamp(1, MAX_BLOCK_POSITIONS as usize);
        let counts: Vec<u32> = self
            .parts
            .iter()
            .map(|p| p.entries.len().div_ceil(block) as u32)
            .collect();
        let mut header = Vec::new();
        self.encode(&mut header, 3, |v, i| {
            v.extend_from_slice(&counts[i].to_le_bytes())
        });
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&BLOCKED.to_le_bytes());
        v.extend_from_slice(&(header.len() as u32).to_le_bytes());
        v.extend_from_slice(&header);
        let mut directory = Vec::new();
        for part in &self.parts {
            let ranks = match part.claim {
                Claim::Win => win_ranks(&part.entries, part.side).ok_or_else(|| {
                    CertificateError::Unrankable {
                        side: part.side.name(),
                    }
                })?,
                Claim::NotLose => vec![0; part.entries.len()],
            };
            for (chunk, ranks) in part.entries.chunks(block).zip(ranks.chunks(block)) {
                let mut raw = Vec::with_capacity(chunk.len() * 24);
                for (e, r) in chunk.iter().zip(ranks) {
                    put_position(&mut raw, &e.position);
                    raw.extend_from_slice(&r.to_le_bytes());
                    let mv = e.mv.as_deref().unwrap_or("");
                    raw.push(mv.len() as u8);
                    raw.extend_from_slice(mv.as_bytes());
                }
                let packed =
                    zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses memory");
                put_u64(&mut directory, v.len() as u64);
                directory.extend_from_slice(&(packed.len() as u32).to_le_bytes());
                directory.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
                put_position(&mut directory, &chunk[0].position);
                put_u64(&mut directory, xxh3_64(&packed));
                v.extend_from_slice(&packed);
            }
        }
        v.extend_from_slice(&directory);
        crate::files::bytes::seal(&mut v, &END_MAGIC);
        Ok(v)
    }

    /// Writes the certificate in version 3 (blocks of `BLOCK_POSITIONS`), through a
    /// temporary name, fsynced and renamed. Returns its size.
    ///
    /// # Errors
    ///
    /// Those of `to_blocked_bytes`, and the file's.
    pub fn write_blocked(&self, path: &Path) -> Result<u64, CertificateError> {
        let bytes = self.to_blocked_bytes(BLOCK_POSITIONS)?;
        crate::files::durable::replace_file(path, |f| f.write_all(&bytes))
            .map_err(CertificateError::io(path))?;
        Ok(bytes.len() as u64)
    }
}

impl Blocked {
    /// Opens a version 3 certificate: checks the whole file's checksum in one
    /// streaming pass, then reads the header and the directory and checks that the
    /// blocks tile the file. Returns the header as a certificate without positions,
    /// the whole-file checksum, and the file opened for its blocks.
    ///
    /// # Errors
    ///
    /// `Io`; `NotACertificate`, `Version`; `Damaged` for a wrong checksum, header
    /// or directory.
    pub(crate) fn open(path: &Path) -> Result<(Certificate, u64, Blocked), CertificateError> {
        let io = CertificateError::io(path);
        let damaged = |what: &str| CertificateError::damaged(path, what);
        let file = crate::files::read::open_regular(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let len = meta.len();
        if len < 8 + 4 + 4 + 16 {
            return Err(damaged("truncated"));
        }
        let mut head = [0u8; 16];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        if head[..8] != MAGIC {
            return Err(CertificateError::NotACertificate { path: path.into() });
        }
        if u32_at(&head, 8) != BLOCKED {
            return Err(CertificateError::Version {
                path: path.into(),
                found: u32_at(&head, 8),
            });
        }
        // The seal, read through once: memory stays one buffer whatever the size.
        let body = len - 16;
        let mut hash = Xxh3::new();
        let mut reader = (&file).take(body);
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = reader.read(&mut buf).map_err(io)?;
            if n == 0 {
                break;
            }
            hash.update(&buf[..n]);
        }
        let mut tail = [0u8; 16];
        file.read_exact_at(&mut tail, body).map_err(io)?;
        if tail[8..] != END_MAGIC {
            return Err(damaged("end marker"));
        }
        let checksum = u64_at(&tail, 0);
        if hash.digest() != checksum {
            return Err(damaged("checksum mismatch"));
        }
        let header_len = u32_at(&head, 12);
        if header_len > MAX_HEADER || 16 + header_len as u64 > body {
            return Err(damaged("header length"));
        }
        let mut header = vec![0u8; header_len as usize];
        file.read_exact_at(&mut header, 16).map_err(io)?;
        let mut shape = Vec::new();
        let cert = parse_payload(&mut Reader::new(&header), BLOCKED, &mut shape)
            .map_err(|w| damaged(&w))?;
        let records: u64 = shape.iter().map(|&(_, b)| b as u64).sum();
        let dir_start = body
            .checked_sub(records * RECORD as u64)
            .filter(|&d| d >= 16 + header_len as u64)
            .ok_or_else(|| damaged("directory larger than the file"))?;
        let mut dir = vec![0u8; (body - dir_start) as usize];
        file.read_exact_at(&mut dir, dir_start).map_err(io)?;
        let board = cert.root.board();
        let mut r = Reader::new(&dir);
        let mut at = 16 + header_len as u64;
        let mut blocks = Vec::new();
        for &(n, b) in &shape {
            let mut refs: Vec<BlockRef> = Vec::with_capacity(b as usize);
            let mut count = 0u64;
            for _ in 0..b {
                let field = |_| damaged("directory");
                let block = BlockRef {
                    offset: r.u64().map_err(field)?,
                    len: r.u32().map_err(field)?,
                    positions: r.u32().map_err(field)?,
                    first: r.position(board).map_err(|w| damaged(&w))?,
                    checksum: r.u64().map_err(field)?,
                };
                if block.offset != at || block.len == 0 {
                    return Err(damaged("blocks that do not follow one another"));
                }
                if block.positions == 0 || block.positions > MAX_BLOCK_POSITIONS {
                    return Err(damaged("a block of no or too many positions"));
                }
                if refs
                    .last()
                    .is_some_and(|l| position_key(&l.first) >= position_key(&block.first))
                {
                    return Err(damaged("blocks out of order"));
                }
                at += block.len as u64;
                count += block.positions as u64;
                refs.push(block);
            }
            if count != n {
                return Err(damaged("a proof's blocks hold another number of positions"));
            }
            blocks.push(refs);
        }
        if at != dir_start {
            return Err(damaged("bytes between the blocks and the directory"));
        }
        let positions = shape.iter().map(|&(n, _)| n).collect();
        Ok((
            cert,
            checksum,
            Blocked {
                path: path.into(),
                file,
                blocks,
                positions,
            },
        ))
    }

    /// Blocks of proof `part`.
    pub(crate) fn blocks(&self, part: usize) -> usize {
        self.blocks[part].len()
    }

    /// Positions of proof `part`.
    pub(crate) fn positions(&self, part: usize) -> u64 {
        self.positions[part]
    }

    /// The block of proof `part` that would hold `pos`, if any could.
    pub(crate) fn block_of(&self, part: usize, pos: &Position) -> Option<usize> {
        let key = position_key(pos);
        let refs = &self.blocks[part];
        refs.partition_point(|b| position_key(&b.first) <= key)
            .checked_sub(1)
    }

    /// Reads block `b` of proof `part`: its checksum, its positions in strictly
    /// increasing order from the directory's first one and below the next block's.
    ///
    /// # Errors
    ///
    /// `Io`, or `Damaged` naming the block.
    pub(crate) fn block(
        &self,
        part: usize,
        b: usize,
    ) -> Result<Vec<RankedEntry>, CertificateError> {
        let refs = &self.blocks[part];
        let at = &refs[b];
        let damaged = |what: &str| {
            CertificateError::damaged(&self.path, &format!("proof {} block {b}: {what}", part + 1))
        };
        let mut packed = vec![0u8; at.len as usize];
        self.file
            .read_exact_at(&mut packed, at.offset)
            .map_err(CertificateError::io(&self.path))?;
        if xxh3_64(&packed) != at.checksum {
            return Err(damaged("checksum mismatch"));
        }
        // No more than the positions can take, nor than zstd makes of the block at
        // an honest ratio: memory follows the file's size, not a count it claims.
        let most = (at.positions as usize * MAX_ENTRY).min(64 * at.len as usize + 4096);
        let mut raw = Vec::new();
        zstd::stream::Decoder::new(&packed[..])
            .and_then(|d| d.take(most as u64 + 1).read_to_end(&mut raw))
            .map_err(|e| damaged(&e.to_string()))?;
        let board = at.first.board();
        let mut r = Reader::new(&raw);
        let mut out: Vec<RankedEntry> = Vec::with_capacity(at.positions as usize);
        for _ in 0..at.positions {
            let position = r.position(board).map_err(|w| damaged(&w))?;
            let rank = r.u32().map_err(|_| damaged("ends early"))?;
            let len = r.u8().map_err(|_| damaged("ends early"))? as usize;
            let mv = match len {
                0 => None,
                _ => Some(
                    std::str::from_utf8(r.take(len).map_err(|_| damaged("ends early"))?)
                        .map_err(|_| damaged("a move that is not text"))?
                        .to_string(),
                ),
            };
            let key = position_key(&position);
            let in_order = match out.last() {
                Some(l) => position_key(&l.entry.position) < key,
                None => position == at.first,
            };
            if !in_order {
                return Err(damaged(&format!(
                    "{position}: out of order, or listed twice"
                )));
            }
            out.push(RankedEntry {
                entry: Entry { position, mv },
                rank,
            });
        }
        if r.remaining() != 0 {
            return Err(damaged("bytes after its last position"));
        }
        if let Some(next) = refs.get(b + 1)
            && position_key(&out[out.len() - 1].entry.position) >= position_key(&next.first)
        {
            return Err(damaged("reaches into the next block"));
        }
        Ok(out)
    }

    /// The whole certificate in memory, positions without their ranks (a small
    /// version 3 file, such as a lemma, read like the others).
    pub(crate) fn into_certificate(
        self,
        mut cert: Certificate,
    ) -> Result<Certificate, CertificateError> {
        for (i, part) in cert.parts.iter_mut().enumerate() {
            for b in 0..self.blocks(i) {
                part.entries
                    .extend(self.block(i, b)?.into_iter().map(|e| e.entry));
            }
        }
        Ok(cert)
    }
}

/// Decoded blocks of a blocked proof, shared by the checking threads, taking at
/// most about `budget` bytes (the oldest dropped first; at least one is held).
#[derive(Debug)]
pub(crate) struct BlockCache<'a> {
    blocked: &'a Blocked,
    part: usize,
    budget: usize,
    held: Mutex<Held>,
}

/// The blocks a cache holds, in the order they came, and their bytes.
#[derive(Debug, Default)]
struct Held {
    blocks: HashMap<usize, Arc<Vec<RankedEntry>>>,
    order: VecDeque<(usize, usize)>,
    bytes: usize,
}

/// The memory a decoded block takes, about.
fn footprint(block: &[RankedEntry]) -> usize {
    block
        .iter()
        .map(|e| std::mem::size_of::<RankedEntry>() + e.entry.mv.as_ref().map_or(0, String::len))
        .sum()
}

impl<'a> BlockCache<'a> {
    pub(crate) fn new(blocked: &'a Blocked, part: usize, budget: usize) -> BlockCache<'a> {
        BlockCache {
            blocked,
            part,
            budget,
            held: Mutex::new(Held::default()),
        }
    }

    /// Block `b`, read if it is not held.
    pub(crate) fn get(&self, b: usize) -> Result<Arc<Vec<RankedEntry>>, CertificateError> {
        if let Some(block) = self.held.lock().expect("not poisoned").blocks.get(&b) {
            return Ok(Arc::clone(block));
        }
        let block = Arc::new(self.blocked.block(self.part, b)?);
        let size = footprint(&block);
        let mut held = self.held.lock().expect("not poisoned");
        if held.blocks.insert(b, Arc::clone(&block)).is_none() {
            held.order.push_back((b, size));
            held.bytes += size;
        }
        while held.bytes > self.budget && held.order.len() > 1 {
            let (old, size) = held.order.pop_front().expect("more than one held");
            held.blocks.remove(&old);
            held.bytes -= size;
        }
        Ok(block)
    }

    /// The rank of `pos` if it is in the proof.
    pub(crate) fn rank(&self, pos: &Position) -> Result<Option<u32>, CertificateError> {
        let Some(b) = self.blocked.block_of(self.part, pos) else {
            return Ok(None);
        };
        let block = self.get(b)?;
        let key = position_key(pos);
        Ok(block
            .binary_search_by_key(&key, |e| position_key(&e.entry.position))
            .ok()
            .map(|i| block[i].rank))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::Proves;
    use crate::rules::board::Board;
    use crate::rules::position::Color;
    use crate::rules::value::Wdl;

    /// A made-up proof over no tables (its moves are not moves): enough to exercise
    /// the format, which checks no rules.
    fn sample() -> Certificate {
        let board = Board::get(5, 3).unwrap();
        let root: Position = "B1B1B/5/W1W1W w".parse().unwrap();
        assert_eq!(root.board(), board);
        let mut entries: Vec<Entry> = std::iter::once(root)
            .chain(root.successors())
            .map(|p| Entry {
                position: p,
                mv: (p.turn() == Color::White).then(|| "x".to_string()),
            })
            .collect();
        entries.sort_by_key(|e| position_key(&e.position));
        Certificate {
            root,
            proves: Proves::Lemma(Color::White, Claim::NotLose),
            max_table_stones: 2,
            tables: vec![],
            parts: vec![super::super::Part {
                side: Color::White,
                claim: Claim::NotLose,
                entries,
            }],
            lemmas: vec![],
        }
    }

    fn write(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.fnproof");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn blocks_read_back_in_order_and_tile_the_file() {
        let cert = sample();
        let n = cert.parts[0].entries.len();
        assert!(n > 3, "{n}");
        let bytes = cert.to_blocked_bytes(2).unwrap();
        let (_dir, path) = write(&bytes);
        let (head, sum, blocked) = Blocked::open(&path).unwrap();
        assert_eq!(sum, u64_at(&bytes, bytes.len() - 16));
        assert_eq!(blocked.blocks(0), n.div_ceil(2));
        assert_eq!(blocked.positions(0), n as u64);
        assert!(head.parts[0].entries.is_empty());
        assert_eq!(blocked.into_certificate(head).unwrap(), cert);
        // Every position is found in its block, and nothing else is.
        let (_, _, blocked) = Blocked::open(&path).unwrap();
        let cache = BlockCache::new(&blocked, 0, 0);
        for e in &cert.parts[0].entries {
            assert_eq!(cache.rank(&e.position).unwrap(), Some(0));
        }
        let outside: Position = "B3B/5/W1W1W w".parse().unwrap();
        assert_eq!(cache.rank(&outside).unwrap(), None);
        // Read like any certificate.
        assert_eq!(Certificate::read(&path).unwrap(), cert);
    }

    #[test]
    fn damage_is_refused() {
        let cert = sample();
        let bytes = cert.to_blocked_bytes(2).unwrap();
        // A byte of a block changed, the seal recomputed: the block's own checksum
        // still catches it when the block is read.
        let mut flipped = bytes.clone();
        let header_len = u32_at(&bytes, 12) as usize;
        flipped[16 + header_len + 3] ^= 1;
        let body = flipped.len() - 16;
        let sum = xxh3_64(&flipped[..body]);
        flipped[body..body + 8].copy_from_slice(&sum.to_le_bytes());
        let (_d, path) = write(&flipped);
        let (_, _, blocked) = Blocked::open(&path).unwrap();
        let err = blocked.block(0, 0).unwrap_err().to_string();
        assert!(err.contains("block 0: checksum mismatch"), "{err}");
        // Without the seal recomputed, opening fails.
        let mut bad = bytes.clone();
        bad[16 + header_len + 3] ^= 1;
        let (_d, path) = write(&bad);
        let err = Blocked::open(&path).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch"), "{err}");
        // Truncated anywhere: refused, no panic.
        for cut in (0..bytes.len()).step_by(7) {
            let (_d, path) = write(&bytes[..cut]);
            assert!(Blocked::open(&path).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_win_with_a_cycle_has_no_ranks() {
        let mut cert = sample();
        cert.proves = Proves::Value(Wdl::Win);
        cert.parts[0].claim = Claim::Win;
        // "x" does not parse: a win it is part of cannot be ranked.
        let err = cert.to_blocked_bytes(4).unwrap_err().to_string();
        assert!(err.contains("cannot be ranked"), "{err}");
    }
}
