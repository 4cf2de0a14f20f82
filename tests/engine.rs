//! The engine protocol of docs/ENGINE.md, as a program driving `fanotb engine`
//! sees it: a scripted session (handshake, positions, moves, bad input that must
//! not stop it, `quit`), and `fanotb match` between two engines.

use assert_cmd::Command;

fn session(script: &str, args: &[&str]) -> Vec<String> {
    let out = Command::cargo_bin("fanotb")
        .unwrap()
        .arg("engine")
        .args(args)
        .env_remove("FANOTB_TABLES")
        .write_stdin(script)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// A legal move of the position reached by `moves` from the tsivy start.
fn legal_after(moves: &[&str], mv: &str) -> bool {
    let mut game = fanotb::Game::new(
        fanotb::Position::start(fanotb::Board::tsivy()),
        fanotb::Rules::PLAIN,
    );
    for m in moves {
        game.play_text(m).unwrap();
    }
    game.play_text(mv).is_ok()
}

#[test]
fn a_scripted_session_survives_bad_input_and_answers_from_the_proof() {
    let long = "x".repeat(100_000);
    let script = format!(
        "uci\n\
         isready\n\
         ucinewgame\n\
         position startpos\n\
         go movetime 100\n\
         position startpos moves f2-e3A\n\
         go\n\
         position startpos moves f2-e3A f2-e3A\n\
         go\n\
         position fen BBBBBBBBB/BBB w\n\
         frobnicate\n\
         setoption name Colour value blue\n\
         {long}\n\
         position fen 9/9/B8/9/3WW3B w\n\
         go nodes 0\n\
         position startpos moves d2-e3A g4-g5W\n\
         go\n\
         position fen 9/9/9/9/8W b\n\
         go\n\
         quit\n\
         isready\n"
    );
    let lines = session(&script, &[]);
    let text = lines.join("\n");
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in:\n{text}"))
    };
    // The handshake: id, options, uciok; then readyok.
    assert!(lines[0].starts_with("id name fanotb "), "{text}");
    for option in ["Tables", "Solution", "SearchNodes", "NoCaptureLimit"] {
        at(&format!("option name {option} type "));
    }
    assert!(at("uciok") < at("readyok"));
    let values: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info value"))
        .collect();
    let bestmoves: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove "))
        .collect();
    assert_eq!(bestmoves.len(), 6, "one answer a go: {text}");
    let mv = |i: usize| bestmoves[i].split(' ').nth(1).unwrap().to_string();
    // The start, and after f2-e3A: proved draws, and the proof's moves.
    assert_eq!(values[0], "info value draw source proof");
    assert!(legal_after(&[], &mv(0)), "{text}");
    assert_eq!(values[1], "info value draw source proof");
    assert!(legal_after(&["f2-e3A"], &mv(1)), "{text}");
    // An illegal move: an error line, and the engine keeps the last good position.
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert!(errors[0].contains("move 2 (f2-e3A)"), "{text}");
    assert_eq!(values[2], "info value draw source proof");
    assert!(legal_after(&["f2-e3A"], &mv(2)), "{text}");
    // A short position text, an unknown command, an unknown option, a long line.
    assert!(errors[1].contains("bad position text"), "{text}");
    assert!(
        errors[2].contains("unknown command \"frobnicate\""),
        "{text}"
    );
    assert!(errors[3].contains("no option \"Colour\""), "{text}");
    assert!(errors[4].contains("longer than"), "{text}");
    // Beyond the proof, without tables: nothing is claimed.
    assert_eq!(values[3], "info value unknown");
    // After d2-e3A g4-g5W only Black's proof holds: White does not win.
    assert_eq!(values[4], "info value notwin source proof");
    assert!(legal_after(&["d2-e3A", "g4-g5W"], &mv(4)), "{text}");
    // Black has no stones: the game is over.
    assert!(errors[5].contains("the game is over"), "{text}");
    assert_eq!(bestmoves[5].as_str(), "bestmove (none)");
    // `quit` ends the session: the `isready` after it is not answered.
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 1);
}

#[test]
fn the_random_mover_plays_legal_moves_from_its_seed() {
    let script = "position startpos\ngo\nposition startpos moves d2-e3A\ngo\nquit\n";
    let a = session(script, &["--random", "5"]);
    let b = session(script, &["--random", "5"]);
    assert_eq!(a, b, "the same seed, the same moves");
    let moves: Vec<&str> = a
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect();
    assert_eq!(moves.len(), 2);
    assert!(legal_after(&[], moves[0]));
    assert!(legal_after(&["d2-e3A"], moves[1]));
}

#[test]
fn a_match_between_the_solution_and_a_random_mover_loses_nothing() {
    let exe = assert_cmd::cargo::cargo_bin("fanotb");
    let exe = exe.display();
    let out = Command::cargo_bin("fanotb")
        .unwrap()
        .args([
            "match",
            &format!("{exe} engine --search-nodes 0"),
            &format!("{exe} engine --random 3"),
            "--games",
            "4",
            "--opening-plies",
            "0",
            "--max-plies",
            "30",
            "--json",
        ])
        .env_remove("FANOTB_TABLES")
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    // Colours alternate.
    let whites: Vec<u64> = games.iter().map(|g| g["white"].as_u64().unwrap()).collect();
    assert_eq!(whites, [1, 2, 1, 2]);
    // From the start the player is in its proof: no game is lost by engine 1.
    assert_eq!(report["first"][2], 0, "{report}");
    assert!(games.iter().all(|g| g["end"] != "illegal-move"), "{report}");
}
