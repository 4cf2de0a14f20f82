//! Work that survives failures: files written whole or not at all, and the lock that
//! keeps two builds out of one table directory.

use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Writes a file whole or not at all: `write` fills a temporary file beside `path`,
/// which is fsynced and renamed over `path`, and the rename is made durable; on any
/// error the temporary file is removed, so a full disk leaves nothing behind. The
/// temporary file is created exclusively under a fresh random name (`NAME.XXXXXX.tmp`,
/// `O_EXCL`), so no link, FIFO or device planted there is followed or written into.
/// Only a regular file (or nothing) is replaced: a device, a FIFO, a directory or a
/// symbolic link at `path` is not the writer's, and is refused untouched.
pub fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_unsynced(path, write)?.commit()
}

/// The first half of `replace_file`: `write` fills the temporary file, which waits
/// for `Unsynced::commit`, the half that waits for the disk, which a caller may
/// leave to another thread while it goes on.
pub(crate) fn write_unsynced(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<Unsynced> {
    refuse_non_regular(path)?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let mut prefix = path.file_name().unwrap_or_default().to_owned();
    prefix.push(".");
    // Readable too: a writer may read back what it wrote (the table writer's checksum).
    // From here on, an error drops the value, which removes the temporary file.
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        // As a plain create would: the umask decides (tempfile's own default is 0600).
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir.unwrap_or(Path::new(".")))
        .map_err(|e| match (e.kind(), dir) {
            // tempfile names its own file: the directory is what is missing.
            (std::io::ErrorKind::NotFound, Some(d)) => std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the directory {} does not exist", d.display()),
            ),
            _ => e,
        })?;
    write(tmp.as_file_mut())?;
    Ok(Unsynced {
        tmp,
        path: path.to_path_buf(),
    })
}

/// Refuses what is at `path` unless it is a regular file or nothing, without
/// following a link there.
fn refuse_non_regular(path: &Path) -> std::io::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "exists and is not a regular file: not replaced",
        ));
    }
    Ok(())
}

/// A file written whole under its temporary name, not yet durable nor in place.
/// Dropped without `commit` (an error, or a caller that no longer wants it), it
/// removes the temporary file.
#[derive(Debug)]
pub(crate) struct Unsynced {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl Unsynced {
    /// Makes the file durable, renames it over its path and makes the rename durable.
    pub(crate) fn commit(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        // Checked again just before the rename: what was planted while the file was
        // written is not replaced either.
        refuse_non_regular(&self.path)?;
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        let parent = self.path.parent().filter(|p| !p.as_os_str().is_empty());
        File::open(parent.unwrap_or(Path::new("."))).and_then(|d| d.sync_all())
    }
}

/// Gives the file at `from` the name `to` too, failing if `to` exists (a hard
/// link: the one way to name a file exclusively). On a file system without hard
/// links (FAT, some network and FUSE mounts) it renames instead, which replaces
/// what `to` names: callers use it where `to` is a name of their own or a rare race
/// costs only work done twice.
pub(crate) fn link_new(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::hard_link(from, to).or_else(|e| match e.raw_os_error() {
        Some(libc::EPERM | libc::EOPNOTSUPP | libc::ENOSYS) => std::fs::rename(from, to),
        _ => Err(e),
    })
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
        // A link planted at the lock's name is not followed (O_NOFOLLOW), a FIFO
        // there does not block the open (O_NONBLOCK), and only a regular file is
        // locked and written.
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a symbolic link: not followed",
                )),
                _ => io(e),
            })?;
        if !file.metadata().map_err(io)?.is_file() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file: not locked",
            )));
        }
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

    /// Links planted at the old temporary name and at the lock are not followed: their
    /// targets keep their bytes, and the writer's file lands as a regular file.
    #[test]
    fn planted_links_are_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "mine").unwrap();
        let path = dir.path().join("x.fnproof");
        std::os::unix::fs::symlink(&victim, dir.path().join("x.fnproof.tmp")).unwrap();
        replace_file(&path, |f| f.write_all(b"proof")).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "mine");
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
        assert_eq!(fs::read_to_string(&path).unwrap(), "proof");
        // The temporary file is the umask's, not 0600: tables are shared read-only.
        use std::os::unix::fs::PermissionsExt;
        assert_ne!(fs::metadata(&path).unwrap().permissions().mode() & 0o044, 0);
        // The lock: a link there is refused, its target untouched; so is a FIFO.
        let tables = dir.path().join("tables");
        fs::create_dir(&tables).unwrap();
        std::os::unix::fs::symlink(&victim, tables.join(".fanotb.lock")).unwrap();
        let e = DirLock::acquire(&tables).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "mine");
        fs::remove_file(tables.join(".fanotb.lock")).unwrap();
        let fifo = std::ffi::CString::new(tables.join(".fanotb.lock").to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let e = DirLock::acquire(&tables).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
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
