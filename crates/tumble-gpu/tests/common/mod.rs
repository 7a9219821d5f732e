//! Shared by the device tests.

use tumble_gpu::Gpu;

/// The device, or `None` (the test says it skipped) where there is no Vulkan device with f64
/// and i64 shaders — except under CI (`.ci/run` installs Mesa's lavapipe), where that fails.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("CI installs a Vulkan driver with f64 shaders: {e}"),
    }
}
