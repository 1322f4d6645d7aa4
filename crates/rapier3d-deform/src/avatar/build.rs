//! Building the per-bone boxes of a skinned avatar: triangles to bones, PCA frames, slabs along each box's main axis cut into sectors, and per box a hierarchy over its cells with their rest boxes and weight ranges.

use crate::bounds::{Obb, PatchBounds};
use crate::error::{DeformError, Result};
use crate::governor::{Affine, ConvexWeights};
use crate::math::{Mat3, Vec3};
use crate::mesh::TriangleMesh;

/// How an avatar's skin is cut into boxes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct AvatarOptions {
    /// Number of triangles a cell (a slab, or a sector of one) aims for: a bone's box is cut
    /// into `ceil(triangles / triangles_per_slab)` cells (slabs of at least [`Self::min_slabs`],
    /// at most [`Self::max_slabs`]; at most 64 sectors). The seed uses a fixed 15 slabs; a target size keeps the
    /// vertex–triangle stage of a query from growing with the skin's resolution.
    pub triangles_per_slab: u32,
    /// Fewest slabs per bone box (the seed uses 15 on a 5–10k-triangle body; with 32 triangles
    /// per cell a bone of that body gets a few slabs of four or more sectors).
    pub min_slabs: u32,
    /// Most slabs per bone box.
    pub max_slabs: u32,
}

impl Default for AvatarOptions {
    fn default() -> Self {
        Self {
            triangles_per_slab: 32,
            min_slabs: 1,
            max_slabs: 256,
        }
    }
}

/// One cell of a bone's box (a slab, or an angular sector of one): the triangles whose rest
/// centroids fall in it.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Slab {
    /// Range into [`AvatarBoxes::slab_triangles`].
    pub(crate) triangles: (u32, u32),
}

/// A node of a box's cell hierarchy: the rest box, in the bone's box coordinates, of the skin
/// vertices below it, and what bounds their sliding away from it.
///
/// A vertex below the node is posed, in the moving box frame `M_b`, at
/// `F_b p₀ + Σ_{k≠b} w_k M_b (G_k − G_b) p₀` (the first term is its rest box coordinate). Per
/// governor `k ≠ b`, the node keeps the range of `w_k` over its vertices
/// ([`AvatarBoxes::node_weights`]) and the largest total `Σ_{k≠b} w_k` ([`Self::slide`]); with
/// the range of `M_b (G_k − G_b) p₀` over the rest box of the vertices `k` weighs on (kept per
/// governor, so a governor that touches a corner of the node is evaluated there only), the
/// offset is bounded per axis by the
/// sum of the products of the ranges, and by `slide` times the union of the ranges (the
/// tighter of the two is used).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct CellNode {
    /// Rest box of the vertices, box coordinates (`F_b p₀`, as evaluated in `f32`).
    pub(crate) mins: Vec3,
    /// See [`Self::mins`].
    pub(crate) maxs: Vec3,
    /// Largest total weight of the other governors (`Σ_{k≠b} |w_k|`) over the vertices,
    /// rounded up; 0 for skin that follows the bone alone.
    pub(crate) slide: f32,
    /// Range into [`AvatarBoxes::node_weights`]: the weight ranges of the governors other than
    /// the bone that weigh on a vertex below.
    pub(crate) weights: (u32, u32),
    /// Second child (the first is the next node), or [`LEAF`] for a leaf.
    pub(crate) right: u32,
    /// Parent node, or [`LEAF`] for the root.
    pub(crate) parent: u32,
    /// The leaf's cell (index into [`AvatarBoxes::slabs`]).
    pub(crate) cell: u32,
}

/// The range of one governor's weight over a node's vertices (0 included when a vertex lacks
/// it), and the rest box of the vertices it weighs on.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct NodeWeight {
    /// The governor, as an index into its box's [`BoneBox::governors`].
    pub(crate) local: u32,
    /// Least weight.
    pub(crate) low: f32,
    /// Largest weight.
    pub(crate) high: f32,
    /// Rest box (bind-pose world coordinates) of the node's vertices the governor weighs on:
    /// centre.
    pub(crate) center: Vec3,
    /// Half extents of that box, rounded up: centre ± half holds every such vertex.
    pub(crate) half: Vec3,
}

/// A cell's plate: an oriented box, in its bone's box coordinates, of its triangles' rest
/// vertices, one axis along the cell's mean normal. A patch of skin is thin along its normal,
/// so the plate bounds a query point's distance to the cell far tighter than the cell's box
/// in box axes when the point lies above the skin: a query skips the cells beside its closest
/// point without posing them.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct CellPlate {
    /// Box coordinates → plate coordinates: rows two tangents and the mean normal
    /// (orthonormal up to rounding; the identity for a cell without area).
    pub(crate) axes: Mat3,
    /// Least plate coordinates of the cell's rest vertices, rounded down.
    pub(crate) mins: Vec3,
    /// Largest plate coordinates of the cell's rest vertices, rounded up.
    pub(crate) maxs: Vec3,
}

/// [`CellNode::right`] of a leaf.
pub(crate) const LEAF: u32 = u32::MAX;

/// The box of one bone: its rest PCA frame, the bound data of all its triangles and its slabs.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct BoneBox {
    /// The bone (a governor of the skin).
    pub(crate) bone: u32,
    /// The PCA box of the bone's rest vertices (bind pose, world axes).
    pub(crate) rest_obb: Obb,
    /// World (bind pose) → box coordinates: `Rᵀ (p − c)`, `R` the PCA axes, `c` the box centre.
    pub(crate) rest_to_box: Affine,
    /// O(m) bound data of every triangle of the bone: the box's world box each frame, the
    /// bound of its skin's motion over a step, and the whole box of a bone whose skin matrix
    /// is singular.
    pub(crate) bounds: PatchBounds,
    /// Governors any of the bone's triangles depend on (sorted).
    pub(crate) governors: Box<[u32]>,
    /// Range into [`AvatarBoxes::slabs`].
    pub(crate) slabs: (u32, u32),
    /// Range into [`AvatarBoxes::nodes`]: the cell hierarchy, root first.
    pub(crate) nodes: (u32, u32),
    /// Largest `|Σ_k w_k − 1|` over the box's vertices (weights are normalised only up to
    /// rounding).
    pub(crate) weight_sum_error: f32,
}

/// Per-bone oriented boxes of a skinned mesh, cut into slabs along their main axis, that stay
/// conservative under any pose (Pelechano 2002 §3.2–3.4, made conservative).
///
/// The seed fits one PCA box per bone to the vertices attached to it, moves it with the bone and
/// enlarges it by a fixed tolerance, which misses skin that slides relative to the bone
/// (vertices weighted to several bones). Here a posed vertex `Σ w_k G_k p₀` is written in the
/// bone's moving box frame `M_b = F_b G_b⁻¹` (its rest box frame `F_b` carried by its skin
/// matrix `G_b`) as `F_b p₀ + Σ_{k≠b} w_k M_b (G_k − G_b) p₀`: the rest box coordinate, fixed at
/// build time, plus a sliding offset that only the other governors' weights carry. Each box's
/// cells are the leaves of a hierarchy built once in box coordinates; every node keeps the rest
/// box of its vertices, the range of each other governor's weight over them and their largest
/// total other weight, from which a frame bounds the offset in O(m) for the m governors that
/// touch the node (limited convex combinations, Steinemann & Otaduy) and in O(1) where the skin
/// follows the bone alone. Vertices that follow bone `b` alone keep their rest box coordinates,
/// so the boxes stay as tight as the seed's where the seed is right and grow exactly where skin
/// slides.
///
/// **Triangles to bones.** A triangle belongs to the bone of largest weight of each of its
/// three vertices (one to three bones). Any assignment stays correct, since every box is bounded
/// conservatively; this one keeps each box to the skin its bone mostly carries (tight boxes, few
/// slabs per query) and puts the triangles that bridge two bones into both, so a cloth vertex
/// near a joint finds them from either side.
///
/// **Slabs.** The main axis of a bone's rest box is cut into equal intervals, and each interval
/// into equal angular sectors around the axis once the bone carries at least four cells' worth
/// of triangles ([`AvatarOptions::triangles_per_slab`]): at least four sectors, and as many as
/// make a cell about as wide around the box (girth `π (h_y + h_z)`) as it is long, so a finer
/// skin gets smaller cells in both directions rather than only thinner slabs. A triangle belongs to
/// the one cell of its rest centroid: each cell's box is bounded from the vertices of its own
/// triangles, so it holds them wherever they reach, and no triangle is listed twice (the seed
/// lists the triangles on a slab border in both slabs, since its slabs are fixed intervals).
///
/// **Hierarchy.** The cells of a box are split at the median of their rest centres along the
/// longest axis of their spread, down to single cells: a query visits O(log cells) nodes per
/// box it reaches instead of every cell (the seed scans the slabs of a box).
///
/// Bones that carry no triangle get no box.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct AvatarBoxes {
    pub(crate) mesh: TriangleMesh,
    pub(crate) rest: Vec<Vec3>,
    pub(crate) weights: ConvexWeights,
    pub(crate) boxes: Vec<BoneBox>,
    pub(crate) slabs: Vec<Slab>,
    pub(crate) slab_triangles: Vec<u32>,
    /// The cell hierarchies of all boxes.
    pub(crate) nodes: Vec<CellNode>,
    /// The nodes' weight ranges ([`CellNode::weights`]).
    pub(crate) node_weights: Vec<NodeWeight>,
    /// Per cell, its plate.
    pub(crate) cell_plates: Vec<CellPlate>,
    /// Per vertex, the bone of largest weight.
    pub(crate) dominant_bone: Vec<u32>,
    /// Largest distance of a rest vertex from the origin.
    pub(crate) rest_radius: f32,
    /// Largest number of influences of a vertex.
    pub(crate) max_influences: u32,
    pub(crate) options: AvatarOptions,
}

/// Triangles per slab over an avatar's slabs (the seed's §5.2 statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlabStatistics {
    /// Bone boxes.
    pub boxes: usize,
    /// Slabs over all boxes.
    pub slabs: usize,
    /// Mean triangles per slab.
    pub mean_triangles: f64,
    /// Most triangles in one slab.
    pub max_triangles: usize,
    /// Slab entries over all slabs divided by the skin's triangle count (≥ 1: triangles on the
    /// borders of bones are listed in each of their bones).
    pub duplication: f64,
}

impl AvatarBoxes {
    /// Builds the boxes of `mesh` skinned by `weights` from its rest (bind pose) positions
    /// `rest`. The governors of `weights` are the bones (skin matrices, world × inverse bind).
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `rest` or the weight rows do not match the mesh;
    /// [`DeformError::NonFinitePosition`] / [`DeformError::PositionOutOfRange`] for a bad rest
    /// position; [`DeformError::InvalidParameter`] for `triangles_per_slab = 0`, `min_slabs = 0`
    /// or `min_slabs > max_slabs`, or `max_slabs` above 4096.
    ///
    /// # Performance
    /// O(T · i · log m) for T triangles with i influences per vertex, plus one PCA per bone and
    /// O(c log c · m) for the hierarchy over a box's c cells.
    pub fn build(
        mesh: &TriangleMesh,
        rest: &[Vec3],
        weights: &ConvexWeights,
        options: AvatarOptions,
    ) -> Result<Self> {
        check_inputs(mesh, rest, weights, &options)?;
        let dominant_bone: Vec<u32> = (0..mesh.vertex_count())
            .map(|v| {
                let (governors, w) = weights.row(v);
                let best = (0..governors.len())
                    .max_by(|&a, &b| w[a].total_cmp(&w[b]).then(governors[b].cmp(&governors[a])))
                    .unwrap_or(0);
                governors.get(best).copied().unwrap_or(0)
            })
            .collect();
        // Triangles of each bone (a triangle joins the bone of largest weight of each vertex).
        let bones = weights.governor_count();
        let mut bone_triangles: Vec<Vec<u32>> = vec![Vec::new(); bones];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            let mut seen = [u32::MAX; 3];
            for (k, &v) in tri.iter().enumerate() {
                let bone = dominant_bone[v as usize];
                if !seen[..k].contains(&bone) {
                    bone_triangles[bone as usize].push(t as u32);
                }
                seen[k] = bone;
            }
        }
        let mut avatar = Self {
            mesh: mesh.clone(),
            rest: rest.to_vec(),
            weights: weights.clone(),
            boxes: Vec::new(),
            slabs: Vec::new(),
            slab_triangles: Vec::new(),
            nodes: Vec::new(),
            node_weights: Vec::new(),
            cell_plates: Vec::new(),
            dominant_bone,
            rest_radius: rest.iter().fold(0f32, |r, p| r.max(p.length())),
            max_influences: weights.max_influences() as u32,
            options,
        };
        for (bone, triangles) in bone_triangles.iter().enumerate() {
            if !triangles.is_empty() {
                avatar.add_bone(bone as u32, triangles);
            }
        }
        Ok(avatar)
    }

    /// Adds the box of `bone` over `triangles` (non-empty) and its slabs.
    fn add_bone(&mut self, bone: u32, triangles: &[u32]) {
        let mut vertices: Vec<u32> = triangles
            .iter()
            .flat_map(|&t| self.mesh.triangles()[t as usize])
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        let points: Vec<Vec3> = vertices.iter().map(|&v| self.rest[v as usize]).collect();
        // Finite, validated points: the PCA box exists (a single point or coplanar points get
        // zero extents along the missing axes).
        let rest_obb = Obb::from_points(&points).unwrap_or(Obb {
            center: points[0],
            axes: Mat3::IDENTITY,
            half_extents: Vec3::ZERO,
        });
        let axes_t = rest_obb.axes.transpose();
        let rest_to_box = Affine::new(axes_t, -(axes_t * rest_obb.center));
        let axis_half = rest_obb.half_extents.x;
        // Cells: slabs along the main axis, each cut into angular sectors around it once the
        // bone has skin enough to fill four, as many sectors as keep the cells about as wide
        // around the axis as they are long along it (so a finer skin makes smaller cells in both
        // directions, not only thinner slabs).
        let target = self.options.triangles_per_slab as usize;
        let cells = triangles.len().div_ceil(target).max(1);
        let sectors = if triangles.len() >= 4 * target {
            let length = 2.0 * axis_half as f64;
            let girth = core::f64::consts::PI
                * (rest_obb.half_extents.y as f64 + rest_obb.half_extents.z as f64);
            // cells = slabs · sectors, slab length / sector width = (length / slabs) / (girth / sectors).
            let ideal = (cells as f64 * girth / length.max(1e-30)).sqrt();
            let s = if ideal.is_finite() {
                ideal.round() as usize
            } else {
                4
            };
            s.clamp(4, MAX_SECTORS)
        } else {
            1
        };
        let wanted = cells.div_ceil(sectors) as u32;
        let count = wanted.clamp(self.options.min_slabs, self.options.max_slabs);
        let count = if axis_half > 0.0 { count } else { 1 };
        let mut per_cell: Vec<Vec<u32>> = vec![Vec::new(); count as usize * sectors];
        for &t in triangles {
            let [a, b, c] = self.mesh.triangles()[t as usize].map(|v| self.rest[v as usize]);
            // One cell per triangle, by its centroid: every box is bounded from the vertices of
            // its own triangles, so no triangle needs listing twice.
            let u = rest_to_box.transform_point((a + b + c) / 3.0);
            let s = ((u.x + axis_half) / (2.0 * axis_half) * count as f32).floor();
            let slab = if s.is_finite() {
                (s.max(0.0) as usize).min(count as usize - 1)
            } else {
                0
            };
            let sector = if sectors > 1 {
                let turn = (u.z.atan2(u.y) / core::f32::consts::TAU + 0.5) * sectors as f32;
                if turn.is_finite() {
                    (turn.max(0.0) as usize).min(sectors - 1)
                } else {
                    0
                }
            } else {
                0
            };
            per_cell[slab * sectors + sector].push(t);
        }
        let bounds = PatchBounds::new(&self.rest, &self.weights, &self.mesh, triangles);
        let governors = bounds.governors().to_vec().into_boxed_slice();
        let first_slab = self.slabs.len() as u32;
        let mut leaves = Vec::new();
        let mut weight_sum_error = 0f64;
        for list in per_cell.iter().filter(|l| !l.is_empty()) {
            let start = self.slab_triangles.len() as u32;
            self.slab_triangles.extend_from_slice(list);
            let cell = self.slabs.len() as u32;
            self.slabs.push(Slab {
                triangles: (start, self.slab_triangles.len() as u32),
            });
            self.cell_plates.push(self.plate(&rest_to_box, list));
            let (leaf, error) = self.leaf(bone, &governors, &rest_to_box, list, cell);
            weight_sum_error = weight_sum_error.max(error);
            leaves.push(leaf);
        }
        let first_node = self.nodes.len() as u32;
        build_hierarchy(&mut leaves, &mut self.nodes, &mut self.node_weights);
        self.boxes.push(BoneBox {
            bone,
            rest_obb,
            rest_to_box,
            bounds,
            governors,
            slabs: (first_slab, self.slabs.len() as u32),
            nodes: (first_node, self.nodes.len() as u32),
            weight_sum_error: (weight_sum_error * (1.0 + 1e-3) + 1e-12) as f32,
        });
    }

    /// The plate of a cell over `triangles` (box coordinates `rest_to_box`).
    fn plate(&self, rest_to_box: &Affine, triangles: &[u32]) -> CellPlate {
        let corners = |t: u32| {
            self.mesh.triangles()[t as usize]
                .map(|v| rest_to_box.transform_point(self.rest[v as usize]))
        };
        let normal = triangles.iter().fold(Vec3::ZERO, |n, &t| {
            let [a, b, c] = corners(t);
            n + (b - a).cross(c - a)
        });
        let axes = match normal.try_normalize() {
            Some(n) => {
                let (t1, t2) = n.any_orthonormal_pair();
                Mat3::from_cols(t1, t2, n).transpose()
            }
            None => Mat3::IDENTITY,
        };
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        let mut magnitude = 0f32;
        for &t in triangles {
            for u in corners(t) {
                let q = axes * u;
                (lo, hi) = (lo.min(q), hi.max(q));
                magnitude = magnitude.max(u.abs().max_element());
            }
        }
        // A row times a vector rounds by a few ulps of the sum of its terms' magnitudes.
        let pad = Vec3::splat(8.0 * f32::EPSILON * 3.0 * magnitude);
        CellPlate {
            axes,
            mins: lo - pad,
            maxs: hi + pad,
        }
    }

    /// The leaf node of cell `cell` of `bone`'s box over `triangles` (box governors
    /// `governors`) with its weight ranges, and the largest `|Σ w − 1|` of its vertices.
    fn leaf(
        &self,
        bone: u32,
        governors: &[u32],
        rest_to_box: &Affine,
        triangles: &[u32],
        cell: u32,
    ) -> (Leaf, f64) {
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        let (mut slide, mut error) = (0f64, 0f64);
        // (local governor, least, largest weight, vertices holding it, rest box).
        type Range = (u32, f32, f32, usize, Vec3, Vec3);
        let mut ranges: Vec<Range> = Vec::new();
        let mut vertices = 0usize;
        for &t in triangles {
            for v in self.mesh.triangles()[t as usize] {
                vertices += 1;
                let p0 = self.rest[v as usize];
                let u = rest_to_box.transform_point(p0);
                (lo, hi) = (lo.min(u), hi.max(u));
                let (gs, ws) = self.weights.row(v as usize);
                let (mut other, mut sum) = (0f64, 0f64);
                for (&g, &w) in gs.iter().zip(ws) {
                    sum += w as f64;
                    if g != bone && w != 0.0 {
                        other += w.abs() as f64;
                        // Every governor of the box's triangles is in `governors`.
                        let found = governors.binary_search(&g);
                        debug_assert!(found.is_ok(), "governor {g} missing from its box");
                        let local = found.unwrap_or(0) as u32;
                        match ranges.iter_mut().find(|r| r.0 == local) {
                            Some(r) => {
                                r.1 = r.1.min(w);
                                r.2 = r.2.max(w);
                                r.3 += 1;
                                r.4 = r.4.min(p0);
                                r.5 = r.5.max(p0);
                            }
                            None => ranges.push((local, w, w, 1, p0, p0)),
                        }
                    }
                }
                slide = slide.max(other);
                error = error.max((sum - 1.0).abs());
            }
        }
        let mut weights: Vec<NodeWeight> = ranges
            .iter()
            .map(|&(local, low, high, count, box_lo, box_hi)| {
                let (center, half) = centre_half(box_lo, box_hi);
                NodeWeight {
                    local,
                    // A vertex shared by two triangles is counted in both, so
                    // `count < vertices` whenever some vertex lacks the governor.
                    low: if count < vertices { low.min(0.0) } else { low },
                    high,
                    center,
                    half,
                }
            })
            .collect();
        weights.sort_unstable_by_key(|w| w.local);
        let node = CellNode {
            mins: lo,
            maxs: hi,
            slide: if slide > 0.0 {
                (slide * (1.0 + 1e-6)) as f32
            } else {
                0.0
            },
            weights: (0, 0),
            right: LEAF,
            parent: LEAF,
            cell,
        };
        ((node, weights), error)
    }

    /// The skin mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// The rest (bind pose) positions the skin matrices apply to.
    pub fn rest_positions(&self) -> &[Vec3] {
        &self.rest
    }

    /// The skin weights (governors = bones).
    pub fn weights(&self) -> &ConvexWeights {
        &self.weights
    }

    /// Number of bone boxes (bones that carry at least one triangle).
    pub fn box_count(&self) -> usize {
        self.boxes.len()
    }

    /// The bone of each box, in box order.
    pub fn box_bones(&self) -> impl Iterator<Item = u32> + '_ {
        self.boxes.iter().map(|b| b.bone)
    }

    /// The rest (bind pose) PCA box of box `index`, or `None` past the last box.
    pub fn rest_box(&self, index: usize) -> Option<Obb> {
        self.boxes.get(index).map(|b| b.rest_obb)
    }

    /// The skin triangles of box `index` (the triangles of its cells, each once, cell by cell),
    /// or `None` past the last box.
    ///
    /// # Performance
    /// O(1).
    pub fn box_triangles(&self, index: usize) -> Option<&[u32]> {
        let b = self.boxes.get(index)?;
        let (s0, s1) = b.slabs;
        let first = self.slabs.get(s0 as usize)?.triangles.0;
        let last = self.slabs.get((s1 as usize).checked_sub(1)?)?.triangles.1;
        self.slab_triangles.get(first as usize..last as usize)
    }

    /// Number of cells (slab sectors) of box `index`, or `None` past the last box.
    ///
    /// # Performance
    /// O(1).
    pub fn box_cell_count(&self, index: usize) -> Option<usize> {
        self.boxes
            .get(index)
            .map(|b| (b.slabs.1 - b.slabs.0) as usize)
    }

    /// The options the boxes were built with.
    pub fn options(&self) -> AvatarOptions {
        self.options
    }

    /// Triangles per slab (the seed's §5.2 table).
    ///
    /// # Performance
    /// O(slabs).
    pub fn slab_statistics(&self) -> SlabStatistics {
        let slabs = self.slabs.len();
        let entries = self.slab_triangles.len();
        SlabStatistics {
            boxes: self.boxes.len(),
            slabs,
            mean_triangles: entries as f64 / slabs.max(1) as f64,
            max_triangles: self
                .slabs
                .iter()
                .map(|s| (s.triangles.1 - s.triangles.0) as usize)
                .max()
                .unwrap_or(0),
            duplication: entries as f64 / self.mesh.triangle_count().max(1) as f64,
        }
    }

    /// Bytes held on the heap: the copied skin (mesh, rest positions, weights), the boxes, the
    /// slabs and the cell hierarchies.
    ///
    /// # Performance
    /// O(vertices + boxes).
    pub fn heap_bytes(&self) -> usize {
        let weight_entries: usize = (0..self.weights.vertex_count())
            .map(|v| self.weights.row(v).0.len())
            .sum();
        (self.mesh.vertex_count() + self.rest.capacity()) * core::mem::size_of::<Vec3>()
            + self.mesh.triangle_count() * 12
            + weight_entries * 8
            + (self.weights.vertex_count() + 1) * 4
            + self
                .boxes
                .iter()
                .map(|b| {
                    core::mem::size_of::<BoneBox>() + b.bounds.heap_bytes() + b.governors.len() * 4
                })
                .sum::<usize>()
            + self.slabs.capacity() * core::mem::size_of::<Slab>()
            + self.nodes.capacity() * core::mem::size_of::<CellNode>()
            + self.node_weights.capacity() * core::mem::size_of::<NodeWeight>()
            + self.slab_triangles.capacity() * 4
            + self.dominant_bone.capacity() * 4
    }
}

fn check_inputs(
    mesh: &TriangleMesh,
    rest: &[Vec3],
    weights: &ConvexWeights,
    options: &AvatarOptions,
) -> Result<()> {
    crate::governor::check_rest_and_weights(mesh, rest, weights)?;
    let bad = |name: &'static str, value: u32, reason: &'static str| {
        Err(DeformError::InvalidParameter {
            name,
            value: value as f32,
            reason,
        })
    };
    if options.triangles_per_slab == 0 {
        return bad("triangles_per_slab", 0, "must be at least 1");
    }
    if options.min_slabs == 0 {
        return bad("min_slabs", 0, "must be at least 1");
    }
    if options.max_slabs > MAX_SLABS_PER_BOX {
        return bad("max_slabs", options.max_slabs, "must be at most 4096");
    }
    if options.min_slabs > options.max_slabs {
        return bad("min_slabs", options.min_slabs, "must not exceed max_slabs");
    }
    Ok(())
}

/// A leaf node and its weight ranges (sorted by local governor).
type Leaf = (CellNode, Vec<NodeWeight>);

/// Appends the hierarchy over `leaves` (non-empty) to `nodes`, root first, each node followed by
/// its first child: a median split of the cells' rest centres along the longest axis of their
/// spread, down to single cells. A node's boxes, slide and weight ranges are its children's
/// unions (a governor missing from one child ranges down to 0). Returns the root's weight
/// ranges.
fn build_hierarchy(
    leaves: &mut [Leaf],
    nodes: &mut Vec<CellNode>,
    node_weights: &mut Vec<NodeWeight>,
) -> Vec<NodeWeight> {
    if leaves.len() == 1 {
        let (mut node, weights) = leaves[0].clone();
        let start = node_weights.len() as u32;
        node_weights.extend_from_slice(&weights);
        node.weights = (start, node_weights.len() as u32);
        nodes.push(node);
        return weights;
    }
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for (l, _) in leaves.iter() {
        let c = (l.mins + l.maxs) * 0.5;
        (lo, hi) = (lo.min(c), hi.max(c));
    }
    let spread = hi - lo;
    let axis = if spread.x >= spread.y && spread.x >= spread.z {
        0
    } else if spread.y >= spread.z {
        1
    } else {
        2
    };
    let mid = leaves.len() / 2;
    leaves.select_nth_unstable_by(mid, |(a, _), (b, _)| {
        let ca = (a.mins + a.maxs)[axis];
        let cb = (b.mins + b.maxs)[axis];
        ca.total_cmp(&cb)
    });
    let index = nodes.len();
    nodes.push(leaves[0].0);
    let (left, right) = leaves.split_at_mut(mid);
    let wa = build_hierarchy(left, nodes, node_weights);
    let second = nodes.len() as u32;
    let wb = build_hierarchy(right, nodes, node_weights);
    // Union of the two sorted range lists.
    let mut weights = Vec::with_capacity(wa.len() + wb.len());
    let (mut i, mut j) = (0, 0);
    while i < wa.len() || j < wb.len() {
        let take_a = j == wb.len() || (i < wa.len() && wa[i].local < wb[j].local);
        let take_b = i == wa.len() || (j < wb.len() && wb[j].local < wa[i].local);
        let w = if take_a {
            i += 1;
            let x = wa[i - 1];
            NodeWeight {
                low: x.low.min(0.0),
                ..x
            }
        } else if take_b {
            j += 1;
            let x = wb[j - 1];
            NodeWeight {
                low: x.low.min(0.0),
                ..x
            }
        } else {
            let (x, y) = (wa[i], wb[j]);
            i += 1;
            j += 1;
            let (center, half) = centre_half(
                (x.center - x.half).min(y.center - y.half),
                (x.center + x.half).max(y.center + y.half),
            );
            NodeWeight {
                local: x.local,
                low: x.low.min(y.low),
                high: x.high.max(y.high),
                center,
                half,
            }
        };
        weights.push(w);
    }
    let start = node_weights.len() as u32;
    node_weights.extend_from_slice(&weights);
    let (a, b) = (nodes[index + 1], nodes[second as usize]);
    nodes[index] = CellNode {
        mins: a.mins.min(b.mins),
        maxs: a.maxs.max(b.maxs),
        slide: a.slide.max(b.slide),
        weights: (start, node_weights.len() as u32),
        right: second,
        parent: nodes[index].parent,
        cell: LEAF,
    };
    nodes[index + 1].parent = index as u32;
    nodes[second as usize].parent = index as u32;
    weights
}

/// Centre and half extents of the box `[lo, hi]`, the half extents rounded up so that
/// centre ± half holds the box.
fn centre_half(lo: Vec3, hi: Vec3) -> (Vec3, Vec3) {
    let center = (lo + hi) * 0.5;
    let half = (hi - center).max(center - lo) * (1.0 + 4.0 * f32::EPSILON);
    (center, half)
}

/// Most angular sectors per slab.
const MAX_SECTORS: usize = 64;

/// Largest [`AvatarOptions::max_slabs`].
const MAX_SLABS_PER_BOX: u32 = 4096;
