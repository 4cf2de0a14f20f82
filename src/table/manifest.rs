//! Checksum manifests of table directories (docs/FORMAT.md, "Manifests"): every
//! table file's path, size, stored whole-file xxh3 and SHA-256, so that a user can
//! check downloaded or shared tables against the published list, without decoding
//! a table.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use thiserror::Error;
use xxhash_rust::xxh3::Xxh3;

use crate::table::{END_MAGIC, INDEX_SCHEME, VERSION as FORMAT_VERSION};

/// The first line of a manifest.
const TITLE: &str = "# fanotb table manifest";

/// One table file of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// Its path under the directory, with `/` between parts: `9x5/3v2.fntb`.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The whole-file xxh3-64 the file stores in its last 16 bytes.
    pub xxh3: u64,
    /// The SHA-256 of the whole file.
    pub sha256: [u8; 32],
}

/// A list of table files with their checksums, and what wrote them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The writer named in the manifest: `fanotb 0.1.0, table format 1, index scheme 1`.
    pub writer: String,
    /// Every table, sorted by path.
    pub entries: Vec<ManifestEntry>,
}

/// A manifest that cannot be made, read or checked.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// A file or directory cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A table file's bytes do not hold together: no manifest lists it.
    #[error("{}: {what}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A file name a manifest line cannot hold (not UTF-8, or with a control
    /// character such as a tab).
    #[error("{}: a table file name must be UTF-8 without control characters", .0.display())]
    Name(PathBuf),
    /// A manifest to update was written by another version: its tables need not be
    /// these ones, so it is made anew, not merged.
    #[error("the manifest was written by {theirs}, not {ours}: make it anew from every table")]
    Writer {
        /// The manifest's writer.
        theirs: String,
        /// This version's.
        ours: String,
    },
    /// A table built here is not the file the manifest lists under its path:
    /// tables are deterministic, so one of the two is wrong.
    #[error("{path}: {what}; tables are deterministic, so one of the two is wrong")]
    Conflict {
        /// The table's path under the directory.
        path: String,
        /// How it differs.
        what: String,
    },
    /// The manifest text is malformed.
    #[error("manifest line {line}: {what}")]
    Syntax {
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

/// What a file's check against a manifest found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Difference {
    /// In the manifest, not in the directory.
    Missing,
    /// In the directory, not in the manifest.
    Extra,
    /// Present, but not the file the manifest lists: why.
    Different(String),
}

/// A manifest checked against a directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestCheck {
    /// Files that match the manifest.
    pub matching: Vec<String>,
    /// Files that do not, each with what is wrong, sorted by path.
    pub differences: Vec<(String, Difference)>,
}

impl Manifest {
    /// The manifest of every table file (`*.fntb`) under `dir`, whatever its board
    /// or limit, each read whole on both cores.
    ///
    /// # Errors
    /// A directory or file that cannot be read.
    pub fn of_dir(dir: &Path) -> Result<Manifest, ManifestError> {
        let files = table_files(dir)?;
        let entries = files
            .par_iter()
            .map(|rel| {
                let path = dir.join(rel);
                let h = hash_file(&path, true)?;
                // A manifest vouches for its files: never for a damaged one.
                match h.damage() {
                    Some(what) => Err(ManifestError::Damaged { path, what }),
                    None => Ok(h.entry(rel.clone())),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Manifest {
            writer: writer(),
            entries,
        })
    }

    /// Adds the tables of `built` (a manifest of tables built here, by this
    /// version) to this one, which keeps its rows of the tables `built` lacks: a
    /// manifest of more tables than one machine holds at once, made a few builds at
    /// a time. Returns how many tables were added; a table in both must be the
    /// same file.
    ///
    /// # Errors
    /// This manifest's writer is not `built`'s, or a table of both differs.
    pub fn update(&mut self, built: &Manifest) -> Result<usize, ManifestError> {
        if self.writer != built.writer {
            return Err(ManifestError::Writer {
                theirs: self.writer.clone(),
                ours: built.writer.clone(),
            });
        }
        let mut added = 0;
        for e in &built.entries {
            match self.entries.binary_search_by(|o| o.path.cmp(&e.path)) {
                Ok(i) if self.entries[i] == *e => {}
                Ok(i) => {
                    let o = &self.entries[i];
                    let what = if o.bytes != e.bytes {
                        format!("{} bytes, the manifest says {}", e.bytes, o.bytes)
                    } else if o.xxh3 != e.xxh3 {
                        format!("xxh3 {}, the manifest says {}", e.xxh3_hex(), o.xxh3_hex())
                    } else {
                        format!(
                            "SHA-256 {}, the manifest says {}",
                            e.sha256_hex(),
                            o.sha256_hex()
                        )
                    };
                    return Err(ManifestError::Conflict {
                        path: e.path.clone(),
                        what,
                    });
                }
                Err(i) => {
                    self.entries.insert(i, e.clone());
                    added += 1;
                }
            }
        }
        Ok(added)
    }

    /// Checks the tables under `dir`: each file of the manifest is present with its
    /// size and stored xxh3, and its bytes give that xxh3 again; with `sha256`, its
    /// SHA-256 too (slower). Table files not in the manifest are extra.
    ///
    /// # Errors
    /// The directory cannot be listed.
    pub fn check(&self, dir: &Path, sha256: bool) -> Result<ManifestCheck, ManifestError> {
        let present = table_files(dir)?;
        let mut results: Vec<(String, Option<Difference>)> = self
            .entries
            .par_iter()
            .map(|e| {
                let path = dir.join(&e.path);
                let found = match std::fs::metadata(&path) {
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                        Some(Difference::Missing)
                    }
                    Err(err) => Some(Difference::Different(format!("cannot read it: {err}"))),
                    // A FIFO or a device is never opened (it could block or never end).
                    Ok(m) if !m.is_file() => {
                        Some(Difference::Different("not a regular file: not read".into()))
                    }
                    Ok(m) if m.len() != e.bytes => Some(Difference::Different(format!(
                        "{} bytes, the manifest says {}",
                        m.len(),
                        e.bytes
                    ))),
                    Ok(_) => match hash_file(&path, sha256) {
                        Err(err) => Some(Difference::Different(err.to_string())),
                        Ok(h) => h.differs(e, sha256).map(Difference::Different),
                    },
                };
                (e.path.clone(), found)
            })
            .collect();
        for p in present {
            if self.entries.binary_search_by(|e| e.path.cmp(&p)).is_err() {
                results.push((p, Some(Difference::Extra)));
            }
        }
        results.sort_by(|a, b| a.0.cmp(&b.0));
        let mut check = ManifestCheck::default();
        for (path, d) in results {
            match d {
                None => check.matching.push(path),
                Some(d) => check.differences.push((path, d)),
            }
        }
        Ok(check)
    }
}

/// `fanotb 0.1.0, table format 1, index scheme 1`: tables are deterministic, so
/// this names every writer that makes the same bytes.
fn writer() -> String {
    format!(
        "fanotb {}, table format {FORMAT_VERSION}, index scheme {INDEX_SCHEME}",
        env!("CARGO_PKG_VERSION")
    )
}

/// A file's checksums as read.
struct Hashes {
    bytes: u64,
    stored: u64,
    computed: u64,
    /// The last 8 bytes are the table's end marker.
    marked: bool,
    sha256: Option<[u8; 32]>,
}

impl Hashes {
    fn entry(self, path: String) -> ManifestEntry {
        ManifestEntry {
            path,
            bytes: self.bytes,
            xxh3: self.stored,
            sha256: self.sha256.unwrap_or_default(),
        }
    }

    /// Why the file's bytes do not hold together (its own checksum, its end
    /// marker), if they do not.
    fn damage(&self) -> Option<String> {
        if !self.marked {
            return Some("damaged: its last 8 bytes are not a table's end marker".into());
        }
        (self.computed != self.stored).then(|| {
            format!(
                "damaged: its bytes give xxh3 {:016x}, it stores {:016x}",
                self.computed, self.stored
            )
        })
    }

    /// Why the file is not the one `e` lists, if it is not.
    fn differs(&self, e: &ManifestEntry, sha256: bool) -> Option<String> {
        if self.stored != e.xxh3 {
            return Some(format!(
                "stored xxh3 {:016x}, the manifest says {:016x}",
                self.stored, e.xxh3
            ));
        }
        if let Some(d) = self.damage() {
            return Some(d);
        }
        match self.sha256 {
            Some(s) if sha256 && s != e.sha256 => Some(format!(
                "SHA-256 {}, the manifest says {}",
                hex(&s),
                hex(&e.sha256)
            )),
            _ => None,
        }
    }
}

/// Reads `path` once: its size, the xxh3 stored at end-16, the xxh3 of every byte
/// before it, and with `sha256` the SHA-256 of the whole file.
fn hash_file(path: &Path, sha256: bool) -> Result<Hashes, ManifestError> {
    hash_file_in(path, sha256, 1 << 20)
}

/// As `hash_file`, reading `chunk` bytes at a time.
fn hash_file_in(path: &Path, sha256: bool, chunk: usize) -> Result<Hashes, ManifestError> {
    let io = |source| ManifestError::Io {
        path: path.into(),
        source,
    };
    // A FIFO or a device under a listed name is refused, not waited on.
    let mut f = crate::files::read::open_regular(path).map_err(io)?;
    let bytes = f.metadata().map_err(io)?.len();
    let body = bytes.checked_sub(16).ok_or_else(|| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "shorter than a table's trailer",
        ))
    })?;
    let (mut xxh, mut sha) = (Xxh3::new(), sha256.then(Sha256::new));
    let mut buf = vec![0u8; chunk];
    let mut read = 0u64;
    let mut tail = [0u8; 16];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        if let Some(s) = sha.as_mut() {
            s.update(chunk);
        }
        // Hash the body; keep the trailer's bytes.
        let body_part = (body.saturating_sub(read)).min(n as u64) as usize;
        xxh.update(&chunk[..body_part]);
        for (i, &b) in chunk.iter().enumerate().skip(body_part) {
            let at = (read + i as u64 - body) as usize;
            if let Some(t) = tail.get_mut(at) {
                *t = b;
            }
        }
        read += n as u64;
    }
    if read != bytes {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("read {read} bytes of {bytes}: the file changed while read"),
        )));
    }
    Ok(Hashes {
        bytes,
        stored: crate::files::bytes::u64_at(&tail, 0),
        computed: xxh.digest(),
        marked: tail[8..] == END_MAGIC,
        sha256: sha.map(|s| s.finalize().into()),
    })
}

/// Every `*.fntb` file under `dir`, as sorted relative paths with `/`. Symbolic
/// links are followed (a directory may gather boards built elsewhere), to a depth
/// of `MAX_DEPTH`, so a link loop ends.
fn table_files(dir: &Path) -> Result<Vec<String>, ManifestError> {
    const MAX_DEPTH: usize = 4;
    fn walk(
        dir: &Path,
        prefix: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), ManifestError> {
        let io = |source| ManifestError::Io {
            path: dir.into(),
            source,
        };
        for e in std::fs::read_dir(dir).map_err(io)? {
            let e = e.map_err(io)?;
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                return Err(ManifestError::Name(e.path()));
            };
            if name.chars().any(char::is_control) {
                return Err(ManifestError::Name(e.path()));
            }
            // A dangling link is neither a table nor a directory.
            let Ok(meta) = std::fs::metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() && depth < MAX_DEPTH {
                walk(&e.path(), &format!("{prefix}{name}/"), depth + 1, out)?;
            } else if meta.is_file() && super::layout::is_table_file(Path::new(&name)) {
                out.push(format!("{prefix}{name}"));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", 0, &mut out)?;
    out.sort();
    Ok(out)
}

impl ManifestEntry {
    /// The stored xxh3 as a manifest writes it: 16 hex digits.
    pub fn xxh3_hex(&self) -> String {
        format!("{:016x}", self.xxh3)
    }

    /// The SHA-256 as a manifest writes it: 64 hex digits.
    pub fn sha256_hex(&self) -> String {
        hex(&self.sha256)
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The manifest's text: a title, the writer, a column line, then one tab-separated
/// line a file: path, bytes, xxh3 (16 hex digits), SHA-256 (64 hex digits).
impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{TITLE}: written by {}", self.writer)?;
        writeln!(f, "# path\tbytes\txxh3\tsha256")?;
        for e in &self.entries {
            writeln!(
                f,
                "{}\t{}\t{:016x}\t{}",
                e.path,
                e.bytes,
                e.xxh3,
                hex(&e.sha256)
            )?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Manifest {
    type Err = ManifestError;

    fn from_str(text: &str) -> Result<Manifest, ManifestError> {
        let bad = |line: usize, what: String| ManifestError::Syntax { line, what };
        let mut lines = text.lines().enumerate();
        let writer = lines
            .next()
            .and_then(|(_, l)| l.strip_prefix(TITLE))
            .and_then(|l| l.strip_prefix(": written by "))
            .ok_or_else(|| bad(1, format!("a manifest starts with \"{TITLE}: written by\"")))?
            .to_string();
        let mut entries: Vec<ManifestEntry> = Vec::new();
        for (n, line) in lines {
            let n = n + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let [path, bytes, xxh3, sha] = f[..] else {
                return Err(bad(
                    n,
                    format!("{} fields, not 4 (path, bytes, xxh3, sha256)", f.len()),
                ));
            };
            let safe = !path.is_empty()
                && !path.starts_with('/')
                && path
                    .split('/')
                    .all(|p| !p.is_empty() && p != "." && p != "..");
            if !safe || !path.ends_with(".fntb") {
                return Err(bad(
                    n,
                    format!("{path:?} is not a table path under the directory"),
                ));
            }
            let bytes = bytes
                .parse()
                .map_err(|_| bad(n, format!("{bytes:?} is not a size")))?;
            let hex16 = xxh3.len() == 16 && xxh3.bytes().all(|b| b.is_ascii_hexdigit());
            let xxh3 = hex16
                .then(|| u64::from_str_radix(xxh3, 16).ok())
                .flatten()
                .ok_or_else(|| bad(n, format!("{xxh3:?} is not 16 hex digits")))?;
            let mut sha256 = [0u8; 32];
            let digits = sha.as_bytes();
            if digits.len() != 64 || !digits.iter().all(u8::is_ascii_hexdigit) {
                return Err(bad(n, format!("{sha:?} is not 64 hex digits")));
            }
            for (i, b) in sha256.iter_mut().enumerate() {
                *b = u8::from_str_radix(&sha[2 * i..2 * i + 2], 16).expect("hex digits");
            }
            if entries.last().is_some_and(|e| e.path.as_str() >= path) {
                return Err(bad(n, format!("{path} is out of order or listed twice")));
            }
            entries.push(ManifestEntry {
                path: path.into(),
                bytes,
                xxh3,
                sha256,
            });
        }
        Ok(Manifest { writer, entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `body` bytes, its xxh3, and an end marker: a table's trailer.
    fn trailed(body: &[u8]) -> Vec<u8> {
        let mut f = body.to_vec();
        f.extend(xxhash_rust::xxh3::xxh3_64(body).to_le_bytes());
        f.extend(END_MAGIC);
        f
    }

    #[test]
    fn the_trailer_is_read_whatever_the_reads_and_damage_anywhere_shows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.fntb");
        let good = trailed(b"the bytes of a table, more or less");
        for chunk in [1, 3, 7, 16, 17, 1 << 20] {
            std::fs::write(&path, &good).unwrap();
            let h = hash_file_in(&path, true, chunk).unwrap();
            assert_eq!(h.damage(), None, "chunk {chunk}");
            assert_eq!(h.bytes, good.len() as u64);
            // Damage in the body, the stored checksum, or the end marker.
            for at in [0, good.len() - 16, good.len() - 1] {
                let mut bad = good.clone();
                bad[at] ^= 1;
                std::fs::write(&path, &bad).unwrap();
                let h = hash_file_in(&path, false, chunk).unwrap();
                assert!(h.damage().is_some(), "chunk {chunk}, byte {at}");
            }
        }
        std::fs::write(&path, b"short").unwrap();
        assert!(hash_file(&path, false).is_err());
    }
}
