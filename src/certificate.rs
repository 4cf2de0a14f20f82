//! The proof certificate file (docs/PROOF.md): what a proof claims, the tables it
//! relies on (by whole-file checksum), and each proof graph, compressed.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::board::Board;
use crate::bytes::{Reader, Unsealed, seal, unseal};
use crate::index::Signature;
use crate::position::{Color, Position};
use crate::value::Wdl;

pub(crate) const MAGIC: [u8; 8] = *b"FNPROOF\n";
pub(crate) const END_MAGIC: [u8; 8] = *b"FNPREND\n";
pub(crate) const VERSION: u32 = 1;
const ZSTD_LEVEL: i32 = 19;
/// The largest payload a reader decompresses (a guard against crafted sizes; the
/// payload is decompressed as a stream, so memory follows the real size).
const MAX_PAYLOAD: u64 = 1 << 32;
/// The largest file a reader takes (the payload cap, compressed at least 1:1).
const MAX_FILE: u64 = MAX_PAYLOAD + 44;
/// How much larger than its compressed form a payload may claim to be: honest
/// payloads (positions and moves, compressed at zstd level 19) stay below 8:1, so a
/// reader's memory follows the file's size, not a crafted length.
const MAX_RATIO: u64 = 64;

/// What a proof establishes for its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The side wins: every line ends, in a table position won for it or a finished
    /// game (the proof graph is acyclic).
    Win,
    /// The side does not lose: cycles are allowed, since play that never ends is a
    /// draw.
    NotLose,
}

impl Claim {
    /// "wins" or "does not lose", as the claim reads after a side's name.
    pub fn name(self) -> &'static str {
        match self {
            Claim::Win => "wins",
            Claim::NotLose => "does not lose",
        }
    }
}

/// Why a certificate file could not be written or read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CertificateError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The certificate file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not start with the certificate magic bytes.
    #[error("{path}: not a fanotb proof certificate (bad magic bytes)")]
    NotACertificate {
        /// The file read.
        path: PathBuf,
    },
    /// The file is a certificate of a format version this build does not read.
    #[error("{path}: certificate format version {found}, this fanotb reads version {VERSION}")]
    Version {
        /// The file read.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The framing, checksum or payload is wrong.
    #[error("{path}: damaged: {what}")]
    Damaged {
        /// The file read.
        path: PathBuf,
        /// What is wrong, in a few words.
        what: String,
    },
}

/// One position of a proof graph, with the proving side's move where it is to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position.
    pub position: Position,
    /// The move in notation, for positions where the proof's side moves.
    pub mv: Option<String>,
}

/// One proof: a side, what it proves for that side, and its positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The side the proof is for.
    pub side: Color,
    /// What it proves for that side: a win, or that it does not lose.
    pub claim: Claim,
    /// The positions of the proof set, the root among them.
    pub entries: Vec<Entry>,
}

/// A whole certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The position whose value is proved.
    pub root: Position,
    /// The value of the root for its side to move.
    pub value: Wdl,
    /// Positions with at most this many stones are table leaves.
    pub max_table_stones: u8,
    /// The tables relied on, with their whole-file checksums.
    pub tables: Vec<(Signature, u64)>,
    /// The proofs that together establish `value`: one for a win or a loss, two for a
    /// draw.
    pub parts: Vec<Part>,
}

fn put_u64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn color_byte(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn wdl_byte(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

impl Certificate {
    /// The uncompressed payload (docs/PROOF.md).
    fn payload(&self) -> Vec<u8> {
        let b = self.root.board();
        let mut v = vec![b.width() as u8, b.height() as u8];
        put_u64(&mut v, self.root.white());
        put_u64(&mut v, self.root.black());
        v.push(color_byte(self.root.turn()));
        v.push(wdl_byte(self.value));
        v.push(self.max_table_stones);
        v.extend_from_slice(&(self.tables.len() as u32).to_le_bytes());
        for (sig, sum) in &self.tables {
            v.push(sig.us);
            v.push(sig.them);
            put_u64(&mut v, *sum);
        }
        v.push(self.parts.len() as u8);
        for p in &self.parts {
            v.push(color_byte(p.side));
            v.push(match p.claim {
                Claim::NotLose => 0,
                Claim::Win => 1,
            });
            put_u64(&mut v, p.entries.len() as u64);
            for e in &p.entries {
                put_u64(&mut v, e.position.white());
                put_u64(&mut v, e.position.black());
                v.push(color_byte(e.position.turn()));
                let mv = e.mv.as_deref().unwrap_or("");
                v.push(mv.len() as u8);
                v.extend_from_slice(mv.as_bytes());
            }
        }
        v
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let packed = zstd::bulk::compress(&payload, ZSTD_LEVEL).expect("zstd compresses memory");
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&VERSION.to_le_bytes());
        put_u64(&mut v, payload.len() as u64);
        put_u64(&mut v, packed.len() as u64);
        v.extend_from_slice(&packed);
        seal(&mut v, &END_MAGIC);
        v
    }

    /// Writes the file through a temporary name, fsynced and renamed, so a file with
    /// the final name is always complete. Returns its size.
    pub fn write(&self, path: &Path) -> Result<u64, CertificateError> {
        let io = |source| CertificateError::Io {
            path: path.into(),
            source,
        };
        let bytes = self.to_bytes();
        crate::durable::replace_file(path, |f| f.write_all(&bytes)).map_err(io)?;
        Ok(bytes.len() as u64)
    }

    /// Reads and validates a certificate file: framing, checksum, and that every
    /// field is well formed (positions on the board, stones not overlapping). Whether
    /// the proof holds is `check`'s business.
    pub fn read(path: &Path) -> Result<Certificate, CertificateError> {
        let io = |source| CertificateError::Io {
            path: path.into(),
            source,
        };
        let damaged = |what: &str| CertificateError::Damaged {
            path: path.into(),
            what: what.into(),
        };
        // A device or a FIFO would be read without end: regular files only, of a
        // size a certificate can have.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(damaged("not a regular file"));
        }
        if meta.len() > MAX_FILE {
            return Err(damaged("larger than any certificate this reader takes"));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        Certificate::from_bytes(path, &bytes)
    }

    /// Parses and validates a certificate from its bytes, as `read` does; `path` is
    /// only used in errors.
    ///
    /// # Errors
    ///
    /// `NotACertificate` without the magic bytes, `Version` for another format
    /// version, `Damaged` for anything else wrong with the framing or the payload.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Certificate, CertificateError> {
        let damaged = |what: &str| CertificateError::Damaged {
            path: path.into(),
            what: what.into(),
        };
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return Err(CertificateError::NotACertificate { path: path.into() });
        }
        if bytes.len() < 44 {
            return Err(damaged("truncated"));
        }
        let mut head = Reader::new(&bytes[8..28]);
        let truncated = |_| damaged("truncated");
        let version = head.u32().map_err(truncated)?;
        if version != VERSION {
            return Err(CertificateError::Version {
                path: path.into(),
                found: version,
            });
        }
        let raw_len = head.u64().map_err(truncated)?;
        let packed_len = head.u64().map_err(truncated)?;
        if packed_len != bytes.len() as u64 - 44 {
            return Err(damaged("truncated or extended"));
        }
        let body = unseal(bytes, &END_MAGIC).map_err(|e| match e {
            Unsealed::Checksum => damaged("checksum mismatch"),
            _ => damaged("end marker"),
        })?;
        if raw_len > MAX_PAYLOAD || raw_len > MAX_RATIO * packed_len + 4096 {
            return Err(damaged("payload size beyond any proof this reader takes"));
        }
        let mut payload = Vec::new();
        zstd::stream::Decoder::new(&body[28..])
            .and_then(|d| d.take(raw_len + 1).read_to_end(&mut payload))
            .map_err(|e| damaged(&format!("payload: {e}")))?;
        if payload.len() as u64 != raw_len {
            return Err(damaged("payload length"));
        }
        parse_payload(&payload).map_err(|what| damaged(&what))
    }
}

/// The payload's own fields: a side, a position on the board.
trait PayloadFields {
    fn color(&mut self) -> Result<Color, String>;
    fn position(&mut self, board: &'static Board) -> Result<Position, String>;
}

impl PayloadFields for Reader<'_> {
    fn color(&mut self) -> Result<Color, String> {
        match self.u8()? {
            0 => Ok(Color::White),
            1 => Ok(Color::Black),
            c => Err(format!("side code {c}")),
        }
    }
    fn position(&mut self, board: &'static Board) -> Result<Position, String> {
        let white = self.u64()?;
        let black = self.u64()?;
        let turn = self.color()?;
        if (white | black) & !board.all() != 0 {
            return Err("a position with stones off the board".into());
        }
        let pos = Position::new(board, white, black, turn).map_err(|e| e.to_string())?;
        // A proof is about positions of a game still going: a side without stones
        // has lost already.
        if let Some(side) = pos.side_without_stones() {
            return Err(format!(
                "{pos} is not a game position: {} has no stones",
                side.name()
            ));
        }
        Ok(pos)
    }
}

fn parse_payload(b: &[u8]) -> Result<Certificate, String> {
    let mut r = Reader::new(b);
    let (w, h) = (r.u8()? as usize, r.u8()? as usize);
    let board = Board::get(w, h).map_err(|e| e.to_string())?;
    let root = r.position(board)?;
    let value = match r.u8()? {
        0 => Wdl::Loss,
        1 => Wdl::Draw,
        2 => Wdl::Win,
        v => return Err(format!("value code {v}")),
    };
    let max_table_stones = r.u8()?;
    let n_tables = r.u32()? as usize;
    let mut tables = Vec::new();
    for _ in 0..n_tables {
        let (us, them) = (r.u8()?, r.u8()?);
        if us == 0 || them == 0 || (us + them) as usize > board.points() {
            return Err(format!("table signature {us}v{them}"));
        }
        let sig = Signature::new(us, them);
        if tables.iter().any(|(t, _)| *t == sig) {
            return Err(format!("table {sig} named twice"));
        }
        tables.push((sig, r.u64()?));
    }
    let n_parts = r.u8()?;
    let mut parts = Vec::new();
    for _ in 0..n_parts {
        let side = r.color()?;
        let claim = match r.u8()? {
            0 => Claim::NotLose,
            1 => Claim::Win,
            c => return Err(format!("claim code {c}")),
        };
        let n = r.u64()?;
        // Each entry takes at least 18 bytes: a count beyond that is damage.
        if n > r.remaining() as u64 / 18 {
            return Err(format!(
                "a proof of {n} positions in a payload too small for it"
            ));
        }
        let mut entries = Vec::with_capacity(n as usize);
        let mut last = None;
        for _ in 0..n {
            let position = r.position(board)?;
            // Sorted by (White's stones with the side to move in bit 63, Black's),
            // each once: a checker reads them in one pass.
            let key = (
                position.white() | u64::from(position.turn() == Color::Black) << 63,
                position.black(),
            );
            if last.is_some_and(|l| l >= key) {
                return Err(format!("{position}: out of order, or listed twice"));
            }
            last = Some(key);
            let len = r.u8()? as usize;
            let mv = if len == 0 {
                None
            } else {
                let text = std::str::from_utf8(r.take(len)?)
                    .map_err(|_| "a move that is not text".to_string())?;
                Some(text.to_string())
            };
            entries.push(Entry { position, mv });
        }
        parts.push(Part {
            side,
            claim,
            entries,
        });
    }
    if r.remaining() != 0 {
        return Err("bytes after the last proof".into());
    }
    Ok(Certificate {
        root,
        value,
        max_table_stones,
        tables,
        parts,
    })
}
