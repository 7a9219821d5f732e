//! Contact laws and the snare wire ([`tumble_contact::laws`], [`tumble_contact::snare`]) for an
//! external dynamics code that computes its own penetrations: build a law or a wire once, then
//! ask its force at each penetration and rate.

use crate::{TUMBLE_OK, boxed, fail, free};
use std::ffi::c_int;
use std::ptr;
use tumble_contact::laws::{ContactLaw, Damping, Stiffness, friction};
use tumble_contact::snare::LooseWire;
use tumble_math::Vec3;

/// A normal contact law `F_n = F_e(δ) + F_d(δ, δ̇)`, never pulling.
pub struct TumbleContactLaw(ContactLaw);

/// A loose snare wire fixed at both ends (the snare-wire document's §4).
pub struct TumbleLooseWire(LooseWire);

fn law_ptr(law: ContactLaw) -> *mut TumbleContactLaw {
    boxed(law.validate().map(|()| TumbleContactLaw(law)))
}

/// Linear spring–dashpot `k δ + c δ̇` (N/m, N·s/m). NULL on invalid parameters.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_spring_dashpot(k: f64, c: f64) -> *mut TumbleContactLaw {
    law_ptr(ContactLaw::spring_dashpot(k, c))
}

/// Hertz `k δ^1.5` (N/m^1.5), undamped. NULL on invalid parameters.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_hertz(k: f64) -> *mut TumbleContactLaw {
    law_ptr(ContactLaw::hertz(k))
}

/// Hunt–Crossley `k δ^p (1 + α δ̇)` (α in s/m). NULL on invalid parameters.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_hunt_crossley(k: f64, p: f64, alpha: f64) -> *mut TumbleContactLaw {
    law_ptr(ContactLaw::hunt_crossley(k, p, alpha))
}

/// Flores: Hunt–Crossley with `α = 8(1 − e)/(5 e v₀)` for the restitution `e` ∈ (0, 1].
/// NULL on invalid parameters.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_flores(k: f64, p: f64, e: f64) -> *mut TumbleContactLaw {
    law_ptr(ContactLaw::flores(k, p, e))
}

/// The general power law `k δ^p + c δ^g sign(δ̇)|δ̇|^q` (`c = 0`: undamped). NULL on invalid
/// parameters.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_power(k: f64, p: f64, c: f64, g: f64, q: f64) -> *mut TumbleContactLaw {
    let damping = if c == 0.0 { Damping::None } else { Damping::Power { c, g, q } };
    law_ptr(ContactLaw { stiffness: Stiffness::Power { k, p }, damping })
}

/// A tabulated elastic law: `force[i]` (N) at `delta[i]` (m), `n` points from `delta[0] = 0`
/// ascending, linear between them and beyond; undamped. NULL on an invalid table.
///
/// # Safety
/// `delta` and `force` are NULL or point to `n` doubles each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_law_table(delta: *const f64, force: *const f64, n: c_int) -> *mut TumbleContactLaw {
    let Ok(len) = usize::try_from(n) else {
        fail(format!("n must be >= 0, got {n}"));
        return ptr::null_mut();
    };
    if delta.is_null() || force.is_null() {
        fail("delta or force is NULL");
        return ptr::null_mut();
    }
    // SAFETY: `n` doubles each by the caller's contract.
    let (d, f) = unsafe { (std::slice::from_raw_parts(delta, len), std::slice::from_raw_parts(force, len)) };
    law_ptr(ContactLaw { stiffness: Stiffness::Table { delta: d.to_vec(), force: f.to_vec() }, damping: Damping::None })
}

/// The snare-wire document's identified wire law (Table 4) at a contact position of `s_mm` =
/// 40, 65 or 90 mm, offset dropped, undamped. NULL for another position.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_law_snare_wire_table4(s_mm: c_int) -> *mut TumbleContactLaw {
    match u32::try_from(s_mm).ok().and_then(ContactLaw::snare_wire_table4) {
        Some(law) => law_ptr(law),
        None => {
            fail(format!("Table 4 has rows at 40, 65 and 90 mm, not {s_mm}"));
            ptr::null_mut()
        }
    }
}

/// Frees a law (NULL is ignored).
///
/// # Safety
/// `law` is NULL or from a `tumble_law_*` constructor, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_law_free(law: *mut TumbleContactLaw) {
    // SAFETY: forwarded contract.
    unsafe { free(law) }
}

/// The normal force (N, ≥ 0) at penetration `delta` (m) and rate `rate` (m/s, closing
/// positive), with `v0` the approach speed at first contact (for the restitution-based
/// dampings), into `force`; potential energy `∫₀^δ F_e` (J) into `energy` (NULL to skip).
///
/// # Safety
/// `law` is NULL or a live law; `force` and `energy` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_law_force(
    law: *const TumbleContactLaw,
    delta: f64,
    rate: f64,
    v0: f64,
    force: *mut f64,
    energy: *mut f64,
) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    let Some(law) = (unsafe { law.as_ref() }) else { return fail("law is NULL") };
    if ![delta, rate, v0].iter().all(|x| x.is_finite()) {
        return fail(format!("non-finite input: delta {delta}, rate {rate}, v0 {v0}"));
    }
    // SAFETY: NULL or writable by the caller's contract.
    unsafe {
        let Some(f) = force.as_mut() else { return fail("force is NULL") };
        *f = law.0.force(delta, rate, v0);
        if let Some(e) = energy.as_mut() {
            *e = law.0.energy(delta);
        }
    }
    TUMBLE_OK
}

/// Regularised Coulomb friction (N, into `out[3]`) against the tangential slip velocity
/// `slip[3]` (m/s): magnitude `μ F_n η(|v|/v*)`, `η(s) = s(2 − s)` below 1, 1 beyond.
///
/// # Safety
/// `slip` is NULL or points to 3 doubles; `out` is NULL or writable for 3.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_friction(mu: f64, normal: f64, slip: *const f64, v_star: f64, out: *mut f64) -> c_int {
    // SAFETY: 3 doubles by the caller's contract.
    let s = match unsafe { crate::array::<3>(slip, "slip") } {
        Ok(s) => s,
        Err(e) => return e,
    };
    if !(mu >= 0.0 && normal.is_finite() && v_star > 0.0 && mu.is_finite() && v_star.is_finite()) {
        return fail(format!(
            "friction needs mu >= 0, a finite normal force and v_star > 0 (got {mu}, {normal}, {v_star})"
        ));
    }
    if out.is_null() {
        return fail("out is NULL");
    }
    let f = friction(mu, normal, &Vec3::from(s), v_star);
    // SAFETY: writable for 3 doubles by the caller's contract.
    unsafe { ptr::copy_nonoverlapping(f.as_ptr(), out, 3) };
    TUMBLE_OK
}

/// The document's wire (Table 3: `L` = 180 mm, `l` = 175 mm, SUS-304 1.5 mm) pushed at
/// `position` (m from one end along the chord), with Table 4's law there and linear damping
/// `damping` (N·s/m). NULL on invalid input.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_wire_table4(position: f64, damping: f64) -> *mut TumbleLooseWire {
    if !(position.is_finite() && damping.is_finite() && damping >= 0.0) {
        fail(format!("position must be finite and damping >= 0, got {position} m and {damping} N·s/m"));
        return ptr::null_mut();
    }
    boxed(LooseWire::table4(position, damping).map(TumbleLooseWire))
}

/// Frees a wire (NULL is ignored).
///
/// # Safety
/// `wire` is NULL or from [`tumble_wire_table4`], not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_wire_free(wire: *mut TumbleLooseWire) {
    // SAFETY: forwarded contract.
    unsafe { free(wire) }
}

/// The wire's force on the shaft (N, ≥ 0; the slack law up to `Q`, the steel's stretch beyond)
/// at penetration `delta` (m) and rate `rate` (m/s, closing), into `force`; its tension (N)
/// into `tension` (NULL to skip). Past the yield load ([`tumble_wire_limits`]) the model no
/// longer holds: the caller should stop there.
///
/// # Safety
/// `wire` is NULL or a live wire; `force` and `tension` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_wire_force(
    wire: *const TumbleLooseWire,
    delta: f64,
    rate: f64,
    force: *mut f64,
    tension: *mut f64,
) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    let Some(w) = (unsafe { wire.as_ref() }) else { return fail("wire is NULL") };
    if !(delta.is_finite() && rate.is_finite()) {
        return fail(format!("non-finite input: delta {delta}, rate {rate}"));
    }
    // SAFETY: NULL or writable by the caller's contract.
    unsafe {
        let Some(f) = force.as_mut() else { return fail("force is NULL") };
        *f = w.0.force(delta, rate, 0.0);
        if let Some(t) = tension.as_mut() {
            *t = w.0.tension(delta);
        }
    }
    TUMBLE_OK
}

/// The wire's slack limit `Q` (m) into `slack` and its yield load (N) into `yield_load`
/// (either may be NULL).
///
/// # Safety
/// `wire` is NULL or a live wire; the outputs are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_wire_limits(
    wire: *const TumbleLooseWire,
    slack: *mut f64,
    yield_load: *mut f64,
) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    let Some(w) = (unsafe { wire.as_ref() }) else { return fail("wire is NULL") };
    // SAFETY: NULL or writable by the caller's contract.
    unsafe {
        if let Some(q) = slack.as_mut() {
            *q = w.0.slack;
        }
        if let Some(y) = yield_load.as_mut() {
            *y = w.0.yield_load;
        }
    }
    TUMBLE_OK
}
