//! What the garment scenes share: pinned cloth vertices carried by the skin weights of the nearest skin vertex, the per-frame stages, and the pictures with the seed's colour code and the bone boxes drawn by the crate's debug renderer.

use crate::render::debug_lines::hsla_to_rgb;
use crate::render::{Camera, Canvas, CanvasLines, Legend, LegendEntry, MeshColours, Rgb, Shading};
use rapier3d_deform::avatar::{AvatarBoxes, AvatarQuery};
use rapier3d_deform::cloth::{
    Cloth, ClothSelfCollision, ContactThresholds, SelfCollisionOptions, SkinCollision, VertexState,
};
use rapier3d_deform::debug_render::{DeformDebugRenderOptions, DeformDebugRenderer};
use rapier3d_deform::error::Result;
use rapier3d_deform::governor::{Affine, ConvexWeights};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::rapier3d::geometry::{ColliderBuilder, ColliderHandle};
use rapier3d_deform::rapier3d::pipeline::DebugRenderObject;
use std::time::{Duration, Instant};

/// Per pinned cloth vertex, its bind-space position and the skin vertex whose weights carry it:
/// the vertex follows `Σ w_k G_k` of that skin vertex, as if it were a point of the skin.
#[derive(Clone, Debug, Default)]
pub struct PinCarriers {
    carriers: Vec<(Vec3, usize)>,
}

impl PinCarriers {
    /// Carriers for the cloth vertices at `pinned` (world positions, in [`rapier3d_deform::cloth::Cloth::pinned`]
    /// order) on the skin posed at `posed` by `governors`: each is attached to its nearest posed
    /// skin vertex.
    ///
    /// # Performance
    /// O(pinned · skin vertices), once.
    pub fn nearest(
        pinned: &[Vec3],
        posed: &[Vec3],
        weights: &ConvexWeights,
        governors: &[Affine],
    ) -> Self {
        let carriers = pinned
            .iter()
            .map(|&x| {
                let (v, _) = posed
                    .iter()
                    .enumerate()
                    .fold((0, f32::MAX), |best, (v, q)| {
                        let d = (*q - x).length_squared();
                        if d < best.1 { (v, d) } else { best }
                    });
                let (linear, translation) = blend(weights, governors, v);
                (linear.inverse() * (x - translation), v)
            })
            .collect();
        Self { carriers }
    }

    /// Where the pinned vertices are under the skin matrices `governors`.
    ///
    /// # Performance
    /// O(pinned · influences).
    pub fn targets(&self, weights: &ConvexWeights, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers
            .iter()
            .map(|&(bind, v)| {
                let (linear, translation) = blend(weights, governors, v);
                linear * bind + translation
            })
            .collect()
    }
}

/// `Σ w_k G_k` over the influences of skin vertex `v`.
fn blend(weights: &ConvexWeights, governors: &[Affine], v: usize) -> (Mat3, Vec3) {
    let mut linear = Mat3::ZERO;
    let mut translation = Vec3::ZERO;
    for (g, w) in weights.iter_row(v) {
        let a = governors[g as usize];
        linear += a.linear * w;
        translation += a.translation * w;
    }
    (linear, translation)
}

/// Wall-clock time of each stage of one [`GarmentStages::step`].
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    /// Pins set and the cloth stepped with its proximity constraints.
    pub cloth: Duration,
    /// The skin's collision stage.
    pub skin: Duration,
    /// The garment's self-collision stage and the skin test of the vertices it reverted.
    pub self_collision: Duration,
}

/// The per-frame stages of a garment on a skinned avatar, in the order the examples run them:
/// pins to their targets, [`Cloth::step_with_self_collision`], [`SkinCollision::resolve`],
/// [`ClothSelfCollision::resolve`], [`SkinCollision::push_out`] of the reverted vertices.
pub struct GarmentStages {
    /// The skin's collision stage (its states and counters describe the last step).
    pub collision: SkinCollision,
    /// The garment's self-collision stage.
    pub self_collision: ClothSelfCollision,
}

impl GarmentStages {
    /// The stages for `cloth` on `avatar`.
    ///
    /// # Errors
    /// What [`SkinCollision::new`] and [`ClothSelfCollision::new`] reject.
    pub fn new(
        cloth: &Cloth,
        avatar: &AvatarBoxes,
        thresholds: ContactThresholds,
        self_options: SelfCollisionOptions,
    ) -> Result<Self> {
        Ok(Self {
            collision: SkinCollision::new(avatar, thresholds)?,
            self_collision: ClothSelfCollision::new(cloth, self_options)?,
        })
    }

    /// One frame of `dt` seconds in which the skin moves from the skin matrices `previous` to
    /// `current` and the pinned vertices to `targets`.
    ///
    /// # Errors
    /// The stages' errors (wrong counts, non-finite input).
    pub fn step(
        &mut self,
        cloth: &mut Cloth,
        avatar: &AvatarBoxes,
        targets: &[Vec3],
        previous: &[Affine],
        current: &[Affine],
        dt: f32,
    ) -> Result<StageTimes> {
        let t0 = Instant::now();
        cloth.set_pin_targets(targets)?;
        cloth.step_with_self_collision(dt, &mut self.self_collision)?;
        let t1 = Instant::now();
        self.collision
            .resolve(cloth, avatar, previous, current, dt)?;
        let t2 = Instant::now();
        self.self_collision.resolve(cloth)?;
        self.collision
            .push_out(cloth, avatar, self.self_collision.reverted(), dt)?;
        let t3 = Instant::now();
        Ok(StageTimes {
            cloth: t1 - t0,
            skin: t2 - t1,
            self_collision: t3 - t2,
        })
    }
}

/// Skin colour of the garment pictures.
pub const SKIN: Rgb = Rgb::new(0.80, 0.72, 0.62);
/// The seed's green: a cloth vertex in no bone box.
pub const NO_BOX: Rgb = Rgb::new(0.20, 0.70, 0.25);
/// The seed's blue: in a bone box, no skin within the OUTSIDE threshold.
pub const BOX_ONLY: Rgb = Rgb::new(0.20, 0.35, 0.85);
/// The seed's red: skin within the OUTSIDE threshold, or crossed.
pub const CONTACT: Rgb = Rgb::new(0.85, 0.15, 0.12);
/// Pinned cloth vertices.
pub const PINNED: Rgb = Rgb::new(0.3, 0.3, 0.3);
/// The bone boxes' lines in the pictures (Rapier's HSLA): a purple apart from the seed's colours.
pub const BOX_LINES: [f32; 4] = [280.0, 0.7, 0.45, 1.0];

/// The legend of the seed's colour code (Pelechano 2002, Fig. 20).
pub fn legend() -> Legend {
    Legend::new("cloth vertices (Pelechano 2002, Fig. 20)")
        .with(LegendEntry::swatch(NO_BOX, "in no bone box"))
        .with(LegendEntry::swatch(
            BOX_ONLY,
            "in a bone box, no skin within 2 cm",
        ))
        .with(LegendEntry::swatch(CONTACT, "skin within 2 cm, or crossed"))
        .with(LegendEntry::swatch(SKIN, "skin"))
        .with(LegendEntry::swatch(
            hsla_to_rgb(BOX_LINES),
            "bone boxes the queries test (the crate's debug render)",
        ))
}

/// The skin and the cloth (coloured by `states`, pinned vertices grey) seen by each camera,
/// side by side, each view `size` pixels; with `boxes`, the avatar's bone boxes as the query's
/// frame tests them, drawn by [`DeformDebugRenderer::render_avatar_boxes`] through
/// [`CanvasLines`] (depth-tested, in [`BOX_LINES`]).
///
/// # Errors
/// The renderer's ([`Canvas::new`], [`Canvas::draw_mesh`]); what
/// [`DeformDebugRenderer::render_avatar_boxes`] rejects (a query without a frame).
pub fn draw_views(
    cameras: &[Camera],
    size: (usize, usize),
    posed_skin: &[Vec3],
    skin_triangles: &[[u32; 3]],
    cloth: &Cloth,
    states: &[VertexState],
    mut boxes: Option<(&AvatarBoxes, &mut AvatarQuery)>,
) -> Result<Canvas> {
    let mut renderer = DeformDebugRenderer::new(DeformDebugRenderOptions {
        avatar_box_color: BOX_LINES,
        avatar_cell_color: None,
        ..DeformDebugRenderOptions::default()
    });
    // The avatar has no Rapier collider here: its lines are drawn for a stand-in (the canvas
    // backend draws every object alike).
    let stand_in = ColliderBuilder::ball(1.0).build();
    let object = DebugRenderObject::Collider(ColliderHandle::invalid(), &stand_in);
    let colours: Vec<Rgb> = (0..cloth.positions().len())
        .map(|i| {
            if cloth.is_pinned(i) {
                PINNED
            } else {
                match states.get(i).copied().unwrap_or_default() {
                    VertexState::NoBox => NO_BOX,
                    VertexState::BoxOnly => BOX_ONLY,
                    VertexState::Contact => CONTACT,
                }
            }
        })
        .collect();
    let (w, h) = size;
    let mut canvas = Canvas::new(cameras.len() * w, h, Rgb::WHITE)?;
    for (k, camera) in cameras.iter().enumerate() {
        let mut view = Canvas::new(w, h, Rgb::WHITE)?;
        view.draw_mesh(
            camera,
            posed_skin,
            skin_triangles,
            MeshColours::Uniform(SKIN),
            Shading::Smooth,
        )?;
        view.draw_mesh(
            camera,
            cloth.positions(),
            cloth.mesh().triangles(),
            MeshColours::PerVertex(&colours),
            Shading::Flat,
        )?;
        if let Some((avatar, query)) = boxes.as_mut() {
            let mut lines = CanvasLines::new(&mut view, camera);
            renderer.render_avatar_boxes(&mut lines, object, avatar, query)?;
            if let Some(e) = lines.error() {
                return Err(e);
            }
        }
        canvas.blit(&view, k * w, 0);
    }
    Ok(canvas)
}

/// What a garment example names: its output folder, picture title, garment word and frame
/// sequence name.
#[derive(Clone, Copy, Debug)]
pub struct ExampleNames {
    /// Output folder (`out/<example>`).
    pub out: &'static str,
    /// The pictures' title.
    pub title: &'static str,
    /// The garment, as the header and the summary name it ("cape", "skirt").
    pub garment: &'static str,
    /// The frame files' sequence name ([`crate::render::frame_file_name`]).
    pub sequence: &'static str,
}

/// The frame loop's bookkeeping of a garment example: two views fitted to the avatar's rest
/// pose, the pictures (the seed's vertex states in the header, the legend), the stage counters
/// and times, and the closing summary.
pub struct GarmentPictures {
    names: ExampleNames,
    view: (usize, usize),
    legend: Legend,
    cameras: [Camera; 2],
    written: crate::render::WrittenFiles,
    times: StageTimes,
    steps: usize,
    contacts: usize,
    repositioned: usize,
    continuous: usize,
    crossing: usize,
    reverted: usize,
}

impl GarmentPictures {
    /// Two cameras looking along `directions` at the posed skin `posed_skin` (views of `view`
    /// pixels, room left for the header and the legend); clears the output folder's PNGs.
    ///
    /// # Errors
    /// [`Camera::fit_points`]'s, [`crate::render::clear_outputs`]'s.
    ///
    /// # Performance
    /// O(skin vertices).
    pub fn new(
        names: ExampleNames,
        view: (usize, usize),
        posed_skin: &[Vec3],
        directions: [Vec3; 2],
    ) -> Result<Self> {
        let legend = legend();
        let (w, h) = view;
        let header = Canvas::header_height(2 * w, true) + 20.0;
        let insets = [
            header / h as f32,
            0.0,
            (Canvas::legend_size(2 * w, &legend).1 + 16.0) / h as f32,
            0.0,
        ];
        let fit = |direction| {
            Camera::fit_points(
                posed_skin,
                direction,
                0.6,
                w as f32 / h as f32,
                0.05,
                insets,
            )
        };
        let cameras = [fit(directions[0])?, fit(directions[1])?];
        crate::render::clear_outputs(names.out, &["png"])?;
        Ok(Self {
            names,
            view,
            legend,
            cameras,
            written: crate::render::WrittenFiles::new(),
            times: StageTimes::default(),
            steps: 0,
            contacts: 0,
            repositioned: 0,
            continuous: 0,
            crossing: 0,
            reverted: 0,
        })
    }

    /// Adds one step's stage times and counters.
    ///
    /// # Performance
    /// O(1).
    pub fn record(&mut self, times: StageTimes, stages: &GarmentStages) {
        self.steps += 1;
        self.times.cloth += times.cloth;
        self.times.skin += times.skin;
        self.times.self_collision += times.self_collision;
        let s = stages.collision.stats();
        self.contacts += s.contacts;
        self.repositioned += s.repositioned;
        self.continuous += s.continuous_hits;
        let c = stages.self_collision.stats();
        self.crossing += c.crossing_pairs;
        self.reverted += c.reverted;
    }

    /// Draws and writes the picture of step `step` of `steps` at `t` seconds: the posed skin
    /// and the cloth coloured by the last step's vertex states, the bone boxes of `avatar` as
    /// the skin stage's query tested them this frame, with a header counting the states.
    ///
    /// # Errors
    /// The renderer's and the PNG writer's.
    ///
    /// # Performance
    /// O(pixels + skin and cloth triangles).
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        posed_skin: &[Vec3],
        skin_triangles: &[[u32; 3]],
        cloth: &Cloth,
        avatar: &AvatarBoxes,
        stages: &mut GarmentStages,
        picture: usize,
        step: usize,
        steps: usize,
        t: f32,
    ) -> Result<()> {
        let states = stages.collision.states().to_vec();
        let mut canvas = draw_views(
            &self.cameras,
            self.view,
            posed_skin,
            skin_triangles,
            cloth,
            &states,
            Some((avatar, stages.collision.query_mut())),
        )?;
        let count = |state| states.iter().filter(|s| **s == state).count();
        canvas.draw_header(
            self.names.title,
            &format!(
                "{} skin triangles; {} cloth vertices: {} in no box, {} in a box only, {} in contact; {} repositioned, {} crossing {} pairs this step",
                skin_triangles.len(),
                cloth.positions().len(),
                count(VertexState::NoBox),
                count(VertexState::BoxOnly),
                count(VertexState::Contact),
                stages.collision.stats().repositioned,
                stages.self_collision.stats().crossing_pairs,
                self.names.garment,
            ),
            &format!("t = {t:.2} s · step {step}/{steps}"),
        );
        canvas.draw_legend(&self.legend, crate::render::Corner::BottomLeft);
        self.written.save_png(
            &canvas,
            format!(
                "{}/{}",
                self.names.out,
                crate::render::frame_file_name(self.names.sequence, picture, t)
            ),
            format!("t = {t:.2} s: {} contacts", count(VertexState::Contact)),
        )
    }

    /// Prints the summary: counters per step, the garment's crossings, each stage's time per
    /// step, and the files written.
    pub fn print_summary(&self, dt: f32) {
        let steps = self.steps.max(1);
        let n = steps as u32;
        println!("{} steps of {dt:.4} s:", self.steps);
        println!(
            "  per step: {:.1} contacts, {:.2} repositioned; continuous hits in all: {}",
            self.contacts as f64 / steps as f64,
            self.repositioned as f64 / steps as f64,
            self.continuous
        );
        println!(
            "  {} crossing pairs found in all: {}; vertices reverted in all: {}",
            self.names.garment, self.crossing, self.reverted
        );
        println!(
            "  per step: cloth (with proximity constraints) {:.2?}, collision stage {:.2?}, self-collision stage {:.2?}",
            self.times.cloth / n,
            self.times.skin / n,
            self.times.self_collision / n
        );
        println!();
        self.written.print_summary();
    }
}

/// A garment example's frame loop: the avatar, the pictures' layout and the clock. Each step
/// poses the skin, moves the pins, runs [`GarmentStages::step`] and records it; every
/// `picture_every` steps it draws a picture ([`GarmentPictures`]); at the end it prints the
/// summary.
pub struct ExampleRun<'a> {
    /// What the example names.
    pub names: ExampleNames,
    /// Pixels per view.
    pub view: (usize, usize),
    /// The two cameras' viewing directions.
    pub directions: [Vec3; 2],
    /// The skin mesh (rest positions = bind pose).
    pub mesh: &'a rapier3d_deform::mesh::TriangleMesh,
    /// Skin weights.
    pub weights: &'a ConvexWeights,
    /// The avatar's boxes.
    pub avatar: &'a AvatarBoxes,
    /// Step length (s).
    pub dt: f32,
    /// Steps to run.
    pub steps: usize,
    /// Steps between pictures.
    pub picture_every: usize,
}

impl ExampleRun<'_> {
    /// Runs the loop on `cloth` from the skin matrices `g0` (time 0); `pose(t)` gives the skin
    /// matrices at `t` and the pinned vertices' targets under them.
    ///
    /// # Errors
    /// `pose`'s, the stages', the renderer's and the PNG writer's.
    ///
    /// # Performance
    /// Per step, the stages' cost; per picture O(pixels + skin and cloth triangles).
    pub fn run(
        &self,
        stages: &mut GarmentStages,
        cloth: &mut Cloth,
        g0: Vec<Affine>,
        mut pose: impl FnMut(f32) -> Result<(Vec<Affine>, Vec<Vec3>)>,
    ) -> Result<()> {
        let rest = self.mesh.positions();
        let mut posed = Vec::new();
        rapier3d_deform::governor::deform_vertices(rest, self.weights, &g0, &mut posed);
        let mut pictures = GarmentPictures::new(self.names, self.view, &posed, self.directions)?;
        let mut previous = g0;
        for step in 1..=self.steps {
            let t = step as f32 * self.dt;
            let (g, targets) = pose(t)?;
            let times = stages.step(cloth, self.avatar, &targets, &previous, &g, self.dt)?;
            pictures.record(times, stages);
            if step % self.picture_every.max(1) == 0 {
                rapier3d_deform::governor::deform_vertices(rest, self.weights, &g, &mut posed);
                pictures.draw(
                    &posed,
                    self.mesh.triangles(),
                    cloth,
                    self.avatar,
                    stages,
                    step / self.picture_every.max(1),
                    step,
                    self.steps,
                    t,
                )?;
            }
            previous = g;
        }
        pictures.print_summary(self.dt);
        Ok(())
    }
}
