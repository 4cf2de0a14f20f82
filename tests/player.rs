//! The solved game's player against the truth: on small boards whose whole tables
//! are built, a player that knows only a proof over tables of 4 stones never lets
//! the value slip, wins what is won, and reports only what the whole tables agree
//! with; on dimy (a proved draw) it never loses; on tsivy it plays the built-in
//! proof from the start.

mod common;

use std::path::Path;

use common::Rng;
use fanotb::{
    Board, Claim, Color, Game, GameResult, Known, Limits, Player, PlayerOptions, Position,
    ProveOptions, Rules, Signature, SolvedGame, Source, Tablebase, Wdl, generate, prove,
};

/// Proves `pos` over tables of `k` stones in `dir` and loads the certificate.
fn solved(dir: &Path, pos: &Position, k: usize) -> SolvedGame {
    let mut o = ProveOptions::default();
    o.max_table_stones = k;
    o.threads = Some(2);
    o.limits = Limits::new(50_000_000, 50_000_000);
    let proved = prove(dir, pos, &o, |_| {}, &|_| {}).expect("the search decides");
    let file = dir.join(format!(
        "{}.fnproof",
        pos.to_string().replace(['/', ' '], "-")
    ));
    proved.certificate.write(&file).unwrap();
    SolvedGame::load(&file, None).unwrap()
}

fn player(solution: SolvedGame, tables: &Path, search_nodes: u64) -> Player {
    let mut o = PlayerOptions::default();
    o.search_nodes = search_nodes;
    Player::new(Some(solution), Some(Tablebase::open(tables).unwrap()), o)
}

/// The whole tables' value of `pos` for `side`.
fn truth(tb: &Tablebase, pos: &Position, side: Color) -> Wdl {
    let v = tb.value(pos, Rules::PLAIN).unwrap();
    if pos.turn() == side { v } else { v.flipped() }
}

/// What the player knows of `pos` must be what the whole tables say.
fn agrees(player: &mut Player, whole: &Tablebase, pos: &Position) {
    let known = player.known(pos, Rules::PLAIN).unwrap();
    for side in [Color::White, Color::Black] {
        let t = truth(whole, pos, side);
        match &known {
            Known::Table(v) => assert_eq!(v.wdl(), truth(whole, pos, pos.turn()), "{pos}"),
            Known::Proved(c) => match c.claim(side) {
                Some(Claim::Win) => assert_eq!(t, Wdl::Win, "{pos}: {side:?} wins"),
                Some(Claim::NotLose) => assert_ne!(t, Wdl::Loss, "{pos}: {side:?} does not lose"),
                None => {}
            },
            Known::Unknown => {}
        }
    }
}

/// One game from `start`: `me` is the player, the other side moves at random. The
/// value for `me` never gets worse after its move; the result.
fn game(
    player: &mut Player,
    whole: &Tablebase,
    start: &Position,
    me: Color,
    rng: &mut Rng,
) -> GameResult {
    let mut g = Game::new(*start, Rules::PLAIN);
    while g.end().is_none() && g.moves().len() < 2000 {
        let pos = *g.position();
        agrees(player, whole, &pos);
        if pos.turn() == me {
            // A win the player knows of is kept; nothing is ever lost.
            let knows_win = player.known(&pos, Rules::PLAIN).unwrap().value(me) == Some(Wdl::Win);
            let choice = player.choose(&pos, Rules::PLAIN).unwrap();
            assert_ne!(
                choice.source,
                Source::Unproved,
                "{pos}: every move is proved"
            );
            g.play(&choice.mv).unwrap();
            if g.end().is_none() {
                let after = truth(whole, g.position(), me);
                let text = choice.mv.notation(pos.board());
                assert_ne!(after, Wdl::Loss, "{pos}: {text} loses");
                assert!(
                    !knows_win || after == Wdl::Win,
                    "{pos}: {text} lets a win go"
                );
            }
        } else {
            let moves = g.legal_moves();
            let mv = moves[rng.below(moves.len() as u64) as usize].clone();
            g.play(&mv).unwrap();
        }
    }
    g.end().map_or(GameResult::Unfinished, |e| e.result())
}

/// Each move of a random game from a proved 5x3 position, judged by what is
/// proved: a move judged kept did not worsen its mover's whole-table value, one
/// judged thrown did; the search decides some where the proofs do not.
#[test]
fn judged_moves_agree_with_the_whole_tables() {
    let board = Board::get(5, 3).unwrap();
    let whole_dir = common::tables(board, 7);
    let whole = Tablebase::open(whole_dir.path()).unwrap();
    let mut rng = Rng(4242);
    let (mut kept, mut thrown, mut searched) = (0, 0, 0);
    for want in [Wdl::Draw, Wdl::Win, Wdl::Draw, Wdl::Win, Wdl::Draw] {
        let start = position_of(&mut rng, &whole, board, want);
        let small = tempfile::tempdir().unwrap();
        let mut p = player(solved(small.path(), &start, 4), small.path(), 5_000);
        for _ in 0..30 {
            let mut g = Game::new(start, Rules::PLAIN);
            while g.end().is_none() && g.moves().len() < 60 {
                let pos = *g.position();
                let moves = g.legal_moves();
                let mv = moves[rng.below(moves.len() as u64) as usize].clone();
                let knew = p.known(&pos, Rules::PLAIN).unwrap();
                let judged = p.judge(&pos, Rules::PLAIN, &mv).unwrap();
                assert_eq!(judged.before, knew);
                g.play(&mv).unwrap();
                let me = pos.turn();
                let before = truth(&whole, &pos, me);
                let after = match g.end() {
                    Some(e) if e.result() == GameResult::Won(me) => Wdl::Win,
                    _ => truth(&whole, g.position(), me),
                };
                let worse = (before == Wdl::Win && after != Wdl::Win)
                    || (before == Wdl::Draw && after == Wdl::Loss);
                match judged.verdict {
                    Some(fanotb::Verdict::Kept) => {
                        assert!(!worse, "{pos}: {mv:?} judged kept");
                        kept += 1;
                    }
                    Some(fanotb::Verdict::Thrown) => {
                        assert!(worse, "{pos}: {mv:?} judged thrown");
                        thrown += 1;
                    }
                    _ => {}
                }
                searched += (judged.verdict.is_some()
                    && matches!(judged.after, Known::Proved(_))
                    && g.end().is_none()) as usize;
            }
        }
    }
    assert!(kept > 100 && thrown > 20, "kept {kept}, thrown {thrown}");
    assert!(searched > 0);
}

/// Positions of `n` stones drawn at random until one the whole tables value
/// `want` for the side to move.
fn position_of(rng: &mut Rng, whole: &Tablebase, board: &'static Board, want: Wdl) -> Position {
    loop {
        let pos = random(rng, board, 7);
        if !pos.is_lost() && whole.value(&pos, Rules::PLAIN).unwrap() == want {
            return pos;
        }
    }
}

fn random(rng: &mut Rng, board: &'static Board, n: usize) -> Position {
    let mine = 2 + rng.below(n as u64 - 3) as usize;
    let (us, them) = common::random_stones(rng, board, n, mine);
    let turn = [Color::White, Color::Black][rng.below(2) as usize];
    Position::from_sides(board, us, them, turn)
}

/// On 5x3 and 3x5, with every table of up to 7 stones as the truth: positions of
/// 7 stones, drawn and won, proved over tables of 4; the player, with and without
/// its search, against random replies: a draw is never lost, a win is won, and
/// every value it reports agrees with the whole tables.
#[test]
fn the_player_keeps_every_proved_value_on_small_boards() {
    let mut rng = Rng(0x5eed_9a3e);
    for (w, h) in [(5, 3), (3, 5)] {
        let board = Board::get(w, h).unwrap();
        let whole_dir = tempfile::tempdir().unwrap();
        generate(
            whole_dir.path(),
            board,
            &Signature::all_up_to(7),
            &fanotb::Options::default(),
            |_| {},
        )
        .unwrap();
        let whole = Tablebase::open(whole_dir.path()).unwrap();
        let (mut games, mut won) = (0, 0);
        for want in [Wdl::Draw, Wdl::Win, Wdl::Draw, Wdl::Win] {
            let start = position_of(&mut rng, &whole, board, want);
            let small = tempfile::tempdir().unwrap();
            let solution = solved(small.path(), &start, 4);
            for search in [0, 5_000] {
                let mut p = player(solution.clone(), small.path(), search);
                let sides = match want {
                    Wdl::Win => vec![start.turn()],
                    _ => vec![Color::White, Color::Black],
                };
                for me in sides {
                    for _ in 0..60 {
                        let result = game(&mut p, &whole, &start, me, &mut rng);
                        games += 1;
                        assert_ne!(result, GameResult::Won(me.other()), "{start}: lost");
                        if want == Wdl::Win {
                            assert_eq!(result, GameResult::Won(me), "{start}: a win not won");
                        }
                        won += (result == GameResult::Won(me)) as usize;
                    }
                }
            }
        }
        assert!(games >= 700, "{w}x{h}: {games} games");
        assert!(won > 0, "{w}x{h}: random replies were never punished");
    }
}

/// Every line of the other side, to a depth, from drawn 5x3 positions: the
/// player's value never slips.
#[test]
fn the_player_holds_against_every_line_to_a_depth() {
    let board = Board::get(5, 3).unwrap();
    let whole_dir = common::tables(board, 7);
    let whole = Tablebase::open(whole_dir.path()).unwrap();
    let mut rng = Rng(77);
    let mut lines = 0u64;
    for _ in 0..3 {
        let start = position_of(&mut rng, &whole, board, Wdl::Draw);
        let small = tempfile::tempdir().unwrap();
        let solution = solved(small.path(), &start, 4);
        let mut p = player(solution, small.path(), 0);
        let me = start.turn();
        let mut stack = vec![(Game::new(start, Rules::PLAIN), 0usize)];
        while let Some((g, depth)) = stack.pop() {
            if g.end().is_some() || depth == 16 {
                let result = g.end().map(|e| e.result());
                assert_ne!(result, Some(GameResult::Won(me.other())), "{start}");
                lines += 1;
                continue;
            }
            let pos = *g.position();
            if pos.turn() == me {
                let choice = p.choose(&pos, Rules::PLAIN).unwrap();
                let mut next = g.clone();
                next.play(&choice.mv).unwrap();
                if next.end().is_none() {
                    assert_ne!(truth(&whole, next.position(), me), Wdl::Loss, "{pos}");
                }
                stack.push((next, depth + 1));
            } else {
                for mv in g.legal_moves() {
                    let mut next = g.clone();
                    next.play(&mv).unwrap();
                    stack.push((next, depth + 1));
                }
            }
        }
    }
    assert!(lines > 1000, "{lines} lines");
}

/// dimy is a draw: the player of its proof never loses either side against random
/// replies, under the plain rules, and under the no-capture limit of 50 plies.
#[test]
fn the_player_never_loses_dimy() {
    let board = Board::by_name("dimy").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let start = Position::start(board);
    let solution = solved(dir.path(), &start, 6);
    let mut p = player(solution, dir.path(), 0);
    let mut rng = Rng(2026);
    let limit = Rules::no_capture_limit(fanotb::Limit::new(50).unwrap(), 0).unwrap();
    let mut results = [0usize; 3];
    for n in 0..200 {
        let me = [Color::White, Color::Black][n % 2];
        let rules = if n % 4 < 2 { Rules::PLAIN } else { limit };
        let mut g = Game::new(start, rules);
        while g.end().is_none() && g.moves().len() < 3000 {
            let pos = *g.position();
            let mv = if pos.turn() == me {
                let choice = p.choose(&pos, g.rules()).unwrap();
                assert_ne!(choice.source, Source::Unproved, "{pos}");
                choice.mv
            } else {
                let moves = g.legal_moves();
                moves[rng.below(moves.len() as u64) as usize].clone()
            };
            g.play(&mv).unwrap();
        }
        let result = g.end().expect("the game ends").result();
        assert_ne!(result, GameResult::Won(me.other()), "game {n} lost");
        results[match result {
            GameResult::Won(_) => 0,
            GameResult::Drawn => 1,
            GameResult::Unfinished => 2,
        }] += 1;
    }
    assert!(
        results[0] > 0,
        "random replies were never punished: {results:?}"
    );
}

/// tsivy: the built-in draw proof answers at the start, and a few short games
/// against random replies stay inside it: every move the player makes above the
/// tables' 7 stones is the proof's (or a win), never unproved.
#[test]
fn the_built_in_proof_plays_tsivy_from_the_start() {
    let solution = SolvedGame::tsivy_draw().unwrap();
    let start = Position::start(Board::tsivy());
    let proved = solution.proved(&start).unwrap();
    assert_eq!(proved.value(Color::White), Some(Wdl::Draw));
    assert!(solution.len() > 2_000_000, "{} positions", solution.len());
    let mut p = Player::new(Some(solution), None, PlayerOptions::default());
    let mut rng = Rng(48);
    for n in 0..6 {
        let me = [Color::White, Color::Black][n % 2];
        let mut g = Game::new(start, Rules::PLAIN);
        while g.end().is_none() && g.moves().len() < 40 {
            let pos = *g.position();
            if (pos.white() | pos.black()).count_ones() <= 7 {
                break;
            }
            let mv = if pos.turn() == me {
                let choice = p.choose(&pos, Rules::PLAIN).unwrap();
                assert!(
                    matches!(choice.source, Source::Proof(_) | Source::Win),
                    "{pos}: {:?}",
                    choice.source
                );
                choice.mv
            } else {
                let moves = g.legal_moves();
                moves[rng.below(moves.len() as u64) as usize].clone()
            };
            g.play(&mv).unwrap();
        }
        assert_ne!(
            g.end().map(|e| e.result()),
            Some(GameResult::Won(me.other()))
        );
    }
}
