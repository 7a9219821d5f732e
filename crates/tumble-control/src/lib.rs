//! Control laws: LQR and time-varying LQR (Riccati equations), region-of-attraction checks,
//! guidance and thrust laws.
//!
//! - [`lqr`](mod@lqr): the continuous algebraic Riccati equation and the LQR gain.
//! - [`tvlqr`](mod@tvlqr): finite-horizon time-varying LQR (the Riccati differential equation backward).
//! - [`capture_check`]: a capture study's saved design and the online pre-capture check.

pub mod capture_check;
pub mod lqr;
pub mod tvlqr;

pub use lqr::{Lqr, LqrError, lqr};
pub use tvlqr::{Tvlqr, tvlqr};
