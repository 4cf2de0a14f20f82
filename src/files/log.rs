//! The logs of a lemma directory (`jobs.tsv`, `tree.tsv`, `checked.tsv`):
//! tab-separated lines under a header, appended one whole line at a time, read back
//! whole. A line a kill cut short has too few fields, and readers pass over it.
//!
//! A log may have sealed parts, `NAME.zst` (`tree.tsv.zst`), `NAME.1.zst`, ...:
//! the lines each `seal` took, header first, compressed; appends go on in `NAME`.
//! Readers see the sealed lines, part after part, then the open ones. A few days
//! of the tsivy tree's log is 13 MB of text and 1.8 MB sealed.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The longest log read back, sealed and open parts together.
const MAX_LOG: u64 = 1 << 30;

pub(crate) struct TsvLog {
    path: PathBuf,
    header: &'static str,
    /// One writer at a time in this process, so that lines do not interleave.
    lock: Mutex<()>,
}

/// The sealed part `index` of the log at `path`: `NAME.zst` for the first,
/// `NAME.INDEX.zst` for each later one.
fn part_path(path: &Path, index: u64) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    if index > 0 {
        name.push(format!(".{index}"));
    }
    name.push(".zst");
    name.into()
}

/// The sealed parts of the log at `path`, in the order they were sealed: their
/// indexes (see `part_path`) and compressed bytes. Other names are passed over.
fn parts(path: &Path) -> std::io::Result<Vec<(u64, u64)>> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let entries = match std::fs::read_dir(dir.unwrap_or(Path::new("."))) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        r => r?,
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(name.as_ref()))
            .and_then(|f| f.strip_suffix(".zst"))
        else {
            continue;
        };
        let index = match rest.strip_prefix('.') {
            None if rest.is_empty() => 0,
            // Digits only, as `part_path` writes them: "+1" or "01" is another file.
            Some(d) if !d.starts_with(['0', '+']) => match d.parse::<u64>() {
                Ok(i) => i,
                Err(_) => continue,
            },
            _ => continue,
        };
        match entry.metadata() {
            Ok(m) => found.push((index, m.len())),
            // Merged away since the listing began.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The text of `path`, `None` if there is no such file.
fn text_if_any(path: &Path, max: u64) -> std::io::Result<Option<String>> {
    match crate::files::read::read_text_bounded(path, max) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        r => r.map(Some),
    }
}

/// The sealed part `index` of the log at `path`, decompressed.
fn part_text(path: &Path, index: u64) -> std::io::Result<String> {
    let path = part_path(path, index);
    let bytes = crate::files::read::read_bounded(&path, MAX_LOG)?;
    let damaged = |why: String| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: a damaged sealed log ({why})", path.display()),
        )
    };
    let mut text = String::new();
    zstd::stream::Decoder::new(bytes.as_slice())
        .map_err(|e| damaged(e.to_string()))?
        .take(MAX_LOG + 1)
        .read_to_string(&mut text)
        .map_err(|e| damaged(e.to_string()))?;
    if text.len() as u64 > MAX_LOG {
        return Err(damaged(format!("more than {MAX_LOG} bytes of text")));
    }
    Ok(text)
}

/// The text of these sealed parts of the log at `path`, in order, as one log.
fn parts_text(path: &Path, indexes: &[u64]) -> std::io::Result<String> {
    let mut text = String::new();
    for &i in indexes {
        text = combine(path, text, &part_text(path, i)?)?;
    }
    Ok(text)
}

impl TsvLog {
    /// The log `name` of `dir`, with this header line.
    pub(crate) fn new(dir: &Path, name: &str, header: &'static str) -> TsvLog {
        TsvLog {
            path: dir.join(name),
            header,
            lock: Mutex::new(()),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The whole text, the sealed lines first; empty when there is no log yet.
    pub(crate) fn read(&self) -> std::io::Result<String> {
        read_log(&self.path)
    }

    /// Appends `line` (without its newline), after the header if the log is new.
    pub(crate) fn append(&self, line: &str) -> std::io::Result<()> {
        let _one = self.lock.lock().expect("the log lock is not poisoned");
        let mut f = open_locked(&self.path, true)?.expect("created");
        let text = if f.metadata()?.len() == 0 {
            format!("{}\n{line}\n", self.header)
        } else {
            format!("{line}\n")
        };
        // One write: lines of other processes appending do not cut into it.
        f.write_all(text.as_bytes())
    }
}

/// The whole text of the log at `path` (a lemma directory's `jobs.tsv`, `tree.tsv`
/// or `checked.tsv`): its sealed parts' lines (`NAME.zst`, then `NAME.1.zst`, ...),
/// then its open part's; empty when there is none.
///
/// # Errors
///
/// A part that cannot be read, is not a regular file or is larger than 1 GiB; a
/// sealed part that does not decompress or whose checksum fails; more than 1 GiB in
/// all.
pub fn read_log(path: &Path) -> std::io::Result<String> {
    // The open part first: a seal meanwhile puts its lines in a sealed part too,
    // read twice rather than missed.
    let open = text_if_any(path, MAX_LOG)?.unwrap_or_default();
    let mut tries = 0;
    let sealed = loop {
        let indexes: Vec<u64> = parts(path)?.iter().map(|&(i, _)| i).collect();
        match parts_text(path, &indexes) {
            // A part merged away since the listing: list again.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 8 => tries += 1,
            r => break r?,
        }
    };
    combine(path, sealed, &open)
}

/// The log's text from what came before (`sealed`) and a part after it (`open`).
/// Each part starts with its header line; a part under another header than the
/// one before (a record of another version of fanotb, begun after a seal)
/// replaces everything before it.
fn combine(path: &Path, mut sealed: String, open: &str) -> std::io::Result<String> {
    let first = |t: &str| t.split('\n').next().unwrap_or("").to_string();
    if sealed.is_empty() || (!open.is_empty() && first(open) != first(&sealed)) {
        return Ok(open.to_string());
    }
    let lines = open.split_once('\n').map_or("", |(_, rest)| rest);
    // A last line cut short stays a line of its own.
    if !sealed.ends_with('\n') {
        sealed.push('\n');
    }
    if sealed.len() + lines.len() > MAX_LOG as usize {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{}: more than {MAX_LOG} bytes", path.display()),
        ));
    }
    sealed.push_str(lines);
    Ok(sealed)
}

/// The open part of the log at `path`, opened to append (created if `create`, else
/// `None` if there is none) and locked (`flock`, exclusive): appenders and `seal`
/// take turns. Never through a link planted at its name, and only a regular file;
/// a file `seal` removed while this one waited for the lock is opened again.
fn open_locked(path: &Path, create: bool) -> std::io::Result<Option<std::fs::File>> {
    use std::os::unix::fs::MetadataExt;
    loop {
        let f = match std::fs::OpenOptions::new()
            .create(create)
            .append(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
        {
            Err(e) if !create && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            r => r?,
        };
        let meta = f.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file: not appended to",
            ));
        }
        f.lock()?;
        let named = std::fs::symlink_metadata(path);
        if named.is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino())) {
            return Ok(Some(f));
        }
    }
}

/// Seals the open part of the log at `path`: its lines become a new sealed part
/// (`NAME.N.zst`, after every other), written whole or not at all, then the open
/// part is removed, holding the open part's lock throughout: a line appended
/// meanwhile waits, then goes to a new open part. Sealed parts are never rewritten
/// whole for a few new lines (a repository that commits the log would store it
/// again each time): as `pack_lemmas` keeps packs, the oldest parts each of at
/// least twice the bytes of all newer ones are kept, and the newer ones merged into
/// one. Returns the bytes of the log before and after, `None` when there is no open
/// part to seal. A seal cut between its steps leaves lines in two parts: read
/// twice, which the logs' readers take as once.
pub(crate) fn seal(path: &Path) -> std::io::Result<Option<(u64, u64)>> {
    let Some(held) = open_locked(path, false)? else {
        return Ok(None);
    };
    let open = crate::files::read::read_text_bounded(path, MAX_LOG)?;
    let old = parts(path)?;
    let before = held.metadata()?.len() + old.iter().map(|&(_, b)| b).sum::<u64>();
    let next = match old.last() {
        None => 0,
        Some(&(i, _)) => i.checked_add(1).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: a sealed part numbered {i}: no number after it",
                    path.display()
                ),
            )
        })?,
    };
    write_part(path, next, &open)?;
    let mut all = parts(path)?;
    let mut newer: u64 = all.iter().map(|&(_, b)| b).sum();
    let mut kept = 0;
    for &(_, bytes) in &all {
        newer -= bytes;
        if bytes < 2 * newer {
            break;
        }
        kept += 1;
    }
    if kept + 1 < all.len() {
        let merged: Vec<u64> = all[kept..].iter().map(|&(i, _)| i).collect();
        let bytes = write_part(path, merged[0], &parts_text(path, &merged)?)?;
        for &i in &merged[1..] {
            std::fs::remove_file(part_path(path, i))?;
        }
        all.truncate(kept);
        all.push((merged[0], bytes));
    }
    std::fs::remove_file(path)?;
    drop(held);
    Ok(Some((before, all.iter().map(|&(_, b)| b).sum())))
}

/// Writes `text` as the sealed part `index` of the log at `path`, whole or not at
/// all; returns its bytes.
fn write_part(path: &Path, index: u64, text: &str) -> std::io::Result<u64> {
    // With zstd's checksum of the content: a flipped byte is an error, never
    // other lines.
    let mut z = zstd::bulk::Compressor::new(19)?;
    z.include_checksum(true)?;
    let packed = z.compress(text.as_bytes())?;
    crate::files::durable::replace_file(&part_path(path, index), |f| f.write_all(&packed))?;
    Ok(packed.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "a\tb";

    /// A log sealed, appended to, sealed again: read back the same lines in order
    /// at each step, one header; a damaged sealed part is an error, not an empty
    /// log.
    #[test]
    fn a_sealed_log_reads_as_it_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let log = TsvLog::new(dir.path(), "x.tsv", HEADER);
        assert_eq!(log.read().unwrap(), "");
        assert_eq!(seal(log.path()).unwrap(), None, "nothing to seal");
        for i in 0..100 {
            log.append(&format!("{i}\tfirst")).unwrap();
        }
        let all = |n: usize, m: usize| {
            let mut t = format!("{HEADER}\n");
            for i in 0..n {
                t.push_str(&format!("{i}\tfirst\n"));
            }
            for i in 0..m {
                t.push_str(&format!("{i}\tsecond\n"));
            }
            t
        };
        assert_eq!(log.read().unwrap(), all(100, 0));
        let (before, after) = seal(log.path()).unwrap().unwrap();
        assert!(after < before, "{after} < {before}");
        assert!(!log.path().exists());
        assert_eq!(log.read().unwrap(), all(100, 0));
        for i in 0..3 {
            log.append(&format!("{i}\tsecond")).unwrap();
        }
        assert_eq!(log.read().unwrap(), all(100, 3));
        seal(log.path()).unwrap().unwrap();
        assert_eq!(log.read().unwrap(), all(100, 3));

        let z = part_path(log.path(), 0);
        let mut bytes = std::fs::read(&z).unwrap();
        let n = bytes.len();
        bytes[n / 2] ^= 0x40;
        std::fs::write(&z, &bytes).unwrap();
        let e = log.read().unwrap_err();
        assert!(e.to_string().contains("damaged sealed log"), "{e}");
    }

    /// Logs sealed again and again, a few lines or many each time: read back
    /// every line in order (the reference: all the lines appended); a large old
    /// part is never rewritten for a few new lines, small parts are merged so that
    /// few stay, and names other than the parts' are passed over.
    #[test]
    fn seals_keep_old_parts_and_merge_small_ones() {
        let dir = tempfile::tempdir().unwrap();
        let log = TsvLog::new(dir.path(), "x.tsv", HEADER);
        for other in ["x.tsv.01.zst", "x.tsv.a.zst", "x.tsv.+1.zst", "y.tsv.1.zst"] {
            std::fs::write(dir.path().join(other), "not a part").unwrap();
        }
        let mut expected = format!("{HEADER}\n");
        let mut n = 0u64;
        let mut lines = |count: u64, expected: &mut String| {
            for _ in 0..count {
                // Numbers that do not repeat: each line costs bytes once compressed.
                let line = format!("{n}\t{}", n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                log.append(&line).unwrap();
                expected.push_str(&line);
                expected.push('\n');
                n += 1;
            }
        };
        lines(5000, &mut expected);
        seal(log.path()).unwrap().unwrap();
        let first = std::fs::read(part_path(log.path(), 0)).unwrap();
        for round in 0..40 {
            lines(10 + round % 7, &mut expected);
            seal(log.path()).unwrap().unwrap();
            assert_eq!(log.read().unwrap(), expected, "round {round}");
            let now = parts(log.path()).unwrap();
            assert!(now.len() <= 8, "round {round}: {now:?}");
            assert_eq!(now[0], (0, first.len() as u64), "round {round}");
        }
        assert_eq!(std::fs::read(part_path(log.path(), 0)).unwrap(), first);
        // Many new lines, as large as the first part: merged with it.
        lines(10_000, &mut expected);
        seal(log.path()).unwrap().unwrap();
        assert_eq!(parts(log.path()).unwrap().len(), 1);
        assert_eq!(log.read().unwrap(), expected);
        // A part planted with the last number: sealing after it is an error, and
        // the parts before it stay as they were.
        std::fs::copy(part_path(log.path(), 0), part_path(log.path(), u64::MAX)).unwrap();
        let first = std::fs::read(part_path(log.path(), 0)).unwrap();
        log.append("1\t2").unwrap();
        let e = seal(log.path()).unwrap_err();
        assert!(e.to_string().contains("no number after it"), "{e}");
        assert_eq!(std::fs::read(part_path(log.path(), 0)).unwrap(), first);
    }

    /// A log sealed under one header and continued under another (a new version's
    /// record): the new part alone is read, and sealing keeps it alone.
    #[test]
    fn a_new_header_replaces_the_sealed_part() {
        let dir = tempfile::tempdir().unwrap();
        let old = TsvLog::new(dir.path(), "x.tsv", "version 1");
        old.append("old line").unwrap();
        seal(old.path()).unwrap().unwrap();
        let new = TsvLog::new(dir.path(), "x.tsv", "version 2");
        assert_eq!(
            new.read().unwrap(),
            "version 1\nold line\n",
            "not yet replaced"
        );
        new.append("new line").unwrap();
        assert_eq!(new.read().unwrap(), "version 2\nnew line\n");
        seal(new.path()).unwrap().unwrap();
        assert_eq!(new.read().unwrap(), "version 2\nnew line\n");
        // Back to the old version: its open part, under its header, replaces in turn.
        old.append("old again").unwrap();
        assert_eq!(old.read().unwrap(), "version 1\nold again\n");
    }
}
