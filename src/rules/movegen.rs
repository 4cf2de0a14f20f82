//! Move generation per docs/RULES.md: capture detection with bit operations, capture
//! chains (no repeat of the last direction, no return to a point stood on, optional
//! stop), compulsory capture, paika; `Move` with notation; distinct successors.

use thiserror::Error;

use crate::rules::board::{Board, bits, opposite};
use crate::rules::position::Position;

/// How a capturing step takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capture {
    /// The stone moves toward the enemy line and takes the run beyond its landing point.
    Approach,
    /// The stone moves away and takes the run behind its starting point.
    Withdrawal,
}

impl Capture {
    /// Its letter in move notation: `A` or `W`.
    pub fn letter(self) -> char {
        match self {
            Capture::Approach => 'A',
            Capture::Withdrawal => 'W',
        }
    }
}

/// One step of a move: where the stone lands, and what it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// The point the stone lands on.
    pub to: u8,
    /// `None` only for a paika.
    pub capture: Option<Capture>,
    /// The stones this step takes, as a bitboard (empty for a paika).
    pub taken: u64,
}

/// A whole turn: one stone's path with the capture kind of each step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The point the stone starts on.
    pub from: u8,
    /// The steps in order: at least one; exactly one for a paika.
    pub steps: Vec<Step>,
}

impl Move {
    /// Whether the move captures (else it is a paika).
    pub fn is_capture(&self) -> bool {
        self.steps[0].capture.is_some()
    }
    /// Every stone the move takes.
    pub fn captured(&self) -> u64 {
        self.steps.iter().fold(0, |acc, s| acc | s.taken)
    }
    /// The point the stone ends on.
    pub fn to(&self) -> u8 {
        self.steps.last().expect("a move has a step").to
    }
    /// Notation: points joined by `-`, `A`/`W` after each capturing step.
    pub fn notation(&self, board: &Board) -> String {
        let mut s = String::with_capacity(2 + 4 * self.steps.len());
        self.push_notation(board, &mut s);
        s
    }

    /// Appends the notation to `s`.
    pub(crate) fn push_notation(&self, board: &Board, s: &mut String) {
        board.push_point_name(s, self.from);
        for st in &self.steps {
            s.push('-');
            board.push_point_name(s, st.to);
            if let Some(c) = st.capture {
                s.push(c.letter());
            }
        }
    }
}

/// Why a move text was rejected.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum MoveError {
    /// The text is not move notation on this board.
    #[error(
        "malformed move `{text}`: {reason} (expected points joined by `-`, like d2-e3A or a1-b2)"
    )]
    Notation {
        /// The move as given.
        text: String,
        /// What is malformed.
        reason: String,
    },
    /// The text is well formed but not a legal move in the position.
    #[error("illegal move `{text}`: {reason}")]
    Illegal {
        /// The move as given.
        text: String,
        /// Why it is not legal there.
        reason: String,
    },
}

/// Stones of `them` in the run that starts at the point of `start` (one bit, or
/// none) and goes on in direction `d`, up to the first point that is not theirs.
#[inline]
fn run(board: &Board, mut start: u64, d: usize, them: u64) -> u64 {
    let mut taken = 0u64;
    while start & them != 0 {
        taken |= start;
        start = board.shift(start, d);
    }
    taken
}

/// The points from which a stone would have a capturing step against `them`,
/// landing on a point of `empty`: any point, whoever holds it.
#[inline]
pub(crate) fn capture_points(board: &Board, empty: u64, them: u64) -> u64 {
    let mut found = 0u64;
    for d in 0..8 {
        let back = opposite(d);
        // Points whose neighbour in direction d is empty.
        let can_step = board.shift(empty, back);
        let approach = board.shift(empty & board.shift(them, back), back);
        let withdrawal = can_step & board.shift(them, d);
        found |= approach | withdrawal;
    }
    found
}

/// The points from which a stone would have a capturing step against `them`
/// landing on `q`: with `q` opened, `capture_points` gains exactly these, since a
/// step's capture depends only on its landing point being empty.
#[inline]
pub(crate) fn capture_points_onto(board: &Board, q: u8, them: u64) -> u64 {
    // Every stone such a step takes is within two points of `q`.
    if board.reach(q) & them == 0 {
        return 0;
    }
    let (one, two) = (board.neighbour_bits(q), board.second_bits(q));
    let mut found = 0u64;
    for d in 0..8 {
        // A stone on `one[d]` stepping onto `q` (direction opposite(d)) approaches
        // the point past `q` and withdraws from the point behind itself.
        let captures = (one[opposite(d)] | two[d]) & them != 0;
        found |= one[d] & (captures as u64).wrapping_neg();
    }
    found
}

/// Stones of `us` that can make a capturing step.
#[inline]
pub(crate) fn capturers(board: &Board, us: u64, them: u64) -> u64 {
    capture_points(board, board.all() & !(us | them), them) & us
}

/// Whether the stone on `p` has a capturing step against `them`, landing on a
/// point of `empty`.
#[inline]
pub(crate) fn can_capture_from(board: &Board, p: u8, empty: u64, them: u64) -> bool {
    capture_dirs(board, p, empty, them) != (0, 0)
}

/// Whether the side owning `us` has any capture.
#[inline]
pub(crate) fn has_capture(board: &Board, us: u64, them: u64) -> bool {
    capturers(board, us, them) != 0
}

/// Calls `f(dest_of_one_stone, from, to)` for every paika of `us`: the mover's set after
/// the step, plus the step itself.
#[inline]
pub(crate) fn for_each_paika(board: &Board, us: u64, them: u64, mut f: impl FnMut(u64, u8, u8)) {
    let empty = board.all() & !(us | them);
    for d in 0..8 {
        let movers = us & board.shift(empty, opposite(d));
        for p in bits(movers) {
            let q = board.neighbour(p, d).expect("mover has a neighbour");
            f(us ^ (1 << p) ^ (1 << q), p, q);
        }
    }
}

/// Number of paikas of `us` (each leads to a different position).
#[inline]
pub(crate) fn paika_count(board: &Board, us: u64, them: u64) -> u32 {
    let empty = board.all() & !(us | them);
    (0..8)
        .map(|d| (us & board.shift(empty, opposite(d))).count_ones())
        .sum()
}

/// Walks every capture chain of the stone on `from`. At every stopping point calls
/// `f(path, us_after, them_after)`.
pub(crate) fn for_each_chain(
    board: &Board,
    from: u8,
    us: u64,
    them: u64,
    f: &mut impl FnMut(&[Step], u64, u64),
) {
    let mut path = Vec::with_capacity(8);
    chain_from(board, from, us, them, &mut path, f);
}

/// Walks every capture chain of the stone on `from`, keeping the steps in `path`.
#[inline]
fn chain_from(
    board: &Board,
    from: u8,
    us: u64,
    them: u64,
    path: &mut impl Trail,
    f: &mut impl FnMut(&[Step], u64, u64),
) {
    let open = board.all() & !(us | them);
    let first = next_captures(board, from, None, open, them);
    if first != (0, 0) {
        chain_dfs(board, from, first, 1 << from, us, them, path, f);
    }
}

/// The steps of a chain so far, kept by a walk that reports moves and not by one
/// that wants only the positions they lead to (`()`: nothing kept, the hot path of
/// perft and the generator).
trait Trail {
    fn push(&mut self, step: Step);
    fn pop(&mut self);
    fn steps(&self) -> &[Step];
}

impl Trail for Vec<Step> {
    #[inline]
    fn push(&mut self, step: Step) {
        Vec::push(self, step);
    }
    #[inline]
    fn pop(&mut self) {
        Vec::pop(self);
    }
    #[inline]
    fn steps(&self) -> &[Step] {
        self
    }
}

impl Trail for () {
    #[inline]
    fn push(&mut self, _: Step) {}
    #[inline]
    fn pop(&mut self) {}
    #[inline]
    fn steps(&self) -> &[Step] {
        &[]
    }
}

/// The directions (bit d) in which the stone on `p` can capture, stepping to a point
/// of `open`: by approach, and by withdrawal. All eight at once without a branch a
/// direction: those branches were mispredicted often enough to cost more than the
/// work they skipped (docs/PERFORMANCE.md, "The move generator").
#[inline]
fn capture_dirs(board: &Board, p: u8, open: u64, them: u64) -> (u32, u32) {
    // No stone of `them` within two points: nothing to take. One test spares the
    // eight directions' work, often in endgames' sparse positions.
    if board.reach(p) & them == 0 {
        return (0, 0);
    }
    let (one, two) = (board.neighbour_bits(p), board.second_bits(p));
    let (mut approach, mut withdrawal) = (0u32, 0u32);
    for d in 0..8 {
        let step = (one[d] & open != 0) as u32;
        approach |= (step & (two[d] & them != 0) as u32) << d;
        withdrawal |= (step & (one[opposite(d)] & them != 0) as u32) << d;
    }
    (approach, withdrawal)
}

/// The captures, by approach and by withdrawal, that the stone on `p` can make
/// next in a chain: every direction but `last`'s (none at the start), landing on a
/// point of `open`.
#[inline(always)]
fn next_captures(board: &Board, p: u8, last: Option<usize>, open: u64, them: u64) -> (u32, u32) {
    let (approach, withdrawal) = capture_dirs(board, p, open, them);
    let not_last = !last.map_or(0, |d| 1 << d);
    (approach & not_last, withdrawal & not_last)
}

/// Walks on from the stone on `p`, which can capture by `approach` and `withdrawal`
/// (direction bits, from `next_captures`). Each step's own continuation is found
/// here, before recursing, so that a step that ends its chain (most do) costs no
/// call.
#[allow(clippy::too_many_arguments)]
fn chain_dfs(
    board: &Board,
    p: u8,
    (approach, withdrawal): (u32, u32),
    visited: u64,
    us: u64,
    them: u64,
    path: &mut impl Trail,
    f: &mut impl FnMut(&[Step], u64, u64),
) {
    let mut dirs = approach | withdrawal;
    while dirs != 0 {
        let d = dirs.trailing_zeros() as usize;
        dirs &= dirs - 1;
        let to = board.neighbour_bit(p, d);
        let q = to.trailing_zeros() as u8;
        let back = opposite(d);
        for (kind, can, start, towards) in [
            (Capture::Approach, approach, board.neighbour_bit(q, d), d),
            (
                Capture::Withdrawal,
                withdrawal,
                board.neighbour_bit(p, back),
                back,
            ),
        ] {
            if can >> d & 1 == 0 {
                continue;
            }
            let taken = run(board, start, towards, them);
            let nus = us ^ (1 << p) ^ to;
            let nthem = them & !taken;
            path.push(Step {
                to: q,
                capture: Some(kind),
                taken,
            });
            f(path.steps(), nus, nthem);
            let open = board.all() & !(nus | nthem) & !(visited | to);
            let next = next_captures(board, q, Some(d), open, nthem);
            if next != (0, 0) {
                chain_dfs(board, q, next, visited | to, nus, nthem, path, f);
            }
            path.pop();
        }
    }
}

thread_local! {
    /// One capture-results buffer a thread: the searches generate and count the
    /// moves of every new position.
    static RESULTS: std::cell::RefCell<Vec<(u64, u64)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The number of distinct positions `us`'s legal moves lead to (perft 1), with `res`
/// as the buffer for capture results.
pub(crate) fn successor_count_in(
    board: &Board,
    us: u64,
    them: u64,
    res: &mut Vec<(u64, u64)>,
) -> usize {
    match capturers(board, us, them) {
        0 => paika_count(board, us, them) as usize,
        caps => {
            capture_results_of(board, caps, us, them, res);
            res.len()
        }
    }
}

/// The distinct results `(us_after, them_after)` of every capture by the stones
/// `caps` (the capturers of `us`): by capturing stone, each stone's in the order its
/// chains are walked.
pub(crate) fn capture_results_of(
    board: &Board,
    caps: u64,
    us: u64,
    them: u64,
    out: &mut Vec<(u64, u64)>,
) {
    out.clear();
    for s in bits(caps) {
        let first = out.len();
        // Two stones never reach the same result (a chain ends on a point that
        // was empty, so the stones after it tell which stone moved): only one
        // stone's results can repeat, and a stone has few, so a scan of them keeps
        // each once for less than sorting them would cost.
        each_capture_result(board, 1 << s, us, them, |u, t| {
            if !out[first..].contains(&(u, t)) {
                out.push((u, t));
            }
        });
    }
}

/// Calls `f(us_after, them_after)` for every capture of the stones `caps` (the
/// capturers of `us`), by stone, each stone's in the order its chains are walked: a
/// result that two chains reach comes twice, for callers that take the best of them.
#[inline]
pub(crate) fn each_capture_result(
    board: &Board,
    caps: u64,
    us: u64,
    them: u64,
    mut f: impl FnMut(u64, u64),
) {
    for s in bits(caps) {
        chain_from(board, s, us, them, &mut (), &mut |_, u, t| f(u, t));
    }
}

impl Position {
    /// Every legal move, in a fixed order: captures if any exist, else paikas.
    pub fn legal_moves(&self) -> Vec<Move> {
        let board = self.board();
        let (us, them) = (self.us(), self.them());
        let mut moves = Vec::new();
        let caps = capturers(board, us, them);
        if caps != 0 {
            for s in bits(caps) {
                for_each_chain(board, s, us, them, &mut |path, _, _| {
                    moves.push(Move {
                        from: s,
                        steps: path.to_vec(),
                    })
                });
            }
        } else {
            moves = self.quiet_moves();
        }
        moves
    }

    /// Every single step to an empty neighbour, capturing nothing, sorted by the
    /// points: the paikas, or under vela the vela side's moves even where a capture
    /// is possible.
    pub fn quiet_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        for_each_paika(self.board(), self.us(), self.them(), |_, p, q| {
            moves.push(Move {
                from: p,
                steps: vec![Step {
                    to: q,
                    capture: None,
                    taken: 0,
                }],
            })
        });
        moves.sort_by_key(|m| (m.from, m.to()));
        moves
    }

    /// The position after `mv`, which must be legal here.
    pub fn apply(&self, mv: &Move) -> Position {
        let us = self.us() ^ (1 << mv.from) ^ (1 << mv.to());
        let them = self.them() & !mv.captured();
        Position::from_sides(self.board(), them, us, self.turn().other())
    }

    /// The distinct positions the legal moves lead to, sorted by stone sets.
    pub fn successors(&self) -> Vec<Position> {
        let mut out = Vec::new();
        self.successors_into(&mut out);
        out
    }

    /// `successors()` into `out`, emptied first: a search that expands millions of
    /// positions reuses one buffer instead of allocating two vectors a position.
    pub fn successors_into(&self, out: &mut Vec<Position>) {
        let board = self.board();
        let (us, them) = (self.us(), self.them());
        let next = self.turn().other();
        out.clear();
        match capturers(board, us, them) {
            0 => {
                for_each_paika(board, us, them, |u, _, _| {
                    out.push(Position::from_sides(board, them, u, next))
                });
                out.sort_unstable_by_key(|p| (p.white(), p.black()));
            }
            caps => RESULTS.with_borrow_mut(|res| {
                capture_results_of(board, caps, us, them, res);
                res.sort_unstable();
                out.extend(
                    res.iter()
                        .map(|&(u, t)| Position::from_sides(board, t, u, next)),
                );
            }),
        }
    }

    /// The number of distinct positions the legal moves lead to: `successors().len()`
    /// without building them.
    pub fn successor_count(&self) -> usize {
        RESULTS.with_borrow_mut(|res| successor_count_in(self.board(), self.us(), self.them(), res))
    }

    /// Whether the side to move has lost: no stones, or no legal move.
    pub fn is_lost(&self) -> bool {
        let board = self.board();
        let (us, them) = (self.us(), self.them());
        us == 0 || (!has_capture(board, us, them) && paika_count(board, us, them) == 0)
    }

    /// Parses a move in notation and checks it against the legal moves.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let path = parse_notation(self.board(), text)?;
        let moves = self.legal_moves();
        if let Some(m) = moves.iter().find(|m| matches_path(m, &path)) {
            return Ok(m.clone());
        }
        Err(MoveError::Illegal {
            text: text.to_string(),
            reason: self.why_illegal(&path, &moves),
        })
    }

    /// Parses a move in notation and checks it against the quiet moves alone (a
    /// vela side's); `vela` says why a capture is refused.
    pub(crate) fn parse_quiet_move(&self, text: &str, vela: &str) -> Result<Move, MoveError> {
        let path = parse_notation(self.board(), text)?;
        let illegal = |reason: String| MoveError::Illegal {
            text: text.to_string(),
            reason,
        };
        if path.len() > 2 || path.iter().any(|&(_, kind)| kind.is_some()) {
            return Err(illegal(format!(
                "{vela}: it plays single steps that capture nothing"
            )));
        }
        let moves = self.quiet_moves();
        if let Some(m) = moves.iter().find(|m| matches_path(m, &path)) {
            return Ok(m.clone());
        }
        let (board, (from, _), (to, _)) = (self.board(), path[0], path[1]);
        let name = |p: u8| board.point_name(p);
        Err(illegal(if self.us() >> from & 1 == 0 {
            format!("no {} stone on {}", self.turn().name(), name(from))
        } else if board.direction(from, to).is_none() {
            format!("no line joins {} and {}", name(from), name(to))
        } else if moves.is_empty() {
            format!(
                "{} has no quiet move ({vela}): the game is over",
                self.turn().name()
            )
        } else {
            format!("{} is not empty", name(to))
        }))
    }

    /// Applies a sequence of moves in notation.
    pub fn play<'a>(
        &self,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Position, MoveError> {
        let mut pos = *self;
        for text in moves {
            let mv = pos.parse_move(text)?;
            pos = pos.apply(&mv);
        }
        Ok(pos)
    }

    /// The reason a well-formed path is not a legal move here.
    fn why_illegal(&self, path: &[(u8, Option<Capture>)], legal: &[Move]) -> String {
        let board = self.board();
        let name = |p: u8| board.point_name(p);
        let side = self.turn().name();
        let from = path[0].0;
        if self.us() >> from & 1 == 0 {
            return format!("no {side} stone on {}", name(from));
        }
        if legal.is_empty() {
            return format!("{side} has no legal move: the game is over");
        }
        let (mut us, mut them) = (self.us(), self.them());
        let mut visited = 1u64 << from;
        let mut last = None;
        let mut p = from;
        for (i, &(q, kind)) in path[1..].iter().enumerate() {
            let step = format!("{}-{}", name(p), name(q));
            let Some(d) = board.direction(p, q) else {
                return format!("no line joins {} and {}", name(p), name(q));
            };
            if (us | them) >> q & 1 != 0 {
                return format!("{} is not empty", name(q));
            }
            if visited >> q & 1 != 0 {
                return format!(
                    "the stone has already stood on {} during this move",
                    name(q)
                );
            }
            if last == Some(d) {
                return format!("step {step} repeats the direction of the step before it");
            }
            let back = opposite(d);
            let approach = run(board, board.shift(1 << q, d), d, them);
            let withdrawal = run(board, board.shift(1 << p, back), back, them);
            let taken = match kind {
                None if approach != 0 && withdrawal != 0 => {
                    return format!(
                        "step {step} can capture by approach or by withdrawal: add A or W"
                    );
                }
                None if approach != 0 => return format!("step {step} captures: write it with A"),
                None if withdrawal != 0 => return format!("step {step} captures: write it with W"),
                None if i > 0 => {
                    return format!(
                        "step {step} captures nothing; every step after the first must capture"
                    );
                }
                None => {
                    let example = legal[0].notation(board);
                    return format!(
                        "capture is compulsory: {side} must capture (for example {example})"
                    );
                }
                Some(Capture::Approach) if approach == 0 => {
                    return format!("step {step} captures nothing by approach");
                }
                Some(Capture::Withdrawal) if withdrawal == 0 => {
                    return format!("step {step} captures nothing by withdrawal");
                }
                Some(Capture::Approach) => approach,
                Some(Capture::Withdrawal) => withdrawal,
            };
            us ^= (1 << p) | (1 << q);
            them &= !taken;
            visited |= 1 << q;
            last = Some(d);
            p = q;
        }
        "not a legal move in this position".to_string()
    }
}

fn matches_path(m: &Move, path: &[(u8, Option<Capture>)]) -> bool {
    m.from == path[0].0
        && m.steps.len() + 1 == path.len()
        && m.steps
            .iter()
            .zip(&path[1..])
            .all(|(s, &(to, kind))| s.to == to && s.capture == kind)
}

/// Splits notation into points with their capture letters (none on the first).
fn parse_notation(board: &Board, text: &str) -> Result<Vec<(u8, Option<Capture>)>, MoveError> {
    let bad = |reason: String| MoveError::Notation {
        text: text.to_string(),
        reason,
    };
    let parts: Vec<&str> = text.trim_ascii().split('-').collect();
    if parts.len() < 2 {
        return Err(bad("a move needs at least two points".into()));
    }
    let mut path = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let (point, kind) = match part.chars().last() {
            Some('A') => (&part[..part.len() - 1], Some(Capture::Approach)),
            Some('W') => (&part[..part.len() - 1], Some(Capture::Withdrawal)),
            _ => (*part, None),
        };
        if i == 0 && kind.is_some() {
            return Err(bad("the starting point takes no A or W".into()));
        }
        let p = board.parse_point(point).map_err(|e| bad(e.to_string()))?;
        path.push((p, kind));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Opening one point adds exactly the capture points landing on it, on every
        /// board shape the project builds (diagonals only through strong points).
        #[test]
        fn opening_a_point_adds_the_captures_onto_it(
            size in proptest::sample::select(vec![(9, 5), (5, 5), (3, 3), (7, 3), (3, 7)]),
            them: u64,
            empty: u64,
            q in 0u8..45,
        ) {
            let board = Board::get(size.0, size.1).unwrap();
            let q = q % board.points() as u8;
            let (them, empty) = (them & board.all() & !(1 << q), empty & board.all() & !them);
            prop_assert_eq!(
                capture_points(board, empty | 1 << q, them),
                capture_points(board, empty, them) | capture_points_onto(board, q, them)
            );
        }
    }
}
