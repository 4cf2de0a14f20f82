//! Work that survives failures: files written whole or not at all, and the lock that
//! keeps two builds out of one table directory.

use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Writes a file whole or not at all: `write` fills `PATH.tmp`, which is fsynced and
/// renamed over `path`, and the rename is made durable; on any error the temporary
/// file is removed, so a full disk leaves nothing behind. Only a regular file (or
/// nothing) is replaced: a device, a FIFO, a directory or a symbolic link at `path`
/// is not the writer's, and is refused untouched.
pub(crate) fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_unsynced(path, write)?.commit()
}

/// The first half of `replace_file`: `write` fills `PATH.tmp`, and the file waits
/// for `Unsynced::commit`, the half that waits for the disk, which a caller may
/// leave to another thread while it goes on.
pub(crate) fn write_unsynced(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<Unsynced> {
    if fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "exists and is not a regular file: not replaced",
        ));
    }
    let tmp = tmp_path(path);
    // Readable too: a writer may read back what it wrote (the table writer's checksum).
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)?;
    // From here on, an error drops the value, which removes the temporary file.
    let mut unsynced = Unsynced {
        tmp,
        path: path.to_path_buf(),
        file: Some(file),
    };
    write(unsynced.file.as_mut().expect("open until committed"))?;
    Ok(unsynced)
}

/// A file written whole under its temporary name, not yet durable nor in place.
/// Dropped without `commit` (an error, or a caller that no longer wants it), it
/// removes the temporary file.
#[derive(Debug)]
pub(crate) struct Unsynced {
    tmp: PathBuf,
    path: PathBuf,
    /// `None` once renamed: nothing left to remove.
    file: Option<File>,
}

impl Unsynced {
    /// Makes the file durable, renames it over its path and makes the rename durable.
    pub(crate) fn commit(mut self) -> std::io::Result<()> {
        self.file
            .as_ref()
            .expect("open until committed")
            .sync_all()?;
        fs::rename(&self.tmp, &self.path)?;
        self.file = None;
        let parent = self.path.parent().filter(|p| !p.as_os_str().is_empty());
        File::open(parent.unwrap_or(Path::new("."))).and_then(|d| d.sync_all())
    }
}

impl Drop for Unsynced {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// `PATH.tmp`: where `replace_file` writes before the rename.
fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Removes the `.tmp` files an interrupted writer left in `dir` (not recursive).
/// Only for a directory this process holds the lock of.
pub(crate) fn remove_tmp_files(dir: &Path) -> std::io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        r => r?,
    };
    for e in entries {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == "tmp") && path.is_file() {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// An exclusive lock on a directory, held while the value lives: the lock file
/// `.fanotb.lock` in it, locked by the kernel (so a killed process releases it) and
/// holding the owner's process id.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

/// Why a directory could not be locked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "{} is in use by {} (another build writing tables there)",
        dir.display(),
        if pid.is_empty() { "another process".to_string() } else { format!("process {pid}") }
    )]
    Busy {
        /// The directory.
        dir: PathBuf,
        /// The holder's process id, as it wrote it (empty if it had not yet).
        pid: String,
    },
    /// The lock file cannot be created or locked.
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl DirLock {
    /// Locks `dir` (creating it), or fails at once if another process holds it.
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock, LockError> {
        let path = dir.join(".fanotb.lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(io)?;
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                return Err(LockError::Busy {
                    dir: dir.to_path_buf(),
                    pid: pid.trim().to_string(),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .map_err(io)?;
        Ok(DirLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, "mine").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = replace_file(&link, |f| f.write_all(b"new")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
        assert!(replace_file(dir.path(), |f| f.write_all(b"new")).is_err());
        replace_file(&target, |f| f.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn a_failed_write_leaves_neither_the_file_nor_its_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let full = std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full");
        let e = replace_file(&path, |f| {
            f.write_all(b"half")?;
            Err(full)
        })
        .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        // And a successful one replaces the file whole.
        replace_file(&path, |f| f.write_all(b"whole")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"whole");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A file written but not committed is not in place, and dropped leaves nothing.
    #[test]
    fn an_unsynced_file_replaces_the_old_one_only_once_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.bin");
        fs::write(&path, "old").unwrap();
        let written = write_unsynced(&path, |f| f.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        drop(written);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let written = write_unsynced(&path, |f| f.write_all(b"new")).unwrap();
        // Committed elsewhere, as the generator does with its checkpoints.
        std::thread::spawn(move || written.commit())
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_second_holder_is_told_the_first_ones_pid() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path()).unwrap();
        match DirLock::acquire(dir.path()) {
            Err(LockError::Busy { pid, .. }) => assert_eq!(pid, std::process::id().to_string()),
            other => panic!("{other:?}"),
        }
        drop(first);
        DirLock::acquire(dir.path()).unwrap();
    }
}
