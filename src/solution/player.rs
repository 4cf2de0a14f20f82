//! The player: the move to play in a position, from the tables where they cover
//! it, else from the proofs, taking a win wherever one is shown (by the tables, a
//! proof, or a bounded search), and never stepping out of what is proved when a
//! proof backs the side to move.

use std::path::PathBuf;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use thiserror::Error;

use super::SolvedGame;
use super::known::{Claims, Known};
use crate::certificate::Claim;
use crate::games::analysis::{Analysis, AnalysisError, analyse_with};
use crate::games::record::Record;
use crate::index::Signature;
use crate::probe::{ProbeError, Tablebase, ValueTables};
use crate::proof::{Limits, prove_lemma};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::movegen::Move;
use crate::rules::position::{Color, Position};
use crate::rules::value::Wdl;
use crate::table::TableError;

/// Why the player could not choose a move.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PlayerError {
    /// The side to move has no legal move (or no stones): the game is over.
    #[error("no legal move: the game is over")]
    NoMove,
    /// A table could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// How the player plays.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PlayerOptions {
    /// Nodes of the bounded search for a win, run where the opponent has left the
    /// proved draw and nothing else shows a win; 0: no search.
    pub search_nodes: u64,
}

/// A search of 20,000 nodes (a few hundredths of a second).
impl Default for PlayerOptions {
    fn default() -> PlayerOptions {
        PlayerOptions {
            search_nodes: 20_000,
        }
    }
}

/// Why the player chose its move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The tables' best move.
    Table,
    /// The move of a proof for the side to move, in this certificate or lemma.
    Proof(String),
    /// A move to a position the tables or a proof show won for the mover.
    Win,
    /// A win that a bounded search proved here.
    Search,
    /// Nothing proves this move: the best the player could see.
    Unproved,
}

impl Source {
    /// `table`, `proof`, `win`, `search`, `unproved`.
    pub fn name(&self) -> &'static str {
        match self {
            Source::Table => "table",
            Source::Proof(_) => "proof",
            Source::Win => "win",
            Source::Search => "search",
            Source::Unproved => "unproved",
        }
    }
}

/// The move chosen, why, and what is known about the position it was chosen in.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The move.
    pub mv: Move,
    /// Why it was chosen.
    pub source: Source,
    /// What is known about the position before the move.
    pub known: Known,
}

/// A player of the solved game: the tables, the proofs, and a bounded search.
///
/// It never loses from a position a proof or the tables show it does not lose:
/// there it plays the proof's move or the tables' best; it plays a win wherever the
/// tables, a proof, or its search show one.
///
/// ```
/// use fanotb::{Player, PlayerOptions, Position, Rules, SolvedGame, Source};
/// // The built-in tsivy draw proof, no tables: the proof's move at the start.
/// let mut player = Player::new(Some(SolvedGame::tsivy_draw()?), None, PlayerOptions::default());
/// let start = Position::parse_arg("start")?;
/// let choice = player.choose(&start, Rules::PLAIN)?;
/// assert_eq!(choice.mv.notation(start.board()), "f2-e3A");
/// assert!(matches!(choice.source, Source::Proof(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Player {
    /// The proofs loaded, shared (a server's players share one).
    solution: Option<Arc<SolvedGame>>,
    /// What this player's searches proved, looked up before `solution`.
    found: Option<SolvedGame>,
    tables: Option<Arc<Tablebase>>,
    opts: PlayerOptions,
    /// The largest complete table set of each board (stones).
    table_stones: FxHashMap<usize, usize>,
    /// The tables loaded for the search, once it runs: per board.
    values: FxHashMap<usize, ValueTables>,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("solution", &self.solution.as_deref().map(SolvedGame::len))
            .field("tables", &self.tables.as_deref().map(Tablebase::dir))
            .field("opts", &self.opts)
            .finish()
    }
}

fn board_id(b: &'static Board) -> usize {
    b.points() << 8 | b.width()
}

impl Player {
    /// A player over a solution and tables (either may be absent).
    pub fn new(
        solution: Option<SolvedGame>,
        tables: Option<Tablebase>,
        opts: PlayerOptions,
    ) -> Player {
        Player::shared(solution.map(Arc::new), tables.map(Arc::new), opts)
    }

    /// A player over a solution and tables shared with others (a server's
    /// requests): what its own searches prove stays its own.
    pub fn shared(
        solution: Option<Arc<SolvedGame>>,
        tables: Option<Arc<Tablebase>>,
        opts: PlayerOptions,
    ) -> Player {
        Player {
            solution,
            found: None,
            tables,
            opts,
            table_stones: FxHashMap::default(),
            values: FxHashMap::default(),
        }
    }

    /// Runs `f` with the search budget set to `nodes`, then restores it.
    pub fn with_search_nodes<T>(&mut self, nodes: u64, f: impl FnOnce(&mut Player) -> T) -> T {
        let kept = std::mem::replace(&mut self.opts.search_nodes, nodes);
        let out = f(self);
        self.opts.search_nodes = kept;
        out
    }

    /// The solution played from.
    pub fn solution(&self) -> Option<&SolvedGame> {
        self.solution.as_deref()
    }

    /// The tables played from.
    pub fn tables(&self) -> Option<&Tablebase> {
        self.tables.as_deref()
    }

    /// The proofs in the order they are looked up: this player's searches', then
    /// the solution's.
    fn proofs(&self) -> impl Iterator<Item = &SolvedGame> {
        self.found.iter().chain(self.solution.as_deref())
    }

    /// What the proofs establish at `pos`: each side's claim from the first proof
    /// set that holds one.
    fn proved_at(&self, pos: &Position) -> Option<Claims> {
        let mut out: Option<Claims> = None;
        for s in self.proofs() {
            let Some(p) = s.proved(pos) else { continue };
            let o = out.get_or_insert_with(|| p.clone());
            // A win says more than "does not lose": it is kept wherever it is.
            let better = |have: Option<Claim>, new: Option<Claim>| {
                have.is_none() || (have == Some(Claim::NotLose) && new == Some(Claim::Win))
            };
            if better(o.white, p.white) {
                (o.white, o.white_source) = (p.white, p.white_source);
            }
            if better(o.black, p.black) {
                (o.black, o.black_source) = (p.black, p.black_source);
            }
        }
        out
    }

    /// The table directory, for the search's tables.
    fn table_dir(&self) -> Option<PathBuf> {
        self.tables.as_ref().map(|t| t.dir().to_path_buf())
    }

    /// Positions of at most this many stones are all in the tables (every table of
    /// the board up to that many stones is there): the search's leaves.
    fn table_stones(&mut self, board: &'static Board) -> Result<usize, ProbeError> {
        let Some(tb) = &self.tables else {
            return Ok(0);
        };
        Ok(match self.table_stones.get(&board_id(board)) {
            Some(&k) => k,
            None => {
                let k = tb.largest(board)?;
                self.table_stones.insert(board_id(board), k);
                k
            }
        })
    }

    /// The tables' value of `pos` under `rules`, if they hold it: under a limit
    /// whose rule-aware table is missing, what the plain value proves of it.
    fn tabled(&self, pos: &Position, rules: Rules) -> Result<Option<Known>, ProbeError> {
        let Some(tb) = &self.tables else {
            return Ok(None);
        };
        if pos.side_without_stones().is_some() {
            return Ok(None);
        }
        let missing = |e: &ProbeError| {
            matches!(
                e,
                ProbeError::Vela(_) | ProbeError::Table(TableError::Missing { .. })
            )
        };
        match tb.probe(pos, rules) {
            Ok(v) => Ok(Some(Known::Table(v))),
            Err(e) if !missing(&e) => Err(e),
            Err(_) if rules.limit().is_none() => Ok(None),
            // No rule-aware table: the plain value bounds the value under the limit.
            Err(_) => match tb.value(pos, rules.without_limit()) {
                Ok(wdl) => Ok(Some(Known::Proved(
                    plain_bound(pos.turn(), wdl).under(rules),
                ))),
                Err(e) if missing(&e) => Ok(None),
                Err(e) => Err(e),
            },
        }
    }

    /// What is known about `pos` under `rules`: the tables' value where they cover
    /// it (under a limit whose rule-aware tables are missing, what the plain value
    /// proves of it), else what the proofs establish, else nothing.
    ///
    /// # Errors
    /// A table that cannot be read.
    pub fn known(&mut self, pos: &Position, rules: Rules) -> Result<Known, ProbeError> {
        match self.tabled(pos, rules)? {
            Some(k) => Ok(k),
            None => Ok(self.proof_known(pos, rules)),
        }
    }

    /// What the proofs establish at `pos` under `rules` (nothing under a vela that
    /// holds: the proofs are of the game without it).
    fn proof_known(&self, pos: &Position, rules: Rules) -> Known {
        if rules.active_vela(pos.board()).is_some() {
            return Known::Unknown;
        }
        self.proved_at(pos)
            .map_or(Known::Unknown, |p| Known::Proved(p.under(rules)))
    }

    /// The move to play at `pos` under `rules`, with why.
    ///
    /// # Errors
    /// `NoMove` when the game is over; a table that cannot be read.
    pub fn choose(&mut self, pos: &Position, rules: Rules) -> Result<Choice, PlayerError> {
        let moves = rules.legal_moves(pos);
        if moves.is_empty() || pos.side_without_stones().is_some() || rules.at_limit() {
            return Err(PlayerError::NoMove);
        }
        let tabled = self.tabled(pos, rules)?;
        let covered = tabled.is_some();
        let known = match tabled {
            Some(k) => k,
            None => self.proof_known(pos, rules),
        };
        let me = pos.turn();
        if covered {
            // The rule-aware tables' best, or without them the plain tables' (a
            // side that does not lose without the limit does not lose with it).
            let table_rules = match known {
                Known::Table(_) => rules,
                _ => rules.without_limit(),
            };
            let tb = self.tables.as_ref().expect("covered only with tables");
            let best = tb.best_moves(pos, table_rules)?.into_iter().next();
            let mv = best.ok_or(PlayerError::NoMove)?.mv;
            return Ok(Choice {
                mv,
                source: Source::Table,
                known,
            });
        }
        // A win shown by the tables or a proof one move away, the fastest first;
        // else, among the moves of the best rank, the best by material.
        let mut ranked = Vec::with_capacity(moves.len());
        for mv in moves {
            ranked.push((self.rank(pos, rules, &mv)?, mv));
        }
        let rank = ranked.iter().map(|r| r.0).min().expect("a legal move");
        let fallback = ranked
            .into_iter()
            .filter(|r| r.0 == rank)
            .map(|r| r.1)
            .max_by_key(|mv| material(pos, rules, mv))
            .expect("a move of the best rank");
        let proved = match &known {
            Known::Proved(p) => Some(p.clone()),
            _ => None,
        };
        let claim = |side: Color| proved.as_ref().and_then(|p| p.claim(side));
        if claim(me) != Some(Claim::Win) && rank.is_win() {
            return Ok(Choice {
                mv: fallback,
                source: Source::Win,
                known,
            });
        }
        // The other side has left the proved draw: look for a win.
        if claim(me) != Some(Claim::Win)
            && claim(me.other()).is_none()
            && let Some(mv) = self.search(pos, rules)?
        {
            let known = self.known(pos, rules)?;
            return Ok(Choice {
                mv,
                source: Source::Search,
                known,
            });
        }
        if let Some((mv, name)) = self.proof_move(pos, rules) {
            return Ok(Choice {
                mv,
                source: Source::Proof(name),
                known,
            });
        }
        Ok(Choice {
            mv: fallback,
            source: if rank.is_win() {
                Source::Win
            } else {
                Source::Unproved
            },
            known,
        })
    }

    /// The move a proof for the side to move plays at `pos`, if it is legal here.
    fn proof_move(&self, pos: &Position, rules: Rules) -> Option<(Move, String)> {
        if rules.active_vela(pos.board()).is_some() {
            return None;
        }
        // The move of a win before one of "does not lose"; this player's first.
        let s = self
            .proofs()
            .filter(|s| s.move_for(pos, pos.turn()).is_some())
            .min_by_key(|s| s.claim(pos, pos.turn()).map(|c| c.0 != Claim::Win))?;
        let text = s.move_for(pos, pos.turn())?;
        let mv = rules.parse_move(pos, text).ok()?;
        let (_, name) = s.claim(pos, pos.turn())?;
        Some((mv, name.to_string()))
    }

    /// How good `mv` is for the mover by what is known after it.
    fn rank(&mut self, pos: &Position, rules: Rules, mv: &Move) -> Result<Rank, ProbeError> {
        let me = pos.turn();
        let after = pos.apply(mv);
        let rules_after = rules.after(pos, mv);
        if after.us() == 0 || rules_after.is_lost(&after) {
            return Ok(Rank::WinNow);
        }
        Ok(match self.known(&after, rules_after)? {
            Known::Table(v) => match v.wdl() {
                Wdl::Loss => Rank::TableWin(v.depth().unwrap_or(0)),
                Wdl::Draw => Rank::Safe,
                Wdl::Win => Rank::Lost,
            },
            Known::Proved(p) => match (p.claim(me), p.claim(me.other())) {
                (Some(Claim::Win), _) => Rank::ProofWin,
                (_, Some(Claim::Win)) => Rank::Lost,
                (Some(_), _) => Rank::Safe,
                (None, Some(_)) => Rank::NoWin,
                (None, None) => Rank::Unknown,
            },
            Known::Unknown => Rank::Unknown,
        })
    }

    /// Loads what the search reads on `board` (the tables of its leaves), so that
    /// the first search does not pay for it: an engine's `isready`.
    ///
    /// # Errors
    /// A table that cannot be read.
    pub fn prepare(&mut self, board: &'static Board) -> Result<(), ProbeError> {
        self.search_tables(board).map(|_| ())
    }

    /// The tables the search reads on `board`, loaded once; none without a search,
    /// or without tables of 2 stones or more.
    fn search_tables(&mut self, board: &'static Board) -> Result<Option<&ValueTables>, ProbeError> {
        if self.opts.search_nodes == 0 {
            return Ok(None);
        }
        let Some(dir) = self.table_dir() else {
            return Ok(None);
        };
        let k = self.table_stones(board)?;
        if k < 2 {
            return Ok(None);
        }
        Ok(Some(match self.values.entry(board_id(board)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(ValueTables::load(&dir, board, &Signature::all_up_to(k))?)
            }
        }))
    }

    /// A bounded search for a win of the side to move at `pos` (not under a limit:
    /// a win of the plain game may come too late for it); a win found is added to
    /// the solution, so the moves after it follow its proof. Its move, if found.
    fn search(&mut self, pos: &Position, rules: Rules) -> Result<Option<Move>, ProbeError> {
        match self.prove_here(pos, rules, pos.turn())? {
            Some(Claim::Win) => Ok(self.proof_move(pos, rules).map(|(mv, _)| mv)),
            _ => Ok(None),
        }
    }

    /// A bounded search at `pos`: does `attacker` win? Its answer, proved, is added
    /// to the solution: `Win` (the attacker wins), `NotLose` (the other side does not
    /// lose); `None` when undecided, under a limit or a vela, or without a search.
    fn prove_here(
        &mut self,
        pos: &Position,
        rules: Rules,
        attacker: Color,
    ) -> Result<Option<Claim>, ProbeError> {
        if rules.limit().is_some() || rules.active_vela(pos.board()).is_some() {
            return Ok(None);
        }
        let nodes = self.opts.search_nodes;
        let Some(values) = self.search_tables(pos.board())? else {
            return Ok(None);
        };
        let k = values.max_stones();
        let Some(cert) = prove_lemma(values, pos, attacker, Limits::new(nodes, usize::MAX)) else {
            return Ok(None);
        };
        let claim = match cert.proves {
            crate::certificate::Proves::Lemma(_, c) => c,
            crate::certificate::Proves::Value(_) => return Ok(None),
        };
        self.found
            .get_or_insert_with(|| SolvedGame::empty(*pos, k as u8))
            .add_search(&cert);
        Ok(Some(claim))
    }

    /// The verdict a bounded search gives on a move of `me` that left `next`, from a
    /// position where `me` had a win (does `me` still win?) or did not lose (does
    /// the other side win now?).
    fn search_verdict(
        &mut self,
        had: Status,
        me: Color,
        next: &Position,
        rules: Rules,
    ) -> Result<Verdict, ProbeError> {
        let attacker = if had == Status::Win { me } else { me.other() };
        Ok(match (had, self.prove_here(next, rules, attacker)?) {
            (_, None) => Verdict::Unknown,
            (Status::Win, Some(Claim::Win)) => Verdict::Kept,
            (Status::Win, Some(Claim::NotLose)) => Verdict::Thrown,
            (_, Some(Claim::Win)) => Verdict::Thrown,
            (_, Some(Claim::NotLose)) => Verdict::Kept,
        })
    }

    /// A record as `fanotb analyse` sees it: the tables' values along it (the moves
    /// alone where this player has no tables), and every move judged by what is
    /// proved ([`Player::analyse`]).
    ///
    /// # Errors
    /// A record that does not replay; a table that cannot be read.
    pub fn analyse_game(
        &mut self,
        record: &Record,
    ) -> Result<(Analysis, Vec<Judged>), AnalysisError> {
        let analysis = analyse_with(self.tables(), record)?;
        Ok((analysis, self.analyse(record)?))
    }

    /// Every move of `record` judged by what is proved ([`Player::judge`]), in order.
    ///
    /// # Errors
    /// A record that does not replay; a table that cannot be read.
    pub fn analyse(&mut self, record: &Record) -> Result<Vec<Judged>, AnalysisError> {
        let game = record.replay()?;
        let positions = game.positions();
        let mut out = Vec::with_capacity(game.moves().len());
        for (mv, (pos, rules)) in game.moves().iter().zip(positions) {
            out.push(self.judge(&pos, rules, mv)?);
        }
        Ok(out)
    }

    /// What a move did to what is proved for its mover: the knowledge before and
    /// after it, and whether it kept or threw away what was proved (a bounded search
    /// decides where the knowledge after it does not; its proofs are kept).
    ///
    /// # Errors
    /// A table that cannot be read.
    pub fn judge(&mut self, pos: &Position, rules: Rules, mv: &Move) -> Result<Judged, ProbeError> {
        let me = pos.turn();
        let before = self.known(pos, rules)?;
        let (next, next_rules) = (pos.apply(mv), rules.after(pos, mv));
        let over = next.us() == 0 || next_rules.is_lost(&next);
        let after = if over {
            Known::Unknown
        } else {
            self.known(&next, next_rules)?
        };
        // Only a win, a draw or "does not lose" can be thrown away.
        let had = mover_status(&before, me, me)
            .filter(|h| matches!(h, Status::Win | Status::Draw | Status::NotLose));
        let mut searched = false;
        let verdict = match had {
            None => None,
            Some(_) if over => Some(Verdict::Kept),
            Some(had) => {
                let now = mover_status(&after, next.turn(), me).and_then(|now| judge(had, now));
                Some(match now {
                    Some(v) => v,
                    // Undecided by what is known: search what the move left.
                    None => {
                        searched = true;
                        self.search_verdict(had, me, &next, next_rules)?
                    }
                })
            }
        };
        // What the search proved is known after the move now.
        let after = if searched {
            self.known(&next, next_rules)?
        } else {
            after
        };
        Ok(Judged {
            before,
            after,
            over,
            verdict,
        })
    }
}

/// Stones `mv` takes, less the most the reply can take back: a player's guess
/// where nothing is proved (against a weak opponent it wins material).
fn material(pos: &Position, rules: Rules, mv: &Move) -> i32 {
    let after = pos.apply(mv);
    let rules_after = rules.after(pos, mv);
    let back = rules_after
        .legal_moves(&after)
        .iter()
        .map(|m| m.captured().count_ones())
        .max()
        .unwrap_or(0);
    mv.captured().count_ones() as i32 - back as i32
}

/// What a plain-rule table value proves for the side to move and the other.
fn plain_bound(turn: Color, wdl: Wdl) -> Claims {
    let (me, them) = match wdl {
        Wdl::Win => (Some(Claim::Win), None),
        Wdl::Draw => (Some(Claim::NotLose), Some(Claim::NotLose)),
        Wdl::Loss => (None, Some(Claim::Win)),
    };
    let source = |c: Option<Claim>| c.map(|_| "tables (plain rules)".to_string());
    let (white, black) = match turn {
        Color::White => (me, them),
        Color::Black => (them, me),
    };
    Claims {
        white,
        black,
        white_source: source(white),
        black_source: source(black),
    }
}

/// A move's worth for the mover, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// The other side has no stones or no move after it.
    WinNow,
    /// The tables value the result a loss for the other side, in this many plies.
    TableWin(u32),
    /// A proof shows the mover wins after it.
    ProofWin,
    /// The mover does not lose after it (tables or proofs).
    Safe,
    /// Nothing is known.
    Unknown,
    /// The other side does not lose after it.
    NoWin,
    /// The other side wins after it.
    Lost,
}

impl Rank {
    fn is_win(self) -> bool {
        matches!(self, Rank::WinNow | Rank::TableWin(_) | Rank::ProofWin)
    }
}

/// What a move did to what was proved for its mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// What was proved before still holds after it.
    Kept,
    /// It threw it away: a win no longer won, or a position not lost now lost.
    Thrown,
    /// The bounded search did not decide.
    Unknown,
}

impl Verdict {
    /// `kept`, `thrown`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Kept => "kept",
            Verdict::Thrown => "thrown",
            Verdict::Unknown => "unknown",
        }
    }
}

/// A move judged by what is proved: [`Player::judge`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// What is known before the move.
    pub before: Known,
    /// What is known after it (with what the search proved); `Unknown` when the
    /// game is over after it.
    pub after: Known,
    /// The game ended with it, won by its mover.
    pub over: bool,
    /// Whether it kept what was proved for its mover; `None` where nothing was.
    pub verdict: Option<Verdict>,
}

/// What is proved for a side, as far as a move can keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// It wins.
    Win,
    /// A draw: neither side loses.
    Draw,
    /// It does not lose (a draw, or a win).
    NotLose,
    /// It does not win (the other side does not lose).
    NoWin,
    /// It loses.
    Loss,
}

/// What `known` (of a position with `turn` to move) proves for `side`.
fn mover_status(known: &Known, turn: Color, side: Color) -> Option<Status> {
    match known {
        Known::Table(v) => {
            let w = if turn == side {
                v.wdl()
            } else {
                v.wdl().flipped()
            };
            Some(match w {
                Wdl::Win => Status::Win,
                Wdl::Draw => Status::Draw,
                Wdl::Loss => Status::Loss,
            })
        }
        Known::Proved(c) => match (c.claim(side), c.claim(side.other())) {
            (Some(Claim::Win), _) => Some(Status::Win),
            (_, Some(Claim::Win)) => Some(Status::Loss),
            (Some(_), Some(_)) => Some(Status::Draw),
            (Some(_), None) => Some(Status::NotLose),
            (None, Some(_)) => Some(Status::NoWin),
            (None, None) => None,
        },
        Known::Unknown => None,
    }
}

/// A move from `had` to `now`, for its mover; `None` where that does not decide
/// (a win before, "does not lose" after).
fn judge(had: Status, now: Status) -> Option<Verdict> {
    match (had, now) {
        (_, Status::Loss) | (Status::Win, Status::Draw | Status::NoWin) => Some(Verdict::Thrown),
        (Status::Win, Status::NotLose) | (_, Status::NoWin) => None,
        _ => Some(Verdict::Kept),
    }
}
