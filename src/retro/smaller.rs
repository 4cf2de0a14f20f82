//! The smaller tables a pair's captures lead to, decoded into memory.

use std::collections::HashMap;
use std::path::Path;

use crate::index::Signature;
use crate::rules::board::Board;
use crate::table::{Decoded, Table, TableKind};

use super::options::GenerateError;

/// The smaller tables a pair reads, decoded, and their file checksums.
pub(crate) type SmallerTables = (HashMap<Signature, Decoded>, Vec<(Signature, u64)>);

/// Loads every smaller table the pair's captures lead to; also returns their file
/// checksums, in signature order. A signature names one table: under vela the
/// side to move after a capture is the one captured from, so its stones tell
/// whether its vela still holds.
pub(crate) fn load_smaller_tables(
    dir: &Path,
    board: &'static Board,
    kind: TableKind,
    sigs: &[Signature],
) -> Result<SmallerTables, GenerateError> {
    let mut deps = HashMap::new();
    let mut sums = Vec::new();
    for &s in sigs {
        for (d, k) in capture_deps(board, kind, s) {
            if deps.contains_key(&d) {
                continue;
            }
            let table = Table::open(dir, board, k, d)?;
            sums.push((d, table.file.file_checksum()));
            deps.insert(d, table.decode()?);
        }
    }
    sums.sort();
    Ok((deps, sums))
}

/// The tables a table of `kind` and `sig` reads its captures from (with the
/// opponent to move), excluding the empty side, and their kinds. A vela side to
/// move captures nothing; the other side's captures may end the vela.
pub(crate) fn capture_deps(
    board: &'static Board,
    kind: TableKind,
    sig: Signature,
) -> impl Iterator<Item = (Signature, TableKind)> {
    let none = kind.vela_to_move(board, sig);
    (1..sig.them).filter(move |_| !none).map(move |left| {
        (
            Signature::new(left, sig.us),
            kind.after_capture(board, left),
        )
    })
}
