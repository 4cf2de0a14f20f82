//! Self-tests of the naive reference implementation against facts stated in
//! docs/RULES.md and values derived by hand.

mod common;

use common::naive::*;
use std::collections::HashMap;

/// A map of (x, y) to (x', y').
type Transform = Box<dyn Fn(usize, usize) -> (usize, usize)>;

const TSIVY_START: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w";

fn find<'a>(ms: &'a [NaiveMove], notation: &str) -> Option<&'a NaiveMove> {
    ms.iter().find(|m| m.notation == notation)
}

fn notations(p: &NaivePos) -> Vec<String> {
    let mut v: Vec<String> = moves(p).into_iter().map(|m| m.notation).collect();
    v.sort();
    v
}

fn colour_swap(p: &NaivePos) -> NaivePos {
    let cells = p
        .cells
        .iter()
        .map(|&c| match c {
            1 => 2,
            2 => 1,
            _ => 0,
        })
        .collect();
    NaivePos {
        w: p.w,
        h: p.h,
        cells,
        white_to_move: !p.white_to_move,
    }
}

/// Apply a board symmetry given as a map of (x, y) to (x', y') (same board size).
fn transform(p: &NaivePos, f: &dyn Fn(usize, usize) -> (usize, usize)) -> NaivePos {
    let mut cells = vec![0u8; p.w * p.h];
    for y in 0..p.h {
        for x in 0..p.w {
            let (nx, ny) = f(x, y);
            cells[ny * p.w + nx] = p.get(x, y);
        }
    }
    NaivePos {
        w: p.w,
        h: p.h,
        cells,
        white_to_move: p.white_to_move,
    }
}

#[test]
fn start_text_round_trips() {
    let s = start(9, 5);
    assert_eq!(to_text(&s), TSIVY_START);
    assert_eq!(parse(TSIVY_START), s);
    assert_eq!(to_text(&parse(TSIVY_START)), TSIVY_START);
    // Middle rows of the other widths given in docs/RULES.md.
    assert_eq!(to_text(&start(5, 5)), "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w");
    assert_eq!(to_text(&start(3, 3)), "BBB/B1W/WWW w");
    assert_eq!(to_text(&start(7, 3)), "BBBBBBB/BWB1WBW/WWWWWWW w");
    assert_eq!(
        to_text(&start(3, 9)),
        "BBB/BBB/BBB/BBB/B1W/WWW/WWW/WWW/WWW w"
    );
    // Stone counts: tsivy 22 a side, dimy 12 a side.
    assert_eq!(s.count(1), 22);
    assert_eq!(s.count(2), 22);
    assert_eq!(start(5, 5).count(1), 12);
    // Start looks the same to both players after a half turn.
    for (w, h) in [
        (3, 3),
        (5, 3),
        (3, 5),
        (7, 3),
        (9, 3),
        (5, 5),
        (7, 5),
        (9, 5),
        (5, 7),
        (7, 7),
    ] {
        let st = start(w, h);
        let rotated = transform(&st, &|x, y| (w - 1 - x, h - 1 - y));
        let mut swapped = colour_swap(&rotated);
        swapped.white_to_move = true;
        assert_eq!(swapped, st, "{w}x{h}");
    }
}

#[test]
fn text_canonical_and_names() {
    assert_eq!(name(0, 0), "a1");
    assert_eq!(name(4, 2), "e3");
    assert_eq!(name(8, 4), "i5");
    let p = parse("9/9/9/9/W8 b");
    assert_eq!(p.get(0, 0), 1);
    assert!(!p.white_to_move);
    assert_eq!(to_text(&p), "9/9/9/9/W8 b");
    // Non-canonical runs are merged on output.
    let q = parse("111/3/B2 w");
    assert_eq!(to_text(&q), "3/3/B2 w");
}

#[test]
#[should_panic]
fn parse_rejects_ragged_rows() {
    parse("3/4/3 w");
}

#[test]
fn tsivy_start_has_exactly_five_moves() {
    let s = start(9, 5);
    let ms = moves(&s);
    assert_eq!(
        notations(&s),
        vec!["d2-e3A", "d3-e3A", "d3-e3W", "e2-e3A", "f2-e3A"]
    );
    assert_eq!(ms.len(), 5);

    let m = find(&ms, "d2-e3A").unwrap();
    assert_eq!(m.captured, vec!["f4", "g5"]);
    assert_eq!(
        to_text(&m.result),
        "BBBBBB1BB/BBBBB1BBB/BWBWWBWBW/WWW1WWWWW/WWWWWWWWW b"
    );

    let m = find(&ms, "d3-e3W").unwrap();
    assert_eq!(m.captured, vec!["c3"]); // not a3: b3 is White's own

    let m = find(&ms, "d3-e3A").unwrap();
    assert_eq!(m.captured, vec!["f3"]); // g3 is White's own

    let m = find(&ms, "e2-e3A").unwrap();
    assert_eq!(m.captured, vec!["e4", "e5"]);
    let m = find(&ms, "f2-e3A").unwrap();
    assert_eq!(m.captured, vec!["d4", "c5"]);

    assert_eq!(perft(&s, 0), 1);
    assert_eq!(perft(&s, 1), 5);
    assert_eq!(distinct_successors(&s).len(), 5);
}

#[test]
fn capture_is_compulsory_anywhere_on_the_board() {
    // 5x5: White a1 can approach c1 via b1; White e5 could only make paikas.
    let p = parse("4W/5/5/5/W1B2 w");
    assert_eq!(notations(&p), vec!["a1-b1A"]);
    let m = &moves(&p)[0];
    assert_eq!(m.captured, vec!["c1"]);
    assert_eq!(to_text(&m.result), "4W/5/5/5/1W3 b");
    // Without the black stone there is no capture and paikas are legal.
    let q = parse("4W/5/5/5/W4 w");
    assert_eq!(
        notations(&q),
        vec!["a1-a2", "a1-b1", "a1-b2", "e5-d4", "e5-d5", "e5-e4"]
    );
    // Black to move in the first position: c1-b1A takes a1, and that is the
    // only capture, so it is Black's only legal move.
    let r = parse("4W/5/5/5/W1B2 b");
    assert_eq!(notations(&r), vec!["c1-b1A"]);
}

#[test]
fn chains_follow_the_seed_figure() {
    // Seed 002 figure 2.2 as described in its text.
    let p = parse("9/2B2WBWB/9/1W1BB1B2/9 w");
    let ms = moves(&p);
    let m = find(&ms, "b2-c2A").expect("b2-c2A");
    assert_eq!(m.captured, vec!["d2", "e2"]); // not g2: f2 is empty
    let m = find(&ms, "b2-c2A-c3A").expect("b2-c2A-c3A");
    assert_eq!(m.captured, vec!["d2", "e2", "c4"]);
    let m = find(&ms, "f4-e4W").expect("f4-e4W");
    assert_eq!(m.captured, vec!["g4"]); // not i4: h4 is White's
    // Same direction twice in a row is not allowed.
    assert!(find(&ms, "f4-e4W-d4A").is_none());
    // Paikas are not allowed while a capture exists.
    assert!(find(&ms, "b2-b1").is_none());
    assert!(ms.iter().all(|m| !m.captured.is_empty()));

    // With a black stone on g5, f4-e4W-e3A-f4A would revisit f4.
    let q = parse("6B2/2B2WBWB/9/1W1BB1B2/9 w");
    let qs = moves(&q);
    assert!(find(&qs, "f4-e4W-e3A").is_some());
    assert!(qs.iter().all(|m| !m.notation.starts_with("f4-e4W-e3A-f4")));
}

#[test]
fn chain_may_repeat_direction_after_a_turn_and_stops_are_separate_moves() {
    // 5x5, White a1 (strong). Black b3? Build: a1-b1A takes c1 (approach, dir +x);
    // then b1-b2A (dir +y) takes b3; then b2-c2A (dir +x again, allowed) takes d2.
    //   row5: .....
    //   row4: .....
    //   row3: .B...
    //   row2: ...B.
    //   row1: W.B..
    let p = parse("5/5/1B3/3B1/W1B2 w");
    let ms = moves(&p);
    let mut ns: Vec<&str> = ms.iter().map(|m| m.notation.as_str()).collect();
    ns.sort();
    assert!(ns.contains(&"a1-b1A"));
    assert!(ns.contains(&"a1-b1A-b2A"));
    assert!(ns.contains(&"a1-b1A-b2A-c2A"));
    let m = find(&ms, "a1-b1A-b2A-c2A").unwrap();
    assert_eq!(m.captured, vec!["c1", "d2", "b3"]);
    assert_eq!(to_text(&m.result), "5/5/5/2W2/5 b");
}

#[test]
fn both_approach_and_withdrawal_are_separate_moves() {
    // 3x3: B W . B ... White b2 moving? Use row: a2 B, b2 W, c2 empty; c... approach needs
    // a stone beyond c2: none on 3 wide. Use 5x3: row2 = B W . B .
    let p = parse("5/BW1B1/5 w");
    let ms = moves(&p);
    let a = find(&ms, "b2-c2A").unwrap();
    let w = find(&ms, "b2-c2W").unwrap();
    assert_eq!(a.captured, vec!["d2"]);
    assert_eq!(w.captured, vec!["a2"]);
    assert_ne!(a.result, w.result);
}

#[test]
fn stuck_side_loses_in_zero() {
    // 3x3: White a1 surrounded by Black on a2, b1, b2: no step at all.
    let p = parse("3/BB1/WB1 w");
    assert!(moves(&p).is_empty());
    assert_eq!(perft(&p, 1), 0);
    let table = solve_all(3, 3, 4);
    assert_eq!(table[&p], Value::Loss(0));
}

#[test]
fn hand_derived_3x3_values() {
    let table = solve_all(3, 3, 2);
    // White b1, Black b2, White to move. b1 is weak: only b1-a1 and b1-c1,
    // neither captures; after b1-a1 Black plays b2-c3W, after b1-c1 b2-a3W.
    let p = parse("3/1B1/1W1 w");
    assert_eq!(notations(&p), vec!["b1-a1", "b1-c1"]);
    assert_eq!(table[&p], Value::Loss(2));
    // Same stones, Black to move: b2-b3W takes b1.
    let p = parse("3/1B1/1W1 b");
    assert_eq!(table[&p], Value::Win(1));
    // Colour-swapped: Black b1, White b2, Black to move: Loss(2).
    let p = parse("3/1W1/1B1 b");
    assert_eq!(table[&p], Value::Loss(2));
    // White a3, Black b1, White to move: no capture (a3-b2 approaches c1,
    // a3-a2 approaches a1, a3-b3 approaches c3: all empty), and a3-b2 reaches
    // the Loss(2) position above: Win(3).
    let p = parse("W2/3/1B1 w");
    assert!(moves(&p).iter().all(|m| m.captured.is_empty()));
    assert_eq!(table[&p], Value::Win(3));
    // a1 vs c3, White to move: a1-b2A takes c3.
    let p = parse("2B/3/W2 w");
    assert_eq!(table[&p], Value::Win(1));
}

/// Check every value against its successors (Bellman consistency).
fn check_consistent(table: &HashMap<NaivePos, Value>) {
    for (p, &v) in table {
        let succ: Vec<Value> = distinct_successors(p)
            .iter()
            .map(|s| {
                if s.count(s.mover()) == 0 {
                    Value::Loss(0)
                } else {
                    table[s]
                }
            })
            .collect();
        let min_loss = succ
            .iter()
            .filter_map(|v| {
                if let Value::Loss(d) = v {
                    Some(*d)
                } else {
                    None
                }
            })
            .min();
        let all_wins = succ.iter().all(|v| matches!(v, Value::Win(_)));
        let max_win = succ
            .iter()
            .filter_map(|v| {
                if let Value::Win(d) = v {
                    Some(*d)
                } else {
                    None
                }
            })
            .max();
        let expected = if succ.is_empty() {
            Value::Loss(0)
        } else if let Some(d) = min_loss {
            Value::Win(d + 1)
        } else if all_wins {
            Value::Loss(max_win.unwrap() + 1)
        } else {
            Value::Draw
        };
        assert_eq!(v, expected, "{}", to_text(p));
    }
}

fn check_symmetric(table: &HashMap<NaivePos, Value>, w: usize, h: usize) {
    let mut syms: Vec<Transform> = vec![
        Box::new(move |x, y| (w - 1 - x, y)),
        Box::new(move |x, y| (x, h - 1 - y)),
        Box::new(move |x, y| (w - 1 - x, h - 1 - y)),
    ];
    if w == h {
        syms.push(Box::new(|x, y| (y, x)));
        syms.push(Box::new(move |x, y| (w - 1 - y, x)));
    }
    for (p, &v) in table {
        assert_eq!(table[&colour_swap(p)], v, "colour swap of {}", to_text(p));
        for f in &syms {
            assert_eq!(
                table[&transform(p, f.as_ref())],
                v,
                "symmetry of {}",
                to_text(p)
            );
        }
    }
}

#[test]
fn solve_3x3_whole_board_and_9x5_three_stones() {
    let t = solve_all(3, 3, 9);
    assert_eq!(t.len(), 2 * (19683 - 2 * 512 + 1));
    check_consistent(&t);
    check_symmetric(&t, 3, 3);
    // The 3x3 start position has a definite value; report it.
    let st = start(3, 3);
    eprintln!("3x3 start {} = {:?}", to_text(&st), t[&st]);

    let t = solve_all(9, 5, 3);
    assert_eq!(t.len(), 2 * (45 * 44 + 2 * 45 * (44 * 43 / 2)));
    check_consistent(&t);
    check_symmetric(&t, 9, 5);
    let mut hist: HashMap<String, usize> = HashMap::new();
    for v in t.values() {
        *hist.entry(format!("{v:?}")).or_default() += 1;
    }
    let mut hist: Vec<_> = hist.into_iter().collect();
    hist.sort();
    eprintln!("9x5 <=3 stones: {hist:?}");
}

#[test]
fn moves_respect_board_symmetry() {
    // Random-ish positions: successor counts are invariant under mirror images.
    let mut seed: u64 = 12345;
    let mut rnd = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for &(w, h) in &[(9usize, 5usize), (5, 5), (7, 3), (3, 7)] {
        for _ in 0..200 {
            let cells: Vec<u8> = (0..w * h).map(|_| (rnd() % 3) as u8).collect();
            let p = NaivePos {
                w,
                h,
                cells,
                white_to_move: rnd() % 2 == 0,
            };
            let n = moves(&p).len();
            let d = distinct_successors(&p).len();
            let m1 = transform(&p, &|x, y| (w - 1 - x, y));
            let m2 = transform(&p, &|x, y| (x, h - 1 - y));
            for q in [m1, m2, colour_swap(&p)] {
                assert_eq!(moves(&q).len(), n, "{}", to_text(&p));
                assert_eq!(distinct_successors(&q).len(), d, "{}", to_text(&p));
            }
            // Every move's notation parses back consistently: starts with a stone
            // of the mover and captured count equals the stone difference.
            for m in moves(&p) {
                let lost = p.cells.iter().filter(|&&c| c != 0).count()
                    - m.result.cells.iter().filter(|&&c| c != 0).count();
                assert_eq!(lost, m.captured.len());
                assert_eq!(to_text(&parse(&to_text(&m.result))), to_text(&m.result));
            }
        }
    }
}

#[test]
fn perft_small_sanity() {
    // perft(1) equals the number of distinct successors; a lost node gives 0.
    let s = start(5, 5);
    assert_eq!(perft(&s, 1), distinct_successors(&s).len() as u64);
    let mut sum = 0;
    for q in distinct_successors(&s) {
        sum += perft(&q, 1);
    }
    assert_eq!(perft(&s, 2), sum);
    eprintln!(
        "5x5 perft 1..3: {} {} {}",
        perft(&s, 1),
        perft(&s, 2),
        perft(&s, 3)
    );
    let t = start(9, 5);
    eprintln!(
        "9x5 perft 1..3: {} {} {}",
        perft(&t, 1),
        perft(&t, 2),
        perft(&t, 3)
    );
}

/// The rule-aware reference (values under the no-capture limit, per counter) against
/// the plain one, and the structure a rule-aware table can rely on: as the counter
/// grows, wins and losses only turn into draws, so one threshold per position says
/// where.
#[test]
fn limited_values_follow_the_rules_and_only_turn_into_draws() {
    let (w, h, stones) = (5, 3, 4);
    let plain = solve_all(w, h, stones);
    let longest = plain
        .values()
        .filter_map(|v| match v {
            Value::Win(d) | Value::Loss(d) => Some(*d),
            Value::Draw => None,
        })
        .max()
        .unwrap();
    let plain_wdl = |v: Value| match v {
        Value::Win(_) => Wdl::Win,
        Value::Loss(_) => Wdl::Loss,
        Value::Draw => Wdl::Draw,
    };
    for limit in [1, 2, 3, 6, 12, longest + 1] {
        let limited = solve_limited(w, h, stones, limit);
        assert_eq!(limited.len(), plain.len());
        let mut cursed = 0;
        for (p, by_counter) in &limited {
            let base = plain_wdl(plain[p]);
            let stuck = distinct_successors(p).is_empty();
            for (c, &v) in by_counter.iter().enumerate() {
                // The limit only takes results away.
                assert!(v == Wdl::Draw || v == base, "{} at {c}: {v:?}", to_text(p));
                if c > 0 && v != Wdl::Draw {
                    assert_eq!(by_counter[c - 1], v, "{} at {c}", to_text(p));
                }
            }
            // At the limit only a side with no move has lost; nothing else is decided.
            let at_limit = by_counter[limit as usize];
            assert_eq!(at_limit, if stuck { Wdl::Loss } else { Wdl::Draw });
            if base == Wdl::Win && by_counter[0] == Wdl::Draw {
                cursed += 1;
            }
        }
        if limit > longest {
            assert_eq!(cursed, 0, "a limit above every depth never bites");
            for (p, by_counter) in &limited {
                assert_eq!(by_counter[0], plain_wdl(plain[p]), "{}", to_text(p));
            }
        } else if limit <= 3 {
            assert!(
                cursed > 0,
                "a limit of {limit} plies turns some wins into draws"
            );
        }
        eprintln!("{w}x{h} <= {stones} stones, limit {limit}: {cursed} cursed wins at counter 0");
    }
}
