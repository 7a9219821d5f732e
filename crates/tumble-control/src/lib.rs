//! Control laws: LQR and time-varying LQR (Riccati equations), region-of-attraction checks,
//! guidance and thrust laws.
