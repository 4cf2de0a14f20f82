//! Game records (docs/FORMAT.md, "Game records"): tags in brackets, then the moves
//! in the seeds' notation with move numbers, then the result; written by `game` and
//! the web board, read back by `analyse`.
//!
//! ```text
//! [Board "9x5"]
//! [Start "9/9/B8/9/3WW3B w"]
//! [Result "1-0"]
//!
//! 1. d1-c1 a3-a2 2. ... 1-0
//! ```

use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::path::Path;

use thiserror::Error;

use crate::files::durable::replace_file;
use crate::games::game::{Game, GameError, GameResult};
use crate::rules::Rules;
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use crate::rules::vela::Vela;

/// The tags that say how to replay a game, in the order a record writes them.
const BOARD: &str = "Board";
const START: &str = "Start";
const LIMIT: &str = "NoCaptureLimit";
const COUNTER: &str = "Counter";
const VELA: &str = "Vela";
const VELA_LOST: &str = "VelaLost";
const RESULT: &str = "Result";

/// Longest line of moves a record writes.
const WIDTH: usize = 79;

/// A game record: its tags, in order, its moves in notation, and its result.
///
/// ```
/// use fanotb::{GameResult, Record};
/// let text = "[Board \"3x3\"]\n[Result \"*\"]\n\n1. c2-b2A a3-a2A *\n";
/// let record: Record = text.parse()?;
/// assert_eq!(record.moves(), ["c2-b2A", "a3-a2A"]);
/// assert_eq!(record.result(), GameResult::Unfinished);
/// let game = record.replay()?;
/// assert_eq!(game.position().to_string(), "1BB/BW1/1WW w");
/// assert_eq!(record.to_string(), text);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    tags: Vec<(String, String)>,
    moves: Vec<String>,
    result: GameResult,
}

/// A record that cannot be read or replayed.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// The text is not a record.
    #[error("line {line}: {what}")]
    Syntax {
        /// The line, from 1.
        line: usize,
        /// What is wrong there.
        what: String,
    },
    /// A tag's value cannot be used.
    #[error("tag {tag}: {what}")]
    Tag {
        /// The tag's name.
        tag: &'static str,
        /// What is wrong with its value.
        what: String,
    },
    /// A move cannot be played.
    #[error("ply {ply} ({text}): {source}")]
    Move {
        /// The ply, from 1.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why it cannot be played.
        source: GameError,
    },
}

impl Record {
    /// The record of `game` with `result`: the tags that replay it (the board, the
    /// start unless it is the board's, the limit and counter, the vela), then
    /// `extra` tags, then the result.
    pub fn of_game(game: &Game, result: GameResult, extra: &[(&str, &str)]) -> Record {
        let start = game.start();
        let rules = game.start_rules();
        let mut tags = vec![(BOARD.to_string(), start.board().size_name())];
        if *start != Position::start(start.board()) {
            tags.push((START.into(), start.to_string()));
        }
        if let Some(n) = rules.limit() {
            tags.push((LIMIT.into(), n.to_string()));
            tags.push((COUNTER.into(), rules.counter().to_string()));
        }
        if let Some(v) = rules.vela() {
            tags.push((VELA.into(), v.side().name().into()));
            let default = Vela::at(start, v.side(), None).map(Vela::lost);
            if default != Ok(v.lost()) {
                tags.push((VELA_LOST.into(), v.lost().to_string()));
            }
        }
        // A tag is one line: control characters in a value become spaces.
        let clean = |v: &str| {
            v.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        };
        tags.extend(extra.iter().map(|&(k, v)| (k.to_string(), clean(v))));
        tags.push((RESULT.into(), result.to_string()));
        Record {
            tags,
            moves: game.move_texts(),
            result,
        }
    }

    /// Writes the record to `path` whole or not at all (a temporary file renamed
    /// over it), so a record rewritten after every move is never half-written.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        replace_file(path, |f| f.write_all(self.to_string().as_bytes()))
    }

    /// The value of tag `name`, if the record has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every tag, in order.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// The moves as written.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    /// The result the record gives.
    pub fn result(&self) -> GameResult {
        self.result
    }

    /// The start position and its rules, from the tags.
    ///
    /// # Errors
    /// A tag whose value is not what it names, or tags that disagree.
    pub fn start(&self) -> Result<(Position, Rules), RecordError> {
        let bad = |tag, what: String| RecordError::Tag { tag, what };
        let board = match self.tag(BOARD) {
            Some(b) => Some(Board::by_name(b).map_err(|e| bad(BOARD, e.to_string()))?),
            None => None,
        };
        let start = match (self.tag(START), board) {
            (Some(t), _) => t.parse().map_err(|e| bad(START, format!("{e}")))?,
            (None, b) => Position::start(b.unwrap_or_else(Board::tsivy)),
        };
        if let Some(b) = board.filter(|&b| b != start.board()) {
            let what = format!(
                "the start position is on {}, not {}",
                start.board().size_name(),
                b.size_name()
            );
            return Err(bad(BOARD, what));
        }
        fn number<T: std::str::FromStr>(
            r: &Record,
            tag: &'static str,
        ) -> Result<Option<T>, RecordError> {
            r.tag(tag)
                .map(|v| {
                    v.parse().map_err(|_| RecordError::Tag {
                        tag,
                        what: format!("{v:?} is not a number in range"),
                    })
                })
                .transpose()
        }
        let counter = number(self, COUNTER)?;
        let rules = Rules::from_request(number(self, LIMIT)?, counter)
            .map_err(|e| bad(LIMIT, e.to_string()))?;
        let vela = match self.tag(VELA) {
            None if self.tag(VELA_LOST).is_some() => {
                return Err(bad(
                    VELA_LOST,
                    "stones lost under vela, but no Vela tag".into(),
                ));
            }
            None => None,
            Some(side) => {
                let side = match side.to_ascii_lowercase().as_str() {
                    "white" => Color::White,
                    "black" => Color::Black,
                    _ => return Err(bad(VELA, format!("{side:?} is not White or Black"))),
                };
                let lost = number(self, VELA_LOST)?;
                Some(Vela::at(&start, side, lost).map_err(|e| bad(VELA_LOST, e.to_string()))?)
            }
        };
        Ok((start, rules.with_vela(vela)))
    }

    /// The game the record describes, every move played by the rules.
    ///
    /// # Errors
    /// As [`Record::start`], and a move that is malformed, illegal, or played after
    /// the game ended.
    pub fn replay(&self) -> Result<Game, RecordError> {
        let (start, rules) = self.start()?;
        let mut game = Game::new(start, rules);
        for (i, text) in self.moves.iter().enumerate() {
            game.play_text(text).map_err(|source| RecordError::Move {
                ply: i + 1,
                text: text.clone(),
                source,
            })?;
        }
        Ok(game)
    }
}

impl std::str::FromStr for Record {
    type Err = RecordError;

    /// Reads a record: `[Name "value"]` tags (`\"` and `\\` escaped), one a line,
    /// then the moves. Move numbers (`12.`, `12...`) are skipped, `{...}` and `;`
    /// to the end of the line are comments, and the last word is the result, which
    /// a `Result` tag must agree with.
    fn from_str(text: &str) -> Result<Record, RecordError> {
        let mut tags: Vec<(String, String)> = Vec::new();
        // Names seen, hashed: a record of many distinct tags is read in linear time.
        let mut seen: HashSet<TagName> = HashSet::new();
        let mut words: Vec<(usize, String)> = Vec::new();
        let mut in_comment = None;
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            let syntax = |what: String| RecordError::Syntax { line: n, what };
            let trimmed = line.trim();
            if in_comment.is_none() && words.is_empty() && trimmed.starts_with('[') {
                let (k, v) = parse_tag(trimmed).map_err(syntax)?;
                if !seen.insert(TagName(k.clone())) {
                    return Err(syntax(format!("tag {k} given twice")));
                }
                tags.push((k, v));
                continue;
            }
            let mut rest = line;
            loop {
                if in_comment.is_some() {
                    match rest.find('}') {
                        Some(i) => (in_comment, rest) = (None, &rest[i + 1..]),
                        None => break,
                    }
                }
                let end = rest.find(['{', ';']).unwrap_or(rest.len());
                for w in rest[..end].split_whitespace() {
                    if w.starts_with('[') {
                        return Err(syntax("a tag after the moves".into()));
                    }
                    let w = strip_number(w);
                    if w.is_empty() {
                        continue;
                    }
                    if w.parse::<GameResult>().is_err() && !looks_like_a_move(w) {
                        return Err(syntax(format!(
                            "{w:?} is not a move in notation (like d2-e3A) nor a result"
                        )));
                    }
                    words.push((n, w.to_string()));
                }
                match rest[end..].chars().next() {
                    Some('{') => (in_comment, rest) = (Some(n), &rest[end + 1..]),
                    _ => break,
                }
            }
        }
        if let Some(line) = in_comment {
            return Err(RecordError::Syntax {
                line,
                what: "a comment `{` that is never closed".into(),
            });
        }
        let Some((line, last)) = words.pop() else {
            return Err(RecordError::Syntax {
                line: text.lines().count().max(1),
                what: "no result: a record ends with 1-0, 0-1, 1/2-1/2 or *".into(),
            });
        };
        let result: GameResult = last.parse().map_err(|what: String| RecordError::Syntax {
            line,
            what: format!("{what}: a record ends with its result"),
        })?;
        if let Some((line, w)) = words.iter().find(|(_, w)| w.parse::<GameResult>().is_ok()) {
            return Err(RecordError::Syntax {
                line: *line,
                what: format!("the result {w} before the last move"),
            });
        }
        let record = Record {
            tags,
            moves: words.into_iter().map(|(_, w)| w).collect(),
            result,
        };
        match record.tag(RESULT) {
            Some(t) if t != result.to_string() => Err(RecordError::Tag {
                tag: RESULT,
                what: format!("{t:?}, but the moves end with {result}"),
            }),
            _ => Ok(record),
        }
    }
}

/// A tag name among those a record has given; its comparisons are counted in the
/// tests, the measure of the duplicate check's work.
#[derive(Eq)]
struct TagName(String);

impl std::hash::Hash for TagName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

#[cfg(test)]
thread_local! {
    static TAG_COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl PartialEq for TagName {
    fn eq(&self, other: &TagName) -> bool {
        #[cfg(test)]
        TAG_COMPARISONS.with(|c| c.set(c.get() + 1));
        self.0 == other.0
    }
}

/// `[Name "value"]` into its name and value.
fn parse_tag(line: &str) -> Result<(String, String), String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("a tag is [Name \"value\"] on a line of its own")?;
    let (name, quoted) = inner.split_once(' ').ok_or("a tag is [Name \"value\"]")?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("{name:?} is not a tag name (letters, digits, _)"));
    }
    let body = quoted
        .trim()
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .ok_or_else(|| format!("tag {name}: its value goes in double quotes"))?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => value.push(e),
                _ => return Err(format!("tag {name}: only \\\" and \\\\ are escapes")),
            },
            '"' => return Err(format!("tag {name}: a quote inside the value needs \\\"")),
            c => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

/// Points (a letter and digits) joined by `-`, with `A` or `W` after some: what
/// a move can be, so that a word read back never loses a move number's look.
fn looks_like_a_move(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_lowercase())
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | 'A' | 'W'))
}

/// A word without its leading move number: `12.d2-e3A` is `d2-e3A`, `12...` is empty.
fn strip_number(w: &str) -> &str {
    let digits = w.len() - w.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match w[digits..].strip_prefix('.') {
        Some(rest) if digits > 0 => rest.trim_start_matches('.'),
        _ => w,
    }
}

/// The tags, a blank line, and the moves with the result (`Record::movetext`).
impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.tags {
            let v = v.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(f, "[{k} \"{v}\"]")?;
        }
        if !self.tags.is_empty() {
            writeln!(f)?;
        }
        for line in self.movetext_lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl Record {
    /// The moves and the result, as one line: `1. e1-f2 a3-b2 *`.
    pub fn movetext(&self) -> String {
        self.movetext_lines().join(" ")
    }

    /// The moves numbered from whoever moved first (`1... a3-b2` when Black did),
    /// then the result, wrapped at `WIDTH`.
    fn movetext_lines(&self) -> Vec<String> {
        let black_first = self.start().is_ok_and(|(p, _)| p.turn() == Color::Black);
        let offset = usize::from(black_first);
        let mut words = Vec::with_capacity(self.moves.len() * 3 / 2 + 1);
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + offset;
            // A move number stays on the line of its move.
            if ply % 2 == 0 {
                words.push(format!("{}. {m}", ply / 2 + 1));
            } else if i == 0 {
                words.push(format!("1... {m}"));
            } else {
                words.push(m.clone());
            }
        }
        words.push(self.result.to_string());
        let mut lines = vec![String::new()];
        for w in words {
            let line = lines.last_mut().expect("a line");
            if !line.is_empty() && line.len() + 1 + w.len() > WIDTH {
                lines.push(w);
            } else {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&w);
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A megabyte of distinct tags (`[a ""]`, `[b ""]`, ...) costs a comparison of
    /// names or so a tag, not one for every earlier tag (which took 20 s).
    #[test]
    fn distinct_tags_are_checked_in_linear_work() {
        let mut text = String::new();
        let mut n = 0u64;
        while text.len() < 1 << 20 {
            let name: String = format!("{n:x}")
                .chars()
                .map(|c| (b'g' + c.to_digit(16).unwrap() as u8) as char)
                .collect();
            text.push_str(&format!("[{name} \"\"]\n"));
            n += 1;
        }
        text.push_str("\n*\n");
        TAG_COMPARISONS.with(|c| c.set(0));
        let record: Record = text.parse().unwrap();
        assert_eq!(record.tags().len() as u64, n);
        let compared = TAG_COMPARISONS.with(|c| c.get());
        assert!(compared <= n, "{compared} comparisons for {n} tags");
        // And a name given twice is still found, however far apart.
        let twice = format!("[x \"1\"]\n{}[x \"2\"]\n\n*\n", &text[..text.len() - 3]);
        let e = twice.parse::<Record>().unwrap_err();
        assert!(e.to_string().contains("tag x given twice"), "{e}");
    }

    #[test]
    fn numbers_comments_and_errors() {
        let r: Record = "1.a1-b1 {a comment\nover lines} c3-c2 ; to the end\n2. b1-b2 1-0"
            .parse()
            .unwrap();
        assert_eq!(r.moves(), ["a1-b1", "c3-c2", "b1-b2"]);
        let err = |t: &str| t.parse::<Record>().unwrap_err().to_string();
        assert_eq!(
            err(""),
            "line 1: no result: a record ends with 1-0, 0-1, 1/2-1/2 or *"
        );
        assert_eq!(
            err("1. a1-b1 {open"),
            "line 1: a comment `{` that is never closed"
        );
        assert_eq!(
            err("[Result \"1-0\"]\n\n*"),
            "tag Result: \"1-0\", but the moves end with *"
        );
        assert_eq!(
            err("[Board \"9x5\"]\n[Board \"9x5\"]\n*"),
            "line 2: tag Board given twice"
        );
        assert_eq!(
            err("[Board 9x5]\n*"),
            "line 1: tag Board: its value goes in double quotes"
        );
        assert_eq!(
            err("1. a1-b1 1-0 b2-b3 *"),
            "line 1: the result 1-0 before the last move"
        );
        assert_eq!(
            err("a1-b1 [Board \"3x3\"] *"),
            "line 1: a tag after the moves"
        );
        assert_eq!(
            err("1. a1-b1 4.3.x-y *"),
            "line 1: \"3.x-y\" is not a move in notation (like d2-e3A) nor a result"
        );
    }

    #[test]
    fn black_first_is_numbered_from_1_dots() {
        let game = Game::new("B4/5/4W b".parse().unwrap(), Rules::PLAIN);
        let mut game = game;
        game.play_text("a3-a2").unwrap();
        game.play_text("e1-e2").unwrap();
        let r = Record::of_game(&game, GameResult::Unfinished, &[("Event", "a \"test\"")]);
        let text = r.to_string();
        assert_eq!(
            text,
            "[Board \"5x3\"]\n[Start \"B4/5/4W b\"]\n[Event \"a \\\"test\\\"\"]\n[Result \"*\"]\n\n1... a3-a2 2. e1-e2 *\n"
        );
        let back: Record = text.parse().unwrap();
        assert_eq!(back, r);
        assert_eq!(back.tag("Event"), Some("a \"test\""));
        assert_eq!(back.replay().unwrap().position(), game.position());
    }

    #[test]
    fn replay_names_the_ply_that_fails() {
        let r: Record = "[Board \"3x3\"]\n\n1. c2-b2A a3-a2A 2. b2-c2 *"
            .parse()
            .unwrap();
        let e = r.replay().unwrap_err().to_string();
        assert!(e.starts_with("ply 3 (b2-c2): illegal move"), "{e}");
    }
}
