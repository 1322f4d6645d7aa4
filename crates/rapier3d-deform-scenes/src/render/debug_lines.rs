//! A Rapier `DebugRenderBackend` that draws onto a [`Canvas`]: the PNG examples draw their overlays (contacts, contact velocities, self-collision pairs, refit leaves) with the same debug-render code a game uses.

use rapier3d_deform::math::Vec3;
use rapier3d_deform::rapier3d::pipeline::{DebugColor, DebugRenderBackend, DebugRenderObject};

use super::{Camera, Canvas, Rgb};
use rapier3d_deform::DeformError;

/// Lines from Rapier's `DebugRenderPipeline` or the crate's `DeformDebugRenderer`, drawn with
/// [`Canvas::draw_line3`] through `camera`; each colour (Rapier's HSLA) converted to RGB, or
/// replaced by `colour` when one is set. The first bad line (a non-finite endpoint) is kept in
/// [`Self::error`] and later lines are still drawn.
///
/// # Performance
/// O(length in pixels) per line.
pub struct CanvasLines<'a> {
    canvas: &'a mut Canvas,
    camera: &'a Camera,
    colour: Option<Rgb>,
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
            lines: 0,
            error: None,
        }
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
        let colour = self.colour.unwrap_or_else(|| hsla_to_rgb(color));
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
}
