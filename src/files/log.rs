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

/// The most sealed parts a log may have: the merges keep about log2 of its bytes.
const MAX_PARTS: usize = 64;

/// The sealed parts of the log at `path`, in the order they were sealed: their
/// indexes (see `part_path`) and compressed bytes. Other names are passed over.
fn parts(path: &Path) -> std::io::Result<Vec<(u64, u64)>> {
    use std::os::unix::ffi::OsStrExt;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let name = path.file_name().unwrap_or_default().as_bytes();
    let entries = match std::fs::read_dir(dir.unwrap_or(Path::new("."))) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        r => r?,
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name();
        let Some(rest) = file
            .as_bytes()
            .strip_prefix(name)
            .and_then(|f| f.strip_suffix(b".zst"))
        else {
            continue;
        };
        let index = match rest.strip_prefix(b".") {
            None if rest.is_empty() => 0,
            // Digits only, as `part_path` writes them: "+1" or "01" is another file.
            Some([b'1'..=b'9', ..]) => match std::str::from_utf8(&rest[1..]).map(str::parse) {
                Ok(Ok(i)) => i,
                _ => continue,
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
    if found.len() > MAX_PARTS {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{}: {} sealed parts, more than {MAX_PARTS}",
                path.display(),
                found.len()
            ),
        ));
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
    let (text, whole) = read_part(path, index, MAX_LOG)?;
    if !whole {
        return Err(damaged(
            path,
            index,
            format!("more than {MAX_LOG} bytes of text"),
        ));
    }
    String::from_utf8(text).map_err(|e| damaged(path, index, e.to_string()))
}

/// The header line of the sealed part `index` of the log at `path`: the first
/// line of its text, as far as its first 64 KiB go.
fn part_header(path: &Path, index: u64) -> std::io::Result<Vec<u8>> {
    let (mut text, _) = read_part(path, index, 1 << 16)?;
    text.truncate(text.iter().position(|&b| b == b'\n').unwrap_or(text.len()));
    Ok(text)
}

/// The first `max` bytes of the text of the sealed part `index` of the log at
/// `path`, and whether they are all of it.
fn read_part(path: &Path, index: u64, max: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let file = part_path(path, index);
    // The part's name on every error, and the kind kept (NotFound: merged away).
    let bytes = crate::files::read::read_bounded(&file, MAX_LOG)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
    let mut text = Vec::new();
    zstd::stream::Decoder::new(bytes.as_slice())
        .and_then(|d| d.take(max + 1).read_to_end(&mut text))
        .map_err(|e| damaged(path, index, e.to_string()))?;
    let whole = text.len() as u64 <= max;
    text.truncate(max as usize);
    Ok((text, whole))
}

/// The error of a sealed part that does not read back as it was written.
fn damaged(path: &Path, index: u64, why: String) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: a damaged sealed log ({why})",
            part_path(path, index).display()
        ),
    )
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
        let listed = parts(path)?;
        let indexes: Vec<u64> = listed.iter().map(|&(i, _)| i).collect();
        // A seal's merge meanwhile (a part gone, or other parts listed after the
        // read): read again.
        match parts_text(path, &indexes) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 8 => {}
            Ok(_) if parts(path)? != listed && tries < 8 => {}
            r => break r?,
        }
        tries += 1;
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
/// (`NAME.N.zst`, numbered after every other), written whole or not at all, then
/// the open part is removed, holding the open part's lock throughout: a line
/// appended meanwhile waits, then goes to a new open part. The sealed parts are
/// then tidied (`tidy`) so that a seal of a few lines seldom rewrites the old
/// ones, which a repository that commits the log would store again each time.
/// Returns the bytes of the log before and after, `None` when there is no open
/// part to seal. A seal cut between its steps leaves lines in two parts: read
/// twice, which the logs' readers take as once.
pub(crate) fn seal(path: &Path) -> std::io::Result<Option<(u64, u64)>> {
    let Some(held) = open_locked(path, false)? else {
        return Ok(None);
    };
    let open = crate::files::read::read_text_bounded(path, MAX_LOG)?;
    let old = parts(path)?;
    let before = old
        .iter()
        .fold(held.metadata()?.len(), |sum, &(_, b)| sum.saturating_add(b));
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
    // The open lines are sealed: whatever the tidying meets, they are not sealed
    // again by the next seal.
    let tidied = tidy(path);
    std::fs::remove_file(path)?;
    drop(held);
    Ok(Some((before, tidied?)))
}

/// Tidies the sealed parts of the log at `path`; returns their bytes after. Parts
/// before the last change of header are read by no one (`combine`) and removed;
/// of the others, from the oldest, each part of at least twice the bytes of all
/// newer ones is kept as it is, and the newer ones are merged into one under the
/// newest one's number (numbers only grow: a reader that listed the parts before
/// meets a part gone, and lists again). Each byte is rewritten about log2 of the
/// log's bytes times over the log's life.
fn tidy(path: &Path) -> std::io::Result<u64> {
    let mut all = parts(path)?;
    let headers = all
        .iter()
        .map(|&(i, _)| part_header(path, i))
        .collect::<std::io::Result<Vec<_>>>()?;
    let live = (1..all.len())
        .rev()
        .find(|&k| headers[k] != headers[k - 1])
        .unwrap_or(0);
    for &(i, _) in &all[..live] {
        std::fs::remove_file(part_path(path, i))?;
    }
    all.drain(..live);
    let mut newer = all.iter().fold(0u64, |sum, &(_, b)| sum.saturating_add(b));
    let mut kept = 0;
    for &(_, bytes) in &all {
        newer = newer.saturating_sub(bytes);
        if bytes < newer.saturating_mul(2) {
            break;
        }
        kept += 1;
    }
    if kept + 1 < all.len() {
        let merged: Vec<u64> = all[kept..].iter().map(|&(i, _)| i).collect();
        let last = merged[merged.len() - 1];
        let bytes = write_part(path, last, &parts_text(path, &merged)?)?;
        for &i in &merged[..merged.len() - 1] {
            std::fs::remove_file(part_path(path, i))?;
        }
        all.truncate(kept);
        all.push((last, bytes));
    }
    Ok(all.iter().fold(0u64, |sum, &(_, b)| sum.saturating_add(b)))
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
        // Many new lines, as large as the first part: merged with it, under the
        // newest part's number.
        lines(10_000, &mut expected);
        seal(log.path()).unwrap().unwrap();
        let now = parts(log.path()).unwrap();
        assert_eq!(now.len(), 1, "{now:?}");
        assert!(now[0].0 > 40, "{now:?}");
        assert_eq!(log.read().unwrap(), expected);
        // A seal cut after its new part was written, before the open part was
        // removed: the open lines read twice, never lost, then sealed again.
        lines(3, &mut expected);
        let open = std::fs::read_to_string(log.path()).unwrap();
        write_part(log.path(), now[0].0 + 1, &open).unwrap();
        let twice = format!("{expected}{}", open.split_once('\n').unwrap().1);
        assert_eq!(log.read().unwrap(), twice);
        seal(log.path()).unwrap().unwrap();
        assert_eq!(log.read().unwrap(), twice);
        // A part planted with the last number: sealing after it is an error, and
        // the open lines are sealed all the same (not again at the next seal).
        let last = parts(log.path()).unwrap().last().unwrap().0;
        std::fs::copy(part_path(log.path(), last), part_path(log.path(), u64::MAX)).unwrap();
        log.append("1\t2").unwrap();
        let e = seal(log.path()).unwrap_err();
        assert!(e.to_string().contains("no number after it"), "{e}");
        assert!(log.path().exists(), "not sealed: nothing written");
    }

    /// A log whose name is not UTF-8 is sealed and read as any other.
    #[test]
    fn a_log_of_any_name_seals() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(std::ffi::OsStr::from_bytes(b"x\xff.tsv"));
        let log = TsvLog {
            path: path.clone(),
            header: HEADER,
            lock: Mutex::new(()),
        };
        for line in ["1\ta", "2\tb"] {
            log.append(line).unwrap();
            seal(&path).unwrap().unwrap();
        }
        assert_eq!(parts(&path).unwrap().len(), 1, "the two merged");
        assert_eq!(read_log(&path).unwrap(), format!("{HEADER}\n1\ta\n2\tb\n"));
    }

    /// A log sealed under one header and continued under another (a new version's
    /// record): the new part alone is read, and sealing keeps it alone.
    #[test]
    fn a_new_header_replaces_the_sealed_part() {
        let dir = tempfile::tempdir().unwrap();
        let old = TsvLog::new(dir.path(), "x.tsv", "version 1");
        let mut first = "version 1\n".to_string();
        // Many lines: a part that a seal of a few lines keeps.
        for i in 0..2000u64 {
            let line = format!("old line {}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            old.append(&line).unwrap();
            first.push_str(&line);
            first.push('\n');
        }
        seal(old.path()).unwrap().unwrap();
        let new = TsvLog::new(dir.path(), "x.tsv", "version 2");
        assert_eq!(new.read().unwrap(), first, "not yet replaced");
        new.append("new line").unwrap();
        assert_eq!(new.read().unwrap(), "version 2\nnew line\n");
        seal(new.path()).unwrap().unwrap();
        assert_eq!(new.read().unwrap(), "version 2\nnew line\n");
        // Back to the old version: its open part, under its header, replaces in turn.
        old.append("old again").unwrap();
        assert_eq!(old.read().unwrap(), "version 1\nold again\n");
        // Sealed, it stays alone (the last two parts merged under the first one's
        // header do not bring the first part back), and the parts no one reads are
        // gone.
        seal(old.path()).unwrap().unwrap();
        assert_eq!(old.read().unwrap(), "version 1\nold again\n");
        assert_eq!(parts(old.path()).unwrap().len(), 1);
    }
}
