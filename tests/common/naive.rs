//! Naive, independent reference implementation of the Fanorona rules of
//! `docs/RULES.md`, used only by tests.
//!
//! Deliberately simple: a board is a `Vec<u8>` (0 empty, 1 white, 2 black,
//! index `y * w + x`), moves are generated with plain loops over points and
//! the 8 directions, and positions are solved by plain value iteration.
//! Nothing here depends on the crate under test.

#![allow(dead_code)]
// Plain argument lists keep the reference obviously correct.
#![allow(clippy::too_many_arguments)]

use std::collections::{HashMap, HashSet};

pub const EMPTY: u8 = 0;
pub const WHITE: u8 = 1;
pub const BLACK: u8 = 2;

/// The 8 directions (dx, dy); dy = +1 is towards higher row numbers.
pub const DIRS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NaivePos {
    pub w: usize,
    pub h: usize,
    /// 0 empty, 1 white, 2 black; index y * w + x.
    pub cells: Vec<u8>,
    pub white_to_move: bool,
}

impl NaivePos {
    pub fn get(&self, x: usize, y: usize) -> u8 {
        self.cells[y * self.w + x]
    }
    pub fn mover(&self) -> u8 {
        if self.white_to_move { WHITE } else { BLACK }
    }
    pub fn count(&self, colour: u8) -> usize {
        self.cells.iter().filter(|&&c| c == colour).count()
    }
}

/// Point name: column letter then 1-based row, e.g. (4, 2) -> "e3".
pub fn name(x: usize, y: usize) -> String {
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

/// Name of the point with cell index `i` on a board `w` wide.
pub fn name_of_index(w: usize, i: usize) -> String {
    name(i % w, i / w)
}

fn check_size(w: usize, h: usize) {
    assert!(w % 2 == 1 && (3..=9).contains(&w), "bad board width {w}");
    assert!(h % 2 == 1 && (3..=9).contains(&h), "bad board height {h}");
    assert!(w * h <= 64, "board {w}x{h} has more than 64 points");
}

/// Parse position text, e.g. `BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w`.
/// Panics on bad text (this is a test helper).
pub fn parse(text: &str) -> NaivePos {
    let parts: Vec<&str> = text.split(' ').collect();
    assert!(
        parts.len() == 2,
        "position text needs board and side: {text:?}"
    );
    let white_to_move = match parts[1] {
        "w" => true,
        "b" => false,
        other => panic!("bad side to move {other:?} in {text:?}"),
    };
    let rows_top_down: Vec<&str> = parts[0].split('/').collect();
    let h = rows_top_down.len();
    let mut rows: Vec<Vec<u8>> = Vec::new(); // in text order (top first)
    for row in &rows_top_down {
        let mut cells = Vec::new();
        for ch in row.chars() {
            match ch {
                'W' => cells.push(WHITE),
                'B' => cells.push(BLACK),
                '1'..='9' => {
                    let n = ch as usize - '0' as usize;
                    cells.extend(std::iter::repeat_n(EMPTY, n));
                }
                other => panic!("bad character {other:?} in {text:?}"),
            }
        }
        rows.push(cells);
    }
    let w = rows[0].len();
    for (i, r) in rows.iter().enumerate() {
        assert!(
            r.len() == w,
            "row {} of {text:?} has {} points, expected {w}",
            i + 1,
            r.len()
        );
    }
    check_size(w, h);
    let mut cells = vec![EMPTY; w * h];
    for (t, r) in rows.iter().enumerate() {
        let y = h - 1 - t; // first text row is the top row (row h)
        for x in 0..w {
            cells[y * w + x] = r[x];
        }
    }
    NaivePos {
        w,
        h,
        cells,
        white_to_move,
    }
}

/// Canonical position text (runs of empty points merged into one digit).
pub fn to_text(p: &NaivePos) -> String {
    let mut s = String::new();
    for t in 0..p.h {
        let y = p.h - 1 - t;
        if t > 0 {
            s.push('/');
        }
        let mut run = 0;
        for x in 0..p.w {
            match p.get(x, y) {
                EMPTY => run += 1,
                c => {
                    if run > 0 {
                        s.push_str(&run.to_string());
                        run = 0;
                    }
                    s.push(if c == WHITE { 'W' } else { 'B' });
                }
            }
        }
        if run > 0 {
            s.push_str(&run.to_string());
        }
    }
    s.push(' ');
    s.push(if p.white_to_move { 'w' } else { 'b' });
    s
}

/// Start position of docs/RULES.md: White below the middle row, Black above it;
/// middle row B W B W ... up to the empty centre, right half the left half
/// mirrored with colours swapped. White to move.
pub fn start(w: usize, h: usize) -> NaivePos {
    check_size(w, h);
    let mid_y = (h - 1) / 2;
    let mid_x = (w - 1) / 2;
    let mut cells = vec![EMPTY; w * h];
    for y in 0..h {
        for x in 0..w {
            let c = if y < mid_y {
                WHITE
            } else if y > mid_y {
                BLACK
            } else if x < mid_x {
                if x % 2 == 0 { BLACK } else { WHITE }
            } else if x == mid_x {
                EMPTY
            } else {
                // mirror of column w-1-x, colour swapped
                let mx = w - 1 - x;
                let mirrored = if mx.is_multiple_of(2) { BLACK } else { WHITE };
                if mirrored == BLACK { WHITE } else { BLACK }
            };
            cells[y * w + x] = c;
        }
    }
    NaivePos {
        w,
        h,
        cells,
        white_to_move: true,
    }
}

/// The neighbour of (x, y) in direction (dx, dy), if a line joins them:
/// orthogonal lines always, diagonal lines only from strong points (x + y even).
pub fn step(w: usize, h: usize, x: usize, y: usize, dx: i32, dy: i32) -> Option<(usize, usize)> {
    let diagonal = dx != 0 && dy != 0;
    if diagonal && !(x + y).is_multiple_of(2) {
        return None;
    }
    let nx = x as i32 + dx;
    let ny = y as i32 + dy;
    if nx < 0 || ny < 0 || nx >= w as i32 || ny >= h as i32 {
        return None;
    }
    Some((nx as usize, ny as usize))
}

/// Cell indices of the unbroken run of `enemy` stones starting at the point
/// one step from (x, y) in direction (dx, dy) and continuing in that direction,
/// up to the first empty point, non-enemy stone or edge.
fn enemy_run(
    w: usize,
    h: usize,
    board: &[u8],
    x: usize,
    y: usize,
    dx: i32,
    dy: i32,
    enemy: u8,
) -> Vec<usize> {
    let mut run = Vec::new();
    let (mut cx, mut cy) = (x, y);
    while let Some((nx, ny)) = step(w, h, cx, cy, dx, dy) {
        if board[ny * w + nx] != enemy {
            break;
        }
        run.push(ny * w + nx);
        cx = nx;
        cy = ny;
    }
    run
}

pub struct NaiveMove {
    pub notation: String,
    /// Point names of the captured stones, sorted by cell index ascending.
    pub captured: Vec<String>,
    pub result: NaivePos,
}

/// Extend a capturing move by every possible further capturing step from (x, y).
/// `board` is the board after the steps so far (stone already at (x, y)).
#[allow(clippy::too_many_arguments)]
fn extend_chain(
    p: &NaivePos,
    board: &[u8],
    x: usize,
    y: usize,
    last_dir: Option<(i32, i32)>,
    visited: &[(usize, usize)],
    notation: &str,
    captured: &[usize],
    out: &mut Vec<NaiveMove>,
) {
    let (w, h) = (p.w, p.h);
    let me = p.mover();
    let enemy = if me == WHITE { BLACK } else { WHITE };
    for &(dx, dy) in DIRS.iter() {
        if last_dir == Some((dx, dy)) {
            continue; // not the same direction as the step just made
        }
        let Some((qx, qy)) = step(w, h, x, y, dx, dy) else {
            continue;
        };
        if board[qy * w + qx] != EMPTY {
            continue;
        }
        if visited.contains(&(qx, qy)) {
            continue; // may not land on a point already stood on this move
        }
        // Approach: enemy run starting at q + d, going in direction d.
        let approach = enemy_run(w, h, board, qx, qy, dx, dy, enemy);
        // Withdrawal: enemy run starting at p - d, going in direction -d.
        let withdrawal = enemy_run(w, h, board, x, y, -dx, -dy, enemy);
        for (letter, run) in [('A', approach), ('W', withdrawal)] {
            if run.is_empty() {
                continue;
            }
            let mut nb = board.to_vec();
            nb[y * w + x] = EMPTY;
            nb[qy * w + qx] = me;
            for &i in &run {
                nb[i] = EMPTY;
            }
            let nnot = format!("{}-{}{}", notation, name(qx, qy), letter);
            let mut ncap = captured.to_vec();
            ncap.extend(run.iter().copied());
            let mut nvis = visited.to_vec();
            nvis.push((qx, qy));
            // Stopping here is a move.
            let mut sorted = ncap.clone();
            sorted.sort();
            out.push(NaiveMove {
                notation: nnot.clone(),
                captured: sorted.iter().map(|&i| name_of_index(w, i)).collect(),
                result: NaivePos {
                    w,
                    h,
                    cells: nb.clone(),
                    white_to_move: !p.white_to_move,
                },
            });
            // Continuing is also possible.
            extend_chain(p, &nb, qx, qy, Some((dx, dy)), &nvis, &nnot, &ncap, out);
        }
    }
}

/// All capturing moves (every stone, every choice, every stopping point).
pub fn capture_moves(p: &NaivePos) -> Vec<NaiveMove> {
    let mut out = Vec::new();
    let me = p.mover();
    for y in 0..p.h {
        for x in 0..p.w {
            if p.get(x, y) == me {
                extend_chain(
                    p,
                    &p.cells,
                    x,
                    y,
                    None,
                    &[(x, y)],
                    &name(x, y),
                    &[],
                    &mut out,
                );
            }
        }
    }
    out
}

/// All paikas (single steps to an adjacent empty point along a line),
/// regardless of whether a capture exists.
pub fn paika_moves(p: &NaivePos) -> Vec<NaiveMove> {
    let mut out = Vec::new();
    let me = p.mover();
    let (w, h) = (p.w, p.h);
    for y in 0..h {
        for x in 0..w {
            if p.get(x, y) != me {
                continue;
            }
            for &(dx, dy) in DIRS.iter() {
                let Some((qx, qy)) = step(w, h, x, y, dx, dy) else {
                    continue;
                };
                if p.get(qx, qy) != EMPTY {
                    continue;
                }
                let mut nb = p.cells.clone();
                nb[y * w + x] = EMPTY;
                nb[qy * w + qx] = me;
                out.push(NaiveMove {
                    notation: format!("{}-{}", name(x, y), name(qx, qy)),
                    captured: Vec::new(),
                    result: NaivePos {
                        w,
                        h,
                        cells: nb,
                        white_to_move: !p.white_to_move,
                    },
                });
            }
        }
    }
    out
}

/// All legal moves: the capturing moves if there are any, else the paikas.
pub fn moves(p: &NaivePos) -> Vec<NaiveMove> {
    let caps = capture_moves(p);
    if !caps.is_empty() {
        return caps;
    }
    paika_moves(p)
}

/// The distinct positions reachable by one legal move.
pub fn distinct_successors(p: &NaivePos) -> Vec<NaivePos> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in moves(p) {
        if seen.insert(m.result.clone()) {
            out.push(m.result);
        }
    }
    out
}

/// Leaf count at `depth`, counting moves with the same resulting position once.
pub fn perft(p: &NaivePos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for s in distinct_successors(p) {
        total += perft(&s, depth - 1);
    }
    total
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Value {
    Win(u32),
    Loss(u32),
    Draw,
}

/// Every position on a w x h board with 1 <= white, 1 <= black,
/// white + black <= max_stones, for both sides to move.
pub fn enumerate(w: usize, h: usize, max_stones: usize) -> Vec<NaivePos> {
    enumerate_where(w, h, max_stones, |_, _| true)
}

/// Every position on a w x h board with 1 <= white, 1 <= black,
/// white + black <= max_stones and `keep(white, black)`, for both sides to move.
pub fn enumerate_where(
    w: usize,
    h: usize,
    max_stones: usize,
    keep: impl Fn(usize, usize) -> bool,
) -> Vec<NaivePos> {
    fn rec(
        i: usize,
        cells: &mut Vec<u8>,
        nw: usize,
        nb: usize,
        max: usize,
        w: usize,
        h: usize,
        keep: &dyn Fn(usize, usize) -> bool,
        out: &mut Vec<NaivePos>,
    ) {
        if i == cells.len() {
            if nw >= 1 && nb >= 1 && keep(nw, nb) {
                for white_to_move in [true, false] {
                    out.push(NaivePos {
                        w,
                        h,
                        cells: cells.clone(),
                        white_to_move,
                    });
                }
            }
            return;
        }
        cells[i] = EMPTY;
        rec(i + 1, cells, nw, nb, max, w, h, keep, out);
        if nw + nb < max {
            cells[i] = WHITE;
            rec(i + 1, cells, nw + 1, nb, max, w, h, keep, out);
            cells[i] = BLACK;
            rec(i + 1, cells, nw, nb + 1, max, w, h, keep, out);
            cells[i] = EMPTY;
        }
    }
    check_size(w, h);
    let mut out = Vec::new();
    let mut cells = vec![EMPTY; w * h];
    rec(0, &mut cells, 0, 0, max_stones, w, h, &keep, &mut out);
    out
}

/// Solve every position of `enumerate(w, h, max_stones)` by value iteration.
pub fn solve_all(w: usize, h: usize, max_stones: usize) -> HashMap<NaivePos, Value> {
    solve_states(enumerate(w, h, max_stones), plain_successors)
}

/// The successors by the normal rules: a side left with no stones has lost.
fn plain_successors(p: &NaivePos) -> Vec<Successor<NaivePos>> {
    distinct_successors(p)
        .into_iter()
        .map(|s| match s.count(s.mover()) {
            0 => Successor::Known(Value::Loss(0)),
            _ => Successor::State(s),
        })
        .collect()
}

/// A successor of a state: another state of the set, or a position whose value
/// (for its side to move) is known.
pub enum Successor<S> {
    State(S),
    Known(Value),
}

/// Solves every state by value iteration from the rules of play: Win(k) at odd
/// pass k if some successor is Loss(k - 1), Loss(k) at even pass k if every
/// successor is a Win below k; no move is Loss(0); what stays open is a draw.
pub fn solve_states<S: Clone + Eq + std::hash::Hash + std::fmt::Debug>(
    states: Vec<S>,
    successors: impl Fn(&S) -> Vec<Successor<S>>,
) -> HashMap<S, Value> {
    let mut index: HashMap<S, usize> = HashMap::with_capacity(states.len());
    for (i, p) in states.iter().enumerate() {
        index.insert(p.clone(), i);
    }
    // Successor lists: Ok(i) = index of a state in the set, Err(v) = a known value.
    let mut succ: Vec<Vec<Result<usize, Value>>> = Vec::with_capacity(states.len());
    let mut deepest_known = 0;
    for p in &states {
        let mut list = Vec::new();
        for s in successors(p) {
            match s {
                Successor::Known(v) => {
                    if let Value::Win(d) | Value::Loss(d) = v {
                        deepest_known = deepest_known.max(d);
                    }
                    list.push(Err(v));
                }
                Successor::State(s) => {
                    let j = *index
                        .get(&s)
                        .unwrap_or_else(|| panic!("successor {s:?} of {p:?} not in the set"));
                    list.push(Ok(j));
                }
            }
        }
        succ.push(list);
    }

    let n = states.len();
    let mut value: Vec<Option<Value>> = vec![None; n];
    let val = |value: &Vec<Option<Value>>, s: &Result<usize, Value>| -> Option<Value> {
        match s {
            Err(v) => Some(*v),
            Ok(j) => value[*j],
        }
    };
    // Pass 0: no legal move => lost in 0.
    for i in 0..n {
        if succ[i].is_empty() {
            value[i] = Some(Value::Loss(0));
        }
    }
    let mut k: u32 = 1;
    let mut odd_pass_changed = true;
    loop {
        let mut updates: Vec<(usize, Value)> = Vec::new();
        for i in 0..n {
            if value[i].is_some() {
                continue;
            }
            if k % 2 == 1 {
                // Win(k) if some successor is Loss(k-1).
                if succ[i]
                    .iter()
                    .any(|s| val(&value, s) == Some(Value::Loss(k - 1)))
                {
                    updates.push((i, Value::Win(k)));
                }
            } else {
                // Loss(k) if every successor is a decided Win(j) with j < k.
                let all_wins = succ[i]
                    .iter()
                    .all(|s| matches!(val(&value, s), Some(Value::Win(j)) if j < k));
                if all_wins {
                    updates.push((i, Value::Loss(k)));
                }
            }
        }
        let changed = !updates.is_empty();
        for (i, v) in updates {
            value[i] = Some(v);
        }
        if k % 2 == 1 {
            odd_pass_changed = changed;
        } else if !odd_pass_changed && !changed && k > deepest_known {
            // Known values deeper than k could still decide states later.
            break;
        }
        k += 1;
    }

    let mut out = HashMap::with_capacity(n);
    for (i, p) in states.into_iter().enumerate() {
        out.insert(p, value[i].unwrap_or(Value::Draw));
    }
    out
}

/// A value under the no-capture limit (docs/RULES.md): no depth, only the result.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Wdl {
    Win,
    Draw,
    Loss,
}

/// Solves every (position, counter) state of `enumerate(w, h, max_stones)` under the
/// no-capture limit `limit`, straight from the rules: a side with no stones or no
/// move loses; else at counter `limit` the game is drawn; a capture leads to counter
/// 0, a paika to counter + 1. Iterates to the fixpoint (win if some successor state
/// is lost, loss if every one is won); what stays open is a draw. Returns, per
/// position, its value at each counter 0..=limit.
pub fn solve_limited(
    w: usize,
    h: usize,
    max_stones: usize,
    limit: u32,
) -> HashMap<NaivePos, Vec<Wdl>> {
    let positions = enumerate(w, h, max_stones);
    let index: HashMap<&NaivePos, usize> =
        positions.iter().enumerate().map(|(i, p)| (p, i)).collect();
    let states = limit as usize + 1;
    // Per position: its successors (None: the side to move there has no stones) and
    // whether its moves capture (capture is compulsory, so all of them do or none).
    let succ: Vec<(Vec<Option<usize>>, bool)> = positions
        .iter()
        .map(|p| {
            let capture = !capture_moves(p).is_empty();
            let list = distinct_successors(p)
                .into_iter()
                .map(|s| (s.count(s.mover()) > 0).then(|| index[&s]))
                .collect();
            (list, capture)
        })
        .collect();
    let mut value: Vec<Option<Wdl>> = vec![None; positions.len() * states];
    for (i, (list, _)) in succ.iter().enumerate() {
        for c in 0..states {
            value[i * states + c] = if list.is_empty() {
                Some(Wdl::Loss)
            } else if c == limit as usize {
                Some(Wdl::Draw)
            } else {
                None
            };
        }
    }
    loop {
        let mut changed = false;
        for (i, (list, capture)) in succ.iter().enumerate() {
            for c in 0..states {
                if value[i * states + c].is_some() {
                    continue;
                }
                let next = if *capture { 0 } else { c + 1 };
                let of = |s: &Option<usize>| match s {
                    None => Some(Wdl::Loss),
                    Some(j) => value[j * states + next],
                };
                let v = if list.iter().any(|s| of(s) == Some(Wdl::Loss)) {
                    Some(Wdl::Win)
                } else if list.iter().all(|s| of(s) == Some(Wdl::Win)) {
                    Some(Wdl::Loss)
                } else {
                    None
                };
                if v.is_some() {
                    value[i * states + c] = v;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    positions
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let v = (0..states)
                .map(|c| value[i * states + c].unwrap_or(Wdl::Draw))
                .collect();
            (p, v)
        })
        .collect()
}

/// Dense solution of a whole small board: every configuration with
/// 1..=max_per_side stones of each colour, White to move (Black to move is the
/// colour-swapped position, with the same value).
///
/// Positions are named by their base-3 code: cell i contributes 3^i * c, with
/// c = 0 empty, 1 white, 2 black (the same cell index y * w + x as `NaivePos`).
pub struct WholeBoard {
    pub w: usize,
    pub h: usize,
    pub max_per_side: usize,
    /// Base-3 codes of the positions in the set, ascending.
    pub codes: Vec<u32>,
    /// Indexed by base-3 code: 0 = not decided (a draw, or not in the set),
    /// otherwise depth + 1 (an odd depth is a win, an even depth a loss).
    packed: Vec<u16>,
}

/// Successor target meaning "the side to move there has no stones": Loss(0) for it.
const NO_STONES: u32 = u32::MAX;

/// Base-3 code of a cell array as seen by the side to move: the mover's stones
/// count as white (1) and the other side's as black (2).
fn white_to_move_code(cells: &[u8], white_to_move: bool) -> u32 {
    let mut code: u32 = 0;
    for &c in cells.iter().rev() {
        let d = match (c, white_to_move) {
            (EMPTY, _) => 0,
            (WHITE, true) | (BLACK, false) => 1,
            _ => 2,
        };
        code = code * 3 + d;
    }
    code
}

/// The cells of a base-3 code (cell i is digit i).
pub fn decode_code(mut code: u32, n: usize) -> Vec<u8> {
    let mut cells = vec![EMPTY; n];
    for c in cells.iter_mut() {
        *c = match code % 3 {
            0 => EMPTY,
            1 => WHITE,
            _ => BLACK,
        };
        code /= 3;
    }
    assert!(code == 0, "code has more digits than the board has points");
    cells
}

impl WholeBoard {
    /// Value of any position of the set (either side to move).
    pub fn value(&self, p: &NaivePos) -> Value {
        assert!(p.w == self.w && p.h == self.h, "wrong board size");
        let (nw, nb) = (p.count(WHITE), p.count(BLACK));
        assert!(
            (1..=self.max_per_side).contains(&nw) && (1..=self.max_per_side).contains(&nb),
            "{} is outside the solved set",
            to_text(p)
        );
        self.value_of_code(white_to_move_code(&p.cells, p.white_to_move))
    }

    /// Value of the White-to-move position with this base-3 code (must be in the set).
    pub fn value_of_code(&self, code: u32) -> Value {
        match self.packed[code as usize] {
            0 => Value::Draw,
            v => {
                let d = (v - 1) as u32;
                if d % 2 == 1 {
                    Value::Win(d)
                } else {
                    Value::Loss(d)
                }
            }
        }
    }

    /// The White-to-move position with this base-3 code.
    pub fn position(&self, code: u32) -> NaivePos {
        NaivePos {
            w: self.w,
            h: self.h,
            cells: decode_code(code, self.w * self.h),
            white_to_move: true,
        }
    }
}

/// Solve every position of a whole w x h board with 1..=max_per_side stones of
/// each colour, with the semantics of `solve_all`: successors from the naive move
/// generator, then value iteration by depth (pass k decides Win(k) for odd k and
/// Loss(k) for even k); what is never decided is a draw.
pub fn solve_whole_board(w: usize, h: usize, max_per_side: usize) -> WholeBoard {
    check_size(w, h);
    let n = w * h;
    let total = 3u64.pow(n as u32);
    assert!(
        total < u32::MAX as u64,
        "board {w}x{h} too large for a dense solve"
    );
    let in_set =
        |nw: usize, nb: usize| (1..=max_per_side).contains(&nw) && (1..=max_per_side).contains(&nb);

    // The set, and each position's distinct successors as White-to-move codes
    // (CSR: the successors of codes[i] are targets[offsets[i]..offsets[i + 1]]).
    let mut codes: Vec<u32> = Vec::new();
    let mut offsets: Vec<u64> = vec![0];
    let mut targets: Vec<u32> = Vec::new();
    let mut cells = vec![EMPTY; n];
    for code in 0..total as u32 {
        // Next configuration: cells = digits of code.
        if code > 0 {
            for c in cells.iter_mut() {
                if *c == BLACK {
                    *c = EMPTY; // carry
                } else {
                    *c += 1;
                    break;
                }
            }
        }
        let nw = cells.iter().filter(|&&c| c == WHITE).count();
        let nb = cells.iter().filter(|&&c| c == BLACK).count();
        if !in_set(nw, nb) {
            continue;
        }
        let p = NaivePos {
            w,
            h,
            cells: cells.clone(),
            white_to_move: true,
        };
        debug_assert_eq!(white_to_move_code(&p.cells, true), code);
        for s in distinct_successors(&p) {
            assert!(!s.white_to_move);
            let (sw, sb) = (s.count(WHITE), s.count(BLACK));
            if sb == 0 {
                targets.push(NO_STONES);
                continue;
            }
            // Seen from Black, the mover: sb own stones, sw enemy stones.
            assert!(
                in_set(sb, sw),
                "successor {} of {} is not in the set",
                to_text(&s),
                to_text(&p)
            );
            targets.push(white_to_move_code(&s.cells, false));
        }
        codes.push(code);
        offsets.push(targets.len() as u64);
    }
    targets.shrink_to_fit();

    // Value iteration, in place (a pass only assigns values its own tests ignore:
    // odd passes look for Loss(k-1) and assign wins, even passes need all wins
    // and assign losses).
    let mut packed = vec![0u16; total as usize];
    let pack = |d: u32| -> u16 { u16::try_from(d + 1).expect("depth fits u16") };
    let succ = |i: usize| &targets[offsets[i] as usize..offsets[i + 1] as usize];
    // Pass 0: no legal move => lost in 0.
    let mut undecided: Vec<u32> = Vec::new();
    for i in 0..codes.len() {
        if succ(i).is_empty() {
            packed[codes[i] as usize] = pack(0);
        } else {
            undecided.push(i as u32);
        }
    }
    let mut k: u32 = 1;
    let mut odd_pass_changed = true;
    loop {
        let before = undecided.len();
        if k % 2 == 1 {
            // Win(k) if some successor is Loss(k-1).
            let want = pack(k - 1);
            undecided.retain(|&i| {
                let i = i as usize;
                let win = succ(i).iter().any(|&t| {
                    if t == NO_STONES {
                        k == 1
                    } else {
                        packed[t as usize] == want
                    }
                });
                if win {
                    packed[codes[i] as usize] = pack(k);
                }
                !win
            });
        } else {
            // Loss(k) if every successor is a decided Win(j) with j < k.
            undecided.retain(|&i| {
                let i = i as usize;
                let loss = succ(i).iter().all(|&t| {
                    if t == NO_STONES {
                        return false; // Loss(0) for the opponent, not a win
                    }
                    let v = packed[t as usize];
                    v != 0 && (v - 1) % 2 == 1 && ((v - 1) as u32) < k
                });
                if loss {
                    packed[codes[i] as usize] = pack(k);
                }
                !loss
            });
        }
        let changed = undecided.len() != before;
        if k % 2 == 1 {
            odd_pass_changed = changed;
        } else if !odd_pass_changed && !changed {
            break;
        }
        k += 1;
    }

    WholeBoard {
        w,
        h,
        max_per_side,
        codes,
        packed,
    }
}

/// The vela handicap, naively (docs/RULES.md, "Vela"): `side` plays paikas only,
/// captures or not, while it has lost fewer than `to_lose` stones.
#[derive(Clone, Copy, Debug)]
pub struct NaiveVela {
    pub side: u8,
    pub lost: usize,
    pub to_lose: usize,
}

/// The legal moves under `vela`, and the vela after each.
pub fn vela_moves(p: &NaivePos, vela: NaiveVela) -> Vec<(NaiveMove, NaiveVela)> {
    let holds = vela.lost < vela.to_lose;
    let list = if holds && p.mover() == vela.side {
        paika_moves(p)
    } else {
        moves(p)
    };
    list.into_iter()
        .map(|m| {
            let mut v = vela;
            if p.mover() != vela.side {
                v.lost += m.captured.len();
            }
            (m, v)
        })
        .collect()
}

/// perft under vela: moves reaching the same position count once.
pub fn vela_perft(p: &NaivePos, vela: NaiveVela, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut seen = HashSet::new();
    let mut total = 0;
    for (m, v) in vela_moves(p, vela) {
        if seen.insert(m.result.clone()) {
            total += vela_perft(&m.result, v, depth - 1);
        }
    }
    total
}

/// Solves the game under vela for White, straight from the rules: every position
/// of up to `max_stones` where White has more than `floor` stones (and at most
/// `start`) and Black at most `floor`, with White having lost `start` less its
/// stones, so that its vela ends when it is down to `floor`. Positions it leaves
/// vela for are valued by a plain solve of those with White at most `floor` and
/// Black no more than here.
pub fn solve_vela(
    w: usize,
    h: usize,
    max_stones: usize,
    floor: usize,
    start: usize,
) -> HashMap<NaivePos, Value> {
    let black_max = max_stones - floor - 1;
    let plain = solve_states(
        enumerate_where(w, h, floor + black_max, |nw, nb| {
            nw <= floor && nb <= black_max
        }),
        plain_successors,
    );
    let states = enumerate_where(w, h, max_stones, |nw, nb| {
        nw > floor && nw <= start && nb <= floor
    });
    solve_states(states, |p| {
        let vela = NaiveVela {
            side: WHITE,
            lost: start - p.count(WHITE),
            to_lose: start - floor,
        };
        let mut seen = HashSet::new();
        vela_moves(p, vela)
            .into_iter()
            .filter(|(m, _)| seen.insert(m.result.clone()))
            .map(|(m, _)| {
                let s = m.result;
                if s.count(s.mover()) == 0 {
                    Successor::Known(Value::Loss(0))
                } else if s.count(WHITE) > floor {
                    Successor::State(s)
                } else {
                    Successor::Known(plain[&s])
                }
            })
            .collect()
    })
}
