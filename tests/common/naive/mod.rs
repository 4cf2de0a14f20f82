//! Naive, independent reference implementation of the Fanorona rules of
//! `docs/RULES.md`, used only by tests.
//!
//! Deliberately simple: a board is a `Vec<u8>` (0 empty, 1 white, 2 black,
//! index `y * w + x`), moves are generated with plain loops over points and
//! the 8 directions, and positions are solved by plain value iteration.
//! Nothing here depends on the crate under test. The rules are here; the values,
//! by value iteration, in `solve`.

#![allow(dead_code)]
// Plain argument lists keep the reference obviously correct.
#![allow(clippy::too_many_arguments)]

mod solve;

pub use solve::*;

use std::collections::HashSet;

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
