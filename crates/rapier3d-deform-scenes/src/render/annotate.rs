//! Text on a [`Canvas`]: title bands with time stamps, body labels next to the bodies they name, and legend boxes, drawn with an embedded DejaVu Sans subset through `ab_glyph`.
//!
//! The fonts are compiled in (`assets-fonts/`, licence beside them), so pictures look the same
//! on every machine and nothing depends on system fonts. Everything here is an overlay: it is
//! alpha-blended over the image and never touches the z-buffer. Draw the 3D content first, then
//! [`Canvas::draw_header`] and [`Canvas::draw_legend`] (they reserve their boxes), then
//! [`Canvas::draw_labels`] (labels keep out of reserved boxes and of each other).
//!
//! ```no_run
//! use rapier3d_deform::math::Vec3;
//! use rapier3d_deform_scenes::render::{Camera, Canvas, Corner, Label, Legend, LegendEntry, Rgb};
//! # fn main() -> rapier3d_deform::Result<()> {
//! let camera = Camera::look_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, 0.8)?;
//! let mut canvas = Canvas::new(640, 400, Rgb::WHITE)?;
//! canvas.draw_sphere(&camera, Vec3::ZERO, 0.3, Rgb::BLUE)?;
//! canvas.draw_header("demo: one ball", "a blue sphere", "t = 0.00 s");
//! let legend = Legend::new("colours").with(LegendEntry::swatch(Rgb::BLUE, "ball"));
//! canvas.draw_legend(&legend, Corner::BottomLeft);
//! canvas.draw_labels(&camera, &[Label::new(Vec3::new(0.0, 0.3, 0.0), "ball 0")]);
//! # Ok(()) }
//! ```

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use rapier3d_deform::math::Vec3;

use super::{Camera, Canvas, DENT_COLOUR, Rgb};

/// DejaVu Sans, Basic Latin + Latin-1 + a few dashes, arrows and maths signs (see
/// `assets-fonts/README.md`).
/// The embedded regular font (DejaVu Sans, Latin subset): also what the benchmark charts draw with.
pub static REGULAR_TTF: &[u8] = include_bytes!("../../assets-fonts/DejaVuSans-Latin.ttf");
/// DejaVu Sans Bold, the same subset.
static BOLD_TTF: &[u8] = include_bytes!("../../assets-fonts/DejaVuSans-Bold-Latin.ttf");

/// The embedded font, regular or bold (parsed once).
fn font(bold: bool) -> &'static FontRef<'static> {
    static FONTS: OnceLock<[FontRef<'static>; 2]> = OnceLock::new();
    &FONTS.get_or_init(|| {
        [REGULAR_TTF, BOLD_TTF]
            .map(|bytes| FontRef::try_from_slice(bytes).expect("the embedded font parses"))
    })[bold as usize]
}

/// Size (pixel height of a line), weight and colour of overlay text.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextStyle {
    /// Font size in pixels (the em height).
    pub size: f32,
    /// Text colour.
    pub colour: Rgb,
    /// Bold or regular.
    pub bold: bool,
}

impl TextStyle {
    /// Regular black text of `size` pixels.
    ///
    /// # Performance
    /// O(1).
    pub const fn regular(size: f32) -> Self {
        Self {
            size,
            colour: TEXT_COLOUR,
            bold: false,
        }
    }

    /// Bold black text of `size` pixels.
    ///
    /// # Performance
    /// O(1).
    pub const fn bold(size: f32) -> Self {
        Self {
            size,
            colour: TEXT_COLOUR,
            bold: true,
        }
    }

    /// The same style in another colour.
    ///
    /// # Performance
    /// O(1).
    pub const fn with_colour(self, colour: Rgb) -> Self {
        Self { colour, ..self }
    }

    /// Width and line height in pixels of `text` set in this style (one line).
    ///
    /// # Performance
    /// O(characters).
    pub fn measure(&self, text: &str) -> (f32, f32) {
        let font = font(self.bold).as_scaled(PxScale::from(self.size));
        let mut width = 0.0;
        let mut previous = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                width += font.kern(p, id);
            }
            width += font.h_advance(id);
            previous = Some(id);
        }
        (width, font.ascent() - font.descent())
    }
}

/// Near-black text.
const TEXT_COLOUR: Rgb = Rgb::new(0.08, 0.08, 0.1);
/// Background of boxes (header band, legend, labels).
const PANEL_COLOUR: Rgb = Rgb::new(1.0, 1.0, 1.0);
/// Opacity of box backgrounds.
const PANEL_OPACITY: f32 = 0.86;
/// Box borders and leader lines.
const EDGE_COLOUR: Rgb = Rgb::new(0.3, 0.3, 0.34);

/// A text label for a point of the scene, drawn next to where the point projects with a leader
/// line to it (see [`Canvas::draw_labels`]).
///
/// # Performance
/// Plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The world point the label names (for a body: the top of its bounding box).
    pub anchor: Vec3,
    /// The text, e.g. `"car 3"`.
    pub text: String,
    /// A colour swatch drawn before the text (the body's paint), if any.
    pub swatch: Option<Rgb>,
}

impl Label {
    /// A label without a swatch.
    ///
    /// # Performance
    /// O(length of the text).
    pub fn new(anchor: Vec3, text: impl Into<String>) -> Self {
        Self {
            anchor,
            text: text.into(),
            swatch: None,
        }
    }

    /// The same label with a colour swatch.
    ///
    /// # Performance
    /// O(1).
    pub fn with_swatch(self, colour: Rgb) -> Self {
        Self {
            swatch: Some(colour),
            ..self
        }
    }

    /// A label anchored on the body whose world vertices are `points`: at the vertex nearest to
    /// the top centre of their bounding box (a car's roof, a barrel's lid, an animal's back).
    ///
    /// # Performance
    /// O(points).
    pub fn above(points: &[Vec3], text: impl Into<String>) -> Self {
        let (lo, hi) = points
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
        let top = Vec3::new(0.5 * (lo.x + hi.x), hi.y, 0.5 * (lo.z + hi.z));
        let anchor = points
            .iter()
            .copied()
            .min_by(|a, b| {
                (*a - top)
                    .length_squared()
                    .total_cmp(&(*b - top).length_squared())
            })
            .unwrap_or(Vec3::ZERO);
        Self::new(anchor, text)
    }
}

/// One row of a [`Legend`].
///
/// # Performance
/// Plain data.
#[derive(Clone, Debug, PartialEq)]
pub enum LegendEntry {
    /// A colour square and what it means.
    Swatch {
        /// The colour.
        colour: Rgb,
        /// What it means.
        text: String,
    },
    /// A colour ramp from `from` to `to` with the values at its ends, and what it measures.
    Ramp {
        /// Colour at the low end.
        from: Rgb,
        /// Colour at the high end.
        to: Rgb,
        /// Value at the low end.
        low: String,
        /// Value at the high end.
        high: String,
        /// What the ramp measures.
        text: String,
    },
}

impl LegendEntry {
    /// A colour square.
    ///
    /// # Performance
    /// O(length of the text).
    pub fn swatch(colour: Rgb, text: impl Into<String>) -> Self {
        Self::Swatch {
            colour,
            text: text.into(),
        }
    }

    /// The dent ramp of [`super::dent_tint`]: from `paint` (no dent) to [`DENT_COLOUR`] at a
    /// plastic displacement of `full_scale` metres (shown in cm), titled `what`.
    ///
    /// # Performance
    /// O(length of the text).
    pub fn dent_ramp(paint: Rgb, full_scale: f32, what: impl Into<String>) -> Self {
        Self::Ramp {
            from: paint,
            to: DENT_COLOUR,
            low: "0 cm".to_string(),
            high: format!("≥ {:.0} cm", 100.0 * full_scale),
            text: what.into(),
        }
    }
}

/// A box that says what each colour of a picture means.
///
/// # Performance
/// Plain data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Legend {
    /// Bold first line (may be empty).
    pub title: String,
    /// The rows, top to bottom.
    pub entries: Vec<LegendEntry>,
}

impl Legend {
    /// A legend with a title and no rows.
    ///
    /// # Performance
    /// O(length of the title).
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            entries: Vec::new(),
        }
    }

    /// The legend with one more row.
    ///
    /// # Performance
    /// Amortised O(1).
    pub fn with(mut self, entry: LegendEntry) -> Self {
        self.entries.push(entry);
        self
    }
}

/// A corner of the canvas to put a box in.
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corner {
    /// Top left (below the header band).
    TopLeft,
    /// Top right (below the header band).
    TopRight,
    /// Bottom left.
    BottomLeft,
    /// Bottom right.
    BottomRight,
}

/// Sizes of a legend's parts on a canvas of a given width.
struct LegendMetrics {
    s: f32,
    regular: TextStyle,
    bold: TextStyle,
    pad: f32,
    line: f32,
    swatch: f32,
    ramp_w: f32,
}

impl LegendMetrics {
    fn new(width: usize) -> Self {
        let s = text_size(width);
        let regular = TextStyle::regular(s);
        Self {
            s,
            regular,
            bold: TextStyle::bold(s),
            pad: (0.6 * s).round(),
            line: regular.measure("Ag").1,
            swatch: (0.8 * s).round(),
            ramp_w: (8.0 * s).round(),
        }
    }
}

/// An axis-aligned screen rectangle `[x, y, width, height]` in pixels.
pub(super) type Rect = [f32; 4];

fn title_size(width: usize) -> f32 {
    (width as f32 / 1280.0 * 26.0).clamp(18.0, 30.0)
}

fn text_size(width: usize) -> f32 {
    (width as f32 / 1280.0 * 18.0).clamp(14.0, 20.0)
}

/// Area of the intersection of `a` grown by `margin` with `b`.
fn overlap_area(a: Rect, b: Rect, margin: f32) -> f32 {
    let w = (a[0] + a[2] + margin).min(b[0] + b[2]) - (a[0] - margin).max(b[0]);
    let h = (a[1] + a[3] + margin).min(b[1] + b[3]) - (a[1] - margin).max(b[1]);
    w.max(0.0) * h.max(0.0)
}

impl Canvas {
    /// Font size in pixels for titles on this canvas (scales with its width).
    ///
    /// # Performance
    /// O(1).
    pub fn title_size(&self) -> f32 {
        title_size(self.width)
    }

    /// Font size in pixels for labels, legends and subtitles on this canvas.
    ///
    /// # Performance
    /// O(1).
    pub fn text_size(&self) -> f32 {
        text_size(self.width)
    }

    /// Height in pixels of the band [`Canvas::draw_header`] draws on a canvas `width` pixels wide,
    /// with or without a subtitle (to leave room for it above panels laid out below).
    ///
    /// # Performance
    /// O(1).
    pub fn header_height(width: usize, subtitle: bool) -> f32 {
        let big = TextStyle::bold(title_size(width));
        let small = TextStyle::regular(text_size(width));
        let pad = (0.4 * big.size).round();
        let sub = if subtitle { small.measure("Ag").1 } else { 0.0 };
        (pad + big.measure("Ag").1 + sub + 0.6 * pad).round()
    }

    /// Blends `colour` over pixel `(x, y)` with opacity `alpha` (ignored outside the canvas).
    #[inline]
    fn blend(&mut self, x: i64, y: i64, colour: Rgb, alpha: f32) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let a = alpha.clamp(0.0, 1.0);
        if a <= 0.0 {
            return;
        }
        let i = y as usize * self.width + x as usize;
        let [r, g, b] = self.colour[i];
        let under = Rgb::from_u8(r, g, b);
        self.colour[i] = under.lerp(colour, a).to_u8();
    }

    /// Fills the screen rectangle at `(x, y)` (top-left, pixels) of size `w × h` with `colour` at
    /// `opacity`, over the image (no depth test).
    ///
    /// # Performance
    /// O(covered pixels).
    pub fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: Rgb, opacity: f32) {
        let (x0, y0) = (x.round() as i64, y.round() as i64);
        let (x1, y1) = ((x + w).round() as i64, (y + h).round() as i64);
        for py in y0.max(0)..y1.min(self.height as i64) {
            for px in x0.max(0)..x1.min(self.width as i64) {
                self.blend(px, py, colour, opacity);
            }
        }
    }

    /// Draws the one-pixel outline of a screen rectangle.
    ///
    /// # Performance
    /// O(perimeter).
    pub fn stroke_rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: Rgb) {
        let (x0, y0) = (x.round(), y.round());
        let (x1, y1) = ((x + w).round() - 1.0, (y + h).round() - 1.0);
        self.draw_line2((x0, y0), (x1, y0), colour);
        self.draw_line2((x0, y1), (x1, y1), colour);
        self.draw_line2((x0, y0), (x0, y1), colour);
        self.draw_line2((x1, y0), (x1, y1), colour);
    }

    /// Draws a one-pixel screen-space line from `a` to `b` (pixels), over the image.
    ///
    /// # Performance
    /// O(length in pixels).
    pub fn draw_line2(&mut self, a: (f32, f32), b: (f32, f32), colour: Rgb) {
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            return;
        }
        let steps = (b.0 - a.0)
            .abs()
            .max((b.1 - a.1).abs())
            .ceil()
            .clamp(1.0, 4.0 * (self.width + self.height) as f32) as usize;
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            self.blend(x.round() as i64, y.round() as i64, colour, 1.0);
        }
    }

    /// Draws one line of `text` with its top-left corner at `(x, y)` (pixels), anti-aliased over
    /// the image; returns its width and line height.
    ///
    /// # Performance
    /// O(characters + covered pixels).
    pub fn draw_text(&mut self, x: f32, y: f32, text: &str, style: TextStyle) -> (f32, f32) {
        let font = font(style.bold).as_scaled(PxScale::from(style.size));
        let baseline = y + font.ascent();
        let mut caret = x;
        let mut previous = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                caret += font.kern(p, id);
            }
            let glyph = id.with_scale_and_position(style.size, point(caret, baseline));
            if let Some(outlined) = font.outline_glyph(glyph) {
                let bounds = outlined.px_bounds();
                let (ox, oy) = (bounds.min.x as i64, bounds.min.y as i64);
                outlined.draw(|gx, gy, coverage| {
                    self.blend(ox + gx as i64, oy + gy as i64, style.colour, coverage);
                });
            }
            caret += font.h_advance(id);
            previous = Some(id);
        }
        (caret - x, font.ascent() - font.descent())
    }

    /// Draws a translucent white band across the top of the canvas with `title` in bold on the
    /// left, `subtitle` (may be empty) below it, and `stamp` (the simulation time and/or frame)
    /// in bold on the right; reserves the band so that labels keep out of it. Returns the band
    /// height in pixels.
    ///
    /// # Performance
    /// O(width · band height).
    pub fn draw_header(&mut self, title: &str, subtitle: &str, stamp: &str) -> f32 {
        let big = TextStyle::bold(self.title_size());
        let small = TextStyle::regular(self.text_size());
        let pad = (0.4 * big.size).round();
        let title_h = big.measure("Ag").1;
        let band = Self::header_height(self.width, !subtitle.is_empty());
        let width = self.width as f32;
        self.fill_rect(0.0, 0.0, width, band, PANEL_COLOUR, PANEL_OPACITY);
        self.draw_line2((0.0, band), (width - 1.0, band), EDGE_COLOUR);
        let (stamp_w, _) = big.measure(stamp);
        self.draw_text(width - pad - stamp_w, pad, stamp, big);
        self.draw_text(pad, pad, title, big);
        if !subtitle.is_empty() {
            self.draw_text(pad, pad + title_h, subtitle, small);
        }
        self.header_bottom = self.header_bottom.max(band + 1.0);
        self.reserved.push([0.0, 0.0, width, band + 1.0]);
        band
    }

    /// Width and height in pixels of the box [`Canvas::draw_legend`] draws for `legend` on a
    /// canvas `width` pixels wide (to leave room for it).
    ///
    /// # Performance
    /// O(characters of the legend).
    pub fn legend_size(width: usize, legend: &Legend) -> (f32, f32) {
        let m = LegendMetrics::new(width);
        let mut w: f32 = 0.0;
        let mut h = 0.0;
        if !legend.title.is_empty() {
            w = w.max(m.bold.measure(&legend.title).0);
            h += m.line + 0.2 * m.s;
        }
        for entry in &legend.entries {
            match entry {
                LegendEntry::Swatch { text, .. } => {
                    w = w.max(m.swatch + 0.5 * m.s + m.regular.measure(text).0);
                    h += m.line;
                }
                LegendEntry::Ramp {
                    low, high, text, ..
                } => {
                    let ends = m.regular.measure(low).0 + m.regular.measure(high).0;
                    w = w
                        .max(m.regular.measure(text).0)
                        .max(m.ramp_w.max(ends + m.s));
                    h += 2.0 * m.line + m.swatch + 0.2 * m.s;
                }
            }
        }
        ((w + 2.0 * m.pad).ceil(), (h + 2.0 * m.pad).ceil())
    }

    /// Draws `legend` as a box in `corner` (top corners sit below the header band) and reserves
    /// it so that labels keep out of it. Returns the box as `[x, y, width, height]`.
    ///
    /// # Performance
    /// O(box pixels).
    pub fn draw_legend(&mut self, legend: &Legend, corner: Corner) -> [f32; 4] {
        let m = LegendMetrics::new(self.width);
        let (bw, bh) = Self::legend_size(self.width, legend);
        let (width, height) = (self.width as f32, self.height as f32);
        let (x, y) = match corner {
            Corner::TopLeft => (m.pad, self.header_bottom + m.pad),
            Corner::TopRight => (width - m.pad - bw, self.header_bottom + m.pad),
            Corner::BottomLeft => (m.pad, height - m.pad - bh),
            Corner::BottomRight => (width - m.pad - bw, height - m.pad - bh),
        };
        self.fill_rect(x, y, bw, bh, PANEL_COLOUR, PANEL_OPACITY);
        self.stroke_rect(x, y, bw, bh, EDGE_COLOUR);
        let (left, mut cy) = (x + m.pad, y + m.pad);
        let inner = bw - 2.0 * m.pad;
        if !legend.title.is_empty() {
            self.draw_text(left, cy, &legend.title, m.bold);
            cy += m.line + 0.2 * m.s;
        }
        for entry in &legend.entries {
            match entry {
                LegendEntry::Swatch { colour, text } => {
                    let sy = cy + 0.5 * (m.line - m.swatch);
                    self.fill_rect(left, sy, m.swatch, m.swatch, *colour, 1.0);
                    self.stroke_rect(left, sy, m.swatch, m.swatch, EDGE_COLOUR);
                    self.draw_text(left + m.swatch + 0.5 * m.s, cy, text, m.regular);
                    cy += m.line;
                }
                LegendEntry::Ramp {
                    from,
                    to,
                    low,
                    high,
                    text,
                } => {
                    self.draw_text(left, cy, text, m.regular);
                    cy += m.line;
                    // The gradient inside the one-pixel border: its first and last columns
                    // are exactly `from` and `to`.
                    self.stroke_rect(left, cy, inner, m.swatch, EDGE_COLOUR);
                    let steps = (inner.round() - 2.0).max(1.0) as usize;
                    for k in 0..steps {
                        let c = from.lerp(*to, k as f32 / (steps - 1).max(1) as f32);
                        self.fill_rect(
                            left + 1.0 + k as f32,
                            cy + 1.0,
                            1.0,
                            m.swatch - 2.0,
                            c,
                            1.0,
                        );
                    }
                    cy += m.swatch + 0.2 * m.s;
                    self.draw_text(left, cy, low, m.regular);
                    let high_w = m.regular.measure(high).0;
                    self.draw_text(left + inner - high_w, cy, high, m.regular);
                    cy += m.line;
                }
            }
        }
        let rect = [x, y, bw, bh];
        self.reserved.push(rect);
        rect
    }

    /// Draws each label in a small box next to where its anchor projects, with a leader line
    /// and a dot at the anchor. Boxes keep out of each other, of the anchor dots and of reserved
    /// boxes (header, legends): the first free place among 12 directions at 8 growing distances
    /// around the anchor, else the least covered one. Labels whose anchor is behind the camera,
    /// outside the image or under a reserved box are skipped. Returns the boxes drawn, in the
    /// order of `labels` (`None` for a skipped label).
    ///
    /// # Performance
    /// O(labels · (labels + reserved boxes) · 96 + label pixels).
    pub fn draw_labels(&mut self, camera: &Camera, labels: &[Label]) -> Vec<Option<[f32; 4]>> {
        let style = TextStyle::bold(self.text_size());
        let pad = (0.3 * style.size).round();
        let gap = (0.8 * style.size).round();
        let swatch = (0.7 * style.size).round();
        let (width, height) = (self.width as f32, self.height as f32);
        let anchors: Vec<Option<(f32, f32)>> = labels
            .iter()
            .map(|l| {
                camera
                    .project(l.anchor, self.width, self.height)
                    .map(|(x, y, _)| (x, y))
                    .filter(|&(x, y)| x >= 0.0 && x < width && y >= 0.0 && y < height)
                    .filter(|&(x, y)| {
                        !self
                            .reserved
                            .iter()
                            .any(|r| x >= r[0] && x <= r[0] + r[2] && y >= r[1] && y <= r[1] + r[3])
                    })
            })
            .collect();
        // Every anchor dot is an obstacle for every box.
        let dots: Vec<Rect> = anchors
            .iter()
            .flatten()
            .map(|&(x, y)| [x - 3.0, y - 3.0, 6.0, 6.0])
            .collect();
        let mut placed: Vec<Rect> = Vec::new();
        let mut out = Vec::with_capacity(labels.len());
        for (label, anchor) in labels.iter().zip(&anchors) {
            let Some((ax, ay)) = *anchor else {
                out.push(None);
                continue;
            };
            let (tw, th) = style.measure(&label.text);
            let sw = if label.swatch.is_some() {
                swatch + pad
            } else {
                0.0
            };
            let (bw, bh) = ((tw + sw + 2.0 * pad).ceil(), (th + pad).ceil());
            // Around the anchor at growing distances, preferred directions first (above, to
            // the sides, below); the first free place wins, else the least covered one.
            const ANGLES: [f32; 12] = [
                -90.0, -60.0, -120.0, -30.0, -150.0, 0.0, 180.0, 30.0, 150.0, 60.0, 120.0, 90.0,
            ];
            let mut best: Option<((f32, f32), f32)> = None;
            'search: for ring in 1..=8 {
                let r = gap * ring as f32;
                for angle in ANGLES {
                    let (sin, cos) = angle.to_radians().sin_cos();
                    let reach = r + 0.5 * (cos.abs() * bw + sin.abs() * bh);
                    let (x, y) = (ax + cos * reach - 0.5 * bw, ay + sin * reach - 0.5 * bh);
                    if !(x >= 1.0 && y >= 1.0 && x + bw <= width - 1.0 && y + bh <= height - 1.0) {
                        continue;
                    }
                    let rect = [x, y, bw, bh];
                    let covered: f32 = placed
                        .iter()
                        .chain(&self.reserved)
                        .map(|&o| overlap_area(rect, o, 2.0))
                        .chain(dots.iter().map(|&d| overlap_area(rect, d, 0.0)))
                        .sum();
                    // Nearer places win ties.
                    if best.is_none_or(|(_, c)| covered < c) {
                        best = Some(((x, y), covered));
                    }
                    if covered == 0.0 {
                        break 'search;
                    }
                }
            }
            let (x, y) = best.map_or(
                (
                    (ax - 0.5 * bw).clamp(1.0, (width - bw - 1.0).max(1.0)),
                    (ay - gap - bh).clamp(1.0, (height - bh - 1.0).max(1.0)),
                ),
                |(p, _)| p,
            );
            // Leader from the anchor to the nearest point of the box.
            let near = (ax.clamp(x, x + bw), ay.clamp(y, y + bh));
            self.draw_line2((ax, ay), near, EDGE_COLOUR);
            self.fill_rect(ax - 2.0, ay - 2.0, 4.0, 4.0, TEXT_COLOUR, 1.0);
            self.fill_rect(x, y, bw, bh, PANEL_COLOUR, PANEL_OPACITY);
            self.stroke_rect(x, y, bw, bh, EDGE_COLOUR);
            if let Some(c) = label.swatch {
                let sy = y + 0.5 * (bh - swatch);
                self.fill_rect(x + pad, sy, swatch, swatch, c, 1.0);
                self.stroke_rect(x + pad, sy, swatch, swatch, EDGE_COLOUR);
            }
            self.draw_text(x + pad + sw, y + 0.5 * pad, &label.text, style);
            let r = [x, y, bw, bh];
            placed.push(r);
            out.push(Some(r));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: Rect, b: Rect, margin: f32) -> bool {
        overlap_area(a, b, margin) > 0.0
    }

    fn ink(canvas: &Canvas, r: [f32; 4], background: [u8; 3]) -> usize {
        let mut n = 0;
        for y in r[1] as usize..(r[1] + r[3]) as usize {
            for x in r[0] as usize..(r[0] + r[2]) as usize {
                if canvas.pixel(x, y).is_some_and(|p| p != background) {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn embedded_fonts_cover_the_characters_the_examples_use() {
        for bold in [false, true] {
            let f = font(bold);
            for c in "AZaz09 =·–—→≈≤≥±°µ×…".chars() {
                assert_ne!(f.glyph_id(c).0, 0, "{c:?} missing (bold: {bold})");
            }
        }
    }

    #[test]
    fn text_is_drawn_where_measured_and_nowhere_else() {
        let mut canvas = Canvas::new(200, 60, Rgb::WHITE).unwrap();
        let style = TextStyle::regular(20.0);
        let (w, h) = canvas.draw_text(10.0, 10.0, "t = 1.25 s", style);
        let (mw, mh) = style.measure("t = 1.25 s");
        assert!((w - mw).abs() < 1e-3 && h == mh, "{w} {h} vs {mw} {mh}");
        assert!(w > 60.0 && w < 120.0 && h > 18.0 && h < 30.0, "{w} {h}");
        let white = Rgb::WHITE.to_u8();
        assert!(ink(&canvas, [10.0, 10.0, w, h], white) > 50);
        assert_eq!(ink(&canvas, [0.0, 0.0, 200.0, 8.0], white), 0);
        assert_eq!(
            ink(&canvas, [12.0 + w, 0.0, 200.0 - 12.0 - w, 60.0], white),
            0
        );
        // Bold is wider.
        assert!(TextStyle::bold(20.0).measure("car 3").0 > style.measure("car 3").0);
    }

    #[test]
    fn labels_avoid_each_other_and_the_header() {
        let camera = Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 1.0).unwrap();
        let mut canvas = Canvas::new(400, 300, Rgb::WHITE).unwrap();
        let band = canvas.draw_header("title", "subtitle", "t = 0.00 s");
        assert!(band > 20.0);
        let labels: Vec<Label> = (0..4)
            .map(|i| Label::new(Vec3::new(0.02 * i as f32, 0.0, 0.0), format!("car {i}")))
            .chain([
                Label::new(Vec3::new(0.0, 1.6, 0.0), "top").with_swatch(Rgb::RED),
                Label::new(Vec3::new(0.0, 0.0, 9.0), "behind"),
                Label::new(Vec3::new(0.0, 2.6, 0.0), "under the header"),
            ])
            .collect();
        let boxes = canvas.draw_labels(&camera, &labels);
        assert!(boxes[5].is_none(), "behind the camera: skipped");
        assert!(boxes[6].is_none(), "anchor under the header: skipped");
        let drawn: Vec<[f32; 4]> = boxes.iter().flatten().copied().collect();
        assert_eq!(drawn.len(), 5);
        for (i, a) in drawn.iter().enumerate() {
            assert!(a[1] >= band, "label {i} under the header: {a:?}");
            for b in &drawn[i + 1..] {
                assert!(!overlaps(*a, *b, 0.0), "{a:?} {b:?}");
            }
        }
        // Each box is close to its anchor.
        let (ax, ay, _) = camera.project(Vec3::ZERO, 400, 300).unwrap();
        let b = drawn[0];
        let dx = (ax - ax.clamp(b[0], b[0] + b[2])).abs();
        let dy = (ay - ay.clamp(b[1], b[1] + b[3])).abs();
        assert!(dx + dy < 80.0, "{b:?} vs ({ax}, {ay})");
    }

    #[test]
    fn legend_sits_in_its_corner_and_shows_the_dent_ramp() {
        let mut canvas = Canvas::new(500, 400, Rgb::WHITE).unwrap();
        let band = canvas.draw_header("t", "", "s");
        let legend = Legend::new("colours")
            .with(LegendEntry::swatch(Rgb::BLUE, "car paint"))
            .with(LegendEntry::dent_ramp(Rgb::GREY, 0.35, "dent depth"));
        let r = canvas.draw_legend(&legend, Corner::TopRight);
        assert!(r[1] > band && r[0] + r[2] < 500.0 && r[0] > 250.0, "{r:?}");
        let r = canvas.draw_legend(&legend, Corner::BottomLeft);
        assert!(
            r[0] < 20.0 && r[1] + r[3] < 400.0 && r[1] + r[3] > 380.0,
            "{r:?}"
        );
        // The ramp's high end is the dent colour.
        let dent = DENT_COLOUR.to_u8();
        let found = (r[1] as usize..(r[1] + r[3]) as usize).any(|y| {
            (r[0] as usize..(r[0] + r[2]) as usize).any(|x| canvas.pixel(x, y) == Some(dent))
        });
        assert!(found, "dent colour in the ramp");
        assert!(matches!(
            LegendEntry::dent_ramp(Rgb::GREY, 0.35, "d"),
            LegendEntry::Ramp { ref high, .. } if high == "≥ 35 cm"
        ));
    }
}
