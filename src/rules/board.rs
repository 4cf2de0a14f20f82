//! Board geometry: points, strong points, lines, and the symmetry group.
//!
//! A point (x, y) has index `y * w + x`; a set of points is a `u64` bitboard. Every
//! supported board is built once and lives for the whole program (`Board::get`).

use std::fmt;
use std::sync::OnceLock;

use thiserror::Error;

/// The eight directions in a fixed order; `d ^ 4` is the opposite of `d`.
pub(crate) const DIRS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The opposite direction.
#[inline]
pub(crate) const fn opposite(d: usize) -> usize {
    d ^ 4
}

/// Why a board size, board name or point name was rejected.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoardError {
    /// The size is not supported: columns and rows must be odd, 3 to 9, at most 64 points.
    #[error(
        "unsupported board size {w}x{h}: columns and rows must be odd, from 3 to 9, with at most 64 points"
    )]
    Size {
        /// Columns asked for.
        w: usize,
        /// Rows asked for.
        h: usize,
    },
    /// The board name is not `tsivy`, `dimy` or `WxH`.
    #[error("bad board name `{0}`: expected tsivy, dimy or WxH such as 5x3")]
    Name(String),
    /// The point name is not an `a1`-style name of a point of this board.
    #[error("bad point name `{name}` on a {w}x{h} board")]
    Point {
        /// The name as given.
        name: String,
        /// Columns of the board.
        w: usize,
        /// Rows of the board.
        h: usize,
    },
}

/// A symmetry of the board as a permutation of points. The reflections and the half
/// turn map a whole bitboard with a few bit operations; the quarter turns and the
/// diagonal reflections of square boards with eight byte-table lookups.
pub struct Symmetry {
    image: Image,
    /// The image of each point: what `apply` computes, point by point.
    map: [u8; 64],
    points: usize,
}

/// How a symmetry maps a bitboard.
enum Image {
    /// The half turn reverses the bits of the board, (x, y) to (w-1-x, h-1-y); the
    /// reflection in the middle row swaps its rows pairwise; the reflection in the
    /// middle column is both. On the 9x5 board this is about thirty operations and
    /// no memory, where the tables took eighteen lookups into 36 KiB, more than the
    /// first-level cache holds beside the generator's data.
    Flip {
        half_turn: bool,
        /// `64 - points`: the shift that brings the reversed bits down.
        shift: u32,
        /// The row swaps: `(distance, lower row's mask)`, one for each pair.
        rows: Vec<(u32, u64)>,
    },
    /// Byte tables: the image of every value of every byte of a bitboard.
    Table {
        bytes: Box<[[u64; 256]; 8]>,
        /// Bytes of a bitboard that hold points (the others are always zero).
        used: usize,
    },
}

impl Symmetry {
    /// The symmetry of point map `map` on a `w` by `h` board; `flip` names it as
    /// (half turn, rows reflected) when it is one of the four of a rectangle.
    fn new(map: &[u8; 64], w: usize, h: usize, flip: Option<(bool, bool)>) -> Self {
        let n = w * h;
        let image = match flip {
            Some((half_turn, rows)) => Image::Flip {
                half_turn,
                shift: 64 - n as u32,
                rows: match rows {
                    false => Vec::new(),
                    true => (0..h / 2)
                        .map(|y| (((h - 1 - 2 * y) * w) as u32, ((1u64 << w) - 1) << (y * w)))
                        .collect(),
                },
            },
            None => {
                let mut bytes = Box::new([[0u64; 256]; 8]);
                for (chunk, table) in bytes.iter_mut().enumerate() {
                    for (v, out) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let p = chunk * 8 + bit;
                            if v & (1 << bit) != 0 && p < n {
                                *out |= 1u64 << map[p];
                            }
                        }
                    }
                }
                Image::Table {
                    bytes,
                    used: n.div_ceil(8),
                }
            }
        };
        Symmetry {
            image,
            map: *map,
            points: n,
        }
    }

    /// Image of a set of points.
    #[inline]
    pub fn apply(&self, bb: u64) -> u64 {
        match &self.image {
            Image::Flip {
                half_turn,
                shift,
                rows,
            } => {
                let mut x = if *half_turn {
                    bb.reverse_bits() >> shift
                } else {
                    bb
                };
                for &(distance, lower) in rows {
                    // A delta swap: the bits of `lower` trade places with those
                    // `distance` above.
                    let t = ((x >> distance) ^ x) & lower;
                    x ^= t ^ (t << distance);
                }
                x
            }
            Image::Table { bytes, used } => {
                let mut out = 0;
                for (i, table) in bytes[..*used].iter().enumerate() {
                    out |= table[(bb >> (8 * i) & 0xff) as usize];
                }
                out
            }
        }
    }
}

/// Shows the permutation (the image of each point, in index order).
impl fmt::Debug for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Symmetry")
            .field(&&self.map[..self.points])
            .finish()
    }
}

/// A set of points and its image under each symmetry of a board, identity first;
/// the slots past the board's symmetries (the last four on a rectangle) are zero and
/// never toggled, so that a rectangle's sets cost half the work. The images
/// of a set one point away cost a look-up and an exclusive or per slot, where
/// `Symmetry::apply` costs a few dozen operations: the un-moves of the generator
/// index many sets that differ from one by a point or two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Images(pub(crate) [u64; 8]);

impl Images {
    /// The images of the set with point `p` added or removed.
    #[inline]
    pub(crate) fn toggled(mut self, board: &Board, p: u8) -> Images {
        let point = &board.point_images[p as usize];
        // Loops of fixed length, so that either unrolls; indexed, they take fewer
        // instructions than zipped iterators or arrays built anew (callgrind).
        #[allow(clippy::needless_range_loop)]
        if board.syms.len() <= 4 {
            for k in 0..4 {
                self.0[k] ^= point[k];
            }
        } else {
            for k in 0..8 {
                self.0[k] ^= point[k];
            }
        }
        self
    }

    /// Whether a symmetry of `board` other than the identity maps the set onto
    /// itself: an image past the first (the identity's) equal to it.
    #[inline]
    pub(crate) fn are_fixed(&self, board: &Board) -> bool {
        self.0[1..board.syms.len()].contains(&self.0[0])
    }

    /// The images of the set with every point of `set` added or removed.
    #[inline]
    pub(crate) fn toggled_all(self, board: &Board, set: u64) -> Images {
        bits(set).fold(self, |images, p| images.toggled(board, p))
    }
}

/// A map of (x, y) to (x', y').
type Transform = Box<dyn Fn(i32, i32) -> (i32, i32)>;

/// A supported board: its size, strong points, lines and symmetries.
///
/// Boards are built once per size and shared (`Board::get`); two boards are equal
/// when they have the same size.
///
/// ```
/// use fanotb::Board;
/// let tsivy = Board::tsivy();
/// assert_eq!((tsivy.width(), tsivy.height(), tsivy.points()), (9, 5, 45));
/// assert_eq!(Board::by_name("dimy")?.size_name(), "5x5");
/// // Diagonals run through the strong points: a1 is one, b1 is not.
/// let (a1, b1) = (tsivy.parse_point("a1")?, tsivy.parse_point("b1")?);
/// assert!(tsivy.strong() >> a1 & 1 == 1 && tsivy.strong() >> b1 & 1 == 0);
/// assert!(Board::get(4, 3).is_err(), "sides are odd");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Board {
    w: usize,
    h: usize,
    all: u64,
    strong: u64,
    /// Points that have a line neighbour in direction `d`.
    has_step: [u64; 8],
    /// Index offset of one step in direction `d`.
    step: [i32; 8],
    /// Per point and direction, the neighbour's bit (0 where there is none): a
    /// look-up in place of a shift on the capture chains' path.
    neighbour_bits: [[u64; 8]; 64],
    /// Per point and direction, the bit two steps along the line (0 where the line
    /// stops sooner): the first stone an approach from that point would take.
    second_bits: [[u64; 8]; 64],
    /// Per point, its line neighbours.
    neighbours: [u64; 64],
    /// Per point, the points one or two steps along its lines: a capture from the
    /// point takes a stone among them.
    reach: [u64; 64],
    syms: Vec<Symmetry>,
    /// Per point, its bit's `Images` (see there).
    point_images: [[u64; 8]; 64],
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({}x{})", self.w, self.h)
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Self) -> bool {
        self.w == other.w && self.h == other.h
    }
}
impl Eq for Board {}

/// Every supported size, in a fixed order (used as the registry key).
fn supported(w: usize, h: usize) -> bool {
    w % 2 == 1 && h % 2 == 1 && (3..=9).contains(&w) && (3..=9).contains(&h) && w * h <= 64
}

fn registry() -> &'static [Board] {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| {
        let mut v = Vec::new();
        for h in (3..=9).step_by(2) {
            for w in (3..=9).step_by(2) {
                if supported(w, h) {
                    v.push(Board::build(w, h));
                }
            }
        }
        v
    })
}

impl Board {
    /// The board of `w` columns and `h` rows.
    pub fn get(w: usize, h: usize) -> Result<&'static Board, BoardError> {
        if !supported(w, h) {
            return Err(BoardError::Size { w, h });
        }
        Ok(registry()
            .iter()
            .find(|b| b.w == w && b.h == h)
            .expect("every supported size is in the registry"))
    }

    /// The standard 9x5 board.
    pub fn tsivy() -> &'static Board {
        Board::get(9, 5).expect("9x5 is supported")
    }

    /// Parses `tsivy`, `dimy` or `WxH`.
    pub fn by_name(name: &str) -> Result<&'static Board, BoardError> {
        match name {
            "tsivy" => return Ok(Board::tsivy()),
            "dimy" => return Board::get(5, 5),
            _ => {}
        }
        let (w, h) = name
            .split_once('x')
            .ok_or_else(|| BoardError::Name(name.to_string()))?;
        let parse = |s: &str| {
            s.parse::<usize>()
                .map_err(|_| BoardError::Name(name.into()))
        };
        Board::get(parse(w)?, parse(h)?)
    }

    /// Every supported board, smallest first by point count.
    pub fn all_supported() -> Vec<&'static Board> {
        let mut v: Vec<&Board> = registry().iter().collect();
        v.sort_by_key(|b| (b.points(), b.h));
        v
    }

    fn build(w: usize, h: usize) -> Board {
        let n = w * h;
        let all = if n == 64 { !0 } else { (1u64 << n) - 1 };
        let mut strong = 0u64;
        let mut has_step = [0u64; 8];
        let mut step = [0i32; 8];
        let mut neighbour_bits = [[0u64; 8]; 64];
        let mut second_bits = [[0u64; 8]; 64];
        let mut neighbours = [0u64; 64];
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            step[d] = dx as i32 + dy as i32 * w as i32;
            // `shift` takes the first four to step up: w >= 3 keeps w - 1 > 0.
            assert_eq!(step[d] > 0, d < 4, "direction {d} on a board {w} wide");
        }
        for y in 0..h {
            for x in 0..w {
                let p = y * w + x;
                let is_strong = (x + y) % 2 == 0;
                if is_strong {
                    strong |= 1 << p;
                }
                for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                    let (nx, ny) = (x as i32 + dx as i32, y as i32 + dy as i32);
                    let inside = nx >= 0 && ny >= 0 && nx < w as i32 && ny < h as i32;
                    let diagonal = dx != 0 && dy != 0;
                    if inside && (!diagonal || is_strong) {
                        has_step[d] |= 1 << p;
                        neighbour_bits[p][d] = 1 << (nx as usize + ny as usize * w);
                    }
                }
            }
        }
        for p in 0..n {
            for d in 0..8 {
                let q = neighbour_bits[p][d];
                if q != 0 {
                    second_bits[p][d] = neighbour_bits[q.trailing_zeros() as usize][d];
                }
                neighbours[p] |= q;
            }
        }
        let reach =
            std::array::from_fn(|p| neighbours[p] | second_bits[p].iter().fold(0, |r, b| r | b));
        let mut board = Board {
            w,
            h,
            all,
            strong,
            has_step,
            step,
            neighbour_bits,
            second_bits,
            neighbours,
            reach,
            syms: Vec::new(),
            point_images: [[0; 8]; 64],
        };
        board.syms = board.symmetry_maps();
        for (p, images) in board.point_images.iter_mut().enumerate().take(n) {
            for (image, g) in images.iter_mut().zip(&board.syms) {
                *image = 1 << g.map[p];
            }
        }
        board
    }

    /// The transforms of the rectangle (the dihedral group of the square when w == h)
    /// that map every line onto a line. Identity first.
    fn symmetry_maps(&self) -> Vec<Symmetry> {
        let (w, h) = (self.w as i32, self.h as i32);
        // Each with its (half turn, rows reflected) when it is one of the rectangle's.
        let mut candidates: Vec<(Transform, Option<(bool, bool)>)> = vec![
            (Box::new(|x, y| (x, y)), Some((false, false))),
            (Box::new(move |x, y| (w - 1 - x, y)), Some((true, true))),
            (Box::new(move |x, y| (x, h - 1 - y)), Some((false, true))),
            (
                Box::new(move |x, y| (w - 1 - x, h - 1 - y)),
                Some((true, false)),
            ),
        ];
        if w == h {
            candidates.push((Box::new(|x, y| (y, x)), None));
            candidates.push((Box::new(move |x, y| (w - 1 - y, h - 1 - x)), None));
            candidates.push((Box::new(move |x, y| (w - 1 - y, x)), None));
            candidates.push((Box::new(move |x, y| (y, h - 1 - x)), None));
        }
        let mut out = Vec::new();
        for (f, flip) in candidates {
            let mut map = [0u8; 64];
            for y in 0..h {
                for x in 0..w {
                    let (tx, ty) = f(x, y);
                    map[(y * w + x) as usize] = (ty * w + tx) as u8;
                }
            }
            if self.preserves_lines(&map) {
                out.push(Symmetry::new(&map, self.w, self.h, flip));
            }
        }
        out
    }

    fn preserves_lines(&self, map: &[u8; 64]) -> bool {
        (0..self.points() as u8).all(|p| {
            (0..8).all(|d| match self.neighbour(p, d) {
                Some(q) => self.linked(map[p as usize], map[q as usize]),
                None => true,
            })
        })
    }

    /// Columns of the board.
    #[inline]
    pub fn width(&self) -> usize {
        self.w
    }
    /// Rows of the board.
    #[inline]
    pub fn height(&self) -> usize {
        self.h
    }
    /// Number of points: columns times rows.
    #[inline]
    pub fn points(&self) -> usize {
        self.w * self.h
    }
    /// Every point of the board.
    #[inline]
    pub fn all(&self) -> u64 {
        self.all
    }
    /// Points with diagonal lines through them.
    #[inline]
    pub fn strong(&self) -> u64 {
        self.strong
    }
    /// Symmetries of the board, identity first.
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.syms
    }
    /// The images of `set` under the symmetries.
    #[inline]
    pub(crate) fn images(&self, set: u64) -> Images {
        Images([0; 8]).toggled_all(self, set)
    }
    /// Whether a symmetry other than the identity maps `set` onto itself.
    #[inline]
    pub(crate) fn is_fixed_by_a_symmetry(&self, set: u64) -> bool {
        self.images(set).are_fixed(self)
    }
    /// Name used in directories and messages: `WxH`.
    pub fn size_name(&self) -> String {
        format!("{}x{}", self.w, self.h)
    }

    /// Points that have a line neighbour in direction `d`.
    #[inline]
    pub fn has_step(&self, d: usize) -> u64 {
        self.has_step[d]
    }

    /// The bit of `p`'s line neighbour in direction `d`, 0 if it has none.
    #[inline]
    pub(crate) fn neighbour_bit(&self, p: u8, d: usize) -> u64 {
        self.neighbour_bits[p as usize][d]
    }

    /// Per direction, the bit of `p`'s line neighbour (0 where it has none).
    #[inline]
    pub(crate) fn neighbour_bits(&self, p: u8) -> &[u64; 8] {
        &self.neighbour_bits[p as usize]
    }

    /// Per direction, the bit two steps from `p` along the line (0 where the line
    /// stops sooner).
    #[inline]
    pub(crate) fn second_bits(&self, p: u8) -> &[u64; 8] {
        &self.second_bits[p as usize]
    }

    /// The line neighbours of `p`.
    #[inline]
    pub(crate) fn neighbours(&self, p: u8) -> u64 {
        self.neighbours[p as usize]
    }

    /// The points one or two steps from `p` along its lines.
    #[inline]
    pub(crate) fn reach(&self, p: u8) -> u64 {
        self.reach[p as usize]
    }

    /// Moves every point of `bb` one step in direction `d`, dropping points with no
    /// line that way.
    #[inline]
    pub fn shift(&self, bb: u64, d: usize) -> u64 {
        let b = bb & self.has_step[d];
        // Directions 0 to 3 step to higher points (`DIRS`): where `d` is a constant,
        // as in the unrolled loops over the eight, the shift's way is known.
        if d < 4 {
            b << self.step[d]
        } else {
            b >> -self.step[d]
        }
    }

    /// The line neighbour of `p` in direction `d`.
    #[inline]
    pub fn neighbour(&self, p: u8, d: usize) -> Option<u8> {
        if self.has_step[d] >> p & 1 != 0 {
            Some((p as i32 + self.step[d]) as u8)
        } else {
            None
        }
    }

    /// Whether a line joins `p` and `q` directly; if so, its direction.
    pub fn direction(&self, p: u8, q: u8) -> Option<usize> {
        (0..8).find(|&d| self.neighbour(p, d) == Some(q))
    }

    fn linked(&self, p: u8, q: u8) -> bool {
        self.direction(p, q).is_some()
    }

    /// `a1`-style name of a point.
    pub fn point_name(&self, p: u8) -> String {
        let mut s = String::with_capacity(3);
        self.push_point_name(&mut s, p);
        s
    }

    /// Appends the `a1`-style name of a point to `s` (without the formatting
    /// machinery: proofs name millions of moves).
    pub(crate) fn push_point_name(&self, s: &mut String, p: u8) {
        let (x, row) = (p as usize % self.w, p as usize / self.w + 1);
        s.push((b'a' + x as u8) as char);
        if row >= 10 {
            s.push((b'0' + (row / 10) as u8) as char);
        }
        s.push((b'0' + (row % 10) as u8) as char);
    }

    /// Parses an `a1`-style point name.
    pub fn parse_point(&self, s: &str) -> Result<u8, BoardError> {
        let err = || BoardError::Point {
            name: s.to_string(),
            w: self.w,
            h: self.h,
        };
        let mut chars = s.chars();
        let col = chars.next().ok_or_else(err)?;
        if !col.is_ascii_lowercase() {
            return Err(err());
        }
        let x = (col as u8 - b'a') as usize;
        // Canonical names only: one digit 1-9 for the row (no sign, no leading zero).
        let row = match chars.as_str().as_bytes() {
            &[d @ b'1'..=b'9'] => (d - b'0') as usize,
            _ => return Err(err()),
        };
        if x >= self.w || row > self.h {
            return Err(err());
        }
        Ok(((row - 1) * self.w + x) as u8)
    }

    /// Names of the points of a set, in index order.
    pub fn point_names(&self, bb: u64) -> Vec<String> {
        bits(bb).map(|p| self.point_name(p)).collect()
    }
}

/// The indices of the set bits of `bb`, lowest first.
#[inline]
pub fn bits(mut bb: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let p = bb.trailing_zeros() as u8;
            bb &= bb - 1;
            Some(p)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The names written without the formatting machinery are those it writes,
    /// and parse back, on every board.
    #[test]
    fn point_names_are_column_letter_then_row_number() {
        for board in Board::all_supported() {
            for p in 0..board.points() as u8 {
                let (x, y) = (p as usize % board.w, p as usize / board.w);
                let name = board.point_name(p);
                assert_eq!(name, format!("{}{}", (b'a' + x as u8) as char, y + 1));
                assert_eq!(board.parse_point(&name).unwrap(), p);
            }
        }
    }

    proptest! {
        /// Every symmetry of every board maps a set as its point map does, point by
        /// point: the bit operations of the reflections and the half turn, and the
        /// byte tables of the others.
        #[test]
        fn a_symmetry_maps_a_set_point_by_point(seed: u64) {
            for board in registry() {
                let set = seed & board.all();
                for g in board.symmetries() {
                    let points = bits(set).fold(0u64, |m, p| m | 1 << g.map[p as usize]);
                    prop_assert_eq!(g.apply(set), points, "{:?} on {:?}", g, board);
                }
                // The images: each symmetry's, then zeros.
                let syms = board.symmetries();
                let images = board.images(set);
                for (k, &image) in images.0.iter().enumerate() {
                    let expected = syms.get(k).map_or(0, |g| g.apply(set));
                    prop_assert_eq!(image, expected, "slot {} on {:?}", k, board);
                }
                // Fixed by a symmetry, from the images: against applying each, on the
                // set and on its unions with an image (fixed by that symmetry when it
                // is its own inverse).
                for fixed in syms.iter().map(|g| set | g.apply(set)) {
                    let reference = syms[1..].iter().any(|g| g.apply(fixed) == fixed);
                    prop_assert_eq!(board.is_fixed_by_a_symmetry(fixed), reference);
                }
            }
        }
    }
}
