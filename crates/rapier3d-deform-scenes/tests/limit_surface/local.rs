//! Test fixtures: the open control mesh around one patch (canonical vertex order, the patch is triangle 0), random control neighbourhoods, and the deep-subdivision normal oracle (the crate's `LoopSubdivision` stencils and Loop's exact limit tangent masks).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rapier3d_deform::deformation::LoopSubdivision;
use rapier3d_deform::governor::ConvexWeights;
use rapier3d_deform::math::Vec3;
use rapier3d_deform::mesh::TriangleMesh;
use std::collections::HashMap;
use std::f64::consts::TAU;

/// Triangles of the open mesh around a patch with an irregular corner of valence `n`: the patch
/// `(v, r₀, r₁)` first, the rest of `v`'s fan, then the triangles completing the 1-rings of `r₀`
/// and `r₁`. Vertex `0` is `v`, `1..=n` the ring, `n+1..=n+5` the points `e₀ … e₄`.
pub fn local_triangles(n: usize) -> Vec<[u32; 3]> {
    let r = |k: usize| 1 + (k % n) as u32;
    let e = |m: usize| (n + 1 + m) as u32;
    let mut t = Vec::new();
    for k in 0..n {
        t.push([0, r(k), r(k + 1)]);
    }
    t.extend([
        [r(0), r(n - 1), e(0)],
        [r(0), e(0), e(1)],
        [r(0), e(1), e(2)],
        [r(0), e(2), r(1)],
        [r(1), e(2), e(3)],
        [r(1), e(3), e(4)],
        [r(1), e(4), r(2)],
    ]);
    t
}

/// A planar layout of the neighbourhood: the ring on the unit circle, the second ring placed as
/// the lattice would (`e₀ = r₀ + r₍ₙ₋₁₎`, …).
pub fn base_positions(n: usize) -> Vec<[f64; 3]> {
    let mut p = vec![[0.0; 3]];
    for k in 0..n {
        let a = TAU * k as f64 / n as f64;
        p.push([a.cos(), a.sin(), 0.0]);
    }
    let r = |k: usize| p[1 + k % n];
    let sum = |a: [f64; 3], b: [f64; 3]| [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
    let e = [
        sum(r(0), r(n - 1)),
        sum(r(0), r(0)),
        sum(r(0), r(1)),
        sum(r(1), r(1)),
        sum(r(1), r(2)),
    ];
    p.extend(e);
    p
}

pub fn to_vec3(p: &[[f64; 3]]) -> Vec<Vec3> {
    p.iter()
        .map(|q| Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32))
        .collect()
}

pub fn local_mesh(n: usize) -> TriangleMesh {
    TriangleMesh::new(to_vec3(&base_positions(n)), local_triangles(n)).unwrap()
}

fn random_unit_quaternion(r: &mut ChaCha8Rng) -> [f64; 4] {
    loop {
        let q: [f64; 4] = std::array::from_fn(|_| r.random_range(-1.0..1.0));
        let l = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if l > 0.1 && l <= 1.0 {
            return q.map(|x| x / l);
        }
    }
}

fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [w, x, y, z] = q;
    let m = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    m.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// A random control neighbourhood: the planar layout bent by a random quadratic height field
/// (curvature up to `1.5`), jittered by up to `0.4` per coordinate (one in five up to `1.5`,
/// often folded), rotated and moved at random.
pub fn random_neighbourhood(r: &mut ChaCha8Rng, n: usize) -> Vec<[f64; 3]> {
    let wild = r.random_range(0..5) == 0;
    let k = r.random_range(0.0..1.5);
    let (a, b, c) = (
        r.random_range(-k..=k),
        r.random_range(-k..=k),
        r.random_range(-k..=k),
    );
    let sigma = r.random_range(0.0..if wild { 1.5 } else { 0.4 });
    let q = random_unit_quaternion(r);
    let t: [f64; 3] = std::array::from_fn(|_| r.random_range(-5.0..5.0));
    base_positions(n)
        .into_iter()
        .map(|[x, y, _]| {
            let z = a * x * x + b * x * y + c * y * y;
            let p = [
                x + sigma * r.random_range(-1.0..1.0),
                y + sigma * r.random_range(-1.0..1.0),
                z + sigma * r.random_range(-1.0..1.0),
            ];
            let p = rotate(q, p);
            [p[0] + t[0], p[1] + t[1], p[2] + t[2]]
        })
        .collect()
}

/// Directed-edge → opposite-vertex map of a triangle list.
pub fn opposite_map(triangles: &[[u32; 3]]) -> HashMap<(u32, u32), u32> {
    let mut m = HashMap::with_capacity(3 * triangles.len());
    for t in triangles {
        for c in 0..3 {
            m.insert((t[c], t[(c + 1) % 3]), t[(c + 2) % 3]);
        }
    }
    m
}

/// The canonical control points of the patch `(v, r₀, r₁)` of a (fine) mesh, `v` of valence `n`.
pub fn gather(opp: &HashMap<(u32, u32), u32>, tri: [u32; 3], n: usize) -> Vec<u32> {
    let [v, r0, r1] = tri;
    let mut ring = vec![r0];
    for k in 1..n {
        ring.push(opp[&(v, ring[k - 1])]);
    }
    assert_eq!(ring[1], r1);
    assert_eq!(opp[&(v, ring[n - 1])], r0, "valence of {v} is not {n}");
    let e0 = opp[&(r0, ring[n - 1])];
    let e1 = opp[&(r0, e0)];
    let e2 = opp[&(r1, r0)];
    let e3 = opp[&(r1, e2)];
    let e4 = opp[&(ring[2 % n], r1)];
    let mut out = vec![v];
    out.extend(ring);
    out.extend([e0, e1, e2, e3, e4]);
    out
}

/// Evaluates fine vertex `v` of a subdivision from f64 control points.
pub fn eval(w: &ConvexWeights, v: usize, control: &[[f64; 3]]) -> [f64; 3] {
    let (g, x) = w.row(v);
    let mut p = [0.0; 3];
    for (&k, &wk) in g.iter().zip(x) {
        for d in 0..3 {
            p[d] += wk as f64 * control[k as usize][d];
        }
    }
    p
}

/// Limit normals of the patch sampled at every vertex of its level-`level` refinement: Loop's
/// exact limit tangents `Σ cos(2πk/m) rₖ`, `Σ sin(2πk/m) rₖ` over each fine vertex's ring
/// (counter-clockwise), the fine vertices from the crate's `LoopSubdivision` stencils.
pub struct NormalOracle {
    sub: LoopSubdivision,
    /// Fine vertices needed (the patch's and their rings).
    needed: Vec<u32>,
    /// Per patch vertex, the positions in `needed` of its ring.
    rings: Vec<Vec<usize>>,
}

impl NormalOracle {
    pub fn new(n: usize, level: u32) -> Self {
        let sub = LoopSubdivision::new(local_mesh(n), level).unwrap();
        let tris = sub.mesh().triangles();
        let opp = opposite_map(tris);
        let mut patch_vertices: Vec<u32> =
            tris[..1 << (2 * level)].iter().flatten().copied().collect();
        patch_vertices.sort_unstable();
        patch_vertices.dedup();
        let mut slot: HashMap<u32, usize> = HashMap::new();
        let mut needed = Vec::new();
        let mut slot_of = |v: u32, needed: &mut Vec<u32>| {
            *slot.entry(v).or_insert_with(|| {
                needed.push(v);
                needed.len() - 1
            })
        };
        let mut start: HashMap<u32, u32> = HashMap::new();
        for t in tris {
            for c in 0..3 {
                start.entry(t[c]).or_insert(t[(c + 1) % 3]);
            }
        }
        let mut rings = Vec::new();
        for &v in &patch_vertices {
            let first = start[&v];
            let mut ring = vec![first];
            loop {
                let next = opp[&(v, *ring.last().unwrap())];
                if next == first {
                    break;
                }
                ring.push(next);
                assert!(ring.len() <= 16);
            }
            rings.push(ring.into_iter().map(|r| slot_of(r, &mut needed)).collect());
        }
        Self { sub, needed, rings }
    }

    /// Unit limit normals at the sample points for control points `control`.
    pub fn normals(&self, control: &[[f64; 3]]) -> Vec<[f64; 3]> {
        let w = self.sub.stencils();
        let pos: Vec<[f64; 3]> = self
            .needed
            .iter()
            .map(|&v| eval(w, v as usize, control))
            .collect();
        self.rings
            .iter()
            .map(|ring| {
                let m = ring.len() as f64;
                let (mut t1, mut t2) = ([0.0; 3], [0.0; 3]);
                for (k, &s) in ring.iter().enumerate() {
                    let a = TAU * k as f64 / m;
                    for d in 0..3 {
                        t1[d] += a.cos() * pos[s][d];
                        t2[d] += a.sin() * pos[s][d];
                    }
                }
                let c = cross(t1, t2);
                let l = dot(c, c).sqrt();
                c.map(|x| x / l)
            })
            .collect()
    }

    pub fn sample_count(&self) -> usize {
        self.rings.len()
    }
}

pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn angle(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = cross(a, b);
    dot(c, c).sqrt().atan2(dot(a, b))
}

/// The half-angle of a near-smallest cone around unit vectors (Bădoiu–Clarkson iterations on the
/// sphere, 100 steps): an upper bound on the true spread of the normals, within a small fraction
/// of it.
pub fn spread(normals: &[[f64; 3]]) -> f64 {
    let mut axis = [0.0; 3];
    for n in normals {
        for d in 0..3 {
            axis[d] += n[d];
        }
    }
    let l = dot(axis, axis).sqrt();
    axis = axis.map(|x| x / l);
    let mut best = f64::INFINITY;
    for step in 1..=100 {
        let far = normals
            .iter()
            .copied()
            .min_by(|a, b| dot(axis, *a).total_cmp(&dot(axis, *b)))
            .unwrap();
        best = best.min(angle(axis, far));
        let f = 1.0 / (step as f64 + 1.0);
        let m = [0, 1, 2].map(|d| axis[d] + f * (far[d] - axis[d]));
        let l = dot(m, m).sqrt();
        axis = m.map(|x| x / l);
    }
    best
}
