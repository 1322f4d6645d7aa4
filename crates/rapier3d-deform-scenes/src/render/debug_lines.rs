//! A Rapier `DebugRenderBackend` that draws onto a [`Canvas`]: the PNG examples draw their overlays (contacts, contact velocities, self-collision pairs, refit leaves) with the same debug-render code a game uses.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::rapier3d::pipeline::{DebugColor, DebugRenderBackend, DebugRenderObject};

use super::{Camera, Canvas, Rgb};
use rapier3d_deform::DeformError;

/// Lines from Rapier's `DebugRenderPipeline` or the crate's `DeformDebugRenderer`, drawn with
/// [`Canvas::draw_line3`] through `camera` (depth-tested against the meshes drawn before), or
/// over the image two pixels wide with [`Self::on_top`]; each colour (Rapier's HSLA) converted to
/// RGB, or replaced by `colour` when one is set. The first bad line (a non-finite endpoint) is
/// kept in [`Self::error`] and later lines are still drawn.
///
/// # Performance
/// O(length in pixels) per line.
pub struct CanvasLines<'a> {
    canvas: &'a mut Canvas,
    camera: &'a Camera,
    colour: Option<Rgb>,
    on_top: bool,
    lines: usize,
    error: Option<DeformError>,
}

impl<'a> CanvasLines<'a> {
    /// A backend drawing onto `canvas` as seen by `camera`, in each line's own colour.
    pub fn new(canvas: &'a mut Canvas, camera: &'a Camera) -> Self {
        Self {
            canvas,
            camera,
            colour: None,
            on_top: false,
            lines: 0,
            error: None,
        }
    }

    /// Every line drawn over the image (no depth test), two pixels wide: for lines that lie
    /// inside the bodies, such as Rapier's contact normals (they point into the second body). A
    /// line with an endpoint behind the camera's near plane is skipped.
    pub fn on_top(mut self) -> Self {
        self.on_top = true;
        self
    }

    /// Every line in `colour` instead of its own.
    pub fn with_colour(mut self, colour: Rgb) -> Self {
        self.colour = Some(colour);
        self
    }

    /// Lines drawn so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The first line that could not be drawn, if any.
    pub fn error(self) -> Option<DeformError> {
        self.error
    }
}

impl DebugRenderBackend for CanvasLines<'_> {
    fn draw_line(&mut self, _: DebugRenderObject, a: Vec3, b: Vec3, color: DebugColor) {
        self.line(a, b, color);
    }
}

/// Lines a debug render emitted at one moment, kept to be drawn later through
/// [`CanvasLines::replay`]: the examples fit their cameras to a whole sequence after the
/// simulation, so the lines of a frame (Rapier's contacts, say) are recorded when the frame is
/// captured. With a filter, only the objects it accepts are recorded.
///
/// # Performance
/// O(1) per line recorded (amortised), 40 bytes per line.
#[derive(Clone, Debug, Default)]
pub struct RecordedLines {
    lines: Vec<(Vec3, Vec3, DebugColor)>,
    filter: Option<fn(&DebugRenderObject) -> bool>,
}

impl RecordedLines {
    /// An empty recording of every object's lines.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty recording of the lines of the objects `filter` accepts.
    pub fn filtered(filter: fn(&DebugRenderObject) -> bool) -> Self {
        Self {
            lines: Vec::new(),
            filter: Some(filter),
        }
    }

    /// Lines recorded.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when no line was recorded.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl DebugRenderBackend for RecordedLines {
    fn filter_object(&self, object: DebugRenderObject) -> bool {
        self.filter.is_none_or(|f| f(&object))
    }

    fn draw_line(&mut self, _: DebugRenderObject, a: Vec3, b: Vec3, color: DebugColor) {
        self.lines.push((a, b, color));
    }
}

impl CanvasLines<'_> {
    /// Draws every line of `recorded`, in order, as [`DebugRenderBackend::draw_line`] would
    /// have drawn it.
    ///
    /// # Performance
    /// O(length in pixels) per line.
    pub fn replay(&mut self, recorded: &RecordedLines) {
        for &(a, b, color) in &recorded.lines {
            self.line(a, b, color);
        }
    }

    fn line(&mut self, a: Vec3, b: Vec3, color: DebugColor) {
        let colour = self.colour.unwrap_or_else(|| hsla_to_rgb(color));
        if self.on_top {
            if let Some(index) = [a, b].iter().position(|p| !p.is_finite()) {
                self.error.get_or_insert(DeformError::NonFinitePosition {
                    what: "line endpoint",
                    index,
                });
                return;
            }
            let (w, h) = (self.canvas.width(), self.canvas.height());
            let (Some(pa), Some(pb)) = (self.camera.project(a, w, h), self.camera.project(b, w, h))
            else {
                return;
            };
            // Pixel centres are at half-integers: pixel i is drawn for x in [i, i + 1).
            let (pa, pb) = ((pa.0 - 0.5, pa.1 - 0.5), (pb.0 - 0.5, pb.1 - 0.5));
            for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)] {
                self.canvas
                    .draw_line2((pa.0 + dx, pa.1 + dy), (pb.0 + dx, pb.1 + dy), colour);
            }
            self.lines += 1;
            return;
        }
        match self.canvas.draw_line3(self.camera, a, b, colour) {
            Ok(()) => self.lines += 1,
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }
}

/// Rapier's debug colours are `[hue in degrees, saturation, lightness, alpha]`; alpha is
/// ignored (lines are opaque).
pub fn hsla_to_rgb([h, s, l, _]: DebugColor) -> Rgb {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - 0.5 * c;
    Rgb::new(r + m, g + m, b + m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{MeshColours, Shading};
    use rapier3d_deform::rapier3d::geometry::{ColliderBuilder, ColliderHandle};

    #[test]
    fn hsla_primaries_and_greys_convert_exactly() {
        let close = |a: Rgb, b: Rgb| {
            (a.r - b.r).abs() < 1e-6 && (a.g - b.g).abs() < 1e-6 && (a.b - b.b).abs() < 1e-6
        };
        assert!(close(
            hsla_to_rgb([0.0, 1.0, 0.5, 1.0]),
            Rgb::new(1.0, 0.0, 0.0)
        ));
        assert!(close(
            hsla_to_rgb([120.0, 1.0, 0.5, 1.0]),
            Rgb::new(0.0, 1.0, 0.0)
        ));
        assert!(close(
            hsla_to_rgb([240.0, 1.0, 0.5, 1.0]),
            Rgb::new(0.0, 0.0, 1.0)
        ));
        assert!(close(
            hsla_to_rgb([60.0, 1.0, 0.5, 1.0]),
            Rgb::new(1.0, 1.0, 0.0)
        ));
        assert!(close(
            hsla_to_rgb([300.0, 1.0, 0.25, 1.0]),
            Rgb::new(0.5, 0.0, 0.5)
        ));
        assert!(close(
            hsla_to_rgb([17.0, 0.0, 0.3, 1.0]),
            Rgb::new(0.3, 0.3, 0.3)
        ));
        assert!(close(
            hsla_to_rgb([-120.0, 1.0, 0.5, 1.0]),
            Rgb::new(0.0, 0.0, 1.0)
        ));
    }

    #[test]
    fn lines_land_on_the_canvas_and_bad_endpoints_are_reported() {
        let mut canvas = Canvas::new(64, 64, Rgb::BLACK).unwrap();
        let camera = Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 0.8).unwrap();
        let mut lines = CanvasLines::new(&mut canvas, &camera);
        let collider = ColliderBuilder::ball(1.0).build();
        let object = DebugRenderObject::Collider(ColliderHandle::invalid(), &collider);
        lines.draw_line(
            object,
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            [0.0, 1.0, 0.5, 1.0],
        );
        lines.draw_line(
            object,
            Vec3::ZERO,
            Vec3::new(f32::NAN, 0.0, 0.0),
            [0.0, 1.0, 0.5, 1.0],
        );
        assert_eq!(lines.lines(), 1);
        assert!(lines.error().is_some());
        // The centre pixel lies on the line, red.
        let [r, g, b] = canvas.pixel(32, 32).unwrap();
        assert!(r > 200 && g < 60 && b < 60, "{r} {g} {b}");
    }

    #[test]
    fn recorded_lines_replay_as_drawn_and_honour_their_filter() {
        let camera = Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 0.8).unwrap();
        let ball = ColliderBuilder::ball(1.0).build();
        let cuboid = ColliderBuilder::cuboid(1.0, 1.0, 1.0).build();
        let balls_only: fn(&DebugRenderObject) -> bool =
            |o| matches!(o, DebugRenderObject::Collider(_, c) if c.shape().as_ball().is_some());
        let mut recorded = RecordedLines::filtered(balls_only);
        let green = [120.0, 1.0, 0.5, 1.0];
        for (collider, y) in [(&ball, 0.0), (&cuboid, 0.5)] {
            let object = DebugRenderObject::Collider(ColliderHandle::invalid(), collider);
            if recorded.filter_object(object) {
                recorded.draw_line(
                    object,
                    Vec3::new(-1.0, y, 0.0),
                    Vec3::new(1.0, y, 0.0),
                    green,
                );
            }
        }
        assert_eq!(recorded.len(), 1);
        // Replayed and drawn directly, the same pixels.
        let mut replayed = Canvas::new(64, 64, Rgb::BLACK).unwrap();
        CanvasLines::new(&mut replayed, &camera).replay(&recorded);
        let mut direct = Canvas::new(64, 64, Rgb::BLACK).unwrap();
        let object = DebugRenderObject::Collider(ColliderHandle::invalid(), &ball);
        CanvasLines::new(&mut direct, &camera).draw_line(
            object,
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            green,
        );
        assert_eq!(replayed.to_rgb8(), direct.to_rgb8());
        // Behind a quad, the depth-tested line is hidden and the line on top is not.
        let quad = [
            Vec3::new(-2.0, -2.0, 1.0),
            Vec3::new(2.0, -2.0, 1.0),
            Vec3::new(2.0, 2.0, 1.0),
            Vec3::new(-2.0, 2.0, 1.0),
        ];
        let grey = Rgb::new(0.5, 0.5, 0.5);
        for top in [false, true] {
            let mut canvas = Canvas::new(64, 64, Rgb::BLACK).unwrap();
            canvas
                .draw_mesh(
                    &camera,
                    &quad,
                    &[[0, 1, 2], [0, 2, 3]],
                    MeshColours::Uniform(grey),
                    Shading::Flat,
                )
                .unwrap();
            let lines = CanvasLines::new(&mut canvas, &camera);
            let mut lines = if top { lines.on_top() } else { lines };
            lines.replay(&recorded);
            assert_eq!(lines.lines(), usize::from(top) + usize::from(!top));
            let [r, g, b] = canvas.pixel(32, 32).unwrap();
            let green = g > 200 && r < 60 && b < 60;
            assert_eq!(green, top, "on top {top}: {r} {g} {b}");
        }
        let [r, g, b] = replayed.pixel(32, 32).unwrap();
        assert!(g > 200 && r < 60 && b < 60, "{r} {g} {b}");
    }
}
