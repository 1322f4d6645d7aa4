//! Keyframe animation: glTF samplers (LINEAR with slerp, STEP, CUBICSPLINE) evaluated at any time, grouped in named clips.

use gltf::accessor::Dimensions;

use super::gltf_accessor::{expect_count, read_floats};
use super::gltf_source::GltfSource;
use super::{LoadError, LoadOptions, LoadReport};
use crate::error::{DeformError, Result};
use crate::math::{Quat, Vec3};

use super::gltf_skin::Trs;

/// How a sampler interpolates between keyframes (glTF `sampler.interpolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Interpolation {
    /// Componentwise linear; rotations use spherical linear interpolation (shortest arc).
    Linear,
    /// The value of the previous keyframe.
    Step,
    /// Cubic Hermite spline with per-keyframe in- and out-tangents.
    CubicSpline,
}

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Property {
    /// The node's translation (3 components).
    Translation,
    /// The node's rotation quaternion `(x, y, z, w)` (4 components).
    Rotation,
    /// The node's scale (3 components).
    Scale,
    /// The morph-target weights of the node's mesh (one component per target).
    MorphWeights,
}

/// Keyframes of one animated quantity: times and, per keyframe, `width` components (three
/// groups of `width` for [`Interpolation::CubicSpline`]: in-tangent, value, out-tangent).
///
/// # Performance
/// Memory O(keyframes · width); sampling is O(log keyframes + width). A linear sampler of
/// width 4 (a rotation) keeps each segment's slerp arc as well (40 bytes per keyframe).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Sampler {
    times: Vec<f32>,
    values: Vec<f32>,
    width: usize,
    interpolation: Interpolation,
    /// Per segment of a linear width-4 sampler, what [`slerp`] derives from the keyframes alone
    /// (empty otherwise, and after deserialising: sampling then calls [`slerp`]).
    #[cfg_attr(feature = "serde-serialize", serde(skip))]
    arcs: Vec<SlerpArc>,
}

/// Samplers are equal when their keyframes are (the arcs derive from them).
impl PartialEq for Sampler {
    fn eq(&self, other: &Self) -> bool {
        self.times == other.times
            && self.values == other.values
            && self.width == other.width
            && self.interpolation == other.interpolation
    }
}

/// One segment of [`slerp`] with everything that does not depend on the parameter: the two
/// keyframes normalised, the second on the first's side, the arc's angle and its sine.
#[derive(Clone, Copy, Debug)]
struct SlerpArc {
    a: Quat,
    b: Quat,
    theta: f32,
    sin: f32,
}

impl SlerpArc {
    /// The shorter arc from `a` to `b`: both normalised, `b` turned to `a`'s side, the angle
    /// `θ = 2 atan2(|a − b|, |a + b|)` (accurate in `f32` even for nearly equal keyframes, where
    /// `acos` of the dot product is not) and its sine.
    fn new(a: Quat, b: Quat) -> Self {
        let a = normalised(a);
        let mut b = normalised(b);
        if a.dot(b) < 0.0 {
            b = -b;
        }
        let theta = 2.0 * (a - b).length().atan2((a + b).length());
        Self {
            a,
            b,
            theta,
            sin: theta.sin(),
        }
    }

    /// The point at `s` along the arc; below `1e-6` rad a normalised lerp.
    #[inline]
    fn at(&self, s: f32) -> Quat {
        let (a, b, theta, sin) = (self.a, self.b, self.theta, self.sin);
        if theta < 1e-6 {
            return normalised(a + (b - a) * s);
        }
        a * (((1.0 - s) * theta).sin() / sin) + b * ((s * theta).sin() / sin)
    }
}

impl Sampler {
    /// Validates and wraps keyframes.
    ///
    /// # Errors
    /// [`DeformError::Empty`] without keyframes or with `width == 0`,
    /// [`DeformError::LengthMismatch`] when `values` does not hold `times.len() × width` entries
    /// (three times that for cubic splines), [`DeformError::NonFinitePosition`] for a non-finite
    /// time or value (`what` = `"keyframe time"` / `"keyframe value"`),
    /// [`DeformError::InvalidParameter`] when times decrease.
    ///
    /// # Performance
    /// O(keyframes × width).
    pub fn new(
        times: Vec<f32>,
        values: Vec<f32>,
        width: usize,
        interpolation: Interpolation,
    ) -> Result<Self> {
        if times.is_empty() {
            return Err(DeformError::Empty {
                what: "keyframe times",
            });
        }
        if width == 0 {
            return Err(DeformError::Empty {
                what: "keyframe components",
            });
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3 * width
        } else {
            width
        };
        let expected = times.len().saturating_mul(per_key);
        if values.len() != expected {
            return Err(DeformError::LengthMismatch {
                what: "keyframe values",
                expected,
                actual: values.len(),
            });
        }
        if let Some(index) = times.iter().position(|t| !t.is_finite()) {
            return Err(DeformError::NonFinitePosition {
                what: "keyframe time",
                index,
            });
        }
        if let Some(index) = values.iter().position(|t| !t.is_finite()) {
            return Err(DeformError::NonFinitePosition {
                what: "keyframe value",
                index,
            });
        }
        if let Some(k) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(DeformError::InvalidParameter {
                name: "keyframe time",
                value: times[k + 1],
                reason: "keyframe times must not decrease",
            });
        }
        let mut sampler = Self {
            times,
            values,
            width,
            interpolation,
            arcs: Vec::new(),
        };
        if width == 4 && interpolation == Interpolation::Linear {
            let q = |v: &[f32]| Quat::from_xyzw(v[0], v[1], v[2], v[3]);
            sampler.arcs = (1..sampler.times.len())
                .map(|k| SlerpArc::new(q(sampler.value(k - 1)), q(sampler.value(k))))
                .collect();
        }
        Ok(sampler)
    }

    /// Keyframe times.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Keyframe values (see the type docs for the layout).
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Components per value.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The interpolation mode.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Time of the last keyframe.
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// Value `k` (the spline vertex for cubic splines).
    fn value(&self, k: usize) -> &[f32] {
        let w = self.width;
        match self.interpolation {
            Interpolation::CubicSpline => &self.values[(3 * k + 1) * w..(3 * k + 2) * w],
            _ => &self.values[k * w..(k + 1) * w],
        }
    }

    /// The segment `[t_k, t_{k+1}]` holding `t` and the local parameter `s ∈ [0, 1)`, or `Err(k)`
    /// when `t` is before the first or after the last keyframe (clamp to value `k`).
    fn locate(&self, t: f32) -> core::result::Result<(usize, f32), usize> {
        let n = self.times.len();
        if t.is_nan() || t <= self.times[0] {
            return Err(0);
        }
        if t >= self.times[n - 1] {
            return Err(n - 1);
        }
        // First keyframe strictly after t; t_0 < t < t_{n-1} makes it in 1..n.
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        Ok((k, (t - t0) / (t1 - t0)))
    }

    /// Writes the value at time `t` into `out` (`width` entries), componentwise: linear
    /// interpolation, step, or the cubic Hermite spline of the glTF specification (appendix C).
    /// Times before the first / after the last keyframe clamp to the first / last value.
    ///
    /// # Errors
    /// [`DeformError::LengthMismatch`] when `out.len() != width`.
    ///
    /// # Performance
    /// O(log keyframes + width).
    pub fn sample_into(&self, t: f32, out: &mut [f32]) -> Result<()> {
        if out.len() != self.width {
            return Err(DeformError::LengthMismatch {
                what: "sample output",
                expected: self.width,
                actual: out.len(),
            });
        }
        let (k, s) = match self.locate(t) {
            Ok(seg) => seg,
            Err(k) => {
                out.copy_from_slice(self.value(k));
                return Ok(());
            }
        };
        let w = self.width;
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(self.value(k)),
            Interpolation::Linear => {
                let (a, b) = (self.value(k), self.value(k + 1));
                for j in 0..w {
                    out[j] = a[j] + s * (b[j] - a[j]);
                }
            }
            Interpolation::CubicSpline => {
                let td = self.times[k + 1] - self.times[k];
                let v0 = &self.values[(3 * k + 1) * w..(3 * k + 2) * w];
                let b0 = &self.values[(3 * k + 2) * w..(3 * k + 3) * w];
                let a1 = &self.values[(3 * k + 3) * w..(3 * k + 4) * w];
                let v1 = &self.values[(3 * k + 4) * w..(3 * k + 5) * w];
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = (s3 - 2.0 * s2 + s) * td;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = (s3 - s2) * td;
                for j in 0..w {
                    out[j] = h00 * v0[j] + h10 * b0[j] + h01 * v1[j] + h11 * a1[j];
                }
            }
        }
        Ok(())
    }

    /// Samples a 3-component sampler (translation, scale). Other widths give zero.
    ///
    /// # Performance
    /// O(log keyframes).
    pub fn sample_vec3(&self, t: f32) -> Vec3 {
        let mut v = [0.0; 3];
        match self.sample_into(t, &mut v) {
            Ok(()) => Vec3::from_array(v),
            Err(_) => Vec3::ZERO,
        }
    }

    /// Samples a rotation sampler (`(x, y, z, w)` keyframes): slerp along the shortest arc for
    /// [`Interpolation::Linear`], the normalised spline for cubic splines. Other widths, and a
    /// result of (near) zero length, give the identity.
    ///
    /// # Performance
    /// O(log keyframes): two sines per sample (each segment's angle is computed once, by
    /// [`Self::new`]).
    pub fn sample_rotation(&self, t: f32) -> Quat {
        if self.width != 4 {
            return Quat::IDENTITY;
        }
        let q = |v: &[f32]| Quat::from_xyzw(v[0], v[1], v[2], v[3]);
        let raw = match (self.interpolation, self.locate(t)) {
            (Interpolation::Linear, Ok((k, s))) => match self.arcs.get(k) {
                Some(arc) => arc.at(s),
                None => slerp(q(self.value(k)), q(self.value(k + 1)), s),
            },
            _ => {
                let mut v = [0.0; 4];
                if self.sample_into(t, &mut v).is_err() {
                    return Quat::IDENTITY;
                }
                q(&v)
            }
        };
        let n = raw.length();
        if n > 1e-12 && n.is_finite() {
            raw / n
        } else {
            Quat::IDENTITY
        }
    }
}

/// Spherical linear interpolation along the shorter arc ([`SlerpArc`], its angle derived on
/// each call).
fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    SlerpArc::new(a, b).at(s)
}

fn normalised(q: Quat) -> Quat {
    let n = q.length();
    if n > 1e-12 && n.is_finite() {
        q / n
    } else {
        Quat::IDENTITY
    }
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Channel {
    /// The target node (index in the glTF file, as in [`super::Skeleton`]).
    pub node: usize,
    /// The animated property.
    pub property: Property,
    /// Its keyframes.
    pub sampler: Sampler,
}

/// A named set of channels played together (a glTF `animation`).
///
/// # Performance
/// Memory O(Σ keyframes); posing every node is O(channels · log keyframes).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde-serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct AnimationClip {
    name: Option<String>,
    channels: Vec<Channel>,
    duration: f32,
}

impl AnimationClip {
    /// A clip from channels; its duration is the latest keyframe time.
    ///
    /// # Performance
    /// O(channels).
    pub fn new(name: Option<String>, channels: Vec<Channel>) -> Self {
        let duration = channels
            .iter()
            .map(|c| c.sampler.end_time())
            .fold(0.0, f32::max);
        Self {
            name,
            channels,
            duration,
        }
    }

    /// The clip's name, if the file gives one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The latest keyframe time over all channels.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The channels.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// `t` wrapped into `[0, duration)` for looping playback (`t` itself when the duration is 0).
    pub fn looped_time(&self, t: f32) -> f32 {
        if self.duration > 0.0 && t.is_finite() {
            t.rem_euclid(self.duration)
        } else {
            t
        }
    }

    /// Overwrites the animated translation, rotation and scale of `locals` (indexed by node) with
    /// their values at time `t`. Channels whose node is out of range, and weight channels, are
    /// skipped.
    ///
    /// # Performance
    /// O(channels · log keyframes).
    pub fn apply(&self, t: f32, locals: &mut [Trs]) {
        for c in &self.channels {
            let Some(local) = locals.get_mut(c.node) else {
                continue;
            };
            match c.property {
                Property::Translation => local.translation = c.sampler.sample_vec3(t),
                Property::Rotation => local.rotation = c.sampler.sample_rotation(t),
                Property::Scale => local.scale = c.sampler.sample_vec3(t),
                Property::MorphWeights => {}
            }
        }
    }

    /// The morph-target weights of `node` at time `t` written to `out`, or `false` (and `out`
    /// untouched) when the clip does not animate them.
    ///
    /// # Performance
    /// O(log keyframes + targets).
    pub fn morph_weights_into(&self, node: usize, t: f32, out: &mut Vec<f32>) -> bool {
        let Some(c) = self
            .channels
            .iter()
            .find(|c| c.node == node && c.property == Property::MorphWeights)
        else {
            return false;
        };
        out.clear();
        out.resize(c.sampler.width(), 0.0);
        c.sampler.sample_into(t, out).is_ok()
    }
}

/// Reads every animation of the document. `morph_target_counts[node]` is the number of morph
/// targets of the node's mesh (0 without mesh); `matrix_nodes[node]` tells whether the node is
/// given as a matrix.
pub(crate) fn read_clips(
    src: &GltfSource,
    morph_target_counts: &[usize],
    matrix_nodes: &[bool],
    options: &LoadOptions,
    report: &mut LoadReport,
) -> core::result::Result<Vec<AnimationClip>, LoadError> {
    use gltf::json::validation::Checked;
    let json = src.document.as_json();
    let node_count = json.nodes.len();
    let mut clips = Vec::new();
    // Channels are read from the JSON: gltf-json 1.4 does not validate channel targets, and the
    // `gltf` wrappers unwrap them.
    for (a, (anim, janim)) in src.document.animations().zip(&json.animations).enumerate() {
        let samplers: Vec<_> = anim.samplers().collect();
        let mut channels = Vec::new();
        for (ci, channel) in janim.channels.iter().enumerate() {
            let invalid = |reason: String| LoadError::InvalidAnimation {
                animation: a,
                channel: ci,
                reason,
            };
            let node = channel.target.node.value();
            if node >= node_count {
                return Err(invalid(format!("target node {node} does not exist")));
            }
            let property = match channel.target.path {
                Checked::Valid(gltf::json::animation::Property::Translation) => {
                    Property::Translation
                }
                Checked::Valid(gltf::json::animation::Property::Rotation) => Property::Rotation,
                Checked::Valid(gltf::json::animation::Property::Scale) => Property::Scale,
                Checked::Valid(gltf::json::animation::Property::MorphTargetWeights) => {
                    Property::MorphWeights
                }
                Checked::Invalid => {
                    let reason = "target path is not translation, rotation, scale or weights";
                    if options.strict {
                        return Err(invalid(reason.into()));
                    }
                    report
                        .warnings
                        .push(format!("animation {a} channel {ci} skipped: {reason}"));
                    continue;
                }
            };
            let width = match property {
                Property::Translation | Property::Scale => 3,
                Property::Rotation => 4,
                Property::MorphWeights => morph_target_counts.get(node).copied().unwrap_or(0),
            };
            if width == 0 {
                let reason = format!("animates morph weights of node {node}, which has none");
                if options.strict {
                    return Err(invalid(reason));
                }
                report
                    .warnings
                    .push(format!("animation {a} channel {ci} skipped: {reason}"));
                continue;
            }
            if property != Property::MorphWeights && matrix_nodes.get(node).copied() == Some(true) {
                let reason = format!("animates node {node}, which is given as a matrix");
                if options.strict {
                    return Err(invalid(reason));
                }
                report.warnings.push(format!(
                    "animation {a} channel {ci}: {reason}; its matrix is decomposed into \
                     translation, rotation and scale"
                ));
            }
            let Some(sampler) = samplers.get(channel.sampler.value()) else {
                return Err(invalid("sampler index out of range".into()));
            };
            let interpolation = match sampler.interpolation() {
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let what_in = format!("animation {a} sampler {} input", sampler.index());
            let what_out = format!("animation {a} sampler {} output", sampler.index());
            let input = sampler.input();
            let output = sampler.output();
            let times = read_floats(src, &input, &what_in, &[Dimensions::Scalar])?;
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let dims = match property {
                Property::Translation | Property::Scale => Dimensions::Vec3,
                Property::Rotation => Dimensions::Vec4,
                Property::MorphWeights => Dimensions::Scalar,
            };
            let components_per_element = if property == Property::MorphWeights {
                width
            } else {
                1
            };
            expect_count(
                &output,
                &what_out,
                times.len().saturating_mul(per_key * components_per_element),
            )?;
            let values = read_floats(src, &output, &what_out, &[dims])?;
            let sampler = Sampler::new(times, values, width, interpolation)
                .map_err(|e| invalid(e.to_string()))?;
            channels.push(Channel {
                node,
                property,
                sampler,
            });
        }
        clips.push(AnimationClip::new(anim.name().map(str::to_owned), channels));
    }
    Ok(clips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_step_and_clamping() {
        let s = Sampler::new(
            vec![1.0, 2.0, 4.0],
            vec![0.0, 10.0, 30.0],
            1,
            Interpolation::Linear,
        )
        .unwrap();
        let at = |s: &Sampler, t: f32| {
            let mut v = [0.0];
            s.sample_into(t, &mut v).unwrap();
            v[0]
        };
        for (t, want) in [
            (0.0, 0.0),
            (1.0, 0.0),
            (1.5, 5.0),
            (3.0, 20.0),
            (4.0, 30.0),
            (9.0, 30.0),
        ] {
            assert!((at(&s, t) - want).abs() < 1e-6, "linear at {t}");
        }
        let s = Sampler::new(
            vec![1.0, 2.0, 4.0],
            vec![0.0, 10.0, 30.0],
            1,
            Interpolation::Step,
        )
        .unwrap();
        for (t, want) in [
            (0.5, 0.0),
            (1.99, 0.0),
            (2.0, 10.0),
            (3.99, 10.0),
            (4.0, 30.0),
        ] {
            assert_eq!(at(&s, t), want, "step at {t}");
        }
    }

    /// A cubic spline whose tangents are the derivatives of a cubic polynomial reproduces that
    /// polynomial exactly between keyframes (Hermite interpolation is exact on cubics).
    #[test]
    fn cubic_spline_reproduces_a_cubic() {
        let f = |t: f64| 0.5 * t * t * t - 2.0 * t * t + t + 3.0;
        let df = |t: f64| 1.5 * t * t - 4.0 * t + 1.0;
        let times = [0.0f32, 0.7, 1.5, 3.0];
        let mut values = Vec::new();
        for &t in &times {
            let t = t as f64;
            values.extend([df(t) as f32, f(t) as f32, df(t) as f32]);
        }
        let s = Sampler::new(times.to_vec(), values, 1, Interpolation::CubicSpline).unwrap();
        for i in 0..=60 {
            let t = 3.0 * i as f32 / 60.0;
            let mut v = [0.0];
            s.sample_into(t, &mut v).unwrap();
            let want = f(t as f64);
            assert!(
                (v[0] as f64 - want).abs() < 1e-5,
                "t = {t}: {} vs {want}",
                v[0]
            );
        }
    }

    /// Slerp keeps unit length, moves at constant angular speed and takes the short arc even
    /// when the keyframes are on opposite hemispheres.
    #[test]
    fn rotation_slerp_constant_speed_shortest_arc() {
        let q0 = Quat::IDENTITY;
        let q1 = -Quat::from_rotation_z(1.2); // same rotation, other hemisphere
        let v = [q0, q1].iter().flat_map(|q| q.to_array()).collect();
        let s = Sampler::new(vec![0.0, 1.0], v, 4, Interpolation::Linear).unwrap();
        for i in 0..=10 {
            let t = i as f32 / 10.0;
            let q = s.sample_rotation(t);
            assert!((q.length() - 1.0).abs() < 1e-6);
            let want = Quat::from_rotation_z(1.2 * t);
            assert!(q.dot(want).abs() > 1.0 - 1e-6, "t = {t}: {q:?} vs {want:?}");
        }
    }

    #[test]
    fn precomputed_arcs_sample_as_slerp_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(15);
        let keys = 40;
        let mut values = Vec::new();
        for k in 0..keys {
            let q = match k % 5 {
                // Repeated keyframes, scaled ones and opposite hemispheres.
                1 => Quat::from_array(values[values.len() - 4..].try_into().unwrap()),
                2 => -Quat::from_array(values[values.len() - 4..].try_into().unwrap()) * 1.5,
                _ => Quat::from_xyzw(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                ),
            };
            values.extend(q.to_array());
        }
        let times: Vec<f32> = (0..keys).map(|k| k as f32 * 0.25).collect();
        let s = Sampler::new(times.clone(), values, 4, Interpolation::Linear).unwrap();
        assert_eq!(s.arcs.len(), keys - 1);
        let q = |k: usize| Quat::from_slice(&s.values()[4 * k..4 * k + 4]);
        for i in 0..2000 {
            let t = rng.random_range(-0.5..times[keys - 1] + 0.5);
            let got = s.sample_rotation(t);
            let want = match s.locate(t) {
                Ok((k, u)) => normalised(slerp(q(k), q(k + 1), u)),
                Err(k) => normalised(q(k)),
            };
            assert_eq!(
                got.to_array().map(f32::to_bits),
                want.to_array().map(f32::to_bits),
                "sample {i} at t = {t}"
            );
        }
    }

    #[test]
    fn rejects_bad_keyframes() {
        assert!(matches!(
            Sampler::new(vec![0.0, 1.0], vec![0.0; 3], 1, Interpolation::Linear),
            Err(DeformError::LengthMismatch { expected: 2, .. })
        ));
        assert!(matches!(
            Sampler::new(vec![0.0, 1.0], vec![0.0; 2], 1, Interpolation::CubicSpline),
            Err(DeformError::LengthMismatch { expected: 6, .. })
        ));
        assert!(matches!(
            Sampler::new(vec![1.0, 0.0], vec![0.0; 2], 1, Interpolation::Linear),
            Err(DeformError::InvalidParameter { .. })
        ));
        assert!(matches!(
            Sampler::new(vec![0.0, f32::NAN], vec![0.0; 2], 1, Interpolation::Linear),
            Err(DeformError::NonFinitePosition { index: 1, .. })
        ));
    }
}
