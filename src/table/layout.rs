//! Where the tables live (docs/FORMAT.md, "Files"): a directory per board and kind
//! of table, a file per signature, and its sidecars beside it. The one place that
//! knows the names; everything else asks here.

use std::path::{Path, PathBuf};

use crate::index::Signature;
use crate::rules::board::Board;
use crate::table::TableKind;

/// The extension of a table file.
pub(crate) const TABLE_EXTENSION: &str = "fntb";

/// The directory of a board's tables of a kind: `DIR/WxH`, `DIR/WxH/nN` for the
/// rule-aware tables of the limit N, `DIR/WxH/vela` for the vela tables.
pub(crate) fn tables_dir(dir: &Path, board: &Board, kind: TableKind) -> PathBuf {
    let plain = dir.join(board.size_name());
    match kind.dir_name() {
        Some(sub) => plain.join(sub),
        None => plain,
    }
}

/// The conventional path of a table: `DIR/WxH/NvM.fntb`, or `NvM.fntb` in the
/// kind's subdirectory (`nN`, `vela`).
pub fn table_path(dir: &Path, board: &Board, kind: TableKind, sig: Signature) -> PathBuf {
    tables_dir(dir, board, kind).join(format!("{sig}.{TABLE_EXTENSION}"))
}

/// Whether `path` names a table file (by its extension).
pub(crate) fn is_table_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some(TABLE_EXTENSION)
}

/// The class sidecar of a table file: `NvM.classes` beside `NvM.fntb`.
pub(crate) fn classes_path(table: &Path) -> PathBuf {
    table.with_extension("classes")
}

/// The depth sidecar of a table file: `NvM.depths` beside `NvM.fntb`.
pub(crate) fn depths_path(table: &Path) -> PathBuf {
    table.with_extension("depths")
}
