//! The C ABI, called as a C program would.

use std::ffi::{CStr, CString, c_char, c_int};

use fanotb::Board;
use fanotb::ffi::*;
use fanotb::index::Signature;
use fanotb::retro::{Options, generate};

#[test]
fn c_abi_probe_and_best_move() {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        Board::tsivy(),
        &Signature::all_up_to(3),
        &Options::default(),
        |_| {},
    )
    .unwrap();
    let cdir = CString::new(dir.path().to_str().unwrap()).unwrap();
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
            FANOTB_ETABLE
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
