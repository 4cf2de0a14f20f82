//! The smaller tables a pair's captures lead to, decoded into memory.

use std::collections::HashMap;
use std::path::Path;

use crate::board::Board;
use crate::index::Signature;
use crate::limit::Limit;
use crate::table::{Decoded, Table};

use super::options::GenerateError;

/// The smaller tables a pair reads, decoded, and their file checksums.
pub(crate) type SmallerTables = (HashMap<Signature, Decoded>, Vec<(Signature, u64)>);

/// Loads every smaller table the pair's captures lead to; also returns their file
/// checksums, in signature order.
pub(crate) fn load_smaller_tables(
    dir: &Path,
    board: &'static Board,
    limit: Option<Limit>,
    sigs: &[Signature],
) -> Result<SmallerTables, GenerateError> {
    let mut deps = HashMap::new();
    let mut sums = Vec::new();
    for &s in sigs {
        for d in capture_deps(s) {
            if deps.contains_key(&d) {
                continue;
            }
            let table = Table::open(dir, board, limit, d)?;
            sums.push((d, table.file.file_checksum()));
            deps.insert(d, table.decode()?);
        }
    }
    sums.sort();
    Ok((deps, sums))
}

/// Signatures a signature's captures lead to (with the opponent to move), excluding
/// the empty side.
pub(crate) fn capture_deps(sig: Signature) -> impl Iterator<Item = Signature> {
    (1..sig.them).map(move |left| Signature::new(left, sig.us))
}
