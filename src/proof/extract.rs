//! The certificate of a verdict, computed from the transposition table by an exact
//! fixpoint over the game graph (least for a win, greatest for a draw), not read off
//! the search tree, so that the graph-history interaction cannot make it unsound.

use rustc_hash::{FxHashMap, FxHashSet};

use super::search::{Dfpn, Key, ProofGraph, settled, wins_for};
use crate::certificate::{Claim, LemmaRef};
use crate::rules::position::{Color, Position};

impl Dfpn<'_> {
    /// The certificate of the verdict at `root`, computed as a fixpoint over the
    /// positions the table marks decided that way. On failure, returns the keys
    /// whose marks the fixpoint rejected.
    pub(super) fn extract(&self, root: &Position, win: bool) -> Result<ProofGraph, Vec<Key>> {
        let side = if win {
            self.attacker
        } else {
            self.attacker.other()
        };
        let claim = if win { Claim::Win } else { Claim::NotLose };
        let rk = Key::of(root);
        let marked = |k: &Key| {
            self.tt
                .get(k)
                .is_some_and(|&(pn, dn)| if win { pn == 0 } else { dn == 0 })
        };
        // The candidate positions, the root first.
        let mut ids: FxHashMap<Key, usize> = FxHashMap::default();
        let mut nodes: Vec<Position> = vec![*root];
        ids.insert(rk, 0);
        for k in self.tt.keys() {
            if *k != rk && marked(k) {
                ids.insert(*k, nodes.len());
                nodes.push(k.position(root));
            }
        }
        let n = nodes.len();
        // Per node: whether its side to move is S; its children as good leaves,
        // candidates or anything else (bad).
        let mut s_node = vec![false; n];
        let mut good_leaf: Vec<Option<Position>> = vec![None; n];
        let mut bad = vec![false; n];
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in nodes.iter().enumerate() {
            s_node[i] = p.turn() == side;
            for c in p.successors() {
                let ok = settled(self.tables, &c)
                    .map(|v| {
                        if win {
                            wins_for(side, &c, v)
                        } else {
                            !wins_for(side.other(), &c, v)
                        }
                    })
                    .or_else(|| self.lemma_serving(side, claim, &c).map(|l| l.is_ok()));
                match (ok, ids.get(&Key::of(&c))) {
                    (Some(true), _) => {
                        if good_leaf[i].is_none() {
                            good_leaf[i] = Some(c);
                        }
                    }
                    (None, Some(&j)) => {
                        kids[i].push(j);
                        parents[j].push(i);
                    }
                    _ => bad[i] = true,
                }
            }
        }
        let mut choice: Vec<Option<usize>> = vec![None; n];
        let graph = (kids.as_slice(), parents.as_slice());
        let accepted = fixpoint(win, &s_node, &good_leaf, &bad, graph, &mut choice);
        if !accepted[0] {
            return Err(ids
                .iter()
                .filter(|&(_, &i)| !accepted[i])
                .map(|(k, _)| *k)
                .collect());
        }
        // The graph reachable from the root through S's choices.
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        let mut out = Vec::new();
        while let Some(i) = stack.pop() {
            let next: Vec<usize> = if s_node[i] {
                choice[i].into_iter().collect()
            } else {
                kids[i].clone()
            };
            let chosen = if s_node[i] {
                Some(match choice[i] {
                    Some(j) => nodes[j],
                    None => good_leaf[i].expect("an accepted S node has a move"),
                })
            } else {
                None
            };
            out.push((nodes[i], chosen));
            for j in next {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        out.sort_by_key(|(p, _)| Key::of(p));
        let lemmas = self.lemmas_used(side, claim, &out);
        Ok(ProofGraph {
            side,
            claim,
            nodes: out,
            lemmas,
        })
    }

    /// The lemmas the moves of a proof graph lead to: successors followed (S's
    /// chosen move, every reply of the other side) that are neither in the graph nor
    /// settled as a finished game or a table position, as the checker reads them.
    fn lemmas_used(
        &self,
        side: Color,
        claim: Claim,
        nodes: &[(Position, Option<Position>)],
    ) -> Vec<LemmaRef> {
        if self.lemmas.is_empty() {
            return Vec::new();
        }
        let inside: FxHashSet<Key> = nodes.iter().map(|(p, _)| Key::of(p)).collect();
        let mut used = Vec::new();
        for (p, chosen) in nodes {
            let followed = match chosen {
                Some(c) => vec![*c],
                None => p.successors(),
            };
            for c in followed {
                if inside.contains(&Key::of(&c))
                    || settled(self.tables, &c).is_some()
                    || c.is_lost()
                {
                    continue;
                }
                if let Some(Ok(l)) = self.lemma_serving(side, claim, &c) {
                    used.push(l);
                }
            }
        }
        crate::certificate::sort_lemmas(&mut used);
        used
    }
}

/// The attractor of a player in the candidate graph: the nodes from which it can
/// force play into its target. A node where it chooses joins when it has a
/// `direct` way into the target or a child that joined (recorded in `choice`; the
/// child joined first, so the choices are acyclic); a node where the other side
/// moves joins when it is not `blocked` (no way out) and all its children joined.
fn attractor(
    chooser: &[bool],
    direct: &[bool],
    blocked: &[bool],
    kids: &[Vec<usize>],
    parents: &[Vec<usize>],
    choice: &mut [Option<usize>],
) -> Vec<bool> {
    let n = chooser.len();
    let mut joined = vec![false; n];
    let mut need: Vec<usize> = kids.iter().map(Vec::len).collect();
    let mut queue: Vec<usize> = (0..n)
        .filter(|&i| {
            if chooser[i] {
                direct[i]
            } else {
                !blocked[i] && need[i] == 0
            }
        })
        .collect();
    for &i in &queue {
        joined[i] = true;
    }
    while let Some(w) = queue.pop() {
        for &p in &parents[w] {
            if joined[p] {
                continue;
            }
            if chooser[p] {
                choice[p] = Some(w);
            } else {
                need[p] -= 1;
                if need[p] > 0 || blocked[p] {
                    continue;
                }
            }
            joined[p] = true;
            queue.push(p);
        }
    }
    joined
}

/// The nodes S's claim holds at, with S's choices. A win (`win`): the least
/// fixpoint, S's attractor to its good leaves. Not losing: the greatest fixpoint,
/// the complement of the opponent's attractor to a bad exit (an S node with a good
/// leaf cannot be forced); S's move at a kept node is a good leaf, else a kept child.
fn fixpoint(
    win: bool,
    s_node: &[bool],
    good_leaf: &[Option<Position>],
    bad: &[bool],
    (kids, parents): (&[Vec<usize>], &[Vec<usize>]),
    choice: &mut [Option<usize>],
) -> Vec<bool> {
    let exit: Vec<bool> = good_leaf.iter().map(Option::is_some).collect();
    if win {
        return attractor(s_node, &exit, bad, kids, parents, choice);
    }
    let opponent: Vec<bool> = s_node.iter().map(|s| !s).collect();
    let direct: Vec<bool> = (0..s_node.len()).map(|i| !s_node[i] && bad[i]).collect();
    let mut forced = vec![None; s_node.len()];
    let lost = attractor(&opponent, &direct, &exit, kids, parents, &mut forced);
    let alive: Vec<bool> = lost.iter().map(|l| !l).collect();
    for i in 0..s_node.len() {
        if alive[i] && s_node[i] && !exit[i] {
            choice[i] = kids[i].iter().copied().find(|&j| alive[j]);
        }
    }
    alive
}
