//! A small z-buffered software rasterizer that writes PNGs: Lambert-shaded meshes, 3D lines, boxes and sphere discs.
//!
//! Examples and benchmarks use it to show what a scene does without a GPU or a window:
//!
//! ```no_run
//! use rapier3d_deform::math::Vec3;
//! use rapier3d_deform_scenes::render::{Camera, Canvas, MeshColours, Rgb, Shading};
//! # fn main() -> rapier3d_deform::Result<()> {
//! let camera = Camera::look_at(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, 0.8)?;
//! let mut canvas = Canvas::new(320, 240, Rgb::WHITE)?;
//! let positions = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
//! canvas.draw_mesh(&camera, &positions, &[[0, 1, 2]], MeshColours::Uniform(Rgb::ORANGE), Shading::Flat)?;
//! canvas.draw_sphere(&camera, Vec3::new(0.0, 0.0, 0.5), 0.2, Rgb::BLUE)?;
//! canvas.save_png("out/triangle.png")?;
//! # Ok(()) }
//! ```
//!
//! Conventions: view space has `x` to the right, `y` up and `z` the depth in front of the camera;
//! the z-buffer stores `1 / z`, which is affine in screen space for triangles and lines, so depth is
//! interpolated exactly. Geometry is drawn two-sided (a back face is shaded with its flipped
//! normal). Primitives that reach behind the near plane are clipped (lines) or skipped (triangles).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::math::Vec3;

pub mod annotate;
pub mod debug_lines;

pub use annotate::{Corner, Label, Legend, LegendEntry, REGULAR_TTF, TextStyle};
pub use debug_lines::{CanvasLines, RecordedLines};

/// The colour of plastic deformation in every picture: a body's paint is blended towards it by
/// how far a vertex moved from its rest position ([`dent_tint`]), full at the legend's scale.
pub const DENT_COLOUR: Rgb = Rgb::new(0.93, 0.07, 0.05);

/// The colour of self-colliding triangles in every picture.
pub const SELF_COLLISION_COLOUR: Rgb = Rgb::new(0.85, 0.1, 0.85);

/// A vertex colour showing a dent: `paint` blended towards [`DENT_COLOUR`] by
/// `displacement / full_scale` (clamped to `[0, 1]`; a non-positive scale shows no dent).
///
/// The legend entry that explains it is [`LegendEntry::dent_ramp`].
///
/// # Performance
/// O(1).
#[inline]
pub fn dent_tint(paint: Rgb, displacement: f32, full_scale: f32) -> Rgb {
    let t = if full_scale > 0.0 {
        (displacement / full_scale).clamp(0.0, 1.0)
    } else {
        0.0
    };
    paint.lerp(DENT_COLOUR, if t.is_nan() { 0.0 } else { t })
}

/// The file name of frame `index` of a picture sequence taken at simulation time `t` seconds:
/// `<sequence>_<index, 3 digits>_t<t>s.png`, so that names sort by time within a sequence.
///
/// # Performance
/// O(length of the name).
pub fn frame_file_name(sequence: &str, index: usize, t: f32) -> String {
    format!("{sequence}_{index:03}_t{t:.3}s.png")
}

/// Removes the files directly in `dir` whose extension is one of `extensions` (a previous run's
/// pictures), so that the folder then holds exactly what the run writes; creates `dir` if
/// missing. Returns how many files were removed.
///
/// # Errors
/// [`DeformError::FileWrite`] naming the folder or file that could not be created or removed.
///
/// # Performance
/// O(entries in `dir`).
pub fn clear_outputs(dir: impl AsRef<Path>, extensions: &[&str]) -> Result<usize> {
    let dir = dir.as_ref();
    let fail = |path: &Path, e: std::io::Error| DeformError::FileWrite {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let mut removed = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| fail(dir, e))? {
        let path = entry.map_err(|e| fail(dir, e))?.path();
        let matches = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e));
        if matches && path.is_file() {
            std::fs::remove_file(&path).map_err(|e| fail(&path, e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The files an example wrote, with a line saying what each shows, printed at the end of a run.
///
/// # Performance
/// O(1) per file recorded.
#[derive(Clone, Debug, Default)]
pub struct WrittenFiles {
    files: Vec<(PathBuf, String)>,
}

impl WrittenFiles {
    /// An empty list.
    ///
    /// # Performance
    /// O(1).
    pub fn new() -> Self {
        Self::default()
    }

    /// Saves `canvas` as a PNG at `path` ([`Canvas::save_png`]) and records it with `what`.
    ///
    /// # Errors
    /// As [`Canvas::save_png`].
    ///
    /// # Performance
    /// O(width · height).
    pub fn save_png(
        &mut self,
        canvas: &Canvas,
        path: impl AsRef<Path>,
        what: impl Into<String>,
    ) -> Result<()> {
        canvas.save_png(path.as_ref())?;
        self.record(path, what);
        Ok(())
    }

    /// Records a file written by other means.
    ///
    /// # Performance
    /// O(1).
    pub fn record(&mut self, path: impl AsRef<Path>, what: impl Into<String>) {
        self.files.push((path.as_ref().to_path_buf(), what.into()));
    }

    /// The recorded files with their descriptions, in the order written.
    ///
    /// # Performance
    /// O(1).
    pub fn files(&self) -> &[(PathBuf, String)] {
        &self.files
    }

    /// Prints `wrote N files:` and one line per file (path, then what it shows).
    ///
    /// # Performance
    /// O(files).
    pub fn print_summary(&self) {
        println!("wrote {} files:", self.files.len());
        let width = self
            .files
            .iter()
            .map(|(p, _)| p.display().to_string().chars().count())
            .max()
            .unwrap_or(0);
        for (path, what) in &self.files {
            println!("  {:<width$}  {what}", path.display().to_string());
        }
    }
}

/// An RGB colour with components in `[0, 1]` (written to the PNG as 8-bit sRGB values as is).
///
/// # Performance
/// Plain data; every operation is O(1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgb {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
}

impl Rgb {
    /// White.
    pub const WHITE: Self = Self::new(1.0, 1.0, 1.0);
    /// Black.
    pub const BLACK: Self = Self::new(0.0, 0.0, 0.0);
    /// Mid grey.
    pub const GREY: Self = Self::new(0.5, 0.5, 0.5);
    /// Red.
    pub const RED: Self = Self::new(0.85, 0.15, 0.12);
    /// Green.
    pub const GREEN: Self = Self::new(0.2, 0.7, 0.25);
    /// Blue.
    pub const BLUE: Self = Self::new(0.15, 0.35, 0.85);
    /// Orange (the default cat colour).
    pub const ORANGE: Self = Self::new(0.95, 0.6, 0.25);

    /// From components in `[0, 1]`.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub const fn new(r: f32, g: f32, b: f32) -> Self {
        Self { r, g, b }
    }

    /// From 8-bit components.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn from_u8(r: u8, g: u8, b: u8) -> Self {
        Self::new(r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0)
    }

    /// Componentwise `self · (1 − t) + other · t`.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn lerp(self, other: Self, t: f32) -> Self {
        Self::new(
            self.r + (other.r - self.r) * t,
            self.g + (other.g - self.g) * t,
            self.b + (other.b - self.b) * t,
        )
    }

    /// The colour scaled by `k` (shading).
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn scaled(self, k: f32) -> Self {
        Self::new(self.r * k, self.g * k, self.b * k)
    }

    /// Clamped and rounded 8-bit components (NaN maps to 0).
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn to_u8(self) -> [u8; 3] {
        let q = |c: f32| (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
        [q(self.r), q(self.g), q(self.b)]
    }
}

/// A pinhole camera: eye position, orthonormal view frame and vertical field of view.
///
/// # Performance
/// Building and projecting are O(1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    eye: Vec3,
    right: Vec3,
    up: Vec3,
    forward: Vec3,
    tan_half_fov: f32,
    near: f32,
}

impl Camera {
    /// Near-plane distance as a fraction of the eye–target distance.
    const NEAR_FRACTION: f32 = 1e-3;

    /// A camera at `eye` looking at `target` with world up `+Y` (falling back to `+Z` when looking
    /// straight up or down) and vertical field of view `fov_y` radians.
    ///
    /// # Errors
    /// [`DeformError::NonFinitePosition`] for a non-finite eye or target,
    /// [`DeformError::InvalidParameter`] when `eye == target` or `fov_y` is not in `(0, π)`.
    ///
    /// # Performance
    /// O(1).
    pub fn look_at(eye: Vec3, target: Vec3, fov_y: f32) -> Result<Self> {
        let forward = target - eye;
        let up = if forward.normalize_or_zero().cross(Vec3::Y).length() < 1e-3 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        Self::look_at_with_up(eye, target, up, fov_y)
    }

    /// Like [`Camera::look_at`] with an explicit world `up` direction.
    ///
    /// # Errors
    /// As [`Camera::look_at`], plus [`DeformError::InvalidParameter`] when `up` is parallel to the
    /// view direction.
    ///
    /// # Performance
    /// O(1).
    pub fn look_at_with_up(eye: Vec3, target: Vec3, up: Vec3, fov_y: f32) -> Result<Self> {
        for (index, p) in [eye, target, up].into_iter().enumerate() {
            if !p.is_finite() {
                return Err(DeformError::NonFinitePosition {
                    what: "camera eye/target/up",
                    index,
                });
            }
        }
        if !(fov_y > 0.0 && fov_y < std::f32::consts::PI) {
            return Err(DeformError::InvalidParameter {
                name: "fov_y",
                value: fov_y,
                reason: "the vertical field of view must be in (0, π) radians",
            });
        }
        let distance = (target - eye).length();
        if distance <= 0.0 {
            return Err(DeformError::InvalidParameter {
                name: "eye-target distance",
                value: distance,
                reason: "eye and target must differ",
            });
        }
        let forward = (target - eye) / distance;
        let right = forward.cross(up);
        if right.length() < 1e-6 {
            return Err(DeformError::InvalidParameter {
                name: "up",
                value: right.length(),
                reason: "up must not be parallel to the view direction",
            });
        }
        let right = right.normalize();
        Ok(Self {
            eye,
            right,
            up: right.cross(forward),
            forward,
            tan_half_fov: (0.5 * fov_y).tan(),
            near: distance * Self::NEAR_FRACTION,
        })
    }

    /// A camera looking along `direction` at the centre of the box `[mins, maxs]`, far enough
    /// that the box's bounding sphere fits the vertical field of view `fov_y`.
    ///
    /// # Errors
    /// As [`Camera::look_at`]; [`DeformError::InvalidParameter`] for a zero `direction`.
    ///
    /// # Performance
    /// O(1).
    pub fn framing(mins: Vec3, maxs: Vec3, direction: Vec3, fov_y: f32) -> Result<Self> {
        let dir = direction.normalize_or_zero();
        if dir == Vec3::ZERO {
            return Err(DeformError::InvalidParameter {
                name: "direction",
                value: 0.0,
                reason: "the view direction must be non-zero and finite",
            });
        }
        let centre = 0.5 * (mins + maxs);
        let radius = (0.5 * (maxs - mins).length()).max(1e-6);
        let distance = radius / (0.5 * fov_y).sin().max(1e-6) * 1.02;
        Self::look_at(centre - dir * distance, centre, fov_y)
    }

    /// A camera looking along `direction` at the centre of the box `[mins, maxs]`, as close as
    /// possible while all eight corners of the box stay inside an image of `aspect` = width /
    /// height, with `margin` (a fraction of the half-size, e.g. 0.05) to spare on each side.
    /// Tighter than [`Camera::framing`] for flat or long boxes (a street seen from above).
    ///
    /// # Errors
    /// As [`Camera::fit_points`].
    ///
    /// # Performance
    /// O(1).
    pub fn fit_box(
        mins: Vec3,
        maxs: Vec3,
        direction: Vec3,
        fov_y: f32,
        aspect: f32,
        margin: f32,
    ) -> Result<Self> {
        let corners: [Vec3; 8] = std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { mins.x } else { maxs.x },
                if i & 2 == 0 { mins.y } else { maxs.y },
                if i & 4 == 0 { mins.z } else { maxs.z },
            )
        });
        Self::fit_points(&corners, direction, fov_y, aspect, margin, [0.0; 4])
    }

    /// The closest camera looking along `direction` (world up `+Y`, as [`Camera::look_at`]) that
    /// sees every point of `points` in an image of `aspect` = width / height, centred (exactly
    /// along the axis that sets the distance, up to perspective along the other) with `margin`
    /// (a fraction of the half-size, e.g. 0.05) to spare on each side in the window
    /// left free by `insets`: the fractions of the image height (top, bottom) and width (right,
    /// left) kept clear for overlays such as a title band or a legend, `[top, right, bottom,
    /// left]`.
    ///
    /// Exact: each side of the view frustum touches the extreme point in its direction (one
    /// support query per side), so one camera computed from every frame of a sequence frames
    /// them all without wasting room.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for no points, a zero `direction`, a `fov_y` outside
    /// `(0, π)`, a non-positive aspect or insets that leave no window;
    /// [`DeformError::NonFinitePosition`] for a non-finite point.
    ///
    /// # Performance
    /// O(points).
    pub fn fit_points(
        points: &[Vec3],
        direction: Vec3,
        fov_y: f32,
        aspect: f32,
        margin: f32,
        insets: [f32; 4],
    ) -> Result<Self> {
        if !(aspect.is_finite() && aspect > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "aspect",
                value: aspect,
                reason: "the aspect ratio must be finite and positive",
            });
        }
        let [top, right_inset, bottom, left_inset] = insets.map(|f| f.max(0.0));
        if !(top + bottom < 0.95 && right_inset + left_inset < 0.95) {
            return Err(DeformError::InvalidParameter {
                name: "insets",
                value: (top + bottom).max(right_inset + left_inset),
                reason: "the insets must leave a window (each pair below 0.95 of the side)",
            });
        }
        if points.is_empty() {
            return Err(DeformError::InvalidParameter {
                name: "points",
                value: 0.0,
                reason: "a camera needs at least one point to frame",
            });
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(DeformError::NonFinitePosition {
                what: "framed point",
                index,
            });
        }
        let (lo, hi) = points
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
        // The orientation does not depend on the position: take it from a probe camera.
        let probe = Self::framing(lo, hi, direction, fov_y)?;
        let (right, up, fwd) = (probe.right, probe.up, probe.forward);
        let t = probe.tan_half_fov;
        let shrink = 1.0 / (1.0 + margin.max(0.0));
        // The window in tangent space (view x / z, y / z), shrunk about its middle by the margin.
        let window = |lo: f32, hi: f32| {
            let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo) * shrink);
            (mid - half, mid + half)
        };
        let (x_lo, x_hi) = window(
            t * aspect * (-1.0 + 2.0 * left_inset),
            t * aspect * (1.0 - 2.0 * right_inset),
        );
        let (y_lo, y_hi) = window(t * (-1.0 + 2.0 * bottom), t * (1.0 - 2.0 * top));
        // Side planes through the eye, normals pointing out: the eye `e` must satisfy
        // e · n ≥ max_p p · n for each.
        let normals = [
            right - fwd * x_hi,
            -right + fwd * x_lo,
            up - fwd * y_hi,
            -up + fwd * y_lo,
        ];
        let support = normals.map(|n| points.iter().map(|p| p.dot(n)).fold(f32::MIN, f32::max));
        let [s_right, s_left, s_top, s_bottom] = support;
        // e = x right + y up + z fwd: the x pair bounds z by −(s_r + s_l) / (x_hi − x_lo), the
        // y pair by −(s_t + s_b) / (y_hi − y_lo); the farther back of the two, then centred.
        let z = (-(s_right + s_left) / (x_hi - x_lo)).min(-(s_top + s_bottom) / (y_hi - y_lo));
        let x = 0.5 * ((s_right + x_hi * z) + (x_lo * z - s_left));
        let y = 0.5 * ((s_top + y_hi * z) + (y_lo * z - s_bottom));
        let eye = right * x + up * y + fwd * z;
        let depth = points
            .iter()
            .map(|p| (*p - eye).dot(fwd))
            .fold(0.0f32, f32::max)
            .max(1e-3);
        // Same direction, so look_at picks the same up vector as for the probe.
        Self::look_at(eye, eye + fwd * (0.5 * depth), fov_y)
    }

    /// The eye position.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// The unit view direction.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn forward(&self) -> Vec3 {
        self.forward
    }

    /// World point → view space (`x` right, `y` up, `z` depth in front of the eye).
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn to_view(&self, p: Vec3) -> Vec3 {
        let d = p - self.eye;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }

    /// World direction → view space.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn dir_to_view(&self, d: Vec3) -> Vec3 {
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }

    /// Focal length in pixels for an image `height` pixels tall.
    #[inline]
    fn focal(&self, height: usize) -> f32 {
        0.5 * height as f32 / self.tan_half_fov
    }

    /// Projects a world point onto a `width × height` image: `(x, y, depth)` in pixels (origin
    /// top-left, pixel centres at half-integers) and view depth, or `None` behind the near plane.
    ///
    /// # Performance
    /// O(1).
    pub fn project(&self, p: Vec3, width: usize, height: usize) -> Option<(f32, f32, f32)> {
        let v = self.to_view(p);
        (v.z > self.near).then(|| {
            let (x, y) = self.view_to_screen(v, width, height);
            (x, y, v.z)
        })
    }

    #[inline]
    fn view_to_screen(&self, v: Vec3, width: usize, height: usize) -> (f32, f32) {
        let f = self.focal(height);
        (
            0.5 * width as f32 + f * v.x / v.z,
            0.5 * height as f32 - f * v.y / v.z,
        )
    }
}

/// How the colours of a mesh are given.
///
/// # Performance
/// Per-vertex colours add one interpolation per covered pixel.
#[derive(Clone, Copy, Debug)]
pub enum MeshColours<'a> {
    /// One colour for the whole mesh.
    Uniform(Rgb),
    /// One colour per triangle.
    PerTriangle(&'a [Rgb]),
    /// One colour per vertex, interpolated across triangles.
    PerVertex(&'a [Rgb]),
}

/// Lambert shading mode of a mesh.
///
/// # Performance
/// [`Shading::Smooth`] adds an O(V + T) vertex-normal pass per draw call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shading {
    /// One normal per triangle (facets visible).
    Flat,
    /// Area-weighted vertex normals, lighting interpolated across triangles (Gouraud).
    Smooth,
}

/// A colour image with a z-buffer, lit by one directional light plus ambient light.
///
/// # Performance
/// Memory O(width · height); each primitive costs O(covered pixels) plus O(1) setup.
#[derive(Clone, Debug)]
pub struct Canvas {
    width: usize,
    height: usize,
    colour: Vec<[u8; 3]>,
    /// `1 / view depth` of the nearest drawn surface; 0 where nothing was drawn.
    inv_depth: Vec<f32>,
    /// Unit direction towards the light, in view space.
    light: Vec3,
    ambient: f32,
    /// Bottom of the header band ([`Canvas::draw_header`]), 0 without one.
    header_bottom: f32,
    /// Screen boxes of overlays that labels keep out of (header, legends).
    reserved: Vec<annotate::Rect>,
}

impl Canvas {
    /// Largest accepted side in pixels.
    pub const MAX_SIDE: usize = 16384;

    /// A `width × height` canvas filled with `background`, lit from the upper left of the camera.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] when a side is zero or above [`Canvas::MAX_SIDE`].
    ///
    /// # Performance
    /// O(width · height).
    pub fn new(width: usize, height: usize, background: Rgb) -> Result<Self> {
        for (name, side) in [("width", width), ("height", height)] {
            if side == 0 || side > Self::MAX_SIDE {
                return Err(DeformError::InvalidParameter {
                    name,
                    value: side as f32,
                    reason: "canvas sides must be in 1..=16384 pixels",
                });
            }
        }
        Ok(Self {
            width,
            height,
            colour: vec![background.to_u8(); width * height],
            inv_depth: vec![0.0; width * height],
            light: Vec3::new(-0.35, 0.6, -0.72).normalize(),
            ambient: 0.28,
            header_bottom: 0.0,
            reserved: Vec::new(),
        })
    }

    /// Sets the light direction (towards the light) in view space and the ambient term in `[0, 1]`.
    /// Non-finite or zero directions keep the current light.
    ///
    /// # Performance
    /// O(1).
    pub fn set_light(&mut self, towards_light_in_view: Vec3, ambient: f32) {
        let l = towards_light_in_view.normalize_or_zero();
        if l != Vec3::ZERO {
            self.light = l;
        }
        if ambient.is_finite() {
            self.ambient = ambient.clamp(0.0, 1.0);
        }
    }

    /// Width in pixels.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn height(&self) -> usize {
        self.height
    }

    /// The 8-bit colour of pixel `(x, y)` (origin top-left), `None` outside.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn pixel(&self, x: usize, y: usize) -> Option<[u8; 3]> {
        (x < self.width && y < self.height).then(|| self.colour[y * self.width + x])
    }

    /// View depth of the nearest surface drawn at `(x, y)`, `None` where nothing was drawn.
    ///
    /// # Performance
    /// O(1).
    #[inline]
    pub fn depth(&self, x: usize, y: usize) -> Option<f32> {
        (x < self.width && y < self.height)
            .then(|| self.inv_depth[y * self.width + x])
            .filter(|&d| d > 0.0)
            .map(|d| 1.0 / d)
    }

    /// Copies `src` into this canvas with its top-left corner at `(x0, y0)` (clipped at the
    /// edges; depth is copied too), e.g. to lay several views out as panels of one picture.
    ///
    /// # Performance
    /// O(src pixels).
    pub fn blit(&mut self, src: &Canvas, x0: usize, y0: usize) {
        for y in 0..src.height.min(self.height.saturating_sub(y0)) {
            for x in 0..src.width.min(self.width.saturating_sub(x0)) {
                let (d, s) = ((y0 + y) * self.width + x0 + x, y * src.width + x);
                self.colour[d] = src.colour[s];
                self.inv_depth[d] = src.inv_depth[s];
            }
        }
    }

    /// The image as row-major RGB bytes.
    ///
    /// # Performance
    /// O(width · height).
    pub fn to_rgb8(&self) -> Vec<u8> {
        self.colour.iter().flatten().copied().collect()
    }

    #[inline]
    fn shade(&self, n_view: Vec3) -> f32 {
        self.ambient + (1.0 - self.ambient) * n_view.dot(self.light).max(0.0)
    }

    /// Draws a triangle mesh with Lambert shading, depth-tested against what is already drawn.
    ///
    /// # Errors
    /// [`DeformError::VertexIndexOutOfRange`], [`DeformError::NonFinitePosition`] and
    /// [`DeformError::LengthMismatch`] (colour slices of the wrong length); nothing is drawn then.
    ///
    /// # Performance
    /// O(V + T + covered pixels).
    pub fn draw_mesh(
        &mut self,
        camera: &Camera,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        colours: MeshColours<'_>,
        shading: Shading,
    ) -> Result<()> {
        if let Some(index) = positions.iter().position(|p| !p.is_finite()) {
            return Err(DeformError::NonFinitePosition {
                what: "vertex",
                index,
            });
        }
        for (triangle, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= positions.len()) {
                return Err(DeformError::VertexIndexOutOfRange {
                    triangle,
                    index,
                    vertex_count: positions.len(),
                });
            }
        }
        match colours {
            MeshColours::PerTriangle(c) if c.len() != triangles.len() => {
                return Err(DeformError::LengthMismatch {
                    what: "per-triangle colours",
                    expected: triangles.len(),
                    actual: c.len(),
                });
            }
            MeshColours::PerVertex(c) if c.len() != positions.len() => {
                return Err(DeformError::LengthMismatch {
                    what: "per-vertex colours",
                    expected: positions.len(),
                    actual: c.len(),
                });
            }
            _ => {}
        }
        let view: Vec<Vec3> = positions.iter().map(|&p| camera.to_view(p)).collect();
        let vertex_normals = (shading == Shading::Smooth).then(|| {
            let mut n = vec![Vec3::ZERO; view.len()];
            for tri in triangles {
                let [a, b, c] = tri.map(|i| view[i as usize]);
                let face = (b - a).cross(c - a);
                for &i in tri {
                    n[i as usize] += face;
                }
            }
            n.iter_mut().for_each(|v| *v = v.normalize_or_zero());
            n
        });
        for (t, tri) in triangles.iter().enumerate() {
            let p = tri.map(|i| view[i as usize]);
            if p.iter().all(|v| v.z <= camera.near) {
                continue;
            }
            let face = (p[1] - p[0]).cross(p[2] - p[0]);
            let face_n = face.normalize_or_zero();
            // Two-sided: a face seen from behind is lit as if its normal pointed at the camera.
            let flip = if face_n.dot(p[0]) > 0.0 { -1.0 } else { 1.0 };
            let light = match &vertex_normals {
                None => [self.shade(flip * face_n); 3],
                Some(n) => tri.map(|i| self.shade(flip * n[i as usize])),
            };
            let base = match colours {
                MeshColours::Uniform(c) => [c; 3],
                MeshColours::PerTriangle(c) => [c[t]; 3],
                MeshColours::PerVertex(c) => tri.map(|i| c[i as usize]),
            };
            let corner = [0, 1, 2].map(|k| base[k].scaled(light[k]));
            if p.iter().all(|v| v.z > camera.near) {
                self.fill_triangle(camera, p, corner);
            } else {
                let (poly, n) = clip_near(p, corner, camera.near);
                for k in 1..n.saturating_sub(1) {
                    self.fill_triangle(
                        camera,
                        [poly[0].0, poly[k].0, poly[k + 1].0],
                        [poly[0].1, poly[k].1, poly[k + 1].1],
                    );
                }
            }
        }
        Ok(())
    }

    /// Rasterizes one view-space triangle (all corners in front of the near plane).
    fn fill_triangle(&mut self, camera: &Camera, p: [Vec3; 3], colour: [Rgb; 3]) {
        let s = p.map(|v| camera.view_to_screen(v, self.width, self.height));
        let inv_z = p.map(|v| 1.0 / v.z);
        let area = (s[1].0 - s[0].0) * (s[2].1 - s[0].1) - (s[1].1 - s[0].1) * (s[2].0 - s[0].0);
        if area.abs() < 1e-12 || !area.is_finite() {
            return;
        }
        let (min_x, max_x) = min_max([s[0].0, s[1].0, s[2].0]);
        let (min_y, max_y) = min_max([s[0].1, s[1].1, s[2].1]);
        let x0 = (min_x - 0.5).ceil().max(0.0) as usize;
        let y0 = (min_y - 0.5).ceil().max(0.0) as usize;
        let x1 = ((max_x - 0.5).floor()).min(self.width as f32 - 1.0);
        let y1 = ((max_y - 0.5).floor()).min(self.height as f32 - 1.0);
        if x1 < 0.0 || y1 < 0.0 {
            return;
        }
        let (x1, y1) = (x1 as usize, y1 as usize);
        let inv_area = 1.0 / area;
        let edge = |a: (f32, f32), b: (f32, f32), x: f32, y: f32| {
            (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
        };
        for y in y0..=y1 {
            let py = y as f32 + 0.5;
            for x in x0..=x1 {
                let px = x as f32 + 0.5;
                let b0 = edge(s[1], s[2], px, py) * inv_area;
                let b1 = edge(s[2], s[0], px, py) * inv_area;
                let b2 = 1.0 - b0 - b1;
                // A small tolerance closes pinholes along shared edges (the z-test resolves
                // the double coverage).
                if b0 < -1e-5 || b1 < -1e-5 || b2 < -1e-5 {
                    continue;
                }
                let d = b0 * inv_z[0] + b1 * inv_z[1] + b2 * inv_z[2];
                let i = y * self.width + x;
                if d > self.inv_depth[i] {
                    self.inv_depth[i] = d;
                    let c = Rgb::new(
                        b0 * colour[0].r + b1 * colour[1].r + b2 * colour[2].r,
                        b0 * colour[0].g + b1 * colour[1].g + b2 * colour[2].g,
                        b0 * colour[0].b + b1 * colour[1].b + b2 * colour[2].b,
                    );
                    self.colour[i] = c.to_u8();
                }
            }
        }
    }

    /// Draws a one-pixel 3D line from `a` to `b`, depth-tested with a small bias so that lines
    /// lying on a surface stay visible; the part behind the near plane is clipped.
    ///
    /// # Errors
    /// [`DeformError::NonFinitePosition`] for a non-finite endpoint.
    ///
    /// # Performance
    /// O(length in pixels).
    pub fn draw_line3(&mut self, camera: &Camera, a: Vec3, b: Vec3, colour: Rgb) -> Result<()> {
        for (index, p) in [a, b].into_iter().enumerate() {
            if !p.is_finite() {
                return Err(DeformError::NonFinitePosition {
                    what: "line endpoint",
                    index,
                });
            }
        }
        let (mut va, mut vb) = (camera.to_view(a), camera.to_view(b));
        let near = camera.near;
        if va.z <= near && vb.z <= near {
            return Ok(());
        }
        if va.z <= near {
            va = vb + (va - vb) * ((vb.z - near) / (vb.z - va.z));
        } else if vb.z <= near {
            vb = va + (vb - va) * ((va.z - near) / (va.z - vb.z));
        }
        let (sa, sb) = (
            camera.view_to_screen(va, self.width, self.height),
            camera.view_to_screen(vb, self.width, self.height),
        );
        // Clip the screen segment to the image (Liang–Barsky), so that a line reaching far
        // outside is still drawn without gaps inside it.
        let (dx, dy) = (sb.0 - sa.0, sb.1 - sa.1);
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for (p, q) in [
            (-dx, sa.0),
            (dx, self.width as f32 - sa.0),
            (-dy, sa.1),
            (dy, self.height as f32 - sa.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return Ok(());
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if t0 > t1 || !(t0.is_finite() && t1.is_finite()) {
            return Ok(());
        }
        let steps = ((dx.abs().max(dy.abs()) * (t1 - t0)).ceil())
            .clamp(1.0, 4.0 * (self.width + self.height) as f32) as usize;
        let rgb = colour.to_u8();
        // Step between the clipped ends (not from the far-away original ones), so that rounding
        // does not skip pixels.
        let (ca, cb) = (
            (sa.0 + dx * t0, sa.1 + dy * t0),
            (sa.0 + dx * t1, sa.1 + dy * t1),
        );
        for k in 0..=steps {
            let u = k as f32 / steps as f32;
            let t = t0 + (t1 - t0) * u;
            let (x, y) = (ca.0 + (cb.0 - ca.0) * u, ca.1 + (cb.1 - ca.1) * u);
            if x < 0.0 || y < 0.0 || x >= self.width as f32 || y >= self.height as f32 {
                continue;
            }
            let d = (1.0 / va.z) * (1.0 - t) + (1.0 / vb.z) * t;
            let i = y as usize * self.width + x as usize;
            if d * 1.002 >= self.inv_depth[i] {
                self.inv_depth[i] = self.inv_depth[i].max(d);
                self.colour[i] = rgb;
            }
        }
        Ok(())
    }

    /// Draws the 12 edges of the axis-aligned box `[mins, maxs]`.
    ///
    /// # Errors
    /// As [`Canvas::draw_line3`].
    ///
    /// # Performance
    /// O(perimeter in pixels).
    pub fn draw_aabb(
        &mut self,
        camera: &Camera,
        mins: Vec3,
        maxs: Vec3,
        colour: Rgb,
    ) -> Result<()> {
        let corner = |i: usize| {
            Vec3::new(
                if i & 1 == 0 { mins.x } else { maxs.x },
                if i & 2 == 0 { mins.y } else { maxs.y },
                if i & 4 == 0 { mins.z } else { maxs.z },
            )
        };
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.draw_line3(camera, corner(i), corner(i | bit), colour)?;
                }
            }
        }
        Ok(())
    }

    /// Draws a shaded sphere (exact ray–sphere depth and normal per pixel). A sphere that contains
    /// the eye is not drawn.
    ///
    /// # Errors
    /// [`DeformError::NonFinitePosition`] for a non-finite centre,
    /// [`DeformError::InvalidParameter`] for a radius that is not finite and positive.
    ///
    /// # Performance
    /// O(covered pixels).
    pub fn draw_sphere(
        &mut self,
        camera: &Camera,
        centre: Vec3,
        radius: f32,
        colour: Rgb,
    ) -> Result<()> {
        if !centre.is_finite() {
            return Err(DeformError::NonFinitePosition {
                what: "sphere centre",
                index: 0,
            });
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "radius",
                value: radius,
                reason: "a sphere radius must be finite and positive",
            });
        }
        let c = camera.to_view(centre);
        if c.z - radius <= camera.near || c.length() <= radius {
            return Ok(());
        }
        let f = camera.focal(self.height);
        let (sx, sy) = camera.view_to_screen(c, self.width, self.height);
        // Conservative screen radius of the silhouette.
        let r_px = f * radius / (c.z - radius) * (1.0 + (c.x.abs() + c.y.abs()) / c.z) + 1.0;
        let x0 = (sx - r_px).floor().max(0.0) as usize;
        let y0 = (sy - r_px).floor().max(0.0) as usize;
        let x1 = (sx + r_px).ceil().min(self.width as f32 - 1.0);
        let y1 = (sy + r_px).ceil().min(self.height as f32 - 1.0);
        if x1 < 0.0 || y1 < 0.0 {
            return Ok(());
        }
        let (cx, cy) = (0.5 * self.width as f32, 0.5 * self.height as f32);
        let c2 = c.length_squared() - radius * radius;
        for y in y0..=y1 as usize {
            for x in x0..=x1 as usize {
                let d = Vec3::new((x as f32 + 0.5 - cx) / f, -(y as f32 + 0.5 - cy) / f, 1.0)
                    .normalize();
                let b = d.dot(c);
                let disc = b * b - c2;
                if disc < 0.0 {
                    continue;
                }
                let hit = d * (b - disc.sqrt());
                let inv = 1.0 / hit.z;
                let i = y * self.width + x;
                if inv > self.inv_depth[i] {
                    self.inv_depth[i] = inv;
                    let n = (hit - c) / radius;
                    self.colour[i] = colour.scaled(self.shade(n)).to_u8();
                }
            }
        }
        Ok(())
    }

    /// Writes the image as an 8-bit RGB PNG, creating missing parent directories.
    ///
    /// # Errors
    /// [`DeformError::FileWrite`] naming the path and the reason.
    ///
    /// # Performance
    /// O(width · height).
    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let fail = |message: String| DeformError::FileWrite {
            path: path.display().to_string(),
            message,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
        }
        let file = File::create(path).map_err(|e| fail(e.to_string()))?;
        let mut encoder =
            png::Encoder::new(BufWriter::new(file), self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| fail(e.to_string()))?;
        writer
            .write_image_data(&self.to_rgb8())
            .map_err(|e| fail(e.to_string()))?;
        writer.finish().map_err(|e| fail(e.to_string()))
    }
}

/// Clips a view-space triangle to the half-space `z > near` (Sutherland–Hodgman), colours
/// interpolated along the cut edges: up to 4 corners, as a fan.
fn clip_near(p: [Vec3; 3], c: [Rgb; 3], near: f32) -> ([(Vec3, Rgb); 4], usize) {
    let mut out = [(Vec3::ZERO, Rgb::BLACK); 4];
    let mut n = 0;
    // Keep the cut strictly in front of the near plane so that 1/z stays finite.
    let plane = near * (1.0 + 1e-4);
    for k in 0..3 {
        let (a, b) = ((p[k], c[k]), (p[(k + 1) % 3], c[(k + 1) % 3]));
        let (a_in, b_in) = (a.0.z > near, b.0.z > near);
        if a_in && n < 4 {
            out[n] = a;
            n += 1;
        }
        if a_in != b_in && n < 4 {
            // Cut from the inside end, so that two triangles sharing the edge cut it at the
            // same point (no crack).
            let (i, o) = if a_in { (a, b) } else { (b, a) };
            let t = (plane - i.0.z) / (o.0.z - i.0.z);
            out[n] = (i.0 + (o.0 - i.0) * t, i.1.lerp(o.1, t));
            n += 1;
        }
    }
    (out, n)
}

#[inline]
fn min_max(v: [f32; 3]) -> (f32, f32) {
    (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BG: Rgb = Rgb::WHITE;

    fn front_camera() -> Camera {
        Camera::look_at(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, 1.0).unwrap()
    }

    fn quad_at(z: f32, half: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        (
            vec![
                Vec3::new(-half, -half, z),
                Vec3::new(half, -half, z),
                Vec3::new(half, half, z),
                Vec3::new(-half, half, z),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        )
    }

    #[test]
    fn projection_matches_pinhole_closed_form() {
        let cam = front_camera();
        let (x, y, z) = cam.project(Vec3::ZERO, 200, 100).unwrap();
        assert_eq!((x, y, z), (100.0, 50.0, 4.0));
        // A point at the top of the field of view lands on the top edge.
        let top = Vec3::new(0.0, 4.0 * 0.5f32.tan(), 0.0);
        let (_, y, _) = cam.project(top, 200, 100).unwrap();
        assert!(y.abs() < 1e-3, "{y}");
        assert!(cam.project(Vec3::new(0.0, 0.0, 5.0), 200, 100).is_none());
    }

    #[test]
    fn triangle_covering_the_centre_colours_it_with_lambert_shade() {
        let cam = front_camera();
        let mut canvas = Canvas::new(64, 48, BG).unwrap();
        let pos = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        canvas
            .draw_mesh(
                &cam,
                &pos,
                &[[0, 1, 2]],
                MeshColours::Uniform(Rgb::WHITE),
                Shading::Flat,
            )
            .unwrap();
        // Normal +Z faces the camera: view normal (0, 0, -1); light dot is its z component negated.
        let expected = canvas.ambient + (1.0 - canvas.ambient) * (-canvas.light.z).max(0.0);
        let px = canvas.pixel(32, 24).unwrap();
        assert_eq!(px, Rgb::WHITE.scaled(expected).to_u8());
        assert_eq!(canvas.pixel(0, 0).unwrap(), BG.to_u8());
        assert!((canvas.depth(32, 24).unwrap() - 4.0).abs() < 1e-4);
        assert_eq!(canvas.depth(0, 0), None);
    }

    #[test]
    fn nearer_surface_wins_in_either_drawing_order() {
        let cam = front_camera();
        let (near, tri) = quad_at(1.0, 0.5);
        let (far, _) = quad_at(-1.0, 2.0);
        for order in [[0, 1], [1, 0]] {
            let mut canvas = Canvas::new(40, 40, BG).unwrap();
            for k in order {
                let (p, c) = if k == 0 {
                    (&near, Rgb::RED)
                } else {
                    (&far, Rgb::BLUE)
                };
                canvas
                    .draw_mesh(&cam, p, &tri, MeshColours::Uniform(c), Shading::Smooth)
                    .unwrap();
            }
            let centre = canvas.pixel(20, 20).unwrap();
            let edge = canvas.pixel(8, 20).unwrap();
            assert!(centre[0] > centre[2], "red (near) must win: {centre:?}");
            assert!(
                edge[2] > edge[0],
                "blue (far) visible at the side: {edge:?}"
            );
            assert!((canvas.depth(20, 20).unwrap() - 3.0).abs() < 1e-4);
        }
    }

    #[test]
    fn triangles_reaching_behind_the_eye_are_clipped_not_dropped() {
        // A floor under a camera looking ahead: its far corners are in view, the near ones
        // behind the eye.
        let cam =
            Camera::look_at(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, -4.0), 1.0).unwrap();
        let floor = [
            Vec3::new(-10.0, 0.0, 10.0),
            Vec3::new(10.0, 0.0, 10.0),
            Vec3::new(10.0, 0.0, -10.0),
            Vec3::new(-10.0, 0.0, -10.0),
        ];
        let mut canvas = Canvas::new(40, 40, BG).unwrap();
        canvas
            .draw_mesh(
                &cam,
                &floor,
                &[[0, 1, 2], [0, 2, 3]],
                MeshColours::Uniform(Rgb::GREEN),
                Shading::Flat,
            )
            .unwrap();
        // The bottom row looks down steeply at the floor close to the eye.
        let d = canvas.depth(20, 39).expect("floor drawn under the camera");
        assert!(d > 0.0 && d < 3.0, "{d}");
        assert_eq!(canvas.depth(20, 0), None, "sky above the horizon");
    }

    #[test]
    fn per_vertex_colours_interpolate() {
        let cam = Camera::look_at(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, 1.0).unwrap();
        let mut canvas = Canvas::new(101, 101, BG).unwrap();
        canvas.set_light(Vec3::new(0.0, 0.0, -1.0), 0.0);
        let (p, t) = quad_at(0.0, 1.0);
        let colours = [Rgb::BLACK, Rgb::WHITE, Rgb::WHITE, Rgb::BLACK];
        canvas
            .draw_mesh(
                &cam,
                &p,
                &t,
                MeshColours::PerVertex(&colours),
                Shading::Flat,
            )
            .unwrap();
        let left = canvas.pixel(35, 50).unwrap()[0];
        let mid = canvas.pixel(50, 50).unwrap()[0];
        let right = canvas.pixel(65, 50).unwrap()[0];
        assert!(left < mid && mid < right, "{left} {mid} {right}");
        assert!((mid as i32 - 128).abs() <= 3, "{mid}");
    }

    #[test]
    fn sphere_depth_and_silhouette_match_closed_form() {
        let cam = front_camera();
        let mut canvas = Canvas::new(100, 100, BG).unwrap();
        canvas
            .draw_sphere(&cam, Vec3::ZERO, 0.5, Rgb::GREEN)
            .unwrap();
        let d = canvas.depth(50, 50).unwrap();
        assert!((d - 3.5).abs() < 2e-3, "{d}");
        // Silhouette half-angle asin(r / D): screen radius f · tan(asin(0.125)).
        let f = 50.0 / 0.5f32.tan();
        let r = f * (0.125f32).asin().tan();
        let inside = (50.0 + r - 1.5) as usize;
        let outside = (50.0 + r + 1.5) as usize;
        assert!(canvas.depth(inside, 50).is_some());
        assert!(canvas.depth(outside, 50).is_none());
    }

    #[test]
    fn lines_are_hidden_behind_nearer_surfaces() {
        let cam = front_camera();
        let mut canvas = Canvas::new(60, 60, BG).unwrap();
        let (p, t) = quad_at(1.0, 0.3);
        canvas
            .draw_mesh(&cam, &p, &t, MeshColours::Uniform(Rgb::GREY), Shading::Flat)
            .unwrap();
        let grey = canvas.pixel(30, 30).unwrap();
        let y = Vec3::new(0.0, 0.05, 0.0);
        canvas
            .draw_line3(
                &cam,
                Vec3::new(-2.0, 0.0, -1.0) + y,
                Vec3::new(2.0, 0.0, -1.0) + y,
                Rgb::RED,
            )
            .unwrap();
        assert_eq!(
            canvas.pixel(30, 29).unwrap(),
            grey,
            "hidden behind the quad"
        );
        assert_eq!(
            canvas.pixel(12, 29).unwrap(),
            Rgb::RED.to_u8(),
            "visible beside it"
        );
        // A line reaching thousands of pixels beyond both sides is drawn without gaps.
        let mut canvas = Canvas::new(60, 60, BG).unwrap();
        let far = Vec3::new(0.0, -0.6, -1.0);
        canvas
            .draw_line3(
                &cam,
                far + Vec3::X * -500.0,
                far + Vec3::X * 500.0,
                Rgb::BLUE,
            )
            .unwrap();
        let (_, y, _) = cam.project(far, 60, 60).unwrap();
        let row = y as usize;
        assert!(
            (0..60).all(|x| canvas.pixel(x, row) == Some(Rgb::BLUE.to_u8())),
            "a gap in the long line: {y} {:?}",
            (0..60)
                .map(|x| canvas.pixel(x, row).unwrap()[2])
                .collect::<Vec<_>>()
        );
        // A box drawn around everything shows its front edges.
        canvas
            .draw_aabb(&cam, Vec3::splat(-0.5), Vec3::splat(0.5), Rgb::BLACK)
            .unwrap();
        let (x, y, _) = cam.project(Vec3::new(0.0, 0.5, 0.5), 60, 60).unwrap();
        assert_eq!(canvas.pixel(x as usize, y as usize).unwrap(), [0, 0, 0]);
    }

    #[test]
    fn blit_copies_and_clips() {
        let mut panel = Canvas::new(4, 3, Rgb::RED).unwrap();
        panel.colour[5] = [1, 2, 3];
        let mut canvas = Canvas::new(6, 5, BG).unwrap();
        canvas.blit(&panel, 3, 3);
        assert_eq!(canvas.pixel(2, 3).unwrap(), BG.to_u8());
        assert_eq!(canvas.pixel(3, 3).unwrap(), Rgb::RED.to_u8());
        assert_eq!(canvas.pixel(4, 4).unwrap(), [1, 2, 3]);
        assert_eq!(canvas.pixel(5, 4).unwrap(), Rgb::RED.to_u8());
    }

    #[test]
    fn fit_box_keeps_every_corner_inside_and_touches_an_edge() {
        let (lo, hi) = (Vec3::new(-30.0, 0.0, -50.0), Vec3::new(30.0, 2.0, 50.0));
        let (w, h) = (1600, 900);
        let margin = 0.05;
        let cam = Camera::fit_box(
            lo,
            hi,
            Vec3::new(0.3, -0.75, -0.6),
            0.6,
            1600.0 / 900.0,
            margin,
        )
        .unwrap();
        let mut extent: f32 = 0.0;
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let (x, y, _) = cam.project(c, w, h).unwrap();
            assert!(
                x >= 0.0 && x <= w as f32 && y >= 0.0 && y <= h as f32,
                "{x} {y}"
            );
            extent = extent
                .max((x - 0.5 * w as f32).abs() / (0.5 * w as f32))
                .max((y - 0.5 * h as f32).abs() / (0.5 * h as f32));
        }
        assert!((extent - 1.0 / (1.0 + margin)).abs() < 1e-3, "{extent}");
        // Tighter than the bounding-sphere framing.
        let loose = Camera::framing(lo, hi, Vec3::new(0.3, -0.75, -0.6), 0.6).unwrap();
        let centre = 0.5 * (lo + hi);
        assert!((cam.eye() - centre).length() < (loose.eye() - centre).length());
        assert!(Camera::fit_box(lo, hi, Vec3::X, 0.6, 0.0, 0.0).is_err());
    }

    #[test]
    fn fit_points_centres_the_points_below_the_reserved_band() {
        // A scattered cloud, off the origin.
        let points: Vec<Vec3> = (0..200)
            .map(|i| {
                let f = i as f32;
                Vec3::new(
                    7.0 + 3.0 * (0.37 * f).sin(),
                    1.0 + (0.11 * f).cos().abs(),
                    -4.0 + 5.0 * (0.23 * f).cos(),
                )
            })
            .collect();
        let (w, h) = (1200, 800);
        let (margin, top, left) = (0.1, 0.125, 0.2);
        let cam = Camera::fit_points(
            &points,
            Vec3::new(-0.4, -0.5, -0.7),
            0.55,
            1.5,
            margin,
            [top, 0.0, 0.0, left],
        )
        .unwrap();
        let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for p in &points {
            let (x, y, _) = cam.project(*p, w, h).unwrap();
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        // Inside the window below the band and right of the left strip, centred in it (the
        // slack axis up to perspective: its extreme points lie at different depths).
        let (band, strip) = (top * h as f32, left * w as f32);
        assert!(x0 >= strip && x1 <= w as f32 && y0 >= band && y1 <= h as f32);
        assert!(
            (0.5 * (x0 + x1) - 0.5 * (strip + w as f32)).abs() < 0.02 * w as f32,
            "{x0} {x1}"
        );
        assert!(
            (0.5 * (y0 + y1) - 0.5 * (band + h as f32)).abs() < 0.02 * h as f32,
            "{y0} {y1}"
        );
        // Tight along one axis: the extent fills the window up to the margin.
        let fill_x = (x1 - x0) / (w as f32 - strip);
        let fill_y = (y1 - y0) / (h as f32 - band);
        assert!(
            (fill_x.max(fill_y) - 1.0 / (1.0 + margin)).abs() < 1e-3,
            "{fill_x} {fill_y}"
        );
        assert!(Camera::fit_points(&[], Vec3::X, 0.6, 1.0, 0.0, [0.0; 4]).is_err());
        assert!(Camera::fit_points(&points, Vec3::X, 0.6, 1.0, 0.0, [0.5, 0.0, 0.5, 0.0]).is_err());
    }

    #[test]
    fn dent_tint_ramps_from_paint_to_the_dent_colour() {
        let paint = Rgb::BLUE;
        assert_eq!(dent_tint(paint, 0.0, 0.3), paint);
        assert_eq!(dent_tint(paint, 0.3, 0.3).to_u8(), DENT_COLOUR.to_u8());
        assert_eq!(dent_tint(paint, 9.0, 0.3).to_u8(), DENT_COLOUR.to_u8());
        assert_eq!(
            dent_tint(paint, 0.15, 0.3).to_u8(),
            paint.lerp(DENT_COLOUR, 0.5).to_u8()
        );
        assert_eq!(dent_tint(paint, f32::NAN, 0.3), paint);
        assert_eq!(dent_tint(paint, 1.0, 0.0), paint);
        assert_ne!(DENT_COLOUR, SELF_COLLISION_COLOUR);
    }

    #[test]
    fn frame_file_names_sort_by_time() {
        let names: Vec<String> = [0.0, 0.85, 1.0, 1.25, 2.5, 12.0]
            .iter()
            .enumerate()
            .map(|(k, &t)| frame_file_name("overview", k, t))
            .collect();
        assert_eq!(names[1], "overview_001_t0.850s.png");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names);
    }

    #[test]
    fn written_files_are_saved_and_recorded_and_cleared_on_the_next_run() {
        let dir =
            std::env::temp_dir().join(format!("rapier3d_deform_written_{}", std::process::id()));
        let path = dir.join("a.png");
        let mut written = WrittenFiles::new();
        written
            .save_png(&Canvas::new(3, 2, BG).unwrap(), &path, "a picture")
            .unwrap();
        assert!(path.exists());
        assert_eq!(written.files(), &[(path.clone(), "a picture".to_string())]);
        std::fs::write(dir.join("keep.txt"), "x").unwrap();
        assert_eq!(clear_outputs(&dir, &["png", "obj"]).unwrap(), 1);
        assert!(!path.exists() && dir.join("keep.txt").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn png_round_trips() {
        let cam = front_camera();
        let mut canvas = Canvas::new(17, 9, Rgb::from_u8(10, 20, 30)).unwrap();
        canvas
            .draw_sphere(&cam, Vec3::ZERO, 1.0, Rgb::ORANGE)
            .unwrap();
        let path =
            std::env::temp_dir().join(format!("rapier3d_deform_render_{}.png", std::process::id()));
        canvas.save_png(&path).unwrap();
        let decoder = png::Decoder::new(File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (17, 9));
        assert_eq!(&buf[..info.buffer_size()], &canvas.to_rgb8()[..]);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn bad_input_gives_typed_errors() {
        let cam = front_camera();
        assert!(matches!(
            Camera::look_at(Vec3::ONE, Vec3::ONE, 1.0),
            Err(DeformError::InvalidParameter { .. })
        ));
        assert!(matches!(
            Camera::look_at(Vec3::ONE, Vec3::ZERO, 3.5),
            Err(DeformError::InvalidParameter { name: "fov_y", .. })
        ));
        assert!(matches!(
            Camera::look_at(Vec3::NAN, Vec3::ZERO, 1.0),
            Err(DeformError::NonFinitePosition { .. })
        ));
        assert!(matches!(
            Canvas::new(0, 10, BG),
            Err(DeformError::InvalidParameter { name: "width", .. })
        ));
        let mut canvas = Canvas::new(8, 8, BG).unwrap();
        let (p, _) = quad_at(0.0, 1.0);
        assert!(matches!(
            canvas.draw_mesh(
                &cam,
                &p,
                &[[0, 1, 7]],
                MeshColours::Uniform(BG),
                Shading::Flat
            ),
            Err(DeformError::VertexIndexOutOfRange {
                triangle: 0,
                index: 7,
                ..
            })
        ));
        assert!(matches!(
            canvas.draw_mesh(
                &cam,
                &p,
                &[[0, 1, 2]],
                MeshColours::PerVertex(&[BG]),
                Shading::Flat
            ),
            Err(DeformError::LengthMismatch {
                expected: 4,
                actual: 1,
                ..
            })
        ));
        assert!(matches!(
            canvas.draw_sphere(&cam, Vec3::ZERO, -1.0, BG),
            Err(DeformError::InvalidParameter { name: "radius", .. })
        ));
        assert!(matches!(
            canvas.draw_line3(&cam, Vec3::INFINITY, Vec3::ZERO, BG),
            Err(DeformError::NonFinitePosition { .. })
        ));
        let err = canvas
            .save_png("/proc/definitely/not/writable.png")
            .unwrap_err();
        assert!(matches!(err, DeformError::FileWrite { .. }), "{err}");
    }
}
