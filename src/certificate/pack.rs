//! Lemma packs (docs/PROOF.md, "Lemma packs"): many lemma files in one, indexed by
//! position, side and claim, in segments each sealed by its checksum. A pack is
//! append-only and has one writer, which holds a lock on it while it writes:
//! concurrent searches each append to their own pack, so no writer can corrupt
//! another's. A segment cut short (a writer killed mid-append) ends the pack for
//! its readers, and a damaged one is left out: the other segments keep their
//! lemmas.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use super::{CertificateError, LemmaRef, PayloadFields, claim_byte, color_byte, put_position};
use crate::files::bytes::{Fields, Reader, u64_at};
use crate::rules::board::Board;

/// A pack's first bytes: magic, then the format version (u32): 2 is written, 1 (an
/// index not compressed) is read too.
pub(super) const MAGIC: [u8; 8] = *b"FNLPACK\n";
pub(super) const VERSION: u32 = 2;
/// A segment's head: the number of lemmas (u32), the raw and packed sizes (u64 each),
/// and from version 2 the index's packed size (u32).
const SEGMENT_HEAD_V1: usize = 4 + 8 + 8;
const SEGMENT_HEAD: usize = SEGMENT_HEAD_V1 + 4;
/// An index record: checksum (u64), offset and length in the raw bytes (u64, u32),
/// board columns and rows (u8 each), position (8, 8, 1), side and claim (u8 each).
const RECORD: usize = 8 + 8 + 4 + 2 + 17 + 2;
/// The largest pack read (it is read whole).
const MAX_PACK: u64 = 4 << 30;
/// The most lemmas a segment holds, and how much larger than its compressed form
/// its raw bytes may claim to be (lemmas compress about 5:1 together; a writer pads
/// a segment that compresses better, so that it never writes what readers refuse).
const MAX_SEGMENT_LEMMAS: u32 = 1 << 20;
const MAX_RATIO: u64 = 64;

/// The extension of a pack's file name.
pub(crate) const PACK_EXTENSION: &str = "fnpack";

/// One lemma of a pack: what it proves, and where its file's bytes are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed {
    pub(crate) lemma: LemmaRef,
    segment: usize,
    offset: u64,
    len: u32,
}

/// A pack read: its segments' compressed bytes and the index of their lemmas.
#[derive(Debug)]
pub(crate) struct Pack {
    version: u32,
    path: PathBuf,
    bytes: Vec<u8>,
    /// Each segment's compressed frame: offset and length in `bytes`, raw size.
    segments: Vec<(usize, usize, u64)>,
    lemmas: Vec<Packed>,
    /// Why the pack ends before its file does (a segment cut short, or whose sizes
    /// cannot be trusted).
    cut: Option<String>,
    /// The segments left out, whole but damaged, and why.
    damaged: Vec<String>,
}

impl Pack {
    /// Whether `path` is a regular file that starts as a pack does, whatever its name.
    pub(crate) fn is_pack(path: &Path) -> Result<bool, CertificateError> {
        crate::files::read::starts_with(path, &MAGIC).map_err(CertificateError::io(path))
    }

    /// Reads the pack at `path`: every whole segment whose checksum holds, up to the
    /// first that does not (then `cut` says why).
    pub(crate) fn read(path: &Path) -> Result<Pack, CertificateError> {
        let bytes =
            crate::files::read::read_bounded(path, MAX_PACK).map_err(CertificateError::io(path))?;
        Pack::from_bytes(path, bytes)
    }

    /// The pack whose file bytes are `bytes`, named `path` in its errors (a pack
    /// built into the program has no file).
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Pack, CertificateError> {
        let damaged = |what: &str| CertificateError::damaged(path, what);
        if bytes.len() < 12 || bytes[..8] != MAGIC {
            return Err(damaged("not a lemma pack (bad magic bytes)"));
        }
        let version = crate::files::bytes::u32_at(&bytes, 8);
        if !(1..=VERSION).contains(&version) {
            return Err(damaged(&format!(
                "a lemma pack of format version {version}; this build reads versions 1 to {VERSION}"
            )));
        }
        let mut pack = Pack {
            version,
            path: path.into(),
            bytes: Vec::new(),
            segments: Vec::new(),
            lemmas: Vec::new(),
            cut: None,
            damaged: Vec::new(),
        };
        let mut at = 12usize;
        while at < bytes.len() {
            match pack.segment(&bytes, at) {
                Ok(next) => at = next,
                // Its bytes are all there but do not match its checksum: its
                // lemmas are left out, the segments after it still read.
                Err((Some(next), why)) => {
                    pack.damaged.push(format!("the segment at byte {at} {why}"));
                    at = next;
                }
                Err((None, why)) => {
                    pack.cut = Some(format!("the segment at byte {at} {why}"));
                    break;
                }
            }
        }
        pack.bytes = bytes;
        Ok(pack)
    }

    /// Reads the segment at `at` of `bytes` into the index; returns where the next
    /// starts. A segment refused says where the next would start, if its own
    /// length can be trusted that far (it is all there, only its checksum fails).
    fn segment(&mut self, bytes: &[u8], at: usize) -> Result<usize, (Option<usize>, String)> {
        let mut head = Reader::new(&bytes[at..]);
        let short = |_| (None, "is cut short".to_string());
        let n = head.u32().map_err(short)?;
        let raw = head.u64().map_err(short)?;
        let packed = head.u64().map_err(short)?;
        let records = n as usize * RECORD;
        // Version 1 holds its index as it is, version 2 compressed.
        let index_len = match self.version {
            1 => records,
            _ => head.u32().map_err(short)? as usize,
        };
        // Crafted sizes are refused before any sum is made of them.
        let within =
            |raw: u64, packed: u64| raw <= MAX_RATIO.saturating_mul(packed).saturating_add(4096);
        if n > MAX_SEGMENT_LEMMAS
            || !within(raw, packed)
            || !within(records as u64, index_len as u64)
        {
            return Err((None, "has sizes no segment has".into()));
        }
        let index_at = at
            + if self.version == 1 {
                SEGMENT_HEAD_V1
            } else {
                SEGMENT_HEAD
            };
        let frame_at = index_at + index_len;
        let end = (frame_at as u64)
            .checked_add(packed)
            .and_then(|e| e.checked_add(8))
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or((None, "is cut short".to_string()))? as usize;
        if xxh3_64(&bytes[at..end - 8]) != u64_at(bytes, end - 8) {
            return Err((Some(end), "does not match its checksum: damaged".into()));
        }
        let segment = self.segments.len();
        let index_bytes = &bytes[index_at..frame_at];
        let unpacked;
        let mut r = if self.version == 1 {
            Reader::new(index_bytes)
        } else {
            unpacked = unpack(index_bytes, records as u64)
                .map_err(|e| (Some(end), format!("has a bad index: {e}")))?;
            Reader::new(&unpacked)
        };
        let mut found = Vec::with_capacity(n as usize);
        let index = |what: String| (Some(end), format!("has a bad index: {what}"));
        for _ in 0..n {
            let checksum = r.le_u64().map_err(|e| index(e.into()))?;
            let offset = r.le_u64().map_err(|e| index(e.into()))?;
            let len = r.le_u32().map_err(|e| index(e.into()))?;
            let w = r.byte().map_err(|e| index(e.into()))? as usize;
            let h = r.byte().map_err(|e| index(e.into()))? as usize;
            let board = Board::get(w, h).map_err(|e| index(e.to_string()))?;
            let position = r.position(board).map_err(index)?;
            let side = r.color().map_err(index)?;
            let claim = r.claim().map_err(index)?;
            if offset.checked_add(u64::from(len)).is_none_or(|e| e > raw) {
                return Err(index("a lemma beyond the segment's bytes".into()));
            }
            found.push(Packed {
                lemma: LemmaRef {
                    position,
                    side,
                    claim,
                    checksum,
                },
                segment,
                offset,
                len,
            });
        }
        self.segments.push((frame_at, packed as usize, raw));
        self.lemmas.extend(found);
        Ok(end)
    }

    /// The lemmas of the pack, in the order written.
    pub(crate) fn lemmas(&self) -> &[Packed] {
        &self.lemmas
    }

    /// Why the pack ends before its file does, if it does.
    pub(crate) fn cut(&self) -> Option<&str> {
        self.cut.as_deref()
    }

    /// The segments left out, whole but damaged, and why.
    pub(crate) fn damaged(&self) -> &[String] {
        &self.damaged
    }

    /// The pack's file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The raw bytes of every segment, decompressed, in order (for a reader that
    /// takes each lemma's file bytes out of them).
    pub(crate) fn segment_bytes(&self, segment: usize) -> Result<Vec<u8>, CertificateError> {
        let (at, len, raw) = self.segments[segment];
        unpack(&self.bytes[at..at + len], raw)
            .map_err(|e| CertificateError::damaged(&self.path, &format!("segment: {e}")))
    }

    /// The file bytes of lemma `p` out of its segment's raw bytes.
    pub(crate) fn lemma_bytes<'a>(&self, p: &Packed, segment: &'a [u8]) -> &'a [u8] {
        &segment[p.offset as usize..p.offset as usize + p.len as usize]
    }

    /// The packed lemma `l` read from its file's `bytes` to `depth`, and named
    /// (`C.fnlemma in PACK`), once the bytes are the file its index names: their
    /// checksum and the claim they prove.
    pub(crate) fn lemma_certificate(
        &self,
        l: LemmaRef,
        bytes: &[u8],
        depth: super::Depth,
    ) -> Result<(super::Certificate, String), CertificateError> {
        let name = super::lemma_file_name(l.checksum);
        let wrong = || {
            CertificateError::damaged(
                &self.path,
                &format!("{name} is not the lemma its index names"),
            )
        };
        if bytes.len() < 16 || u64_at(bytes, bytes.len() - 16) != l.checksum {
            return Err(wrong());
        }
        let cert = super::Certificate::parse_bytes(&self.path, bytes, depth)?;
        if cert.lemma_ref(l.checksum) != Some(l) {
            return Err(wrong());
        }
        let pack_name = self.path.file_name().unwrap_or_default().to_string_lossy();
        Ok((cert, format!("{name} in {pack_name}")))
    }

    /// Which segment lemma `p` is in.
    pub(crate) fn segment_of(&self, p: &Packed) -> usize {
        p.segment
    }
}

/// The one writer of a pack, holding the lock on it while it lives.
#[derive(Debug)]
pub(crate) struct PackWriter {
    file: File,
    path: PathBuf,
    /// The bytes written whole: an append that fails is cut back to here, so that
    /// a later one is not hidden behind a broken segment.
    len: u64,
}

impl PackWriter {
    /// A new pack in `dir` (created if missing), under a name no other writer has:
    /// `lemmas-PID-NANOS.fnpack`, created exclusively and locked. Its head is
    /// written under a name readers pass over (`.lemmas-PID-NANOS.new`), then it
    /// takes its name (a link, which fails rather than replace a file): a reader
    /// never meets a pack without its head.
    pub(crate) fn create(dir: &Path) -> std::io::Result<PackWriter> {
        std::fs::create_dir_all(dir)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!("lemmas-{}-{nanos}", std::process::id());
        let path = dir.join(format!("{name}.{PACK_EXTENSION}"));
        let new = dir.join(format!(".{name}.new"));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&new)?;
        let named = (|| {
            file.lock()?;
            let mut head = MAGIC.to_vec();
            head.extend_from_slice(&VERSION.to_le_bytes());
            file.write_all(&head)?;
            file.sync_all()?;
            crate::files::durable::link_new(&new, &path)
        })();
        let _ = std::fs::remove_file(&new);
        named?;
        let head = MAGIC.len() + 4;
        Ok(PackWriter {
            file,
            path,
            len: head as u64,
        })
    }

    /// The pack's file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one segment of `lemmas` (each reference with its file's bytes),
    /// written whole and made durable before it returns.
    pub(crate) fn append(&mut self, lemmas: &[(LemmaRef, &[u8])]) -> std::io::Result<()> {
        let seg = segment(lemmas)?;
        match self
            .file
            .write_all(&seg)
            .and_then(|()| self.file.sync_data())
        {
            Ok(()) => {
                self.len += seg.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Best effort: if even this fails, readers stop at the broken
                // segment (or leave it out) and keep the others.
                let _ = self.file.set_len(self.len);
                Err(e)
            }
        }
    }
}

/// The `raw` bytes the zstd `packed` decompress to (exactly that many).
fn unpack(packed: &[u8], raw: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(raw as usize);
    zstd::stream::Decoder::new(packed)
        .and_then(|d| d.take(raw + 1).read_to_end(&mut out))
        .map_err(|e| e.to_string())?;
    if out.len() as u64 != raw {
        return Err(format!("{} bytes where {raw} were written", out.len()));
    }
    Ok(out)
}

/// The index records and the raw bytes of a segment of `lemmas` (each reference
/// with its file's bytes).
pub(crate) fn records(lemmas: &[(LemmaRef, &[u8])]) -> (Vec<u8>, Vec<u8>) {
    let mut raw = Vec::new();
    let mut index = Vec::with_capacity(lemmas.len() * RECORD);
    for (l, bytes) in lemmas {
        index.extend_from_slice(&l.checksum.to_le_bytes());
        index.extend_from_slice(&(raw.len() as u64).to_le_bytes());
        index.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        let b = l.position.board();
        index.extend([b.width() as u8, b.height() as u8]);
        put_position(&mut index, &l.position);
        index.push(color_byte(l.side));
        index.push(claim_byte(l.claim));
        raw.extend_from_slice(bytes);
    }
    (index, raw)
}

/// One segment of `lemmas` (each reference with its file's bytes), checksum and
/// all.
fn segment(lemmas: &[(LemmaRef, &[u8])]) -> std::io::Result<Vec<u8>> {
    let (index, raw) = records(lemmas);
    let packed = crate::files::compressed::compress_within(&raw, 19, MAX_RATIO)?;
    let index = crate::files::compressed::compress_within(&index, 19, MAX_RATIO)?;
    let mut seg = Vec::with_capacity(SEGMENT_HEAD + index.len() + packed.len() + 8);
    seg.extend_from_slice(&(lemmas.len() as u32).to_le_bytes());
    seg.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    seg.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    let index_len = u32::try_from(index.len()).map_err(std::io::Error::other)?;
    seg.extend_from_slice(&index_len.to_le_bytes());
    seg.extend_from_slice(&index);
    seg.extend_from_slice(&packed);
    let sum = xxh3_64(&seg);
    seg.extend_from_slice(&sum.to_le_bytes());
    Ok(seg)
}

/// Lemmas a segment of a pack written whole holds: large enough to compress across
/// lemmas, small enough that one lemma's read decompresses little.
pub(crate) const SEGMENT_LEMMAS: usize = 4096;

/// The bytes of a whole pack of `lemmas` (each reference with its file's bytes), in
/// segments of `SEGMENT_LEMMAS`.
pub(crate) fn pack_bytes(lemmas: &[(LemmaRef, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    for chunk in lemmas.chunks(SEGMENT_LEMMAS) {
        let batch: Vec<(LemmaRef, &[u8])> = chunk.iter().map(|(l, b)| (*l, b.as_slice())).collect();
        bytes.extend(segment(&batch)?);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzzer's finding: a segment whose compressed size is near 2^64 made the
    /// end of the segment wrap round (a panic on the slice); now it is cut short.
    #[test]
    fn a_crafted_segment_size_is_cut_short_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.fnpack");
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&(u64::MAX - 20).to_le_bytes());
        bytes.extend_from_slice(&[0; 16]);
        std::fs::write(&path, &bytes).unwrap();
        let pack = Pack::read(&path).unwrap();
        assert!(pack.lemmas().is_empty());
        assert_eq!(pack.cut(), Some("the segment at byte 12 is cut short"));
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/pack-crash-f0c1980d.fnpack"
            ),
            &path,
        )
        .unwrap();
        assert!(Pack::read(&path).unwrap().lemmas().is_empty());
    }
}
