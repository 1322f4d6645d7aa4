//! Example-based plastic deformation of rigid bodies (Jones, Thuerey, Shinar & Bargteil 2016): contact impulses become per-vertex example-weight changes.
#![doc = include_str!("README.md")]

mod accumulate;
mod falloff;
mod impulse;
mod mass;
mod model;
mod params;
mod projection;

pub use accumulate::{PlasticState, project_row};
pub use falloff::{FalloffWorkspace, GeodesicGraph, VertexGrid, cubic_falloff};
pub use impulse::{ContactSample, impulse_displacement, yielded_displacement};
pub use mass::{BodyMotion, SphereMassModel, continue_motion, kinetic_energy, world_inertia};
pub use model::{Dent, PlasticModel, PlasticWorkspace};
pub use params::{DEGENERATE_ROW_SUM, PlasticityParams};
pub use projection::project_onto_examples;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deformation::ExampleBlend;
    use crate::governor::{Affine, ConvexWeights};
    use crate::math::{Mat3, Vec3};
    use crate::mesh::TriangleMesh;

    /// A 2 × 1 strip in the xy plane (20 × 10 quads), three examples: rest, the right end
    /// pushed in along −x (a crush), the strip lifted along +z.
    fn strip() -> (TriangleMesh, Vec<Vec<Vec3>>) {
        let mesh = falloff::tests::grid_mesh_xy(21, 11, 0.1);
        let rest = mesh.positions().to_vec();
        let crush = rest
            .iter()
            .map(|q| *q - Vec3::new(0.3 * (q.x / 2.0).powi(2), 0.0, 0.0))
            .collect();
        let lift = rest.iter().map(|q| *q + Vec3::new(0.0, 0.0, 0.2)).collect();
        (mesh, vec![rest, crush, lift])
    }

    fn params() -> PlasticityParams {
        PlasticityParams {
            yield_displacement: 0.01,
            impulse_scale: 10.0,
            kernel_radius: 0.5,
            rate: 0.5,
            ..PlasticityParams::jones_car()
        }
    }

    #[test]
    fn a_push_at_the_end_moves_weight_to_the_crush_with_geodesic_falloff() {
        let (mesh, examples) = strip();
        let model = PlasticModel::from_examples(&mesh, &examples, params()).unwrap();
        let mut state = model.new_state().unwrap();
        let mut ws = PlasticWorkspace::new();
        let mut dents = Vec::new();
        // Below the yield: nothing.
        let weak = ContactSample {
            point: Vec3::new(2.0, 0.5, 0.0),
            displacement: Vec3::new(-0.009, 0.0, 0.0),
        };
        model
            .apply_contacts(&mut state, &[weak], &mut ws, &mut dents)
            .unwrap();
        assert!(dents.is_empty() && state.pending_magnitude() == 0.0);
        let hit = ContactSample {
            point: Vec3::new(2.01, 0.52, 0.0),
            displacement: Vec3::new(-0.03, 0.0, 0.0),
        };
        model
            .apply_contacts(&mut state, &[hit, hit], &mut ws, &mut dents)
            .unwrap();
        assert_eq!(dents.len(), 1, "two contacts at one vertex make one source");
        let source = dents[0].vertex;
        assert_eq!(mesh.positions()[source as usize], Vec3::new(2.0, 0.5, 0.0));
        assert!((dents[0].displacement - 0.02).abs() < 1e-6);
        assert!((dents[0].change - 2.0 * 10.0 * 0.02).abs() < 1e-4);
        for _ in 0..30 {
            state.advance();
        }
        let w_source = state.weights(source).unwrap().to_vec();
        assert!(w_source[1] > 0.2 && w_source[2] == 0.0, "{w_source:?}");
        // Falloff: weight on the crush decreases with the distance along the strip and is
        // zero beyond the kernel radius (0.5 m along edges).
        let mut along = |i: u32| state.weights(5 * 21 + i).unwrap()[1];
        let profile: Vec<f32> = (10..=20).rev().map(&mut along).collect();
        assert!(profile.windows(2).all(|w| w[0] >= w[1]), "{profile:?}");
        assert_eq!(along(14), 0.0);
        assert!(along(17) > 0.0);
        // Every row stays on the simplex.
        state.catch_up_all();
        for row in state.all_weights().chunks(3) {
            assert!(row.iter().all(|&x| x >= 0.0));
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        // The blended positions follow: the pushed end moved in along −x.
        let mut pos = Vec::new();
        model.positions_into(&mut state, &mut pos).unwrap();
        assert!(pos[source as usize].x < 2.0 - 0.05);
    }

    /// The Jacobian columns from A's `ExampleBlend` equal the skinned example poses.
    #[test]
    fn blend_and_example_poses_give_the_same_model() {
        let (mesh, _) = strip();
        let n = mesh.vertex_count();
        let weights = ConvexWeights::from_rows(
            mesh.positions()
                .iter()
                .map(|p| vec![(0u32, 1.0 - p.x / 2.0), (1u32, p.x / 2.0)]),
            2,
        )
        .unwrap();
        let shear = Affine::new(
            Mat3::from_cols(Vec3::X, Vec3::new(0.2, 1.0, 0.0), Vec3::Z),
            Vec3::new(0.0, 0.0, 0.1),
        );
        let examples = vec![vec![Affine::IDENTITY; 2], vec![Affine::IDENTITY, shear]];
        let blend = ExampleBlend::new(mesh.positions().to_vec(), weights, examples).unwrap();
        let a = PlasticModel::from_blend(&mesh, &blend, params()).unwrap();
        let mut poses = Vec::new();
        let mut b2 = blend.clone();
        for e in 0..2 {
            let mut beta = vec![0.0; 2];
            beta[e] = 1.0;
            b2.set_global_example_weights(&beta).unwrap();
            poses.push(crate::governor::GovernedDeformation::deformed_positions(
                &b2,
            ));
        }
        let b = PlasticModel::from_examples(&mesh, &poses, params()).unwrap();
        for v in 0..n as u32 {
            for (x, y) in a.columns(v).iter().zip(b.columns(v)) {
                assert!((*x - *y).length() < 1e-5);
            }
        }
    }

    #[test]
    fn bad_models_are_typed() {
        let (mesh, examples) = strip();
        assert!(PlasticModel::from_examples(&mesh, &[], params()).is_err());
        let mut short = examples.clone();
        short[1].pop();
        assert!(matches!(
            PlasticModel::from_examples(&mesh, &short, params()),
            Err(crate::DeformError::ExampleVertexCount { example: 1, .. })
        ));
        let mut nan = examples.clone();
        nan[2][7].y = f32::NAN;
        assert!(matches!(
            PlasticModel::from_examples(&mesh, &nan, params()),
            Err(crate::DeformError::NonFiniteExamplePosition {
                example: 2,
                vertex: 7
            })
        ));
        let bad = PlasticityParams {
            example_scale: vec![1.0],
            ..params()
        };
        assert!(PlasticModel::from_examples(&mesh, &examples, bad).is_err());
    }
}
