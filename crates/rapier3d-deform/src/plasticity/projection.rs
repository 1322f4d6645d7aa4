//! Phase 2: a yielded displacement becomes a change of example weights, along `Jᵀd` restricted to the simplex's tangent space.

use crate::math::Vec3;

/// Projects the yielded displacement `d` of a vertex onto its example weights.
///
/// `columns[e]` is the vertex's position in example `e`: with the linear matrix blend
/// `p = Σ_e β_e x_e`, these are exactly the columns of the Jacobian `J = ∂p/∂β` (see
/// [`crate::deformation::ExampleBlend::example_jacobian`]). Because the weights live on the
/// simplex (`Σ β = 1`), only changes with `Σ δβ = 0` are meaningful; the component of `Jᵀd` along
/// `(1, …, 1)` is `x̄ · d` and depends on the choice of origin, so it is removed:
///
/// ```text
/// g_e = (x_e − x̄) · d̂,   x̄ = mean_e x_e,   δβ = scale · |d| · g / |g|
/// ```
///
/// `g_e` is how far example `e` moves the vertex along `d̂` relative to the average example; the
/// change moves weight towards the examples that move the vertex the way it was pushed (the
/// direction of Jones et al.'s `Jᵀd`, the magnitude proportional to the yielded displacement).
/// Returns `false` (and writes zeros) when no example moves the vertex by at least
/// `min_example_motion` along `d̂`, or when `d` is zero or not finite.
///
/// # Performance
/// O(E), no allocation.
pub fn project_onto_examples(
    columns: &[Vec3],
    d: Vec3,
    impulse_scale: f32,
    min_example_motion: f32,
    out: &mut [f32],
) -> bool {
    out.fill(0.0);
    let len = d.length();
    if columns.is_empty() || !(len.is_finite() && len > 0.0) || out.len() != columns.len() {
        return false;
    }
    let dir = d / len;
    let mean = columns.iter().copied().sum::<Vec3>() / columns.len() as f32;
    let mut norm2 = 0.0;
    let mut largest = 0.0f32;
    for (g, x) in out.iter_mut().zip(columns) {
        *g = (*x - mean).dot(dir);
        norm2 += *g * *g;
        largest = largest.max(g.abs());
    }
    if !(largest >= min_example_motion && largest > 0.0 && norm2.is_finite()) {
        out.fill(0.0);
        return false;
    }
    let k = impulse_scale * len / norm2.sqrt();
    for g in out.iter_mut() {
        *g *= k;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_weight_towards_the_example_that_follows_the_push() {
        // Rest, an example that pushes the vertex in along −x, one that moves it up.
        let columns = [
            Vec3::new(2.0, 0.5, 0.0),
            Vec3::new(1.4, 0.5, 0.0),
            Vec3::new(2.0, 0.9, 0.0),
        ];
        let mut out = [0.0; 3];
        assert!(project_onto_examples(
            &columns,
            Vec3::new(-0.02, 0.0, 0.0),
            50.0,
            1e-3,
            &mut out
        ));
        // Tangent to the simplex, magnitude scale·|d|, biggest gain on example 1.
        assert!(out.iter().sum::<f32>().abs() < 1e-5);
        let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        assert!(out[1] > 0.0 && out[0] < 0.0 && out[2] < 0.0);
        // Closed form: g = (0.2, −0.4, 0.2) · (−1) … normalised.
        let g = [0.2f32, -0.4, 0.2].map(|x| -x);
        let gn = (g.iter().map(|x| x * x).sum::<f32>()).sqrt();
        for e in 0..3 {
            assert!((out[e] - g[e] / gn).abs() < 1e-5);
        }
    }

    #[test]
    fn independent_of_the_origin() {
        let columns = [
            Vec3::new(0.3, 0.1, 0.0),
            Vec3::new(0.1, 0.1, 0.2),
            Vec3::new(0.3, -0.2, 0.0),
        ];
        let shifted: Vec<Vec3> = columns
            .iter()
            .map(|c| *c + Vec3::new(100.0, -40.0, 7.0))
            .collect();
        let d = Vec3::new(-0.01, -0.02, 0.005);
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        assert!(project_onto_examples(&columns, d, 10.0, 0.0, &mut a));
        assert!(project_onto_examples(&shifted, d, 10.0, 0.0, &mut b));
        for e in 0..3 {
            assert!((a[e] - b[e]).abs() < 1e-3, "{a:?} {b:?}");
        }
    }

    #[test]
    fn no_direction_when_the_examples_do_not_move_the_vertex() {
        let project = |columns: &[Vec3], d: Vec3, min_motion: f32, out: &mut [f32]| {
            project_onto_examples(columns, d, 10.0, min_motion, out)
        };
        let columns = [Vec3::ONE; 4];
        let mut out = [1.0; 4];
        assert!(!project(&columns, Vec3::X, 1e-3, &mut out));
        assert_eq!(out, [0.0; 4]);
        // Motion perpendicular to the push only.
        let columns = [Vec3::ZERO, Vec3::Y];
        let mut out = [0.0; 2];
        assert!(!project(&columns, Vec3::X, 1e-3, &mut out));
        assert!(!project(&columns, Vec3::NAN, 0.0, &mut out));
        assert!(!project(&columns, Vec3::ZERO, 0.0, &mut out));
    }
}
