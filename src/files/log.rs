//! The logs of a lemma directory (`jobs.tsv`, `tree.tsv`, `checked.tsv`):
//! tab-separated lines under a header, appended one whole line at a time, read back
//! whole. A line a kill cut short has too few fields, and readers pass over it.
//!
//! A log may have a sealed part, `NAME.zst` (`tree.tsv.zst`): the lines `seal`
//! folded in, header first, compressed; appends go on in `NAME`. Readers see the
//! sealed lines, then the open ones. A few days of the tsivy tree's log is 13 MB
//! of text and 1.8 MB sealed.

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

/// `path` with `.zst` after its name: where its sealed part is.
fn sealed(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".zst");
    name.into()
}

/// The text of `path`, `None` if there is no such file.
fn text_if_any(path: &Path, max: u64) -> std::io::Result<Option<String>> {
    match crate::files::read::read_text_bounded(path, max) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        r => r.map(Some),
    }
}

/// The sealed part of the log at `path` decompressed, `None` if there is none.
fn sealed_text(path: &Path) -> std::io::Result<Option<String>> {
    let path = sealed(path);
    let bytes = match crate::files::read::read_bounded(&path, MAX_LOG) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        r => r?,
    };
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
    Ok(Some(text))
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
/// or `checked.tsv`): its sealed part's lines (`NAME.zst`), then its open part's;
/// empty when there is neither.
///
/// # Errors
///
/// A part that cannot be read, is not a regular file or is larger than 1 GiB; a
/// sealed part that does not decompress or whose checksum fails.
pub fn read_log(path: &Path) -> std::io::Result<String> {
    let open = text_if_any(path, MAX_LOG)?.unwrap_or_default();
    let sealed = sealed_text(path)?.unwrap_or_default();
    combine(path, sealed, &open)
}

/// The log's text from its sealed part and its open part. Each part starts with
/// its header line; an open part under another header than the sealed part's (a
/// record of another version of fanotb, begun after the seal) replaces it.
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

/// Folds the open part of the log at `path` into its sealed part (`NAME.zst`),
/// written whole or not at all, then removes the open part, holding the open
/// part's lock throughout: a line appended meanwhile waits, then goes to a new open
/// part. Returns the bytes of the log before and after, `None` when there is no
/// open part to fold. A fold cut between its two steps leaves the open lines in
/// both parts: read twice, which the logs' readers take as once.
pub(crate) fn seal(path: &Path) -> std::io::Result<Option<(u64, u64)>> {
    let Some(held) = open_locked(path, false)? else {
        return Ok(None);
    };
    let open = crate::files::read::read_text_bounded(path, MAX_LOG)?;
    let old = sealed_text(path)?;
    let before = held.metadata()?.len()
        + old
            .as_ref()
            .map_or(Ok(0), |_| std::fs::metadata(sealed(path)).map(|m| m.len()))?;
    let text = combine(path, old.unwrap_or_default(), &open)?;
    // With zstd's checksum of the content: a flipped byte is an error, never
    // other lines.
    let mut z = zstd::bulk::Compressor::new(19)?;
    z.include_checksum(true)?;
    let packed = z.compress(text.as_bytes())?;
    crate::files::durable::replace_file(&sealed(path), |f| f.write_all(&packed))?;
    std::fs::remove_file(path)?;
    drop(held);
    Ok(Some((before, packed.len() as u64)))
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

        let z = sealed(log.path());
        let mut bytes = std::fs::read(&z).unwrap();
        let n = bytes.len();
        bytes[n / 2] ^= 0x40;
        std::fs::write(&z, &bytes).unwrap();
        let e = log.read().unwrap_err();
        assert!(e.to_string().contains("damaged sealed log"), "{e}");
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
