//! The naive reference's values: every position enumerated and solved by plain
//! value iteration, plain, under the no-capture limit, on the whole board, under
//! vela.

// Plain argument lists keep the reference obviously correct.
#![allow(clippy::too_many_arguments)]

use std::collections::{HashMap, HashSet};

use super::*;

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
