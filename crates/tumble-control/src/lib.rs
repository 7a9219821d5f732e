//! Control laws: LQR and time-varying LQR (Riccati equations), region-of-attraction checks,
//! guidance and thrust laws.
//!
//! - [`lqr`]: the continuous algebraic Riccati equation and the LQR gain.

pub mod lqr;

pub use lqr::{Lqr, LqrError, lqr};
