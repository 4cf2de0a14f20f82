//! The logs of a lemma directory (`jobs.tsv`, `tree.tsv`): tab-separated lines
//! under a header, appended one whole line at a time, read back whole. A line a
//! kill cut short has too few fields, and readers pass over it.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The longest log read back: the tsivy tree's log of a few days' search is 5 MB.
const MAX_LOG: u64 = 1 << 30;

pub(super) struct TsvLog {
    path: PathBuf,
    header: &'static str,
    /// One writer at a time in this process, so that lines do not interleave.
    lock: Mutex<()>,
}

impl TsvLog {
    /// The log `name` of `dir`, with this header line.
    pub(super) fn new(dir: &Path, name: &str, header: &'static str) -> TsvLog {
        TsvLog {
            path: dir.join(name),
            header,
            lock: Mutex::new(()),
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The whole text, empty when there is no log yet.
    pub(super) fn read(&self) -> std::io::Result<String> {
        match crate::files::read::read_text_bounded(&self.path, MAX_LOG) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            r => r,
        }
    }

    /// Appends `line` (without its newline), after the header if the log is new.
    pub(super) fn append(&self, line: &str) -> std::io::Result<()> {
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
