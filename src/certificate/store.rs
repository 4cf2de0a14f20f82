//! A lemma directory as readers and tools see it (docs/PROOF.md, "Lemma packs"):
//! loose lemma files and packs, each lemma found by its checksum; and what is done
//! with one whole: packed, cut down to what certificates rely on, rewritten in the
//! newest format.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::pack::{PACK_EXTENSION, Pack, PackWriter, Packed, SEGMENT_LEMMAS};
use super::{CertificateError, Depth, LemmaRef};
use crate::files::bytes::u64_at;

/// The largest loose lemma file of format version 1, 2 or 4 read (they are read
/// whole); the largest of the tsivy store is under 100 KB.
const MAX_LEMMA_BYTES: u64 = 256 << 20;

/// Decompressed segments kept for readers (one of a pack made by `pack-lemmas`
/// holds 4,096 lemmas, a few MB).
const SEGMENTS_KEPT: usize = 4;

/// A lemma directory as readers see it: its loose `C.fnlemma` files and the lemmas
/// of its packs, each found by its checksum.
#[derive(Debug)]
pub(crate) struct LemmaDir {
    /// The directory (for a bundle's lemmas, the bundle: named in errors only).
    dir: PathBuf,
    /// Whether loose lemma files are looked for in `dir`.
    loose: bool,
    packs: Vec<Pack>,
    /// Each packed lemma: its pack and its place there.
    by_checksum: rustc_hash::FxHashMap<u64, (usize, Packed)>,
    /// The segments decompressed last, newest first: one for each of a few readers
    /// at once, each reading lemmas in pack order.
    last: std::sync::Mutex<Vec<Segment>>,
}

/// A segment's raw bytes, with its pack and its number there.
#[derive(Debug)]
struct Segment {
    pack: usize,
    number: usize,
    raw: std::sync::Arc<Vec<u8>>,
}

/// A loose lemma file whose checksum is not the one its name gives.
fn misnamed(path: &Path, sum: u64) -> CertificateError {
    CertificateError::damaged(
        path,
        &format!("its checksum names it {}", super::lemma_file_name(sum)),
    )
}

/// A loose lemma file of a size no lemma has: refused on its size, unread.
fn oversized(path: &Path, len: u64) -> CertificateError {
    CertificateError::damaged(
        path,
        &format!(
            "{len} bytes, more than any lemma this reader takes ({MAX_LEMMA_BYTES}): not read"
        ),
    )
}

impl LemmaDir {
    /// The lemma directory `dir` (none of it if it does not exist): its packs read,
    /// each up to its first broken segment.
    pub(crate) fn open(dir: &Path) -> Result<LemmaDir, CertificateError> {
        let mut packs = Vec::new();
        for path in files_with(dir, PACK_EXTENSION)? {
            packs.push(Pack::read(&path)?);
        }
        Ok(LemmaDir::of_packs(dir, packs))
    }

    /// The lemma directory `dir` as `packs` give it (and its loose files, if it
    /// exists).
    pub(crate) fn of_packs(dir: &Path, packs: Vec<Pack>) -> LemmaDir {
        let mut by_checksum = rustc_hash::FxHashMap::default();
        for (i, pack) in packs.iter().enumerate() {
            for p in pack.lemmas() {
                by_checksum.entry(p.lemma.checksum).or_insert((i, *p));
            }
        }
        LemmaDir {
            dir: dir.into(),
            loose: true,
            packs,
            by_checksum,
            last: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The directory, or the file that holds the lemmas (named in errors).
    pub(crate) fn name(&self) -> &Path {
        &self.dir
    }

    /// The lemmas of `packs` alone, named as in `name` (a bundle, or a pack built
    /// into the program): no loose file is looked for.
    pub(crate) fn packed(name: &Path, packs: Vec<Pack>) -> LemmaDir {
        LemmaDir {
            loose: false,
            ..LemmaDir::of_packs(name, packs)
        }
    }

    /// Every lemma the directory holds: the loose files' checksums (from their
    /// names, checked when read) and the packed lemmas', each once, loose first.
    pub(crate) fn checksums(&self) -> Result<Vec<u64>, CertificateError> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for path in self.loose_files()? {
            if let Some(c) = path
                .file_stem()
                .and_then(|s| u64::from_str_radix(s.to_str()?, 16).ok())
                && seen.insert(c)
            {
                out.push(c);
            }
        }
        for pack in &self.packs {
            for p in pack.lemmas() {
                if seen.insert(p.lemma.checksum) {
                    out.push(p.lemma.checksum);
                }
            }
        }
        Ok(out)
    }

    /// Where the lemma of this checksum is packed: its pack and segment (reads in
    /// this order decompress each segment once).
    pub(crate) fn place(&self, checksum: u64) -> Option<(usize, usize)> {
        let &(i, p) = self.by_checksum.get(&checksum)?;
        Some((i, self.packs[i].segment_of(&p)))
    }

    /// The lemma of this checksum, read and named by it (`C.fnlemma`, or `C.fnlemma
    /// in PACK`), if the directory holds it: a loose file first, then a pack. A
    /// packed lemma must be the file its index names (its checksum and claim).
    pub(crate) fn read(
        &self,
        checksum: u64,
    ) -> Result<Option<(super::Certificate, String)>, CertificateError> {
        let read = self.read_part(checksum, Depth::Whole)?;
        Ok(read.map(|(cert, name, _)| (cert, name)))
    }

    /// What the lemma of this checksum claims and the tables it names, read without
    /// its proofs (`Depth::Head`), named as `read` names it, if
    /// the directory holds it: for a lemma checked before.
    pub(crate) fn read_head(
        &self,
        checksum: u64,
    ) -> Result<Option<(super::Certificate, String)>, CertificateError> {
        let read = self.read_part(checksum, Depth::Head)?;
        Ok(read.map(|(cert, name, _)| (cert, name)))
    }

    /// What the lemma of this checksum claims and the lemmas it names, named as
    /// `read` names it, if the directory holds it, and whether it was read whole:
    /// for a reader that orders lemmas by their references and reads each whole
    /// later (`Certificate::lemmas_from_bytes`), unless it was read whole already.
    pub(crate) fn read_lemmas(
        &self,
        checksum: u64,
    ) -> Result<Option<(super::Certificate, String, bool)>, CertificateError> {
        self.read_part(checksum, Depth::Lemmas)
    }

    /// The lemma of this checksum read to `depth`, named, and whether it was read
    /// whole: a version 3 file (of blocks, read one at a time) is always read
    /// whole, and the only one allowed beyond `MAX_LEMMA_BYTES`.
    fn read_part(
        &self,
        checksum: u64,
        depth: Depth,
    ) -> Result<Option<(super::Certificate, String, bool)>, CertificateError> {
        let whole = depth == Depth::Whole;
        let name = super::lemma_file_name(checksum);
        let path = self.dir.join(&name);
        if let Some(meta) = self.loose_meta(&path) {
            // The header and size first: a file of a size no lemma has is not read.
            let (cert, sum, whole) =
                if super::Certificate::file_version(&path)? == Some(super::blocked::BLOCKED) {
                    let (cert, sum) = super::Certificate::read_summed(&path)?;
                    (cert, sum, true)
                } else if meta.len() > MAX_LEMMA_BYTES {
                    return Err(oversized(&path, meta.len()));
                } else {
                    let bytes = crate::files::read::read_bounded(&path, MAX_LEMMA_BYTES)
                        .map_err(CertificateError::io(&path))?;
                    (
                        super::Certificate::parse_bytes(&path, &bytes, depth)?,
                        u64_at(&bytes, bytes.len() - 16),
                        whole,
                    )
                };
            if sum != checksum {
                return Err(misnamed(&path, sum));
            }
            return Ok(Some((cert, name, whole)));
        }
        match self.packed_bytes(checksum)? {
            Some(f) => f
                .pack
                .lemma_certificate(f.lemma, &f.bytes, depth)
                .map(|(cert, name)| Some((cert, name, whole))),
            None => Ok(None),
        }
    }

    /// The file bytes of the packed lemma of this checksum, with its index entry
    /// and its pack, once the bytes' own checksum is the one indexed.
    fn packed_bytes(&self, checksum: u64) -> Result<Option<PackedFile<'_>>, CertificateError> {
        let Some(&(i, p)) = self.by_checksum.get(&checksum) else {
            return Ok(None);
        };
        let pack = &self.packs[i];
        let number = pack.segment_of(&p);
        let cached = |last: &[Segment]| {
            last.iter()
                .find(|s| (s.pack, s.number) == (i, number))
                .map(|s| std::sync::Arc::clone(&s.raw))
        };
        let hit = cached(&self.last.lock().expect("not poisoned"));
        let raw = match hit {
            Some(raw) => raw,
            None => {
                // Decompressed outside the lock, so that readers of other
                // segments go on meanwhile.
                let raw = std::sync::Arc::new(pack.segment_bytes(number)?);
                let mut last = self.last.lock().expect("not poisoned");
                last.insert(
                    0,
                    Segment {
                        pack: i,
                        number,
                        raw: std::sync::Arc::clone(&raw),
                    },
                );
                last.truncate(SEGMENTS_KEPT);
                raw
            }
        };
        let bytes = pack.lemma_bytes(&p, &raw).to_vec();
        if bytes.len() < 16 || u64_at(&bytes, bytes.len() - 16) != checksum {
            return Err(CertificateError::damaged(
                pack.path(),
                &format!(
                    "{} is not the file its index names",
                    super::lemma_file_name(checksum)
                ),
            ));
        }
        Ok(Some(PackedFile {
            bytes,
            lemma: p.lemma,
            pack,
        }))
    }

    /// Packs every lemma of the directory into one new pack of large segments
    /// (compressed across lemmas), then removes the loose files and the packs it
    /// took in. A pack another process is writing (it holds its lock) is left as
    /// it is; so, packing geometrically, is each of the largest whole packs that
    /// holds at least twice the bytes of all that is packed besides it. The new
    /// pack is read back before anything is removed. `LogsOnly`: only which packs
    /// are busy.
    pub(crate) fn repack(
        &self,
        how: Packing,
        keep: &[PathBuf],
    ) -> Result<PackReport, CertificateError> {
        let mut report = PackReport::default();
        // Each path is canonicalized once: a name given to keep may be relative,
        // or reach the pack through a link. With nothing to keep, none is.
        let packs = if keep.is_empty() {
            Vec::new()
        } else {
            self.packs
                .iter()
                .map(|p| std::fs::canonicalize(p.path()).map_err(CertificateError::io(p.path())))
                .collect::<Result<Vec<_>, _>>()?
        };
        let mut kept_names = Vec::with_capacity(keep.len());
        for k in keep {
            match std::fs::canonicalize(k) {
                Ok(c) if packs.contains(&c) => kept_names.push(c),
                _ => {
                    return Err(CertificateError::Refused {
                        path: k.clone(),
                        why: format!("not a pack of {}: nothing to keep", self.dir.display()),
                    });
                }
            }
        }
        let mut taken: Vec<&Pack> = Vec::new();
        for pack in &self.packs {
            let free = File::open(pack.path())
                .map_err(CertificateError::io(pack.path()))?
                .try_lock()
                .is_ok();
            if free {
                taken.push(pack);
                for why in pack
                    .cut()
                    .into_iter()
                    .chain(pack.damaged().iter().map(String::as_str))
                {
                    report.cut.push(format!("{}: {why}", pack.path().display()));
                }
            } else {
                report.busy.push(pack.path().into());
            }
        }
        if how == Packing::LogsOnly {
            return Ok(report);
        }
        let kept: Vec<PathBuf> = self
            .packs
            .iter()
            .zip(&packs)
            .filter(|(pack, c)| {
                kept_names.contains(c) && taken.iter().any(|t| t.path() == pack.path())
            })
            .map(|(pack, _)| pack.path().to_path_buf())
            .collect();
        taken.retain(|p| !kept.iter().any(|k| k == p.path()));
        report.kept = kept;
        let loose = self.loose_files()?;
        if how == Packing::Geometric {
            report.kept.extend(geometric(&mut taken, &loose)?);
        }
        let mut lemmas: Vec<(LemmaRef, Vec<u8>)> = Vec::new();
        // A lemma a kept pack holds already is not copied into the new one.
        let mut seen: rustc_hash::FxHashSet<u64> = self
            .packs
            .iter()
            .filter(|p| report.kept.iter().any(|k| k == p.path()))
            .flat_map(|p| p.lemmas().iter().map(|l| l.lemma.checksum))
            .collect();
        for path in &loose {
            // A version 3 lemma is read block by block, never whole: it stays a
            // file of its own.
            if super::Certificate::file_version(path)? == Some(super::blocked::BLOCKED) {
                continue;
            }
            report.bytes_before += std::fs::metadata(path)
                .map_err(CertificateError::io(path))?
                .len();
            let sum = path
                .file_stem()
                .and_then(|s| u64::from_str_radix(s.to_str()?, 16).ok())
                .ok_or_else(|| CertificateError::damaged(path, "not named by a checksum"))?;
            let (l, bytes) = self.loose_file(sum)?.expect("listed above");
            if seen.insert(sum) {
                lemmas.push((l, bytes));
            }
            report.loose += 1;
        }
        for pack in &taken {
            report.bytes_before += std::fs::metadata(pack.path())
                .map_err(CertificateError::io(pack.path()))?
                .len();
            for p in pack.lemmas() {
                if seen.insert(p.lemma.checksum) {
                    let f = self
                        .packed_bytes(p.lemma.checksum)?
                        .expect("a packed lemma is in the index");
                    lemmas.push((f.lemma, f.bytes));
                }
            }
        }
        report.lemmas = lemmas.len();
        report.packs = taken.len();
        if lemmas.is_empty() {
            return Ok(report);
        }
        let (pack, bytes) = write_pack(&self.dir, &lemmas)?;
        report.pack = Some(pack);
        report.bytes_after = bytes;
        for path in &loose {
            if super::Certificate::file_version(path)? != Some(super::blocked::BLOCKED) {
                std::fs::remove_file(path).map_err(CertificateError::io(path))?;
            }
        }
        for pack in taken {
            std::fs::remove_file(pack.path()).map_err(CertificateError::io(pack.path()))?;
        }
        Ok(report)
    }
}

/// Takes out of `taken` the packs to keep as they are: from the largest down, a
/// whole pack of at least twice the bytes of the other packs and `loose` files
/// together (when there are any). Packing then copies the new lemmas rather than
/// the old ones again, and a repository that keeps the packs stores each lemma
/// about once, as git's geometric repacking does. Returns the kept packs' paths.
fn geometric(taken: &mut Vec<&Pack>, loose: &[PathBuf]) -> Result<Vec<PathBuf>, CertificateError> {
    let len = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(CertificateError::io(p))
    };
    let mut rest = loose.iter().map(|p| len(p)).sum::<Result<u64, _>>()?;
    let mut sized = Vec::new();
    for &pack in taken.iter() {
        let n = len(pack.path())?;
        rest += n;
        sized.push((n, pack));
    }
    sized.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
    let mut kept = Vec::new();
    for (n, pack) in sized {
        let others = rest - n;
        let whole = pack.cut().is_none() && pack.damaged().is_empty();
        if !whole || others == 0 || n < 2 * others {
            break;
        }
        kept.push(pack.path().to_path_buf());
        rest = others;
    }
    taken.retain(|p| !kept.iter().any(|k| k == p.path()));
    Ok(kept)
}

/// A packed lemma's file bytes, with its index entry and its pack.
struct PackedFile<'a> {
    bytes: Vec<u8>,
    lemma: LemmaRef,
    pack: &'a Pack,
}

impl LemmaDir {
    /// The loose lemma files (none where they are not looked for).
    fn loose_files(&self) -> Result<Vec<PathBuf>, CertificateError> {
        match self.loose {
            true => files_with(&self.dir, "fnlemma"),
            false => Ok(Vec::new()),
        }
    }

    /// The metadata of a loose file of the directory, if there is one and loose
    /// files are looked for.
    fn loose_meta(&self, path: &Path) -> Option<std::fs::Metadata> {
        self.loose
            .then(|| std::fs::symlink_metadata(path).ok())
            .flatten()
    }

    /// The file bytes of the lemma of this checksum, loose or packed, with what it
    /// claims.
    fn lemma_file(&self, checksum: u64) -> Result<Option<(LemmaRef, Vec<u8>)>, CertificateError> {
        match self.packed_bytes(checksum)? {
            Some(f) => Ok(Some((f.lemma, f.bytes))),
            None => self.loose_file(checksum),
        }
    }

    /// The bytes of the loose lemma file of this checksum, with what it claims.
    fn loose_file(&self, checksum: u64) -> Result<Option<(LemmaRef, Vec<u8>)>, CertificateError> {
        let path = self.dir.join(super::lemma_file_name(checksum));
        let Some(meta) = self.loose_meta(&path) else {
            return Ok(None);
        };
        if meta.len() > MAX_LEMMA_BYTES {
            return Err(oversized(&path, meta.len()));
        }
        let bytes = crate::files::read::read_bounded(&path, MAX_LEMMA_BYTES)
            .map_err(CertificateError::io(&path))?;
        let cert = super::Certificate::from_bytes(&path, &bytes)?;
        match cert.lemma_ref(checksum) {
            Some(l) if u64_at(&bytes, bytes.len() - 16) == checksum => Ok(Some((l, bytes))),
            _ => Err(CertificateError::damaged(
                &path,
                "not the lemma its name gives",
            )),
        }
    }
}

/// Writes into `out` one pack of exactly the lemmas the certificates `roots` rely
/// on, directly or through other lemmas, read from the lemma directory `dir`: what
/// a result needs to be checked, apart from the tables (docs/PROOF.md, "Lemma
/// packs").
///
/// # Errors
///
/// A certificate or lemma that cannot be read, a lemma missing from `dir`, the new
/// pack's file.
pub fn pack_relied_on(
    roots: &[PathBuf],
    dir: &Path,
    out: &Path,
) -> Result<PackReport, CertificateError> {
    let mut todo: Vec<LemmaRef> = Vec::new();
    for root in roots {
        todo.extend(super::Certificate::read(root)?.lemmas);
    }
    let lemmas = relied_on(&LemmaDir::open(dir)?, todo)?;
    let mut report = PackReport {
        lemmas: lemmas.len(),
        ..PackReport::default()
    };
    if lemmas.is_empty() {
        return Ok(report);
    }
    let (pack, bytes) = write_pack(out, &lemmas)?;
    report.pack = Some(pack);
    report.bytes_after = bytes;
    Ok(report)
}

/// The lemmas of `store` that `refs` name, and those they name in turn, each with
/// its file's bytes, in pack order.
pub(crate) fn relied_on(
    store: &LemmaDir,
    mut todo: Vec<LemmaRef>,
) -> Result<Vec<(LemmaRef, Vec<u8>)>, CertificateError> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut lemmas: Vec<(LemmaRef, Vec<u8>)> = Vec::new();
    while let Some(l) = todo.pop() {
        if !seen.insert(l.checksum) {
            continue;
        }
        let path = store.dir.join(l.file_name());
        let Some((found, bytes)) = store.lemma_file(l.checksum)? else {
            return Err(CertificateError::LemmaMissing {
                name: l.file_name(),
                dir: store.dir.clone(),
            });
        };
        todo.extend(super::Certificate::from_bytes(&path, &bytes)?.lemmas);
        lemmas.push((found, bytes));
    }
    lemmas.sort_by_key(|(l, _)| l.key());
    Ok(lemmas)
}

/// What `recode_lemmas` wrote.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RecodeReport {
    /// Lemmas rewritten into the new pack.
    pub lemmas: usize,
    /// Of them, those version 4 holds (the others kept their version).
    pub compact: usize,
    /// The new pack.
    pub pack: Option<PathBuf>,
    /// The root certificates rewritten, as (given, written).
    pub roots: Vec<(PathBuf, PathBuf)>,
    /// Bytes of the lemmas read, and of the new pack.
    pub bytes_before: u64,
    /// Bytes of the new pack.
    pub bytes_after: u64,
}

/// Rewrites every lemma of the lemma directory `dir` as `Certificate::to_bytes`
/// writes it now (version 4, the proofs as moves, where it holds), into one new pack
/// in `out`, and each certificate of `roots` into `out` under its own file name. A
/// lemma's checksum is that of its bytes, so each is rewritten after the lemmas it
/// names, its references renamed to their new checksums: the certificates written
/// prove what the ones read prove, over the same tables, and check the same way.
///
/// # Errors
///
/// A lemma or certificate that cannot be read, or the new files.
pub fn recode_lemmas(
    dir: &Path,
    roots: &[PathBuf],
    out: &Path,
) -> Result<RecodeReport, CertificateError> {
    let store = LemmaDir::open(dir)?;
    let sums = store.checksums()?;
    if sums.is_empty() {
        return Err(CertificateError::damaged(
            dir,
            "no lemma in the directory: nothing rewritten",
        ));
    }
    // Each lemma's file, read in the store's order (each segment decompressed
    // once; the order below would decompress one for nearly every lemma).
    let mut files = Vec::with_capacity(sums.len());
    for &c in &sums {
        let (l, bytes) = store.lemma_file(c)?.ok_or_else(|| {
            CertificateError::damaged(&dir.join(super::lemma_file_name(c)), "gone while read")
        })?;
        files.push((dir.join(l.file_name()), bytes));
    }
    let read = |i: usize| super::Certificate::from_bytes(&files[i].0, &files[i].1);
    // The references among the lemmas, then each lemma after those it names.
    let index: rustc_hash::FxHashMap<u64, usize> =
        sums.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let mut waiting = vec![0usize; sums.len()];
    let mut named_by: Vec<Vec<usize>> = vec![Vec::new(); sums.len()];
    let mut report = RecodeReport::default();
    for i in 0..sums.len() {
        let cert = super::Certificate::lemmas_from_bytes(&files[i].0, &files[i].1)?;
        report.bytes_before += files[i].1.len() as u64;
        for l in &cert.lemmas {
            if let Some(&j) = index.get(&l.checksum) {
                waiting[i] += 1;
                named_by[j].push(i);
            }
        }
    }
    let mut ready: Vec<usize> = (0..sums.len()).filter(|&i| waiting[i] == 0).collect();
    let mut renamed: rustc_hash::FxHashMap<u64, u64> = rustc_hash::FxHashMap::default();
    let rename = |cert: &mut super::Certificate, renamed: &rustc_hash::FxHashMap<u64, u64>| {
        for l in &mut cert.lemmas {
            l.checksum = renamed.get(&l.checksum).copied().unwrap_or(l.checksum);
        }
    };
    let mut writer = PackWriter::create(out).map_err(CertificateError::io(out))?;
    let mut batch: Vec<(LemmaRef, Vec<u8>)> = Vec::new();
    let flush = |batch: &mut Vec<(LemmaRef, Vec<u8>)>, w: &mut PackWriter| {
        let refs: Vec<(LemmaRef, &[u8])> = batch.iter().map(|(l, b)| (*l, b.as_slice())).collect();
        let r = w.append(&refs).map_err(CertificateError::io(w.path()));
        batch.clear();
        r
    };
    while let Some(i) = ready.pop() {
        let mut cert = read(i)?;
        rename(&mut cert, &renamed);
        let bytes = cert.to_bytes();
        let new = u64_at(&bytes, bytes.len() - 16);
        if crate::files::bytes::u32_at(&bytes, 8) == super::compact::COMPACT {
            report.compact += 1;
        }
        renamed.insert(sums[i], new);
        let l = cert.lemma_ref(new).ok_or_else(|| {
            CertificateError::damaged(dir, "a certificate of a value among the lemmas")
        })?;
        batch.push((l, bytes));
        if batch.len() == SEGMENT_LEMMAS {
            flush(&mut batch, &mut writer)?;
        }
        for &j in &named_by[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
        report.lemmas += 1;
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut writer)?;
    }
    report.bytes_after = std::fs::metadata(writer.path())
        .map_err(CertificateError::io(writer.path()))?
        .len();
    report.pack = Some(writer.path().into());
    for root in roots {
        let mut cert = super::Certificate::read(root)?;
        rename(&mut cert, &renamed);
        let to = out.join(root.file_name().unwrap_or_default());
        cert.write(&to)?;
        report.roots.push((root.clone(), to));
    }
    Ok(report)
}

/// Writes `lemmas` (each reference with its file's bytes) into a new pack in
/// `dir`, in segments of `SEGMENT_LEMMAS`, and reads it back whole; returns the
/// pack and its size.
fn write_pack(
    dir: &Path,
    lemmas: &[(LemmaRef, Vec<u8>)],
) -> Result<(PathBuf, u64), CertificateError> {
    let mut writer = PackWriter::create(dir).map_err(CertificateError::io(dir))?;
    let path = writer.path().to_path_buf();
    for chunk in lemmas.chunks(SEGMENT_LEMMAS) {
        let batch: Vec<(LemmaRef, &[u8])> = chunk.iter().map(|(l, b)| (*l, b.as_slice())).collect();
        writer.append(&batch).map_err(CertificateError::io(&path))?;
    }
    let written = Pack::read(&path)?;
    if written.lemmas().len() != lemmas.len() || written.cut().is_some() {
        return Err(CertificateError::damaged(
            &path,
            "the new pack does not read back whole: nothing was removed",
        ));
    }
    let len = std::fs::metadata(&path)
        .map_err(CertificateError::io(&path))?
        .len();
    Ok((path, len))
}

/// What `pack_lemmas` did.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct PackReport {
    /// Lemmas in the new pack.
    pub lemmas: usize,
    /// Loose lemma files taken in (and removed).
    pub loose: usize,
    /// Packs taken in (and removed).
    pub packs: usize,
    /// Packs left as they were: another process is writing them.
    pub busy: Vec<PathBuf>,
    /// Segments left out (cut short, or damaged), with their pack and the reason:
    /// the pack's other segments were taken in.
    pub cut: Vec<String>,
    /// The new pack, if there was a lemma to pack.
    pub pack: Option<PathBuf>,
    /// Bytes of the files taken in, and of the new pack.
    pub bytes_before: u64,
    /// Bytes of the new pack.
    pub bytes_after: u64,
    /// The logs sealed, with their bytes before and after.
    pub logs: Vec<(PathBuf, u64, u64)>,
    /// Packs left as they are: those asked to be kept, then (not with `all`) each
    /// at least twice the bytes of what was packed besides it.
    pub kept: Vec<PathBuf>,
}

/// Which packs `pack_lemmas` takes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Packing {
    /// As git repacks: from the largest down, a whole pack of at least twice the
    /// bytes of all the rest is kept as it is, so that old lemmas are not copied
    /// into every new pack (nor stored again by a repository that keeps them).
    Geometric,
    /// Every pack and loose file into one pack.
    All,
    /// No lemma: only the logs are sealed.
    LogsOnly,
}

/// Packs the lemmas of the lemma directory `dir` (docs/PROOF.md, "Lemma packs"):
/// every loose lemma file and every pack no process is writing, into one new pack
/// of large segments, read back before the files it replaces are removed (see
/// [`Packing`]), but the packs `keep`, left as they are (the packs a repository
/// has committed, say). When no search is writing (no pack is busy), its logs (`*.tsv`)
/// are sealed too: each open part made a compressed part (`NAME.tsv.zst`,
/// `NAME.tsv.1.zst`, ...; see `files::log::seal`).
///
/// # Errors
///
/// A file that cannot be read or removed, a damaged lemma, a new pack that does not
/// read back whole (then nothing is removed), a damaged sealed log, a pack to keep
/// that is not one of `dir`.
pub fn pack_lemmas(
    dir: &Path,
    how: Packing,
    keep: &[PathBuf],
) -> Result<PackReport, CertificateError> {
    let mut report = LemmaDir::open(dir)?.repack(how, keep)?;
    if report.busy.is_empty() {
        for path in files_with(dir, "tsv")? {
            if let Some((before, after)) =
                crate::files::log::seal(&path).map_err(CertificateError::io(&path))?
            {
                report.logs.push((path, before, after));
            }
        }
    }
    Ok(report)
}

/// The files of `dir` with this extension, sorted (none if `dir` does not exist).
fn files_with(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, CertificateError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(CertificateError::Io {
                path: dir.into(),
                source,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::pack::PackWriter;
    use crate::rules::board::Board;
    use crate::rules::position::{Color, Position};
    use xxhash_rust::xxh3::xxh3_64;

    /// A lemma reference of 3x3 and made-up file bytes whose checksum is its own
    /// (what `LemmaDir` checks of packed bytes).
    fn lemma(i: u64) -> (LemmaRef, Vec<u8>) {
        let board = Board::get(3, 3).unwrap();
        let position = Position::new(board, 1 << (i % 4), 1 << 8, Color::White).unwrap();
        let mut bytes = format!("lemma {i}").repeat(10).into_bytes();
        let sum = xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes.extend_from_slice(b"FNPREND\n");
        let l = LemmaRef {
            position,
            side: Color::White,
            claim: super::super::Claim::NotLose,
            checksum: sum,
        };
        (l, bytes)
    }

    fn append(w: &mut PackWriter, range: std::ops::Range<u64>) {
        let lemmas: Vec<_> = range.map(lemma).collect();
        let batch: Vec<(LemmaRef, &[u8])> =
            lemmas.iter().map(|(l, b)| (*l, b.as_slice())).collect();
        w.append(&batch).unwrap();
    }

    fn sums(pack: &Pack) -> Vec<u64> {
        pack.lemmas().iter().map(|p| p.lemma.checksum).collect()
    }

    #[test]
    fn lemmas_read_back_and_a_cut_or_damaged_segment_loses_only_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = PackWriter::create(dir.path()).unwrap();
        append(&mut w, 0..3);
        let first = std::fs::metadata(w.path()).unwrap().len() as usize;
        append(&mut w, 3..5);
        let path = w.path().to_path_buf();
        let whole = std::fs::read(&path).unwrap();
        let pack = Pack::read(&path).unwrap();
        let all: Vec<u64> = (0..5).map(|i| lemma(i).0.checksum).collect();
        assert_eq!(sums(&pack), all);
        assert!(pack.cut().is_none() && pack.damaged().is_empty());
        let store = LemmaDir::open(dir.path()).unwrap();
        for i in 0..5 {
            let (l, bytes) = lemma(i);
            let f = store.packed_bytes(l.checksum).unwrap().unwrap();
            assert_eq!((f.bytes, f.lemma), (bytes, l));
        }
        // Cut anywhere: the whole segments before the cut read, nothing else.
        for len in 12..whole.len() {
            std::fs::write(&path, &whole[..len]).unwrap();
            let pack = Pack::read(&path).unwrap();
            let want = if len >= first { 3 } else { 0 };
            assert_eq!(sums(&pack), all[..want], "cut at {len}");
            // Between segments a pack is whole, only shorter.
            assert_eq!(
                pack.cut().is_some(),
                len != 12 && len != first,
                "cut at {len}"
            );
        }
        // A flipped byte in the first segment's compressed bytes leaves it out;
        // the second still reads.
        let mut bad = whole.clone();
        bad[first - 12] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let pack = Pack::read(&path).unwrap();
        assert_eq!(sums(&pack), all[3..]);
        assert_eq!(pack.damaged().len(), 1);
    }

    /// A pack of format version 1 (its index not compressed), as fanotb wrote before
    /// version 2, still reads, and its lemmas are those of a version 2 pack.
    #[test]
    fn a_version_1_pack_reads() {
        let lemmas: Vec<_> = (0..5).map(lemma).collect();
        let batch: Vec<(LemmaRef, &[u8])> =
            lemmas.iter().map(|(l, b)| (*l, b.as_slice())).collect();
        let (index, raw) = crate::certificate::pack::records(&batch);
        let packed = zstd::bulk::compress(&raw, 19).unwrap();
        let mut seg = Vec::new();
        seg.extend_from_slice(&5u32.to_le_bytes());
        seg.extend_from_slice(&(raw.len() as u64).to_le_bytes());
        seg.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        seg.extend_from_slice(&index);
        seg.extend_from_slice(&packed);
        seg.extend_from_slice(&xxh3_64(&seg).to_le_bytes());
        let mut v1 = b"FNLPACK\n".to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&seg);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.fnpack"), &v1).unwrap();
        let mut w = PackWriter::create(&dir.path().join("new")).unwrap();
        append(&mut w, 0..5);
        for d in [dir.path().to_path_buf(), dir.path().join("new")] {
            let store = LemmaDir::open(&d).unwrap();
            assert!(store.packs[0].cut().is_none() && store.packs[0].damaged().is_empty());
            for (l, bytes) in &lemmas {
                let f = store.packed_bytes(l.checksum).unwrap().unwrap();
                assert_eq!((&f.bytes, f.lemma), (bytes, *l));
            }
        }
        // Version 2 compresses the index: the same lemmas in fewer bytes.
        assert!(std::fs::metadata(w.path()).unwrap().len() < v1.len() as u64);
    }

    /// Two writers at once in one directory, each its own pack: every lemma of both
    /// reads back; a lemma in both is one lemma to readers.
    #[test]
    fn two_writers_at_once_keep_every_lemma() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for start in [0u64, 100] {
                let d = dir.path();
                s.spawn(move || {
                    let mut w = PackWriter::create(d).unwrap();
                    for i in start..start + 50 {
                        append(&mut w, i..i + 1);
                    }
                    // Both write lemma 7.
                    append(&mut w, 7..8);
                });
            }
        });
        let store = LemmaDir::open(dir.path()).unwrap();
        assert_eq!(store.packs.len(), 2);
        let mut got = store.checksums().unwrap();
        got.sort_unstable();
        let mut want: Vec<u64> = (0..50)
            .chain(100..150)
            .map(|i| lemma(i).0.checksum)
            .collect();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    /// Geometric packing: a whole pack of at least twice the bytes of the rest is
    /// kept as it is and the rest packed; with `all`, or when it is not that large,
    /// every pack is taken in. Every lemma reads back either way.
    #[test]
    fn packing_keeps_a_pack_twice_the_rest() {
        // A pack of a segment a lemma.
        let write = |d: &Path, r: std::ops::Range<u64>| {
            let mut w = PackWriter::create(d).unwrap();
            for i in r {
                append(&mut w, i..i + 1);
            }
        };
        let all_sums = |d: &Path| {
            let mut got = LemmaDir::open(d).unwrap().checksums().unwrap();
            got.sort_unstable();
            got
        };
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, 0..300);
        let big = LemmaDir::open(d).unwrap().packs[0].path().to_path_buf();
        write(d, 300..310);
        write(d, 310..320);
        // Two lemmas the big pack holds already: not copied again.
        write(d, 0..2);
        let want = all_sums(d);
        let r = pack_lemmas(d, Packing::Geometric, &[]).unwrap();
        assert_eq!(
            (r.kept.clone(), r.packs, r.lemmas),
            (vec![big.clone()], 3, 20)
        );
        assert!(big.exists());
        assert_eq!(all_sums(d), want);
        // A pack of one lemma more: the two packs are each twice what follows them,
        // so only the new one is packed.
        let mid = r.pack.clone().unwrap();
        write(d, 320..321);
        let r = pack_lemmas(d, Packing::Geometric, &[]).unwrap();
        assert_eq!((r.kept.clone(), r.packs), (vec![big.clone(), mid], 1));
        // Not twice the rest: everything into one.
        write(d, 400..700);
        let want = all_sums(d);
        let r = pack_lemmas(d, Packing::Geometric, &[]).unwrap();
        assert!(r.kept.is_empty(), "{:?}", r.kept);
        assert_eq!((r.packs, r.lemmas), (4, 621));
        assert!(!big.exists());
        assert_eq!(all_sums(d), want);
        write(d, 800..801);
        let r = pack_lemmas(d, Packing::All, &[]).unwrap();
        assert_eq!((r.kept.len(), r.packs), (0, 2), "all: every pack");
        // Packs asked to be kept stay as they are, even the small ones, and their
        // lemmas are not copied; a pack to keep that is not one of the directory
        // is refused before anything is packed.
        let old = r.pack.clone().unwrap();
        write(d, 900..901);
        let small = LemmaDir::open(d)
            .unwrap()
            .packs
            .iter()
            .map(|p| p.path().to_path_buf())
            .find(|p| *p != old)
            .unwrap();
        write(d, 902..904);
        write(d, 900..901);
        let want = all_sums(d);
        let outside = tempfile::tempdir().unwrap();
        let stray = outside.path().join("x.fnpack");
        std::fs::write(&stray, b"").unwrap();
        let e = pack_lemmas(d, Packing::All, &[old.clone(), stray]).unwrap_err();
        assert!(e.to_string().contains("not a pack of"), "{e}");
        assert_eq!(all_sums(d), want);
        let e = pack_lemmas(d, Packing::All, &[d.join("missing.fnpack")]).unwrap_err();
        assert!(e.to_string().contains("not a pack of"), "{e}");
        // A pack named through a link to the directory is the same pack.
        let link = outside.path().join("link");
        std::os::unix::fs::symlink(d, &link).unwrap();
        let roundabout = link.join(small.file_name().unwrap());
        let r = pack_lemmas(d, Packing::All, &[old.clone(), roundabout]).unwrap();
        assert_eq!(
            (r.kept.clone(), r.packs, r.lemmas),
            (vec![old, small], 2, 2)
        );
        assert_eq!(all_sums(d), want);
    }
}
