//! Reading what a user names, bounded: a file is opened without blocking and read
//! only if it is a regular file (a FIFO or a device would be read without end, or
//! wait forever for a writer), of at most a stated size; a stream (standard input)
//! is read a line at a time, each line at most a stated length. Every read of a
//! user-named file or stream in fanotb goes through here, so that a new input
//! cannot miss these bounds.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest line read from a stream: far beyond any position text, move or
/// record line, and small enough that an endless line costs no memory to speak of.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Opens `path` for reading if it is a regular file (a link to one is followed).
/// The open does not block on a FIFO, and a FIFO, a device or a directory is
/// refused with `InvalidInput`, untouched.
pub fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: not read",
        ));
    }
    Ok(file)
}

/// Whether the regular file `path` starts with `magic` (a file shorter than it
/// does not).
pub(crate) fn starts_with(path: &Path, magic: &[u8]) -> io::Result<bool> {
    let mut head = vec![0u8; magic.len()];
    let n = open_regular(path)?
        .take(magic.len() as u64)
        .read(&mut head)?;
    Ok(n == magic.len() && head == magic)
}

/// Reads the whole of the regular file `path`, refusing one of more than `max`
/// bytes (`FileTooLarge`) before reading any of it; a file that grows while it is
/// read is refused too.
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {max} bytes: not read"),
        )
    };
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// As `read_bounded`, for a text file in UTF-8.
pub fn read_text_bounded(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, max)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Reads a stream to its end, refusing one of more than `max` bytes (`FileTooLarge`)
/// after reading at most `max + 1` of them.
pub fn read_stream_bounded(stream: impl Read, max: u64) -> io::Result<String> {
    let mut bytes = Vec::new();
    stream.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("longer than {max} bytes: not read"),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The lines of a stream, each without its line end, each at most `max` bytes: a
/// longer one (or one not UTF-8) is an error (`InvalidData`) that names its line
/// number, after which the iterator ends, unless it goes on past bad lines
/// ([`BoundedLines::past_bad_lines`]). Memory stays within `max` whatever the
/// stream holds.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    max: usize,
    line: usize,
    done: bool,
    go_on: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// The lines of `reader`, each at most `max` bytes.
    pub fn new(reader: R, max: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            max,
            line: 0,
            done: false,
            go_on: false,
        }
    }

    /// These lines, going on after a line too long or not UTF-8 (its error given,
    /// the rest of it skipped unkept): for a session that must outlive bad input.
    pub fn past_bad_lines(mut self) -> BoundedLines<R> {
        self.go_on = true;
        self
    }

    /// Skips the rest of a line too long, up to and with its line end.
    fn skip_line(&mut self) -> io::Result<()> {
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.reader.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let n = buf.len();
                    self.reader.consume(n);
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<io::Result<String>> {
        if self.done {
            return None;
        }
        self.line += 1;
        let mut bytes = Vec::new();
        // One byte over the bound shows a line too long, without reading the rest.
        let limit = self.max as u64 + 2;
        let read = (&mut self.reader).take(limit).read_until(b'\n', &mut bytes);
        let line = self.line;
        let failed = move |e: io::Error| {
            Some(Err(io::Error::new(
                e.kind(),
                format!("standard input, line {line}: {e}"),
            )))
        };
        match read {
            Err(e) => {
                self.done = true;
                return failed(e);
            }
            Ok(0) => {
                self.done = true;
                return None;
            }
            Ok(_) => {}
        }
        let ended = bytes.last() == Some(&b'\n');
        if ended {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        if bytes.len() > self.max {
            self.done = !self.go_on;
            if self.go_on && !ended && self.skip_line().is_err() {
                self.done = true;
            }
            let max = self.max;
            return failed(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("longer than {max} bytes"),
            ));
        }
        match String::from_utf8(bytes) {
            Ok(text) => Some(Ok(text)),
            Err(_) => {
                self.done = !self.go_on;
                failed(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_past_bad_ones_go_on_after_them() {
        let mut text = b"one\n".to_vec();
        text.extend(vec![b'x'; 20_000]);
        text.extend(b"\n\xff\ntwo\n123456\nthree");
        let got: Vec<Result<String, String>> = BoundedLines::new(&text[..], 5)
            .past_bad_lines()
            .map(|l| l.map_err(|e| e.to_string()))
            .collect();
        assert_eq!(
            got,
            [
                Ok("one".to_string()),
                Err("standard input, line 2: longer than 5 bytes".to_string()),
                Err("standard input, line 3: not UTF-8 text".to_string()),
                Ok("two".to_string()),
                Err("standard input, line 5: longer than 5 bytes".to_string()),
                Ok("three".to_string()),
            ]
        );
    }

    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "12345").unwrap();
        assert_eq!(read_bounded(&file, 5).unwrap(), b"12345");
        let e = read_bounded(&file, 4).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        // A link to a regular file is followed; a directory, a device and a FIFO are not read.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_text_bounded(&link, 10).unwrap(), "12345");
        for path in [dir.path(), Path::new("/dev/zero"), Path::new("/dev/null")] {
            let e = read_bounded(path, 1 << 20).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{}", path.display());
        }
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer ever opens it: a blocking open would wait here for ever.
        let e = read_bounded(&fifo, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn an_endless_stream_is_refused_after_its_bound() {
        let e = read_stream_bounded(io::repeat(0).take(1 << 30), 1 << 16).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(read_stream_bounded(&b"abc"[..], 3).unwrap(), "abc");
    }

    #[test]
    fn lines_are_cut_at_their_bound_with_the_line_number() {
        let text = b"one\r\ntwo\n\nthree";
        let lines: Vec<String> = BoundedLines::new(&text[..], 5)
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, ["one", "two", "", "three"]);
        // Exactly the bound passes; one byte more is refused, and the reading ends.
        let mut it = BoundedLines::new(&b"12345\n123456\nnext\n"[..], 5);
        assert_eq!(it.next().unwrap().unwrap(), "12345");
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "standard input, line 2: longer than 5 bytes");
        assert!(it.next().is_none());
        // An endless line (no newline ever) is refused having read max + 2 bytes.
        let mut endless = io::BufReader::new(io::repeat(b'x'));
        let e = BoundedLines::new(&mut endless, 1000)
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
    }
}
