//! The FMI 3.0 C functions (`fmi3Functions.h`): co-simulation implemented on a [`Unit`], every
//! other function of the standard exported (an importer may look them all up) and answering
//! `fmi3Error` with a logged reason.
//!
//! No panic crosses the boundary: each call runs under `catch_unwind` and a panic becomes
//! `fmi3Fatal`. Errors are reported through the importer's `logMessage` with category
//! `logStatusError`.

use crate::package::{SCENARIO, resources, scenario_token};
use crate::unit::Unit;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use tumble_sim::Scenario;

const OK: c_int = 0;
const ERROR: c_int = 3;
const FATAL: c_int = 4;

/// `fmi3LogMessageCallback`.
type LogMessage = Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char)>;

/// An instance: the unit and the importer's logger.
struct Instance {
    unit: Unit,
    env: *mut c_void,
    log: LogMessage,
}

fn log(env: *mut c_void, log: LogMessage, status: c_int, message: &str) {
    let Some(f) = log else { return };
    let category = if status == OK { c"logStatusOK" } else { c"logStatusError" };
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: the importer's callback, called with its own environment and two C strings that
    // live across the call.
    unsafe { f(env, status, category.as_ptr(), text.as_ptr()) }
}

/// Runs `f` on the instance: `fmi3OK`, or `fmi3Error` with the message logged, or `fmi3Fatal`
/// after a panic.
fn with(instance: *mut c_void, f: impl FnOnce(&mut Unit) -> Result<(), String>) -> c_int {
    // SAFETY: an instance pointer is NULL or one `fmi3InstantiateCoSimulation` returned and
    // `fmi3FreeInstance` has not freed, used by one thread at a time (FMI's rule).
    let Some(inst) = (unsafe { instance.cast::<Instance>().as_mut() }) else { return ERROR };
    let (env, logger) = (inst.env, inst.log);
    match catch_unwind(AssertUnwindSafe(|| f(&mut inst.unit))) {
        Ok(Ok(())) => OK,
        Ok(Err(m)) => {
            log(env, logger, ERROR, &m);
            ERROR
        }
        Err(_) => {
            log(env, logger, FATAL, "internal error (a panic) in the Tumble FMU");
            FATAL
        }
    }
}

/// The slice of `n` values at `p` (empty when `n` is 0).
///
/// # Safety
/// `p` points to `n` readable values when `n > 0`.
unsafe fn slice<'a, T>(p: *const T, n: usize) -> Result<&'a [T], String> {
    match (n, p.is_null()) {
        (0, _) => Ok(&[]),
        (_, true) => Err("a NULL array with a non-zero length".into()),
        // SAFETY: by contract.
        _ => Ok(unsafe { std::slice::from_raw_parts(p, n) }),
    }
}

/// # Safety
/// `p` points to `n` writable values when `n > 0`.
unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Result<&'a mut [T], String> {
    match (n, p.is_null()) {
        (0, _) => Ok(&mut []),
        (_, true) => Err("a NULL array with a non-zero length".into()),
        // SAFETY: by contract.
        _ => Ok(unsafe { std::slice::from_raw_parts_mut(p, n) }),
    }
}

fn scalars(nvr: usize, n: usize) -> Result<(), String> {
    if nvr != n {
        return Err(format!("{nvr} value references and {n} values: every variable of this FMU is a scalar"));
    }
    Ok(())
}

/// The unit of the resources folder, refused unless its token is `token`.
fn unit_at(resources_dir: &str, token: &str) -> Result<Unit, String> {
    let path = PathBuf::from(resources_dir).join(SCENARIO);
    let sc = Scenario::load(&path, &[]).map_err(|e| e.to_string())?;
    let files = resources(&sc)?;
    let found = scenario_token(&sc.text, &files);
    if found != token {
        return Err(format!(
            "instantiation token {token} is not the resources' {found}: the FMU's files were changed after it was packed"
        ));
    }
    Unit::new(&sc)
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    // SAFETY: by contract.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// `fmi3GetVersion`: "3.0".
#[unsafe(no_mangle)]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

/// `fmi3SetDebugLogging`: accepted (errors are always logged).
#[unsafe(no_mangle)]
pub extern "C" fn fmi3SetDebugLogging(
    instance: *mut c_void,
    _on: bool,
    _n: usize,
    _categories: *const *const c_char,
) -> c_int {
    with(instance, |_| Ok(()))
}

/// `fmi3InstantiateCoSimulation`: the unit of `resourcePath/scenario.toml`, NULL (with the
/// reason logged) when it cannot be made or its token differs.
///
/// # Safety
/// The strings are NULL or NUL-terminated; `logMessage` is NULL or a valid callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    _name: *const c_char,
    token: *const c_char,
    resource_path: *const c_char,
    _visible: bool,
    _logging_on: bool,
    event_mode_used: bool,
    _early_return_allowed: bool,
    _required: *const u32,
    _n_required: usize,
    env: *mut c_void,
    log_message: LogMessage,
    _intermediate_update: *mut c_void,
) -> *mut c_void {
    let made = catch_unwind(AssertUnwindSafe(|| {
        if event_mode_used {
            return Err("event mode was asked for: this FMU has none (hasEventMode = false)".to_string());
        }
        // SAFETY: forwarded contracts.
        let (token, dir) = unsafe { (text(token, "instantiationToken")?, text(resource_path, "resourcePath")?) };
        unit_at(dir, token)
    }));
    match made {
        Ok(Ok(unit)) => Box::into_raw(Box::new(Instance { unit, env, log: log_message })).cast(),
        Ok(Err(m)) => {
            log(env, log_message, ERROR, &m);
            std::ptr::null_mut()
        }
        Err(_) => {
            log(env, log_message, FATAL, "internal error (a panic) while instantiating the Tumble FMU");
            std::ptr::null_mut()
        }
    }
}

/// `fmi3FreeInstance`.
///
/// # Safety
/// `instance` is NULL or live; it is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeInstance(instance: *mut c_void) {
    if !instance.is_null() {
        // SAFETY: by contract, made by `Box::into_raw` in instantiation.
        drop(unsafe { Box::from_raw(instance.cast::<Instance>()) });
    }
}

/// `fmi3EnterInitializationMode`: the run starts at `startTime`.
#[unsafe(no_mangle)]
pub extern "C" fn fmi3EnterInitializationMode(
    instance: *mut c_void,
    _tolerance_defined: bool,
    _tolerance: f64,
    start_time: f64,
    _stop_time_defined: bool,
    _stop_time: f64,
) -> c_int {
    with(instance, |u| u.start_at(start_time))
}

/// `fmi3ExitInitializationMode`, `fmi3EnterStepMode`, `fmi3Terminate`: nothing to do.
#[unsafe(no_mangle)]
pub extern "C" fn fmi3ExitInitializationMode(instance: *mut c_void) -> c_int {
    with(instance, |_| Ok(()))
}

/// See [`fmi3ExitInitializationMode`].
#[unsafe(no_mangle)]
pub extern "C" fn fmi3EnterStepMode(instance: *mut c_void) -> c_int {
    with(instance, |_| Ok(()))
}

/// See [`fmi3ExitInitializationMode`].
#[unsafe(no_mangle)]
pub extern "C" fn fmi3Terminate(instance: *mut c_void) -> c_int {
    with(instance, |_| Ok(()))
}

/// `fmi3Reset`: back to the state after instantiation.
#[unsafe(no_mangle)]
pub extern "C" fn fmi3Reset(instance: *mut c_void) -> c_int {
    with(instance, Unit::reset)
}

/// `fmi3GetFloat64`.
///
/// # Safety
/// `vr` holds `nvr` references, `values` room for `n` doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: *mut c_void,
    vr: *const u32,
    nvr: usize,
    values: *mut f64,
    n: usize,
) -> c_int {
    with(instance, |u| {
        scalars(nvr, n)?;
        // SAFETY: by contract.
        let (vr, out) = unsafe { (slice(vr, nvr)?, slice_mut(values, n)?) };
        vr.iter().zip(out).try_for_each(|(&r, o)| u.get_f64(r).map(|x| *o = x))
    })
}

/// `fmi3SetFloat64`: the free bodies' poses and twists.
///
/// # Safety
/// `vr` holds `nvr` references, `values` `n` doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: *mut c_void,
    vr: *const u32,
    nvr: usize,
    values: *const f64,
    n: usize,
) -> c_int {
    with(instance, |u| {
        scalars(nvr, n)?;
        // SAFETY: by contract.
        let (vr, x) = unsafe { (slice(vr, nvr)?, slice(values, n)?) };
        vr.iter().zip(x).try_for_each(|(&r, &v)| u.set_f64(r, v))
    })
}

/// `fmi3GetInt32`: contact counts and events.
///
/// # Safety
/// `vr` holds `nvr` references, `values` room for `n` integers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt32(
    instance: *mut c_void,
    vr: *const u32,
    nvr: usize,
    values: *mut i32,
    n: usize,
) -> c_int {
    with(instance, |u| {
        scalars(nvr, n)?;
        // SAFETY: by contract.
        let (vr, out) = unsafe { (slice(vr, nvr)?, slice_mut(values, n)?) };
        vr.iter().zip(out).try_for_each(|(&r, o)| u.get_i32(r).map(|x| *o = x))
    })
}

/// `fmi3DoStep`: one communication step; never ends early or asks for events.
///
/// # Safety
/// The out-pointers are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DoStep(
    instance: *mut c_void,
    t: f64,
    h: f64,
    _no_set_fmu_state_prior: bool,
    event_handling_needed: *mut bool,
    terminate: *mut bool,
    early_return: *mut bool,
    last_successful_time: *mut f64,
) -> c_int {
    let status = with(instance, |u| u.do_step(t, h));
    // SAFETY: by contract.
    unsafe {
        for p in [event_handling_needed, terminate, early_return] {
            if let Some(p) = p.as_mut() {
                *p = false;
            }
        }
    }
    let reached = with(instance, |u| {
        // SAFETY: by contract.
        if let Some(p) = unsafe { last_successful_time.as_mut() } {
            *p = u.time();
        }
        Ok(())
    });
    if status == OK { reached } else { status }
}

/// The functions of the standard this FMU does not provide (model exchange, scheduled
/// execution, event mode, clocks, states, derivatives, the other types): each logs why and
/// returns `fmi3Error` (the instantiation functions of other interfaces return NULL). They
/// take the instance and ignore the rest of their arguments: every C calling convention FMI's
/// platforms use leaves the arguments to the caller.
macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: not provided by this co-simulation FMU.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(instance: *mut c_void) -> c_int {
            with(instance, |_| Err(concat!(stringify!($name), " is not provided by this co-simulation FMU").to_string()))
        }
    )*};
}

unsupported!(
    fmi3EnterEventMode,
    fmi3GetFloat32,
    fmi3GetInt8,
    fmi3GetUInt8,
    fmi3GetInt16,
    fmi3GetUInt16,
    fmi3GetUInt32,
    fmi3GetInt64,
    fmi3GetUInt64,
    fmi3GetBoolean,
    fmi3GetString,
    fmi3GetBinary,
    fmi3GetClock,
    fmi3SetFloat32,
    fmi3SetInt8,
    fmi3SetUInt8,
    fmi3SetInt16,
    fmi3SetUInt16,
    fmi3SetInt32,
    fmi3SetUInt32,
    fmi3SetInt64,
    fmi3SetUInt64,
    fmi3SetBoolean,
    fmi3SetString,
    fmi3SetBinary,
    fmi3SetClock,
    fmi3GetNumberOfVariableDependencies,
    fmi3GetVariableDependencies,
    fmi3GetFMUState,
    fmi3SetFMUState,
    fmi3FreeFMUState,
    fmi3SerializedFMUStateSize,
    fmi3SerializeFMUState,
    fmi3DeserializeFMUState,
    fmi3GetDirectionalDerivative,
    fmi3GetAdjointDerivative,
    fmi3EnterConfigurationMode,
    fmi3ExitConfigurationMode,
    fmi3GetIntervalDecimal,
    fmi3GetIntervalFraction,
    fmi3GetShiftDecimal,
    fmi3GetShiftFraction,
    fmi3SetIntervalDecimal,
    fmi3SetIntervalFraction,
    fmi3SetShiftDecimal,
    fmi3SetShiftFraction,
    fmi3EvaluateDiscreteStates,
    fmi3UpdateDiscreteStates,
    fmi3EnterContinuousTimeMode,
    fmi3CompletedIntegratorStep,
    fmi3SetTime,
    fmi3SetContinuousStates,
    fmi3GetContinuousStateDerivatives,
    fmi3GetEventIndicators,
    fmi3GetContinuousStates,
    fmi3GetNominalsOfContinuousStates,
    fmi3GetNumberOfEventIndicators,
    fmi3GetNumberOfContinuousStates,
    fmi3GetOutputDerivatives,
    fmi3ActivateModelPartition,
);

/// `fmi3InstantiateModelExchange`: NULL (this FMU is co-simulation only).
#[unsafe(no_mangle)]
pub extern "C" fn fmi3InstantiateModelExchange() -> *mut c_void {
    std::ptr::null_mut()
}

/// `fmi3InstantiateScheduledExecution`: NULL (this FMU is co-simulation only).
#[unsafe(no_mangle)]
pub extern "C" fn fmi3InstantiateScheduledExecution() -> *mut c_void {
    std::ptr::null_mut()
}
