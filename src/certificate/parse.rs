//! Reading a certificate's payload (docs/PROOF.md, "Payload"): the root, the
//! tables named, the proofs and the lemmas, each field bounded and checked as it is
//! read, so that a damaged or crafted file is refused with what is wrong.

use super::{Certificate, Claim, Entry, LemmaRef, Part, Proves, blocked, compact, position_key};
use crate::files::bytes::Fields;
use crate::index::Signature;
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// The payload's own fields: a side, a position on the board.
pub(crate) trait PayloadFields {
    fn color(&mut self) -> Result<Color, String>;
    fn claim(&mut self) -> Result<Claim, String>;
    fn position(&mut self, board: &'static Board) -> Result<Position, String>;
}

impl<F: Fields> PayloadFields for F {
    fn color(&mut self) -> Result<Color, String> {
        match self.byte()? {
            0 => Ok(Color::White),
            1 => Ok(Color::Black),
            c => Err(format!("side code {c}")),
        }
    }
    fn claim(&mut self) -> Result<Claim, String> {
        match self.byte()? {
            0 => Ok(Claim::NotLose),
            1 => Ok(Claim::Win),
            c => Err(format!("claim code {c}")),
        }
    }
    fn position(&mut self, board: &'static Board) -> Result<Position, String> {
        let white = self.le_u64()?;
        let black = self.le_u64()?;
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

/// Parses a payload of `version`; for version 3, the header, whose proofs list no
/// positions: `shape` gets each proof's number of positions and of blocks.
pub(crate) fn parse_payload(
    r: &mut impl Fields,
    version: u32,
    shape: &mut Vec<(u64, u32)>,
) -> Result<Certificate, String> {
    if version == compact::COMPACT {
        let mut cert = parse_head_and_lemmas(r, version)?;
        let n_parts = r.byte()?;
        for _ in 0..n_parts {
            let side = r.color()?;
            let claim = r.claim()?;
            let entries = compact::decode_part(&cert, side, r)?;
            cert.parts.push(Part {
                side,
                claim,
                entries,
            });
        }
        return at_end(r, cert);
    }
    let mut cert = parse_head(r, version)?;
    let board = cert.root.board();
    let n_parts = r.byte()?;
    for _ in 0..n_parts {
        let side = r.color()?;
        let claim = r.claim()?;
        let n = r.le_u64()?;
        let entries = if version == blocked::BLOCKED {
            let blocks = r.le_u32()?;
            if n < blocks as u64 || n > blocks as u64 * blocked::MAX_BLOCK_POSITIONS as u64 {
                return Err(format!("a proof of {n} positions in {blocks} blocks"));
            }
            shape.push((n, blocks));
            Vec::new()
        } else {
            parse_entries(r, board, n)?
        };
        cert.parts.push(Part {
            side,
            claim,
            entries,
        });
    }
    if version >= 2 {
        cert.lemmas = parse_lemma_refs(r, board)?;
    }
    at_end(r, cert)
}

fn at_end(r: &impl Fields, cert: Certificate) -> Result<Certificate, String> {
    if r.remaining() != 0 {
        return Err("bytes after the last proof".into());
    }
    Ok(cert)
}

/// A version 4 payload's fields before its proofs: its head, then the lemmas it
/// names, which version 4 lists first (its proofs are walked from the root, and a
/// lemma's position ends a walk).
pub(super) fn parse_head_and_lemmas(
    r: &mut impl Fields,
    version: u32,
) -> Result<Certificate, String> {
    let mut cert = parse_head(r, version)?;
    cert.lemmas = parse_lemma_refs(r, cert.root.board())?;
    Ok(cert)
}

/// A payload's fields before its proofs: board, root, what it proves, table stones
/// and tables; the certificate with no proof and no lemma yet.
pub(super) fn parse_head(r: &mut impl Fields, version: u32) -> Result<Certificate, String> {
    let (w, h) = (r.byte()? as usize, r.byte()? as usize);
    let board = Board::get(w, h).map_err(|e| e.to_string())?;
    let root = r.position(board)?;
    let proves = match r.byte()? {
        0 => Proves::Value(Wdl::Loss),
        1 => Proves::Value(Wdl::Draw),
        2 => Proves::Value(Wdl::Win),
        3 if version >= 2 => Proves::Lemma(r.color()?, r.claim()?),
        v => return Err(format!("value code {v}")),
    };
    let max_table_stones = r.byte()?;
    let n_tables = r.le_u32()? as usize;
    let mut tables = Vec::new();
    for _ in 0..n_tables {
        let (us, them) = (r.byte()?, r.byte()?);
        if us == 0 || them == 0 || us as usize + them as usize > board.points() {
            return Err(format!("table signature {us}v{them}"));
        }
        let sig = Signature::new(us, them);
        if tables.iter().any(|(t, _)| *t == sig) {
            return Err(format!("table {sig} named twice"));
        }
        tables.push((sig, r.le_u64()?));
    }
    Ok(Certificate {
        root,
        proves,
        max_table_stones,
        tables,
        parts: Vec::new(),
        lemmas: Vec::new(),
    })
}

/// The `n` entries of a proof in versions 1 and 2: positions in key order, each
/// with its move.
fn parse_entries(r: &mut impl Fields, board: &'static Board, n: u64) -> Result<Vec<Entry>, String> {
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
        let key = position_key(&position);
        if last.is_some_and(|l| l >= key) {
            return Err(format!("{position}: out of order, or listed twice"));
        }
        last = Some(key);
        let len = r.byte()? as usize;
        let mv = if len == 0 {
            None
        } else {
            let mut buf = [0u8; 255];
            r.fill(&mut buf[..len])?;
            let text = std::str::from_utf8(&buf[..len])
                .map_err(|_| "a move that is not text".to_string())?;
            Some(text.to_string())
        };
        entries.push(Entry { position, mv });
    }
    Ok(entries)
}

/// A certificate's lemma list: a count, then each reference, in key order.
fn parse_lemma_refs(r: &mut impl Fields, board: &'static Board) -> Result<Vec<LemmaRef>, String> {
    let n = r.le_u32()?;
    // Each reference takes 27 bytes.
    if n as usize > r.remaining() / 27 {
        return Err(format!("{n} lemmas in a payload too small for them"));
    }
    let mut lemmas: Vec<LemmaRef> = Vec::new();
    for _ in 0..n {
        let checksum = r.le_u64()?;
        let l = LemmaRef {
            checksum,
            position: r.position(board)?,
            side: r.color()?,
            claim: r.claim()?,
        };
        if lemmas.last().is_some_and(|last| last.key() >= l.key()) {
            return Err(format!(
                "lemma {} for {} at {}: out of order, or listed twice",
                l.file_name(),
                l.side.name(),
                l.position
            ));
        }
        lemmas.push(l);
    }
    Ok(lemmas)
}
