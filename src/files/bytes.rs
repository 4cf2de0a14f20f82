//! What every binary file format of fanotb shares (tables, certificates, search and
//! pair checkpoints; docs/FORMAT.md, docs/PROOF.md): little-endian fields read with
//! bounds checks, and the trailer that seals a file, the xxh3-64 (seed 0) of every
//! byte before it, little-endian, then the format's end marker if it has one.

use std::io::{Read, Write};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The bytes ended before a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Truncated;

/// What the formats whose errors are text say of a short read.
impl From<Truncated> for String {
    fn from(_: Truncated) -> String {
        "ends early".into()
    }
}

/// Reads little-endian fields from a byte slice, front to back.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Truncated> {
        if self.bytes.len() - self.at < n {
            return Err(Truncated);
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Truncated> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Truncated> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, Truncated> {
        self.array().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Truncated> {
        self.array().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Truncated> {
        self.array().map(u64::from_le_bytes)
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
}

/// Little-endian fields read front to back, from a slice (`Reader`) or a stream
/// (`StreamReader`), so that one parser serves a format held in memory and one
/// decompressed as it is read.
pub(crate) trait Fields {
    /// Fills `buf` with the next bytes.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), Truncated>;
    /// Bytes not read yet.
    fn remaining(&self) -> usize;
    fn byte(&mut self) -> Result<u8, Truncated> {
        let mut b = [0u8; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }
    fn le_u32(&mut self) -> Result<u32, Truncated> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn le_u64(&mut self) -> Result<u64, Truncated> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

impl Fields for Reader<'_> {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), Truncated> {
        buf.copy_from_slice(self.take(buf.len())?);
        Ok(())
    }
    fn remaining(&self) -> usize {
        Reader::remaining(self)
    }
}

/// Fields of a stream of a known length (a payload decompressed as it is read):
/// memory is the caller's buffers, not the stream's size. A read that fails is
/// `Truncated`, its cause kept in `error`.
pub(crate) struct StreamReader<R> {
    inner: R,
    left: u64,
    /// Why the last read failed, if the stream (not its length) failed it.
    pub(crate) error: Option<std::io::Error>,
}

impl<R: Read> StreamReader<R> {
    /// The stream `inner`, which should hold `len` bytes.
    pub(crate) fn new(inner: R, len: u64) -> StreamReader<R> {
        StreamReader {
            inner,
            left: len,
            error: None,
        }
    }

    /// Whether the stream ends where its length says (no byte beyond it).
    pub(crate) fn at_end(&mut self) -> bool {
        self.left == 0 && matches!(self.inner.read(&mut [0u8; 1]), Ok(0))
    }
}

impl<R: Read> Fields for StreamReader<R> {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), Truncated> {
        if (buf.len() as u64) > self.left {
            return Err(Truncated);
        }
        self.inner.read_exact(buf).map_err(|e| {
            self.error = Some(e);
            Truncated
        })?;
        self.left -= buf.len() as u64;
        Ok(())
    }
    fn remaining(&self) -> usize {
        usize::try_from(self.left).unwrap_or(usize::MAX)
    }
}

/// The little-endian `u32` at `at` of a slice whose length the caller has checked.
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The little-endian `u64` at `at` of a slice whose length the caller has checked.
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Appends the trailer: the checksum of `buf` so far, then `end` (the end marker,
/// or nothing).
pub(crate) fn seal(buf: &mut Vec<u8>, end: &[u8]) {
    let sum = xxh3_64(buf);
    buf.extend_from_slice(&sum.to_le_bytes());
    buf.extend_from_slice(end);
}

/// Why a sealed file's trailer does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsealed {
    /// Too short to hold a trailer.
    Short,
    /// The end marker is not there.
    EndMarker,
    /// The checksum does not match the bytes before it.
    Checksum,
}

/// The bytes before the trailer of a file sealed with `end`, once its checksum holds.
pub(crate) fn unseal<'a>(bytes: &'a [u8], end: &[u8]) -> Result<&'a [u8], Unsealed> {
    let body = bytes
        .len()
        .checked_sub(8 + end.len())
        .ok_or(Unsealed::Short)?;
    if &bytes[body + 8..] != end {
        return Err(Unsealed::EndMarker);
    }
    if xxh3_64(&bytes[..body]) != u64_at(bytes, body) {
        return Err(Unsealed::Checksum);
    }
    Ok(&bytes[..body])
}

/// A reader or writer that hashes the bytes passing through it, for formats too
/// large to hold in memory: `seal` writes the trailer after what was written,
/// `check_seal` reads it after what was read.
pub(crate) struct Hashing<T> {
    inner: T,
    hash: Xxh3,
}

impl<T> Hashing<T> {
    pub(crate) fn new(inner: T) -> Hashing<T> {
        Hashing {
            inner,
            hash: Xxh3::new(),
        }
    }
}

impl<W: Write> Hashing<W> {
    /// The checksum of everything written so far.
    pub(crate) fn digest(&self) -> u64 {
        self.hash.digest()
    }

    /// Writes the checksum of everything written so far and returns the writer.
    pub(crate) fn seal(mut self) -> std::io::Result<W> {
        self.inner.write_all(&self.hash.digest().to_le_bytes())?;
        Ok(self.inner)
    }
}

impl<R: Read> Hashing<R> {
    /// Reads the checksum that follows what was read: true when it matches and
    /// nothing comes after it.
    pub(crate) fn check_seal(mut self) -> bool {
        let digest = self.hash.digest();
        let mut sum = [0u8; 8];
        if self.inner.read_exact(&mut sum).is_err() {
            return false;
        }
        let mut rest = [0u8; 1];
        u64::from_le_bytes(sum) == digest && matches!(self.inner.read(&mut rest), Ok(0))
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_seals() {
        let mut v = vec![1, 2, 0, 3, 0, 0, 0];
        v.extend_from_slice(&7u64.to_le_bytes());
        let mut r = Reader::new(&v);
        assert_eq!(r.u8(), Ok(1));
        assert_eq!(r.u16(), Ok(2));
        assert_eq!(r.u32(), Ok(3));
        assert_eq!(r.u64(), Ok(7));
        assert_eq!(r.remaining(), 0);
        assert_eq!(r.u8(), Err(Truncated));
        seal(&mut v, b"END");
        assert_eq!(unseal(&v, b"END"), Ok(&v[..15]));
        assert_eq!(unseal(&v, b"FIN"), Err(Unsealed::EndMarker));
        v[0] ^= 1;
        assert_eq!(unseal(&v, b"END"), Err(Unsealed::Checksum));
        assert_eq!(unseal(&v[..5], b"END"), Err(Unsealed::Short));
        // The streaming seal is the same trailer.
        let mut w = Hashing::new(Vec::new());
        w.write_all(&v[..15]).unwrap();
        let sealed = w.seal().unwrap();
        let mut plain = v[..15].to_vec();
        seal(&mut plain, b"");
        assert_eq!(sealed, plain);
        let mut r = Hashing::new(&sealed[..]);
        let mut body = [0u8; 15];
        r.read_exact(&mut body).unwrap();
        assert!(r.check_seal());
    }
}
