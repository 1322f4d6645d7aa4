//! The garment's own collisions: vertex–triangle proximity constraints inside the substeps, and after the step the crossing triangle pairs found by a BN-Tree whose governors are the cloth's vertices, undone by reverting their vertices.

use super::build::Cloth;
use crate::bn_tree::{BnTree, BnTreeOptions, CullingMode, SelfCollisionQuery};
use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights};
use crate::math::Vec3;
use std::time::Instant;

/// Settings of a [`ClothSelfCollision`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfCollisionOptions {
    /// The cloth's thickness (m): a vertex is kept this far from every triangle of the garment
    /// that does not hold it. Keep it at least the skin stage's
    /// [`super::ContactThresholds::thickness`]: that stage puts a vertex that far out of the
    /// skin, through any layer of the garment lying closer (on the running Fox's cape, 4 mm left
    /// hundreds of crossing pairs per frame where 1 cm left almost none).
    pub thickness: f32,
    /// Rounds of "find the crossing pairs, revert their vertices" after a step before every
    /// free vertex of the cloth is reverted at once.
    pub max_revert_rounds: u32,
}

impl Default for SelfCollisionOptions {
    fn default() -> Self {
        Self {
            thickness: 0.01,
            max_revert_rounds: 8,
        }
    }
}

/// Counters of the last [`Cloth::step_with_self_collision`] and [`ClothSelfCollision::resolve`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClothSelfCollisionStats {
    /// Vertex–triangle pairs within reach, summed over the step's substeps (each substep's
    /// constraints).
    pub proximity_pairs: usize,
    /// Constraint projections that moved vertices, over all substeps.
    pub proximity_projections: usize,
    /// Crossing triangle pairs the first BN-Tree query of [`ClothSelfCollision::resolve`] found.
    pub crossing_pairs: usize,
    /// BN-Tree queries run by the last [`ClothSelfCollision::resolve`] (1 when nothing crossed).
    pub rounds: u32,
    /// Vertices moved back to where the step started.
    pub reverted: usize,
    /// Crossing pairs where the step started (a stage after this one, or a pinned vertex,
    /// left them; reverting cannot undo them, the cloth's motion may).
    pub inherited: usize,
    /// Crossing pairs left after the last round: inherited ones, and those a pinned vertex's
    /// motion makes.
    pub unresolved: usize,
    /// Time of the first BN-Tree query of the last [`ClothSelfCollision::resolve`] (ns).
    pub query_nanos: u64,
}

/// The self-collision stage of one [`Cloth`] (the issue's "garment self-collision through the
/// BN-Tree with point governors", as the `self_cloth` scene queries a Loop-subdivided cloth).
///
/// * **Tree.** A [`BnTree`] over the cloth's rest mesh whose governor `k` is vertex `k` itself
///   (weight 1, [`BnTree::with_point_governors`] at the rest positions): a pose is the cloth's
///   positions as [`Affine::constant`] governors, and each patch's normal bound is the BN-Tree's
///   §5 fit of one affine map to its points' motion. Patches of a cloth touch as many governors
///   as vertices, so the tree keeps no O(m) data and bounds nodes bottom-up on demand; the query
///   still prunes every patch whose normal cone is non-empty and whose contour is simple
///   (Schvartzman et al. 2009 §4, conservative mode), which is what a garment mostly is.
/// * **Proximity (inside the substeps).** At the start of each substep every vertex is paired
///   with the triangles farther than the thickness from it in the rest shape (nearer ones
///   are its neighbours on the surface, kept apart by the stretch constraints) whose boxes come
///   within the thickness plus the distance
///   the two can travel towards each other in the substep (1.5 × each one's speed relative to
///   the cloth's mean velocity times the substep, plus gravity's `g h²`; a grid of cells about
///   an edge long); the substep then projects, for each pair,
///   `C = (x − Σ βᵢ xᵢ) · n − thickness ≥ 0` with `n` the unit direction from the triangle's
///   closest point `Σ βᵢ xᵢ` to the vertex (the triangle's normal on the side the vertex
///   started on when they touch), masses weighting the corrections (XPBD with zero
///   compliance; Bridson, Fedkiw & Anderson 2002 for the proximity response). A vertex moving
///   less than the thickness per substep meets the constraint before it can pass a triangle;
///   one that passes anyway is pushed on the far side, and the crossing it leaves is for the
///   next stage.
/// * **Crossings (after the step and the skin stage).** [`Self::resolve`] runs the BN-Tree
///   query on the positions; the free vertices of every crossing pair go back to where the step
///   started, at rest, and the query runs again, until none crosses (the crate's
///   self-intersection guard does the same for plastic meshes). Reverting everything would
///   leave only the pairs that crossed where the step started ("inherited": a later stage,
///   such as the skin's repositioning of reverted vertices, or a pinned vertex made them), so
///   those are found too (one more query, only on frames with crossings) and left to the
///   cloth's motion; each round with another crossing left reverts at least one more vertex,
///   and after [`SelfCollisionOptions::max_revert_rounds`] every free vertex is reverted.
///
/// Nothing is allocated per step after the first.
#[derive(Clone, Debug)]
pub struct ClothSelfCollision {
    options: SelfCollisionOptions,
    tree: BnTree,
    query: SelfCollisionQuery,
    governors: Vec<Affine>,
    pairs: Vec<[u32; 2]>,
    /// Crossing pairs where the step started (when the step ends with crossings).
    inherited: Vec<[u32; 2]>,
    current: Vec<[u32; 2]>,
    /// Proximity pairs `(vertex, triangle, side)`: the side of the triangle's plane the vertex
    /// started on (±1).
    contacts: Vec<(u32, u32, f32)>,
    /// Per vertex, how far it may move in the step (m).
    reach: Vec<f32>,
    /// The substep's grid: per cell (CSR) the vertices listed in it.
    cell_start: Vec<u32>,
    cell_fill: Vec<u32>,
    cell_items: Vec<u32>,
    /// Per vertex, the last triangle that tested it.
    stamp: Vec<u32>,
    /// Mean rest edge length (the grid's cell size, at least twice the thickness).
    mean_edge: f32,
    /// Per triangle (CSR), the vertices within the thickness of it in the rest shape:
    /// neighbours on the surface, kept apart by the stretch constraints, not paired.
    near_start: Vec<u32>,
    near: Vec<u32>,
    /// Per vertex, reverted this step.
    reverted: Vec<bool>,
    /// The vertices reverted by the last [`Self::resolve`].
    reverted_list: Vec<u32>,
    stats: ClothSelfCollisionStats,
}

impl ClothSelfCollision {
    /// The stage for `cloth` (its rest mesh and vertex count).
    ///
    /// # Errors
    /// [`DeformError::InvalidParameter`] for a non-finite or non-positive thickness; what
    /// [`BnTree::build_with`] rejects.
    ///
    /// # Performance
    /// O(T log T) to build the tree of T triangles, plus a sweep over the rest shape for each
    /// vertex's neighbours within the thickness.
    pub fn new(cloth: &Cloth, options: SelfCollisionOptions) -> Result<Self> {
        if !(options.thickness.is_finite() && options.thickness > 0.0) {
            return Err(DeformError::InvalidParameter {
                name: "thickness",
                value: options.thickness,
                reason: "must be finite and positive",
            });
        }
        let mesh = cloth.mesh();
        let rest = mesh.positions().to_vec();
        let n = rest.len();
        let weights = ConvexWeights::from_rows((0..n as u32).map(|v| [(v, 1.0)]), n)?;
        let tree = BnTree::build_with(mesh, &rest, &weights, BnTreeOptions::SELF_COLLISION)?
            .with_point_governors(rest)?;
        let query = SelfCollisionQuery::new(&tree);
        let (near_start, near) = rest_neighbours(mesh, options.thickness);
        let mut edge_sum = 0f64;
        for tri in mesh.triangles() {
            for e in 0..3 {
                edge_sum += f64::from(
                    (mesh.positions()[tri[e] as usize]
                        - mesh.positions()[tri[(e + 1) % 3] as usize])
                        .length(),
                );
            }
        }
        let mean_edge = (edge_sum / (3 * mesh.triangle_count()).max(1) as f64) as f32;
        Ok(Self {
            options,
            tree,
            query,
            governors: Vec::with_capacity(n),
            pairs: Vec::new(),
            inherited: Vec::new(),
            current: Vec::new(),
            contacts: Vec::new(),
            reach: Vec::with_capacity(n),
            cell_start: Vec::new(),
            cell_fill: Vec::new(),
            cell_items: Vec::new(),
            stamp: Vec::new(),
            mean_edge,
            reverted: vec![false; n],
            reverted_list: Vec::new(),
            near_start,
            near,
            stats: ClothSelfCollisionStats::default(),
        })
    }

    /// The vertices the last [`Self::resolve`] moved back to the step's start (the skin may have
    /// moved onto them since: [`super::SkinCollision::push_out`] tests them again).
    pub fn reverted(&self) -> &[u32] {
        &self.reverted_list
    }

    /// The options.
    pub fn options(&self) -> SelfCollisionOptions {
        self.options
    }

    /// The BN-Tree over the cloth (governor `k` = vertex `k`).
    pub fn tree(&self) -> &BnTree {
        &self.tree
    }

    /// Counters of the last step and [`Self::resolve`].
    pub fn stats(&self) -> ClothSelfCollisionStats {
        self.stats
    }

    /// The crossing triangle pairs of the cloth at `positions` found by the BN-Tree query
    /// (sorted `[t1, t2]`, `t1 < t2`; triangles sharing an edge never count, triangles sharing
    /// a vertex only where they really cross, as [`SelfCollisionQuery::run`] defines).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] unless there is one position per cloth vertex; what
    /// [`SelfCollisionQuery::run`] rejects for a non-finite or out-of-range position.
    ///
    /// # Performance
    /// [`SelfCollisionQuery::run_by_mesh_size`] on the points as constant governors: the
    /// sort-and-sweep below [`crate::bn_tree::SWEEP_BELOW_TRIANGLES`] triangles, else the
    /// BN-Tree traversal (conservative, lazy bottom-up bounds).
    pub fn find(&mut self, positions: &[Vec3]) -> Result<&[[u32; 2]]> {
        let n = self.tree.rest_positions().len();
        if positions.len() != n {
            return Err(DeformError::LengthMismatch {
                what: "cloth positions",
                expected: n,
                actual: positions.len(),
            });
        }
        self.governors.clear();
        self.governors
            .extend(positions.iter().map(|&p| Affine::constant(p)));
        self.query.run_by_mesh_size(
            &self.tree,
            &self.governors,
            CullingMode::Conservative,
            &mut self.pairs,
        )?;
        Ok(&self.pairs)
    }

    /// Finds the crossing pairs of `cloth` ([`Self::find`]) and moves the free vertices of
    /// each back to where the last step started (at rest), round after round, until only pairs
    /// that already crossed there are left (see the type's docs). Call it after the step and
    /// any other stage that moves vertices (the skin's).
    ///
    /// # Errors
    /// As [`Self::find`] ([`DeformError::LengthMismatch`] for a cloth other than the one the
    /// stage was built for).
    ///
    /// # Performance
    /// One query when nothing crosses; otherwise one on the step's start and one per round (at
    /// most [`SelfCollisionOptions::max_revert_rounds`] + 1).
    pub fn resolve(&mut self, cloth: &mut Cloth) -> Result<ClothSelfCollisionStats> {
        let start = Instant::now();
        let found = self.find(&cloth.positions)?.len();
        self.stats.query_nanos = start.elapsed().as_nanos() as u64;
        self.stats.crossing_pairs = found;
        self.stats.rounds = 1;
        self.stats.reverted = 0;
        self.stats.inherited = 0;
        self.reverted.clear();
        self.reverted.resize(cloth.positions.len(), false);
        self.reverted_list.clear();
        if found == 0 {
            self.stats.unresolved = 0;
            return Ok(self.stats);
        }
        // Pairs that already crossed where the step started cannot be undone by reverting.
        core::mem::swap(&mut self.pairs, &mut self.current);
        self.find(&cloth.step_start)?;
        core::mem::swap(&mut self.pairs, &mut self.inherited);
        core::mem::swap(&mut self.pairs, &mut self.current);
        self.stats.inherited = self.inherited.len();
        let mut left = self.new_pairs();
        while left > 0 {
            let all = self.stats.rounds > self.options.max_revert_rounds;
            if all {
                for v in 0..cloth.positions.len() {
                    self.revert(cloth, v);
                }
            } else {
                for k in 0..self.pairs.len() {
                    if self.inherited.binary_search(&self.pairs[k]).is_ok() {
                        continue;
                    }
                    for t in self.pairs[k] {
                        for v in cloth.mesh.triangles()[t as usize] {
                            self.revert(cloth, v as usize);
                        }
                    }
                }
            }
            self.stats.rounds += 1;
            self.find(&cloth.positions)?;
            left = self.new_pairs();
            if all {
                break;
            }
        }
        self.stats.unresolved = self.pairs.len();
        Ok(self.stats)
    }

    /// Pairs of the last [`Self::find`] that did not cross where the step started.
    fn new_pairs(&self) -> usize {
        self.pairs
            .iter()
            .filter(|p| self.inherited.binary_search(p).is_err())
            .count()
    }

    /// Moves free vertex `v` back to where the step started, at rest (its velocity would carry
    /// it into the same crossing again).
    fn revert(&mut self, cloth: &mut Cloth, v: usize) {
        if !self.reverted[v] && cloth.inverse_mass[v] > 0.0 {
            self.reverted[v] = true;
            self.reverted_list.push(v as u32);
            cloth.positions[v] = cloth.step_start[v];
            cloth.velocities[v] = Vec3::ZERO;
            self.stats.reverted += 1;
        }
    }

    /// At the start of a substep of `h` seconds (`first`: of the step, which resets the
    /// counters): the vertex–triangle pairs within reach (see the type's docs).
    pub(crate) fn begin_substep(&mut self, cloth: &Cloth, h: f32, first: bool) {
        let th = self.options.thickness;
        let g = cloth.options.gravity.length();
        let x = &cloth.positions;
        // Only relative motion brings a vertex to a triangle: reaches are measured from the
        // cloth's mean velocity (|d_v − d_t| ≤ |d_v − c| + |d_t − c| for any common c).
        let n = cloth.velocities.len().max(1) as f32;
        let mean = cloth.velocities.iter().copied().sum::<Vec3>() / n;
        let mean = if mean.is_finite() { mean } else { Vec3::ZERO };
        self.reach.clear();
        self.reach.extend(cloth.velocities.iter().map(|v| {
            let r = 1.5 * h * (*v - mean).length() + h * h * g;
            if r.is_finite() { r } else { 0.0 }
        }));
        // A dense grid of cells about an edge long (larger if the cloth is spread so far that
        // there would be more than 8 cells per vertex): each vertex is listed in the cells its
        // reach covers, each triangle reads the cells its inflated box covers.
        let (lo, hi) = x.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(l, u), p| (l.min(*p), u.max(*p)),
        );
        let mut cell = (2.0 * th).max(self.mean_edge);
        let limit = 8 * x.len() + 1024;
        let dims = loop {
            let d = ((hi - lo) / cell).floor() + Vec3::ONE;
            if !d.is_finite() {
                return;
            }
            if (d.x as f64) * (d.y as f64) * (d.z as f64) <= limit as f64 {
                break [d.x as usize, d.y as usize, d.z as usize];
            }
            cell *= 1.26;
        };
        // A vertex faster than two cells per substep is paired within two cells: the grid stays
        // O(V), and what the proximity constraints miss the crossing stage catches.
        for r in &mut self.reach {
            *r = r.min(2.0 * cell);
        }
        let coords = |p: Vec3| -> [usize; 3] {
            let q = ((p - lo) / cell).floor().max(Vec3::ZERO);
            [
                (q.x as usize).min(dims[0] - 1),
                (q.y as usize).min(dims[1] - 1),
                (q.z as usize).min(dims[2] - 1),
            ]
        };
        let index = |i: usize, j: usize, k: usize| (i * dims[1] + j) * dims[2] + k;
        let cells = dims[0] * dims[1] * dims[2];
        // Counting sort of (cell, vertex) entries.
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        for pass in 0..2 {
            for (v, p) in x.iter().enumerate() {
                let rv = self.reach[v];
                let (a, b) = (coords(*p - Vec3::splat(rv)), coords(*p + Vec3::splat(rv)));
                for i in a[0]..=b[0] {
                    for j in a[1]..=b[1] {
                        for k in a[2]..=b[2] {
                            let c = index(i, j, k);
                            if pass == 0 {
                                self.cell_start[c + 1] += 1;
                            } else {
                                self.cell_items[self.cell_fill[c] as usize] = v as u32;
                                self.cell_fill[c] += 1;
                            }
                        }
                    }
                }
            }
            if pass == 0 {
                for c in 0..cells {
                    self.cell_start[c + 1] += self.cell_start[c];
                }
                self.cell_items.clear();
                self.cell_items.resize(self.cell_start[cells] as usize, 0);
                self.cell_fill.clear();
                self.cell_fill.extend_from_slice(&self.cell_start[..cells]);
            }
        }
        self.stamp.clear();
        self.stamp.resize(x.len(), u32::MAX);
        self.contacts.clear();
        for (t, tri) in cloth.mesh.triangles().iter().enumerate() {
            let [a, b, c] = tri.map(|v| x[v as usize]);
            let r = tri
                .iter()
                .map(|&v| self.reach[v as usize])
                .fold(0f32, f32::max)
                + th;
            let (tlo, thi) = (
                a.min(b).min(c) - Vec3::splat(r),
                a.max(b).max(c) + Vec3::splat(r),
            );
            let (ca, cb) = (coords(tlo), coords(thi));
            // The triangle's rest neighbours count as already seen.
            let (n0, n1) = (self.near_start[t] as usize, self.near_start[t + 1] as usize);
            for &v in &self.near[n0..n1] {
                self.stamp[v as usize] = t as u32;
            }
            for i in ca[0]..=cb[0] {
                for j in ca[1]..=cb[1] {
                    for k in ca[2]..=cb[2] {
                        let cc = index(i, j, k);
                        let (e0, e1) = (
                            self.cell_start[cc] as usize,
                            self.cell_start[cc + 1] as usize,
                        );
                        for e in e0..e1 {
                            let v = self.cell_items[e];
                            if self.stamp[v as usize] == t as u32 {
                                continue;
                            }
                            self.stamp[v as usize] = t as u32;
                            let p = x[v as usize];
                            let rv = self.reach[v as usize];
                            if !((tlo - Vec3::splat(rv)).cmple(p).all()
                                && p.cmple(thi + Vec3::splat(rv)).all())
                            {
                                continue;
                            }
                            let (q, _) = closest_on_triangle(p, a, b, c);
                            if (p - q).length() > r + rv {
                                continue;
                            }

                            let normal = (b - a).cross(c - a);
                            let side = if (p - q).dot(normal) >= 0.0 {
                                1.0
                            } else {
                                -1.0
                            };
                            self.contacts.push((v, t as u32, side));
                        }
                    }
                }
            }
        }
        if first {
            self.stats = ClothSelfCollisionStats::default();
        }
        self.stats.proximity_pairs += self.contacts.len();
    }

    /// One pass over the proximity pairs (inside a substep).
    pub(crate) fn project(&mut self, cloth: &mut Cloth) {
        let th = self.options.thickness;
        let triangles = cloth.mesh.triangles();
        for &(v, t, side) in &self.contacts {
            let tri = triangles[t as usize];
            let v = v as usize;
            let [ia, ib, ic] = tri.map(|i| i as usize);
            let x = &cloth.positions;
            let (p, a, b, c) = (x[v], x[ia], x[ib], x[ic]);
            let (q, bary) = closest_on_triangle(p, a, b, c);
            let offset = p - q;
            let distance = offset.length();
            let (direction, gap) = if distance > 1e-9 {
                (offset / distance, distance)
            } else {
                ((b - a).cross(c - a).normalize_or_zero() * side, 0.0)
            };
            let c_value = gap - th;
            if c_value >= 0.0 || direction == Vec3::ZERO {
                continue;
            }
            let w = &cloth.inverse_mass;
            let denominator =
                w[v] + bary.x * bary.x * w[ia] + bary.y * bary.y * w[ib] + bary.z * bary.z * w[ic];
            if denominator <= 0.0 {
                continue;
            }
            let lambda = -c_value / denominator;
            let (wv, wa, wb, wc) = (w[v], w[ia], w[ib], w[ic]);
            let x = &mut cloth.positions;
            x[v] += direction * (wv * lambda);
            x[ia] -= direction * (wa * bary.x * lambda);
            x[ib] -= direction * (wb * bary.y * lambda);
            x[ic] -= direction * (wc * bary.z * lambda);
            self.stats.proximity_projections += 1;
        }
    }
}

/// Per triangle of `mesh` (CSR offsets, then vertex ids), the vertices within `radius` of it in
/// the rest shape, its own corners among them.
fn rest_neighbours(mesh: &crate::mesh::TriangleMesh, radius: f32) -> (Vec<u32>, Vec<u32>) {
    let x = mesh.positions();
    let mut order: Vec<u32> = (0..x.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| x[a as usize].x.total_cmp(&x[b as usize].x));
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (t, tri) in mesh.triangles().iter().enumerate() {
        let [a, b, c] = tri.map(|v| x[v as usize]);
        let (lo, hi) = (
            a.min(b).min(c) - Vec3::splat(radius),
            a.max(b).max(c) + Vec3::splat(radius),
        );
        let first = order.partition_point(|&v| x[v as usize].x < lo.x);
        for &v in &order[first..] {
            let p = x[v as usize];
            if p.x > hi.x {
                break;
            }
            if tri.contains(&v)
                || (lo.cmple(p).all()
                    && p.cmple(hi).all()
                    && (closest_on_triangle(p, a, b, c).0 - p).length() <= radius)
            {
                pairs.push((t as u32, v));
            }
        }
    }
    pairs.sort_unstable();
    let count = mesh.triangle_count();
    let mut start = vec![0u32; count + 1];
    for &(t, _) in &pairs {
        start[t as usize + 1] += 1;
    }
    for t in 0..count {
        start[t + 1] += start[t];
    }
    (start, pairs.into_iter().map(|(_, v)| v).collect())
}

/// The point of triangle `(a, b, c)` nearest to `p` and its barycentric coordinates (Ericson,
/// *Real-Time Collision Detection* §5.1.5); a degenerate triangle answers its first corner
/// when the interior formula is not finite.
fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Vec3) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Vec3::X);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Vec3::Y);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = d1 / (d1 - d3);
        return (a + ab * s, Vec3::new(1.0 - s, s, 0.0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Vec3::Z);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = d2 / (d2 - d6);
        return (a + ac * s, Vec3::new(1.0 - s, 0.0, s));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * s, Vec3::new(0.0, 1.0 - s, s));
    }
    let denominator = va + vb + vc;
    let (v, w) = (vb / denominator, vc / denominator);
    let q = a + ab * v + ac * w;
    if q.is_finite() {
        (q, Vec3::new(1.0 - v - w, v, w))
    } else {
        (a, Vec3::X)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_matches_dense_sampling() {
        let (a, b, c) = (
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.2, 0.0),
            Vec3::new(0.3, 1.0, 0.4),
        );
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
        };
        for _ in 0..200 {
            let p = Vec3::new(next(), next(), next());
            let (q, bary) = closest_on_triangle(p, a, b, c);
            assert!((a * bary.x + b * bary.y + c * bary.z - q).length() < 1e-5);
            assert!(bary.min_element() >= -1e-6 && (bary.element_sum() - 1.0).abs() < 1e-5);
            let mut best = f32::MAX;
            for i in 0..=100 {
                for j in 0..=100 - i {
                    let (u, v) = (i as f32 / 100.0, j as f32 / 100.0);
                    best = best.min((a + (b - a) * u + (c - a) * v - p).length());
                }
            }
            let d = (q - p).length();
            assert!(
                d <= best + 1e-5 && d >= best - 0.02,
                "{d} vs sampled {best}"
            );
        }
    }
}
