//! Which game a table values: the plain game, the game under a no-capture limit, or
//! the game under vela (docs/FORMAT.md, "Kinds of table").

use std::fmt;

use crate::index::Signature;
use crate::rules::board::Board;
use crate::rules::limit::Limit;
use crate::rules::vela::Vela;

/// The game a table values.
///
/// A vela table `NvM` values the positions where the side with more stones than
/// [`Vela::floor`] of its board plays vela, having lost its start count less its
/// stones (every stone it is missing was captured): the game as it comes from the
/// start. Exactly one side of a vela signature has more than the floor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TableKind {
    /// The game without a no-capture limit or vela.
    #[default]
    Plain,
    /// The game under a no-capture limit: rule-aware codes (docs/FORMAT.md).
    Limit(Limit),
    /// The game under vela, for the side above the floor.
    Vela,
}

/// The header word of a vela table (bit 8; a limit takes bits 0 to 7).
const VELA_WORD: u32 = 1 << 8;

impl TableKind {
    /// The no-capture limit of a rule-aware table.
    pub fn limit(self) -> Option<Limit> {
        match self {
            TableKind::Limit(n) => Some(n),
            _ => None,
        }
    }

    /// The subdirectory of the board's directory its tables live in: none for the
    /// plain ones, `nN` for a limit, `vela`.
    pub fn dir_name(self) -> Option<String> {
        match self {
            TableKind::Plain => None,
            TableKind::Limit(n) => Some(n.dir_name()),
            TableKind::Vela => Some("vela".into()),
        }
    }

    /// The kind of a subdirectory of a board's directory, from its name.
    pub(crate) fn of_dir_name(name: &str) -> Option<TableKind> {
        if name == "vela" {
            return Some(TableKind::Vela);
        }
        let n = Limit::new(name.strip_prefix('n')?.parse().ok()?).ok()?;
        (n.dir_name() == name).then_some(TableKind::Limit(n))
    }

    /// The header's rules word (docs/FORMAT.md): 0, the limit, or 256 for vela.
    pub(crate) fn word(self) -> u32 {
        match self {
            TableKind::Plain => 0,
            TableKind::Limit(n) => n.plies(),
            TableKind::Vela => VELA_WORD,
        }
    }

    /// The kind a header's rules word names.
    pub(crate) fn of_word(word: u32) -> Option<TableKind> {
        match word {
            0 => Some(TableKind::Plain),
            VELA_WORD => Some(TableKind::Vela),
            n => Limit::new(n as u64).ok().map(TableKind::Limit),
        }
    }

    /// Whether the kind has a table of `sig` on `board`: every signature for the
    /// plain game and a limit; under vela, those with exactly one side above the
    /// floor, and that side no larger than at the start.
    pub fn holds(self, board: &'static Board, sig: Signature) -> bool {
        match self {
            TableKind::Vela => {
                let floor = Vela::floor(board);
                let start = floor + Vela::stones_to_lose(board);
                let vela = sig.us.max(sig.them) as u32;
                (sig.us as u32 > floor) != (sig.them as u32 > floor) && vela <= start
            }
            _ => true,
        }
    }

    /// Under vela, whether the side to move of `sig` is the vela side.
    pub(crate) fn vela_to_move(self, board: &'static Board, sig: Signature) -> bool {
        self == TableKind::Vela && sig.us as u32 > Vela::floor(board)
    }

    /// The kind of the table a capture from a table of this kind leads to, with
    /// `to_move` stones for the side then to move (the side captured from): under
    /// vela, the plain game once the vela side is down to the floor.
    pub(crate) fn after_capture(self, board: &'static Board, to_move: u8) -> TableKind {
        match self {
            TableKind::Vela if to_move as u32 <= Vela::floor(board) => TableKind::Plain,
            k => k,
        }
    }

    /// The `generate` flag that builds tables of this kind, with a leading space.
    pub(crate) fn flag(self) -> String {
        match self {
            TableKind::Plain => String::new(),
            TableKind::Limit(n) => format!(" --no-capture-limit {n}"),
            TableKind::Vela => " --vela".into(),
        }
    }
}

impl From<Option<Limit>> for TableKind {
    fn from(limit: Option<Limit>) -> TableKind {
        limit.map_or(TableKind::Plain, TableKind::Limit)
    }
}

/// What follows a table's name in messages: nothing, ` under the no-capture limit
/// 60`, ` under vela`.
impl fmt::Display for TableKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableKind::Plain => Ok(()),
            TableKind::Limit(n) => write!(f, " under the no-capture limit {n}"),
            TableKind::Vela => write!(f, " under vela"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_directory_names_read_back() {
        let kinds = [
            TableKind::Plain,
            TableKind::Limit(Limit::new(1).unwrap()),
            TableKind::Limit(Limit::new(250).unwrap()),
            TableKind::Vela,
        ];
        for k in kinds {
            assert_eq!(TableKind::of_word(k.word()), Some(k));
            if let Some(name) = k.dir_name() {
                assert_eq!(TableKind::of_dir_name(&name), Some(k));
            }
        }
        for bad in [251, 255, 257, u32::MAX] {
            assert_eq!(TableKind::of_word(bad), None, "{bad}");
        }
        for bad in ["n0", "n07", "n251", "Vela", "n"] {
            assert_eq!(TableKind::of_dir_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn vela_signatures_have_one_side_above_five_on_tsivy() {
        let b = Board::tsivy();
        let held: Vec<String> = Signature::all_up_to(8)
            .into_iter()
            .filter(|&s| TableKind::Vela.holds(b, s))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(held, ["1v6", "6v1", "1v7", "2v6", "6v2", "7v1"]);
        assert!(TableKind::Vela.vela_to_move(b, Signature::new(6, 2)));
        assert!(!TableKind::Vela.vela_to_move(b, Signature::new(2, 6)));
        assert_eq!(TableKind::Vela.after_capture(b, 6), TableKind::Vela);
        assert_eq!(TableKind::Vela.after_capture(b, 5), TableKind::Plain);
    }
}
