//! [`LanderBuilder`]: a lander system built in code, validated as a scenario file is, with its
//! derived data (the inverse inertia) computed.

use super::system::LanderSystem;
use crate::pipeline::BuildError;
use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::Gravity;
use tumble_dynamics::rotating::TargetSpin;
use tumble_geometry::MassProperties;
use tumble_geometry::sdf::Sdf;
use tumble_math::{Mat3, Vec3};

/// Builds a [`LanderSystem`]: the spacecraft (mass, inertia, contact vertices), its contact
/// law, the target's surface, gravity and rotation law.
///
/// ```
/// use std::sync::Arc;
/// use tumble_contact::VertexContactParams;
/// use tumble_dynamics::Uniform;
/// use tumble_geometry::sdf::HalfSpace;
/// use tumble_math::Vec3;
/// use tumble_sim::lander::LanderSystem;
///
/// let system = LanderSystem::builder()
///     .mass(10.0)
///     .box_shape(Vec3::new(0.4, 0.4, 0.4))
///     .contact(VertexContactParams {
///         stiffness: 1e4,
///         damping: 50.0,
///         mu: 0.5,
///         mu_static: 0.5,
///         rolling: 0.0,
///         v_star: 1e-3,
///         w_star: 1e-3,
///         stable_dt: 0.0,
///     })
///     .surface(Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }))
///     .gravity(Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -0.05) }))
///     .build()
///     .expect("a valid lander");
/// assert_eq!(system.vertices.len(), 8);
/// let refused = LanderSystem::builder().mass(-1.0).build().err().expect("a negative mass is refused");
/// assert_eq!(refused.key, "lander.mass");
/// ```
#[derive(Clone)]
pub struct LanderBuilder {
    mass: f64,
    inertia: Option<Mat3>,
    box_size: Option<Vec3>,
    vertices: Vec<Vec3>,
    contact: Option<VertexContactParams>,
    surface: Option<Arc<dyn Sdf>>,
    gravity: Option<Arc<dyn Gravity>>,
    spin: TargetSpin,
    centre: Vec3,
    expansion_radius: f64,
}

impl LanderSystem {
    /// A builder with a scenario file's defaults: no gravity, a target rotating uniformly (Ω
    /// from the state), gravity evaluated at every stage. Mass, inertia (or a box shape),
    /// vertices, the contact law and the surface have no default.
    pub fn builder() -> LanderBuilder {
        LanderBuilder {
            mass: f64::NAN,
            inertia: None,
            box_size: None,
            vertices: vec![],
            contact: None,
            surface: None,
            gravity: None,
            spin: TargetSpin::Uniform,
            centre: Vec3::zeros(),
            expansion_radius: 0.0,
        }
    }
}

impl LanderBuilder {
    /// Spacecraft mass, kg (`lander.mass`).
    pub fn mass(mut self, kg: f64) -> Self {
        self.mass = kg;
        self
    }

    /// Inertia about the centre of mass, body axes, kg·m² (`lander.inertia`).
    pub fn inertia(mut self, inertia: Mat3) -> Self {
        self.inertia = Some(inertia);
        self
    }

    /// A uniform box of these edge lengths (m) centred on the centre of mass: its eight corners
    /// are the contact vertices, and its inertia is used unless [`LanderBuilder::inertia`] is
    /// given.
    pub fn box_shape(mut self, size: Vec3) -> Self {
        self.box_size = Some(size);
        self.vertices = (0..8)
            .map(|i| {
                let s = |bit: usize, a: f64| if i & bit == 0 { 0.5 * a } else { -0.5 * a };
                Vec3::new(s(1, size.x), s(2, size.y), s(4, size.z))
            })
            .collect();
        self
    }

    /// Contact vertices from the centre of mass, body axes, m (`lander.vertices`).
    pub fn vertices(mut self, vertices: Vec<Vec3>) -> Self {
        self.vertices = vertices;
        self
    }

    /// The vertex contact law (`lander.contact`).
    pub fn contact(mut self, contact: VertexContactParams) -> Self {
        self.contact = Some(contact);
        self
    }

    /// The target's surface, target frame, negative inside (`target.shape`).
    pub fn surface(mut self, surface: Arc<dyn Sdf>) -> Self {
        self.surface = Some(surface);
        self
    }

    /// The target's gravity, target frame (`gravity`).
    pub fn gravity(mut self, gravity: Arc<dyn Gravity>) -> Self {
        self.gravity = Some(gravity);
        self
    }

    /// The target's rotation law (`target.spin`).
    pub fn spin(mut self, spin: TargetSpin) -> Self {
        self.spin = spin;
        self
    }

    /// The target's centre of mass in T, m, the point it turns about (`target.centre_of_mass`;
    /// default the origin of T). A scenario file computes it from the shape.
    pub fn centre_of_mass(mut self, centre: Vec3) -> Self {
        self.centre = centre;
        self
    }

    /// Radius of the second-order gravity expansion, m (0: gravity at every stage;
    /// `gravity.expansion_radius`).
    pub fn expansion_radius(mut self, radius: f64) -> Self {
        self.expansion_radius = radius;
        self
    }

    /// The system, or the first input that cannot make one.
    pub fn build(self) -> Result<LanderSystem, BuildError> {
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return Err(BuildError::new("lander.mass", format!("must be positive and finite, got {}", self.mass)));
        }
        let inertia = match (self.inertia, self.box_size) {
            (Some(i), _) => i,
            (None, Some(s)) => {
                let m = self.mass / 12.0;
                Mat3::from_diagonal(&Vec3::new(
                    m * (s.y * s.y + s.z * s.z),
                    m * (s.x * s.x + s.z * s.z),
                    m * (s.x * s.x + s.y * s.y),
                ))
            }
            (None, None) => return Err(BuildError::new("lander.inertia", "missing (or give a box_shape)")),
        };
        MassProperties::new(self.mass, inertia)
            .validate()
            .map_err(|e| BuildError::new("lander.inertia", e.to_string()))?;
        if self.vertices.is_empty() || self.vertices.iter().any(|v| v.iter().any(|x| !x.is_finite())) {
            return Err(BuildError::new("lander.vertices", "needs at least one vertex, every coordinate finite (m)"));
        }
        let contact =
            self.contact.ok_or_else(|| BuildError::new("lander.contact", "missing: the vertex contact law"))?;
        check_contact(&contact)?;
        if !(self.expansion_radius.is_finite() && self.expansion_radius >= 0.0) {
            return Err(BuildError::new("gravity.expansion_radius", "must be zero or positive (m)"));
        }
        crate::scenario::check::position3("target.centre_of_mass", self.centre.into())?;
        let surface = self.surface.ok_or_else(|| BuildError::new("target.shape", "missing: the target's surface"))?;
        let inertia_inv = inertia.try_inverse().ok_or_else(|| BuildError::new("lander.inertia", "is singular"))?;
        Ok(LanderSystem {
            mass: self.mass,
            inertia,
            inertia_inv,
            vertices: self.vertices,
            contact,
            surface,
            gravity: self.gravity.unwrap_or_else(|| Arc::new(tumble_dynamics::NoGravity)),
            spin: self.spin,
            centre: self.centre,
            expansion_radius: self.expansion_radius,
            expansion: None,
            actuation: Default::default(),
            sun: None,
        })
    }
}

/// The contact law's coefficients: stiffness and tolerances positive, the rest not negative,
/// the static coefficient at least the sliding one.
fn check_contact(c: &VertexContactParams) -> Result<(), BuildError> {
    let positive = [("stiffness", c.stiffness), ("v_star", c.v_star), ("w_star", c.w_star)];
    for (key, x) in positive {
        if !(x.is_finite() && x > 0.0) {
            return Err(BuildError::new(format!("lander.contact.{key}"), format!("must be positive, got {x}")));
        }
    }
    let nonneg = [("damping", c.damping), ("mu", c.mu), ("rolling", c.rolling), ("stable_dt", c.stable_dt)];
    for (key, x) in nonneg {
        if !(x.is_finite() && x >= 0.0) {
            return Err(BuildError::new(format!("lander.contact.{key}"), format!("must be zero or positive, got {x}")));
        }
    }
    if !(c.mu_static >= c.mu && c.mu_static.is_finite()) {
        return Err(BuildError::new(
            "lander.contact.mu_static",
            format!("must be at least mu = {}, got {}", c.mu, c.mu_static),
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tumble_geometry::sdf::HalfSpace;

    /// A stiff, grippy vertex contact for the lander's unit tests.
    pub(crate) fn contact() -> VertexContactParams {
        VertexContactParams {
            stiffness: 1e4,
            damping: 50.0,
            mu: 0.5,
            mu_static: 0.6,
            rolling: 0.0,
            v_star: 1e-3,
            w_star: 1e-3,
            stable_dt: 0.0,
        }
    }

    fn valid() -> LanderBuilder {
        LanderSystem::builder()
            .mass(2.0)
            .box_shape(Vec3::new(0.2, 0.4, 0.6))
            .contact(contact())
            .surface(Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }))
    }

    #[test]
    fn a_box_gets_its_corners_its_inertia_and_the_inverse_computed() {
        let s = valid().build().expect("valid");
        // I_xx = m (b² + c²) / 12 for edges a, b, c.
        let i = Vec3::new(2.0 * (0.16 + 0.36) / 12.0, 2.0 * (0.04 + 0.36) / 12.0, 2.0 * (0.04 + 0.16) / 12.0);
        assert!((s.inertia.diagonal() - i).norm() < 1e-15);
        assert!((s.inertia * s.inertia_inv - Mat3::identity()).norm() < 1e-14);
        assert_eq!(s.vertices.len(), 8);
        assert!(s.vertices.iter().all(|v| (v.x.abs() - 0.1).abs() < 1e-15 && (v.z.abs() - 0.3).abs() < 1e-15));
    }

    #[test]
    fn bad_input_is_refused_with_its_key() {
        let key = |b: LanderBuilder| b.build().err().map(|e| e.key);
        assert_eq!(key(valid().mass(f64::NAN)).as_deref(), Some("lander.mass"));
        // Principal moments 1, 1, 3 break the triangle inequality: no real body has them.
        let bad = Mat3::from_diagonal(&Vec3::new(1.0, 1.0, 3.0));
        assert_eq!(key(valid().inertia(bad)).as_deref(), Some("lander.inertia"));
        assert_eq!(key(valid().vertices(vec![])).as_deref(), Some("lander.vertices"));
        let soft = VertexContactParams { stiffness: 0.0, ..contact() };
        assert_eq!(key(valid().contact(soft)).as_deref(), Some("lander.contact.stiffness"));
        let grippy = VertexContactParams { mu_static: 0.4, ..contact() };
        assert_eq!(key(valid().contact(grippy)).as_deref(), Some("lander.contact.mu_static"));
        let no_surface = LanderSystem::builder().mass(1.0).box_shape(Vec3::repeat(0.1)).contact(contact());
        assert_eq!(key(no_surface).as_deref(), Some("target.shape"));
    }
}
