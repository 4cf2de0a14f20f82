//! The C ABI for engines: open a table directory, probe a position given as
//! position text, read the best move. Declared in `src/fanotb.h`.
//!
//! Every function takes NUL-terminated UTF-8 strings and returns a status: 0 on
//! success, a negative `FANOTB_E*` code on failure; `fanotb_last_error` then tells why
//! (per thread).

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};

use crate::position::Position;
use crate::probe::Tablebase;
use crate::value::Wdl;

pub const FANOTB_OK: c_int = 0;
/// A null pointer or a string that is not UTF-8.
pub const FANOTB_EARG: c_int = -1;
/// Malformed position text.
pub const FANOTB_EPOSITION: c_int = -2;
/// A table is missing, damaged, or the position is not covered.
pub const FANOTB_ETABLE: c_int = -3;
/// The buffer is too small.
pub const FANOTB_ESPACE: c_int = -4;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(code: c_int, msg: impl ToString) -> c_int {
    let msg = CString::new(msg.to_string().replace('\0', " ")).expect("no NUL left");
    LAST_ERROR.with(|e| *e.borrow_mut() = msg);
    code
}

/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char) -> Result<&'a str, c_int> {
    if s.is_null() {
        return Err(fail(FANOTB_EARG, "null string"));
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(s) }
        .to_str()
        .map_err(|_| fail(FANOTB_EARG, "string is not UTF-8"))
}

/// # Safety
/// `tb` is null or a handle from `fanotb_open` not yet closed; `pos` as in `text`.
unsafe fn args<'a>(
    tb: *const Tablebase,
    pos: *const c_char,
) -> Result<(&'a Tablebase, Position), c_int> {
    if tb.is_null() {
        return Err(fail(FANOTB_EARG, "null tablebase"));
    }
    // SAFETY: a live handle by the caller's contract.
    let tb = unsafe { &*tb };
    let pos = Position::parse_arg(unsafe { text(pos) }?).map_err(|e| fail(FANOTB_EPOSITION, e))?;
    Ok((tb, pos))
}

/// Opens a table directory; null on failure (see `fanotb_last_error`).
///
/// # Safety
/// `dir` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_open(dir: *const c_char) -> *mut Tablebase {
    let Ok(dir) = (unsafe { text(dir) }) else {
        return std::ptr::null_mut();
    };
    match Tablebase::open(dir) {
        Ok(tb) => Box::into_raw(Box::new(tb)),
        Err(e) => {
            fail(FANOTB_ETABLE, e);
            std::ptr::null_mut()
        }
    }
}

/// Closes a handle from `fanotb_open` (null is ignored).
///
/// # Safety
/// `tb` is null or a handle from `fanotb_open`, closed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_close(tb: *mut Tablebase) {
    if !tb.is_null() {
        // SAFETY: created by Box::into_raw in fanotb_open, closed once.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// Probes a position: `*value` is 1 win, 0 draw, -1 loss for the side to move,
/// `*depth` the plies to the end (-1 for a draw).
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `value` and `depth` valid
/// pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe(
    tb: *const Tablebase,
    position: *const c_char,
    value: *mut c_int,
    depth: *mut c_int,
) -> c_int {
    let (tb, pos) = match unsafe { args(tb, position) } {
        Ok(a) => a,
        Err(code) => return code,
    };
    if value.is_null() || depth.is_null() {
        return fail(FANOTB_EARG, "null output pointer");
    }
    match tb.probe(&pos) {
        Ok(o) => {
            // SAFETY: non-null, valid by the caller's contract.
            unsafe {
                *value = match o.wdl() {
                    Wdl::Win => 1,
                    Wdl::Draw => 0,
                    Wdl::Loss => -1,
                };
                *depth = o.depth().map_or(-1, |d| d as c_int);
            }
            FANOTB_OK
        }
        Err(e) => fail(FANOTB_ETABLE, e),
    }
}

/// Writes the best move in notation (NUL-terminated) into `buf` of `len` bytes; an
/// empty string when the side to move has no move.
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `buf` valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_best_move(
    tb: *const Tablebase,
    position: *const c_char,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    let (tb, pos) = match unsafe { args(tb, position) } {
        Ok(a) => a,
        Err(code) => return code,
    };
    if buf.is_null() {
        return fail(FANOTB_EARG, "null buffer");
    }
    let best = match tb.best_moves(&pos) {
        Ok(b) => b
            .first()
            .map(|m| m.mv.notation(pos.board()))
            .unwrap_or_default(),
        Err(e) => return fail(FANOTB_ETABLE, e),
    };
    if best.len() + 1 > len {
        return fail(FANOTB_ESPACE, format!("{} bytes needed", best.len() + 1));
    }
    // SAFETY: buf holds len >= best.len() + 1 bytes by the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(best.as_ptr(), buf as *mut u8, best.len());
        *buf.add(best.len()) = 0;
    }
    FANOTB_OK
}

/// The last error of this thread, as a NUL-terminated string owned by the library
/// (valid until the next call on this thread).
#[unsafe(no_mangle)]
pub extern "C" fn fanotb_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}
