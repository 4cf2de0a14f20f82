//! The probe API: value, depth, every move's value, best moves, principal line.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use thiserror::Error;

use crate::index::{Indexer, Signature};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::limit::{Limit, Limited};
use crate::rules::movegen::Move;
use crate::rules::position::{Color, Position};
use crate::rules::value::{Outcome, Wdl};
use crate::rules::vela::Vela;
use crate::table::depths::DepthHistogram;
use crate::table::{Stats, Table, TableError, TableKind, packed_wdl};

/// Why a probe has no answer.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The position is over: the named side has no stones.
    #[error("not a game position: {0} has no stones, the game is already over")]
    GameOver(&'static str),
    /// A table the probe needs is missing, damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The table directory is not a directory.
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// The position is under a vela that the vela tables do not value: one with
    /// another count of stones lost than a game from the start gives, or under a
    /// no-capture limit too.
    #[error(
        "no table values this vela: {0}; the vela tables hold a side that has lost the stones it is missing, without a no-capture limit"
    )]
    Vela(Vela),
}

/// Table slots per board: one per signature NvM, N and M below 64.
const SLOTS: usize = 64 * 64;

/// One board's tables, by signature, each opened once.
type BoardSlots = Box<[OnceLock<Box<Opened>>]>;

/// A table a `Tablebase` has opened, with its depth histogram once asked for (a
/// table without a sidecar is decoded once).
struct Opened {
    table: Table,
    depths: OnceLock<DepthHistogram>,
}

/// A directory of tables. Files open lazily on first use; safe to share across
/// threads, and a probe of an open table takes no lock: each board has a row of
/// once-set slots, one per signature.
///
/// # Files are memory-mapped
/// A table file must not be truncated or rewritten in place while a `Tablebase`
/// has it open: the operating system then ends the process (SIGBUS) when a probe
/// touches a page that is gone. fanotb's own writer never does this (it writes a
/// new file and renames it over the name); replacing tables by `cp` over open
/// files, or a disk that is unmounted under the process, breaks the contract.
/// Every read is bounds-checked and checksummed, so a file that is damaged, but
/// not changed while mapped, is an error, never a crash.
///
/// ```
/// use fanotb::{Board, Options, Position, Rules, Signature, Tablebase, Wdl, generate};
/// let dir = tempfile::tempdir()?;
/// generate(dir.path(), Board::get(3, 3)?, &Signature::all_up_to(3), &Options::default(), |_| {})?;
/// let tb = Tablebase::open(dir.path())?;
/// let pos: Position = "1B1/3/W1W w".parse()?; // 2v1
/// assert_eq!(tb.value(&pos, Rules::PLAIN)?, Wdl::Win);
/// let beyond: Position = "BB1/3/W1W w".parse()?; // 2v2: not built
/// assert!(tb.value(&beyond, Rules::PLAIN).unwrap_err().to_string().contains("no table 2v2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Tablebase {
    dir: PathBuf,
    /// Per kind of table (`kind_row`), then per board size ((W - 3) / 2 * 4 +
    /// (H - 3) / 2), the slots of its tables; a kind's row is made on its first
    /// probe.
    boards: Box<[OnceLock<KindRow>]>,
}

/// One kind's tables, per board size.
type KindRow = Box<[OnceLock<BoardSlots>; 16]>;

/// The row of a kind of table: 0 plain, N the no-capture limit N, then vela.
fn kind_row(kind: TableKind) -> usize {
    match kind {
        TableKind::Vela => Limit::MAX as usize + 1,
        k => k.limit().map_or(0, Limit::plies) as usize,
    }
}

/// A table of a `Tablebase`'s directory.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TableInfo {
    /// Its board.
    pub board: &'static Board,
    /// Its material.
    pub signature: Signature,
    /// The game it values.
    pub kind: TableKind,
    /// Its file.
    pub path: PathBuf,
    /// The counts its header holds.
    pub stats: Stats,
    /// Its file's size in bytes.
    pub bytes: u64,
    /// A position of the longest win, White to move, when the table holds a win.
    pub longest_win: Option<Position>,
}

/// A position's value for the side to move, as the tables give it under the rules
/// it was asked under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Value {
    /// The plain game: win, draw or loss with its depth.
    Plain(Outcome),
    /// Under a no-capture limit: the rule-aware table's value (at counter 0, with
    /// T), read at `counter`.
    Limited {
        /// The value the rule-aware table stores.
        stored: Limited,
        /// The limit.
        limit: Limit,
        /// The counter it is read at.
        counter: u32,
    },
}

impl Value {
    /// Win, draw or loss (under a limit: at the counter).
    pub fn wdl(self) -> Wdl {
        match self {
            Value::Plain(o) => o.wdl(),
            Value::Limited {
                stored,
                limit,
                counter,
            } => stored.at(limit, counter),
        }
    }

    /// Plies to the end with best play (plain), or T, the plies to the next capture
    /// that keeps a win or a loss (under a limit; also for a position drawn only at
    /// this counter); `None` for a draw.
    pub fn depth(self) -> Option<u32> {
        match self {
            Value::Plain(o) => o.depth(),
            Value::Limited { stored, .. } => stored.plies_to_capture(),
        }
    }

    /// Sort key: best for the side to move first (fast wins, draws, slow losses;
    /// under a limit by T). Among draws under a limit, those won without the limit
    /// come first and those lost last, so that a player holding a cursed win keeps
    /// chances should the opponent err.
    fn rank(self) -> (u8, i64) {
        match self {
            Value::Plain(o) => o.rank(),
            Value::Limited { stored, .. } => {
                let t = stored.plies_to_capture().unwrap_or(0) as i64;
                match self.wdl() {
                    Wdl::Win => (0, t),
                    Wdl::Draw => match stored {
                        Limited::Win(_) | Limited::CursedWin => (1, 0),
                        Limited::Draw => (1, 1),
                        Limited::Loss(_) | Limited::BlessedLoss => (1, 2),
                    },
                    Wdl::Loss => (2, -t),
                }
            }
        }
    }
}

/// `win in 5`, `draw`; under a limit as the stored value: `win, capture in 5`,
/// `cursed win`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Plain(o) => o.fmt(f),
            Value::Limited { stored, .. } => stored.fmt(f),
        }
    }
}

/// A move with the value it leads to, from the mover's point of view.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value for the side that made it, counting the move as one ply (under a
    /// limit: read at the counter before the move, T counting the move, 1 for a
    /// capture).
    pub value: Value,
    /// The position after it.
    pub result: Position,
    /// The rules of the position after it (under a limit: the counter is 0 after a
    /// capture, one more after a paika).
    pub rules: Rules,
}

/// Shows the directory and how many tables are open, not the tables.
impl fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let open = self
            .boards
            .iter()
            .filter_map(|limit| limit.get())
            .flat_map(|limit| limit.iter().filter_map(|row| row.get()))
            .map(|row| row.iter().filter(|slot| slot.get().is_some()).count())
            .sum::<usize>();
        f.debug_struct("Tablebase")
            .field("dir", &self.dir)
            .field("open_tables", &open)
            .finish()
    }
}

impl Tablebase {
    /// A tablebase over the directory `dir`; no table is opened until a probe needs it.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(ProbeError::NotADirectory(dir));
        }
        Ok(Tablebase {
            dir,
            boards: (0..=kind_row(TableKind::Vela))
                .map(|_| OnceLock::new())
                .collect(),
        })
    }

    /// Sets how many bytes of decompressed blocks each thread keeps, for every
    /// `Tablebase` of the process (default 16 MiB; 0 keeps none). A probe whose
    /// block is cached skips its decompression (an 8 KiB value block, a 64 KiB
    /// depth block): random probes over tables larger than the cache mostly
    /// decompress, so a server probing at random gains from a cache that holds
    /// the tables' blocks (docs/guide/serve.md).
    pub fn set_cache_per_thread(bytes: usize) {
        crate::table::set_cache_bytes(bytes);
    }

    /// Sets how many bytes of decompressed blocks all threads of the process keep
    /// together (default: no bound beyond each thread's). A server whose threads
    /// come and go sets it, so that its memory is bounded whatever the load; a
    /// thread that would go over keeps fewer blocks, or none.
    pub fn set_cache_total(bytes: usize) {
        crate::table::set_process_cache_bytes(bytes);
    }

    /// The bytes of decompressed blocks all threads of the process keep now (at
    /// most the total set by [`Tablebase::set_cache_total`]; a thread that ends
    /// gives its blocks back).
    pub fn cached_bytes() -> usize {
        crate::table::process_cache_bytes()
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn table(
        &self,
        board: &'static Board,
        kind: TableKind,
        sig: Signature,
    ) -> Result<&Opened, ProbeError> {
        let row = self.boards[kind_row(kind)]
            .get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())))
            [(board.width() - 3) / 2 * 4 + (board.height() - 3) / 2]
            .get_or_init(|| (0..SLOTS).map(|_| OnceLock::new()).collect());
        let slot = &row[sig.us as usize % 64 * 64 + sig.them as usize % 64];
        if let Some(t) = slot.get() {
            return Ok(t);
        }
        let loaded = Box::new(Opened {
            table: Table::open(&self.dir, board, kind, sig)?,
            depths: OnceLock::new(),
        });
        // Two threads may both open the file; the first to set the slot wins.
        Ok(slot.get_or_init(|| loaded))
    }

    /// Every table in the directory with the figures its header holds, sorted by
    /// board, then kind (plain tables first, then by limit, then vela), then
    /// stones, then signature.
    ///
    /// # Errors
    /// The directory cannot be read, or a table file cannot be opened.
    pub fn tables(&self) -> Result<Vec<TableInfo>, ProbeError> {
        self.list()?
            .into_iter()
            .map(|(board, kind, sig, path)| {
                // Through the slots probes use: a server listing its tables again
                // and again opens each file once.
                let Table { idx, file } = &self.table(board, kind, sig)?.table;
                let stats = file.header().stats;
                let longest_win = (stats.wins > 0).then(|| {
                    let (us, them) = idx.unrank(stats.longest_win);
                    Position::from_sides(board, us, them, Color::White)
                });
                Ok(TableInfo {
                    board,
                    signature: sig,
                    kind,
                    path,
                    stats,
                    bytes: file.file_size(),
                    longest_win,
                })
            })
            .collect()
    }

    /// How many placements of a table are won and lost at each depth (each T, for a
    /// rule-aware table): read from the sidecar the generator writes beside the
    /// table, or, where that is missing or does not match the table, counted by
    /// decoding the table.
    ///
    /// # Errors
    /// The table is missing, damaged or unreadable.
    pub fn depths(
        &self,
        board: &'static Board,
        kind: TableKind,
        sig: Signature,
    ) -> Result<DepthHistogram, ProbeError> {
        let opened = self.table(board, kind, sig)?;
        if let Some(h) = opened.depths.get() {
            return Ok(h.clone());
        }
        let h = crate::table::depths::histogram(&opened.table, board, kind, false)?;
        Ok(opened.depths.get_or_init(|| h).clone())
    }

    /// Every table file in the directory, as (board, kind, signature, path), sorted.
    pub(crate) fn list(&self) -> Result<Vec<Listed>, ProbeError> {
        let io = |e: std::io::Error| TableError::Io {
            path: self.dir.clone(),
            source: e,
        };
        let mut out = Vec::new();
        for sub in std::fs::read_dir(&self.dir).map_err(io)? {
            let sub = sub.map_err(io)?.path();
            let Some(board) = sub
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| Board::by_name(n).ok())
            else {
                continue;
            };
            for f in std::fs::read_dir(&sub).map_err(io)? {
                let f = f.map_err(io)?.path();
                let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
                // Rule-aware and vela tables: `nN` and `vela` subdirectories.
                let kind = TableKind::of_dir_name(name).filter(|_| f.is_dir());
                if let Some(kind) = kind {
                    for g in std::fs::read_dir(&f).map_err(io)? {
                        let g = g.map_err(io)?.path();
                        if let Some(sig) = table_signature(&g) {
                            out.push((board, kind, sig, g));
                        }
                    }
                } else if let Some(sig) = table_signature(&f) {
                    out.push((board, TableKind::Plain, sig, f));
                }
            }
        }
        out.sort_by_key(|(b, n, s, _)| (b.points(), b.width(), *n, s.stones(), *s));
        Ok(out)
    }

    /// The largest N such that the directory holds every table of `board` with at
    /// most N stones (each side at least one); 0 when even 1v1 is missing.
    pub fn largest(&self, board: &'static Board) -> Result<usize, ProbeError> {
        let have: std::collections::HashSet<Signature> = self
            .list()?
            .into_iter()
            .filter(|(b, k, _, _)| *b == board && *k == TableKind::Plain)
            .map(|(_, _, s, _)| s)
            .collect();
        let complete = |total: usize| {
            (1..total).all(|u| have.contains(&Signature::new(u as u8, (total - u) as u8)))
        };
        Ok((2..=board.points())
            .take_while(|&t| complete(t))
            .last()
            .unwrap_or(0))
    }

    fn locate(&self, pos: &Position, kind: TableKind) -> Result<(&Table, u64), ProbeError> {
        if let Some(side) = pos.side_without_stones() {
            return Err(ProbeError::GameOver(side.name()));
        }
        let (us, them) = (pos.us(), pos.them());
        let t = &self
            .table(pos.board(), kind, Signature::of(us, them))?
            .table;
        let i = t.idx.index(us, them);
        Ok((t, i))
    }

    /// Win, draw or loss for the side to move under `rules` (a plain probe reads
    /// only the value stream).
    ///
    /// # Errors
    /// The position is over (a side has no stones), or its table is missing or
    /// damaged.
    pub fn value(&self, pos: &Position, rules: Rules) -> Result<Wdl, ProbeError> {
        match table_kind(pos, rules)? {
            TableKind::Limit(_) => Ok(self.probe(pos, rules)?.wdl()),
            kind => {
                let (t, i) = self.locate(pos, kind)?;
                Ok(t.file.wdl(i)?)
            }
        }
    }

    /// The value for the side to move under `rules`, with its depth (plain) or T
    /// and the stored rule-aware value (under a limit).
    ///
    /// # Errors
    /// As [`Tablebase::value`].
    pub fn probe(&self, pos: &Position, rules: Rules) -> Result<Value, ProbeError> {
        Ok(match rules.limit() {
            None => Value::Plain(self.outcome(pos, rules)?),
            Some(limit) => Value::Limited {
                stored: self.limited(pos, limit)?,
                limit,
                counter: rules.counter(),
            },
        })
    }

    /// The value and depth without a no-capture limit: from the plain table, or the
    /// vela table while the vela holds.
    pub(crate) fn outcome(&self, pos: &Position, rules: Rules) -> Result<Outcome, ProbeError> {
        let (t, i) = self.locate(pos, table_kind(pos, rules.without_limit())?)?;
        Ok(t.file.outcome(i)?)
    }

    /// The rule-aware table's value of `limit` (at counter 0, with T).
    pub(crate) fn limited(&self, pos: &Position, limit: Limit) -> Result<Limited, ProbeError> {
        let (t, i) = self.locate(pos, TableKind::Limit(limit))?;
        Ok(t.file.limited(i)?)
    }

    /// Every legal move with its value for the mover, best first (stable order
    /// among equals). Under a limit at the limit the game is over: no move.
    ///
    /// # Errors
    /// As [`Tablebase::value`], for the position or a successor.
    pub fn moves(&self, pos: &Position, rules: Rules) -> Result<Vec<MoveValue>, ProbeError> {
        if let Some(side) = pos.side_without_stones() {
            return Err(ProbeError::GameOver(side.name()));
        }
        table_kind(pos, rules)?;
        if rules.at_limit() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for mv in rules.legal_moves(pos) {
            let result = pos.apply(&mv);
            let after = rules.after(pos, &mv);
            let value = match rules.limit() {
                None if result.us() == 0 => Value::Plain(Outcome::Win(1)),
                None => Value::Plain(self.outcome(&result, after)?.for_mover()),
                Some(limit) => Value::Limited {
                    stored: if result.us() == 0 {
                        Limited::Win(1)
                    } else if mv.is_capture() {
                        self.limited(&result, limit)?.after_capture()
                    } else {
                        self.limited(&result, limit)?.for_mover()
                    },
                    limit,
                    counter: rules.counter(),
                },
            };
            out.push(MoveValue {
                rules: after,
                mv,
                value,
                result,
            });
        }
        out.sort_by_key(|m| m.value.rank());
        Ok(out)
    }

    /// The moves that keep the position's value with the best depth (under a
    /// limit, the best T: a winner captures soonest, a loser delays most).
    ///
    /// # Errors
    /// As [`Tablebase::moves`].
    pub fn best_moves(&self, pos: &Position, rules: Rules) -> Result<Vec<MoveValue>, ProbeError> {
        let mut moves = self.moves(pos, rules)?;
        moves.truncate(best_count(&moves));
        Ok(moves)
    }

    /// The principal line: best moves (the first of equals) until the game ends. A
    /// position drawn under `rules` has no end; its line is empty.
    ///
    /// # Errors
    /// As [`Tablebase::moves`], for any position of the line.
    pub fn line(&self, pos: &Position, rules: Rules) -> Result<Vec<MoveValue>, ProbeError> {
        let mut line = Vec::new();
        let (mut cur, mut rules) = (*pos, rules);
        if self.value(&cur, rules)? == Wdl::Draw {
            return Ok(line);
        }
        while !rules.is_lost(&cur) {
            let step = self
                .best_moves(&cur, rules)?
                .into_iter()
                .next()
                .expect("a decided position, not lost, has a move");
            (cur, rules) = (step.result, step.rules);
            line.push(step);
            if cur.us() == 0 {
                break;
            }
        }
        Ok(line)
    }
}

/// The kind of table that values `pos` under `rules`: a vela that has ended is the
/// game without it; one that holds has tables only as a game from the start
/// gives it, and without a no-capture limit.
fn table_kind(pos: &Position, rules: Rules) -> Result<TableKind, ProbeError> {
    match (rules.active_vela(pos.board()), rules.limit()) {
        (None, limit) => Ok(limit.into()),
        (Some(v), None) if v.tabled(pos) => Ok(TableKind::Vela),
        (Some(v), _) => Err(ProbeError::Vela(v)),
    }
}

/// How many moves at the front of a best-first list (as [`Tablebase::moves`] gives
/// it) share the best value and depth.
pub fn best_count(moves: &[MoveValue]) -> usize {
    moves.first().map_or(0, |b| {
        moves
            .iter()
            .take_while(|m| m.value.rank() == b.value.rank())
            .count()
    })
}

/// A table file's signature, from its name `NvM.fntb`.
fn table_signature(path: &Path) -> Option<Signature> {
    if !crate::table::layout::is_table_file(path) {
        return None;
    }
    path.file_stem()?.to_str()?.parse().ok()
}

/// A table file of a directory: its board, kind, signature and path.
pub(crate) type Listed = (&'static Board, TableKind, Signature, PathBuf);

/// The value streams of every table of a board up to some number of stones,
/// decoded into memory (2 bits a position class): lock-free value probes for
/// searches that probe millions of leaves.
pub struct ValueTables {
    board: &'static Board,
    max_stones: usize,
    tables: HashMap<Signature, (Indexer, Vec<u8>)>,
    /// Each table's whole-file checksum, in signature order.
    checksums: Vec<(Signature, u64)>,
}

impl ValueTables {
    /// Loads the tables `sigs` of `board`, checking each file's checksums first.
    pub fn load(
        dir: &Path,
        board: &'static Board,
        sigs: &[Signature],
    ) -> Result<ValueTables, ProbeError> {
        let mut tables = HashMap::new();
        let mut checksums = Vec::new();
        for &sig in sigs {
            let Table { idx, file, .. } = Table::open(dir, board, TableKind::Plain, sig)?;
            file.verify_checksums()?;
            checksums.push((sig, file.file_checksum()));
            tables.insert(sig, (idx, file.read_values()?));
        }
        checksums.sort();
        Ok(ValueTables {
            board,
            max_stones: sigs.iter().map(|s| s.stones()).max().unwrap_or(0),
            tables,
            checksums,
        })
    }

    /// The board of the tables.
    pub fn board(&self) -> &'static Board {
        self.board
    }

    /// The largest number of stones covered.
    pub fn max_stones(&self) -> usize {
        self.max_stones
    }

    /// The tables loaded, with their whole-file checksums.
    pub fn checksums(&self) -> &[(Signature, u64)] {
        &self.checksums
    }

    /// The value for the side to move of `us` to move against `them`, both non-empty;
    /// `None` when no loaded table covers the material.
    pub fn value(&self, us: u64, them: u64) -> Option<Wdl> {
        let (idx, values) = self.tables.get(&Signature::of(us, them))?;
        let i = idx.index(us, them) as usize;
        packed_wdl(values, i)
    }

    /// Bytes held by the decoded value streams.
    pub fn heap_bytes(&self) -> u64 {
        self.tables
            .values()
            .map(|(idx, v)| idx.heap_bytes() + v.len() as u64)
            .sum()
    }
}

impl fmt::Debug for ValueTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ValueTables({}, up to {} stones, {} tables)",
            self.board.size_name(),
            self.max_stones,
            self.tables.len()
        )
    }
}
