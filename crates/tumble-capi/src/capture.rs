//! The online pre-capture check ([`tumble_control::capture_check`]) for a chaser's flight
//! software: load a capture study's `design.json` once, then ask a verdict per capture.

use crate::{TUMBLE_OK, array, boxed, fail, free, text};
use std::ffi::{c_char, c_int};
use std::ptr;
use tumble_control::capture_check::CaptureCheck;

/// A loaded capture design.
pub struct TumbleCaptureCheck(CaptureCheck);

/// Loads and validates a capture study's design file (`design.json`). NULL on failure.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_capture_check_load(path: *const c_char) -> *mut TumbleCaptureCheck {
    // SAFETY: forwarded contract.
    let Ok(path) = (unsafe { text(path, "path") }) else { return ptr::null_mut() };
    boxed(CaptureCheck::load(std::path::Path::new(path)).map(TumbleCaptureCheck))
}

/// Frees a design (NULL is ignored).
///
/// # Safety
/// `check` is NULL or from [`tumble_capture_check_load`], not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_capture_check_free(check: *mut TumbleCaptureCheck) {
    // SAFETY: forwarded contract.
    unsafe { free(check) }
}

/// The number of chaser velocity coordinates a verdict takes (base `[ω; v]`, then joint
/// rates), or [`crate::TUMBLE_ERROR`] for a NULL design.
///
/// # Safety
/// `check` is NULL or a live design.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_capture_check_chaser_velocities(check: *const TumbleCaptureCheck) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    match unsafe { check.as_ref() } {
        Some(c) => c_int::try_from(c.0.chaser_velocities()).unwrap_or(c_int::MAX),
        None => fail("check is NULL"),
    }
}

/// A verdict: `V₀` of the predicted post-capture state, the funnel inlet `ρ₀`, the margin
/// `V₀/ρ₀` and whether the detumble is predicted to succeed (`safe`: 1 when `V₀ < ρ₀`, else 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TumbleVerdict {
    /// `V₀ = (x₀ − x_nom)ᵀ S₀ (x₀ − x_nom)`.
    pub v0: f64,
    /// Funnel inlet `ρ₀`.
    pub rho0: f64,
    /// `V₀ / ρ₀`.
    pub margin: f64,
    /// 1: predicted to detumble; 0: not.
    pub safe: c_int,
}

/// The verdict for a capture: `chaser` (`n_chaser` velocity coordinates), `target`
/// (`[v_G; ω]`, 6) and the impulse measured at the grasp (`[N·s; N·m·s about the grasp
/// point]`, 6), all SI and world axes, written into `out`.
///
/// # Safety
/// `check` is NULL or a live design; `chaser` is NULL or points to `n_chaser` doubles, `target`
/// and `impulse` to 6; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_capture_check_verdict(
    check: *const TumbleCaptureCheck,
    chaser: *const f64,
    n_chaser: c_int,
    target: *const f64,
    impulse: *const f64,
    out: *mut TumbleVerdict,
) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    let Some(c) = (unsafe { check.as_ref() }) else { return fail("check is NULL") };
    // SAFETY: NULL or writable by the caller's contract.
    let Some(out) = (unsafe { out.as_mut() }) else { return fail("out is NULL") };
    let n = c.0.chaser_velocities();
    if chaser.is_null() || usize::try_from(n_chaser) != Ok(n) {
        return fail(format!("chaser: {n} velocity coordinates expected, got {n_chaser} (or NULL)"));
    }
    // SAFETY: `n` doubles by the caller's contract (n_chaser == n).
    let v_c = unsafe { std::slice::from_raw_parts(chaser, n) };
    // SAFETY: 6 doubles each by the caller's contract.
    let (v_t, i) = match unsafe { (array::<6>(target, "target"), array::<6>(impulse, "impulse")) } {
        (Ok(t), Ok(i)) => (t, i),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    match c.0.verdict(v_c, &v_t, &i) {
        Ok(v) => {
            *out = TumbleVerdict { v0: v.v0, rho0: v.rho0, margin: v.margin, safe: c_int::from(v.safe) };
            TUMBLE_OK
        }
        Err(e) => fail(e),
    }
}
