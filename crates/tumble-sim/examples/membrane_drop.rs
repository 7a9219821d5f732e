//! The membrane document's drop test (Fig. 5), built in code: a 100 kg tumbling rock about
//! 4.5 m long falls 10 m in Earth gravity onto a 146 m² hexagonal membrane (k = 30 N/m³,
//! c = 1.5 N·s/m³, μ = 0.2) and bounces off. The run's energy budget
//! `T + V_g + ½k(A − A₀)² + D_c + D_f` must hold to 1e-4 of the energy in play, and the rock must
//! leave the membrane after one contact.
//!
//! ```text
//! cargo run -p tumble-sim --example membrane_drop
//! ```

use tumble_contact::membrane::{Distribution, Membrane, MembraneFriction};
use tumble_geometry::bodies::{BodyKind, body_mesh};
use tumble_math::{UnitQuat, Vec3};
use tumble_sim::membrane_drop::MembraneDrop;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let friction = MembraneFriction { mu: 0.2, v_star: 0.01, distribution: Distribution::Auto };
    let membrane = Membrane::regular(6, Membrane::regular_radius(6, 146.0), 30.0, 1.5, Some(friction))?;
    // The procedural pear, 4.5 m long, as the bundled scenario's rock.
    let rock = body_mesh(BodyKind::PearAsteroid, 4.5, 3, true, 12)?;
    let drop = MembraneDrop::builder("drop_in_code")
        .membrane(membrane)
        .body(rock, 100.0)
        .pose(Vec3::new(0.0, 0.0, 12.0), UnitQuat::identity())
        .twist(Vec3::zeros(), Vec3::new(0.5, 1.0, -0.2))
        .gravity(Vec3::new(0.0, 0.0, -9.81))
        .timing(1e-3, 3.0, 0.01)
        .build()?;
    let run = drop.run();
    if let Some(d) = &run.diagnosis {
        return Err(d.to_string().into());
    }
    let (first, last) = (&run.samples[0], &run.samples[run.samples.len() - 1]);
    let peak_depth = run.samples.iter().map(|s| s.contact.depth).fold(0.0, f64::max);
    let drift = (last.budget() - first.budget()).abs() / first.budget().abs();
    println!(
        "contacts {:?} s, deepest {peak_depth:.3} m, speed {:.3} → {:.3} m/s, damping {:.1} J, friction {:.1} J, budget drift {drift:.2e}",
        run.contacts,
        Vec3::from(first.velocity).norm(),
        Vec3::from(last.velocity).norm(),
        last.damping_loss,
        last.friction_loss,
    );
    if drift > 1e-4 || run.contacts.len() != 1 || last.contact.in_contact {
        return Err("expected one contact, a bounce off the membrane and the budget held to 1e-4".into());
    }
    Ok(())
}
