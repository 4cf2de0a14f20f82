//! The web board in headless Chromium, driven through ChromeDriver's WebDriver
//! protocol: the page draws the position and its values, a click plays a move,
//! back and "play the best move" work, the URL follows, a phone's width needs no
//! sideways scrolling; screenshots are saved to `target/screenshots/`, and the
//! board's to `docs/images/board.png`, the picture the README and the guide show.
//!
//! Needs Debian's `chromium` and `chromium-driver`: `.ci/run` installs them and runs
//! `cargo test --release --test browser -- --ignored`.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use common::server::{Server, agent};

/// The key under which WebDriver returns an element's id.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    process: Child,
    session: String,
    agent: ureq::Agent,
}

impl Driver {
    fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian's chromium-driver) is installed");
        let mut d = Driver {
            process,
            session: format!("http://127.0.0.1:{port}/session"),
            agent: agent(),
        };
        let profile = tempfile::tempdir().unwrap().keep();
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     "--window-size=1200,900",
                     format!("--user-data-dir={}", profile.display())],
        }}}});
        let started = Instant::now();
        let id = loop {
            match d.agent.post(&d.session).send_json(&caps) {
                Ok(mut r) => {
                    let v: Value = r.body_mut().read_json().unwrap();
                    break v["value"]["sessionId"].as_str().unwrap().to_string();
                }
                Err(_) if started.elapsed() < Duration::from_secs(20) => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                Err(e) => panic!("chromedriver did not start: {e}"),
            }
        };
        d.session = format!("{}/{id}", d.session);
        d
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.session);
        let mut r = match method {
            "GET" => self.agent.get(&url).call(),
            _ => self.agent.post(&url).send_json(&body),
        }
        .unwrap();
        let v: Value = r.body_mut().read_json().unwrap();
        assert!(v["value"]["error"].is_null(), "{path}: {v}");
        v["value"].clone()
    }

    fn elements(&self, css: &str) -> Vec<String> {
        let v = self.call(
            "POST",
            "/elements",
            json!({"using": "css selector", "value": css}),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e[ELEMENT].as_str().unwrap().to_string())
            .collect()
    }

    fn text(&self, element: &str) -> String {
        let v = self.call("GET", &format!("/element/{element}/text"), Value::Null);
        v.as_str().unwrap().to_string()
    }

    fn property(&self, element: &str, name: &str) -> String {
        let v = self.call(
            "GET",
            &format!("/element/{element}/property/{name}"),
            Value::Null,
        );
        v.as_str().unwrap_or_default().to_string()
    }

    /// Saves a screenshot to `target/screenshots/NAME`, and returns it.
    fn screenshot(&self, name: &str) -> Vec<u8> {
        let png = self.call("GET", "/screenshot", Value::Null);
        let png = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(name), &png).unwrap();
        png
    }

    fn click(&self, css: &str) {
        let e = &self.elements(css)[0];
        self.call("POST", &format!("/element/{e}/click"), json!({}));
    }

    /// Waits until the first element matching `css` shows `want` (text, or for an
    /// input its value).
    fn wait_for(&self, css: &str, want: &str) {
        let started = Instant::now();
        let mut seen = String::new();
        while started.elapsed() < Duration::from_secs(10) {
            if let Some(e) = self.elements(css).first() {
                seen = match self.property(e, "tagName").as_str() {
                    "INPUT" => self.property(e, "value"),
                    _ => self.text(e),
                };
                if seen == want {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("{css}: {seen:?}, waited for {want:?}");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.session).call();
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

#[test]
#[ignore = "needs chromium and chromedriver; .ci/run runs it"]
fn the_web_board_shows_values_and_plays_a_clicked_move() {
    let dir = common::tables(fanotb::Board::tsivy(), 4);
    let server = Server::start(dir.path());
    let d = Driver::start();
    let start = "9/9/B8/9/3WW3B w";
    d.call(
        "POST",
        "/url",
        json!({"url": format!("{}/?position={}", server.base, start.replace(' ', "%20"))}),
    );
    d.wait_for("#value", "White to move: win in 49");
    assert_eq!(d.elements("#board circle.stone").len(), 4);
    assert_eq!(d.elements("#board circle.white").len(), 2);
    // Six moves, listed and drawn, coloured by their value for White.
    let moves = d.elements("#moves li");
    assert_eq!(moves.len(), 6);
    assert_eq!(d.text(&moves[0]), "e1-f2 win in 49");
    assert_eq!(d.property(&moves[0], "className"), "win best");
    assert_eq!(d.elements("#board g.arrow").len(), 6);
    assert_eq!(d.elements("#board g.arrow.loss").len(), 2);
    assert_eq!(d.elements("#moves li.draw").len(), 3);

    // Click the winning move: Black to move, lost; the address holds the game.
    d.click("#moves li[data-move='e1-f2']");
    d.wait_for("#position", "9/9/B8/5W3/3W4B b");
    d.wait_for("#value", "Black to move: loss in 48");
    let url = d.call("GET", "/url", Value::Null);
    assert!(
        url.as_str()
            .unwrap()
            .ends_with("?start=9%2F9%2FB8%2F9%2F3WW3B+w&moves=e1-f2"),
        "{url}"
    );
    // Back, then the best move by the button; a move clicked on the board.
    d.click("#back");
    d.wait_for("#value", "White to move: win in 49");
    d.click("#best");
    d.wait_for("#position", "9/9/B8/5W3/3W4B b");
    d.click("#board g.arrow[data-move='a3-b2'] polyline");
    d.wait_for("#position", "9/9/9/1B3W3/3W4B w");
    d.wait_for("#value", "White to move: win in 47");

    // The moves played make a game, with its record.
    d.wait_for(
        "#record",
        "[Board \"9x5\"]\n[Start \"9/9/B8/9/3WW3B w\"]\n[Result \"*\"]\n\n1. e1-f2 a3-b2 *",
    );

    // The principal line, and the tables with their charts.
    d.click("#line");
    d.wait_for("#line-moves li", "d1-e1");
    assert!(d.elements("#table-list tr[data-chart]").len() == 6);

    // The guide's and the README's picture of the board is this screenshot.
    let png = d.screenshot("board.png");
    std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/images/board.png"),
        png,
    )
    .unwrap();

    // On a phone's width the page fits: nothing scrolls sideways.
    d.call("POST", "/window/rect", json!({"width": 412, "height": 915}));
    let widths = d.call(
        "POST",
        "/execute/sync",
        json!({"script": "return [document.documentElement.scrollWidth, window.innerWidth]", "args": []}),
    );
    let (page, window) = (widths[0].as_u64().unwrap(), widths[1].as_u64().unwrap());
    assert!(
        window <= 412 && page <= window,
        "page {page} px in a {window} px window"
    );
    d.screenshot("board-phone.png");
    d.call(
        "POST",
        "/window/rect",
        json!({"width": 1200, "height": 900}),
    );

    // The game's record on the analysis page.
    d.click("#analyse");
    d.wait_for(
        "#summary",
        "result *; the game did not end by the rules; 0 mistakes, 0 inaccuracies; 2 of 2 positions proved, 0 thrown away",
    );
    assert_eq!(d.elements("#plies tr").len(), 3, "a header and two plies");
    assert_eq!(d.elements("#chart polyline").len(), 1);
    d.screenshot("analyse.png");

    // Back and forth: the third time the position comes, the game is drawn.
    d.call(
        "POST",
        "/url",
        json!({"url": format!("{}/?position=9/9/B8/9/8W%20w", server.base)}),
    );
    d.wait_for("#value", "White to move: draw");
    let steps = [
        ("i1-i2", "9/9/B8/8W/9 b"),
        ("a3-a2", "9/9/9/B7W/9 w"),
        ("i2-i1", "9/9/9/B8/8W b"),
        ("a2-a3", "9/9/B8/9/8W w"),
    ];
    for (m, after) in steps.repeat(2) {
        d.click(&format!("#moves li[data-move='{m}']"));
        d.wait_for("#position", after);
    }
    d.wait_for(
        "#end",
        "game over: drawn by the third repetition of the position",
    );
    d.wait_for(
        "#moves li",
        "game over: drawn by the third repetition of the position",
    );

    // Under vela (5x3's vela tables): White steps quietly, the side stays with the
    // game and the record names it.
    let board = fanotb::Board::by_name("5x3").unwrap();
    let vela: Vec<fanotb::Signature> = vec!["6v1".parse().unwrap()];
    fanotb::generate(dir.path(), board, &vela, &fanotb::Options::vela(), |_| {}).unwrap();
    d.call(
        "POST",
        "/url",
        json!({"url": format!("{}/?position=B4/WW3/WWWW1%20w&vela=white", server.base)}),
    );
    d.wait_for(
        "#value",
        "White to move: win in 5 · vela for White, 1 stone lost",
    );
    assert_eq!(d.elements("#moves li").len(), 7, "quiet steps only");
    assert_eq!(d.property(&d.elements("#vela")[0], "value"), "white");
    d.click("#moves li[data-move='c1-c2']");
    d.wait_for(
        "#value",
        "Black to move: loss in 4 · vela for White, 1 stone lost",
    );
    assert_eq!(d.property(&d.elements("#vela")[0], "value"), "white");
    d.wait_for(
        "#record",
        "[Board \"5x3\"]\n[Start \"B4/WW3/WWWW1 w\"]\n[Vela \"White\"]\n[Result \"*\"]\n\n1. c1-c2 *",
    );
}

/// The solved game on the web: the person plays White from the start, fanotb
/// answers from its proof and the page shows what is proved after each move;
/// then the person takes Black and fanotb opens.
#[test]
#[ignore = "needs chromium and chromedriver; .ci/run runs it"]
fn the_solved_game_is_played_from_the_start_on_the_web() {
    let dir = common::tables(fanotb::Board::tsivy(), 4);
    let server = Server::start(dir.path());
    let d = Driver::start();
    d.call(
        "POST",
        "/url",
        json!({"url": format!("{}/play", server.base)}),
    );
    d.wait_for("#value", "White to move: draw (proof)");
    assert_eq!(d.elements("#board circle.stone").len(), 44);
    assert_eq!(d.elements("#moves li").len(), 5, "White's five first moves");
    d.click("#moves li[data-move='f2-e3A']");
    d.wait_for("#engine", "fanotb played f3-f2A (proof)");
    d.wait_for("#value", "White to move: draw (proof)");
    let url = d.call("GET", "/url", Value::Null);
    assert!(
        url.as_str()
            .unwrap()
            .ends_with("?side=white&moves=f2-e3A+f3-f2A"),
        "{url}"
    );
    // A move from the list: White's reply, then fanotb's.
    assert!(!d.elements("#board g.arrow").is_empty());
    d.click("#moves li");
    let started = Instant::now();
    while !d
        .text(&d.elements("#engine")[0])
        .starts_with("fanotb played ")
        || d.text(&d.elements("#engine")[0]) == "fanotb played f3-f2A (proof)"
    {
        assert!(started.elapsed() < Duration::from_secs(10), "no answer");
        std::thread::sleep(Duration::from_millis(50));
    }
    d.screenshot("play.png");
    // Black: fanotb opens with its proof's first move.
    d.click("#as-black");
    d.wait_for("#engine", "fanotb played f2-e3A (proof)");
    d.wait_for("#value", "Black to move: draw (proof)");
    d.wait_for("#record", "[Board \"9x5\"]\n[Result \"*\"]\n\n1. f2-e3A *");
}

/// A position no table covers is drawn with its moves from the rules; the moves
/// played are in the address, and that address, opened again, replays the game;
/// the editor sets up a position by clicks; a label keeps its field's row on a phone.
#[test]
#[ignore = "needs chromium and chromedriver; .ci/run runs it"]
fn the_web_board_draws_every_position_edits_and_shares_games() {
    let dir = common::tables(fanotb::Board::tsivy(), 4);
    let server = Server::start(dir.path());
    let d = Driver::start();
    let table_dir = dir.path().display();
    d.call(
        "POST",
        "/url",
        json!({"url": format!("{}/?position=start", server.base)}),
    );
    d.wait_for(
        "#value",
        &format!("White to move: no table 22v22 for the 9x5 board in {table_dir}"),
    );
    assert_eq!(d.elements("#board circle.stone").len(), 44);
    let moves = d.elements("#moves li");
    assert_eq!(moves.len(), 5, "White's five first moves, from the rules");
    assert_eq!(d.text(&moves[0]), "d2-e3A no table");
    assert_eq!(d.elements("#board g.arrow.unknown").len(), 5);
    d.screenshot("board-start.png");

    // Two moves from the start: the address holds the game.
    d.click("#moves li[data-move='d2-e3A']");
    d.wait_for(
        "#position",
        "BBBBBB1BB/BBBBB1BBB/BWBWWBWBW/WWW1WWWWW/WWWWWWWWW b",
    );
    d.click("#moves li");
    d.wait_for(
        "#record",
        "[Board \"9x5\"]\n[Result \"*\"]\n\n1. d2-e3A c3-d2A *",
    );
    let url = d.call("GET", "/url", Value::Null);
    let url = url.as_str().unwrap().to_string();
    assert!(url.ends_with("?start=start&moves=d2-e3A+c3-d2A"), "{url}");
    // The link opened anew replays the game, and Back walks through it.
    d.call("POST", "/url", json!({"url": "about:blank"}));
    d.call("POST", "/url", json!({"url": url}));
    d.wait_for(
        "#record",
        "[Board \"9x5\"]\n[Result \"*\"]\n\n1. d2-e3A c3-d2A *",
    );
    d.wait_for(
        "#position",
        "BBBBBB1BB/BBBBB1BBB/BW1WWBWBW/WWWBWWWWW/WWWW1WWWW w",
    );
    d.click("#back");
    d.wait_for(
        "#position",
        "BBBBBB1BB/BBBBB1BBB/BWBWWBWBW/WWW1WWWWW/WWWWWWWWW b",
    );

    // The editor: cleared, a White stone on a1, a Black one on b1 (two clicks),
    // Black to move; the tables answer for it.
    d.click("#edit");
    d.click("#edit-clear");
    d.wait_for("#position", "9/9/9/9/9 b");
    d.click("#edit-side");
    d.wait_for("#position", "9/9/9/9/9 w");
    d.click("#board [data-spot='a1']");
    d.click("#board [data-spot='b1']");
    d.click("#board [data-spot='b1']");
    d.click("#edit-side");
    d.wait_for("#position", "9/9/9/9/WB7 b");
    d.click("#edit-done");
    d.wait_for("#value", "Black to move: win in 1");
    // The start of another board, from the editor.
    d.click("#edit");
    let size = &d.elements("#edit-size")[0];
    d.call(
        "POST",
        "/execute/sync",
        json!({"script": "arguments[0].value = '5x3'; arguments[0].dispatchEvent(new Event('change'));",
               "args": [{ELEMENT: size}]}),
    );
    d.wait_for("#position", "BBBBB/BW1BW/WWWWW w");
    assert_eq!(d.elements("#board circle.stone").len(), 14);

    // On a phone's width each label stays on its field's row.
    d.call("POST", "/window/rect", json!({"width": 412, "height": 915}));
    let rows = d.call(
        "POST",
        "/execute/sync",
        json!({"script": "return ['limit', 'counter', 'vela'].map((id) => \
            document.querySelector(`label[for=${id}]`).getBoundingClientRect().top \
            - document.getElementById(id).getBoundingClientRect().top)", "args": []}),
    );
    for gap in rows.as_array().unwrap() {
        assert!(
            gap.as_f64().unwrap().abs() < 8.0,
            "a label off its field's row: {rows}"
        );
    }
    d.screenshot("board-phone-editor.png");
}
