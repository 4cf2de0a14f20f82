//! Storage codes: one `u16` per entry in memory, and the packed 2-bit values and
//! depth bytes of the two streams on disk. The only place that knows them.
//!
//! In memory 0 is a draw, `d + 1` a decided position at depth `d` (odd depth: win,
//! even: loss). A rule-aware table (a no-capture limit N) uses the same codes with
//! `d = 2T + 1` for a win and `2T` for a loss (T: plies to the next capture, see
//! `limit`), so the parity and the order of the codes still tell the value and the
//! urgency, plus two codes for draws decided without the limit: `CURSED` and
//! `BLESSED`.

use crate::rules::limit::{Limit, Limited};
use crate::rules::value::{Outcome, Wdl};

/// A table's codes, one `u16` an entry as above, read one at a time: a slice of
/// them, or the generator's working state, which holds them narrower.
pub(crate) trait Codes: Sync {
    /// The number of entries.
    fn len(&self) -> usize;
    /// The code of entry `i`.
    fn code(&self, i: usize) -> u16;
    /// The codes of entries `range`, in place of what `out` held: a block at a
    /// time, which a narrower holder can decode faster than entry by entry.
    fn codes_into(&self, range: std::ops::Range<usize>, out: &mut Vec<u16>) {
        out.clear();
        out.extend(range.map(|i| self.code(i)));
    }
    /// Every code, in a slice.
    #[cfg(any(test, feature = "mpi"))]
    fn to_vec(&self) -> Vec<u16> {
        use rayon::prelude::*;
        (0..self.len())
            .into_par_iter()
            .map(|i| self.code(i))
            .collect()
    }
}

impl Codes for [u16] {
    fn len(&self) -> usize {
        <[u16]>::len(self)
    }
    #[inline]
    fn code(&self, i: usize) -> u16 {
        self[i]
    }
}

/// A rule-aware table's code of a cursed win (drawn under the limit).
pub(crate) const CURSED: u16 = 0xffff;

/// A rule-aware table's code of a blessed loss (drawn under the limit).
pub(crate) const BLESSED: u16 = 0xfffe;

/// The in-memory code of a rule-aware value.
pub(crate) fn limited_code(v: Limited) -> u16 {
    match v {
        Limited::Win(t) => 2 * t as u16 + 2,
        Limited::Loss(t) => 2 * t as u16 + 1,
        Limited::Draw => 0,
        Limited::CursedWin => CURSED,
        Limited::BlessedLoss => BLESSED,
    }
}

/// The rule-aware value of a rule-aware table's code.
pub(crate) fn code_limited(code: u16) -> Limited {
    match code {
        0 => Limited::Draw,
        CURSED => Limited::CursedWin,
        BLESSED => Limited::BlessedLoss,
        c if c % 2 == 0 => Limited::Win(c as u32 / 2 - 1),
        c => Limited::Loss(c as u32 / 2),
    }
}

/// The 2-bit value code of the value stream of an in-memory code: 0 draw, 1 win
/// (an even code: odd depth), 2 loss. Without branches, since the writer packs
/// every entry (`code_wdl` is the reference, in the tests).
#[inline]
fn wdl_bits(code: u16) -> u8 {
    let decided = (code != 0 && code < BLESSED) as u8;
    decided * (1 + (code & 1) as u8)
}

/// The outcome an in-memory code stands for (0 draw, else depth + 1, the depth's
/// parity telling win from loss).
pub(crate) fn code_outcome(code: u16) -> Outcome {
    match (code_wdl(code), code_depth(code)) {
        (Wdl::Win, Some(d)) => Outcome::Win(d),
        (Wdl::Loss, Some(d)) => Outcome::Loss(d),
        _ => Outcome::Draw,
    }
}

/// The in-memory code of an outcome (depths beyond a code's range saturate).
pub(crate) fn outcome_code(o: Outcome) -> u16 {
    match o {
        Outcome::Draw => 0,
        Outcome::Win(d) | Outcome::Loss(d) => d.min(u16::MAX as u32 - 2) as u16 + 1,
    }
}

/// The value of an in-memory code.
#[inline]
pub(crate) fn code_wdl(code: u16) -> Wdl {
    if code == 0 || code >= BLESSED {
        Wdl::Draw
    } else if (code - 1) % 2 == 1 {
        Wdl::Win
    } else {
        Wdl::Loss
    }
}

/// The depth of a decided code (`None` for a draw).
#[inline]
pub(crate) fn code_depth(code: u16) -> Option<u32> {
    (code != 0 && code < BLESSED).then(|| code as u32 - 1)
}

pub(super) fn pack_wdl(codes: &[u16]) -> Vec<u8> {
    codes
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |b, (i, &code)| b | wdl_bits(code) << (2 * i))
        })
        .collect()
}

/// The value of entry `i` of a packed value block (`None` for the invalid code 3).
pub(crate) fn packed_wdl(block: &[u8], i: usize) -> Option<Wdl> {
    match block[i / 4] >> (2 * (i % 4)) & 3 {
        0 => Some(Wdl::Draw),
        1 => Some(Wdl::Win),
        2 => Some(Wdl::Loss),
        _ => None,
    }
}

/// The depth stream of a block: the depth (`u16`), or for a rule-aware table one
/// byte, T of a win or a loss and 0, 1 or 2 for a draw, a cursed win or a blessed
/// loss (a byte is 15% to 27% smaller than a `u16` once compressed: docs/FORMAT.md).
pub(super) fn depth_bytes(codes: &[u16], limit: Option<Limit>) -> Vec<u8> {
    match limit {
        None => {
            // Sized at once: a flattening iterator would grow the vector byte by byte.
            let mut out = vec![0; 2 * codes.len()];
            for (two, &c) in out.chunks_exact_mut(2).zip(codes) {
                two.copy_from_slice(&(code_depth(c).unwrap_or(0) as u16).to_le_bytes());
            }
            out
        }
        Some(_) => codes
            .iter()
            .map(|&c| match code_limited(c) {
                Limited::Win(t) | Limited::Loss(t) => t as u8,
                Limited::Draw => 0,
                Limited::CursedWin => 1,
                Limited::BlessedLoss => 2,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `u16`: the branch-free bits are `code_wdl`'s value.
    #[test]
    fn wdl_bits_are_the_value_of_every_code() {
        for code in 0..=u16::MAX {
            let plain = match code_wdl(code) {
                Wdl::Draw => 0,
                Wdl::Win => 1,
                Wdl::Loss => 2,
            };
            assert_eq!(wdl_bits(code), plain, "{code}");
        }
    }

    /// The streams of a block read back as its codes' values and depths, on a block
    /// whose length is not a multiple of four.
    #[test]
    fn streams_read_back_as_the_codes() {
        let codes: Vec<u16> = (0..1001u32).map(|i| (i * 7919 % 300) as u16).collect();
        let packed = pack_wdl(&codes);
        assert_eq!(packed.len(), codes.len().div_ceil(4));
        let depths = depth_bytes(&codes, None);
        assert_eq!(depths.len(), 2 * codes.len());
        for (i, &c) in codes.iter().enumerate() {
            assert_eq!(packed_wdl(&packed, i), Some(code_wdl(c)), "{i}");
            let d = u16::from_le_bytes([depths[2 * i], depths[2 * i + 1]]);
            assert_eq!(d as u32, code_depth(c).unwrap_or(0), "{i}");
        }
    }
}
