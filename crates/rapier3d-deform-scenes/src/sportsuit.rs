//! The MakeHuman sportsuit on a procedural body of the same proportions: the body is the garment's surface moved inward and closed, skinned by distance to a procedural skeleton that walks in place.
//!
//! * **Garment.** `assets/cloth/makehuman_female_sportsuit01.obj` (CC0, MakeHuman; 1,797
//!   vertices, 3,436 triangles as 1,718 quads, in decimetres, `+Y` up, facing `+Z`) scaled to
//!   metres by [`SUIT_SCALE`]: a short-sleeved crop top and leggings, two components with seven
//!   openings (neck, two sleeves, the top's hem; waist, two ankles).
//! * **Body.** [`SuitBody`]: derived from the garment itself. Its hems are turned inwards (a
//!   strip of faces along each opening faces the body), so the body starts one strip in, at the
//!   fold; each vertex there is moved inward by [`SKIN_CLEARANCE`] along its area-weighted
//!   vertex normal; the bare midriff is bridged by a strip of triangles from the top's hem to
//!   the leggings' waist; the neck, sleeve and ankle openings are continued by short narrowing
//!   stubs along their own normals and capped. The closed mesh (3,664 triangles) is
//!   Loop-subdivided `levels` times (14,656 at 1, 58,624 at 2). Derived from the garment rather
//!   than built from capsules: the suit is tight everywhere, and an offset surface fits it at one
//!   clearance by construction (a capsule body would have to be matched to the torso's flat,
//!   bust-shaped cross-sections to stay inside it without leaving centimetres of air). The
//!   clearance is a little more than the collision stage's thickness
//!   ([`ContactThresholds::thickness`], 1 cm), so the suit starts where the stage would put it.
//!   The body has no head, forearms or feet beyond the stubs: the garment does not cover them.
//! * **Skeleton and weights.** [`SuitSkeleton`], measured on the garment: neck, sleeve and ankle
//!   openings' centroids; hips 7 cm above the crotch (the centre seam's lowest point) at the
//!   thighs' centres; knees halfway down the legs; shoulders between the neck and the sleeves.
//!   Seven bones (torso, thighs, shins, upper arms); a skin vertex is weighted per limb (torso,
//!   legs, upper arms) by the inverse fourth power of its distance to the limb's segment less the
//!   limb's measured radius (the median distance of the garment vertices nearest that segment),
//!   softened by 2 cm, a leg's share split between thigh and shin across the knee's plane, the
//!   three largest kept.
//! * **Walk.** In place, [`WALK_PERIOD`] s per cycle, easing in over [`WALK_RAMP`]: thighs swing
//!   ±[`HIP_SWING`] rad about the lateral axis in antiphase, knees flex up to [`KNEE_FLEX`] rad
//!   while their thigh is behind, upper arms swing ±[`ARM_SWING`] rad against the leg of their
//!   side; the torso stays.
//! * **Cloth.** [`Sportsuit`]: the garment itself, posed by the body's skinning, every opening's
//!   edge pinned — the elastic bands of the neckline, the sleeve and ankle cuffs, the top's hem
//!   and the waistband, where a sportsuit holds (each pinned vertex carried by the skin weights of
//!   its nearest skin vertex, [`PinCarriers`]); the rest rides on the body by contact, with
//!   [`SUIT_FRICTION`]. With only the waistband and the neckline pinned, the free turned hems
//!   fold over themselves and the garment's self-collision stage reverts most of the suit every
//!   step.
//!
//! Seed: Pelechano 2002 (further work: cloth on moving characters), the collision stage of
//! [`rapier3d_deform::cloth`].

use crate::garment::PinCarriers;
use rapier3d_deform::cloth::{Cloth, ClothOptions, ContactThresholds};
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::error::{DeformError, Result};
use rapier3d_deform::governor::{Affine, ConvexWeights, deform_vertices, validate_governors};
use rapier3d_deform::io::{LoadError, LoadOptions, load_obj};
use rapier3d_deform::math::{Mat3, Vec3};
use rapier3d_deform::mesh::TriangleMesh;
use std::collections::BTreeMap;

/// Metres per unit of the MakeHuman file (decimetres).
pub const SUIT_SCALE: f32 = 0.1;
/// How far inside the garment the body's skin is (m).
pub const SKIN_CLEARANCE: f32 = 0.012;
/// Most Loop levels of the body (4 gives 937,984 triangles).
pub const MAX_BODY_LEVELS: u32 = 4;
/// Seconds per walk cycle.
pub const WALK_PERIOD: f32 = 1.2;
/// Seconds over which the walk's amplitude eases in from standing.
pub const WALK_RAMP: f32 = 0.5;
/// Thigh swing amplitude (rad).
pub const HIP_SWING: f32 = 0.35;
/// Largest knee flexion (rad).
pub const KNEE_FLEX: f32 = 0.5;
/// Upper arm swing amplitude (rad).
pub const ARM_SWING: f32 = 0.25;
/// Friction of the suit against the skin: elastic sportswear grips.
pub const SUIT_FRICTION: f32 = 0.5;
/// Number of bones: [`TORSO`], thighs, shins, upper arms.
pub const BONES: usize = 7;
/// Number of limbs the weights are measured against: the torso, two legs, two upper arms.
pub const LIMBS: usize = 5;
/// Half-width of the knee's blend between thigh and shin (m).
pub const KNEE_BLEND: f32 = 0.04;
/// The torso bone.
pub const TORSO: usize = 0;
/// The thighs (left = `+X`, right).
pub const THIGHS: [usize; 2] = [1, 2];
/// The shins.
pub const SHINS: [usize; 2] = [3, 4];
/// The upper arms.
pub const ARMS: [usize; 2] = [5, 6];
/// The stubs that continue the body past the neck, sleeve and ankle openings: per ring, its
/// distance along the opening's normal (m) and its scale about the opening's centroid.
const STUB_RINGS: [(f32, f32); 2] = [(0.02, 0.85), (0.045, 0.75)];
/// Where a stub's cap closes it, along the opening's normal (m).
const STUB_CAP: f32 = 0.06;
/// Influences kept per skin vertex.
const INFLUENCES: usize = 3;
/// Softening of the distance weights (m): about the width of a joint's blend.
const BLEND: f32 = 0.02;

/// The garment's seven openings, each as its vertex loop in the order a face closing it
/// traverses (each boundary edge reversed).
#[derive(Clone, Debug)]
struct Openings {
    neck: Vec<u32>,
    hem: Vec<u32>,
    sleeves: [Vec<u32>; 2],
    waist: Vec<u32>,
    ankles: [Vec<u32>; 2],
}

impl Openings {
    /// The seven loops.
    fn all(&self) -> impl Iterator<Item = &Vec<u32>> {
        [
            &self.neck,
            &self.hem,
            &self.sleeves[0],
            &self.sleeves[1],
            &self.waist,
            &self.ankles[0],
            &self.ankles[1],
        ]
        .into_iter()
    }
}

/// The procedural skeleton measured on the garment (metres, bind pose).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SuitSkeleton {
    /// Bottom of the torso bone, between the hips.
    pub pelvis: Vec3,
    /// Top of the torso bone (the neck opening's centroid).
    pub neck: Vec3,
    /// Hip joints (left, right).
    pub hips: [Vec3; 2],
    /// Knee joints.
    pub knees: [Vec3; 2],
    /// Ends of the shins (the ankle openings' centroids).
    pub ankles: [Vec3; 2],
    /// Shoulder joints.
    pub shoulders: [Vec3; 2],
    /// Ends of the upper arms (the sleeve openings' centroids).
    pub sleeves: [Vec3; 2],
    /// Per limb ([`LIMBS`]: torso, legs, upper arms), its measured radius (m).
    pub radii: [f32; LIMBS],
}

impl SuitSkeleton {
    /// Each limb's segment: the torso (pelvis to neck), the legs (hip to ankle), the upper arms.
    fn limbs(&self) -> [(Vec3, Vec3); LIMBS] {
        [
            (self.pelvis, self.neck),
            (self.hips[0], self.ankles[0]),
            (self.hips[1], self.ankles[1]),
            (self.shoulders[0], self.sleeves[0]),
            (self.shoulders[1], self.sleeves[1]),
        ]
    }

    /// Distance of `p` to each limb's segment.
    fn distances(&self, p: Vec3) -> [f32; LIMBS] {
        self.limbs().map(|(a, b)| {
            let ab = b - a;
            let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
            (a + ab * t - p).length()
        })
    }

    /// The skin weights of a point at `p` (bind pose). Per limb, the inverse fourth power of
    /// the distance to its segment less its radius, softened by 2 cm; a leg's share is split
    /// between thigh and shin across the plane through the knee normal to the leg (a smoothstep
    /// over ±[`KNEE_BLEND`]); the three largest are kept, normalised.
    ///
    /// # Performance
    /// O(bones).
    pub fn weights_at(&self, p: Vec3) -> Vec<(u32, f32)> {
        let d = self.distances(p);
        let limb = |k: usize| 1.0 / f64::from((d[k] - self.radii[k]).max(0.0) + BLEND).powi(4);
        let mut w: Vec<(u32, f64)> = vec![(TORSO as u32, limb(0))];
        for side in 0..2 {
            let leg = limb(1 + side);
            let axis = (self.ankles[side] - self.hips[side]).normalize_or_zero();
            let x = ((p - self.knees[side]).dot(axis) / KNEE_BLEND * 0.5 + 0.5).clamp(0.0, 1.0);
            let shin = f64::from(x * x * (3.0 - 2.0 * x));
            w.push((THIGHS[side] as u32, leg * (1.0 - shin)));
            w.push((SHINS[side] as u32, leg * shin));
            w.push((ARMS[side] as u32, limb(3 + side)));
        }
        w.sort_by(|a, b| b.1.total_cmp(&a.1));
        w.truncate(INFLUENCES);
        w.retain(|x| x.1 > 0.0);
        let sum: f64 = w.iter().map(|x| x.1).sum();
        w.into_iter().map(|(k, x)| (k, (x / sum) as f32)).collect()
    }

    /// The skin matrices (bind pose → posed, in metres) at time `t` of the walk, looped.
    ///
    /// # Performance
    /// O(bones).
    pub fn governors_at(&self, t: f32) -> Vec<Affine> {
        let phase = core::f32::consts::TAU * t / WALK_PERIOD;
        // The amplitude eases in over WALK_RAMP (smoothstep): the suit starts at rest.
        let x = (t / WALK_RAMP).clamp(0.0, 1.0);
        let ease = x * x * (3.0 - 2.0 * x);
        let mut g = vec![Affine::IDENTITY; BONES];
        for side in 0..2 {
            let s = (phase + side as f32 * core::f32::consts::PI).sin();
            // A positive turn about +X takes a hanging limb backwards (−Z).
            let s = ease * s;
            let thigh = about_x(self.hips[side], -HIP_SWING * s);
            g[THIGHS[side]] = thigh;
            g[SHINS[side]] = thigh.compose(&about_x(self.knees[side], KNEE_FLEX * (-s).max(0.0)));
            g[ARMS[side]] = about_x(self.shoulders[side], ARM_SWING * s);
        }
        g
    }
}

/// The turn by `angle` about the `X` axis through `pivot`.
fn about_x(pivot: Vec3, angle: f32) -> Affine {
    let r = Mat3::from_rotation_x(angle);
    Affine::new(r, pivot - r * pivot)
}

/// The walking body fitted to the sportsuit, and the garment it was derived from.
#[derive(Clone, Debug)]
pub struct SuitBody {
    garment: TriangleMesh,
    openings: Openings,
    skeleton: SuitSkeleton,
    mesh: TriangleMesh,
    weights: ConvexWeights,
}

impl SuitBody {
    /// Loads the sportsuit, derives the body (see the module docs) and Loop-subdivides it
    /// `levels` times.
    ///
    /// # Errors
    /// The OBJ loader's [`LoadError`]s; [`LoadError::Deform`] wrapping
    /// [`DeformError::InvalidParameter`] for `levels` above [`MAX_BODY_LEVELS`] or a garment
    /// without the suit's seven openings, and the errors of [`LoopSubdivision::new`].
    ///
    /// # Performance
    /// Loading plus O(fine vertices · (stencil width + bones)).
    pub fn load(levels: u32) -> std::result::Result<Self, LoadError> {
        if levels > MAX_BODY_LEVELS {
            return Err(DeformError::InvalidParameter {
                name: "levels",
                value: levels as f32,
                reason: "the suit's body is subdivided at most MAX_BODY_LEVELS (4) times",
            }
            .into());
        }
        let (asset, _report) = load_obj(
            crate::asset_path("cloth/makehuman_female_sportsuit01.obj"),
            &LoadOptions::default(),
        )?;
        let scaled: Vec<Vec3> = asset
            .mesh
            .positions()
            .iter()
            .map(|p| *p * SUIT_SCALE)
            .collect();
        let garment = TriangleMesh::new(scaled, asset.mesh.triangles().to_vec())?;
        let openings = find_openings(&garment)?;
        let skeleton = measure_skeleton(&garment, &openings);
        // The suit's hems are turned inwards (a strip of faces along each opening faces the
        // body): the body starts at the fold, one strip in.
        let inner = without_hems(&garment, &openings)?;
        let control = close_body(&inner, &find_openings(&inner)?)?;
        let subdivision = LoopSubdivision::new(control, levels)?;
        let mesh = subdivision.mesh().clone();
        let weights = ConvexWeights::from_rows(
            mesh.positions().iter().map(|&p| skeleton.weights_at(p)),
            BONES,
        )?;
        Ok(Self {
            garment,
            openings,
            skeleton,
            mesh,
            weights,
        })
    }

    /// The skin mesh in metres (rest pose = bind pose).
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }

    /// Rest (bind) positions of the skin.
    pub fn rest_positions(&self) -> &[Vec3] {
        self.mesh.positions()
    }

    /// Skin weights (governors = the [`BONES`] bones).
    pub fn weights(&self) -> &ConvexWeights {
        &self.weights
    }

    /// The skeleton.
    pub fn skeleton(&self) -> &SuitSkeleton {
        &self.skeleton
    }

    /// The garment in metres, as authored (the bind pose).
    pub fn garment(&self) -> &TriangleMesh {
        &self.garment
    }

    /// Skin matrices at time `t` of the walk (looped).
    ///
    /// # Performance
    /// O(bones).
    pub fn governors_at(&self, t: f32) -> Vec<Affine> {
        self.skeleton.governors_at(t)
    }
}

/// The suit on a [`SuitBody`] and what carries the edges of its openings.
pub struct Sportsuit {
    /// The cloth (world space, the garment posed with the body).
    pub cloth: Cloth,
    /// What carries the pinned vertices (in [`Cloth::pinned`] order).
    pub carriers: PinCarriers,
}

impl Sportsuit {
    /// The suit on `body` posed by `governors` (the garment's vertices skinned with the weights
    /// a skin point there would have).
    ///
    /// # Errors
    /// [`validate_governors`]' errors for `governors` (not [`BONES`] finite transforms); the
    /// cloth's construction errors ([`Cloth::new`]).
    ///
    /// # Performance
    /// O(garment vertices · bones) to pose it, O(pinned · skin vertices) for the carriers (once).
    pub fn new(body: &SuitBody, governors: &[Affine], options: ClothOptions) -> Result<Self> {
        validate_governors(governors, BONES)?;
        let garment = body.garment();
        let positions: Vec<Vec3> = garment
            .positions()
            .iter()
            .map(|&p| {
                let blended = Affine::weighted_sum(
                    body.skeleton
                        .weights_at(p)
                        .into_iter()
                        .map(|(k, w)| (w, governors[k as usize])),
                );
                blended.transform_point(p)
            })
            .collect();
        let mut pinned: Vec<u32> = body.openings.all().flatten().copied().collect();
        pinned.sort_unstable();
        let cloth = Cloth::new(
            positions.clone(),
            garment.triangles().to_vec(),
            &pinned,
            options,
        )?;
        let pins: Vec<Vec3> = cloth
            .pinned()
            .iter()
            .map(|&p| positions[p as usize])
            .collect();
        let mut posed = Vec::new();
        deform_vertices(body.rest_positions(), body.weights(), governors, &mut posed);
        let carriers = PinCarriers::nearest(&pins, &posed, body.weights(), governors);
        Ok(Self { cloth, carriers })
    }

    /// The collision stage's thresholds for the suit: the defaults with [`SUIT_FRICTION`]. The
    /// face pass ([`ContactThresholds::face_contacts`]) stays off: the suit has triangles up to
    /// 21 cm across bridging the crotch and the backs of the knees, which both legs push in
    /// turn; with the pass on, those folds were driven 56 cm off the body within 60 frames.
    pub fn thresholds() -> ContactThresholds {
        ContactThresholds {
            friction: SUIT_FRICTION,
            ..ContactThresholds::default()
        }
    }

    /// Where the pinned vertices are under the skin matrices `governors`.
    pub fn pin_targets(&self, body: &SuitBody, governors: &[Affine]) -> Vec<Vec3> {
        self.carriers.targets(body.weights(), governors)
    }
}

/// The boundary loops of `triangles`, each in the order a closing face traverses it.
fn boundary_loops(triangles: &[[u32; 3]]) -> Result<Vec<Vec<u32>>> {
    let mut directed = std::collections::BTreeSet::new();
    for t in triangles {
        for e in 0..3 {
            directed.insert((t[e], t[(e + 1) % 3]));
        }
    }
    // A boundary edge a → b is closed by a face traversing b → a.
    let mut next = BTreeMap::new();
    for &(a, b) in &directed {
        if !directed.contains(&(b, a)) && next.insert(b, a).is_some() {
            return Err(DeformError::InvalidParameter {
                name: "garment boundary",
                value: b as f32,
                reason: "a vertex on two openings",
            });
        }
    }
    let mut loops = Vec::new();
    while let Some((&start, _)) = next.iter().next() {
        let mut ring = vec![start];
        let mut v = next.remove(&start).unwrap_or(start);
        while v != start {
            ring.push(v);
            v = next.remove(&v).ok_or(DeformError::InvalidParameter {
                name: "garment boundary",
                value: v as f32,
                reason: "an opening that does not close",
            })?;
        }
        loops.push(ring);
    }
    Ok(loops)
}

fn centroid(positions: &[Vec3], ring: &[u32]) -> Vec3 {
    ring.iter().map(|&v| positions[v as usize]).sum::<Vec3>() / ring.len().max(1) as f32
}

/// The suit's seven openings by position: the neck highest, the ankles lowest, the waist next;
/// of the other three the hem is nearest the body's axis and the sleeves the two others.
fn find_openings(garment: &TriangleMesh) -> Result<Openings> {
    let p = garment.positions();
    let mut loops = boundary_loops(garment.triangles())?;
    if loops.len() != 7 {
        return Err(DeformError::InvalidParameter {
            name: "garment openings",
            value: loops.len() as f32,
            reason: "the sportsuit has 7: neck, sleeves, hem, waist, ankles",
        });
    }
    loops.sort_by(|a, b| centroid(p, b).y.total_cmp(&centroid(p, a).y));
    let by_side = |mut pair: [Vec<u32>; 2]| {
        if centroid(p, &pair[0]).x < centroid(p, &pair[1]).x {
            pair.swap(0, 1);
        }
        pair
    };
    let mut it = loops.into_iter();
    let mut take = || it.next().unwrap_or_default();
    let neck = take();
    let mut middle = [take(), take(), take()];
    middle.sort_by(|a, b| centroid(p, a).x.abs().total_cmp(&centroid(p, b).x.abs()));
    let [hem, s0, s1] = middle;
    let waist = take();
    let ankles = by_side([take(), take()]);
    Ok(Openings {
        neck,
        hem,
        sleeves: by_side([s0, s1]),
        waist,
        ankles,
    })
}

/// The skeleton measured on the garment (see the module docs).
fn measure_skeleton(garment: &TriangleMesh, o: &Openings) -> SuitSkeleton {
    let p = garment.positions();
    let waist = centroid(p, &o.waist);
    let hem_low = o
        .hem
        .iter()
        .map(|&v| p[v as usize].y)
        .fold(f32::MAX, f32::min);
    let legs: Vec<Vec3> = p.iter().copied().filter(|q| q.y < hem_low).collect();
    // The crotch: the lowest point of the centre seam (vertices within 2 cm of x = 0).
    let crotch = legs
        .iter()
        .filter(|q| (q.x - waist.x).abs() < 0.02)
        .map(|q| q.y)
        .fold(waist.y, f32::min);
    let neck = centroid(p, &o.neck);
    let mut hips = [Vec3::ZERO; 2];
    let mut knees = [Vec3::ZERO; 2];
    let mut ankles = [Vec3::ZERO; 2];
    let mut shoulders = [Vec3::ZERO; 2];
    let mut sleeves = [Vec3::ZERO; 2];
    for side in 0..2 {
        let sign = if side == 0 { 1.0 } else { -1.0 };
        // The thigh's centre 3–8 cm below the crotch; the hip joint 7 cm above the crotch.
        let thigh: Vec<Vec3> = legs
            .iter()
            .copied()
            .filter(|q| {
                (q.x - waist.x) * sign > 0.0 && (crotch - 0.08..crotch - 0.03).contains(&q.y)
            })
            .collect();
        let c = thigh.iter().copied().sum::<Vec3>() / thigh.len().max(1) as f32;
        hips[side] = Vec3::new(c.x, crotch + 0.07, c.z);
        ankles[side] = centroid(p, &o.ankles[side]);
        knees[side] = 0.5 * (hips[side] + ankles[side]);
        sleeves[side] = centroid(p, &o.sleeves[side]);
        // The shoulder: 62 % of the way from the neck's axis to the sleeve, 6 cm below the neck.
        shoulders[side] = Vec3::new(
            neck.x + 0.62 * (sleeves[side].x - neck.x),
            neck.y - 0.06,
            sleeves[side].z,
        );
    }
    let pelvis = Vec3::new(waist.x, 0.5 * (hips[0].y + hips[1].y), waist.z);
    let mut skeleton = SuitSkeleton {
        pelvis,
        neck,
        hips,
        knees,
        ankles,
        shoulders,
        sleeves,
        radii: [0.0; LIMBS],
    };
    // Radii: the median distance of the garment vertices nearest each limb's segment.
    let mut nearest: [Vec<f32>; LIMBS] = Default::default();
    for &q in p {
        let d = skeleton.distances(q);
        let k = (0..LIMBS).fold(0, |b, k| if d[k] < d[b] { k } else { b });
        nearest[k].push(d[k]);
    }
    for (k, ds) in nearest.iter_mut().enumerate() {
        ds.sort_by(f32::total_cmp);
        skeleton.radii[k] = ds.get(ds.len() / 2).copied().unwrap_or(0.0);
    }
    skeleton
}

/// The garment without the triangles touching an opening (its turned hems), vertices
/// renumbered in order.
fn without_hems(garment: &TriangleMesh, o: &Openings) -> Result<TriangleMesh> {
    let mut on_opening = vec![false; garment.vertex_count()];
    for &v in o.all().flatten() {
        on_opening[v as usize] = true;
    }
    let kept: Vec<[u32; 3]> = garment
        .triangles()
        .iter()
        .filter(|t| t.iter().all(|&v| !on_opening[v as usize]))
        .copied()
        .collect();
    let mut index = vec![u32::MAX; garment.vertex_count()];
    let mut positions = Vec::new();
    for &v in kept.iter().flatten() {
        if index[v as usize] == u32::MAX {
            index[v as usize] = positions.len() as u32;
            positions.push(garment.positions()[v as usize]);
        }
    }
    let triangles = kept.iter().map(|t| t.map(|v| index[v as usize])).collect();
    TriangleMesh::new(positions, triangles)
}

/// The closed control mesh of the body: the garment moved inward by [`SKIN_CLEARANCE`] along
/// its area-weighted vertex normals, the midriff bridged, the other openings capped.
fn close_body(garment: &TriangleMesh, o: &Openings) -> Result<TriangleMesh> {
    let p = garment.positions();
    let mut normals = vec![Vec3::ZERO; p.len()];
    for t in garment.triangles() {
        let [a, b, c] = t.map(|v| p[v as usize]);
        let n = (b - a).cross(c - a);
        for &v in t {
            normals[v as usize] += n;
        }
    }
    let mut positions: Vec<Vec3> = p
        .iter()
        .zip(&normals)
        .map(|(&q, n)| q - SKIN_CLEARANCE * n.normalize_or_zero())
        .collect();
    let mut triangles = garment.triangles().to_vec();
    // Hem (its closing order) to waist (walked backwards: it faces the other way), by the
    // fraction of each loop's length travelled from the points at the same angle.
    let angle = |v: u32, c: Vec3| {
        let d = positions[v as usize] - c;
        d.z.atan2(d.x)
    };
    let (ch, cw) = (centroid(&positions, &o.hem), centroid(&positions, &o.waist));
    let a0 = angle(o.hem[0], ch);
    let turn = |v: u32, c: Vec3| {
        let d = angle(v, c) - a0;
        d.sin().atan2(d.cos()).abs()
    };
    let b_start = (0..o.waist.len())
        .min_by(|&i, &j| turn(o.waist[i], cw).total_cmp(&turn(o.waist[j], cw)))
        .unwrap_or(0);
    let n_w = o.waist.len();
    let waist: Vec<u32> = (0..n_w)
        .map(|k| o.waist[(b_start + n_w - k) % n_w])
        .collect();
    let fractions = |ring: &[u32]| {
        let mut acc = vec![0.0f32];
        for k in 0..ring.len() {
            let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
            let l = acc[k] + (positions[b as usize] - positions[a as usize]).length();
            acc.push(l);
        }
        let total = acc[ring.len()].max(1e-12);
        acc.iter().map(|x| x / total).collect::<Vec<f32>>()
    };
    let (fa, fb) = (fractions(&o.hem), fractions(&waist));
    let (na, nb) = (o.hem.len(), waist.len());
    let (mut i, mut j) = (0, 0);
    while i < na || j < nb {
        let a = o.hem[i % na];
        let b = waist[j % nb];
        if j == nb || (i < na && fa[i + 1] <= fb[j + 1]) {
            triangles.push([a, o.hem[(i + 1) % na], b]);
            i += 1;
        } else {
            // The waist walked backwards: its closing order is b_next → b.
            triangles.push([waist[(j + 1) % nb], b, a]);
            j += 1;
        }
    }
    // Stubs: each other opening continued along its own normal (the normal its cap would
    // have: Newell's sum over the loop in closing order), narrowing, then capped.
    let stubs = [
        &o.neck,
        &o.sleeves[0],
        &o.sleeves[1],
        &o.ankles[0],
        &o.ankles[1],
    ];
    for opening in stubs {
        let n = opening.len();
        let axis = (0..n)
            .map(|k| {
                let (a, b) = (opening[k], opening[(k + 1) % n]);
                positions[a as usize].cross(positions[b as usize])
            })
            .sum::<Vec3>()
            .normalize_or_zero();
        let mut ring = opening.clone();
        let c0 = centroid(&positions, &ring);
        for &(along, scale) in &STUB_RINGS {
            let next: Vec<u32> = ring
                .iter()
                .map(|&v| {
                    positions.push(c0 + (positions[v as usize] - c0) * scale + axis * along);
                    (positions.len() - 1) as u32
                })
                .collect();
            // Quads between the rings, keeping the closing order of `ring` for `next`.
            for k in 0..n {
                let (a, b) = (ring[k], ring[(k + 1) % n]);
                let (c, d) = (next[k], next[(k + 1) % n]);
                triangles.push([a, b, d]);
                triangles.push([a, d, c]);
            }
            ring = next;
        }
        let c = positions.len() as u32;
        positions.push(c0 + axis * STUB_CAP);
        for k in 0..ring.len() {
            triangles.push([ring[k], ring[(k + 1) % ring.len()], c]);
        }
    }
    let mesh = TriangleMesh::new(positions, triangles)?;
    mesh.check_oriented_manifold()?;
    Ok(mesh)
}
