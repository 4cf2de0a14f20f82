//! Version 4 (docs/PROOF.md, "Certificate file, version 4"): a proof written as its
//! side's moves alone. From the root, a walk visits each position once, depth
//! first: where the proof's side moves, the next number of the file picks its move
//! (an index into the legal moves sorted by notation); where the other side moves,
//! every reply is followed, in that order. A move that leads to a finished game, a
//! table position (at most K stones) or a position of the lemma list ends there,
//! as it does for the checker; every other position reached is in the proof set.
//! The positions are therefore implied: a proof takes about a byte per move of its
//! side instead of 18 or more per position.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Certificate, Entry, Part, position_key};
use crate::files::bytes::Fields;
use crate::rules::movegen::Move;
use crate::rules::position::{Color, Position};

/// The format version of a proof written as its moves.
pub(crate) const COMPACT: u32 = 4;

/// The legal moves of `p`, sorted by notation; `text` is left holding their
/// notations one after the other (one buffer for all, not a string a move: a walk
/// sorts the moves of millions of positions).
fn sorted_moves(p: &Position, text: &mut String) -> Vec<Move> {
    let moves = p.legal_moves();
    text.clear();
    let mut spans = Vec::with_capacity(moves.len());
    for m in &moves {
        let start = text.len();
        m.push_notation(p.board(), text);
        spans.push((start, text.len()));
    }
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by(|&i, &j| text[spans[i].0..spans[i].1].cmp(&text[spans[j].0..spans[j].1]));
    let mut slots: Vec<Option<Move>> = moves.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i].take().expect("each index once"))
        .collect()
}

/// The positions where a walk ends without the proof set: as the checker tests a
/// move, a finished game, a table position, a position of the lemma list.
struct Ends {
    k: u32,
    lemmas: FxHashSet<(u64, u64)>,
}

impl Ends {
    fn of(cert: &Certificate) -> Ends {
        Ends {
            k: cert.max_table_stones as u32,
            lemmas: cert
                .lemmas
                .iter()
                .map(|l| position_key(&l.position))
                .collect(),
        }
    }

    fn ends(&self, to: &Position) -> bool {
        self.settled(to) || self.lemmas.contains(&position_key(to))
    }

    /// A finished game or a table position: settled before the lemma list is.
    fn settled(&self, to: &Position) -> bool {
        to.us() == 0 || to.is_lost() || (to.us() | to.them()).count_ones() <= self.k
    }

    /// Whether a walk ends at `to` on a position of the lemma list.
    fn at_lemma(&self, to: &Position) -> bool {
        !self.settled(to) && self.lemmas.contains(&position_key(to))
    }
}

/// The walk both directions share: from `root`, each position once, depth first;
/// `choose` gives the index of the side's move at a position where it moves (and
/// may refuse it), `visit` sees each position with the move chosen there, and
/// `end` each position a move reaches where the walk ends.
fn walk(
    root: &Position,
    side: Color,
    ends: &Ends,
    mut choose: impl FnMut(&Position, &[Move]) -> Result<usize, String>,
    mut visit: impl FnMut(&Position, Option<&Move>) -> Result<(), String>,
    mut end: impl FnMut(&Position),
) -> Result<(), String> {
    let mut seen: FxHashSet<(u64, u64)> = FxHashSet::default();
    let mut stack = vec![*root];
    let mut text = String::new();
    while let Some(p) = stack.pop() {
        if !seen.insert(position_key(&p)) {
            continue;
        }
        let moves = sorted_moves(&p, &mut text);
        if p.turn() == side {
            let i = choose(&p, &moves)?;
            let m = moves
                .get(i)
                .ok_or_else(|| format!("{p}: move number {i} of {}", moves.len()))?;
            visit(&p, Some(m))?;
            let to = p.apply(m);
            if ends.ends(&to) {
                end(&to);
            } else {
                stack.push(to);
            }
        } else {
            visit(&p, None)?;
            // Reversed onto the stack, so the first reply is walked first.
            for m in moves.iter().rev() {
                let to = p.apply(m);
                if ends.ends(&to) {
                    end(&to);
                } else {
                    stack.push(to);
                }
            }
        }
    }
    Ok(())
}

fn put_varint(v: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        v.push(x as u8 | 0x80);
        x >>= 7;
    }
    v.push(x as u8);
}

fn varint(r: &mut impl Fields) -> Result<u64, String> {
    let mut x = 0u64;
    for shift in (0..64).step_by(7) {
        let b = r.byte()?;
        x |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(x);
        }
    }
    Err("a move number longer than ten bytes".into())
}

/// The entries of `part` by position.
fn by_key(part: &Part) -> FxHashMap<(u64, u64), &Entry> {
    part.entries
        .iter()
        .map(|e| (position_key(&e.position), e))
        .collect()
}

/// The index in `moves` of the move the proof gives at `p`, or why there is none.
fn proof_move(
    by_key: &FxHashMap<(u64, u64), &Entry>,
    p: &Position,
    moves: &[Move],
) -> Result<usize, String> {
    let e = by_key
        .get(&position_key(p))
        .ok_or_else(|| format!("{p}: reached, and not in the proof"))?;
    let mv =
        e.mv.as_deref()
            .ok_or_else(|| format!("{p}: the proof gives no move here"))?;
    moves
        .iter()
        .position(|m| m.notation(p.board()) == mv)
        .ok_or_else(|| format!("{p}: its move {mv} is not legal"))
}

/// Proof `part` of `cert` as version 4 writes it: its number of moves, then each
/// move's index in walk order. `None` unless the walk reaches exactly the proof's
/// positions (one it does not reach, or a table or lemma position in the proof set,
/// would be lost), each with the move the proof gives.
pub(super) fn encode_part(cert: &Certificate, part: &Part) -> Option<Vec<u8>> {
    let by_key = by_key(part);
    let mut indices = Vec::new();
    let mut reached = 0usize;
    walk(
        &cert.root,
        part.side,
        &Ends::of(cert),
        |p, moves| {
            let i = proof_move(&by_key, p, moves)?;
            indices.push(i as u64);
            Ok(i)
        },
        |p, mv| {
            reached += 1;
            match by_key.get(&position_key(p)) {
                Some(e) if e.mv == mv.map(|m| m.notation(p.board())) => Ok(()),
                _ => Err(String::new()),
            }
        },
        |_| {},
    )
    .ok()?;
    if reached != part.entries.len() {
        return None;
    }
    let mut v = Vec::new();
    put_varint(&mut v, indices.len() as u64);
    for i in indices {
        put_varint(&mut v, i);
    }
    Some(v)
}

/// Reads proof `side` of `cert` (its root, table stones and lemma list read) as
/// version 4 writes it, and returns its entries in key order. A proof takes one
/// position a move of its side and one a reply at most, so the count read bounds
/// what it costs.
pub(super) fn decode_part(
    cert: &Certificate,
    side: Color,
    r: &mut impl Fields,
) -> Result<Vec<Entry>, String> {
    let n = varint(r)?;
    // Each move takes at least a byte.
    if n > r.remaining() as u64 {
        return Err(format!("{n} moves in a payload too small for them"));
    }
    let mut read = 0u64;
    let mut entries = Vec::new();
    walk(
        &cert.root,
        side,
        &Ends::of(cert),
        |p, _| {
            read += 1;
            if read > n {
                return Err(format!("{p}: more moves than the {n} the proof lists"));
            }
            usize::try_from(varint(r)?).map_err(|_| "a move number out of range".to_string())
        },
        |p, mv| {
            entries.push(Entry {
                position: *p,
                mv: mv.map(|m| m.notation(p.board())),
            });
            Ok(())
        },
        |_| {},
    )?;
    if read != n {
        return Err(format!("{} moves walked, the proof lists {n}", read));
    }
    entries.sort_by_key(|e| position_key(&e.position));
    Ok(entries)
}

/// The keys of the lemma positions where a walk ends.
type LemmaEnds = FxHashSet<(u64, u64)>;

/// Proof `part` of `cert` with table leaves of up to `k` stones instead of the
/// certificate's own: walked as the checker walks it, and cut where it reaches a
/// position of at most `k` stones. Returns the entries still reached, in key order,
/// and the positions of the lemma list where it ends; an error names a position
/// the walk reaches that the proof lacks.
pub(super) fn cut_part(
    cert: &Certificate,
    part: &Part,
    k: u8,
) -> Result<(Vec<Entry>, LemmaEnds), String> {
    let by_key = by_key(part);
    // As the checker judges a move of this proof: a lemma ends it only where one
    // serves the proof's claim (elsewhere the position is in the proof set).
    let ends = Ends {
        k: u32::from(k),
        lemmas: cert
            .lemmas
            .iter()
            .filter(|l| l.serves(part.side, part.claim))
            .map(|l| position_key(&l.position))
            .collect(),
    };
    let mut entries = Vec::new();
    let mut at_lemmas = FxHashSet::default();
    walk(
        &cert.root,
        part.side,
        &ends,
        |p, moves| proof_move(&by_key, p, moves),
        |p, _| {
            let e = by_key
                .get(&position_key(p))
                .ok_or_else(|| format!("{p}: reached, and not in the proof"))?;
            entries.push((*e).clone());
            Ok(())
        },
        |to| {
            if ends.at_lemma(to) {
                at_lemmas.insert(position_key(to));
            }
        },
    )?;
    entries.sort_by_key(|e| position_key(&e.position));
    Ok((entries, at_lemmas))
}
