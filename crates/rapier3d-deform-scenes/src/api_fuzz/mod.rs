//! A structured fuzzing harness over the public API: arbitrary meshes, weights, governor transforms, tree, proxy and plasticity parameters, and call sequences on a small Rapier world.
//!
//! [`ApiCase`] is built with [`arbitrary`] from bytes (so the same harness runs under proptest in
//! `cargo test`, `tests/errors/api_fuzz.rs`, and under libFuzzer, `fuzz/fuzz_targets/api.rs`).
//! [`run_case`] makes the calls; every call must return `Ok` with outputs that satisfy the
//! documented invariants, or a typed error. A broken invariant is returned as a [`Violation`]; a
//! panic is a failure of the caller's harness.
//!
//! Invariants checked against independent references:
//! - meshes: indices in range, positions finite within the limit, no triangle degenerate by the
//!   documented rule (recomputed here in `f64`);
//! - weights: rows of finite non-negative weights summing to 1, governors in range, no repeat;
//! - skinning: deformed positions equal `Σ w (A p₀ + t)` evaluated here in `f64`;
//! - self-collisions: the conservative BN-Tree and HSC queries equal the brute-force oracle, the
//!   fast mode finds a subset of it;
//! - mesh colliders: the shape's AABB contains every deformed vertex; a ball dropped on it in a
//!   Rapier world stays finite;
//! - sphere proxies: finite positive mass, AABB containing every ball;
//! - plasticity: example weights stay finite, non-negative rows summing to 1;
//! - OBJ loading: the mesh invariants, one welded index per object vertex.

mod inputs;

pub use inputs::{AffineInput, Count, Knob, MeshInput, Point, Real, WeightsInput, governors};

use arbitrary::Arbitrary;
use rapier3d::prelude::*;
use rapier3d_deform::bn_tree::{
    BnTree, BnTreeOptions, CullingMode, RefitPolicy, SelfCollisionQuery,
};
use rapier3d_deform::deformation::LinearBlendSkinning;
use rapier3d_deform::governor::{ConvexWeights, GovernedDeformation};
use rapier3d_deform::io::{LoadOptions, load_obj_slice};
use rapier3d_deform::limits::MAX_COORDINATE;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use rapier3d_deform::plasticity::{
    ContactSample, PlasticModel, PlasticWorkspace, PlasticityParams,
};
use rapier3d_deform::proxy::{PackOptions, ProxyOptions, SdfOptions, SphereProxy};
use rapier3d_deform::query::DeformDispatcher;
use rapier3d_deform::shape::{DeformableMeshShape, SphereProxyShape};
use rapier3d_deform::validation::self_collisions_brute_force;
use std::sync::Arc;

/// How many calls of each kind returned `Ok` (and had their invariants checked) on this thread:
/// a harness run asserts that the generator reaches every path, not only the rejections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Meshes accepted.
    pub meshes: u64,
    /// Weight sets accepted (case weights and CSR weights).
    pub weights: u64,
    /// Skins posed and compared with the `f64` evaluation.
    pub skins: u64,
    /// Self-collision queries compared with the brute-force oracle.
    pub oracle_queries: u64,
    /// Rapier worlds stepped with a mesh collider.
    pub worlds: u64,
    /// Sphere-union shapes accepted.
    pub spheres: u64,
    /// Sphere proxies built.
    pub proxies: u64,
    /// Contact lists accepted by a plastic model.
    pub plastic_contacts: u64,
    /// OBJ texts loaded.
    pub objs: u64,
}

thread_local! {
    static COVERAGE: std::cell::Cell<Coverage> = std::cell::Cell::new(Coverage::default());
}

/// This thread's [`Coverage`] since it started.
pub fn coverage() -> Coverage {
    COVERAGE.with(|c| c.get())
}

fn reached(f: impl FnOnce(&mut Coverage)) {
    COVERAGE.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

/// An invariant a call's `Ok` output broke.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation(pub String);

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        // `if … else` rather than `if !…`: a NaN comparison must fail the check.
        if $cond {
        } else {
            return Err(Violation(format!($($msg)+)));
        }
    };
}

/// One generated case: a mesh, its weights, and up to eight calls.
#[derive(Arbitrary, Clone, Debug)]
pub struct ApiCase {
    /// The mesh.
    pub mesh: MeshInput,
    /// Its weights.
    pub weights: WeightsInput,
    /// The calls, in order.
    pub calls: Vec<Call>,
}

/// One call on the case's mesh and weights.
#[derive(Arbitrary, Clone, Debug)]
pub enum Call {
    /// `ConvexWeights::from_csr`, then `compose` and `truncated` with the case's weights.
    Weights {
        /// CSR offsets.
        offsets: Vec<u8>,
        /// CSR governors.
        governors: Vec<u8>,
        /// CSR weights.
        weights: Vec<Real>,
        /// Declared governor count.
        governor_count: Count,
        /// `truncated` argument.
        keep: Count,
    },
    /// Linear blend skinning of the mesh posed by `bones`.
    Skin {
        /// Inverse binds.
        inverse_bind: Vec<AffineInput>,
        /// Bone world transforms.
        bones: Vec<AffineInput>,
    },
    /// A BN-Tree over the mesh and its self-collision queries under `bones`.
    SelfCollide {
        /// Leaf size.
        leaf_triangles: Count,
        /// Governor cost of the tree build.
        governor_cost: Real,
        /// Poses, one query each.
        poses: Vec<Vec<AffineInput>>,
        /// Extra or missing governors passed to the query.
        governor_delta: i8,
    },
    /// A mesh collider in a Rapier world with a ball dropped on it.
    Collider {
        /// The pose.
        bones: Vec<AffineInput>,
        /// The ball's start (each coordinate within the mesh's box, widened by its size).
        ball: [Knob; 3],
        /// Its radius (relative to the mesh's size).
        radius: Knob,
        /// Steps (mod 4).
        steps: u8,
    },
    /// A sphere-union shape from bare spheres.
    Spheres {
        /// Centres.
        centres: Vec<Point>,
        /// Radii.
        radii: Vec<Real>,
    },
    /// The offline sphere-proxy pipeline on the mesh with one jittered example.
    Proxy {
        /// Grid resolution (`% 20`).
        resolution: u8,
        /// Smallest radius (relative to the mesh's size).
        min_radius: Knob,
        /// Largest radius (relative to the mesh's size).
        max_radius: Knob,
        /// Sphere budget.
        max_spheres: Count,
        /// Offsets of the example's vertices.
        example: Vec<Point>,
    },
    /// A plastic model over the mesh (rest and one example) and contacts.
    Plastic {
        /// Yield.
        yield_displacement: Knob,
        /// Impulse scale.
        impulse_scale: Knob,
        /// Kernel radius (relative to the mesh's size).
        kernel_radius: Knob,
        /// Rate.
        rate: Knob,
        /// Example offsets.
        example: Vec<Point>,
        /// Contacts: a vertex (index mod the vertex count) offset by a point, and a displacement.
        contacts: Vec<(u8, Point, Point)>,
        /// Steps to advance (mod 8).
        steps: u8,
    },
    /// The mesh written as OBJ text (plus `extra` lines) and loaded back.
    Obj {
        /// Weld tolerance.
        weld_tolerance: Real,
        /// Extra text.
        extra: String,
    },
}

/// Makes the case's calls; `Ok` when every call returned a typed error or valid output.
///
/// # Errors
/// The first [`Violation`].
pub fn run_case(case: &ApiCase) -> Result<(), Violation> {
    let (positions, triangles) = case.mesh.arrays();
    let mesh = TriangleMesh::new(positions.clone(), triangles.clone());
    if let Ok(mesh) = &mesh {
        check_mesh(mesh)?;
        reached(|c| c.meshes += 1);
    }
    let weights = mesh
        .as_ref()
        .ok()
        .map(|m| case.weights.build(m.positions()));
    if let Some(Ok(w)) = &weights {
        check_weights(w)?;
        reached(|c| c.weights += 1);
    }
    for call in case.calls.iter().take(8) {
        match (call, &mesh, &weights) {
            (Call::Weights { .. }, _, _) => {
                weights_call(call, weights.as_ref().and_then(|w| w.as_ref().ok()))?
            }
            (Call::Spheres { centres, radii }, _, _) => spheres_call(centres, radii)?,
            (Call::Obj { .. }, _, _) => obj_call(call, &positions, &triangles)?,
            (_, Ok(mesh), Some(Ok(w))) => mesh_call(call, mesh, w)?,
            _ => {}
        }
    }
    Ok(())
}

fn mesh_call(call: &Call, mesh: &TriangleMesh, weights: &ConvexWeights) -> Result<(), Violation> {
    match call {
        Call::Skin {
            inverse_bind,
            bones,
        } => skin_call(mesh, weights, inverse_bind, bones),
        Call::SelfCollide {
            leaf_triangles,
            governor_cost,
            poses,
            governor_delta,
        } => self_collide_call(
            mesh,
            weights,
            *leaf_triangles,
            *governor_cost,
            poses,
            *governor_delta,
        ),
        Call::Collider {
            bones,
            ball,
            radius,
            steps,
        } => collider_call(mesh, weights, bones, *ball, *radius, *steps),
        Call::Proxy { .. } => proxy_call(call, mesh),
        Call::Plastic { .. } => plastic_call(call, mesh),
        _ => Ok(()),
    }
}

fn check_mesh(mesh: &TriangleMesh) -> Result<(), Violation> {
    let p = mesh.positions();
    ensure!(
        p.iter()
            .all(|x| x.is_finite() && x.abs().max_element() <= MAX_COORDINATE),
        "mesh accepted with a position that is not finite or beyond the limit"
    );
    let (lo, hi) = p
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(l, h), x| (l.min(*x), h.max(*x)));
    let diag2 = (hi.as_dvec3() - lo.as_dvec3())
        .length_squared()
        .max(f64::from(f32::MIN_POSITIVE));
    for (t, tri) in mesh.triangles().iter().enumerate() {
        ensure!(
            tri.iter().all(|&i| (i as usize) < p.len()),
            "triangle {t} accepted with an index out of range"
        );
        let [a, b, c] = tri.map(|i| p[i as usize].as_dvec3());
        let area2 = (b - a).cross(c - a).length();
        ensure!(
            tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2] && area2 > 1e-12 * diag2,
            "degenerate triangle {t} accepted"
        );
    }
    Ok(())
}

fn check_weights(w: &ConvexWeights) -> Result<(), Violation> {
    for v in 0..w.vertex_count() {
        let (g, x) = w.row(v);
        ensure!(!g.is_empty(), "vertex {v}: empty weight row accepted");
        ensure!(
            x.iter().all(|x| x.is_finite() && *x >= 0.0),
            "vertex {v}: weights {x:?} not finite and non-negative"
        );
        let sum: f64 = x.iter().map(|&x| f64::from(x)).sum();
        ensure!(
            (sum - 1.0).abs() <= 1e-5 * x.len() as f64,
            "vertex {v}: weights sum to {sum}"
        );
        ensure!(
            g.iter().all(|&g| (g as usize) < w.governor_count()),
            "vertex {v}: governor out of range"
        );
        let mut sorted = g.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        ensure!(
            sorted.len() == g.len(),
            "vertex {v}: repeated governor {g:?}"
        );
    }
    Ok(())
}

fn weights_call(call: &Call, case_weights: Option<&ConvexWeights>) -> Result<(), Violation> {
    let Call::Weights {
        offsets,
        governors,
        weights,
        governor_count,
        keep,
    } = call
    else {
        return Ok(());
    };
    let csr = ConvexWeights::from_csr(
        offsets.iter().map(|&o| u32::from(o)).collect(),
        governors.iter().map(|&g| u32::from(g)).collect(),
        weights.iter().map(|w| w.0).collect(),
        governor_count.0,
    );
    if let Ok(csr) = &csr {
        check_weights(csr)?;
        reached(|c| c.weights += 1);
        if let Ok(t) = csr.truncated(keep.0) {
            check_weights(&t)?;
            ensure!(
                t.max_influences() <= keep.0,
                "truncated kept more than {}",
                keep.0
            );
        }
        if let Some(outer) = case_weights
            && let Ok(c) = outer.compose(csr)
        {
            check_weights(&c)?;
            ensure!(
                c.vertex_count() == outer.vertex_count(),
                "compose changed the row count"
            );
        }
    }
    Ok(())
}

fn skin_call(
    mesh: &TriangleMesh,
    weights: &ConvexWeights,
    inverse_bind: &[AffineInput],
    bones: &[AffineInput],
) -> Result<(), Violation> {
    let m = weights.governor_count();
    let Ok(mut skin) = LinearBlendSkinning::new(
        mesh.positions().to_vec(),
        weights.clone(),
        governors(inverse_bind, m),
    ) else {
        return Ok(());
    };
    if skin.set_bone_transforms(&governors(bones, m)).is_err() {
        return Ok(());
    }
    reached(|c| c.skins += 1);
    let deformed = skin.deformed_positions();
    for (v, (p, rest)) in deformed.iter().zip(mesh.positions()).enumerate() {
        let mut exact = rapier3d::glamx::DVec3::ZERO;
        let mut scale = 0.0f64;
        for (g, w) in weights.iter_row(v) {
            let a = skin.governors()[g as usize];
            let q = a.linear.as_dmat3() * rest.as_dvec3() + a.translation.as_dvec3();
            exact += f64::from(w) * q;
            scale += f64::from(w)
                * (a.linear.as_dmat3().abs() * rest.as_dvec3().abs()
                    + a.translation.as_dvec3().abs())
                .max_element();
        }
        ensure!(p.is_finite(), "skinned vertex {v} is not finite");
        ensure!(
            (p.as_dvec3() - exact).abs().max_element() <= 1e-5 * scale.max(1e-30),
            "skinned vertex {v}: {p} vs f64 {exact}"
        );
    }
    Ok(())
}

fn self_collide_call(
    mesh: &TriangleMesh,
    weights: &ConvexWeights,
    leaf_triangles: Count,
    governor_cost: Real,
    poses: &[Vec<AffineInput>],
    governor_delta: i8,
) -> Result<(), Violation> {
    let options = BnTreeOptions {
        leaf_triangles: leaf_triangles.0,
        governor_cost: governor_cost.0,
    };
    let Ok(tree) = BnTree::build_with(mesh, mesh.positions(), weights, options) else {
        return Ok(());
    };
    let mut queries = [
        (
            SelfCollisionQuery::new(&tree),
            RefitPolicy::OnDemand,
            CullingMode::Conservative,
        ),
        (
            SelfCollisionQuery::new(&tree),
            RefitPolicy::BottomUpEveryFrame,
            CullingMode::Conservative,
        ),
        (
            SelfCollisionQuery::new(&tree),
            RefitPolicy::OnDemand,
            CullingMode::Fast,
        ),
    ];
    let m = weights.governor_count();
    let count = m.saturating_add_signed(isize::from(governor_delta % 3));
    let mut out = Vec::new();
    for pose in poses.iter().take(3) {
        let g = governors(pose, count);
        // The oracle runs on the deformed positions when the pose is one the query must accept.
        let oracle = (count == m).then(|| {
            let deformed: Vec<Vec3> = (0..mesh.vertex_count())
                .map(|v| rapier3d_deform::governor::deform_vertex(mesh.positions(), weights, &g, v))
                .collect();
            self_collisions_brute_force(mesh, &deformed).ok()
        });
        let oracle = oracle.flatten();
        for (query, policy, mode) in &mut queries {
            match query.run(&tree, &g, *policy, *mode, &mut out) {
                Ok(_) => {
                    ensure!(
                        count == m,
                        "query accepted {count} governors for a tree of {m}"
                    );
                    ensure!(
                        out.windows(2).all(|w| w[0] < w[1]),
                        "pairs not sorted and unique"
                    );
                    ensure!(out.iter().all(|p| p[0] < p[1]), "pair not ordered");
                    if let Some(oracle) = &oracle {
                        reached(|c| c.oracle_queries += 1);
                        if *mode == CullingMode::Conservative {
                            ensure!(
                                out == *oracle,
                                "{policy:?}: {} pairs, brute force {}",
                                out.len(),
                                oracle.len()
                            );
                        } else {
                            ensure!(
                                out.iter().all(|p| oracle.binary_search(p).is_ok()),
                                "fast mode reported a pair the oracle does not"
                            );
                        }
                    }
                }
                Err(_) => ensure!(
                    count != m
                        || g.iter()
                            .any(|a| rapier3d_deform::governor::check_governor(0, a).is_err()),
                    "query rejected valid governors"
                ),
            }
        }
    }
    Ok(())
}

fn collider_call(
    mesh: &TriangleMesh,
    weights: &ConvexWeights,
    bones: &[AffineInput],
    ball: [Knob; 3],
    radius: Knob,
    steps: u8,
) -> Result<(), Violation> {
    let Ok(tree) = BnTree::build(mesh, mesh.positions(), weights) else {
        return Ok(());
    };
    let g = governors(bones, weights.governor_count());
    let Ok(shape) = DeformableMeshShape::new(Arc::new(tree), &g) else {
        return Ok(());
    };
    let aabb = shape.compute_local_aabb();
    for (v, p) in shape.deformed_vertices().iter().enumerate() {
        ensure!(
            aabb.mins.cmple(*p).all() && aabb.maxs.cmpge(*p).all(),
            "deformed vertex {v} {p} outside the shape's AABB {aabb:?}"
        );
    }
    let (lo, hi) = mesh.bounds();
    let size = (hi - lo).max_element();
    let centre = Vec3::from_array(
        [0, 1, 2].map(|a| ball[a].in_range(lo[a] - 0.5 * size, hi[a] + 0.5 * size)),
    );
    let r = radius.in_range(0.01 * size, 0.3 * size);
    if !(centre.is_finite() && centre.abs().max_element() < 1e3 && r > 1e-3 && r < 10.0) {
        return Ok(());
    }
    let mut world = PhysicsWorld::new();
    world.narrow_phase = DeformDispatcher::narrow_phase();
    let fixed = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(ColliderBuilder::new(SharedShape::new(shape)), Some(fixed));
    let body = world.insert_body(RigidBodyBuilder::dynamic().translation(centre));
    world.insert_collider(ColliderBuilder::ball(r), Some(body));
    for _ in 0..steps % 4 {
        world.step();
    }
    reached(|c| c.worlds += 1);
    let b = &world.bodies[body];
    ensure!(
        b.translation().is_finite() && b.linvel().is_finite(),
        "the ball became non-finite"
    );
    Ok(())
}

fn spheres_call(centres: &[Point], radii: &[Real]) -> Result<(), Violation> {
    let c: Vec<Vec3> = centres.iter().take(16).map(|p| p.vec()).collect();
    let r: Vec<f32> = radii.iter().take(16).map(|r| r.0).collect();
    let Ok(shape) = SphereProxyShape::new(c.clone(), r.clone()) else {
        return Ok(());
    };
    let mass = shape.mass_properties(1.0);
    ensure!(
        mass.mass().is_finite() && mass.principal_inertia().is_finite(),
        "sphere proxy mass not finite: {mass:?}"
    );
    // The union weighs at least half its largest ball and at most 1.5 × the sum of the balls
    // (grid sampling error), wherever the largest ball's volume is a normal f32.
    let volume = |r: f32| 4.0 / 3.0 * std::f64::consts::PI * f64::from(r).powi(3);
    let largest = r.iter().map(|&r| volume(r)).fold(0.0, f64::max);
    let total: f64 = r.iter().map(|&r| volume(r)).sum();
    if largest >= 1e-30 {
        let m = f64::from(mass.mass());
        ensure!(
            m >= 0.5 * largest && m <= 1.5 * total,
            "sphere proxy mass {m}: largest ball {largest}, all balls {total}"
        );
    }
    reached(|c| c.spheres += 1);
    let aabb = shape.compute_local_aabb();
    for (k, (c, r)) in c.iter().zip(&r).enumerate() {
        ensure!(
            aabb.mins.cmple(*c - *r).all() && aabb.maxs.cmpge(*c + *r).all(),
            "ball {k} outside the proxy's AABB"
        );
    }
    Ok(())
}

fn example_of(mesh: &TriangleMesh, offsets: &[Point]) -> Vec<Vec3> {
    mesh.positions()
        .iter()
        .enumerate()
        .map(|(v, p)| {
            if offsets.is_empty() {
                *p
            } else {
                *p + offsets[v % offsets.len()].vec() * 0.05
            }
        })
        .collect()
}

fn proxy_call(call: &Call, mesh: &TriangleMesh) -> Result<(), Violation> {
    let Call::Proxy {
        resolution,
        min_radius,
        max_radius,
        max_spheres,
        example,
    } = call
    else {
        return Ok(());
    };
    let (lo, hi) = mesh.bounds();
    let size = (hi - lo).max_element();
    let options = ProxyOptions {
        sdf: SdfOptions {
            resolution: usize::from(resolution % 20),
            ..SdfOptions::default()
        },
        pack: PackOptions {
            min_radius: min_radius.in_range(0.02 * size, 0.2 * size),
            max_radius: max_radius.in_range(0.2 * size, 0.8 * size),
            max_spheres: max_spheres.0.min(64),
        },
    };
    let examples = [mesh.positions().to_vec(), example_of(mesh, example)];
    let Ok((proxy, _)) = SphereProxy::build(mesh, &examples, &options) else {
        return Ok(());
    };
    reached(|c| c.proxies += 1);
    let mass = proxy.unit_mass_properties();
    ensure!(
        mass.mass().is_finite() && mass.mass() > 0.0,
        "proxy of a valid closed mesh has unit mass {}",
        mass.mass()
    );
    for s in proxy.rest_spheres() {
        ensure!(
            s.centre.is_finite() && s.radius.is_finite() && s.radius >= 0.0,
            "proxy sphere not finite: {s:?}"
        );
    }
    Ok(())
}

fn plastic_call(call: &Call, mesh: &TriangleMesh) -> Result<(), Violation> {
    let Call::Plastic {
        yield_displacement,
        impulse_scale,
        kernel_radius,
        rate,
        example,
        contacts,
        steps,
    } = call
    else {
        return Ok(());
    };
    let (lo, hi) = mesh.bounds();
    let size = (hi - lo).max_element();
    let params = PlasticityParams {
        yield_displacement: yield_displacement.in_range(0.0, 0.05 * size),
        impulse_scale: impulse_scale.in_range(0.1, 20.0),
        kernel_radius: kernel_radius.in_range(0.05 * size, size),
        rate: rate.in_range(0.01, 1.0),
        ..PlasticityParams::jones_car()
    };
    let examples = [mesh.positions().to_vec(), example_of(mesh, example)];
    let Ok(model) = PlasticModel::from_examples(mesh, &examples, params) else {
        return Ok(());
    };
    let Ok(mut state) = model.new_state() else {
        return Err(Violation("a valid model gave no state".into()));
    };
    let contacts: Vec<ContactSample> = contacts
        .iter()
        .take(8)
        .map(|(v, p, d)| ContactSample {
            point: mesh.positions()[usize::from(*v) % mesh.vertex_count()] + p.vec() * 0.01 * size,
            displacement: d.vec(),
        })
        .collect();
    let mut dents = Vec::new();
    if model
        .apply_contacts(
            &mut state,
            &contacts,
            &mut PlasticWorkspace::new(),
            &mut dents,
        )
        .is_ok()
    {
        reached(|c| c.plastic_contacts += 1);
    }
    for _ in 0..steps % 8 {
        state.advance();
    }
    state.catch_up_all();
    for (v, row) in state
        .all_weights()
        .chunks_exact(model.example_count())
        .enumerate()
    {
        ensure!(
            row.iter().all(|b| b.is_finite() && *b >= 0.0),
            "vertex {v}: example weights {row:?}"
        );
        let sum: f32 = row.iter().sum();
        ensure!(
            (sum - 1.0).abs() < 1e-4,
            "vertex {v}: example weights sum to {sum}"
        );
    }
    Ok(())
}

fn obj_call(call: &Call, positions: &[Vec3], triangles: &[[u32; 3]]) -> Result<(), Violation> {
    let Call::Obj {
        weld_tolerance,
        extra,
    } = call
    else {
        return Ok(());
    };
    let mut text = String::new();
    for p in positions {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for t in triangles {
        text.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    text.push_str(extra);
    let options = LoadOptions {
        weld_tolerance: weld_tolerance.0,
        ..LoadOptions::default()
    };
    if let Ok((asset, _)) = load_obj_slice(text.as_bytes(), &options) {
        check_mesh(&asset.mesh)?;
        reached(|c| c.objs += 1);
        ensure!(
            asset
                .to_welded
                .iter()
                .all(|&w| (w as usize) < asset.mesh.vertex_count()),
            "welded index out of range"
        );
    }
    Ok(())
}
