//! `fanotb serve` on a random local port: the API's answers against the library's,
//! its errors, 8 clients at once, and a graceful shutdown.

mod common;

use std::process::Command;

use common::server::{Server, agent};

use fanotb::{Board, Limit, Options, Position, Signature, Tablebase, best_count, generate};
use serde_json::{Value, json};

fn query(pos: &Position, rules: Option<(Limit, u32)>) -> String {
    let text = pos.to_string().replace(' ', "%20");
    match rules {
        None => format!("position={text}"),
        Some((n, c)) => format!("position={text}&limit={n}&counter={c}"),
    }
}

/// What `/api/probe` must answer, built from the library.
fn expected(tb: &Tablebase, pos: &Position, rules: Option<(Limit, u32)>) -> Value {
    let b = pos.board();
    match rules {
        None => {
            let outcome = common::plain(tb, pos).unwrap();
            let moves = tb.moves(pos, fanotb::Rules::PLAIN).unwrap();
            json!({
                "position": pos.to_string(),
                "value": outcome.wdl().name(),
                "depth": outcome.depth(),
                "moves": moves.iter().map(|m| json!({
                    "move": m.mv.notation(b),
                    "value": m.value.wdl().name(),
                    "depth": m.value.depth(),
                    "result": m.result.to_string(),
                })).collect::<Vec<_>>(),
                "best": moves[..best_count(&moves)].iter().map(|m| m.mv.notation(b)).collect::<Vec<_>>(),
            })
        }
        Some((limit, counter)) => {
            let stored = common::stored(tb, pos, limit).unwrap();
            let rules = fanotb::Rules::no_capture_limit(limit, counter).unwrap();
            let moves = tb.moves(pos, rules).unwrap();
            let best = tb.best_moves(pos, rules).unwrap();
            json!({
                "position": pos.to_string(),
                "limit": limit.plies(),
                "counter": counter,
                "value": tb.value(pos, rules).unwrap().name(),
                "plies_to_capture": stored.plies_to_capture(),
                "cursed": stored.cursed(),
                "moves": moves.iter().map(|m| json!({
                    "move": m.mv.notation(b),
                    "value": m.value.wdl().name(),
                    "plies_to_capture": m.value.depth(),
                    "counter": m.rules.counter(),
                    "result": m.result.to_string(),
                })).collect::<Vec<_>>(),
                "best": best.iter().map(|m| m.mv.notation(b)).collect::<Vec<_>>(),
            })
        }
    }
}

/// Tsivy tables up to 4 stones, plain and under the limit 20.
fn tables() -> (tempfile::TempDir, Limit) {
    let board = Board::tsivy();
    let dir = common::tables(board, 4);
    let limit = Limit::new(20).unwrap();
    let opts = Options::rule_aware(limit);
    generate(dir.path(), board, &Signature::all_up_to(4), &opts, |_| {}).unwrap();
    (dir, limit)
}

#[test]
fn the_api_answers_as_the_library_does_and_errors_are_json() {
    let (dir, limit) = tables();
    let tb = Tablebase::open(dir.path()).unwrap();
    let server = Server::start(dir.path());
    let a = agent();

    // A known position: a win in 49, and the same JSON as `probe --json`.
    let pos: Position = "9/9/B8/9/3WW3B w".parse().unwrap();
    let (status, got) = server.json(&a, &format!("/api/probe?{}", query(&pos, None)));
    assert_eq!(status, 200);
    assert_eq!(got, expected(&tb, &pos, None));
    assert_eq!(
        (got["value"].as_str(), got["depth"].as_u64()),
        (Some("win"), Some(49))
    );
    let cli = Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
        .args(["probe", "9/9/B8/9/3WW3B w", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&cli.stdout).unwrap(), got);
    let rules = Some((limit, 3));
    let (status, got) = server.json(&a, &format!("/api/probe?{}", query(&pos, rules)));
    assert_eq!((status, got), (200, expected(&tb, &pos, rules)));

    // Where no table covers a position its moves come from the rules, as `moves
    // --json` gives them (the board draws the start so), and vela's rules apply.
    for (position, vela, count) in [("start", "", 5), ("start", "white", 4)] {
        let asked = match vela {
            "" => format!("/api/moves?position={position}"),
            side => format!("/api/moves?position={position}&vela={side}"),
        };
        let (status, got) = server.json(&a, &asked);
        assert_eq!(status, 200, "{got}");
        assert_eq!(got["moves"].as_array().unwrap().len(), count);
        let mut args = vec!["moves", position, "--json"];
        if !vela.is_empty() {
            args.extend(["--vela", vela]);
        }
        let cli = Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&cli.stdout).unwrap(), got);
    }
    let (status, _) = server.json(&a, "/api/moves?position=9/9/9/9/9");
    assert_eq!(status, 400, "a position without its side to move");

    // The principal line.
    let (status, line) = server.json(&a, &format!("/api/line?{}", query(&pos, None)));
    assert_eq!(status, 200);
    let want: Vec<String> = tb
        .line(&pos, fanotb::Rules::PLAIN)
        .unwrap()
        .iter()
        .map(|m| m.mv.notation(pos.board()))
        .collect();
    let got: Vec<&str> = line["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(got, want);
    assert_eq!(want.len(), 49);

    // Every table, with its statistics.
    let (status, tables) = server.json(&a, "/api/tables");
    assert_eq!(status, 200);
    let tables = tables["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2 * 6, "6 plain and 6 rule-aware tables");
    let infos = tb.tables().unwrap();
    for (t, info) in tables.iter().zip(&infos) {
        assert_eq!(t["signature"], info.signature.to_string());
        assert_eq!(t["wins"], info.stats.wins);
        assert_eq!(t["limit"], json!(info.kind.limit().map(Limit::plies)));
    }

    // Charts and the page with its assets.
    let (status, svg) = server.get(&a, "/charts/depths.svg?board=9x5&signature=2v1");
    assert_eq!(status, 200);
    assert!(svg.starts_with("<svg") && svg.contains("2v1"), "{svg:.100}");
    let (status, svg) = server.get(&a, "/charts/shares.svg?board=9x5&limit=20");
    assert!(status == 200 && svg.contains("no-capture limit 20"));
    for page in ["/", "/board.js", "/style.css"] {
        let (status, body) = server.get(&a, page);
        assert!(status == 200 && body.len() > 1000, "{page}");
    }

    // Bad requests: 400 with a JSON error that says what is wrong.
    let bad = [
        ("/api/probe?position=9/9/B8/9/3WW3B", "side to move"),
        (
            "/api/probe?position=9/9/B8/9/3WW3B%20w&counter=2",
            "needs a limit",
        ),
        ("/api/probe?position=9/9/B8/9/3WW3B%20w&limit=0", "limit"),
        (
            "/api/probe?position=9/9/B8/9/3WW3B%20w&limit=20&counter=21",
            "above",
        ),
        (
            "/api/probe?position=9/9/B8/9/3WW3B%20w&counter=x",
            "counter",
        ),
        ("/api/probe", "position"),
        ("/api/line?position=9/9/9/9/3WW4%20w", "no stones"),
        ("/charts/depths.svg?board=4x4&signature=2v1", "4x4"),
    ];
    for (path, says) in bad {
        let (status, body) = server.json(&a, path);
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["ok"], false);
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(says), "{path}: {error}");
    }
    let long = "B".repeat(300);
    assert_eq!(
        server.json(&a, &format!("/api/probe?position={long}")).0,
        400
    );

    // Missing tables: 404, naming the table and how to build it.
    let (status, body) = server.json(&a, "/api/probe?position=9/9/B8/9/2WWW3B%20w");
    assert_eq!(status, 404);
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("no table 3v2") && error.contains("fanotb generate"),
        "{error}"
    );
    let (status, body) = server.json(&a, "/api/probe?position=9/9/B8/9/3WW3B%20w&limit=30");
    assert_eq!(status, 404, "{body}");
    assert_eq!(server.json(&a, "/nothing/here").0, 404);

    // Still serving after all that.
    let (status, got) = server.json(&a, &format!("/api/probe?{}", query(&pos, None)));
    assert_eq!((status, got), (200, expected(&tb, &pos, None)));
}

#[test]
fn eight_clients_get_the_library_answers_and_ctrl_c_stops_cleanly() {
    let (dir, limit) = tables();
    let tb = Tablebase::open(dir.path()).unwrap();
    let mut server = Server::start(dir.path());
    std::thread::scope(|s| {
        for client in 0..8u64 {
            let (server, tb) = (&server, &tb);
            s.spawn(move || {
                let a = agent();
                let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15 ^ (client + 1));
                for i in 0..1000 {
                    let pos = common::random_position(&mut rng, Board::tsivy());
                    let rules = (i % 3 == 0).then(|| (limit, rng.below(21) as u32));
                    let path = format!("/api/probe?{}", query(&pos, rules));
                    let (status, got) = server.json(&a, &path);
                    assert_eq!((status, got), (200, expected(tb, &pos, rules)), "{path}");
                }
            });
        }
    });

    // Ctrl-C: the server finishes and exits 0.
    server.signal("-INT");
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
    let mut err = String::new();
    std::io::Read::read_to_string(server.child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("shutting down"), "{err}");
}

/// A client that sends half a request and then nothing.
fn half_sent(server: &Server) -> std::net::TcpStream {
    use std::io::Write;
    let mut c = std::net::TcpStream::connect(server.addr()).unwrap();
    c.write_all(b"GET /api/probe?position=9/9/B8/9/3WW3B%20w HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    c
}

/// What the server sends before it closes the connection (the read waits up to
/// `wait` for the close).
fn until_closed(mut c: std::net::TcpStream, wait: std::time::Duration) -> String {
    c.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let closed = std::io::Read::read_to_end(&mut c, &mut got);
    assert!(closed.is_ok(), "still open after {wait:?}: {closed:?}");
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn half_sent_requests_time_out_and_connections_beyond_the_cap_get_503() {
    let (dir, _) = tables();
    let server = Server::start_with(
        dir.path(),
        &["--header-timeout", "3", "--max-connections", "3"],
    );
    let a = agent();
    // Three clients hold every connection; a fourth is told so and closed.
    let held: Vec<_> = (0..3).map(|_| half_sent(&server)).collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let refused = until_closed(
        std::net::TcpStream::connect(server.addr()).unwrap(),
        std::time::Duration::from_secs(5),
    );
    assert!(
        refused.starts_with("HTTP/1.1 503") && refused.contains("too many connections"),
        "{refused}"
    );
    // A refused client that sent its whole request first reads the 503 too, not a
    // reset (the server drains the request before it closes): many times over,
    // since a reset overtook the answer only now and then.
    for _ in 0..30 {
        let mut c = std::net::TcpStream::connect(server.addr()).unwrap();
        std::io::Write::write_all(
            &mut c,
            b"GET /api/probe?position=start HTTP/1.1\r\nhost: x\r\n\r\n",
        )
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        let refused = until_closed(c, std::time::Duration::from_secs(5));
        assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    }
    // The header timeout closes the half-sent ones without an answer, freeing
    // their places.
    for c in held {
        until_closed(c, std::time::Duration::from_secs(5));
    }
    let (status, got) = server.json(&a, "/api/probe?position=9/9/B8/9/3WW3B%20w");
    assert_eq!((status, got["depth"].as_u64()), (200, Some(49)));
}

#[test]
fn sigterm_stops_the_server_in_bounded_time_whatever_clients_hold() {
    let (dir, _) = tables();
    let mut server = Server::start_with(dir.path(), &["--header-timeout", "600", "--timeout", "1"]);
    let _held = half_sent(&server);
    std::thread::sleep(std::time::Duration::from_millis(200));
    server.signal("-TERM");
    // The grace is 1 s: the process is gone well before the client gives up.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running 30 s after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let mut err = String::new();
    std::io::Read::read_to_string(server.child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("1 connections open") && err.contains("stopped"),
        "{err}"
    );
}

#[test]
fn a_client_that_never_reads_its_answers_is_dropped() {
    let (dir, _) = tables();
    let server = Server::start_with(
        dir.path(),
        &["--header-timeout", "1", "--max-connections", "1"],
    );
    // Thousands of pipelined requests for the page's script, whose answers are
    // never read: the server's writes stall once the socket buffers are full.
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    let requests = "GET /board.js HTTP/1.1\r\nHost: x\r\n\r\n".repeat(5000);
    let writer = {
        let mut w = slow.try_clone().unwrap();
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut w, requests.as_bytes());
        })
    };
    std::thread::sleep(std::time::Duration::from_secs(4));
    // The one connection allowed was freed: a normal client is answered.
    let (status, got) = server.json(&agent(), "/api/probe?position=9/9/B8/9/3WW3B%20w");
    assert_eq!((status, got["depth"].as_u64()), (200, Some(49)));
    // And the slow one was closed: reading it ends (its answers cut short).
    let mut sink = Vec::new();
    slow.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let _ = std::io::Read::read_to_end(&mut slow, &mut sink);
    assert!(sink.len() < 5000 * 1000, "read {} bytes", sink.len());
    writer.join().unwrap();
}

/// `/api/game` replays a game by the rules; `/api/analyse` analyses a record as
/// `analyse --json` does, within its bounds.
#[test]
fn games_are_replayed_and_records_analysed_over_http() {
    let (dir, _) = tables();
    let server = Server::start(dir.path());
    let a = agent();
    let (status, g) = server.json(
        &a,
        "/api/game?start=9/9/3B5/9/WW7+w&moves=a1-a2+d3-c3+b1-b2+c3-d4W+a2-a1+d4-d3+a1-b2+d3-e3\
         +b2-a2+e3-d2+a2-a3+d2-d1+a3-a2+d1-e1+a2-b2+e1-f1+b2-a1+f1-e1+a1-a2+e1-d1+a2-b2+d1-e1\
         +b2-a2+e1-d1+a2-b2+d1-e1+b2-a2",
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (g["end"].as_str(), g["result"].as_str()),
        (Some("repetition"), Some("1/2-1/2"))
    );
    assert_eq!(g["plies"], 27);
    let record = g["record"].as_str().unwrap().to_string();
    let (status, g) = server.json(&a, "/api/game?start=start&moves=d3-e3W+a1-a2");
    assert_eq!(status, 400);
    assert!(
        g["error"]
            .as_str()
            .unwrap()
            .starts_with("move 2 (a1-a2): illegal move"),
        "{g}"
    );

    let post = |body: &str| {
        let mut r = a
            .post(format!("{}/api/analyse", server.base))
            .send(body)
            .unwrap();
        let status = r.status().as_u16();
        (
            status,
            serde_json::from_str::<Value>(&r.body_mut().read_to_string().unwrap())
                .unwrap_or(Value::Null),
        )
    };
    let (status, got) = post(&record);
    assert_eq!(status, 200);
    let file = dir.path().join("game.fanrec");
    std::fs::write(&file, &record).unwrap();
    let cli = Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
        .args(["analyse", "--json", "--dir"])
        .arg(dir.path())
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&cli.stdout).unwrap(), got);
    assert_eq!(got["moves"][0]["mistake"], "win-to-draw");
    // A game no table covers, and one they cover from its fourth ply (tables of up
    // to 4 stones): the CLI (without the search, as the server) and the API agree,
    // every uncovered ply saying why.
    for (record, uncovered) in [
        ("1. d2-e3A c3-d2A *", 2),
        (
            "[Start \"B8/9/9/9/1WWW4B w\"]\n1. b1-b2 a5-b4 2. b2-b3A i1-h1 *",
            3,
        ),
    ] {
        let (status, got) = post(record);
        assert_eq!(status, 200, "{got}");
        std::fs::write(&file, record).unwrap();
        let cli = Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
            .args(["analyse", "--json", "--search-nodes", "0", "--dir"])
            .arg(dir.path())
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&cli.stdout).unwrap(), got);
        let moves = got["moves"].as_array().unwrap();
        let why: Vec<&str> = moves
            .iter()
            .filter_map(|m| m["not_covered"].as_str())
            .collect();
        assert_eq!(why.len(), uncovered, "{got}");
        assert!(why[0].starts_with("no table "), "{why:?}");
        assert!(
            moves
                .iter()
                .all(|m| m["before"].is_null() == m["not_covered"].is_string())
        );
    }
    // Refused: not a record, too many plies, too large a body.
    let (status, got) = post("1. a1-a2");
    assert_eq!(status, 400);
    assert!(
        got["error"]
            .as_str()
            .unwrap()
            .contains("a record ends with its result"),
        "{got}"
    );
    let long = format!(
        "[Start \"B4/5/4W w\"]\n{} *",
        "e1-e2 a3-a2 e2-e1 a2-a3 ".repeat(501)
    );
    let (status, got) = post(&long);
    assert_eq!(status, 400);
    assert!(
        got["error"]
            .as_str()
            .unwrap()
            .starts_with("a record of 2004 plies"),
        "{got}"
    );
    let (status, _) = post(&"a".repeat(65 << 10));
    assert_eq!(status, 413);
}
