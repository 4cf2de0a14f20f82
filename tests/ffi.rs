//! The C ABI, called as a C program would.

mod common;

use std::ffi::{CStr, CString, c_char, c_int};

use fanotb::Board;
use fanotb::ffi::*;

/// The tsivy tables up to 3 stones in a new directory, and its name for C.
fn tables3() -> (tempfile::TempDir, CString) {
    let dir = common::tables(Board::tsivy(), 3);
    let cdir = CString::new(dir.path().to_str().unwrap()).unwrap();
    (dir, cdir)
}

#[test]
fn c_abi_probe_and_best_move() {
    let (_dir, cdir) = tables3();
    unsafe {
        let tb = fanotb_open(cdir.as_ptr());
        assert!(!tb.is_null());
        let pos = CString::new("9/9/3B5/9/WW7 w").unwrap();
        let (mut value, mut depth): (c_int, c_int) = (9, 9);
        assert_eq!(
            fanotb_probe(tb, pos.as_ptr(), &mut value, &mut depth),
            FANOTB_OK
        );
        assert_eq!((value, depth), (1, 29));
        let mut buf = [0 as c_char; 32];
        assert_eq!(
            fanotb_best_move(tb, pos.as_ptr(), buf.as_mut_ptr(), buf.len()),
            FANOTB_OK
        );
        let best = CStr::from_ptr(buf.as_ptr()).to_str().unwrap().to_string();
        assert!(best.starts_with('a') || best.starts_with('b'), "{best}");
        assert_eq!(
            fanotb_best_move(tb, pos.as_ptr(), buf.as_mut_ptr(), 2),
            FANOTB_ESPACE
        );

        let bad = CString::new("9/9/3X5/9/WW7 w").unwrap();
        assert_eq!(
            fanotb_probe(tb, bad.as_ptr(), &mut value, &mut depth),
            FANOTB_EPOSITION
        );
        let err = CStr::from_ptr(fanotb_last_error()).to_str().unwrap();
        assert!(err.contains("unexpected character `X`"), "{err}");
        let uncovered = CString::new("9/9/3B5/9/WWW6 w").unwrap();
        assert_eq!(
            fanotb_probe(tb, uncovered.as_ptr(), &mut value, &mut depth),
            FANOTB_EMISSING
        );
        assert_eq!(
            fanotb_probe(tb, std::ptr::null(), &mut value, &mut depth),
            FANOTB_EARG
        );
        fanotb_close(tb);

        let missing = CString::new("/nonexistent/fanotb").unwrap();
        assert!(fanotb_open(missing.as_ptr()).is_null());
        assert!(
            CStr::from_ptr(fanotb_last_error())
                .to_str()
                .unwrap()
                .contains("not a directory")
        );
    }
}

/// Every probe form of the C ABI on one set of tables, against the Rust API.
#[test]
fn c_abi_bitboards_value_only_root_largest_and_errors() {
    let (dir, cdir) = tables3();
    let tbr = fanotb::Tablebase::open(dir.path()).unwrap();
    unsafe {
        let tb = fanotb_open(cdir.as_ptr());
        assert!(!tb.is_null());
        let text = "9/9/3B5/9/WW7 w";
        let pos: fanotb::Position = text.parse().unwrap();
        let cpos = CString::new(text).unwrap();
        let mut value: c_int = 9;
        assert_eq!(fanotb_probe_wdl(tb, cpos.as_ptr(), &mut value), FANOTB_OK);
        assert_eq!(value, 1);
        let (mut v2, mut d2): (c_int, c_int) = (9, 9);
        assert_eq!(
            fanotb_probe_bb(tb, 9, 5, pos.white(), pos.black(), 0, &mut v2, &mut d2),
            FANOTB_OK
        );
        assert_eq!((v2, d2), (1, 29));
        assert_eq!(
            fanotb_probe_wdl_bb(tb, 9, 5, pos.white(), pos.black(), 0, &mut v2),
            FANOTB_OK
        );
        assert_eq!(v2, 1);
        // Black to move in the same stones: the table's value for Black.
        let flipped = fanotb::Position::new(
            fanotb::Board::tsivy(),
            pos.white(),
            pos.black(),
            fanotb::Color::Black,
        )
        .unwrap();
        assert_eq!(
            fanotb_probe_bb(tb, 9, 5, pos.white(), pos.black(), 1, &mut v2, &mut d2),
            FANOTB_OK
        );
        let o = common::plain(&tbr, &flipped).unwrap();
        assert_eq!(
            (v2, d2),
            (
                match o.wdl() {
                    fanotb::Wdl::Win => 1,
                    fanotb::Wdl::Draw => 0,
                    fanotb::Wdl::Loss => -1,
                },
                o.depth().map_or(-1, |d| d as c_int)
            )
        );
        // Bad bitboards and sizes.
        assert_eq!(
            fanotb_probe_bb(tb, 9, 5, 1, 1, 0, &mut v2, &mut d2),
            FANOTB_EPOSITION
        );
        assert_eq!(
            fanotb_probe_bb(tb, 9, 5, 1 << 50, 2, 0, &mut v2, &mut d2),
            FANOTB_EPOSITION
        );
        assert_eq!(
            fanotb_probe_bb(tb, 4, 5, 1, 2, 0, &mut v2, &mut d2),
            FANOTB_EARG
        );
        assert_eq!(
            fanotb_probe_bb(tb, 9, 5, 1, 2, 2, &mut v2, &mut d2),
            FANOTB_EARG
        );

        // Root probe: every move, best first, as the Rust API lists them.
        let mut count = 0usize;
        assert_eq!(
            fanotb_probe_root(tb, cpos.as_ptr(), std::ptr::null_mut(), 0, &mut count),
            FANOTB_ESPACE
        );
        let moves = tbr.moves(&pos, fanotb::Rules::PLAIN).unwrap();
        assert_eq!(count, moves.len());
        let mut out = vec![
            fanotb_root_move {
                notation: [0; FANOTB_MOVE_LEN],
                value: 0,
                depth: 0
            };
            count
        ];
        assert_eq!(
            fanotb_probe_root(tb, cpos.as_ptr(), out.as_mut_ptr(), count, &mut count),
            FANOTB_OK
        );
        for (r, m) in out.iter().zip(&moves) {
            let n = CStr::from_ptr(r.notation.as_ptr()).to_str().unwrap();
            assert_eq!(n, m.mv.notation(pos.board()));
            assert_eq!(r.depth, m.value.depth().map_or(-1, |d| d as c_int));
        }
        assert_eq!(out[0].value, 1);

        assert_eq!(fanotb_largest(tb, 9, 5), 3);
        assert_eq!(fanotb_largest(tb, 5, 5), 0);
        assert_eq!(fanotb_largest(tb, 2, 5), FANOTB_EARG);
        let version = CStr::from_ptr(fanotb_version()).to_str().unwrap();
        assert_eq!(version, env!("CARGO_PKG_VERSION"));

        // A finished game is the same answer for every call.
        let over = CString::new("9/9/9/9/WW7 b").unwrap();
        assert_eq!(
            fanotb_probe_wdl(tb, over.as_ptr(), &mut value),
            FANOTB_EOVER
        );
        let mut buf = [0 as c_char; 32];
        assert_eq!(
            fanotb_best_move(tb, over.as_ptr(), buf.as_mut_ptr(), buf.len()),
            FANOTB_EOVER
        );
        let mut count = 0usize;
        let mut room = [fanotb_root_move {
            notation: [0; FANOTB_MOVE_LEN],
            value: 9,
            depth: 9,
        }; 4];
        // White to move with no black stone: over too, although White has moves.
        let won = CString::new("9/9/9/9/WW7 w").unwrap();
        for p in [&over, &won] {
            assert_eq!(
                fanotb_probe_root(tb, p.as_ptr(), room.as_mut_ptr(), room.len(), &mut count),
                FANOTB_EOVER
            );
            assert_eq!(
                fanotb_best_move(tb, p.as_ptr(), buf.as_mut_ptr(), buf.len()),
                FANOTB_EOVER
            );
        }
        fanotb_close(tb);
        // A closed handle is an error, and closing it again does nothing.
        assert_eq!(fanotb_probe_wdl(tb, cpos.as_ptr(), &mut value), FANOTB_EARG);
        let why = CStr::from_ptr(fanotb_last_error()).to_str().unwrap();
        assert!(why.contains("closed"), "{why}");
        fanotb_close(tb);

        // A damaged table: its own code, not "missing".
        let path = fanotb::internals::table_path(
            dir.path(),
            Board::tsivy(),
            fanotb::TableKind::Plain,
            "2v1".parse().unwrap(),
        );
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let tb = fanotb_open(cdir.as_ptr());
        assert_eq!(
            fanotb_probe_wdl(tb, cpos.as_ptr(), &mut value),
            FANOTB_EDAMAGED
        );
        fanotb_close(tb);
    }
}

/// The header declares exactly the functions and codes the library exports.
#[test]
fn header_matches_the_exported_symbols() {
    let header =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/ffi/fanotb.h")).unwrap();
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/ffi/mod.rs")).unwrap();
    let names = |text: &str, after: &str, end: char| -> Vec<String> {
        let mut v: Vec<String> = text
            .match_indices(after)
            .map(|(i, _)| {
                text[i + after.len()..]
                    .chars()
                    .take_while(|&c| c != end && !c.is_whitespace())
                    .collect()
            })
            .filter(|n: &String| n.starts_with("fanotb_") || n.starts_with("FANOTB_"))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let exported = names(&source, "extern \"C\" fn ", '(');
    let declared: Vec<String> = {
        let mut v: Vec<String> = header
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && l.contains('('))
            .filter_map(|l| {
                // The identifier just before the first parenthesis.
                let head = &l[..l.find('(')?];
                let n = head
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()?;
                n.starts_with("fanotb_").then(|| n.to_string())
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(exported, declared);
    assert_eq!(exported.len(), 16);
    let consts = names(&source, "pub const ", ':');
    let defines = names(&header, "#define ", ' ');
    let defines: Vec<String> = defines.into_iter().filter(|d| d != "FANOTB_H").collect();
    assert_eq!(consts, defines);
    for c in &consts {
        let value = |text: &str, pat: &str| {
            let i = text.find(pat).unwrap_or_else(|| panic!("{pat}")) + pat.len();
            text[i..]
                .chars()
                .skip_while(|c| !c.is_ascii_digit() && *c != '-')
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect::<String>()
        };
        assert_eq!(
            value(&source, &format!("pub const {c}:")),
            value(&header, &format!("#define {c} ")),
            "{c}"
        );
    }
}

/// The rule-aware calls answer as the library does, at every counter, and refuse a
/// limit or counter out of range.
#[test]
fn c_abi_under_the_no_capture_limit() {
    use fanotb::{Limit, Options, Position, Signature, Tablebase};
    let dir = tempfile::tempdir().unwrap();
    let limit = Limit::new(20).unwrap();
    let opts = Options::rule_aware(limit);
    let sigs = Signature::all_up_to(3);
    fanotb::generate(dir.path(), Board::tsivy(), &sigs, &opts, |_| {}).unwrap();
    let lib = Tablebase::open(dir.path()).unwrap();
    let cdir = CString::new(dir.path().to_str().unwrap()).unwrap();
    let mut rng = common::Rng(7);
    unsafe {
        let tb = fanotb_open(cdir.as_ptr());
        let mut checked = 0;
        while checked < 300 {
            let (w, b) = (
                1u64 << rng.below(45),
                1u64 << rng.below(45) | 1 << rng.below(45),
            );
            let Ok(pos) = Position::new(Board::tsivy(), w, b, fanotb::Color::White) else {
                continue;
            };
            if w & b != 0 {
                continue;
            }
            let counter = rng.below(21) as u32;
            let text = CString::new(pos.to_string()).unwrap();
            let (mut value, mut plies, mut cursed) = (9, 9, 9);
            let status = fanotb_probe_limited(
                tb,
                text.as_ptr(),
                20,
                counter as c_int,
                &mut value,
                &mut plies,
                &mut cursed,
            );
            assert_eq!(status, FANOTB_OK);
            let stored = common::stored(&lib, &pos, limit).unwrap();
            let rules = fanotb::Rules::no_capture_limit(limit, counter).unwrap();
            let want = lib.value(&pos, rules).unwrap();
            assert_eq!(value, [-1, 0, 1][want as usize], "{pos}");
            assert_eq!(plies, stored.plies_to_capture().map_or(-1, |t| t as c_int));
            assert_eq!(cursed, stored.cursed() as c_int);
            let (mut bb_value, mut bb_plies, mut bb_cursed) = (9, 9, 9);
            let (white, black) = (pos.white(), pos.black());
            assert_eq!(
                fanotb_probe_limited_bb(
                    tb,
                    9,
                    5,
                    white,
                    black,
                    0,
                    20,
                    counter as c_int,
                    &mut bb_value,
                    &mut bb_plies,
                    &mut bb_cursed,
                ),
                FANOTB_OK
            );
            assert_eq!((bb_value, bb_plies, bb_cursed), (value, plies, cursed));
            let mut root = [fanotb_root_move {
                notation: [0; FANOTB_MOVE_LEN],
                value: 0,
                depth: 0,
            }; 64];
            let mut count = 0;
            assert_eq!(
                fanotb_probe_root_limited(
                    tb,
                    text.as_ptr(),
                    20,
                    counter as c_int,
                    root.as_mut_ptr(),
                    64,
                    &mut count
                ),
                FANOTB_OK
            );
            let moves = lib.moves(&pos, rules).unwrap();
            assert_eq!(count, moves.len());
            for (r, m) in root.iter().zip(&moves) {
                let name = CStr::from_ptr(r.notation.as_ptr()).to_str().unwrap();
                assert_eq!(name, m.mv.notation(pos.board()));
                assert_eq!(r.value, [-1, 0, 1][m.value.wdl() as usize]);
            }
            let mut buf = [0 as c_char; 64];
            assert_eq!(
                fanotb_best_move_limited(
                    tb,
                    text.as_ptr(),
                    20,
                    counter as c_int,
                    buf.as_mut_ptr(),
                    64
                ),
                FANOTB_OK
            );
            let best = CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
            assert_eq!(
                best,
                moves
                    .first()
                    .map_or(String::new(), |m| m.mv.notation(pos.board()))
            );
            checked += 1;
        }
        let text = CString::new("9/9/3B5/9/WW7 w").unwrap();
        let (mut value, mut plies, mut cursed) = (0, 0, 0);
        for (limit, counter) in [(0, 0), (251, 0), (20, 21), (20, -1)] {
            let status = fanotb_probe_limited(
                tb,
                text.as_ptr(),
                limit,
                counter,
                &mut value,
                &mut plies,
                &mut cursed,
            );
            assert_eq!(status, FANOTB_EARG, "limit {limit} counter {counter}");
        }
        // A limit with no tables is a missing table.
        let status = fanotb_probe_limited(
            tb,
            text.as_ptr(),
            30,
            0,
            &mut value,
            &mut plies,
            &mut cursed,
        );
        assert_eq!(status, FANOTB_EMISSING);
        fanotb_close(tb);
    }
}

/// `fanotb_probe_vela` against the library's probe under vela, on 5x3's vela
/// tables: both vela sides, the default and an explicit count of stones lost, and
/// the errors of a vela no table values and of bad arguments.
#[test]
fn c_abi_under_vela() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::get(5, 3).unwrap();
    let sigs: Vec<fanotb::Signature> = fanotb::Signature::all_up_to(7)
        .into_iter()
        .filter(|&s| fanotb::TableKind::Vela.holds(board, s))
        .collect();
    fanotb::generate(dir.path(), board, &sigs, &fanotb::Options::vela(), |_| {}).unwrap();
    let lib = fanotb::Tablebase::open(dir.path()).unwrap();
    let cdir = CString::new(dir.path().to_str().unwrap()).unwrap();
    unsafe {
        let tb = fanotb_open(cdir.as_ptr());
        for (text, side) in [
            ("B4/WW3/WWWW1 w", fanotb::Color::White),
            ("B4/WW3/WWWW1 b", fanotb::Color::White),
            ("W4/BB3/BBBB1 b", fanotb::Color::Black),
            ("W4/BB3/BBBB1 w", fanotb::Color::Black),
        ] {
            let pos: fanotb::Position = text.parse().unwrap();
            let vela = fanotb::Vela::at(&pos, side, None).unwrap();
            let want = lib
                .probe(&pos, fanotb::Rules::PLAIN.with_vela(Some(vela)))
                .unwrap();
            let c = CString::new(text).unwrap();
            for lost in [-1, vela.lost() as c_int] {
                let (mut value, mut depth) = (9, 9);
                let code =
                    fanotb_probe_vela(tb, c.as_ptr(), side as c_int, lost, &mut value, &mut depth);
                assert_eq!(code, FANOTB_OK, "{text}");
                assert_eq!(value, [-1, 0, 1][want.wdl() as usize], "{text}");
                assert_eq!(depth, want.depth().map_or(-1, |d| d as c_int), "{text}");
            }
        }
        let c = CString::new("B4/WW3/WWWW1 w").unwrap();
        let (mut value, mut depth) = (9, 9);
        assert_eq!(
            fanotb_probe_vela(tb, c.as_ptr(), 0, 0, &mut value, &mut depth),
            FANOTB_EARG
        );
        let err = CStr::from_ptr(fanotb_last_error()).to_str().unwrap();
        assert!(err.contains("no table values this vela"), "{err}");
        for (side, lost) in [(2, -1), (0, -2)] {
            assert_eq!(
                fanotb_probe_vela(tb, c.as_ptr(), side, lost, &mut value, &mut depth),
                FANOTB_EARG
            );
        }
        fanotb_close(tb);
    }
}
