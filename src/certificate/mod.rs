//! The proof certificate file (docs/PROOF.md): what a proof claims, the tables it
//! relies on (by whole-file checksum), and each proof graph, compressed.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

mod blocked;
pub(crate) mod bundle;
pub(crate) mod compact;
pub(crate) mod pack;
mod parse;
pub(crate) mod store;

pub(crate) use blocked::{BlockCache, Blocked};
pub(crate) use parse::{PayloadFields, parse_payload};
use parse::{parse_head, parse_head_and_lemmas};

use crate::files::bytes::{Reader, StreamReader, Unsealed, seal, u64_at, unseal};
use crate::index::Signature;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

pub(crate) const MAGIC: [u8; 8] = *b"FNPROOF\n";
pub(crate) const END_MAGIC: [u8; 8] = *b"FNPREND\n";
/// The newest format version: 2 adds lemmas. A certificate without lemmas is
/// written as version 1, which every reader takes.
pub(crate) const VERSION: u32 = 2;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    #[error(
        "{path}: certificate format version {found}, this fanotb reads versions 1 to {}",
        compact::COMPACT
    )]
    Version {
        /// The file read.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// A proof of a win to be written with ranks (version 3) has a cycle, or a move
    /// that does not parse: no rank can fall along every move.
    #[error(
        "the proof that {side} wins cannot be ranked: it has a cycle or a move that does not parse"
    )]
    Unrankable {
        /// The proof's side.
        side: &'static str,
    },
    /// The framing, checksum or payload is wrong.
    #[error("{path}: damaged: {what}")]
    Damaged {
        /// The file read.
        path: PathBuf,
        /// What is wrong, in a few words.
        what: String,
    },
    /// A file or directory that cannot serve as asked, whole as it is.
    #[error("{path}: {why}")]
    Refused {
        /// The file or directory.
        path: PathBuf,
        /// Why, and what to do instead.
        why: String,
    },
    /// A lemma relied on that the lemma directory does not hold.
    #[error("{name}, a lemma relied on, is not in {dir}")]
    LemmaMissing {
        /// The lemma's file name, `C.fnlemma`.
        name: String,
        /// The lemma directory.
        dir: PathBuf,
    },
}

impl CertificateError {
    /// The error of a failed read or write of `path`.
    pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> CertificateError + Copy + '_ {
        move |source| CertificateError::Io {
            path: path.into(),
            source,
        }
    }

    /// `path` is damaged: `what`.
    pub(crate) fn damaged(path: &Path, what: &str) -> CertificateError {
        CertificateError::Damaged {
            path: path.into(),
            what: what.into(),
        }
    }
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

/// How much of a payload a reader parses; the framing and the whole file's
/// checksum are checked at every depth.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// The fields before the proofs and the lemma list: the root, what it proves,
    /// its table stones and tables. For a reader that trusts the proofs already (a
    /// lemma checked before): version 4 proofs are walked with the move
    /// generator, which this spares.
    Head,
    /// The head and the lemma list.
    Lemmas,
    /// All of it.
    Whole,
}

/// What a certificate proves about its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proves {
    /// The value for the side to move: one proof for a win or a loss, two (each side
    /// does not lose) for a draw.
    Value(Wdl),
    /// A lemma: one proof, of the claim for the side, that other certificates use as
    /// a leaf (docs/PROOF.md, "Lemmas").
    Lemma(Color, Claim),
}

impl Proves {
    /// The value, for a certificate of one.
    pub fn value(self) -> Option<Wdl> {
        match self {
            Proves::Value(v) => Some(v),
            Proves::Lemma(..) => None,
        }
    }

    /// What is proved, in words: `draw for White` (the side to move of `root`), or a
    /// lemma's `White wins`.
    pub fn text(self, root: &Position) -> String {
        match self {
            Proves::Value(v) => format!("{} for {}", v.name(), root.turn().name()),
            Proves::Lemma(side, claim) => format!("{} {}", side.name(), claim.name()),
        }
    }
}

/// A lemma a certificate relies on: the position, side and claim it proves, and
/// the lemma file's checksum (which also names the file: docs/PROOF.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LemmaRef {
    /// The lemma's root.
    pub position: Position,
    /// The side it proves the claim for.
    pub side: Color,
    /// What it proves for that side.
    pub claim: Claim,
    /// The lemma file's whole-file xxh3-64 (its trailer).
    pub checksum: u64,
}

impl LemmaRef {
    /// The order of a certificate's lemma list: position as proofs sort them, then
    /// side and claim.
    fn key(&self) -> (u64, u64, u8, u8) {
        let (w, b) = position_key(&self.position);
        (w, b, color_byte(self.side), claim_byte(self.claim))
    }

    /// Whether this lemma serves a proof that `side` makes `claim`: a win serves
    /// both claims, "does not lose" only itself.
    pub fn serves(&self, side: Color, claim: Claim) -> bool {
        self.side == side && (self.claim == Claim::Win || claim == Claim::NotLose)
    }

    /// The file that holds the lemma in a lemma directory.
    pub fn file_name(&self) -> String {
        lemma_file_name(self.checksum)
    }
}

/// Puts a lemma list in certificate order, each lemma once.
pub(crate) fn sort_lemmas(v: &mut Vec<LemmaRef>) {
    v.sort_by_key(LemmaRef::key);
    v.dedup_by_key(|l| l.key());
}

/// A lemma file's name: its checksum in 16 hex digits, then `.fnlemma`.
pub fn lemma_file_name(checksum: u64) -> String {
    format!("{checksum:016x}.fnlemma")
}

/// The order positions of a proof are listed in: White's stones with the side to
/// move in bit 63, then Black's stones.
pub(crate) fn position_key(p: &Position) -> (u64, u64) {
    (
        p.white() | u64::from(p.turn() == Color::Black) << 63,
        p.black(),
    )
}

/// A whole certificate.
///
/// ```
/// use fanotb::{Board, Certificate, Position, ProveOptions, prove};
/// let dir = tempfile::tempdir()?;
/// let start = Position::start(Board::get(3, 3)?);
/// let proved = prove(dir.path(), &start, &ProveOptions::default(), |_| {}, &|_| {})?;
/// let file = dir.path().join("3x3.fnproof");
/// proved.certificate.write(&file)?;
/// // Read back whole: the same proofs, of the same root.
/// let read = Certificate::read(&file)?;
/// assert_eq!(read, proved.certificate);
/// assert_eq!(read.root, start);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The position whose value (or claim) is proved.
    pub root: Position,
    /// What is proved: the root's value, or a lemma's claim.
    pub proves: Proves,
    /// Positions with at most this many stones are table leaves.
    pub max_table_stones: u8,
    /// The tables relied on, with their whole-file checksums.
    pub tables: Vec<(Signature, u64)>,
    /// The proofs that together establish `proves`: one for a win, a loss or a
    /// lemma, two for a draw.
    pub parts: Vec<Part>,
    /// The lemmas the proofs rely on, in the order of `LemmaRef::key`, each once
    /// (none in a version 1 file).
    pub lemmas: Vec<LemmaRef>,
}

pub(crate) fn put_u64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn color_byte(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn claim_byte(c: Claim) -> u8 {
    match c {
        Claim::NotLose => 0,
        Claim::Win => 1,
    }
}

pub(crate) fn put_position(v: &mut Vec<u8>, p: &Position) {
    put_u64(v, p.white());
    put_u64(v, p.black());
    v.push(color_byte(p.turn()));
}

impl Certificate {
    /// The version the file is written in when version 4 cannot hold it: 1 when
    /// version 1 can (a value without lemmas), else 2.
    pub fn version(&self) -> u32 {
        match (self.proves, self.lemmas.is_empty()) {
            (Proves::Value(_), true) => 1,
            _ => VERSION,
        }
    }

    /// The uncompressed payload (docs/PROOF.md).
    fn payload(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.encode(&mut v, self.version(), |v, i| {
            for e in &self.parts[i].entries {
                put_position(v, &e.position);
                let mv = e.mv.as_deref().unwrap_or("");
                v.push(mv.len() as u8);
                v.extend_from_slice(mv.as_bytes());
            }
        });
        v
    }

    /// The payload of `version` with each proof's body (after its side, claim and
    /// number of positions) written by `body(v, proof)`: its positions, or in
    /// version 3 the number of its blocks.
    fn encode(&self, v: &mut Vec<u8>, version: u32, mut body: impl FnMut(&mut Vec<u8>, usize)) {
        let b = self.root.board();
        v.extend([b.width() as u8, b.height() as u8]);
        put_position(v, &self.root);
        match self.proves {
            Proves::Value(w) => v.push(match w {
                Wdl::Loss => 0,
                Wdl::Draw => 1,
                Wdl::Win => 2,
            }),
            Proves::Lemma(side, claim) => {
                v.extend([3, color_byte(side), claim_byte(claim)]);
            }
        }
        v.push(self.max_table_stones);
        v.extend_from_slice(&(self.tables.len() as u32).to_le_bytes());
        for (sig, sum) in &self.tables {
            v.push(sig.us);
            v.push(sig.them);
            put_u64(v, *sum);
        }
        let lemmas = |v: &mut Vec<u8>| {
            v.extend_from_slice(&(self.lemmas.len() as u32).to_le_bytes());
            for l in &self.lemmas {
                put_u64(v, l.checksum);
                put_position(v, &l.position);
                v.push(color_byte(l.side));
                v.push(claim_byte(l.claim));
            }
        };
        // Version 4 lists the lemmas before the proofs, and a proof's body counts
        // its own moves.
        if version == compact::COMPACT {
            lemmas(v);
        }
        v.push(self.parts.len() as u8);
        for (i, p) in self.parts.iter().enumerate() {
            v.push(color_byte(p.side));
            v.push(claim_byte(p.claim));
            if version != compact::COMPACT {
                put_u64(v, p.entries.len() as u64);
            }
            body(v, i);
        }
        if (2..compact::COMPACT).contains(&version) {
            lemmas(v);
        }
    }

    /// The payload of version 4, each proof written as its side's moves along a
    /// walk from the root; `None` when a proof is not exactly the positions that
    /// walk reaches (then an earlier version holds it).
    fn compact_payload(&self) -> Option<Vec<u8>> {
        let bodies: Vec<Vec<u8>> = self
            .parts
            .iter()
            .map(|p| compact::encode_part(self, p))
            .collect::<Option<_>>()?;
        let mut v = Vec::new();
        self.encode(&mut v, compact::COMPACT, |v, i| {
            v.extend_from_slice(&bodies[i])
        });
        Some(v)
    }

    /// The file's bytes: version 4 (the proofs as their moves) when it holds the
    /// certificate exactly, else version 1 or 2. A lemma's payload is stored, not
    /// compressed: lemmas live in packs, which compress them together.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (version, payload) = match self.compact_payload() {
            Some(p) => (compact::COMPACT, p),
            None => (self.version(), self.payload()),
        };
        if matches!(self.proves, Proves::Lemma(..)) {
            Certificate::framed(
                version,
                &payload,
                crate::files::compressed::stored(&payload),
            )
        } else {
            Certificate::frame(version, &payload)
        }
    }

    /// The file's bytes in the positions' format, version 1 or 2 (`version`), as
    /// written before version 4: every position listed as given, in the order given
    /// (a reader refuses one out of order).
    pub fn to_listed_bytes(&self) -> Vec<u8> {
        Certificate::frame(self.version(), &self.payload())
    }

    /// A payload of `version` framed: magic, version, sizes, compressed, sealed.
    fn frame(version: u32, payload: &[u8]) -> Vec<u8> {
        let packed = crate::files::compressed::compress_within(payload, ZSTD_LEVEL, MAX_RATIO)
            .expect("zstd compresses memory");
        Certificate::framed(version, payload, packed)
    }

    /// A payload of `version` framed with its zstd frames `packed`.
    fn framed(version: u32, payload: &[u8], packed: Vec<u8>) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&version.to_le_bytes());
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
        crate::files::durable::replace_file(path, |f| f.write_all(&bytes)).map_err(io)?;
        Ok(bytes.len() as u64)
    }

    /// Writes this certificate's own lemmas ([`Certificate::split_lemmas`]) into the
    /// lemma directory `dir` and returns their files.
    pub fn write_lemmas(&self, dir: &Path) -> Result<Vec<PathBuf>, CertificateError> {
        let lemmas = self.split_lemmas();
        lemmas
            .iter()
            .map(|l| Ok(dir.join(l.write_lemma(dir)?.file_name())))
            .collect()
    }

    /// Writes a lemma into the lemma directory `dir` (created if missing), under the
    /// name its checksum gives it, and returns the reference to it. A lemma already
    /// there is the same file: it is kept.
    pub fn write_lemma(&self, dir: &Path) -> Result<LemmaRef, CertificateError> {
        let Proves::Lemma(side, claim) = self.proves else {
            panic!("write_lemma is given a certificate of a value, not a lemma");
        };
        let bytes = self.to_bytes();
        let checksum = u64_at(&bytes, bytes.len() - 16);
        let path = dir.join(lemma_file_name(checksum));
        let io = |source| CertificateError::Io {
            path: path.clone(),
            source,
        };
        if !path.exists() {
            std::fs::create_dir_all(dir).map_err(io)?;
            crate::files::durable::replace_file(&path, |f| f.write_all(&bytes)).map_err(io)?;
        }
        Ok(LemmaRef {
            position: self.root,
            side,
            claim,
            checksum,
        })
    }

    /// The reference to this certificate as the lemma of this checksum: what it
    /// claims (`None` for a certificate of a value).
    pub(crate) fn lemma_ref(&self, checksum: u64) -> Option<LemmaRef> {
        match self.proves {
            Proves::Lemma(side, claim) => Some(LemmaRef {
                position: self.root,
                side,
                claim,
                checksum,
            }),
            Proves::Value(_) => None,
        }
    }

    /// Puts the lemma list in the order the format requires, each lemma once.
    pub fn sort_lemmas(&mut self) {
        sort_lemmas(&mut self.lemmas);
    }

    /// The certificate of `value` at the lemmas' common root, made of their proofs
    /// (the inverse of `split_lemmas`). Lemmas over fewer tables than the largest
    /// (of the most stones, then the most tables) are moved onto its tables first
    /// (`over_tables`). `None` if the lemmas are none, differ in root, or one
    /// cannot be moved (its tables are not among the largest's).
    pub fn join_lemmas(value: Wdl, lemmas: Vec<Certificate>) -> Option<Certificate> {
        let largest = lemmas
            .iter()
            .max_by_key(|c| (c.max_table_stones, c.tables.len()))?;
        if lemmas.iter().any(|c| c.root != largest.root) {
            return None;
        }
        let (k, tables) = (largest.max_table_stones, largest.tables.clone());
        let lemmas = lemmas
            .iter()
            .map(|c| c.over_tables(k, &tables))
            .collect::<Option<Vec<_>>>()?;
        let first = &lemmas[0];
        let mut joined = Certificate {
            root: first.root,
            proves: Proves::Value(value),
            max_table_stones: first.max_table_stones,
            tables: first.tables.clone(),
            parts: Vec::new(),
            lemmas: Vec::new(),
        };
        for c in lemmas {
            joined.parts.extend(c.parts);
            joined.lemmas.extend(c.lemmas);
        }
        joined.sort_lemmas();
        Some(joined)
    }

    /// This certificate over the tables of up to `k` stones `tables`, which hold
    /// its own (the same checksums): itself if they are its own; else each proof is
    /// cut where it reaches a position of at most `k` stones (the tables are exact,
    /// so they give the claim the cut proof proved there), and the lemma list is
    /// kept to the lemmas the cut proofs still use. `tables` must name every table
    /// of up to `k` stones the cut proofs reach, as the checker will ask. `None` if
    /// `k` is smaller than its own, `tables` lack one of its own, or a proof does
    /// not walk (a damaged certificate).
    pub fn over_tables(&self, k: u8, tables: &[(Signature, u64)]) -> Option<Certificate> {
        if (k, tables) == (self.max_table_stones, &self.tables[..]) {
            return Some(self.clone());
        }
        if k < self.max_table_stones || !self.tables.iter().all(|t| tables.contains(t)) {
            return None;
        }
        let mut parts = Vec::new();
        let mut lemmas = Vec::new();
        for part in &self.parts {
            let (entries, at) = compact::cut_part(self, part, k).ok()?;
            // At each lemma position reached, the first lemma in list order (by
            // position first) that serves, as the checker uses them.
            for pos in at {
                let from = self
                    .lemmas
                    .partition_point(|l| position_key(&l.position) < pos);
                lemmas.extend(
                    self.lemmas[from..]
                        .iter()
                        .take_while(|l| position_key(&l.position) == pos)
                        .find(|l| l.serves(part.side, part.claim))
                        .copied(),
                );
            }
            parts.push(Part {
                side: part.side,
                claim: part.claim,
                entries,
            });
        }
        sort_lemmas(&mut lemmas);
        Some(Certificate {
            root: self.root,
            proves: self.proves,
            max_table_stones: k,
            tables: tables.to_vec(),
            parts,
            lemmas,
        })
    }

    /// The lemmas this certificate's proofs make: one per proof, with the lemmas
    /// that proof relies on.
    pub fn split_lemmas(&self) -> Vec<Certificate> {
        self.parts
            .iter()
            .map(|p| Certificate {
                root: self.root,
                proves: Proves::Lemma(p.side, p.claim),
                max_table_stones: self.max_table_stones,
                tables: self.tables.clone(),
                parts: vec![p.clone()],
                lemmas: self
                    .lemmas
                    .iter()
                    .filter(|l| l.serves(p.side, p.claim))
                    .copied()
                    .collect(),
            })
            .collect()
    }

    /// Reads and validates a certificate file: framing, checksum, and that every
    /// field is well formed (positions on the board, stones not overlapping). Whether
    /// the proof holds is `check`'s business.
    pub fn read(path: &Path) -> Result<Certificate, CertificateError> {
        Certificate::read_summed(path).map(|(c, _)| c)
    }

    /// Reads a certificate as `read` does, with its whole-file checksum (the name
    /// of a lemma file).
    pub fn read_summed(path: &Path) -> Result<(Certificate, u64), CertificateError> {
        match Certificate::open_summed(path)? {
            (head, sum, Some(blocks)) => Ok((blocks.into_certificate(head)?, sum)),
            (cert, sum, None) => Ok((cert, sum)),
        }
    }

    /// Opens a certificate file of any version with its whole-file checksum: a
    /// version 1 or 2 file read whole, or a version 3 file's header with its blocks
    /// left on disk to be read one at a time.
    pub(crate) fn open_summed(
        path: &Path,
    ) -> Result<(Certificate, u64, Option<Blocked>), CertificateError> {
        let io = CertificateError::io(path);
        let damaged = |what: &str| CertificateError::damaged(path, what);
        // A device or a FIFO would be read without end: regular files only, of a
        // size a certificate can have.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(damaged("not a regular file"));
        }
        // The header first: a file of another kind, or whose header does not give
        // its size, is refused before its body is read.
        match Certificate::file_version(path)? {
            Some(blocked::BLOCKED) => {
                let (head, sum, blocks) = Blocked::open(path)?;
                return Ok((head, sum, Some(blocks)));
            }
            None if meta.len() >= 12 => {
                return Err(CertificateError::NotACertificate { path: path.into() });
            }
            _ => {}
        }
        if meta.len() > MAX_FILE {
            return Err(damaged("larger than any certificate this reader takes"));
        }
        let mut head = [0u8; 28];
        if crate::files::read::open_regular(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
            && u64_at(&head, 20).checked_add(44) != Some(meta.len())
        {
            return Err(damaged("truncated or extended"));
        }
        let bytes = crate::files::read::read_bounded(path, MAX_FILE).map_err(io)?;
        let cert = Certificate::from_bytes(path, &bytes)?;
        Ok((cert, u64_at(&bytes, bytes.len() - 16), None))
    }

    /// The format version a certificate file names, `None` if it is too short to
    /// name one (the reader then says what is wrong).
    pub fn file_version(path: &Path) -> Result<Option<u32>, CertificateError> {
        let mut head = [0u8; 12];
        let n = crate::files::read::open_regular(path)
            .and_then(|f| f.take(12).read(&mut head))
            .map_err(|source| CertificateError::Io {
                path: path.into(),
                source,
            })?;
        Ok((n == 12 && head[..8] == MAGIC).then(|| crate::files::bytes::u32_at(&head, 8)))
    }

    /// Parses and validates a certificate from its bytes, as `read` does; `path` is
    /// only used in errors.
    ///
    /// # Errors
    ///
    /// `NotACertificate` without the magic bytes, `Version` for another format
    /// version, `Damaged` for anything else wrong with the framing or the payload.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Certificate, CertificateError> {
        Certificate::parse_bytes(path, bytes, Depth::Whole)
    }

    /// The head as `Depth::Head` reads it, with the lemmas the certificate
    /// names (no proof): for a reader that needs only the references among lemmas.
    /// Version 4 lists its lemmas before its proofs, whose walk this spares; the
    /// older versions list them after, and are parsed whole.
    pub(crate) fn lemmas_from_bytes(
        path: &Path,
        bytes: &[u8],
    ) -> Result<Certificate, CertificateError> {
        Certificate::parse_bytes(path, bytes, Depth::Lemmas)
    }

    pub(crate) fn parse_bytes(
        path: &Path,
        bytes: &[u8],
        depth: Depth,
    ) -> Result<Certificate, CertificateError> {
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
        if version == blocked::BLOCKED {
            return Err(damaged(
                "a version 3 certificate is read from its file (Certificate::read), not from bytes",
            ));
        }
        if !(1..=VERSION).contains(&version) && version != compact::COMPACT {
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
        // Parsed as it is decompressed: the payload is never held whole. One
        // decompression context a thread: making one for each lemma took 42% of
        // the time to load a store of 150,000 lemmas.
        thread_local! {
            static CONTEXT: std::cell::RefCell<zstd::zstd_safe::DCtx<'static>> =
                std::cell::RefCell::new(zstd::zstd_safe::DCtx::create());
        }
        fn parse(
            decoder: impl std::io::Read,
            raw_len: u64,
            version: u32,
            depth: Depth,
        ) -> Result<Certificate, String> {
            let mut r = StreamReader::new(decoder, raw_len);
            let whole = match depth {
                Depth::Head => false,
                Depth::Lemmas => version != compact::COMPACT,
                Depth::Whole => true,
            };
            let parsed = if whole {
                parse_payload(&mut r, version, &mut Vec::new())
            } else if depth == Depth::Lemmas {
                parse_head_and_lemmas(&mut r, version)
            } else {
                parse_head(&mut r, version)
            };
            if let Some(e) = r.error.take() {
                return Err(format!("payload: {e}"));
            }
            let cert = parsed?;
            if whole && !r.at_end() {
                return Err("payload length".into());
            }
            Ok(cert)
        }
        let payload = &body[28..];
        CONTEXT
            .with(|c| match c.try_borrow_mut() {
                Ok(mut context) => parse(
                    zstd::stream::Decoder::with_context(payload, &mut context),
                    raw_len,
                    version,
                    depth,
                ),
                // Busy (a parse within a parse): a context of its own.
                Err(_) => parse(
                    zstd::stream::Decoder::with_context(
                        payload,
                        &mut zstd::zstd_safe::DCtx::create(),
                    ),
                    raw_len,
                    version,
                    depth,
                ),
            })
            .map_err(|what| damaged(&what))
    }
}
