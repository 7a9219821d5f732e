//! Mass properties of a rigid body and their admissibility checks.

use tumble_math::{Mat3, Vec3};

/// Mass, centre of mass and inertia tensor of a rigid body.
///
/// `inertia` is the tensor about the centre of mass, in body axes, kg·m²:
/// `I = ∫ (|r|² 𝟙 − r rᵀ) dm`, so the off-diagonal entries are the *tensor* components
/// (`I_xy = −∫ x y dm`), the same convention as URDF's `ixy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass in the body frame, m.
    pub com: Vec3,
    /// Inertia tensor about the centre of mass, body axes, kg·m².
    pub inertia: Mat3,
}

/// Why a set of mass properties is physically impossible.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MassError {
    /// Mass is zero, negative or not finite.
    #[error("mass must be positive and finite (kg), got {0}")]
    Mass(f64),
    /// An inertia entry is not finite.
    #[error("inertia has a non-finite entry")]
    InertiaNotFinite,
    /// The inertia matrix is not symmetric.
    #[error("inertia tensor is not symmetric (|I - Iᵀ| = {0:e} kg·m²)")]
    InertiaNotSymmetric(f64),
    /// An eigenvalue is not positive.
    #[error("inertia tensor is not positive definite: principal moments {0:?} kg·m² must all be > 0")]
    InertiaNotPositiveDefinite([f64; 3]),
    /// Principal moments violate `I_a + I_b ≥ I_c`, which every real mass distribution satisfies.
    #[error(
        "principal moments {0:?} kg·m² violate the triangle inequality I_a + I_b >= I_c that every real mass distribution satisfies"
    )]
    TriangleInequality([f64; 3]),
}

impl MassProperties {
    /// Mass properties with the centre of mass at the body origin.
    pub fn new(mass: f64, inertia: Mat3) -> Self {
        Self { mass, com: Vec3::zeros(), inertia }
    }

    /// Principal moments, ascending, kg·m², and the principal axes as the columns of a rotation
    /// matrix (body-frame coordinates).
    pub fn principal(&self) -> ([f64; 3], Mat3) {
        let eig = self.inertia.symmetric_eigen();
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
        let moments = idx.map(|i| eig.eigenvalues[i]);
        let mut axes = Mat3::from_columns(&idx.map(|i| eig.eigenvectors.column(i).into_owned()));
        if axes.determinant() < 0.0 {
            axes.column_mut(2).neg_mut();
        }
        (moments, axes)
    }

    /// Checks that the properties describe a real body: positive finite mass, a symmetric
    /// positive-definite inertia whose principal moments satisfy the triangle inequality.
    ///
    /// The tolerances are relative to the largest moment: symmetry to 1e-9 and the triangle
    /// inequality to 1e-9, so a thin rod or plate (which meets it with equality) passes despite
    /// round-off in user input.
    pub fn validate(&self) -> Result<(), MassError> {
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return Err(MassError::Mass(self.mass));
        }
        let i = &self.inertia;
        if i.iter().any(|x| !x.is_finite()) || self.com.iter().any(|x| !x.is_finite()) {
            return Err(MassError::InertiaNotFinite);
        }
        let scale = i.abs().max().max(f64::MIN_POSITIVE);
        let asym = (i - i.transpose()).abs().max();
        if asym > 1e-9 * scale {
            return Err(MassError::InertiaNotSymmetric(asym));
        }
        let (m, _) = self.principal();
        if m[0] <= 0.0 {
            return Err(MassError::InertiaNotPositiveDefinite(m));
        }
        if m[0] + m[1] < m[2] * (1.0 - 1e-9) {
            return Err(MassError::TriangleInequality(m));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admissibility() {
        let ok = MassProperties::new(2.0, Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0)));
        assert_eq!(ok.validate(), Ok(()));
        // A thin plate meets the triangle inequality with equality.
        let plate = MassProperties::new(1.0, Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0)));
        assert_eq!(plate.validate(), Ok(()));
        let bad_mass = MassProperties { mass: -1.0, ..ok };
        assert_eq!(bad_mass.validate(), Err(MassError::Mass(-1.0)));
        let zero_mass = MassProperties { mass: 0.0, ..ok };
        assert_eq!(zero_mass.validate(), Err(MassError::Mass(0.0)));
        let tri = MassProperties::new(1.0, Mat3::from_diagonal(&Vec3::new(1.0, 1.0, 3.0)));
        assert!(matches!(tri.validate(), Err(MassError::TriangleInequality(_))));
        let neg = MassProperties::new(1.0, Mat3::from_diagonal(&Vec3::new(1.0, -1.0, 1.0)));
        assert!(matches!(neg.validate(), Err(MassError::InertiaNotPositiveDefinite(_))));
        let mut asym = ok;
        asym.inertia[(0, 1)] = 0.1;
        assert!(matches!(asym.validate(), Err(MassError::InertiaNotSymmetric(_))));
    }

    #[test]
    fn principal_axes_form_rotation() {
        let mut i = Mat3::from_diagonal(&Vec3::new(3.0, 2.0, 4.0));
        i[(0, 1)] = 0.5;
        i[(1, 0)] = 0.5;
        let mp = MassProperties::new(1.0, i);
        let (m, r) = mp.principal();
        assert!(m[0] <= m[1] && m[1] <= m[2]);
        assert!((r.determinant() - 1.0).abs() < 1e-12);
        let d = r.transpose() * i * r;
        for k in 0..3 {
            assert!((d[(k, k)] - m[k]).abs() < 1e-12);
        }
    }
}
