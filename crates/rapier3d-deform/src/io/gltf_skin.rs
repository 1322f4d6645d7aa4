//! The node hierarchy and skin joints of a glTF file: rest transforms, animated world transforms (in f64) and skin weights.

use gltf::accessor::Dimensions;

use super::gltf_accessor::read_floats;
use super::gltf_animation::AnimationClip;
use super::gltf_source::GltfSource;
use super::{LoadError, LoadOptions, LoadReport};
use crate::governor::{Affine, ConvexWeights};
use crate::math::{Mat3, Mat4, Quat, Vec3};
use rapier3d::parry::glamx::{DAffine3, DMat4, DQuat};

/// A node's local transform as translation, rotation and scale: `T · R · S`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Trs {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion; normalised when evaluated).
    pub rotation: Quat,
    /// Scale.
    pub scale: Vec3,
}

impl Trs {
    /// No translation, rotation or scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `T · R · S` in f64, with the rotation normalised (identity when of zero length), as an
    /// affine map (the 4×4 matrix's entries, without its constant last row).
    fn affine_f64(&self) -> DAffine3 {
        let q = DQuat::from_xyzw(
            self.rotation.x as f64,
            self.rotation.y as f64,
            self.rotation.z as f64,
            self.rotation.w as f64,
        );
        let n = q.length();
        let q = if n > 1e-12 && n.is_finite() {
            q / n
        } else {
            DQuat::IDENTITY
        };
        DAffine3::from_scale_rotation_translation(
            self.scale.as_dvec3(),
            q,
            self.translation.as_dvec3(),
        )
    }

    /// `T · R · S` as a matrix.
    pub fn matrix(&self) -> Mat4 {
        DMat4::from(self.affine_f64()).as_mat4()
    }

    fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

impl Default for Trs {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Reusable buffers of [`Skeleton::world_transforms_into`] (animated local transforms and
/// world matrices of every node).
#[derive(Clone, Debug, Default)]
pub struct SkeletonScratch {
    trs: Vec<Trs>,
    animated: Vec<bool>,
    world: Vec<DAffine3>,
}

/// A node's rest (non-animated) local transform as stored in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum NodeTransform {
    /// Translation, rotation, scale.
    Trs(Trs),
    /// A 4×4 matrix (column-major, as glTF stores it).
    Matrix(Mat4),
}

impl NodeTransform {
    /// The transform in f64 as an affine map (a matrix's last row, `(0, 0, 0, 1)` in a valid
    /// glTF node, is not read).
    fn affine_f64(&self) -> DAffine3 {
        match self {
            Self::Trs(trs) => trs.affine_f64(),
            Self::Matrix(m) => DAffine3::from_mat4(m.as_dmat4()),
        }
    }

    /// As translation, rotation, scale (a matrix is decomposed; shear is lost).
    pub fn to_trs(&self) -> Trs {
        match *self {
            Self::Trs(trs) => trs,
            Self::Matrix(m) => {
                let (scale, rotation, translation) = m.to_scale_rotation_translation();
                Trs {
                    translation,
                    rotation,
                    scale,
                }
            }
        }
    }
}

fn affine_from_daffine3(m: &DAffine3) -> Affine {
    Affine::new(
        Mat3::from_cols(
            m.matrix3.x_axis.as_vec3(),
            m.matrix3.y_axis.as_vec3(),
            m.matrix3.z_axis.as_vec3(),
        ),
        m.translation.as_vec3(),
    )
}

/// The node hierarchy of a glTF file (every node, with parents and rest transforms) and the joints
/// of the loaded skin (empty when the loaded mesh is not skinned).
///
/// World transforms are composed in `f64` from the root down and rounded to `f32` once, so deep
/// hierarchies do not accumulate `f32` error.
///
/// # Performance
/// Memory O(nodes + joints); posing is O(nodes + animated channels · log keyframes) per call.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Skeleton {
    names: Vec<Option<String>>,
    parents: Vec<Option<u32>>,
    rest: Vec<NodeTransform>,
    /// Nodes ordered parents before children.
    order: Vec<u32>,
    joints: Vec<u32>,
    root_joint: usize,
}

impl Skeleton {
    /// Reads every node of the document.
    pub(crate) fn from_document(src: &GltfSource) -> Result<Self, LoadError> {
        let n = src.document.nodes().len();
        let mut names = Vec::with_capacity(n);
        let mut parents: Vec<Option<u32>> = vec![None; n];
        let mut rest = Vec::with_capacity(n);
        for node in src.document.nodes() {
            names.push(node.name().map(str::to_owned));
            let t = match node.transform() {
                gltf::scene::Transform::Matrix { matrix } => {
                    NodeTransform::Matrix(Mat4::from_cols_array_2d(&matrix))
                }
                gltf::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => NodeTransform::Trs(Trs {
                    translation: Vec3::from_array(translation),
                    rotation: Quat::from_array(rotation),
                    scale: Vec3::from_array(scale),
                }),
            };
            let finite = match &t {
                NodeTransform::Trs(trs) => trs.is_finite(),
                NodeTransform::Matrix(m) => m.is_finite(),
            };
            if !finite {
                return Err(LoadError::NonFiniteNodeTransform { node: node.index() });
            }
            rest.push(t);
            for child in node.children() {
                let c = child.index();
                if parents[c].is_some() || c == node.index() {
                    return Err(LoadError::InvalidHierarchy {
                        node: c,
                        reason: "is the child of two nodes, or of itself",
                    });
                }
                parents[c] = Some(node.index() as u32);
            }
        }
        // Parents before children: breadth-first from the roots. A node never reached is on a
        // cycle.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (c, p) in parents.iter().enumerate() {
            if let Some(p) = p {
                children[*p as usize].push(c as u32);
            }
        }
        let mut order: Vec<u32> = (0..n as u32)
            .filter(|&i| parents[i as usize].is_none())
            .collect();
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            order.extend_from_slice(&children[v]);
            head += 1;
        }
        if order.len() != n {
            let mut seen = vec![false; n];
            for &v in &order {
                seen[v as usize] = true;
            }
            let node = seen.iter().position(|s| !s).unwrap_or(0);
            return Err(LoadError::InvalidHierarchy {
                node,
                reason: "is on a cycle of parent links",
            });
        }
        Ok(Self {
            names,
            parents,
            rest,
            order,
            joints: Vec::new(),
            root_joint: 0,
        })
    }

    /// Sets the joints (node per joint) of the loaded skin; the root joint is `skeleton` when it
    /// is a joint, otherwise the first joint without a joint ancestor.
    pub(crate) fn set_joints(&mut self, joints: Vec<u32>, skeleton: Option<usize>) {
        let is_joint = |n: usize| joints.iter().position(|&j| j as usize == n);
        let root = skeleton.and_then(is_joint).or_else(|| {
            joints.iter().position(|&j| {
                let mut p = self.parents[j as usize];
                while let Some(q) = p {
                    if joints.contains(&q) {
                        return false;
                    }
                    p = self.parents[q as usize];
                }
                true
            })
        });
        self.root_joint = root.unwrap_or(0);
        self.joints = joints;
    }

    /// Number of nodes in the file.
    pub fn node_count(&self) -> usize {
        self.parents.len()
    }

    /// The parent of `node` (`None` for roots and out-of-range nodes).
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.parents
            .get(node)
            .copied()
            .flatten()
            .map(|p| p as usize)
    }

    /// The name of `node`, if any.
    pub fn node_name(&self, node: usize) -> Option<&str> {
        self.names.get(node).and_then(|n| n.as_deref())
    }

    /// The first node called `name`.
    ///
    /// # Performance
    /// O(nodes).
    pub fn find_node(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.as_deref() == Some(name))
    }

    /// The rest local transform of every node.
    pub fn rest_transforms(&self) -> &[NodeTransform] {
        &self.rest
    }

    /// The node of each joint of the loaded skin (joint `j` is governor `j` of the skinning).
    pub fn joints(&self) -> &[u32] {
        &self.joints
    }

    /// The joint (governor index) that vertices without weights are bound to: the skin's
    /// `skeleton` node when it is a joint, otherwise the first joint without a joint ancestor.
    /// `0` when there are no joints.
    pub fn root_joint(&self) -> usize {
        self.root_joint
    }

    /// The local transform of every node at time `t` of `clip` (the rest transform where the clip
    /// does not animate it; `None`: rest pose).
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn local_transforms(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<NodeTransform> {
        let mut out = self.rest.clone();
        if let Some(clip) = clip {
            let mut trs: Vec<Trs> = Vec::new();
            let mut animated = vec![false; out.len()];
            for c in clip.channels() {
                if let Some(a) = animated.get_mut(c.node) {
                    *a = true;
                }
            }
            trs.extend(out.iter().map(NodeTransform::to_trs));
            clip.apply(t, &mut trs);
            for (i, a) in animated.iter().enumerate() {
                if *a {
                    out[i] = NodeTransform::Trs(trs[i]);
                }
            }
        }
        out
    }

    fn world_f64(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<DAffine3> {
        let mut scratch = SkeletonScratch::default();
        self.world_f64_into(clip, t, &mut scratch);
        scratch.world
    }

    /// The world matrix of every node into `scratch.world` (the locals of `local_transforms`).
    fn world_f64_into(&self, clip: Option<&AnimationClip>, t: f32, scratch: &mut SkeletonScratch) {
        let n = self.rest.len();
        let SkeletonScratch {
            trs,
            animated,
            world,
        } = scratch;
        animated.clear();
        animated.resize(n, false);
        if let Some(clip) = clip {
            for c in clip.channels() {
                if let Some(a) = animated.get_mut(c.node) {
                    *a = true;
                }
            }
            trs.clear();
            trs.extend(self.rest.iter().map(NodeTransform::to_trs));
            clip.apply(t, trs);
        }
        world.clear();
        world.resize(n, DAffine3::IDENTITY);
        for &v in &self.order {
            let v = v as usize;
            let local = if animated[v] {
                trs[v].affine_f64()
            } else {
                self.rest[v].affine_f64()
            };
            world[v] = match self.parents[v] {
                Some(p) => world[p as usize] * local,
                None => local,
            };
        }
    }

    /// The world transform of every node at time `t` of `clip` (`None`: rest pose).
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn node_world_transforms(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<Affine> {
        self.world_f64(clip, t)
            .iter()
            .map(affine_from_daffine3)
            .collect()
    }

    /// [`Self::node_world_transforms`] written into `out` (cleared first), with the intermediate
    /// buffers kept in `scratch`: no allocation once both have grown to the skeleton's size.
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn node_world_transforms_into(
        &self,
        clip: Option<&AnimationClip>,
        t: f32,
        scratch: &mut SkeletonScratch,
        out: &mut Vec<Affine>,
    ) {
        self.world_f64_into(clip, t, scratch);
        out.clear();
        out.extend(scratch.world.iter().map(affine_from_daffine3));
    }

    /// The world transform of every joint of the loaded skin at time `t` of `clip`: what
    /// [`LinearBlendSkinning::set_bone_transforms`](crate::deformation::LinearBlendSkinning::set_bone_transforms)
    /// takes. Times outside the clip clamp to its ends (use
    /// [`AnimationClip::looped_time`] to loop).
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn world_transforms(&self, clip: &AnimationClip, t: f32) -> Vec<Affine> {
        self.joint_world(Some(clip), t)
    }

    /// The world transform of every joint in the rest pose (no animation applied).
    ///
    /// # Performance
    /// O(nodes).
    pub fn rest_world_transforms(&self) -> Vec<Affine> {
        self.joint_world(None, 0.0)
    }

    /// [`Self::world_transforms`] written into `out` (cleared first), with the intermediate
    /// buffers kept in `scratch`: no allocation once both have grown to the skeleton's size.
    ///
    /// # Performance
    /// O(nodes + channels · log keyframes).
    pub fn world_transforms_into(
        &self,
        clip: &AnimationClip,
        t: f32,
        scratch: &mut SkeletonScratch,
        out: &mut Vec<Affine>,
    ) {
        self.world_f64_into(Some(clip), t, scratch);
        out.clear();
        out.extend(
            self.joints
                .iter()
                .map(|&j| affine_from_daffine3(&scratch.world[j as usize])),
        );
    }

    fn joint_world(&self, clip: Option<&AnimationClip>, t: f32) -> Vec<Affine> {
        let world = self.world_f64(clip, t);
        self.joints
            .iter()
            .map(|&j| affine_from_daffine3(&world[j as usize]))
            .collect()
    }

    /// Rest world matrix of one node in f64 (used to bake unskinned meshes into scene space).
    pub(crate) fn rest_world_f64(&self) -> Vec<DMat4> {
        self.world_f64(None, 0.0)
            .into_iter()
            .map(DMat4::from)
            .collect()
    }
}

/// Reads the inverse bind matrices of `skin` (identity when absent, unless strict).
pub(crate) fn read_inverse_binds(
    src: &GltfSource,
    skin: &gltf::Skin<'_>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Vec<Affine>, LoadError> {
    let joints = skin.joints().len();
    let Some(acc) = skin.inverse_bind_matrices() else {
        if options.strict {
            return Err(LoadError::MissingInverseBindMatrices { skin: skin.index() });
        }
        report.skins_without_inverse_bind.push(skin.index());
        return Ok(vec![Affine::IDENTITY; joints]);
    };
    let what = format!("skin {} inverseBindMatrices", skin.index());
    if acc.count() < joints {
        return Err(LoadError::MismatchedAccessorCount {
            accessor: acc.index(),
            what,
            expected: joints,
            actual: acc.count(),
        });
    }
    let m = read_floats(src, &acc, &what, &[Dimensions::Mat4])?;
    Ok(m.chunks_exact(16)
        .take(joints)
        .map(|c| {
            let mut a = [0.0; 16];
            a.copy_from_slice(c);
            Affine::from_mat4(&Mat4::from_cols_array(&a))
        })
        .collect())
}

/// Per render vertex `(joint, weight)` influences → convex weights over joints: zero weights are
/// skipped, a non-zero weight on a missing joint is an error, rows summing to zero are bound to
/// `root_joint` (or rejected when strict), other rows are renormalised (counted in the report).
pub(crate) fn build_weights(
    influences: &[Vec<(u32, f32)>],
    joint_count: usize,
    root_joint: usize,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<ConvexWeights, LoadError> {
    let mut rows = Vec::with_capacity(influences.len());
    for (vertex, row) in influences.iter().enumerate() {
        let mut r: Vec<(u32, f32)> = Vec::with_capacity(row.len());
        for &(joint, w) in row {
            if !w.is_finite() {
                return Err(crate::error::DeformError::NonFiniteWeight {
                    vertex,
                    slot: r.len(),
                }
                .into());
            }
            if w == 0.0 {
                continue;
            }
            if joint as usize >= joint_count {
                return Err(LoadError::JointIndexOutOfRange {
                    vertex,
                    joint,
                    joint_count,
                });
            }
            r.push((joint, w));
        }
        let sum: f32 = r.iter().map(|x| x.1).sum();
        if sum == 0.0 && r.iter().all(|x| x.1 >= 0.0) {
            if options.strict {
                return Err(LoadError::ZeroWeights { vertex });
            }
            report.zero_weight_vertices.push(vertex);
            r = vec![(root_joint as u32, 1.0)];
        }
        rows.push(r);
    }
    let (weights, renormalised) = ConvexWeights::from_rows_renormalised(rows, joint_count)?;
    report.renormalised_weight_rows += renormalised;
    Ok(weights)
}
