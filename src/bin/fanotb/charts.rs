//! Charts of the tables, drawn with plotters: positions by depth (wins and losses)
//! for one table, and win/draw/loss shares by signature for a board. Each chart
//! renders as SVG (text, for the web page) or PNG (the font is embedded, so a PNG
//! looks the same on every machine).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use fanotb::{Board, DepthHistogram, Signature, TableInfo, TableKind, Tablebase, replace_file};
use image::codecs::png::PngEncoder;
use image::{ColorType, ImageEncoder};

use crate::args::Result;

const DEPTH_SIZE: (u32, u32) = (900, 460);
const FONT: &str = "sans-serif";
const WIN: RGBColor = RGBColor(0x1a, 0x7f, 0x37);
const DRAW: RGBColor = RGBColor(0x9a, 0xa1, 0xa9);
const LOSS: RGBColor = RGBColor(0xcf, 0x22, 0x2e);

/// A table's depth histogram, titled, with the x axis naming what depth counts.
pub struct DepthChart<'a> {
    pub title: String,
    /// "plies to the end" or "plies to the next capture (T)".
    pub depth_is: &'static str,
    pub histogram: &'a DepthHistogram,
}

/// One bar of the shares chart: a signature and its wins, draws and losses.
pub struct Share {
    pub name: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Win/draw/loss shares of a board's tables, one bar per signature.
pub struct SharesChart<'a> {
    pub title: String,
    pub bars: &'a [Share],
}

/// A chart drawable on any plotters backend.
pub trait Chart {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>>;

    /// The chart as an SVG document.
    fn svg(&self) -> std::result::Result<String, String> {
        // Text is laid out with the font's metrics, in SVG too.
        register_font();
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, self.size()).into_drawing_area();
            self.draw(&root)
                .and_then(|()| root.present())
                .map_err(|e| e.to_string())?;
        }
        Ok(out)
    }

    /// Writes the chart as `stem.svg` and `stem.png`, each whole or not at all and
    /// never through a link, FIFO or device at its name (`fanotb::replace_file`).
    fn write(&self, stem: &Path) -> std::result::Result<(), String> {
        let svg = stem.with_extension("svg");
        let text = self.svg()?;
        replace_file(&svg, |f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{}: {e}", svg.display()))?;
        let png = stem.with_extension("png");
        let (w, h) = self.size();
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            self.draw(&root)
                .and_then(|()| root.present())
                .map_err(|e| format!("{}: {e}", png.display()))?;
        }
        let mut encoded = Vec::new();
        PngEncoder::new(&mut encoded)
            .write_image(&rgb, w, h, ColorType::Rgb8)
            .map_err(|e| format!("{}: {e}", png.display()))?;
        replace_file(&png, |f| f.write_all(&encoded)).map_err(|e| format!("{}: {e}", png.display()))
    }
}

/// Text needs a font's metrics (and PNG its glyphs): the one embedded in the binary, registered once.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font = include_bytes!("fonts/DejaVuSansMono.ttf");
        // The embedded font is a valid TrueType file: tested by the PNG test.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, font);
    });
}

impl Chart for DepthChart<'_> {
    fn size(&self) -> (u32, u32) {
        DEPTH_SIZE
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let h = self.histogram;
        root.fill(&WHITE)?;
        let depths = h.max_depth() as f64 + 1.0;
        let top = h
            .wins
            .iter()
            .chain(&h.losses)
            .copied()
            .max()
            .unwrap_or(0)
            .max(1);
        // A log scale: the long tail of deep wins shows beside the bulk.
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 22))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5f64..depths - 0.5, (1f64..top as f64 * 2.0).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(self.depth_is)
            .y_desc("positions (log scale)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| short_count(*y))
            .label_style((FONT, 14))
            .draw()?;
        for (counts, colour, name) in [(&h.wins, WIN, "wins"), (&h.losses, LOSS, "losses")] {
            chart
                .draw_series(
                    counts
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| **n > 0)
                        .map(|(d, &n)| {
                            let x = d as f64;
                            Rectangle::new([(x - 0.42, 1.0), (x + 0.42, n as f64)], colour.filled())
                        }),
                )?
                .label(name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
    }
}

/// 1500000 -> "1.5M": axis labels that fit.
fn short_count(n: f64) -> String {
    let (v, unit) = match n {
        n if n >= 1e9 => (n / 1e9, "G"),
        n if n >= 1e6 => (n / 1e6, "M"),
        n if n >= 1e3 => (n / 1e3, "k"),
        n => (n, ""),
    };
    let digits = if v.fract().abs() < 1e-9 { 0 } else { 1 };
    format!("{v:.digits$}{unit}")
}

impl Chart for SharesChart<'_> {
    fn size(&self) -> (u32, u32) {
        (900, 110 + 24 * self.bars.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let n = self.bars.len();
        let (plot, key) = root.split_vertically(self.size().1 - 36);
        let mut chart = ChartBuilder::on(&plot)
            .caption(&self.title, (FONT, 22))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..100f64, -0.5f64..n as f64 - 0.5)?;
        // The first signature on top.
        let row = |i: usize| (n - 1 - i) as f64;
        let names: Vec<&str> = self.bars.iter().map(|b| b.name.as_str()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|y| {
                let r = y.round();
                let i = (n as f64 - 1.0 - r) as usize;
                match (y - r).abs() < 1e-6 && r >= 0.0 {
                    true => names.get(i).map_or("", |s| s).to_string(),
                    false => String::new(),
                }
            })
            .x_label_formatter(&|x| format!("{x:.0}"))
            .x_desc("share of positions, side to move (%)")
            .label_style((FONT, 14))
            .draw()?;
        let parts = [(WIN, "win"), (DRAW, "draw"), (LOSS, "loss")];
        for (part, (colour, _)) in parts.iter().enumerate() {
            chart.draw_series(self.bars.iter().enumerate().map(|(i, b)| {
                let total = (b.wins + b.draws + b.losses).max(1);
                let cut = [0, b.wins, b.wins + b.draws, total];
                let x = |k: usize| 100.0 * cut[k] as f64 / total as f64;
                Rectangle::new(
                    [(x(part), row(i) - 0.38), (x(part + 1), row(i) + 0.38)],
                    colour.filled(),
                )
            }))?;
        }
        // The key below the chart, where it hides no bar.
        for (k, (colour, name)) in parts.iter().enumerate() {
            let x = 90 + 110 * k as i32;
            key.draw(&Rectangle::new([(x, 8), (x + 14, 22)], colour.filled()))?;
            key.draw(&Text::new(*name, (x + 20, 8), (FONT, 15)))?;
        }
        Ok(())
    }
}

/// A table's depth chart, as `depths` of the tablebase gives it.
pub fn depth_chart<'a>(
    board: &Board,
    kind: TableKind,
    sig: Signature,
    histogram: &'a DepthHistogram,
) -> DepthChart<'a> {
    let (title, depth_is) = match kind.limit() {
        None => (
            format!("{} {sig}{kind}: positions by depth", board.size_name()),
            "plies to the end with best play",
        ),
        Some(n) => (
            format!(
                "{} {sig}, no-capture limit {n}: positions by T",
                board.size_name()
            ),
            "T: plies to the next capture",
        ),
    };
    DepthChart {
        title,
        depth_is,
        histogram,
    }
}

/// The shares of one board's tables of one kind, smallest first.
pub fn shares(tables: &[TableInfo], board: &Board, kind: TableKind) -> Vec<Share> {
    tables
        .iter()
        .filter(|t| t.board == board && t.kind == kind)
        .map(|t| Share {
            name: t.signature.to_string(),
            wins: t.stats.wins,
            draws: t.stats.draws,
            losses: t.stats.losses,
        })
        .collect()
}

pub fn shares_title(board: &Board, kind: TableKind) -> String {
    let rules = match kind {
        TableKind::Vela => ", vela".into(),
        k => k
            .limit()
            .map_or(String::new(), |n| format!(", no-capture limit {n}")),
    };
    format!(
        "{}{rules}: win, draw and loss shares by signature",
        board.size_name()
    )
}

/// Writes every table's depth chart and each board's shares chart (per kind)
/// under `out`, laid out as the tables are (`9x5/3v2-depths.svg`,
/// `9x5/n60/shares.png`, `9x5/vela/6v1-depths.svg`); returns the files written.
pub fn plot(tb: &Tablebase, tables: &[TableInfo], out: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut write = |chart: &dyn Fn(&Path) -> std::result::Result<(), String>,
                     board: &Board,
                     kind: TableKind,
                     stem: String|
     -> Result<()> {
        // Laid out as the tables are: `WxH/`, `WxH/nN/`, `WxH/vela/`.
        let mut dir = out.join(board.size_name());
        dir.extend(kind.dir_name());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let stem = dir.join(stem);
        chart(&stem)?;
        written.extend(["svg", "png"].map(|e| stem.with_extension(e)));
        Ok(())
    };
    for t in tables {
        let h = tb.depths(t.board, t.kind, t.signature)?;
        let chart = depth_chart(t.board, t.kind, t.signature, &h);
        write(
            &|s| chart.write(s),
            t.board,
            t.kind,
            format!("{}-depths", t.signature),
        )?;
    }
    let mut groups: Vec<(&'static Board, TableKind)> =
        tables.iter().map(|t| (t.board, t.kind)).collect();
    groups.dedup();
    for (board, kind) in groups {
        let bars = shares(tables, board, kind);
        let chart = SharesChart {
            title: shares_title(board, kind),
            bars: &bars,
        };
        write(&|s| chart.write(s), board, kind, "shares".into())?;
    }
    Ok(written)
}

/// The value of a game for White along its plies (1 won, 0 drawn, -1 lost; a gap
/// where no table covers the position), with its mistakes marked.
pub struct GameChart {
    pub title: String,
    /// For each position from the start, White's value if the tables cover it.
    pub values: Vec<Option<i8>>,
    /// The plies (from 1) of the moves that changed the result.
    pub mistakes: Vec<usize>,
}

impl Chart for GameChart {
    fn size(&self) -> (u32, u32) {
        (900, 360)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let plies = self.values.len().saturating_sub(1).max(1) as f64;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(110)
            .build_cartesian_2d(0f64..plies, -1.3f64..1.3f64)?;
        chart
            .configure_mesh()
            .y_labels(3)
            .y_label_formatter(&|y| match y.round() as i8 {
                1 => "White wins".into(),
                -1 => "Black wins".into(),
                _ => "draw".into(),
            })
            .x_desc("ply")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style((FONT, 14))
            .draw()?;
        // One step line a covered stretch: a position holds its value until the next.
        let mut run: Vec<(f64, f64)> = Vec::new();
        let mut runs = Vec::new();
        for (ply, v) in self.values.iter().enumerate() {
            match v {
                Some(v) => {
                    let (x, y) = (ply as f64, f64::from(*v));
                    if let Some(&(_, last)) = run.last() {
                        run.push((x, last));
                    }
                    run.push((x, y));
                }
                None => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
        for r in runs.into_iter().filter(|r| !r.is_empty()) {
            chart.draw_series(LineSeries::new(r, BLUE.stroke_width(2)))?;
        }
        chart.draw_series(self.mistakes.iter().filter_map(|&ply| {
            let v = self.values.get(ply).copied().flatten()?;
            Some(Circle::new((ply as f64, f64::from(v)), 6, LOSS.filled()))
        }))?;
        Ok(())
    }
}
