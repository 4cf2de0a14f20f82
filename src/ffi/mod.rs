//! The C ABI for engines, declared in `src/ffi/fanotb.h`: open a table directory, probe
//! positions given as text or as stone bitboards (value only, or value and depth),
//! every root move's result, the best move, the largest complete table set, the
//! version; and the same under a no-capture limit, from the rule-aware tables.
//!
//! Every function returns a status: 0 on success, a negative `FANOTB_E*` code on
//! failure; `fanotb_last_error` then tells why (per thread). No panic crosses the
//! boundary: each entry point catches it and returns `FANOTB_EPANIC`.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{
    AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed},
};

use crate::probe::{ProbeError, Tablebase, Value};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;
use crate::table::TableError;

/// Success.
pub const FANOTB_OK: c_int = 0;
/// A null pointer, a string that is not UTF-8, or an unsupported board size.
pub const FANOTB_EARG: c_int = -1;
/// Malformed position text, or stone sets off the board or overlapping.
pub const FANOTB_EPOSITION: c_int = -2;
/// A table file is damaged or cannot be read.
pub const FANOTB_EDAMAGED: c_int = -3;
/// The buffer is too small.
pub const FANOTB_ESPACE: c_int = -4;
/// No table in the directory covers the position.
pub const FANOTB_EMISSING: c_int = -5;
/// The game is over: a side has no stones.
pub const FANOTB_EOVER: c_int = -6;
/// An internal error (a bug in fanotb): the call was abandoned, the handle is
/// still usable.
pub const FANOTB_EPANIC: c_int = -7;

/// Bytes of a move's notation in `fanotb_root_move`, NUL included.
pub const FANOTB_MOVE_LEN: usize = 64;

/// One root move's result, from the point of view of the side making it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fanotb_root_move {
    /// The move in notation, NUL-terminated.
    pub notation: [c_char; FANOTB_MOVE_LEN],
    /// 1 win, 0 draw, -1 loss for the side making the move.
    pub value: c_int,
    /// Plies to the end with best play, counting this move; -1 for a draw.
    pub depth: c_int,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(code: c_int, msg: impl ToString) -> c_int {
    let msg = CString::new(msg.to_string().replace('\0', " ")).expect("no NUL left");
    LAST_ERROR.with(|e| *e.borrow_mut() = msg);
    code
}

/// Runs an entry point's body, turning a panic into `FANOTB_EPANIC`.
fn guard(body: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|_| fail(FANOTB_EPANIC, "internal error in fanotb (please report it)"))
}

fn probe_error(e: ProbeError) -> c_int {
    let code = match e {
        ProbeError::Table(TableError::Missing { .. }) => FANOTB_EMISSING,
        ProbeError::GameOver(_) => FANOTB_EOVER,
        ProbeError::Table(_) | ProbeError::NotADirectory(_) => FANOTB_EDAMAGED,
        // A vela no table values: the arguments asked for it.
        ProbeError::Vela(_) => FANOTB_EARG,
    };
    fail(code, e)
}

fn wdl_int(w: Wdl) -> c_int {
    match w {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

fn depth_int(depth: Option<u32>) -> c_int {
    depth.map_or(-1, |d| d as c_int)
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

/// A handle of the C ABI (`fanotb_tablebase` in C): the tablebase behind a tag that
/// tells an open handle from a closed one. Closing drops the tablebase but keeps
/// this small allocation, so a call with a closed handle is an error, not undefined
/// behaviour.
pub struct Handle {
    tag: AtomicU64,
    tb: std::cell::UnsafeCell<std::mem::ManuallyDrop<Tablebase>>,
}

// SAFETY: the tablebase is Send + Sync (asserted below); the cell is written only
// by `fanotb_close`, which the contract forbids to run beside any other use.
unsafe impl Sync for Handle {}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Tablebase>();
};

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Handle({:#x})", self.tag.load(Relaxed))
    }
}

const OPEN: u64 = 0x4641_4e4f_5442_4f4b; // "FANOTBOK"
const CLOSED: u64 = 0x4641_4e4f_5442_4344; // "FANOTBCD"

/// # Safety
/// `tb` is null or a handle from `fanotb_open` (open or closed).
unsafe fn handle<'a>(tb: *const Handle) -> Result<&'a Tablebase, c_int> {
    if tb.is_null() {
        return Err(fail(FANOTB_EARG, "null tablebase"));
    }
    // SAFETY: a handle's allocation outlives its closing, by design.
    let h = unsafe { &*tb };
    match h.tag.load(Acquire) {
        // SAFETY: open, so the tablebase is alive and only read.
        OPEN => Ok(unsafe { &*h.tb.get() }),
        CLOSED => Err(fail(FANOTB_EARG, "the tablebase handle was closed")),
        _ => Err(fail(FANOTB_EARG, "not a tablebase handle")),
    }
}

/// # Safety
/// As `handle` and `text`.
unsafe fn args<'a>(
    tb: *const Handle,
    pos: *const c_char,
) -> Result<(&'a Tablebase, Position), c_int> {
    // SAFETY: forwarded contracts.
    let tb = unsafe { handle(tb) }?;
    // SAFETY: forwarded contract.
    let pos = Position::parse_arg(unsafe { text(pos) }?).map_err(|e| fail(FANOTB_EPOSITION, e))?;
    Ok((tb, pos))
}

/// A position from stone bitboards: bit `y * width + x` is the point (x, y), `a1`
/// bit 0; `black_to_move` 0 or 1.
fn from_bitboards(
    width: c_int,
    height: c_int,
    white: u64,
    black: u64,
    black_to_move: c_int,
) -> Result<Position, c_int> {
    let size = |v: c_int| usize::try_from(v).map_err(|_| fail(FANOTB_EARG, "negative board size"));
    let board = Board::get(size(width)?, size(height)?).map_err(|e| fail(FANOTB_EARG, e))?;
    if (white | black) & !board.all() != 0 {
        return Err(fail(FANOTB_EPOSITION, "stones off the board"));
    }
    let turn = match black_to_move {
        0 => Color::White,
        1 => Color::Black,
        _ => return Err(fail(FANOTB_EARG, "black_to_move is neither 0 nor 1")),
    };
    Position::new(board, white, black, turn).map_err(|e| fail(FANOTB_EPOSITION, e))
}

/// Writes through an output pointer checked for null.
///
/// # Safety
/// `out` is null or valid for a write.
unsafe fn put(out: *mut c_int, v: c_int) -> Result<(), c_int> {
    if out.is_null() {
        return Err(fail(FANOTB_EARG, "null output pointer"));
    }
    // SAFETY: non-null, valid by the caller's contract.
    unsafe { *out = v };
    Ok(())
}

fn status(r: Result<(), c_int>) -> c_int {
    r.err().unwrap_or(FANOTB_OK)
}

/// The rules of a C call about `pos`: the plain game, or a no-capture limit and
/// counter, checked as every front end checks them (`RulesRequest`).
fn rules(pos: &Position, asked: Option<(c_int, c_int)>) -> Result<Rules, c_int> {
    let Some((limit, counter)) = asked else {
        return Ok(Rules::PLAIN);
    };
    let limit = u64::try_from(limit).unwrap_or(0);
    let counter = u32::try_from(counter).map_err(|_| {
        fail(
            FANOTB_EARG,
            format!("counter {counter}: give 0 to the limit"),
        )
    })?;
    let asked = crate::request::RulesRequest {
        limit: Some(limit),
        counter: Some(counter),
        ..Default::default()
    };
    asked.rules(pos).map_err(|e| fail(FANOTB_EARG, e))
}

/// What a probe writes beside the value: nothing (a value probe reads only the
/// value stream), the depth, or under a no-capture limit T and the cursed flag.
#[derive(Clone, Copy)]
enum Ask {
    Value,
    Depth(*mut c_int),
    Limited {
        rules: (c_int, c_int),
        plies: *mut c_int,
        cursed: *mut c_int,
    },
    /// Under vela: the side (0 White, 1 Black) and the stones it has lost (-1 for
    /// those it is missing from its start), and where the depth goes.
    Vela {
        side: c_int,
        lost: c_int,
        depth: *mut c_int,
    },
}

/// The rules of a vela asked from C for `pos`.
fn vela_rules(pos: &Position, side: c_int, lost: c_int) -> Result<Rules, c_int> {
    let side = match side {
        0 => "white",
        1 => "black",
        s => {
            return Err(fail(
                FANOTB_EARG,
                format!("vela side {s}: 0 White, 1 Black"),
            ));
        }
    };
    let lost = match lost {
        -1 => None,
        n => Some(u32::try_from(n).map_err(|_| {
            fail(
                FANOTB_EARG,
                format!("stones lost {n}: 0 or more, or -1 for those missing"),
            )
        })?),
    };
    let asked = crate::request::RulesRequest {
        vela: Some(side),
        vela_lost: lost,
        ..Default::default()
    };
    asked.rules(pos).map_err(|e| fail(FANOTB_EARG, e))
}

/// Probes `pos` and writes what `ask` asks.
///
/// # Safety
/// `value` and the pointers of `ask` are null or valid for a write.
unsafe fn answer(tb: &Tablebase, pos: &Position, value: *mut c_int, ask: Ask) -> Result<(), c_int> {
    let rules = match ask {
        Ask::Limited { rules: r, .. } => rules(pos, Some(r))?,
        Ask::Vela { side, lost, .. } => vela_rules(pos, side, lost)?,
        Ask::Value | Ask::Depth(_) => Rules::PLAIN,
    };
    if let Ask::Value = ask {
        let w = tb.value(pos, rules).map_err(probe_error)?;
        // SAFETY: forwarded contract.
        return unsafe { put(value, wdl_int(w)) };
    }
    let v = tb.probe(pos, rules).map_err(probe_error)?;
    // SAFETY: forwarded contracts.
    unsafe {
        put(value, wdl_int(v.wdl()))?;
        match (ask, v) {
            (Ask::Depth(depth) | Ask::Vela { depth, .. }, _) => put(depth, depth_int(v.depth())),
            (Ask::Limited { plies, cursed, .. }, Value::Limited { stored, .. }) => {
                put(plies, depth_int(v.depth()))?;
                put(cursed, stored.cursed().into())
            }
            _ => Ok(()),
        }
    }
}

/// A probe from position text.
///
/// # Safety
/// As `args` and `answer`.
unsafe fn probe_text(
    tb: *const Handle,
    position: *const c_char,
    value: *mut c_int,
    ask: Ask,
) -> c_int {
    guard(|| {
        status((|| {
            // SAFETY: forwarded contracts.
            let (tb, pos) = unsafe { args(tb, position) }?;
            // SAFETY: forwarded contracts.
            unsafe { answer(tb, &pos, value, ask) }
        })())
    })
}

/// A probe from bitboards.
///
/// # Safety
/// As `handle` and `answer`.
unsafe fn probe_bitboards(
    tb: *const Handle,
    (width, height, white, black, black_to_move): (c_int, c_int, u64, u64, c_int),
    value: *mut c_int,
    ask: Ask,
) -> c_int {
    guard(|| {
        status((|| {
            // SAFETY: forwarded contract.
            let tb = unsafe { handle(tb) }?;
            let pos = from_bitboards(width, height, white, black, black_to_move)?;
            // SAFETY: forwarded contracts.
            unsafe { answer(tb, &pos, value, ask) }
        })())
    })
}

/// Opens a table directory; null on failure (see `fanotb_last_error`).
///
/// # Safety
/// `dir` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_open(dir: *const c_char) -> *mut Handle {
    let mut out = std::ptr::null_mut();
    guard(|| {
        // SAFETY: forwarded contract.
        let dir = match unsafe { text(dir) } {
            Ok(d) => d,
            Err(code) => return code,
        };
        match Tablebase::open(dir) {
            Ok(tb) => {
                out = Box::into_raw(Box::new(Handle {
                    tag: AtomicU64::new(OPEN),
                    tb: std::cell::UnsafeCell::new(std::mem::ManuallyDrop::new(tb)),
                }));
                FANOTB_OK
            }
            Err(e) => probe_error(e),
        }
    });
    out
}

/// Closes a handle from `fanotb_open`: its tables are released; null and a handle
/// already closed are ignored. The handle's few bytes stay allocated, so that a
/// later call with it fails with `FANOTB_EARG` instead of undefined behaviour.
///
/// # Safety
/// `tb` is null or a handle from `fanotb_open`, used by no other thread at the time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_close(tb: *mut Handle) {
    if tb.is_null() {
        return;
    }
    // SAFETY: a handle's allocation outlives its closing, by design.
    let h = unsafe { &*tb };
    if h.tag
        .compare_exchange(OPEN, CLOSED, AcqRel, Acquire)
        .is_ok()
    {
        guard(|| {
            // SAFETY: it was open and is now closed, by this call alone; no other
            // thread uses it (the contract), so this is the only access.
            unsafe { std::mem::ManuallyDrop::drop(&mut *h.tb.get()) };
            FANOTB_OK
        });
    }
}

/// Value and depth of a position given as text: `*value` 1 win, 0 draw, -1 loss for
/// the side to move; `*depth` the plies to the end (-1 for a draw).
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `value` and `depth` valid
/// pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe(
    tb: *const Handle,
    position: *const c_char,
    value: *mut c_int,
    depth: *mut c_int,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { probe_text(tb, position, value, Ask::Depth(depth)) }
}

/// The value only of a position given as text (reads only the tables' value
/// stream): `*value` 1 win, 0 draw, -1 loss for the side to move.
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `value` a valid pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_wdl(
    tb: *const Handle,
    position: *const c_char,
    value: *mut c_int,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { probe_text(tb, position, value, Ask::Value) }
}

/// Value and depth of a position given as stone bitboards (bit `y * width + x` is
/// the point (x, y), a1 is bit 0; `black_to_move` 0 or 1).
///
/// # Safety
/// `tb` a live handle, `value` and `depth` valid pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_bb(
    tb: *const Handle,
    width: c_int,
    height: c_int,
    white: u64,
    black: u64,
    black_to_move: c_int,
    value: *mut c_int,
    depth: *mut c_int,
) -> c_int {
    let stones = (width, height, white, black, black_to_move);
    // SAFETY: forwarded contracts.
    unsafe { probe_bitboards(tb, stones, value, Ask::Depth(depth)) }
}

/// The value only of a position given as stone bitboards (as `fanotb_probe_bb`).
///
/// # Safety
/// `tb` a live handle, `value` a valid pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_wdl_bb(
    tb: *const Handle,
    width: c_int,
    height: c_int,
    white: u64,
    black: u64,
    black_to_move: c_int,
    value: *mut c_int,
) -> c_int {
    let stones = (width, height, white, black, black_to_move);
    // SAFETY: forwarded contracts.
    unsafe { probe_bitboards(tb, stones, value, Ask::Value) }
}

/// Every legal move as (notation, value, depth) for the mover, best first: plain,
/// or under a no-capture limit at a counter (the depth is then T, the plies to the
/// next capture counting the move).
fn root_list(
    tb: &Tablebase,
    pos: &Position,
    rules_asked: Option<(c_int, c_int)>,
) -> Result<Vec<(String, c_int, c_int)>, c_int> {
    let b = pos.board();
    Ok(tb
        .moves(pos, rules(pos, rules_asked)?)
        .map_err(probe_error)?
        .iter()
        .map(|m| {
            let wdl = m.value.wdl();
            // Under a limit a move drawn at this counter still has a T: not shown.
            let depth = m.value.depth().filter(|_| wdl != Wdl::Draw);
            (m.mv.notation(b), wdl_int(wdl), depth_int(depth))
        })
        .collect())
}

/// Writes the root moves of `fanotb_probe_root` and `fanotb_probe_root_limited`.
///
/// # Safety
/// As `fanotb_probe_root`.
unsafe fn root_moves(
    tb: *const Handle,
    position: *const c_char,
    rules_asked: Option<(c_int, c_int)>,
    moves: *mut fanotb_root_move,
    cap: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        status((|| {
            // SAFETY: forwarded contracts.
            let (tb, pos) = unsafe { args(tb, position) }?;
            if count.is_null() {
                return Err(fail(FANOTB_EARG, "null count pointer"));
            }
            let list = root_list(tb, &pos, rules_asked)?;
            // SAFETY: non-null, valid by the caller's contract.
            unsafe { *count = list.len() };
            if list.len() > cap {
                return Err(fail(FANOTB_ESPACE, format!("{} moves", list.len())));
            }
            if moves.is_null() && !list.is_empty() {
                return Err(fail(FANOTB_EARG, "null moves pointer"));
            }
            for (i, (text, value, depth)) in list.into_iter().enumerate() {
                let mut notation = [0 as c_char; FANOTB_MOVE_LEN];
                // Notation is at most 3 characters a point and never near 63.
                for (d, b) in notation
                    .iter_mut()
                    .zip(text.bytes().take(FANOTB_MOVE_LEN - 1))
                {
                    *d = b as c_char;
                }
                let r = fanotb_root_move {
                    notation,
                    value,
                    depth,
                };
                // SAFETY: i < list.len() <= cap, and `moves` holds cap elements.
                unsafe { moves.add(i).write(r) };
            }
            Ok(())
        })())
    })
}

/// Every legal move of a position given as text with its result, best first, into
/// `moves` (room for `cap`); `*count` is the number of legal moves. When `cap` is
/// smaller, nothing is written but `*count`, and the status is `FANOTB_ESPACE`.
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `moves` valid for `cap`
/// elements (or null with `cap` 0), `count` a valid pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_root(
    tb: *const Handle,
    position: *const c_char,
    moves: *mut fanotb_root_move,
    cap: usize,
    count: *mut usize,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { root_moves(tb, position, None, moves, cap, count) }
}

/// Writes the best move of `fanotb_best_move` and `fanotb_best_move_limited`.
///
/// # Safety
/// As `fanotb_best_move`.
unsafe fn best_move(
    tb: *const Handle,
    position: *const c_char,
    rules_asked: Option<(c_int, c_int)>,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    guard(|| {
        status((|| {
            // SAFETY: forwarded contracts.
            let (tb, pos) = unsafe { args(tb, position) }?;
            if buf.is_null() {
                return Err(fail(FANOTB_EARG, "null buffer"));
            }
            // The same answer as a probe for a finished game, from the tables the
            // moves are read from: plain or rule-aware.
            tb.value(&pos, rules(&pos, rules_asked)?)
                .map_err(probe_error)?;
            let best = root_list(tb, &pos, rules_asked)?
                .into_iter()
                .next()
                .map(|(notation, _, _)| notation)
                .unwrap_or_default();
            if best.len() + 1 > len {
                return Err(fail(
                    FANOTB_ESPACE,
                    format!("{} bytes needed", best.len() + 1),
                ));
            }
            // SAFETY: buf holds len >= best.len() + 1 bytes by the caller's contract.
            unsafe {
                std::ptr::copy_nonoverlapping(best.as_ptr(), buf as *mut u8, best.len());
                *buf.add(best.len()) = 0;
            }
            Ok(())
        })())
    })
}

/// Writes the best move in notation (NUL-terminated) into `buf` of `len` bytes; an
/// empty string when the side to move has stones but no move (it has lost).
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `buf` valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_best_move(
    tb: *const Handle,
    position: *const c_char,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { best_move(tb, position, None, buf, len) }
}

/// Value and depth of a position given as text under vela (docs/RULES.md,
/// "Vela"), from the vela tables while the vela holds: `vela` 0 when White plays
/// vela, 1 when Black does; `lost` the stones the vela side has lost so far, or -1
/// for those it is missing from its start. Outputs as `fanotb_probe`. A vela no
/// table values (another count of stones lost) is `FANOTB_EARG`.
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, `value` and `depth` valid
/// pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_vela(
    tb: *const Handle,
    position: *const c_char,
    vela: c_int,
    lost: c_int,
    value: *mut c_int,
    depth: *mut c_int,
) -> c_int {
    let ask = Ask::Vela {
        side: vela,
        lost,
        depth,
    };
    // SAFETY: forwarded contracts.
    unsafe { probe_text(tb, position, value, ask) }
}

/// Under the no-capture limit `limit` (1 to 250 plies), `counter` plies (0 to the
/// limit) after the last capture, from the rule-aware tables: `*value` 1 win, 0
/// draw, -1 loss for the side to move at that counter; `*plies_to_capture` T, the
/// plies to the next capture that keeps a win or loss (-1 for a draw at counter 0);
/// `*cursed` 1 for a cursed win or blessed loss (drawn under the limit, decided
/// without it), else 0.
///
/// # Safety
/// `tb` a live handle, `position` a NUL-terminated string, the outputs valid pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_limited(
    tb: *const Handle,
    position: *const c_char,
    limit: c_int,
    counter: c_int,
    value: *mut c_int,
    plies_to_capture: *mut c_int,
    cursed: *mut c_int,
) -> c_int {
    let ask = Ask::Limited {
        rules: (limit, counter),
        plies: plies_to_capture,
        cursed,
    };
    // SAFETY: forwarded contracts.
    unsafe { probe_text(tb, position, value, ask) }
}

/// `fanotb_probe_limited` for a position given as stone bitboards (as
/// `fanotb_probe_bb`).
///
/// # Safety
/// `tb` a live handle, the outputs valid pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_limited_bb(
    tb: *const Handle,
    width: c_int,
    height: c_int,
    white: u64,
    black: u64,
    black_to_move: c_int,
    limit: c_int,
    counter: c_int,
    value: *mut c_int,
    plies_to_capture: *mut c_int,
    cursed: *mut c_int,
) -> c_int {
    let stones = (width, height, white, black, black_to_move);
    let ask = Ask::Limited {
        rules: (limit, counter),
        plies: plies_to_capture,
        cursed,
    };
    // SAFETY: forwarded contracts.
    unsafe { probe_bitboards(tb, stones, value, ask) }
}

/// `fanotb_probe_root` under the no-capture limit at `counter`: each move's value
/// for the mover at the counter it leads to (0 after a capture, one more after a
/// paika), and as its depth the plies to the next capture counting the move (-1 for
/// a draw). At the limit the game is over: no move.
///
/// # Safety
/// As `fanotb_probe_root`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_probe_root_limited(
    tb: *const Handle,
    position: *const c_char,
    limit: c_int,
    counter: c_int,
    moves: *mut fanotb_root_move,
    cap: usize,
    count: *mut usize,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { root_moves(tb, position, Some((limit, counter)), moves, cap, count) }
}

/// `fanotb_best_move` under the no-capture limit at `counter`: a winner's move that
/// captures soonest, a loser's that delays most; "" when there is none (no move, or
/// the counter has reached the limit).
///
/// # Safety
/// As `fanotb_best_move`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_best_move_limited(
    tb: *const Handle,
    position: *const c_char,
    limit: c_int,
    counter: c_int,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded contracts.
    unsafe { best_move(tb, position, Some((limit, counter)), buf, len) }
}

/// The largest N such that the directory holds every table of the board with at
/// most N stones (each side at least one), or 0; a negative status on failure.
///
/// # Safety
/// `tb` a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanotb_largest(tb: *const Handle, width: c_int, height: c_int) -> c_int {
    guard(|| {
        // SAFETY: forwarded contract.
        let tb = match unsafe { handle(tb) } {
            Ok(tb) => tb,
            Err(code) => return code,
        };
        let board = match (usize::try_from(width), usize::try_from(height)) {
            (Ok(w), Ok(h)) => match Board::get(w, h) {
                Ok(b) => b,
                Err(e) => return fail(FANOTB_EARG, e),
            },
            _ => return fail(FANOTB_EARG, "negative board size"),
        };
        match tb.largest(board) {
            Ok(n) => n as c_int,
            Err(e) => probe_error(e),
        }
    })
}

/// The library's version, a static NUL-terminated string (`"0.1.0"`).
#[unsafe(no_mangle)]
pub extern "C" fn fanotb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The last error of this thread, as a NUL-terminated string owned by the library
/// (valid until the next call on this thread; do not free it).
#[unsafe(no_mangle)]
pub extern "C" fn fanotb_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}
