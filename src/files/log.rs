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
        let open = text_if_any(&self.path, MAX_LOG)?.unwrap_or_default();
        let Some(mut text) = sealed_text(&self.path)? else {
            return Ok(open);
        };
        // The open part begun after a seal starts with the header again.
        let lines = open
            .strip_prefix(self.header)
            .and_then(|rest| rest.strip_prefix('\n'))
            .unwrap_or(&open);
        if text.len() + lines.len() > MAX_LOG as usize {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!("{}: more than {MAX_LOG} bytes", self.path.display()),
            ));
        }
        text.push_str(lines);
        Ok(text)
    }

    /// Appends `line` (without its newline), after the header if the log is new.
    pub(crate) fn append(&self, line: &str) -> std::io::Result<()> {
        let _one = self.lock.lock().expect("the log lock is not poisoned");
        let new = !self.path.exists();
        // Appended in place (other processes append too), so never through a link
        // planted at its name, and only to a regular file.
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&self.path)?;
        if !f.metadata()?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file: not appended to",
            ));
        }
        let text = if new {
            format!("{}\n{line}\n", self.header)
        } else {
            format!("{line}\n")
        };
        // One write: lines of other processes appending do not cut into it.
        f.write_all(text.as_bytes())
    }
}

/// Folds the open part of the log at `path` into its sealed part (`NAME.zst`),
/// written whole or not at all, then removes the open part; for a lemma directory
/// no process writes to (`pack-lemmas`). Returns the bytes of the log before and
/// after, `None` when there is no open part to fold. A fold cut between its two
/// steps leaves the open lines in both parts: read twice, which the logs' readers
/// take as once.
pub(crate) fn seal(path: &Path) -> std::io::Result<Option<(u64, u64)>> {
    let Some(open) = text_if_any(path, MAX_LOG)? else {
        return Ok(None);
    };
    let old = sealed_text(path)?;
    let before = std::fs::metadata(path)?.len()
        + old
            .as_ref()
            .map_or(Ok(0), |_| std::fs::metadata(sealed(path)).map(|m| m.len()))?;
    let mut text = old.unwrap_or_default();
    // The open part's own header line when the sealed part has one already.
    let (first, rest) = open.split_once('\n').unwrap_or((&open, ""));
    if text.is_empty() || text.lines().next() != Some(first) {
        text.push_str(&open);
    } else {
        text.push_str(rest);
    }
    // With zstd's checksum of the content: a flipped byte is an error, never
    // other lines.
    let mut z = zstd::bulk::Compressor::new(19)?;
    z.include_checksum(true)?;
    let packed = z.compress(text.as_bytes())?;
    crate::files::durable::replace_file(&sealed(path), |f| f.write_all(&packed))?;
    std::fs::remove_file(path)?;
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
}
