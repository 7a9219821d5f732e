//! C interface of Tumble's interference contact engine ([`tumble_contact::interference`]), so
//! that an external multibody code can drive it as Pong is driven by MBDyn: load contact models,
//! instantiate and pair objects, then at each step set the pose and twist of every movable
//! body, evaluate, read the contact wrenches back and commit the friction state. Also the contact
//! laws, friction and the snare wire for a code that computes its own penetrations
//! (`tumble_law_*`, `tumble_friction`, `tumble_wire_*`), and the online pre-capture check from
//! a capture study's saved design (`tumble_capture_check_*`). And any application's run through
//! the one application interface (`tumble_run_*`): start it from a scenario file, step it, read
//! its state and set its inputs by name (a mechanism's body wrenches, its arm's joint forces,
//! the LEE snare's drive commands), write its outputs.
//!
//! The header `include/tumble.h` is generated from this file by cbindgen (the test
//! `header_is_current` fails when it is stale; `TUMBLE_BLESS=1 cargo test -p tumble-capi`
//! rewrites it). `examples/c/pong_like.c` is a complete client.
//!
//! Conventions: SI units; vectors are `double[3]`; quaternions `double[4]` as `[w, x, y, z]`
//! (unit, rotating body-frame vectors into the common frame W); velocities and forces in W,
//! moments about the body origin. Functions returning `int` give [`TUMBLE_OK`] or
//! [`TUMBLE_ERROR`]; functions returning a pointer give NULL on failure. After a failure,
//! [`tumble_last_error`] describes it. Objects are not shared between threads by this
//! interface: use one engine per thread (the engine itself runs its testers in parallel).

mod capture;
mod laws;
mod run;
pub use capture::*;
pub use laws::*;
pub use run::*;

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::path::Path;
use std::ptr;
use std::sync::Arc;
use tumble_contact::interference::{Engine, Model};
use tumble_math::{Pose, Vec3, quat_from_wxyz};

/// Success.
pub const TUMBLE_OK: c_int = 0;
/// Failure: see [`tumble_last_error`].
pub const TUMBLE_ERROR: c_int = -1;

/// A loaded contact model (shared by every object made from it).
pub struct TumbleModel(Arc<Model>);

/// An engine: objects, their pairings and per-contact friction state.
pub struct TumbleEngine(Engine);

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn fail(message: impl Into<String>) -> c_int {
    let text = message.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
    TUMBLE_ERROR
}

/// The message of the last failure on this thread (empty if none); valid until the next call
/// that fails on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A C string argument, or a failure naming it.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
pub(crate) unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, c_int> {
    if s.is_null() {
        return Err(fail(format!("{what} is NULL")));
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(s) }.to_str().map_err(|_| fail(format!("{what} is not UTF-8")))
}

/// `N` doubles from a C array, or a failure naming it.
///
/// # Safety
/// `p` is NULL or points to `N` doubles.
pub(crate) unsafe fn array<const N: usize>(p: *const f64, what: &str) -> Result<[f64; N], c_int> {
    if p.is_null() {
        return Err(fail(format!("{what} is NULL")));
    }
    // SAFETY: non-null and `N` long by the caller's contract.
    let a: [f64; N] = unsafe { *(p as *const [f64; N]) };
    if a.iter().all(|x| x.is_finite()) { Ok(a) } else { Err(fail(format!("{what} has a non-finite entry: {a:?}"))) }
}

/// The value boxed for C, or NULL with the error recorded for [`tumble_last_error`].
pub(crate) fn boxed<T>(r: Result<T, String>) -> *mut T {
    match r {
        Ok(v) => Box::into_raw(Box::new(v)),
        Err(e) => {
            fail(e);
            ptr::null_mut()
        }
    }
}

/// Frees what [`boxed`] gave C; NULL is ignored.
///
/// # Safety
/// `p` is NULL or from [`boxed`] (or `Box::into_raw`), not yet freed.
pub(crate) unsafe fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: made by Box::into_raw and not freed, by the caller's contract.
        drop(unsafe { Box::from_raw(p) });
    }
}

fn model_ptr(m: Result<Model, String>) -> *mut TumbleModel {
    boxed(m.map(|m| TumbleModel(Arc::new(m))))
}

/// Loads a model file (TOML, or JSON by its `.json` extension). NULL on failure.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_model_load(path: *const c_char) -> *mut TumbleModel {
    // SAFETY: forwarded contract.
    let Ok(path) = (unsafe { text(path, "path") }) else { return ptr::null_mut() };
    model_ptr(Model::load(Path::new(path)).map_err(|e| e.to_string()))
}

/// Parses a model from TOML text; `name` labels its errors. NULL on failure.
///
/// # Safety
/// `name` and `toml` are NULL or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_model_from_toml(name: *const c_char, toml: *const c_char) -> *mut TumbleModel {
    // SAFETY: forwarded contract.
    let (Ok(name), Ok(toml)) = (unsafe { text(name, "name") }, unsafe { text(toml, "toml") }) else {
        return ptr::null_mut();
    };
    model_ptr(Model::from_toml(name, toml).map_err(|e| e.to_string()))
}

/// Frees a model (objects made from it keep their own reference). NULL is ignored.
///
/// # Safety
/// `model` is NULL or a pointer from `tumble_model_load`/`tumble_model_from_toml` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_model_free(model: *mut TumbleModel) {
    // SAFETY: forwarded contract.
    unsafe { free(model) }
}

/// Number of bodies (the root and each movable group) of a model; −1 on failure.
///
/// # Safety
/// `model` is NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_model_body_count(model: *const TumbleModel) -> c_int {
    // SAFETY: NULL or live, by contract.
    match unsafe { model.as_ref() } {
        Some(m) => m.0.bodies.len() as c_int,
        None => fail("model is NULL"),
    }
}

/// Index of the body named `name` (`"object"` is the root); −1 when there is none.
///
/// # Safety
/// `model` is NULL or a live model; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_model_body_index(model: *const TumbleModel, name: *const c_char) -> c_int {
    // SAFETY: NULL or live, by contract.
    let Some(m) = (unsafe { model.as_ref() }) else { return fail("model is NULL") };
    // SAFETY: forwarded contract.
    let Ok(name) = (unsafe { text(name, "name") }) else { return TUMBLE_ERROR };
    match m.0.body(name) {
        Some(i) => i as c_int,
        None => fail(format!("the model has no body named '{name}'")),
    }
}

/// A new, empty engine.
#[unsafe(no_mangle)]
pub extern "C" fn tumble_engine_new() -> *mut TumbleEngine {
    Box::into_raw(Box::new(TumbleEngine(Engine::new())))
}

/// Frees an engine. NULL is ignored.
///
/// # Safety
/// `engine` is NULL or a pointer from `tumble_engine_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_free(engine: *mut TumbleEngine) {
    // SAFETY: forwarded contract.
    unsafe { free(engine) }
}

/// An engine argument, or a failure.
///
/// # Safety
/// `e` is NULL or a live engine not aliased elsewhere during the call.
unsafe fn engine<'a>(e: *mut TumbleEngine) -> Result<&'a mut Engine, c_int> {
    // SAFETY: NULL or live and unaliased, by contract.
    unsafe { e.as_mut() }.map(|e| &mut e.0).ok_or_else(|| fail("engine is NULL"))
}

/// Adds an object, an instance of `model` with its own state; returns its index, −1 on failure.
///
/// # Safety
/// `engine` and `model` are NULL or live; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_add_object(
    engine_: *mut TumbleEngine,
    model: *const TumbleModel,
    name: *const c_char,
) -> c_int {
    // SAFETY: forwarded contracts.
    let (e, name) = match unsafe { (engine(engine_), text(name, "name")) } {
        (Ok(e), Ok(n)) => (e, n),
        _ => return TUMBLE_ERROR,
    };
    // SAFETY: NULL or live, by contract.
    let Some(m) = (unsafe { model.as_ref() }) else { return fail("model is NULL") };
    e.add_object(m.0.clone(), name) as c_int
}

/// Pairs objects `a` and `b` (only paired objects are tested); returns the pair's index, −1
/// when a contact-set combination is ambiguous or has no law (the message names it).
///
/// # Safety
/// `engine` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_pair(engine_: *mut TumbleEngine, a: c_int, b: c_int) -> c_int {
    // SAFETY: forwarded contract.
    let e = match unsafe { engine(engine_) } {
        Ok(e) => e,
        Err(c) => return c,
    };
    let n = e.objects().len();
    if a < 0 || b < 0 || a as usize >= n || b as usize >= n {
        return fail(format!("objects ({a}, {b}): the engine has {n} objects"));
    }
    match e.pair(a as usize, b as usize) {
        Ok(p) => p as c_int,
        Err(err) => fail(err.to_string()),
    }
}

/// Checks an (object, body) index pair.
fn body_index(e: &Engine, object: c_int, body: c_int) -> Result<(usize, usize), c_int> {
    let n = e.objects().len();
    if object < 0 || object as usize >= n {
        return Err(fail(format!("object {object}: the engine has {n} objects")));
    }
    let m = e.objects()[object as usize].bodies.len();
    if body < 0 || body as usize >= m {
        return Err(fail(format!("body {body}: object {object} has {m} bodies")));
    }
    Ok((object as usize, body as usize))
}

/// Sets the pose (position `p`, unit quaternion `q_wxyz` rotating body vectors into W) and the
/// twist (velocity `v` of the body origin, angular velocity `w`, both in W) of one body.
///
/// # Safety
/// `engine` is NULL or live; `p`, `v`, `w` are NULL or point to 3 doubles, `q_wxyz` to 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_set_body(
    engine_: *mut TumbleEngine,
    object: c_int,
    body: c_int,
    p: *const f64,
    q_wxyz: *const f64,
    v: *const f64,
    w: *const f64,
) -> c_int {
    // SAFETY: forwarded contracts.
    let args = unsafe {
        (engine(engine_), array::<3>(p, "p"), array::<4>(q_wxyz, "q"), array::<3>(v, "v"), array::<3>(w, "w"))
    };
    let (Ok(e), Ok(p), Ok(q), Ok(v), Ok(w)) = args else { return TUMBLE_ERROR };
    let (o, b) = match body_index(e, object, body) {
        Ok(ix) => ix,
        Err(c) => return c,
    };
    let q = match quat_from_wxyz(q) {
        Ok(q) => q,
        Err(err) => return fail(format!("q: {err}")),
    };
    match e.set_body(o, b, &Pose::new(Vec3::from(p), q), Vec3::from(v), Vec3::from(w)) {
        Ok(()) => TUMBLE_OK,
        Err(err) => fail(err.to_string()),
    }
}

/// Evaluates every pair: contacts, forces and the wrench on every body.
///
/// # Safety
/// `engine` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_evaluate(engine_: *mut TumbleEngine) -> c_int {
    // SAFETY: forwarded contract.
    match unsafe { engine(engine_) } {
        Ok(e) => {
            e.evaluate();
            TUMBLE_OK
        }
        Err(c) => c,
    }
}

/// Accepts the last evaluation as the state at the end of a step of `dt` seconds (advances the
/// bristle deflections); call once per accepted integrator step.
///
/// # Safety
/// `engine` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_commit(engine_: *mut TumbleEngine, dt: f64) -> c_int {
    // SAFETY: forwarded contract.
    let e = match unsafe { engine(engine_) } {
        Ok(e) => e,
        Err(c) => return c,
    };
    if !(dt.is_finite() && dt > 0.0) {
        return fail(format!("dt = {dt}: a step must be positive and finite"));
    }
    e.commit(dt);
    TUMBLE_OK
}

/// Writes a 3-vector to a C array.
///
/// # Safety
/// `out` is NULL or points to 3 writable doubles.
unsafe fn write3(out: *mut f64, x: &Vec3, what: &str) -> Result<(), c_int> {
    if out.is_null() {
        return Err(fail(format!("{what} is NULL")));
    }
    // SAFETY: non-null and 3 long by contract.
    unsafe { *(out as *mut [f64; 3]) = [x.x, x.y, x.z] };
    Ok(())
}

/// The contact force (N) and moment about the body origin (N·m) on one body from the last
/// evaluation; in W when `in_body` is 0, in the body's own frame otherwise.
///
/// # Safety
/// `engine` is NULL or live; `force` and `torque` are NULL or point to 3 writable doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_wrench(
    engine_: *mut TumbleEngine,
    object: c_int,
    body: c_int,
    in_body: c_int,
    force: *mut f64,
    torque: *mut f64,
) -> c_int {
    // SAFETY: forwarded contract.
    let e = match unsafe { engine(engine_) } {
        Ok(e) => e,
        Err(c) => return c,
    };
    let (o, b) = match body_index(e, object, body) {
        Ok(ix) => ix,
        Err(c) => return c,
    };
    let (f, t) = if in_body != 0 {
        e.wrench_in_body(o, b)
    } else {
        let s = e.body(o, b);
        (s.force, s.torque)
    };
    // SAFETY: forwarded contracts.
    match unsafe { (write3(force, &f, "force"), write3(torque, &t, "torque")) } {
        (Ok(()), Ok(())) => TUMBLE_OK,
        _ => TUMBLE_ERROR,
    }
}

/// Number of contacts in the last evaluation; −1 on failure.
///
/// # Safety
/// `engine` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_engine_contact_count(engine_: *mut TumbleEngine) -> c_int {
    // SAFETY: forwarded contract.
    match unsafe { engine(engine_) } {
        Ok(e) => e.contacts().len() as c_int,
        Err(c) => c,
    }
}
