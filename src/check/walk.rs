//! Following a proof's moves: every position of a proof checked against the
//! definition (docs/PROOF.md), in parallel, with where its moves may end (a finished
//! game, a table, a lemma), and the search for a cycle of wins.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rayon::prelude::*;

use crate::certificate::{BlockCache, Blocked, Claim, Entry, Part, position_key};
use crate::check::proof::{CheckError, Checked};
use crate::index::Signature;
use crate::probe::ValueTables;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;

/// What a proof's moves may lead to outside the proof, and how each such end is
/// judged: a finished game, a table position of a table the certificate names, or a
/// lemma of the proof's claim that it names (marked in `used`).
struct Ends<'a> {
    checked: &'a Checked,
    side: Color,
    claim: Claim,
    tables: &'a ValueTables,
    lemmas: HashMap<Position, Vec<usize>>,
    used: &'a [AtomicBool],
}

impl<'a> Ends<'a> {
    fn new(
        checked: &'a Checked,
        part: &Part,
        tables: &'a ValueTables,
        used: &'a [AtomicBool],
    ) -> Ends<'a> {
        let mut lemmas: HashMap<Position, Vec<usize>> = HashMap::new();
        for (j, l) in checked.cert.lemmas.iter().enumerate() {
            lemmas.entry(l.position).or_default().push(j);
        }
        Ends {
            checked,
            side: part.side,
            claim: part.claim,
            tables,
            lemmas,
            used,
        }
    }

    fn invalid(&self, p: &Position, reason: String) -> CheckError {
        CheckError::Invalid {
            certificate: self.checked.name.clone(),
            side: self.side.name(),
            claim: self.claim.name(),
            position: p.to_string(),
            reason,
        }
    }

    /// Whether the move from `from` to `to`, a position not in the proof, ends well
    /// for the proof's side.
    fn judge(&self, from: &Position, to: Position) -> Result<(), String> {
        let (cert, side, claim) = (&self.checked.cert, self.side, self.claim);
        let k = cert.max_table_stones as u32;
        let mover_value = if to.us() == 0 || to.is_lost() {
            Wdl::Loss
        } else if (to.us() | to.them()).count_ones() <= k {
            let sig = Signature::of(to.us(), to.them());
            self.tables
                .value(to.us(), to.them())
                .filter(|_| cert.tables.iter().any(|t| t.0 == sig))
                .ok_or_else(|| {
                    format!("leads to {to}, whose table the certificate does not name")
                })?
        } else if let Some(js) = self.lemmas.get(&to) {
            let Some(&j) = js.iter().find(|&&j| cert.lemmas[j].serves(side, claim)) else {
                let l = &cert.lemmas[js[0]];
                return Err(format!(
                    "leads to {to}, whose lemma {} proves that {} {}, not that {} {}",
                    l.file_name(),
                    l.side.name(),
                    l.claim.name(),
                    side.name(),
                    claim.name()
                ));
            };
            self.used[j].store(true, Relaxed);
            return Ok(());
        } else {
            return Err(format!(
                "leads to {to}, which is neither in the proof nor a table position nor a lemma"
            ));
        };
        let for_side = if to.turn() == side {
            mover_value
        } else {
            mover_value.flipped()
        };
        let ok = match claim {
            Claim::Win => for_side == Wdl::Win,
            Claim::NotLose => for_side != Wdl::Loss,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{} leads to {to}, a {} for {}",
                if from.turn() == side {
                    "its move"
                } else {
                    "a reply"
                },
                for_side.name(),
                side.name()
            ))
        }
    }

    /// Checks the moves of `p` (with the proof's move `mv` where its side moves):
    /// each leads into the proof, where `inside` finds it (`Some`), or to an end
    /// `judge` accepts. Returns what `inside` found, and the moves followed.
    fn moves<T>(
        &self,
        p: &Position,
        mv: Option<&str>,
        inside: impl Fn(&Position) -> Result<Option<T>, CheckError>,
    ) -> Result<(Vec<T>, u64), CheckError> {
        let mut out = Vec::new();
        let mut follow = |to: Position, text: &str, sep: &str| -> Result<(), CheckError> {
            match inside(&to)? {
                Some(t) => out.push(t),
                None => self
                    .judge(p, to)
                    .map_err(|r| self.invalid(p, format!("{text}{sep} {r}")))?,
            }
            Ok(())
        };
        if p.turn() == self.side {
            let text = mv.ok_or_else(|| {
                self.invalid(p, format!("{} to move but no move given", self.side.name()))
            })?;
            let m = p
                .parse_move(text)
                .map_err(|err| self.invalid(p, err.to_string()))?;
            let canonical = m.notation(p.board());
            if canonical != text {
                return Err(self.invalid(
                    p,
                    format!("move {text:?} is not written as the notation gives it, {canonical:?}"),
                ));
            }
            follow(p.apply(&m), text, "")?;
            Ok((out, 1))
        } else {
            if mv.is_some() {
                return Err(self.invalid(p, "a move given for the opponent".into()));
            }
            let legal = p.legal_moves();
            for m in &legal {
                follow(p.apply(m), &m.notation(p.board()), ":")?;
            }
            Ok((out, legal.len() as u64))
        }
    }
}

/// Checks one proof of a certificate; returns the number of moves followed. A
/// lemma used is marked in `used`. The reader has the entries sorted by position
/// key, each once, so they are their own index (a binary search, no map); only a
/// win keeps the moves inside the proof, as a compact graph for its cycle check.
pub(super) fn check_part(
    checked: &Checked,
    part: &Part,
    tables: &ValueTables,
    used: &[AtomicBool],
) -> Result<u64, CheckError> {
    let ends = Ends::new(checked, part, tables, used);
    let entries = &part.entries;
    let index = |to: &Position| -> Result<Option<u32>, CheckError> {
        let key = position_key(to);
        Ok(entries
            .binary_search_by_key(&key, |e| position_key(&e.position))
            .ok()
            .map(|i| i as u32))
    };
    let root = &checked.cert.root;
    if index(root)?.is_none() {
        return Err(ends.invalid(root, "the root is not in the proof".into()));
    }
    let follow = |e: &Entry| ends.moves(&e.position, e.mv.as_deref(), index);
    if part.claim == Claim::NotLose {
        return entries
            .par_iter()
            .map(|e| follow(e).map(|(_, n)| n))
            .try_reduce(|| 0, |a, b| Ok(a + b));
    }
    // Every position's moves, in parallel; the edges inside the proof are kept for
    // the acyclicity check of a win.
    let edges: Vec<(Box<[u32]>, u64)> = entries
        .par_iter()
        .map(|e| follow(e).map(|(out, n)| (out.into_boxed_slice(), n)))
        .collect::<Result<_, _>>()?;
    let moves = edges.iter().map(|e| e.1).sum();
    let adj: Vec<Box<[u32]>> = edges.into_iter().map(|e| e.0).collect();
    if let Some(i) = find_cycle(&adj) {
        return Err(ends.invalid(
            &entries[i].position,
            "lies on a cycle: a win must end".into(),
        ));
    }
    Ok(moves)
}

/// Checks proof `i` of a version 3 certificate block by block, in parallel, holding
/// about `cache_bytes` of decoded blocks for the look-ups of where moves lead: a
/// win's ranks must fall along every move inside the proof, which is what makes it
/// acyclic without a graph of the whole. Returns the number of moves followed.
pub(super) fn check_blocked_part(
    checked: &Checked,
    i: usize,
    blocked: &Blocked,
    tables: &ValueTables,
    used: &[AtomicBool],
    cache_bytes: usize,
) -> Result<u64, CheckError> {
    let part = &checked.cert.parts[i];
    let ends = Ends::new(checked, part, tables, used);
    let cache = BlockCache::new(blocked, i, cache_bytes);
    let root = &checked.cert.root;
    if cache.rank(root)?.is_none() {
        return Err(ends.invalid(root, "the root is not in the proof".into()));
    }
    let win = part.claim == Claim::Win;
    let per_block: Result<Vec<u64>, CheckError> = (0..blocked.blocks(i))
        .into_par_iter()
        .map(|b| {
            let block = cache.get(b)?;
            let mut moves = 0;
            for e in block.iter() {
                let p = &e.entry.position;
                if !win && e.rank != 0 {
                    return Err(
                        ends.invalid(p, "a rank in a proof that does not claim a win".into())
                    );
                }
                let (inside, n) = ends.moves(p, e.entry.mv.as_deref(), |to| {
                    Ok(cache.rank(to)?.map(|r| (*to, r)))
                })?;
                if win && let Some((to, r)) = inside.into_iter().find(|&(_, r)| r >= e.rank) {
                    return Err(ends.invalid(
                        p,
                        format!(
                            "rank {} leads to {to} of rank {r}: ranks must fall along a win",
                            e.rank
                        ),
                    ));
                }
                moves += n;
            }
            Ok(moves)
        })
        .collect();
    Ok(per_block?.iter().sum())
}

/// A node on a cycle of the graph, if it has one. Kahn's algorithm peels off the
/// nodes in topological order; what remains holds a cycle and everything downstream
/// of one, so every node left has a predecessor left (not always a successor):
/// walking backwards inside the remainder must come back to a node.
pub(super) fn find_cycle(adj: &[impl AsRef<[u32]>]) -> Option<usize> {
    let n = adj.len();
    let mut indeg = vec![0usize; n];
    for out in adj {
        for &j in out.as_ref() {
            indeg[j as usize] += 1;
        }
    }
    let mut queue: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut removed = vec![false; n];
    while let Some(i) = queue.pop() {
        removed[i] = true;
        for &j in adj[i].as_ref() {
            let j = j as usize;
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push(j);
            }
        }
    }
    let first = (0..n).find(|&i| !removed[i])?;
    // One predecessor left for each node left.
    let mut pred = vec![usize::MAX; n];
    for (i, out) in adj.iter().enumerate().filter(|(i, _)| !removed[*i]) {
        for &j in out.as_ref() {
            pred[j as usize] = i;
        }
    }
    let mut seen = vec![false; n];
    let mut i = first;
    while !seen[i] {
        seen[i] = true;
        i = pred[i];
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn cycles_are_found_from_anywhere_downstream() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        // A two-node cycle feeding a dead end, the dead end listed first: the walk
        // must not start forward from it.
        let on = find_cycle(&[vec![], vec![2, 0], vec![1]]).expect("a cycle");
        assert!(on == 1 || on == 2, "{on}");
        assert_eq!(find_cycle(&[vec![0]]), Some(0), "a loop");
        let long = find_cycle(&[vec![1], vec![2], vec![3], vec![1, 4], vec![]]).unwrap();
        assert!((1..=3).contains(&long), "{long}");
    }
}
