//! Hot kernels compiled for wider registers where the CPU has them.
//!
//! [`dispatch`] runs a [`Kernel`] compiled for AVX2 (256-bit registers, three-operand VEX
//! instructions) on a CPU that has it, and compiled for the x86-64 baseline (SSE2) elsewhere,
//! chosen at run time. Both builds do the same IEEE operations in the same order: AVX2 alone does
//! not enable fused multiply-add, and Rust never lets the compiler reassociate floating-point
//! arithmetic, so the results are identical to the bit. A run gives the same outputs on any
//! x86-64 machine, and with [`set_baseline`] on or off (the lander's step is tested both ways).
//! Other architectures run the one build.
//!
//! This is the workspace's one use of `unsafe` outside the C and FMI interfaces: calling a
//! function compiled for AVX2 is sound only on a CPU with AVX2, which is checked first.

use std::sync::atomic::{AtomicBool, Ordering};

static BASELINE: AtomicBool = AtomicBool::new(false);

/// Makes [`dispatch`] run the baseline build (`true`) or the widest the CPU allows (`false`,
/// the default), process-wide. The results are the same either way; this is for tests and
/// benchmarks that compare the two.
pub fn set_baseline(on: bool) {
    BASELINE.store(on, Ordering::Relaxed);
}

/// Whether [`dispatch`] takes the AVX2 build: the CPU has AVX2 and [`set_baseline`] is off.
#[inline]
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !BASELINE.load(Ordering::Relaxed) && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A kernel for [`dispatch`]: its arguments, and their use in [`Kernel::run`].
pub trait Kernel {
    /// What the kernel returns.
    type Output;
    /// The kernel's work. Mark it `#[inline(always)]`: only code inlined into the AVX2 build is
    /// compiled for AVX2, and a function the compiler calls instead stays baseline.
    fn run(self) -> Self::Output;
}

/// `kernel.run()`, compiled for AVX2 where [`avx2`] says so.
#[inline(always)]
pub fn dispatch<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: `on_avx2` needs only AVX2, which the CPU was found to have.
        #[allow(unsafe_code)]
        return unsafe { on_avx2(kernel) };
    }
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn on_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dot<'a>(&'a [f64], &'a [f64]);

    impl Kernel for Dot<'_> {
        type Output = f64;
        #[inline(always)]
        fn run(self) -> f64 {
            self.0.iter().zip(self.1).map(|(x, y)| x * y + x / y).sum()
        }
    }

    #[test]
    fn both_builds_give_the_same_bits() {
        let a: Vec<f64> = (1..200).map(|i| (i as f64).sqrt() * 1.1e-3).collect();
        let b: Vec<f64> = (1..200).map(|i| 1.0 / (i as f64) + 0.3).collect();
        set_baseline(true);
        let base = dispatch(Dot(&a, &b));
        set_baseline(false);
        let wide = dispatch(Dot(&a, &b));
        assert_eq!(base.to_bits(), wide.to_bits());
    }
}
