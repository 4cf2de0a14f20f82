//! The whole game: vela and repetition against the naive reference, game records
//! written and read back, and a game's analysis against brute-force values.

mod common;

use common::{Rng, naive};
use fanotb::{
    Board, Color, End, Game, GameResult, Inaccuracy, Mistake, Options, Position, Record, Rules,
    Signature, TableKind, Tablebase, Vela, Wdl, analyse, generate, perft_under,
};

/// The vela of `pos` in the naive reference's terms.
fn naive_vela(v: Vela, board: &'static Board) -> naive::NaiveVela {
    let start = naive::start(board.width(), board.height());
    naive::NaiveVela {
        side: if v.side() == Color::White {
            naive::WHITE
        } else {
            naive::BLACK
        },
        lost: v.lost() as usize,
        // All but five of the start stones: 17 on tsivy.
        to_lose: start.count(naive::WHITE).saturating_sub(5),
    }
}

#[test]
fn vela_perft_matches_the_naive_reference() {
    let mut cases = Vec::new();
    for (board, depth) in [("tsivy", 4), ("dimy", 4), ("5x3", 5)] {
        let b = Board::by_name(board).unwrap();
        for side in [Color::White, Color::Black] {
            cases.push((Position::start(b), side, None, depth));
        }
    }
    // Mid-game positions, with stones lost so far around the end of the vela.
    let mut rng = Rng(0x5eed_0e1a);
    let dimy = Board::by_name("dimy").unwrap();
    for _ in 0..60 {
        let mut pos = Position::start(dimy);
        for _ in 0..rng.below(30) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.apply(&moves[rng.below(moves.len() as u64) as usize]);
        }
        let side = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let missing = 12
            - match side {
                Color::White => pos.white(),
                Color::Black => pos.black(),
            }
            .count_ones();
        let lost = (rng.below(2) == 0).then(|| rng.below(missing as u64 + 1) as u32);
        cases.push((pos, side, lost, 3));
    }
    let mut counted = 0;
    for (pos, side, lost, depth) in cases {
        let Ok(v) = Vela::at(&pos, side, lost) else {
            continue;
        };
        let rules = Rules::PLAIN.with_vela(Some(v));
        let want = naive::vela_perft(
            &naive::parse(&pos.to_string()),
            naive_vela(v, pos.board()),
            depth,
        );
        assert_eq!(
            perft_under(&pos, rules, depth),
            want,
            "{pos} {v} depth {depth}"
        );
        counted += 1;
    }
    assert_eq!(counted, 66);
}

#[test]
fn a_vela_side_steps_quietly_and_refuses_captures_until_the_count_is_met() {
    // White can capture d3-e3W; under vela it may only step, and is told why.
    let pos = Position::start(Board::tsivy());
    let vela = Rules::PLAIN.with_vela(Some(Vela::at(&pos, Color::White, None).unwrap()));
    let moves: Vec<String> = vela
        .legal_moves(&pos)
        .iter()
        .map(|m| m.notation(pos.board()))
        .collect();
    assert_eq!(moves, ["d2-e3", "e2-e3", "f2-e3", "d3-e3"]);
    assert_eq!(
        vela.parse_move(&pos, "d3-e3W").unwrap_err().to_string(),
        "illegal move `d3-e3W`: White plays vela until it has lost 17 stones (0 so far): it plays single steps that capture nothing"
    );
    // perft under vela, as docs/RULES.md gives it.
    let black = Rules::PLAIN.with_vela(Some(Vela::at(&pos, Color::Black, None).unwrap()));
    let counts = |r| (1..=3).map(|d| perft_under(&pos, r, d)).collect::<Vec<_>>();
    assert_eq!(
        (counts(vela), counts(black)),
        (vec![4, 5, 31], vec![5, 33, 176])
    );
    // e2-e3 leaves Black, which moves normally, with no move at all: White wins.
    let mut game = Game::new(pos, vela);
    game.play_text("e2-e3").unwrap();
    assert_eq!(game.end(), Some(End::NoMove(Color::Black)));
    // A side that has lost 16 of 22 still plays vela; one more stone lost ends it.
    let pos: Position = "9/9/4B4/9/WWWWWW3 w".parse().unwrap();
    let v = Vela::at(&pos, Color::White, None).unwrap();
    assert_eq!(v.lost(), 16);
    let rules = Rules::PLAIN.with_vela(Some(v));
    assert!(rules.quiet_only(&pos));
    assert!(rules.parse_move(&pos, "e1-e2A").is_err());
    let black: Position = "9/9/4B4/9/WWWWWW3 b".parse().unwrap();
    let capture = black.parse_move("e3-e2A").unwrap();
    let after = rules.after(&black, &capture);
    assert_eq!(after.vela().unwrap().lost(), 17);
    assert!(after.active_vela(pos.board()).is_none());
    // White's own capture does not count.
    let white_capture = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.is_capture())
        .unwrap();
    assert_eq!(rules.after(&pos, &white_capture).vela(), Some(v));
}

/// The vela tables hold a vela as a game from the start gives it; another count of
/// stones lost, or a limit too, is refused, a vela that has ended is the plain game.
#[test]
fn the_tables_refuse_a_vela_they_do_not_hold_and_answer_once_it_ends() {
    let dir = common::tables(Board::tsivy(), 3);
    let tb = Tablebase::open(dir.path()).unwrap();
    let pos: Position = "9/9/B8/9/3WW4 w".parse().unwrap();
    let ended = Rules::PLAIN.with_vela(Some(Vela::at(&pos, Color::White, None).unwrap()));
    assert_eq!(
        tb.probe(&pos, ended).unwrap(),
        tb.probe(&pos, Rules::PLAIN).unwrap()
    );
    let holds = Rules::PLAIN.with_vela(Some(Vela::at(&pos, Color::White, Some(3)).unwrap()));
    assert_eq!(
        tb.value(&pos, holds).unwrap_err().to_string(),
        "no table values this vela: vela for White, 3 stones lost; the vela tables hold a side that has lost the stones it is missing, without a no-capture limit"
    );
    // A vela the tables hold, whose table is not built: the error says how to build it.
    let six: Position = "9/9/B8/WWW6/3WWW3 w".parse().unwrap();
    let vela = Some(Vela::at(&six, Color::White, None).unwrap());
    let err = tb.value(&six, Rules::PLAIN.with_vela(vela)).unwrap_err();
    let hint = match &err {
        fanotb::ProbeError::Table(t) => t.build_hint().unwrap(),
        e => panic!("{e}"),
    };
    assert!(
        err.to_string()
            .starts_with("no table 6v1 under vela for the 9x5 board in ")
    );
    assert!(
        hint.starts_with(
            "build it with `fanotb generate --board 9x5 --signature 6v1 --vela --dir "
        )
    );
    let limited = Rules::no_capture_limit(fanotb::Limit::new(60).unwrap(), 0)
        .unwrap()
        .with_vela(vela);
    assert!(matches!(
        tb.value(&six, limited),
        Err(fanotb::ProbeError::Vela(_))
    ));
}

/// A random game on a small board, by the rules, checked ply by ply against a
/// plain count of the positions seen: the third occurrence ends it, not before.
#[test]
fn the_third_repetition_ends_a_game_and_nothing_earlier_does() {
    let mut rng = Rng(0x0bad_5eed);
    let mut repetitions = 0;
    for _ in 0..300 {
        let board = Board::by_name(["5x3", "dimy", "tsivy"][rng.below(3) as usize]).unwrap();
        let mut game = Game::new(common::random_position(&mut rng, board), Rules::PLAIN);
        let mut seen = vec![naive::to_text(&naive::parse(&game.position().to_string()))];
        for _ in 0..200 {
            let count = seen.iter().filter(|s| **s == seen[seen.len() - 1]).count();
            let p = naive::parse(&game.position().to_string());
            let lost = p.count(p.mover()) == 0 || naive::moves(&p).is_empty();
            let want = match () {
                _ if lost && p.count(p.mover()) == 0 => Some(End::NoStones(game.position().turn())),
                _ if lost => Some(End::NoMove(game.position().turn())),
                _ if count >= 3 => Some(End::Repetition),
                _ => None,
            };
            assert_eq!(game.end(), want, "{}", game.position());
            if want.is_some() {
                repetitions += usize::from(want == Some(End::Repetition));
                assert!(game.legal_moves().is_empty());
                break;
            }
            // Mostly step back where the mover came from: games that go to and fro.
            let moves = game.legal_moves();
            let played = game.moves();
            let back = played
                .len()
                .checked_sub(2)
                .map(|i| &played[i])
                .filter(|m| !m.is_capture());
            let undo =
                back.and_then(|b| moves.iter().find(|m| m.from == b.to() && m.to() == b.from));
            let mv = match undo {
                Some(m) if rng.below(10) < 7 => m.clone(),
                _ => moves[rng.below(moves.len() as u64) as usize].clone(),
            };
            game.play(&mv).unwrap();
            seen.push(naive::to_text(&naive::parse(&game.position().to_string())));
        }
    }
    assert!(repetitions > 50, "{repetitions} games drawn by repetition");
}

/// Plays up to `plies` random legal moves, and gives the result the rules give.
fn play_randomly(rng: &mut Rng, game: &mut Game, plies: u64) -> GameResult {
    for _ in 0..plies {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play(&moves[rng.below(moves.len() as u64) as usize])
            .unwrap();
    }
    game.end().map_or(GameResult::Unfinished, End::result)
}

/// Random games, with each kind of tag, written and read back to the same record
/// and replayed to the same positions.
#[test]
fn records_round_trip() {
    let mut rng = Rng(0x007e_c04d);
    for i in 0..200 {
        let board = Board::by_name(["3x3", "5x3", "dimy", "tsivy"][i % 4]).unwrap();
        let start = if i % 3 == 0 {
            Position::start(board)
        } else {
            common::random_position(&mut rng, board)
        };
        let mut rules = match i % 5 {
            0 => Rules::from_request(Some(30), Some(rng.below(10) as u32)).unwrap(),
            _ => Rules::PLAIN,
        };
        if i % 7 == 0 {
            // Every other vela with a count of its own: the VelaLost tag.
            let lost = (i % 14 == 0).then_some(0);
            rules = rules.with_vela(Vela::at(&start, Color::Black, lost).ok());
        }
        let mut game = Game::new(start, rules);
        let plies = rng.below(60);
        let result = play_randomly(&mut rng, &mut game, plies);
        let record = Record::of_game(&game, result, &[("Event", "test \"quoted\" \\ game")]);
        let text = record.to_string();
        let back: Record = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, record, "{text}");
        let replayed = back.replay().unwrap();
        assert_eq!(replayed.positions(), game.positions(), "{text}");
        assert_eq!(replayed.end(), game.end());
    }
}

/// Random games on 5x3 from positions of 4 stones, analysed against the tables;
/// every value and mistake is checked against brute-force values.
#[test]
fn analysis_agrees_with_brute_force_values() {
    let board = Board::by_name("5x3").unwrap();
    let dir = common::tables(board, 4);
    let tb = Tablebase::open(dir.path()).unwrap();
    let naive = naive::solve_all(5, 3, 4);
    let wdl = |p: &Position| match naive[&naive::parse(&p.to_string())] {
        naive::Value::Win(_) => Wdl::Win,
        naive::Value::Draw => Wdl::Draw,
        naive::Value::Loss(_) => Wdl::Loss,
    };
    let mut rng = Rng(0x0a7a_195e);
    let (mut mistakes, mut slow, mut hastened) = (0, 0, 0);
    for _ in 0..60 {
        let mut start = common::random_position(&mut rng, board);
        while start.us().count_ones() + start.them().count_ones() != 4 || start.is_lost() {
            start = common::random_position(&mut rng, board);
        }
        let mut game = Game::new(start, Rules::PLAIN);
        let result = play_randomly(&mut rng, &mut game, 30);
        let record: Record = Record::of_game(&game, result, &[])
            .to_string()
            .parse()
            .unwrap();
        let a = analyse(&tb, &record).unwrap();
        assert_eq!((a.result, a.end), (result, game.end()));
        let positions = game.positions();
        for m in &a.moves {
            let (pos, next) = (positions[m.ply - 1].0, positions[m.ply].0);
            let before = wdl(&pos);
            let after = if next.us() == 0 {
                Wdl::Win
            } else {
                wdl(&next).flipped()
            };
            assert_eq!(m.before.map(|v| v.wdl()), Some(before), "{pos}");
            assert_eq!(m.after, Some(after), "{pos} {}", m.mv.notation(board));
            // The depth after the move, for its mover, from the position it is
            // played in: one more than the brute-force depth after it.
            let want_depth = match naive.get(&naive::parse(&next.to_string())) {
                _ if next.us() == 0 => Some(1),
                Some(naive::Value::Win(d) | naive::Value::Loss(d)) => Some(d + 1),
                _ => None,
            };
            assert_eq!(m.after_depth, want_depth, "{pos} {}", m.mv.notation(board));
            assert_eq!(m.mistake, Mistake::of(before, after));
            // A mistake names a best move, which keeps the value.
            if let Some(best) = &m.best {
                let n = pos.apply(best);
                let kept = if n.us() == 0 {
                    Wdl::Win
                } else {
                    wdl(&n).flipped()
                };
                assert_eq!(kept, before, "{pos}: best {}", best.notation(board));
            }
            // An inaccuracy: a win kept, but not in the fewest plies, or a loss
            // kept, but not in the most (the best ones keep the position's depth
            // less one).
            let ends_in = |p: &Position| match naive[&naive::parse(&p.to_string())] {
                naive::Value::Win(d) | naive::Value::Loss(d) => d,
                naive::Value::Draw => u32::MAX,
            };
            let not_best = next.us() != 0 && ends_in(&next) + 1 != ends_in(&pos);
            let want = match (before, after) {
                (Wdl::Win, Wdl::Win) if not_best => Some(Inaccuracy::SlowWin),
                (Wdl::Loss, Wdl::Loss) if not_best => Some(Inaccuracy::HastenedLoss),
                _ => None,
            };
            assert_eq!(m.inaccuracy, want, "{pos} {}", m.mv.notation(board));
            assert_eq!(
                m.best.is_some(),
                m.mistake.is_some() || m.inaccuracy.is_some()
            );
            assert_eq!(m.not_covered, None, "every position of 4 stones is covered");
            mistakes += usize::from(m.mistake.is_some());
            slow += usize::from(want == Some(Inaccuracy::SlowWin));
            hastened += usize::from(want == Some(Inaccuracy::HastenedLoss));
        }
    }
    assert!(
        mistakes > 20 && slow > 5 && hastened > 5,
        "{mistakes} mistakes, {slow} slow wins, {hastened} hastened losses"
    );
}

/// A known game: White wins in 29, throws it to a draw with its first move, and
/// the game ends by the third repetition.
#[test]
fn a_known_game_is_analysed() {
    let dir = common::tables(Board::tsivy(), 3);
    let tb = Tablebase::open(dir.path()).unwrap();
    // As `fanotb game` played it, the tables taking Black.
    let text = "[Board \"9x5\"]\n[Start \"9/9/3B5/9/WW7 w\"]\n[Result \"1/2-1/2\"]\n\n\
        1. a1-a2 d3-c3 2. b1-b2 c3-d4W 3. a2-a1 d4-d3 4. a1-b2 d3-e3 5. b2-a2 e3-d2\n\
        6. a2-a3 d2-d1 7. a3-a2 d1-e1 8. a2-b2 e1-f1 9. b2-a1 f1-e1 10. a1-a2 e1-d1\n\
        11. a2-b2 d1-e1 12. b2-a2 e1-d1 13. a2-b2 d1-e1 14. b2-a2 1/2-1/2\n";
    let a = analyse(&tb, &text.parse().unwrap()).unwrap();
    let first = &a.moves[0];
    assert_eq!(
        first.before.map(|v| (v.wdl(), v.depth())),
        Some((Wdl::Win, Some(29)))
    );
    assert_eq!(
        (first.after, first.mistake),
        (Some(Wdl::Draw), Some(Mistake::WinToDraw))
    );
    assert_eq!(
        first
            .best
            .as_ref()
            .map(|b| b.notation(Board::tsivy()))
            .as_deref(),
        Some("a1-b2")
    );
    assert!(a.moves[1..].iter().all(|m| m.mistake.is_none()));
    assert_eq!(a.end, Some(End::Repetition));
}

/// `fanotb ARGS` with `stdin`: exit status, stdout, stderr.
fn fanotb(args: &[&str], stdin: &str) -> (bool, String, String) {
    use assert_cmd::cargo::CommandCargoExt;
    use std::io::Write;
    let mut child = std::process::Command::cargo_bin("fanotb")
        .unwrap()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A command that stops reading early (a record too large) closes the pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        err,
    )
}

/// `game --record` keeps the record after every move; `analyse` reads it back, as
/// text and JSON; bad records and vela counts are refused with the reason.
#[test]
fn the_command_line_records_and_analyses_games() {
    let dir = common::tables(Board::tsivy(), 3);
    let d = dir.path().to_str().unwrap();
    let file = dir.path().join("game.fanrec");
    let f = file.to_str().unwrap();
    let pos = "9/9/3B5/9/WW7 w";
    // Stopped after one move each: the record so far, unfinished.
    let (ok, out, _) = fanotb(&["game", pos, "--dir", d, "--record", f], "a1-a2\nquit\n");
    assert!(ok && out.contains("game stopped"), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("\n1. a1-a2 d3-c3 *\n"), "{text}");
    let record: Record = text.parse().unwrap();
    assert_eq!(record.tag("White"), Some("you"));
    // Played out by the tables from there: drawn by the third repetition.
    let (ok, out, _) = fanotb(
        &["game", pos, "--dir", d, "--record", f],
        &format!("a1-a2\n{}", "best\n".repeat(40)),
    );
    assert!(
        ok && out.contains("game over: drawn by the third repetition of the position"),
        "{out}"
    );
    let (ok, json, err) = fanotb(&["analyse", f, "--dir", d, "--json"], "");
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["result"].as_str(), v["end"].as_str()),
        (Some("1/2-1/2"), Some("repetition"))
    );
    let first = &v["moves"][0];
    let keys = ["ply", "move", "before", "after", "mistake", "best"].map(|k| first[k].to_string());
    assert_eq!(
        keys,
        [
            "1",
            "\"a1-a2\"",
            "\"win\"",
            "\"draw\"",
            "\"win-to-draw\"",
            "\"a1-b2\""
        ]
    );
    assert!(v["moves"][1]["mistake"].is_null());
    // What is proved, and the verdict on what the move did to it.
    assert_eq!(
        (
            &first["proved_before"],
            &first["proved_after"],
            &first["verdict"]
        ),
        (
            &serde_json::json!("win in 29 (tables)"),
            &serde_json::json!("draw (tables)"),
            &serde_json::json!("thrown")
        )
    );
    assert_eq!(v["moves"][1]["verdict"], "kept");
    assert_eq!(
        (&v["proved"], &v["unknown"], &v["thrown"]),
        (&27.into(), &0.into(), &1.into())
    );
    // The same from stdin, as text, with the chart written.
    let stem = dir.path().join("chart");
    let (ok, out, err) = fanotb(
        &[
            "analyse",
            "-",
            "--dir",
            d,
            "--chart",
            stem.to_str().unwrap(),
        ],
        &text,
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("1 mistake by the tables: 1 a1-a2 (win-to-draw); 0 inaccuracies"),
        "{out}"
    );
    assert!(
        std::fs::read_to_string(stem.with_extension("svg"))
            .unwrap()
            .starts_with("<svg")
    );
    assert!(std::fs::metadata(stem.with_extension("png")).unwrap().len() > 1000);

    // Refused, with the reason and a non-zero exit.
    let refused = |args: &[&str], stdin: &str, want: &str| {
        let (ok, _, err) = fanotb(args, stdin);
        assert!(!ok && err.contains(want), "{args:?}: {err}");
    };
    refused(
        &["analyse", "-", "--dir", d],
        "[Board \"9x5\"]\n1. a1-a2 {",
        "line 2: a comment `{` that is never closed",
    );
    refused(
        &["analyse", "-", "--dir", d],
        "[Start \"9/9/3B5/9/WW7 w\"]\n1. a1-a2 d3-d2W *",
        "ply 2 (d3-d2W): illegal move",
    );
    refused(
        &["analyse", "-", "--dir", d],
        &"a".repeat(5 << 20),
        "longer than 4194304 bytes: not read",
    );
    refused(
        &["analyse", "/nonexistent.fanrec", "--dir", d],
        "",
        "cannot read the record /nonexistent.fanrec",
    );
    refused(
        &["moves", pos, "--vela", "white", "--vela-lost", "21"],
        "",
        "more than the 22 it starts with on 9x5",
    );
    refused(&["moves", pos, "--vela-lost", "2"], "", "--vela");
    refused(
        &["play", "start", "d3-e3W", "--vela", "white"],
        "",
        "White plays vela until it has lost 17 stones (0 so far)",
    );
}

/// The vela tables of 5x3 up to 8 stones (the vela side 6 or 7 stones against 1
/// or 2), against the naive solve of the game under vela: every position, the
/// vela side White or Black, either side to move, value and depth. A vela side
/// there ends its vela at five stones, like tsivy's.
#[test]
fn vela_tables_match_the_naive_solve() {
    let board = Board::by_name("5x3").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let targets: Vec<Signature> = Signature::all_up_to(8)
        .into_iter()
        .filter(|&s| TableKind::Vela.holds(board, s))
        .collect();
    assert_eq!(targets.len(), 6, "6v1, 6v2, 7v1 and their opposites");
    generate(dir.path(), board, &targets, &Options::vela(), |_| {}).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let naive = naive::solve_vela(5, 3, 8, 5, 7);
    let (mut checked, mut won, mut drawn) = (0, 0, 0);
    for (p, want) in &naive {
        let white: Position = naive::to_text(p).parse().unwrap();
        // The same position with the colours swapped: Black plays vela.
        let black = Position::from_sides(board, white.us(), white.them(), white.turn().other());
        for (pos, side) in [(white, Color::White), (black, Color::Black)] {
            let rules = Rules::PLAIN.with_vela(Some(Vela::at(&pos, side, None).unwrap()));
            let got = tb.probe(&pos, rules).unwrap();
            let want = match *want {
                naive::Value::Win(d) => fanotb::Outcome::Win(d),
                naive::Value::Loss(d) => fanotb::Outcome::Loss(d),
                naive::Value::Draw => fanotb::Outcome::Draw,
            };
            assert_eq!(
                got,
                fanotb::Value::Plain(want),
                "{pos} with {side:?} on vela"
            );
            checked += 1;
        }
        won += matches!(want, naive::Value::Win(_)) as u32;
        drawn += matches!(want, naive::Value::Draw) as u32;
    }
    // Every placement, both sides to move, both colours; every result occurs.
    assert_eq!(checked, 2 * 2 * (5005 * 9 + 5005 * 36 + 6435 * 8));
    assert!(won > 0 && drawn > 0 && (won + drawn) < naive.len() as u32);
    // The verifier re-derives every vela entry from the moves the rules allow, and a
    // sample through the probe API.
    for sample in [None, Some(500)] {
        let reports = fanotb::verify(&tb, &targets, sample, |_| {}).unwrap();
        let vela: Vec<_> = reports
            .iter()
            .filter(|r| r.kind == TableKind::Vela)
            .collect();
        assert_eq!(vela.len(), 6);
        assert!(
            vela.iter()
                .all(|r| r.mismatches == 0 && r.stats_error.is_none())
        );
    }
}
