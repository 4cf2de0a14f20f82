//! Checkpoints of a signature pair in the middle of its build, so that an
//! interrupted `generate` resumes inside the pair instead of starting it again.
//!
//! A checkpoint is taken at a depth-level boundary: every entry's working code and
//! every chunk's depth marks, with the next level to process. Propagation from a
//! level boundary is deterministic, so a resumed build writes byte-identical tables.
//!
//! File `DIR/WxH/NvM.pair.ckpt` (N <= M, the pair's smaller-first member; in
//! the kind's subdirectory, `nN/` or `vela/`, for other tables), written
//! whole or not at all: magic `FNPAIR2\n`; the generator revision (u32); width,
//! height, N, M (one byte each); the next level and the largest stage-1 code (u16
//! each); the number of sides; per side its entry count (u64); the smaller tables'
//! whole-file checksums (count u64, then signature bytes and u64 each); the kind
//! (u8: 0 plain, N for the no-capture limit N, 255 vela); the state bytes of every
//! side (one an entry, in frames); per side, 0, or 1 followed by its deep bytes (one
//! an entry, in frames); the marks of every side (u64 each); the xxh3 of everything
//! before it (u64). Little-endian. Bytes in frames are cut into runs of `FRAME`
//! (the last one shorter), each stored as its compressed length (u64) and a zstd
//! frame. Why compressed: docs/FORMAT.md.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::files::bytes::{Hashing, Reader, u64_at};
use crate::files::durable::Unsynced;
use crate::index::Signature;
use crate::rules::board::Board;
use crate::table::{TableKind, tables_dir};

const MAGIC: &[u8; 8] = b"FNPAIR2\n";
/// Bumped whenever the generator's working codes or marks change meaning, so that a
/// checkpoint of an older generator is not resumed by a newer one.
const GENERATOR_REVISION: u32 = 4;

/// Where a pair's checkpoint lives.
pub(crate) fn path(dir: &Path, board: &Board, kind: TableKind, key: Signature) -> PathBuf {
    tables_dir(dir, board, kind).join(format!("{key}.pair.ckpt"))
}

/// Removes a pair's checkpoint, if there is one. Best effort: the tables are
/// complete, and a checkpoint left behind is removed the next time.
pub(crate) fn remove(dir: &Path, board: &Board, kind: TableKind, key: Signature) {
    let _ = std::fs::remove_file(path(dir, board, kind, key));
}

/// What identifies the build a checkpoint belongs to.
pub(crate) struct Identity<'a> {
    pub(crate) board: &'a Board,
    pub(crate) key: Signature,
    /// The kind of tables built.
    pub(crate) kind: TableKind,
    /// The smaller tables the pair's captures read, with their file checksums.
    pub(crate) deps: &'a [(Signature, u64)],
}

/// Where propagation resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Resume {
    /// The next depth level to process.
    pub(crate) level: u16,
    /// The largest code stage 1 decided.
    pub(crate) max_init: u16,
}

fn prologue(id: &Identity, at: Resume, sizes: &[u64]) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&GENERATOR_REVISION.to_le_bytes());
    h.extend_from_slice(&[
        id.board.width() as u8,
        id.board.height() as u8,
        id.key.us,
        id.key.them,
    ]);
    h.extend_from_slice(&at.level.to_le_bytes());
    h.extend_from_slice(&at.max_init.to_le_bytes());
    h.extend_from_slice(&(sizes.len() as u64).to_le_bytes());
    for s in sizes {
        h.extend_from_slice(&s.to_le_bytes());
    }
    h.extend_from_slice(&(id.deps.len() as u64).to_le_bytes());
    for (sig, sum) in id.deps {
        h.extend_from_slice(&[sig.us, sig.them]);
        h.extend_from_slice(&sum.to_le_bytes());
    }
    // A plain build's byte is 0 and a limit's its plies, as before vela tables.
    h.push(match id.kind {
        TableKind::Vela => u8::MAX,
        k => k.limit().map_or(0, |n| n.plies() as u8),
    });
    h
}

/// Copies between the atomic arrays and the file this many values at a time.
const SPAN: usize = 1 << 16;

/// Saves the pair's state at a level boundary (no thread is writing it) under the
/// checkpoint's temporary name: `commit` on the result makes it durable and puts it
/// in place, the disk's part, which the caller may leave to another thread.
pub(crate) fn save(
    path: &Path,
    id: &Identity,
    at: Resume,
    states: &[Vec<AtomicU8>],
    high: &[OnceLock<Vec<AtomicU8>>],
    marks: &[Vec<AtomicU64>],
) -> std::io::Result<Unsynced> {
    let sizes: Vec<u64> = states.iter().map(|s| s.len() as u64).collect();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::files::durable::write_unsynced(path, |file| {
        let mut w = Hashing::new(BufWriter::with_capacity(1 << 20, file));
        w.write_all(&prologue(id, at, &sizes))?;
        for side in states {
            write_frames(&mut w, side)?;
        }
        for side in high {
            w.write_all(&[side.get().is_some() as u8])?;
            if let Some(h) = side.get() {
                write_frames(&mut w, h)?;
            }
        }
        let mut buf = Vec::with_capacity(SPAN * 8);
        for side in marks {
            for span in side.chunks(SPAN) {
                buf.clear();
                buf.extend(span.iter().flat_map(|c| c.load(Relaxed).to_le_bytes()));
                w.write_all(&buf)?;
            }
        }
        w.seal()?.flush()
    })
}

/// Bytes per frame of a byte array.
const FRAME: usize = 1 << 20;

/// Frames compressed at a time: what a save holds beyond the state stays within
/// `BATCH` frames and their compressed forms, whatever the threads.
const BATCH: usize = 8;

/// Writes `bytes` in frames, compressed `BATCH` at a time on the current thread pool.
fn write_frames(w: &mut impl Write, bytes: &[AtomicU8]) -> std::io::Result<()> {
    for batch in bytes.chunks(FRAME * BATCH) {
        let done = batch
            .par_chunks(FRAME)
            .with_max_len(1)
            .map(|frame| {
                let raw: Vec<u8> = frame.iter().map(|c| c.load(Relaxed)).collect();
                zstd::bulk::compress(&raw, 1)
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        for frame in done {
            w.write_all(&(frame.len() as u64).to_le_bytes())?;
            w.write_all(&frame)?;
        }
    }
    Ok(())
}

/// Reads the frames of `into` (written by `write_frames`), storing what differs:
/// zeros are not stored, since the deep bytes start zeroed and their pages take
/// memory only where written. `None` on a frame that is too long, not zstd, or not
/// of its run's length.
fn read_frames(
    read: &mut dyn FnMut(&mut [u8]) -> Option<()>,
    into: &[AtomicU8],
    packed: &mut Vec<u8>,
) -> Option<()> {
    let mut unpacker = zstd::bulk::Decompressor::new().ok()?;
    for run in into.chunks(FRAME) {
        let mut len = [0u8; 8];
        read(&mut len)?;
        let len = usize::try_from(u64::from_le_bytes(len)).ok()?;
        if len > zstd::zstd_safe::compress_bound(FRAME) {
            return None;
        }
        packed.resize(len, 0);
        read(packed)?;
        let raw = unpacker.decompress(packed, run.len()).ok()?;
        if raw.len() != run.len() {
            return None;
        }
        for (c, &b) in run.iter().zip(&raw) {
            if b != 0 || c.load(Relaxed) != 0 {
                c.store(b, Relaxed);
            }
        }
    }
    Some(())
}

/// Loads a checkpoint of this very build into `states` and `marks` (already sized
/// for the pair). `None` when there is none, or it belongs to another build, or it
/// is damaged: the caller then starts the pair afresh (and may have to, since the
/// arrays are then in an unspecified state).
pub(crate) fn load(
    path: &Path,
    id: &Identity,
    states: &[Vec<AtomicU8>],
    high: &[OnceLock<Vec<AtomicU8>>],
    marks: &[Vec<AtomicU64>],
) -> Option<Resume> {
    let file = crate::files::read::open_regular(path).ok()?;
    let mut r = Hashing::new(BufReader::with_capacity(1 << 20, file));
    let mut read = |buf: &mut [u8]| r.read_exact(buf).ok();
    let sizes: Vec<u64> = states.iter().map(|s| s.len() as u64).collect();
    // The prologue this build would write, whatever the level: compare all but the
    // two level fields.
    let want = prologue(
        id,
        Resume {
            level: 0,
            max_init: 0,
        },
        &sizes,
    );
    let mut got = vec![0u8; want.len()];
    read(&mut got)?;
    if got[..16] != want[..16] || got[20..] != want[20..] {
        return None;
    }
    let mut fields = Reader::new(&got[16..20]);
    let at = Resume {
        level: fields.u16().ok()?,
        max_init: fields.u16().ok()?,
    };
    let mut packed = Vec::new();
    for side in states {
        read_frames(&mut read, side, &mut packed)?;
    }
    for (side, h) in states.iter().zip(high) {
        let mut flag = [0u8];
        read(&mut flag)?;
        match flag[0] {
            0 => {}
            1 => {
                let into = h.get_or_init(|| super::pair::zeroed_bytes(side.len()));
                read_frames(&mut read, into, &mut packed)?;
            }
            _ => return None,
        }
    }
    let mut buf = vec![0u8; SPAN * 8];
    for side in marks {
        for span in side.chunks(SPAN) {
            let bytes = &mut buf[..span.len() * 8];
            read(bytes)?;
            for (c, b) in span.iter().zip(bytes.chunks_exact(8)) {
                c.store(u64_at(b, 0), Relaxed);
            }
        }
    }
    r.check_seal().then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Arrays = (
        Vec<Vec<AtomicU8>>,
        Vec<OnceLock<Vec<AtomicU8>>>,
        Vec<Vec<AtomicU64>>,
    );

    /// Two sides of `n` entries; the first with deep bytes when `deep`.
    fn arrays(n: usize, seed: u8, deep: bool) -> Arrays {
        let bytes = |s: usize, k: usize| -> Vec<AtomicU8> {
            (0..n)
                .map(|i| AtomicU8::new(seed ^ (i * k + s) as u8))
                .collect()
        };
        let states = (0..2).map(|s| bytes(s, 7)).collect();
        let high = (0..2)
            .map(|s| {
                let h = OnceLock::new();
                if deep && s == 0 {
                    h.set(bytes(s, 3)).unwrap();
                }
                h
            })
            .collect();
        let marks = (0..2)
            .map(|s| {
                (0..3)
                    .map(|i| AtomicU64::new((seed as u64) << i | s))
                    .collect()
            })
            .collect();
        (states, high, marks)
    }

    type Values = (Vec<u8>, Vec<Option<Vec<u8>>>, Vec<u64>);

    fn values(a: &Arrays) -> Values {
        let load = |v: &Vec<AtomicU8>| v.iter().map(|c| c.load(Relaxed)).collect::<Vec<_>>();
        (
            a.0.iter().flat_map(load).collect(),
            a.1.iter().map(|h| h.get().map(load)).collect(),
            a.2.iter().flatten().map(|c| c.load(Relaxed)).collect(),
        )
    }

    #[test]
    fn saved_state_loads_back_only_into_the_same_build_and_only_undamaged() {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::tsivy();
        let deps = [(Signature::new(1, 2), 77)];
        let id = Identity {
            board,
            key: Signature::new(2, 3),
            kind: TableKind::Plain,
            deps: &deps,
        };
        let path = path(dir.path(), board, TableKind::Plain, id.key);
        // More than a frame a side: two frames each.
        let n = FRAME + 100_000;
        let saved = arrays(n, 0x5a, true);
        let at = Resume {
            level: 17,
            max_init: 3,
        };
        save(&path, &id, at, &saved.0, &saved.1, &saved.2)
            .and_then(Unsynced::commit)
            .unwrap();
        let load_into = |into: &Arrays, id: &Identity| load(&path, id, &into.0, &into.1, &into.2);

        let into = arrays(n, 0, false);
        assert_eq!(load_into(&into, &id), Some(at));
        assert_eq!(values(&into), values(&saved));
        // Without deep bytes: none come back.
        let plain = arrays(n, 0x33, false);
        save(&path, &id, at, &plain.0, &plain.1, &plain.2)
            .and_then(Unsynced::commit)
            .unwrap();
        let into = arrays(n, 0, false);
        assert_eq!(load_into(&into, &id), Some(at));
        assert_eq!(values(&into), values(&plain));
        assert!(into.1.iter().all(|h| h.get().is_none()));
        save(&path, &id, at, &saved.0, &saved.1, &saved.2)
            .and_then(Unsynced::commit)
            .unwrap();
        // Another build: other smaller tables, or other sizes.
        let other = [(Signature::new(1, 2), 78)];
        let id2 = Identity { deps: &other, ..id };
        assert_eq!(load_into(&into, &id2), None);
        let id3 = Identity {
            kind: TableKind::Limit(crate::rules::limit::Limit::new(60).unwrap()),
            ..id
        };
        assert_eq!(load_into(&into, &id3), None);
        let small = arrays(n - 1, 0, false);
        assert_eq!(load_into(&small, &id), None);
        // Damaged anywhere, or cut short: refused.
        let good = std::fs::read(&path).unwrap();
        for at in [9, 40, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(load_into(&into, &id), None, "byte {at}");
        }
        std::fs::write(&path, &good[..good.len() - 8]).unwrap();
        assert_eq!(load_into(&into, &id), None);
        // A frame longer than any frame compresses to: refused before it is read.
        let first = prologue(&id, at, &[n as u64; 2]).len();
        let mut bad = good.clone();
        bad[first..first + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        assert_eq!(load_into(&into, &id), None);
    }
}
