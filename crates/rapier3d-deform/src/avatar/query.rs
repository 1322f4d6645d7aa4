//! Per-frame queries against an avatar's boxes: bone frames and sliding maps, hierarchy nodes and cells bounded on first use, candidate skin triangles of a point, the closest one, and the seed's fixed-tolerance misses.

use super::build::{AvatarBoxes, CellNode, LEAF};
use crate::bounds::BoundsWorkspace;
use crate::error::{DeformError, Result};
use crate::governor::{Affine, deform_vertex, validate_governors};
use crate::math::{Aabb, Mat3, Vec3, frobenius};
use rapier3d::parry::glamx::{Mat3A, Vec3A, Vec4};
use rapier3d::parry::query::PointQuery;
use rapier3d::parry::shape::Triangle;

/// The closest skin triangle to a point, within the query radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinContact {
    /// The skin triangle.
    pub triangle: u32,
    /// The closest point of the posed triangle.
    pub point: Vec3,
    /// Distance from the query point to [`Self::point`].
    pub distance: f32,
    /// Unit normal of the posed triangle (its winding's side; zero for a degenerate posed
    /// triangle).
    pub normal: Vec3,
}

/// A box of an avatar as a frame's queries test it: a range `mins..maxs` of box coordinates
/// and the affine map from box coordinates to world space (the bone's skin matrix times its
/// rest PCA frame, so an oriented box when the bone moves rigidly).
///
/// # Performance
/// Plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PosedBox {
    /// Box coordinates → world.
    pub from_box: Affine,
    /// Least box coordinates.
    pub mins: Vec3,
    /// Largest box coordinates.
    pub maxs: Vec3,
}

impl PosedBox {
    /// The eight corners in world space; corner `k` takes `maxs` on axis `i` when bit `i` of
    /// `k` is set, `mins` otherwise.
    ///
    /// # Performance
    /// O(1).
    pub fn corners(&self) -> [Vec3; 8] {
        core::array::from_fn(|k| {
            let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
            self.from_box.transform_point(Vec3::new(
                pick(1, self.mins.x, self.maxs.x),
                pick(2, self.mins.y, self.maxs.y),
                pick(4, self.mins.z, self.maxs.z),
            ))
        })
    }

    /// The twelve edges as pairs of [`Self::corners`] indices (corners that differ in one bit).
    pub const EDGES: [[usize; 2]; 12] = [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
        [0, 2],
        [1, 3],
        [4, 6],
        [5, 7],
        [0, 4],
        [1, 5],
        [2, 6],
        [3, 7],
    ];
}

/// Counters of an [`AvatarQuery`] since its last [`AvatarQuery::begin_frame`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AvatarQueryStats {
    /// Points queried.
    pub points: u64,
    /// Boxes prepared this frame (frame, sliding maps, world box: every box, in
    /// [`AvatarQuery::begin_frame`]).
    pub boxes_bounded: u64,
    /// Point–box tests (world boxes).
    pub box_tests: u64,
    /// Point–box tests that found the point inside the box's hierarchy root (enlarged by the
    /// radius).
    pub box_hits: u64,
    /// Cells (slab sectors) whose posed box came within the radius of a point.
    pub slab_hits: u64,
    /// Nodes of the boxes' cell hierarchies tested (roots included).
    pub nodes_tested: u64,
    /// Nodes whose posed box was computed this frame (each at most once, on first use).
    pub nodes_bounded: u64,
    /// Triangles considered: the distinct candidates [`AvatarQuery::candidates`] listed, and
    /// the triangles of the cells [`AvatarQuery::closest`] scanned.
    pub candidate_triangles: u64,
    /// Skin vertices posed this frame (each at most once).
    pub vertices_posed: u64,
}

/// Per-frame state of queries against an [`AvatarBoxes`]: the skin matrices of the frame, each
/// box's frame, sliding maps and world box, the hierarchy nodes and cells bounded so far, and
/// the skin vertices posed so far.
///
/// Call [`Self::begin_frame`] with the frame's skin matrices (O(m) per box), then any number of
/// [`Self::candidates`] / [`Self::closest`] / [`Self::contacts`]. A hierarchy node is bounded
/// on first use (its rest box plus its sliding range, O(m) for the m governors that touch it,
/// O(1) for skin that follows its bone alone), a cell's posed box and skin vertices on first use
/// (O(influences) per vertex); nothing is done for skin the queries never reach, so a frame's
/// cost follows the skin near the query points, not the size of the skin.
#[derive(Clone, Debug, Default)]
pub struct AvatarQuery {
    epoch: u32,
    governors: Vec<Affine>,
    /// Per box: world → box coordinates this frame, `M_b = F_b⁻¹ G_b⁻¹`.
    box_frames: Vec<Affine>,
    /// Per box: the lengths of the rows of `M_b`'s linear part: a world offset of length `r`
    /// moves box coordinate `i` by at most `r · |row_i|`.
    box_stretch: Vec<Vec3>,
    /// Per box: a world box holding its posed skin (O(m) limited convex combinations), the
    /// first test of a point.
    box_world: Vec<(Vec3A, Vec3A)>,
    /// [`Self::box_world`] four boxes at a time, by axis (`[lo_x, lo_y, lo_z, hi_x, hi_y,
    /// hi_z]`, lanes past the last box empty): [`Self::closest_with_hint`]'s first test of a
    /// point against all boxes.
    box_world_lanes: Vec<[Vec4; 6]>,
    /// Per box: whether its bone's skin matrix could be inverted this frame; a box whose bone
    /// could not keeps its rest frame and is bounded as a whole ([`Self::box_aabb`]).
    box_moving: Vec<bool>,
    /// Per box whose bone is singular: its O(m) box in its rest frame.
    box_aabb: Vec<Aabb>,
    /// Per box: an upper bound of the operator norm of `M_b`'s linear part: a world offset of
    /// length `r` moves box coordinates by at most `r` times it.
    box_norm: Vec<f32>,
    /// Per box: bound, in box coordinates, on the rounding of the rigid part and the sliding
    /// offsets (added to every node's box).
    box_slack: Vec<f32>,
    /// Per box: where its governors' sliding maps start in [`Self::slides`].
    slide_start: Vec<u32>,
    /// Per box and local governor `k`: `M_b (G_k − G_b)` as (linear, |linear| entrywise,
    /// translation); the entry of the bone itself is zero.
    slides: Vec<(Mat3A, Mat3A, Vec3A)>,
    /// Governors mapped into the box being bounded (only its governors' entries are current).
    local: Vec<Affine>,
    /// Traversal stack of the cell hierarchies.
    stack: Vec<u32>,
    /// Per hierarchy node: the frame its posed box was computed in, and the box (box
    /// coordinates): each node is bounded at most once per frame, on first use.
    node_cache: Vec<NodeBox>,
    /// Per cell: the sliding range of its vertices (box coordinates) this frame, written when its
    /// leaf is bounded.
    cell_slide: Vec<(Vec3A, Vec3A)>,
    /// Per cell: the frame its posed world box was computed in, and the box.
    cell_stamp: Vec<u32>,
    cell_box: Vec<Aabb>,
    /// Per entry of the cells' triangle lists: the triangle's posed corners, written when its
    /// cell is posed.
    cell_corners: Vec<[Vec3; 3]>,
    workspace: BoundsWorkspace,
    vertex_stamp: Vec<u32>,
    vertices: Vec<Vec3>,
    triangle_stamp: Vec<u32>,
    /// Cells within reach of the current point: (lower bound of the world distance, cell).
    cell_hits: Vec<(f32, u32)>,
    /// [`Self::closest`]'s boxes within reach of the point: (world gap, box), nearest first.
    box_order: Vec<(f32, u32)>,
    /// [`Self::closest`]'s traversal stack: (lower bound when pushed, node).
    nearest_stack: Vec<(f32, u32)>,
    /// Per skin vertex: the serial of the last box that counted it ([`Self::seed_tolerance_misses`]).
    seen: Vec<u32>,
    serial: u32,
    /// Bound on the rounding of a posed vertex in world space this frame.
    vertex_slack: f32,
    stats: AvatarQueryStats,
}

impl AvatarQuery {
    /// A query with no frame yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a frame whose skin matrices (world × inverse bind, one per governor of the skin
    /// weights) are `governors`. Caches of the previous frame are dropped.
    ///
    /// # Errors
    /// What [`validate_governors`] rejects (wrong count, non-finite or out-of-range transforms);
    /// the previous frame is kept then.
    ///
    /// # Performance
    /// O(bones + boxes · m log m) for m governors per box (its frame, its sliding maps and its
    /// world box); allocates only on the first frame (or for a different avatar).
    pub fn begin_frame(&mut self, avatar: &AvatarBoxes, governors: &[Affine]) -> Result<()> {
        validate_governors(governors, avatar.weights.governor_count())?;
        self.governors.clear();
        self.governors.extend_from_slice(governors);
        self.local.resize(governors.len(), Affine::IDENTITY);
        self.vertex_stamp.resize(avatar.rest.len(), 0);
        self.vertices.resize(avatar.rest.len(), Vec3::ZERO);
        self.triangle_stamp.resize(avatar.mesh.triangle_count(), 0);
        self.node_cache
            .resize(avatar.nodes.len(), NodeBox::default());
        self.cell_stamp.resize(avatar.slabs.len(), 0);
        self.cell_box.resize(avatar.slabs.len(), empty_aabb());
        self.cell_slide
            .resize(avatar.slabs.len(), (Vec3A::ZERO, Vec3A::ZERO));
        self.cell_corners
            .resize(avatar.slab_triangles.len(), [Vec3::ZERO; 3]);
        if self.epoch == u32::MAX {
            self.vertex_stamp.fill(0);
            self.node_cache.fill(NodeBox::default());
            self.cell_stamp.fill(0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.stats = AvatarQueryStats::default();
        // |posed vertex| ≤ max_k (‖A_k‖ |p0| + |t_k|); its f32 evaluation rounds by at most
        // (2i + 4) ε of that for i influences. Doubled for the maps into box frames.
        let world_magnitude = governors.iter().fold(0f32, |m, g| {
            m.max(frobenius(&g.linear) * avatar.rest_radius + g.translation.length())
        });
        let influences = avatar.max_influences as f32;
        self.vertex_slack = 4.0 * (2.0 * influences + 4.0) * f32::EPSILON * world_magnitude;
        self.box_frames.clear();
        self.box_stretch.clear();
        self.box_norm.clear();
        self.box_world.clear();
        self.box_moving.clear();
        self.box_aabb.clear();
        self.box_slack.clear();
        self.slide_start.clear();
        self.slides.clear();
        for b in &avatar.boxes {
            self.stats.boxes_bounded += 1;
            let world = b.bounds.aabb(&self.governors, &mut self.workspace);
            self.box_world
                .push((Vec3A::from(world.mins), Vec3A::from(world.maxs)));
            self.slide_start.push(self.slides.len() as u32);
            let g = governors[b.bone as usize];
            // A bone whose skin matrix cannot be inverted (a part scaled to zero) keeps its rest
            // box frame and is bounded as a whole there: any fixed frame bounds conservatively.
            let (frame, moving) = match invert(&g) {
                Some(inverse) => (b.rest_to_box.compose(&inverse), true),
                None => (b.rest_to_box, false),
            };
            let rows = frame.linear.transpose();
            self.box_stretch.push(Vec3::new(
                rows.x_axis.length(),
                rows.y_axis.length(),
                rows.z_axis.length(),
            ));
            self.box_norm.push(operator_norm_bound(&frame.linear));
            self.box_frames.push(frame);
            self.box_moving.push(moving);
            if !moving {
                for &k in b.governors.iter() {
                    self.local[k as usize] = frame.compose(&self.governors[k as usize]);
                }
                self.box_aabb
                    .push(b.bounds.aabb(&self.local, &mut self.workspace));
                self.box_slack.push(0.0);
                continue;
            }
            self.box_aabb.push(empty_aabb());
            // Sliding maps M_b (G_k − G_b): a vertex is at F_b p₀ + Σ_{k≠b} w_k M_b (G_k − G_b) p₀.
            let l = frame.linear;
            let norm_l = frobenius(&l);
            for &k in b.governors.iter() {
                let gk = governors[k as usize];
                let linear = l * (gk.linear - g.linear);
                let translation = l * (gk.translation - g.translation);
                self.slides.push((
                    Mat3A::from(linear),
                    Mat3A::from(abs_mat(&linear)),
                    Vec3A::from(translation),
                ));
            }
            // The rigid part: M_b G_b equals F_b up to rounding; the box coordinates F_b p₀ were
            // evaluated in f32 at build time; the sliding maps and their evaluation round; the
            // weights sum to one up to rounding.
            let rigid = frame.compose(&g);
            let drift_linear = rigid.linear - b.rest_to_box.linear;
            let drift = frobenius(&drift_linear) * avatar.rest_radius
                + (rigid.translation - b.rest_to_box.translation).length();
            let magnitudes = norm_l * world_magnitude
                + frame.translation.length()
                + frobenius(&b.rest_to_box.linear) * avatar.rest_radius
                + b.rest_to_box.translation.length();
            let slack = drift
                + 128.0 * f32::EPSILON * magnitudes
                + b.weight_sum_error * 2.0 * norm_l * world_magnitude;
            self.box_slack
                .push(if slack.is_finite() { slack } else { f32::MAX });
        }
        self.box_world_lanes.clear();
        for group in self.box_world.chunks(4) {
            let mut lanes = [[f32::INFINITY; 4], [f32::INFINITY; 4], [f32::INFINITY; 4]]
                .into_iter()
                .chain([[f32::NEG_INFINITY; 4]; 3])
                .collect::<Vec<_>>();
            for (k, (lo, hi)) in group.iter().enumerate() {
                for axis in 0..3 {
                    lanes[axis][k] = lo[axis];
                    lanes[3 + axis][k] = hi[axis];
                }
            }
            self.box_world_lanes
                .push(core::array::from_fn(|i| Vec4::from_array(lanes[i])));
        }
        Ok(())
    }

    /// Counters since the last [`Self::begin_frame`].
    pub fn stats(&self) -> AvatarQueryStats {
        self.stats
    }

    /// Writes to `out` (cleared first) every skin triangle that may lie within `radius` of
    /// `point`: a superset of the triangles whose posed vertices (as
    /// [`crate::governor::deform_vertex`] evaluates them) are within `radius`, in no particular
    /// order, each once.
    ///
    /// # Errors
    /// [`DeformError::NonFinitePosition`] for a non-finite `point`,
    /// [`DeformError::InvalidParameter`] for a negative or non-finite `radius`,
    /// [`DeformError::NotAvailable`] before the first [`Self::begin_frame`].
    ///
    /// # Performance
    /// O(boxes) world-box tests (six comparisons each); per box hit one affine map and the
    /// hierarchy nodes whose box the point reaches (O(log cells) for a point near one cell),
    /// then the posed box of each cell reached and O(triangles) of the cells within the radius.
    /// The first use of a node in a frame bounds it (O(m)), of a cell poses its vertices.
    pub fn candidates(
        &mut self,
        avatar: &AvatarBoxes,
        point: Vec3,
        radius: f32,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        out.clear();
        self.hit_cells(avatar, point, radius, None)?;
        self.gather(avatar, out);
        Ok(())
    }

    /// [`Self::candidates`] with a radius of `radius + margins[b]` for box `b` (one margin per
    /// box, in box order): the triangles of box `b` that may lie within that distance of
    /// `point`, each once. For a point swept against skin that moved by at most `margins[b]`
    /// in box `b`.
    ///
    /// # Errors
    /// As [`Self::candidates`]; [`DeformError::LengthMismatch`] when `margins` does not hold one
    /// entry per box, [`DeformError::InvalidParameter`] (`name = "margin"`) for a negative or
    /// non-finite margin.
    ///
    /// # Performance
    /// As [`Self::candidates`], plus O(boxes) to check the margins.
    pub fn candidates_with_margins(
        &mut self,
        avatar: &AvatarBoxes,
        point: Vec3,
        radius: f32,
        margins: &[f32],
        out: &mut Vec<u32>,
    ) -> Result<()> {
        out.clear();
        if margins.len() != avatar.boxes.len() {
            return Err(DeformError::LengthMismatch {
                what: "box margins",
                expected: avatar.boxes.len(),
                actual: margins.len(),
            });
        }
        if let Some(&m) = margins.iter().find(|m| !(m.is_finite() && **m >= 0.0)) {
            return Err(DeformError::InvalidParameter {
                name: "margin",
                value: m,
                reason: "must be finite and non-negative",
            });
        }
        self.hit_cells(avatar, point, radius, Some(margins))?;
        self.gather(avatar, out);
        Ok(())
    }

    /// The distinct triangles of the cells in `self.cell_hits`, into `out`.
    fn gather(&mut self, avatar: &AvatarBoxes, out: &mut Vec<u32>) {
        self.next_serial();
        for h in 0..self.cell_hits.len() {
            let (t0, t1) = avatar.slabs[self.cell_hits[h].1 as usize].triangles;
            for &t in &avatar.slab_triangles[t0 as usize..t1 as usize] {
                let stamp = &mut self.triangle_stamp[t as usize];
                if *stamp != self.serial {
                    *stamp = self.serial;
                    out.push(t);
                }
            }
        }
        self.stats.candidate_triangles += out.len() as u64;
    }

    /// The cells (slabs or sectors of slabs) whose box comes within `radius` of `point`, with a
    /// lower bound of their world distance to it, into `self.cell_hits`.
    fn hit_cells(
        &mut self,
        avatar: &AvatarBoxes,
        point: Vec3,
        radius: f32,
        margins: Option<&[f32]>,
    ) -> Result<()> {
        self.cell_hits.clear();
        self.check_query(avatar, point, radius)?;
        self.stats.points += 1;
        let point_pad = 4.0 * f32::EPSILON * point.abs().max_element();
        let base = radius + self.vertex_slack;
        let (px, py, pz) = (
            Vec4::splat(point.x),
            Vec4::splat(point.y),
            Vec4::splat(point.z),
        );
        for g in 0..self.box_world_lanes.len() {
            // The world boxes of the posed skin first, four at a time: no map, six comparisons
            // per box (the reach padded for the rounding of the comparison's operands).
            let first = 4 * g;
            let lanes = (avatar.boxes.len() - first).min(4);
            let mut reach = [0f32; 4];
            for (k, reach) in reach.iter_mut().enumerate().take(lanes) {
                let r = margins.map_or(base, |m| radius + m[first + k] + self.vertex_slack);
                *reach = r * (1.0 + 4.0 * f32::EPSILON) + point_pad;
            }
            let reach = Vec4::from_array(reach);
            let [lo_x, lo_y, lo_z, hi_x, hi_y, hi_z] = self.box_world_lanes[g];
            let hit = (lo_x - reach).cmple(px)
                & px.cmple(hi_x + reach)
                & (lo_y - reach).cmple(py)
                & py.cmple(hi_y + reach)
                & (lo_z - reach).cmple(pz)
                & pz.cmple(hi_z + reach);
            self.stats.box_tests += lanes as u64;
            let mut mask = hit.bitmask() & ((1u32 << lanes) - 1);
            while mask != 0 {
                let index = first + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let r = margins.map_or(base, |m| radius + m[index] + self.vertex_slack);
                let (local, stretch, rounding) = self.in_box_frame(index, point);
                if !self.box_moving[index] {
                    // A singular bone: its box as a whole, every cell a candidate.
                    let reach = stretch * r + rounding;
                    let aabb = self.box_aabb[index];
                    if !inside(&aabb, local, reach) {
                        continue;
                    }
                    self.stats.box_hits += 1;
                    let lower = self.lower_bound(&aabb, local, stretch, rounding);
                    let (s0, s1) = avatar.boxes[index].slabs;
                    for s in s0..s1 {
                        self.push_cell(avatar, s, lower, point, r);
                    }
                    continue;
                }
                let reach = stretch * r + rounding + Vec3::splat(self.box_slack[index]);
                let (n0, _) = avatar.boxes[index].nodes;
                let slides = self.slide_start[index] as usize;
                let (local_wide, reach_wide) = (Vec3A::from(local), Vec3A::from(reach));
                self.stack.clear();
                self.stack.push(n0);
                let mut root = true;
                while let Some(n) = self.stack.pop() {
                    let node = &avatar.nodes[n as usize];
                    self.stats.nodes_tested += 1;
                    let (lo, hi) = self.node_box(avatar, n, slides);
                    if !((lo - reach_wide).cmple(local_wide).all()
                        && local_wide.cmple(hi + reach_wide).all())
                    {
                        if root {
                            break;
                        }
                        continue;
                    }
                    if root {
                        self.stats.box_hits += 1;
                        root = false;
                    }
                    if node.right == LEAF {
                        let (mut lo, mut hi) = (lo, hi);
                        if self.cell_stamp[node.cell as usize] != self.epoch {
                            (lo, hi) = self.shrink_leaf(avatar, n, index, lo, hi);
                            if !((lo - reach_wide).cmple(local_wide).all()
                                && local_wide.cmple(hi + reach_wide).all())
                            {
                                continue;
                            }
                        }
                        let aabb = Aabb::new(lo.into(), hi.into());
                        let pad = rounding + Vec3::splat(self.box_slack[index]);
                        let lower = self.lower_bound(&aabb, local, stretch, pad);
                        self.push_cell(avatar, node.cell, lower, point, r);
                    } else {
                        self.stack.push(node.right);
                        self.stack.push(n + 1);
                    }
                }
            }
        }
        Ok(())
    }

    /// The box of hierarchy node `n` this frame, in its box's coordinates (`slides` the box's
    /// first sliding map): cached, or bounded now (its rest box plus its sliding range) and
    /// cached, tightening its ancestors.
    #[inline(always)]
    fn node_box(&mut self, avatar: &AvatarBoxes, n: u32, slides: usize) -> (Vec3A, Vec3A) {
        let cached = self.node_cache[n as usize];
        if cached.stamp == self.epoch {
            return (cached.mins, cached.maxs);
        }
        let node = &avatar.nodes[n as usize];
        let (mins, maxs) = (Vec3A::from(node.mins), Vec3A::from(node.maxs));
        let (lo, hi) = if node.slide > 0.0 {
            let (lo, hi) = self.sliding(avatar, node, slides);
            if node.right == LEAF {
                self.cell_slide[node.cell as usize] = (lo, hi);
            }
            (mins + lo, maxs + hi)
        } else {
            if node.right == LEAF {
                self.cell_slide[node.cell as usize] = (Vec3A::ZERO, Vec3A::ZERO);
            }
            (mins, maxs)
        };
        self.node_cache[n as usize] = NodeBox {
            mins: lo,
            maxs: hi,
            stamp: self.epoch,
        };
        self.stats.nodes_bounded += 1;
        self.tighten_ancestors(avatar, n);
        (lo, hi)
    }

    /// First use of leaf `n`'s cell this frame (box `index`, leaf box `lo..hi`): poses the cell
    /// and shrinks the leaf to its posed vertices' box in the box frame (and its ancestors with
    /// it); returns the shrunk box.
    #[inline]
    fn shrink_leaf(
        &mut self,
        avatar: &AvatarBoxes,
        n: u32,
        index: usize,
        lo: Vec3A,
        hi: Vec3A,
    ) -> (Vec3A, Vec3A) {
        let cell = avatar.nodes[n as usize].cell;
        let (exact_lo, exact_hi) = self.pose_cell(avatar, cell, index);
        let (lo, hi) = (lo.max(exact_lo), hi.min(exact_hi));
        let cached = &mut self.node_cache[n as usize];
        (cached.mins, cached.maxs) = (lo, hi);
        self.tighten_ancestors(avatar, n);
        (lo, hi)
    }

    /// The oriented box the queries of this frame test for box `index` (Pelechano 2002 §3.2.3,
    /// made conservative): the root of its cell hierarchy in the bone's moving frame (its rest
    /// box plus the sliding range of its skin, bounded now if no query reached it yet), padded by
    /// the frame's rounding slack as the queries pad it. Every posed vertex of the box's
    /// triangles ([`AvatarBoxes::box_triangles`]) lies inside. A box whose bone's skin matrix is
    /// singular is its O(m) box in its rest frame.
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] before the first [`Self::begin_frame`] with `avatar`;
    /// [`DeformError::IndexOutOfRange`] for a box past the last.
    ///
    /// # Performance
    /// O(m) for the m governors of the box the first time in a frame, O(1) after.
    pub fn posed_box(&mut self, avatar: &AvatarBoxes, index: usize) -> Result<PosedBox> {
        self.check_box(avatar, index)?;
        if !self.box_moving[index] {
            let aabb = self.box_aabb[index];
            return Ok(self.posed(avatar, index, aabb.mins, aabb.maxs));
        }
        let (n0, _) = avatar.boxes[index].nodes;
        let (lo, hi) = self.node_box(avatar, n0, self.slide_start[index] as usize);
        Ok(self.posed(avatar, index, lo.into(), hi.into()))
    }

    /// Appends to `out` (cleared first) the box of every cell (slab sector) of box `index` as the
    /// queries of this frame test it: its hierarchy leaf in the bone's moving frame, shrunk to
    /// its posed vertices (posing the cell if no query did yet), padded like
    /// [`Self::posed_box`]; for a box whose bone is singular, the box of each cell's posed
    /// vertices in its rest frame. The cells cut the box into the seed's slabs (§3.2.2) and
    /// their angular sectors.
    ///
    /// # Errors
    /// As [`Self::posed_box`].
    ///
    /// # Performance
    /// O(cells · m) plus posing the box's skin vertices not yet posed this frame.
    pub fn posed_cells(
        &mut self,
        avatar: &AvatarBoxes,
        index: usize,
        out: &mut Vec<PosedBox>,
    ) -> Result<()> {
        out.clear();
        self.check_box(avatar, index)?;
        let (s0, s1) = avatar.boxes[index].slabs;
        if !self.box_moving[index] {
            for cell in s0..s1 {
                let (lo, hi) = self.pose_cell(avatar, cell, index);
                out.push(self.posed(avatar, index, lo.into(), hi.into()));
            }
            return Ok(());
        }
        let (n0, n1) = avatar.boxes[index].nodes;
        let slides = self.slide_start[index] as usize;
        for n in n0..n1 {
            let node = &avatar.nodes[n as usize];
            if node.right != LEAF {
                continue;
            }
            let cell = node.cell;
            let (mut lo, mut hi) = self.node_box(avatar, n, slides);
            if self.cell_stamp[cell as usize] != self.epoch {
                (lo, hi) = self.shrink_leaf(avatar, n, index, lo, hi);
            }
            out.push(self.posed(avatar, index, lo.into(), hi.into()));
        }
        Ok(())
    }

    /// Box `index`'s box-coordinate range `lo..hi`, padded by its slack, as a [`PosedBox`].
    fn posed(&self, avatar: &AvatarBoxes, index: usize, lo: Vec3, hi: Vec3) -> PosedBox {
        let b = &avatar.boxes[index];
        let rest_from_box = Affine::new(b.rest_obb.axes, b.rest_obb.center);
        let from_box = if self.box_moving[index] {
            self.governors[b.bone as usize].compose(&rest_from_box)
        } else {
            rest_from_box
        };
        let pad = Vec3::splat(self.box_slack[index]);
        PosedBox {
            from_box,
            mins: lo - pad,
            maxs: hi + pad,
        }
    }

    fn check_box(&self, avatar: &AvatarBoxes, index: usize) -> Result<()> {
        self.check_frame(avatar)?;
        if index >= avatar.boxes.len() {
            return Err(DeformError::IndexOutOfRange {
                what: "avatar box",
                index,
                len: avatar.boxes.len(),
            });
        }
        Ok(())
    }

    /// Poses cell `cell` of box `index` (once per frame, [`Self::ensure_cell`]) and returns the
    /// box of its posed vertices in the box's frame, padded for the rounding of the map.
    fn pose_cell(&mut self, avatar: &AvatarBoxes, cell: u32, index: usize) -> (Vec3A, Vec3A) {
        self.ensure_cell(avatar, cell);
        let frame = self.box_frames[index];
        let (t0, t1) = avatar.slabs[cell as usize].triangles;
        let (mut local_lo, mut local_hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for corners in &self.cell_corners[t0 as usize..t1 as usize] {
            for &p in corners {
                let u = frame.transform_point(p);
                (local_lo, local_hi) = (local_lo.min(u), local_hi.max(u));
            }
        }
        let b = self.cell_box[cell as usize];
        // As the query point's map: a few ulps of the terms of M_b p.
        let magnitude = b.mins.abs().max(b.maxs.abs()).max_element();
        let pad = Vec3::splat(
            8.0 * f32::EPSILON
                * (self.box_stretch[index].max_element() * magnitude * 3.0
                    + frame.translation.abs().max_element()),
        );
        (Vec3A::from(local_lo - pad), Vec3A::from(local_hi + pad))
    }

    /// On the first use of `cell` in the frame: poses its triangles' corners into
    /// `self.cell_corners` and their box into `self.cell_box`.
    #[inline]
    fn ensure_cell(&mut self, avatar: &AvatarBoxes, cell: u32) {
        let c = cell as usize;
        if self.cell_stamp[c] == self.epoch {
            return;
        }
        self.cell_stamp[c] = self.epoch;
        let (t0, t1) = avatar.slabs[c].triangles;
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for i in t0..t1 {
            let t = avatar.slab_triangles[i as usize];
            let corners = self.posed_corners(avatar, t);
            for p in corners {
                (lo, hi) = (lo.min(p), hi.max(p));
            }
            self.cell_corners[i as usize] = corners;
        }
        self.cell_box[c] = Aabb::new(lo, hi);
    }

    /// After node `n`'s box was computed this frame: while its sibling's box is also current,
    /// shrinks the parent's box to its intersection with the union of the two (the parent's
    /// vertices are its children's, so both boxes hold them), and goes on upwards.
    fn tighten_ancestors(&mut self, avatar: &AvatarBoxes, mut n: u32) {
        loop {
            let parent = avatar.nodes[n as usize].parent;
            if parent == LEAF {
                return;
            }
            let right = avatar.nodes[parent as usize].right;
            let sibling = if n == right { parent + 1 } else { right };
            let (a, b) = (
                self.node_cache[n as usize],
                self.node_cache[sibling as usize],
            );
            let p = self.node_cache[parent as usize];
            if b.stamp != self.epoch || p.stamp != self.epoch {
                return;
            }
            let mins = p.mins.max(a.mins.min(b.mins));
            let maxs = p.maxs.min(a.maxs.max(b.maxs));
            if mins == p.mins && maxs == p.maxs {
                return;
            }
            self.node_cache[parent as usize].mins = mins;
            self.node_cache[parent as usize].maxs = maxs;
            n = parent;
        }
    }

    /// Lists `cell` (reached with the lower bound `lower`) in `self.cell_hits` unless its posed
    /// world box is farther than `r` from `point`: the box of its triangles' posed vertices,
    /// computed on the cell's first use in the frame (posing those vertices once).
    #[inline]
    fn push_cell(&mut self, avatar: &AvatarBoxes, cell: u32, lower: f32, point: Vec3, r: f32) {
        let c = cell as usize;
        self.ensure_cell(avatar, cell);
        let b = self.cell_box[c];
        let gap = (b.mins - point).max(point - b.maxs).max(Vec3::ZERO);
        let d2 = gap.length_squared();
        // `r` holds the posed vertices' rounding bound already; the gap's own rounding is a
        // few ulps of it.
        if d2 > r * r * (1.0 + 8.0 * f32::EPSILON) {
            return;
        }
        self.stats.slab_hits += 1;
        let lower = lower.max(d2.sqrt() * (1.0 - 8.0 * f32::EPSILON) - self.vertex_slack);
        self.cell_hits.push((lower, cell));
    }

    /// Per axis, a range holding the sliding offset `Σ_{k≠b} w_k M_b (G_k − G_b) p₀` of every
    /// vertex below `node` (`slides` the box's first sliding map): per governor, the range of
    /// `M_b (G_k − G_b) p₀` over the rest box of the vertices `k` weighs on times the node's
    /// range of `w_k`, summed;
    /// intersected with the node's slide times the union of those ranges and 0.
    #[inline]
    fn sliding(&self, avatar: &AvatarBoxes, node: &CellNode, slides: usize) -> (Vec3A, Vec3A) {
        let (mut sum_lo, mut sum_hi) = (Vec3A::ZERO, Vec3A::ZERO);
        let (mut lo, mut hi) = (Vec3A::ZERO, Vec3A::ZERO);
        let (w0, w1) = node.weights;
        let slides = &self.slides[slides..];
        for w in &avatar.node_weights[w0 as usize..w1 as usize] {
            let (linear, abs, translation) = &slides[w.local as usize];
            let mid = *linear * Vec3A::from(w.center) + *translation;
            let half = *abs * Vec3A::from(w.half);
            let (v_lo, v_hi) = (mid - half, mid + half);
            lo = lo.min(v_lo);
            hi = hi.max(v_hi);
            // w ∈ [low, high] (≥ 0: `ConvexWeights` rejects negative weights, which the slide
            // bound below relies on), v ∈ [v_lo, v_hi]: the product's extremes are at corners,
            // and with w ≥ 0 the least is at v_lo (w v_hi ≥ w v_lo, rounding being monotone),
            // the largest at v_hi.
            let (low, high) = (Vec3A::splat(w.low), Vec3A::splat(w.high));
            sum_lo += (v_lo * low).min(v_lo * high);
            sum_hi += (v_hi * low).max(v_hi * high);
        }
        let slide = Vec3A::splat(node.slide);
        let lo = sum_lo.max(lo * slide);
        let hi = sum_hi.min(hi * slide);
        // The evaluation above rounds by a few ulps of its terms (covered by the box's slack);
        // a relative pad keeps the products themselves on the safe side.
        let pad = Vec3A::splat(1e-5);
        (lo - lo.abs() * pad, hi + hi.abs() * pad)
    }

    /// Lower bound of the world distance from a point at box coordinates `local` of box `index`
    /// to the posed vertices of `cell` (hence to its triangles), from the cell's plate widened by
    /// its sliding range this frame (its leaf bounded this frame) and by `pad` (box
    /// coordinates: the rounding of `local` and the box's slack).
    #[inline]
    fn plate_lower_bound(
        &self,
        avatar: &AvatarBoxes,
        cell: u32,
        index: usize,
        local: Vec3A,
        pad_length: f32,
    ) -> f32 {
        let plate = &avatar.cell_plates[cell as usize];
        let (slide_lo, slide_hi) = self.cell_slide[cell as usize];
        let axes = Mat3A::from(plate.axes);
        // The sliding box mapped into plate axes: centre and half extents.
        let half_splat = Vec3A::splat(0.5);
        let centre = axes * ((slide_lo + slide_hi) * half_splat);
        let half = axes.abs() * ((slide_hi - slide_lo) * half_splat);
        let (lo, hi) = (
            Vec3A::from(plate.mins) + centre - half,
            Vec3A::from(plate.maxs) + centre + half,
        );
        let q = axes * local;
        let gap = (lo - q).max(q - hi).max(Vec3A::ZERO);
        // Rounding: the maps above round by a few ulps of their operands; the plate axes are
        // orthonormal to a few ulps (a relative 1e-5 covers both stretch and rounding of the
        // length).
        let magnitude = local.abs().max_element()
            + lo.abs().max(hi.abs()).max_element()
            + slide_lo.abs().max(slide_hi.abs()).max_element();
        let box_distance =
            gap.length() * (1.0 - 1e-5) - pad_length - 32.0 * f32::EPSILON * magnitude;
        (box_distance / self.box_norm[index]).max(0.0) - self.vertex_slack
    }

    /// Lower bound of the world distance from a point at box coordinates `local` to anything
    /// inside `aabb` (box coordinates).
    #[inline]
    fn lower_bound(&self, aabb: &Aabb, local: Vec3, stretch: Vec3, rounding: Vec3) -> f32 {
        self.lower_bound_a(
            aabb.mins.into(),
            aabb.maxs.into(),
            local.into(),
            Vec3A::from(stretch).max(Vec3A::splat(f32::MIN_POSITIVE)),
            rounding.into(),
        )
    }

    /// [`Self::lower_bound`] of the box `lo..hi`, `stretch` already kept positive
    /// (`max(f32::MIN_POSITIVE)`).
    #[inline(always)]
    fn lower_bound_a(&self, lo: Vec3A, hi: Vec3A, local: Vec3A, stretch: Vec3A, pad: Vec3A) -> f32 {
        // A world offset d moves box coordinate i by at most |d| · stretch_i.
        let gap = (lo - local).max(local - hi) - pad;
        (gap / stretch).max_element().max(0.0) - self.vertex_slack
    }

    /// The skin triangle closest to `point` among those within `radius`, or `None` (ties: the
    /// lowest triangle index).
    ///
    /// `scratch` is kept for API stability and left empty (reuse it across calls).
    ///
    /// # Errors
    /// As [`Self::candidates`].
    ///
    /// # Performance
    /// A best-first search: the boxes nearest first, each box's hierarchy nearer child first,
    /// with the reach shrinking to the closest triangle found so far; a node, cell or triangle
    /// whose lower bound is beyond the reach is skipped, so only the cells around the closest
    /// point are posed (their vertices once per frame), not every cell within `radius`.
    pub fn closest(
        &mut self,
        avatar: &AvatarBoxes,
        point: Vec3,
        radius: f32,
        scratch: &mut Vec<u32>,
    ) -> Result<Option<SkinContact>> {
        scratch.clear();
        self.closest_with_hint(avatar, point, radius, None)
    }

    /// [`Self::closest`], starting from skin triangle `hint` (typically the point's closest
    /// triangle in the previous frame): when it lies within `radius`, the search starts with
    /// its distance as the reach and skips more of the skin. The answer is the same with any
    /// hint or none.
    ///
    /// # Errors
    /// As [`Self::candidates`]; [`DeformError::IndexOutOfRange`] for a hint past the last
    /// triangle.
    ///
    /// # Performance
    /// As [`Self::closest`], fewer nodes and cells when the hint is near the answer.
    pub fn closest_with_hint(
        &mut self,
        avatar: &AvatarBoxes,
        point: Vec3,
        radius: f32,
        hint: Option<u32>,
    ) -> Result<Option<SkinContact>> {
        self.check_query(avatar, point, radius)?;
        self.stats.points += 1;
        let mut search = Nearest {
            point,
            radius,
            reach: radius,
            best: None,
        };
        if let Some(t) = hint {
            if t as usize >= avatar.mesh.triangle_count() {
                return Err(DeformError::IndexOutOfRange {
                    what: "hint triangle",
                    index: t as usize,
                    len: avatar.mesh.triangle_count(),
                });
            }
            let [a, b, c] = self.posed_corners(avatar, t);
            search.consider(t, a, b, c);
        }
        let wide = Vec3A::from(point);
        let point_pad = 4.0 * f32::EPSILON * point.abs().max_element();
        // The boxes whose world box comes within the radius, nearest first.
        self.box_order.clear();
        self.stats.box_tests += avatar.boxes.len() as u64;
        let limit = (radius + self.vertex_slack) * (1.0 + 4.0 * f32::EPSILON) + point_pad;
        // Four boxes at a time first: the squared gap, evaluated in another order than the
        // box's own test below, differs from its square by a few ulps, well within the slack.
        let limit_squared = Vec4::splat(limit * limit * (1.0 + 16.0 * f32::EPSILON));
        let (px, py, pz) = (
            Vec4::splat(point.x),
            Vec4::splat(point.y),
            Vec4::splat(point.z),
        );
        for g in 0..self.box_world_lanes.len() {
            let [lo_x, lo_y, lo_z, hi_x, hi_y, hi_z] = self.box_world_lanes[g];
            let gx = (lo_x - px).max(px - hi_x).max(Vec4::ZERO);
            let gy = (lo_y - py).max(py - hi_y).max(Vec4::ZERO);
            let gz = (lo_z - pz).max(pz - hi_z).max(Vec4::ZERO);
            // Not farther (a NaN gap is kept, as the box's own test keeps it), lanes of boxes.
            let lanes = (avatar.boxes.len() - 4 * g).min(4);
            let mut mask = !(gx * gx + gy * gy + gz * gz).cmpgt(limit_squared).bitmask()
                & ((1u32 << lanes) - 1);
            while mask != 0 {
                let index = 4 * g + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let (lo, hi) = self.box_world[index];
                let gap = (lo - wide).max(wide - hi).max(Vec3A::ZERO).length();
                if gap > limit {
                    continue;
                }
                self.box_order.push((gap, index as u32));
            }
        }
        self.box_order
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for o in 0..self.box_order.len() {
            let (gap, index) = self.box_order[o];
            let index = index as usize;
            let r = search.reach + self.vertex_slack;
            if gap > r * (1.0 + 4.0 * f32::EPSILON) + point_pad {
                break;
            }
            self.closest_in_box(avatar, index, &mut search);
        }
        Ok(search.best)
    }

    /// `point` in the coordinates of box `index` this frame, the box's stretch (how far a world
    /// offset of unit length moves each coordinate) and a bound on the rounding of the map (a
    /// few ulps of its terms, per coordinate).
    #[inline]
    fn in_box_frame(&self, index: usize, point: Vec3) -> (Vec3, Vec3, Vec3) {
        let frame = self.box_frames[index];
        let stretch = self.box_stretch[index];
        let rounding = Vec3::splat(
            8.0 * f32::EPSILON
                * (stretch.max_element() * point.abs().max_element() * 3.0
                    + frame.translation.abs().max_element()),
        );
        (frame.transform_point(point), stretch, rounding)
    }

    /// The search of [`Self::closest`] in box `index`: its hierarchy, nearer child first.
    fn closest_in_box(&mut self, avatar: &AvatarBoxes, index: usize, search: &mut Nearest) {
        let (local, stretch, rounding) = self.in_box_frame(index, search.point);
        if !self.box_moving[index] {
            // A singular bone: its box as a whole, every cell a candidate.
            let aabb = self.box_aabb[index];
            let lower = self.lower_bound(&aabb, local, stretch, rounding);
            if lower > search.reach {
                return;
            }
            self.stats.box_hits += 1;
            let (s0, s1) = avatar.boxes[index].slabs;
            for s in s0..s1 {
                self.scan_cell(avatar, s, search);
            }
            return;
        }
        let pad = rounding + Vec3::splat(self.box_slack[index]);
        let pad_length = pad.length();
        let (local, stretch, pad) = (
            Vec3A::from(local),
            Vec3A::from(stretch).max(Vec3A::splat(f32::MIN_POSITIVE)),
            Vec3A::from(pad),
        );
        let (n0, _) = avatar.boxes[index].nodes;
        let slides = self.slide_start[index] as usize;
        self.stats.nodes_tested += 1;
        let (lo, hi) = self.node_box(avatar, n0, slides);
        let lower = self.lower_bound_a(lo, hi, local, stretch, pad);
        if lower > search.reach {
            return;
        }
        self.stats.box_hits += 1;
        self.nearest_stack.clear();
        self.nearest_stack.push((lower, n0));
        // A node is pushed with the lower bound of its box when pushed (its box, bounded then,
        // only shrinks within the frame).
        while let Some((pushed, n)) = self.nearest_stack.pop() {
            if pushed > search.reach {
                continue;
            }
            let node = &avatar.nodes[n as usize];
            if node.right == LEAF {
                let cell = node.cell;
                if self.cell_stamp[cell as usize] != self.epoch {
                    let (lo, hi) = self.node_box(avatar, n, slides);
                    // The cell's plate first: the cells beside the closest point are skipped
                    // without posing them.
                    if self.plate_lower_bound(avatar, cell, index, local, pad_length) > search.reach
                    {
                        continue;
                    }
                    let (lo, hi) = self.shrink_leaf(avatar, n, index, lo, hi);
                    if self.lower_bound_a(lo, hi, local, stretch, pad) > search.reach {
                        continue;
                    }
                }
                self.scan_cell(avatar, cell, search);
                continue;
            }
            // Both children bounded now; the nearer is searched first.
            let (left, right) = (n + 1, node.right);
            self.stats.nodes_tested += 2;
            let (l_lo, l_hi) = self.node_box(avatar, left, slides);
            let (r_lo, r_hi) = self.node_box(avatar, right, slides);
            let l_lower = self.lower_bound_a(l_lo, l_hi, local, stretch, pad);
            let r_lower = self.lower_bound_a(r_lo, r_hi, local, stretch, pad);
            let (near, far) = if r_lower < l_lower {
                ((r_lower, right), (l_lower, left))
            } else {
                ((l_lower, left), (r_lower, right))
            };
            if far.0 <= search.reach {
                self.nearest_stack.push(far);
            }
            if near.0 <= search.reach {
                self.nearest_stack.push(near);
            }
        }
    }

    /// The triangles of `cell` in the search of [`Self::closest`] (its posed box first: the
    /// box of its triangles' posed vertices, computed on the cell's first use in the frame).
    fn scan_cell(&mut self, avatar: &AvatarBoxes, cell: u32, search: &mut Nearest) {
        let c = cell as usize;
        let point = search.point;
        self.ensure_cell(avatar, cell);
        let b = self.cell_box[c];
        let gap = (b.mins - point).max(point - b.maxs).max(Vec3::ZERO);
        // The triangles are tested on the same posed vertices the box holds: a box beyond the
        // reach holds no triangle within it (a few ulps of slack for the gap's own rounding).
        if gap.length_squared() > search.reach * search.reach * (1.0 + 8.0 * f32::EPSILON) {
            return;
        }
        self.stats.slab_hits += 1;
        let (t0, t1) = avatar.slabs[c].triangles;
        for i in t0..t1 {
            let t = avatar.slab_triangles[i as usize];
            self.stats.candidate_triangles += 1;
            let [a, b, c] = self.cell_corners[i as usize];
            // The triangle's box first: most triangles of a cell are beyond the reach.
            let gap = (a.min(b).min(c) - point)
                .max(point - a.max(b).max(c))
                .max(Vec3::ZERO);
            if gap.length_squared() > search.reach * search.reach {
                continue;
            }
            search.consider(t, a, b, c);
        }
    }

    /// [`Self::closest`] for every point of `points`: appends `(point index, contact)` to `out`
    /// (cleared first) for each point within `radius` of the skin.
    ///
    /// # Errors
    /// As [`Self::candidates`], naming the first bad point (`out` then holds the contacts of the
    /// points before it).
    ///
    /// # Performance
    /// [`Self::closest`] per point.
    pub fn contacts(
        &mut self,
        avatar: &AvatarBoxes,
        points: &[Vec3],
        radius: f32,
        scratch: &mut Vec<u32>,
        out: &mut Vec<(u32, SkinContact)>,
    ) -> Result<()> {
        out.clear();
        for (i, &p) in points.iter().enumerate() {
            if !p.is_finite() {
                return Err(DeformError::NonFinitePosition {
                    what: "query point",
                    index: i,
                });
            }
            if let Some(contact) = self.closest(avatar, p, radius, scratch)? {
                out.push((i as u32, contact));
            }
        }
        Ok(())
    }

    /// How many posed skin vertices lie outside the seed's boxes (Pelechano 2002 §3.2.3): each
    /// bone's rest PCA box carried rigidly by its skin matrix, its half extents enlarged by the
    /// relative `tolerance` (0.1 = 10 %), instead of re-bounded every frame. A vertex counts once
    /// per box of its triangles that misses it. Diagnostic: the conservative boxes never miss.
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a negative or non-finite `tolerance`;
    /// [`DeformError::NotAvailable`] before the first [`Self::begin_frame`].
    ///
    /// # Performance
    /// O(T) over the slabs' triangles, posing every vertex not yet posed this frame.
    pub fn seed_tolerance_misses(&mut self, avatar: &AvatarBoxes, tolerance: f32) -> Result<usize> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "tolerance",
                value: tolerance,
                reason: "must be finite and non-negative",
            });
        }
        self.check_frame(avatar)?;
        let mut misses = 0;
        for b in 0..avatar.boxes.len() {
            let bone_box = &avatar.boxes[b];
            let rigid = bone_box.rest_to_box.compose(
                &invert(&self.governors[bone_box.bone as usize]).unwrap_or(Affine::IDENTITY),
            );
            let half = bone_box.rest_obb.half_extents * (1.0 + tolerance);
            self.next_serial();
            let (s0, s1) = bone_box.slabs;
            let (t0, t1) = (
                avatar.slabs[s0 as usize].triangles.0,
                avatar.slabs[s1 as usize - 1].triangles.1,
            );
            for i in t0..t1 {
                let t = avatar.slab_triangles[i as usize];
                for v in avatar.mesh.triangles()[t as usize] {
                    // Stamp vertices through the triangle stamps' serial: each vertex once per box.
                    if self.vertex_seen(v) {
                        continue;
                    }
                    let p = self.posed_vertex(avatar, v);
                    let local = rigid.transform_point(p);
                    if local.abs().cmpgt(half).any() {
                        misses += 1;
                    }
                }
            }
        }
        Ok(misses)
    }

    /// Skin vertex `v` posed by this frame's skin matrices (evaluated once per frame, as
    /// [`crate::governor::deform_vertex`] does).
    ///
    /// # Errors
    /// [`DeformError::NotAvailable`] before the first [`Self::begin_frame`] with `avatar`;
    /// [`DeformError::IndexOutOfRange`] for a vertex past the last.
    ///
    /// # Performance
    /// O(influences of `v`) the first time in a frame, O(1) after.
    pub fn skin_vertex(&mut self, avatar: &AvatarBoxes, v: u32) -> Result<Vec3> {
        self.check_frame(avatar)?;
        if v as usize >= avatar.rest.len().min(self.vertices.len()) {
            return Err(DeformError::IndexOutOfRange {
                what: "skin vertex",
                index: v as usize,
                len: avatar.rest.len(),
            });
        }
        Ok(self.posed_vertex(avatar, v))
    }

    #[inline]
    fn posed_vertex(&mut self, avatar: &AvatarBoxes, v: u32) -> Vec3 {
        let v = v as usize;
        if self.vertex_stamp[v] != self.epoch {
            self.vertex_stamp[v] = self.epoch;
            self.vertices[v] = deform_vertex(&avatar.rest, &avatar.weights, &self.governors, v);
            self.stats.vertices_posed += 1;
        }
        self.vertices[v]
    }

    fn posed_corners(&mut self, avatar: &AvatarBoxes, t: u32) -> [Vec3; 3] {
        avatar.mesh.triangles()[t as usize].map(|v| self.posed_vertex(avatar, v))
    }

    /// Marks vertex `v` as seen under the current serial; true if it already was.
    fn vertex_seen(&mut self, v: u32) -> bool {
        // Reuses the triangle stamps' serial on a per-vertex array of its own.
        if self.seen.len() != self.vertices.len() {
            self.seen = vec![0; self.vertices.len()];
        }
        let seen = self.seen[v as usize] == self.serial;
        self.seen[v as usize] = self.serial;
        seen
    }

    fn next_serial(&mut self) {
        if self.serial == u32::MAX {
            self.triangle_stamp.fill(0);
            self.seen.fill(0);
            self.serial = 0;
        }
        self.serial += 1;
    }

    fn check_frame(&self, avatar: &AvatarBoxes) -> Result<()> {
        if self.epoch == 0 || self.box_frames.len() != avatar.boxes.len() {
            return Err(DeformError::NotAvailable {
                what: "avatar query",
                reason: "begin_frame was not called with this avatar",
            });
        }
        Ok(())
    }

    fn check_query(&self, avatar: &AvatarBoxes, point: Vec3, radius: f32) -> Result<()> {
        self.check_frame(avatar)?;
        if !point.is_finite() {
            return Err(DeformError::NonFinitePosition {
                what: "query point",
                index: 0,
            });
        }
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "radius",
                value: radius,
                reason: "must be finite and non-negative",
            });
        }
        Ok(())
    }
}

/// `g⁻¹`, or `None` when `g`'s linear part is singular or its inverse not finite.
fn invert(g: &Affine) -> Option<Affine> {
    let det = g.linear.determinant();
    let scale = g
        .linear
        .to_cols_array()
        .iter()
        .fold(0f32, |m, x| m.max(x.abs()));
    if det.is_nan() || det.abs() <= 1e-6 * scale * scale * scale {
        return None;
    }
    let inverse = g.linear.inverse();
    let result = Affine::new(inverse, -(inverse * g.translation));
    result.is_finite().then_some(result)
}

/// An upper bound of the operator (spectral) norm of `m`: the square root of the largest
/// absolute row sum of `mᵀ m` (which bounds its largest eigenvalue), rounded up.
fn operator_norm_bound(m: &Mat3) -> f32 {
    let gram = m.transpose() * *m;
    let rows = abs_mat(&gram.transpose());
    let largest = (rows.x_axis.x + rows.x_axis.y + rows.x_axis.z)
        .max(rows.y_axis.x + rows.y_axis.y + rows.y_axis.z)
        .max(rows.z_axis.x + rows.z_axis.y + rows.z_axis.z);
    largest.sqrt() * (1.0 + 1e-5)
}

/// `m` with every entry replaced by its absolute value.
fn abs_mat(m: &Mat3) -> Mat3 {
    Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs())
}

/// The state of one [`AvatarQuery::closest`] search.
struct Nearest {
    point: Vec3,
    radius: f32,
    /// The distance of the closest triangle found so far (`radius` before the first).
    reach: f32,
    best: Option<SkinContact>,
}

impl Nearest {
    /// Takes triangle `t` (posed corners `a`, `b`, `c`) as the best so far if it is within the
    /// radius and nearer than the best (ties: the lower index).
    #[inline]
    fn consider(&mut self, t: u32, a: Vec3, b: Vec3, c: Vec3) {
        let projection = Triangle::new(a, b, c).project_local_point(self.point, true);
        let distance = (projection.point - self.point).length();
        if distance <= self.radius
            && self.best.is_none_or(|best| {
                distance < best.distance || (distance == best.distance && t < best.triangle)
            })
        {
            self.reach = distance;
            self.best = Some(SkinContact {
                triangle: t,
                point: projection.point,
                distance,
                normal: (b - a).cross(c - a).normalize_or_zero(),
            });
        }
    }
}

/// A hierarchy node's posed box (box coordinates) and the frame it was computed in.
#[derive(Clone, Copy, Debug, Default)]
struct NodeBox {
    mins: Vec3A,
    maxs: Vec3A,
    stamp: u32,
}

fn empty_aabb() -> Aabb {
    Aabb::new(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN))
}

/// True when `p` lies in `aabb` enlarged by `reach` (per axis) on every side.
#[inline]
fn inside(aabb: &Aabb, p: Vec3, reach: Vec3) -> bool {
    (aabb.mins - reach).cmple(p).all() && p.cmple(aabb.maxs + reach).all()
}
