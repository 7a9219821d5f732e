//! SPICE kernels, read by Tumble itself: leap seconds (LSK), body rotation from text PCKs (IAU
//! rotation models) and binary PCKs (type 2), ephemerides from SPKs (types 2 and 3), so that a
//! scenario can take its target's spin and the Sun's direction at an epoch from the kernels a
//! mission uses. No kernel is fetched: the files are the user's.
//!
//! What is read, and what is refused with its reason:
//! - text kernels (`\begindata` blocks) of any name: leap seconds (`DELTET/*`), rotation
//!   constants (`BODYnnn_POLE_RA`, `_POLE_DEC`, `_PM`, `_NUT_PREC_*` with their barycentre's
//!   `_NUT_PREC_ANGLES`, `_CONSTANTS_JED_EPOCH`) and `BODY10_GM`;
//! - DAF files `DAF/SPK` (segment types 2 and 3) and `DAF/PCK` (type 2), little-endian;
//! - frames J2000 (code 1) and ECLIPJ2000 (17) as a segment's base. Other segment types, frames,
//!   and big-endian files are refused when a query needs them, naming the file and the code.
//!
//! Later kernels take precedence over earlier ones, and within a file later segments over
//! earlier ones, as in SPICE. Units as in the kernels: km, km/s, rad; [`Kernels::state`] and
//! [`Kernels::rotation`] return them in SI (m, m/s, rad/s).

mod daf;
pub mod text;
pub mod time;

use daf::{Chebyshev, Daf};
use std::path::Path;
use text::Pool;
pub use time::{Epoch, Leapseconds};
use tumble_math::{Mat3, Vec3};

/// What went wrong with a kernel or a query.
#[derive(Debug, thiserror::Error)]
pub enum SpiceError {
    /// A file could not be read.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// A kernel's content is malformed.
    #[error("{0}")]
    Kernel(String),
    /// The kernels do not hold what a query needs.
    #[error("{0}")]
    Missing(String),
}

/// Largest kernel read, bytes (the planetary ephemeris DE440 is 114 MB; small-body kernels are
/// kilobytes to megabytes).
pub const MAX_KERNEL_BYTES: u64 = 1 << 30;

/// The obliquity of the ecliptic at J2000 that defines ECLIPJ2000, rad (84381.448″).
const OBLIQUITY: f64 = 84_381.448 / 3600.0 * std::f64::consts::PI / 180.0;

struct SpkSegment {
    file: String,
    target: i32,
    center: i32,
    frame: i32,
    kind: i32,
    span: [f64; 2],
    cheb: Option<Chebyshev>,
}

struct PckSegment {
    file: String,
    body: i32,
    frame: i32,
    kind: i32,
    span: [f64; 2],
    cheb: Option<Chebyshev>,
}

/// A set of loaded kernels.
#[derive(Default)]
pub struct Kernels {
    pool: Pool,
    spk: Vec<SpkSegment>,
    pck: Vec<PckSegment>,
    lsk: Option<Leapseconds>,
}

/// A body's orientation: `R` takes J2000 coordinates to the body-fixed frame's, `ω` is the
/// body frame's angular velocity relative to J2000 in body axes, rad/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rotation {
    /// J2000 → body-fixed.
    pub r: Mat3,
    /// Angular velocity, body axes, rad/s.
    pub omega: Vec3,
}

impl Kernels {
    /// Loads the kernels at `paths` in order (binary by their identification word, the rest as
    /// text kernels).
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> Result<Self, SpiceError> {
        let mut k = Self::default();
        for p in paths {
            k.load_one(p.as_ref())?;
        }
        Ok(k)
    }

    fn load_one(&mut self, path: &Path) -> Result<(), SpiceError> {
        let name = path.display().to_string();
        let bytes = tumble_math::input::read(path).map_err(|e| SpiceError::Io(name.clone(), e))?;
        if bytes.len() as u64 > MAX_KERNEL_BYTES {
            return Err(SpiceError::Kernel(format!(
                "{name}: larger than the {MAX_KERNEL_BYTES} bytes a kernel may have"
            )));
        }
        if bytes.starts_with(b"DAF/") || bytes.starts_with(b"NAIF/DAF") {
            return self.load_daf(&name, bytes);
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| SpiceError::Kernel(format!("{name}: neither a binary DAF kernel nor UTF-8 text")))?;
        if text.starts_with("DAFETF") {
            return Err(SpiceError::Kernel(format!("{name}: a transfer-format kernel: convert it with NAIF's tobin")));
        }
        self.pool.load(&name, &text)?;
        if let Some(l) = Leapseconds::from_pool(&self.pool)? {
            self.lsk = Some(l);
        }
        Ok(())
    }

    fn load_daf(&mut self, name: &str, bytes: Vec<u8>) -> Result<(), SpiceError> {
        let daf = Daf::new(name, bytes)?;
        let summaries = daf.summaries()?;
        // Segments of a DAF do not overlap. A forged file of many summaries over one large
        // segment would otherwise cost its size per summary.
        let mut spans: Vec<(i32, i32)> =
            summaries.iter().map(|s| (s.ints[s.ints.len() - 2], s.ints[s.ints.len() - 1])).collect();
        spans.sort_unstable();
        if spans.windows(2).any(|w| w[1].0 <= w[0].1) {
            return Err(SpiceError::Kernel(format!("{name}: two of its segments overlap")));
        }
        for s in summaries {
            let span = [s.doubles[0], s.doubles[1]];
            let i = &s.ints;
            if daf.kind == "SPK" {
                let (kind, start, end) = (i[3], i[4], i[5]);
                let cheb = match kind {
                    2 | 3 => Some(Chebyshev::read(&daf, span, start, end, if kind == 2 { 3 } else { 6 })?),
                    _ => None,
                };
                self.spk.push(SpkSegment {
                    file: name.into(),
                    target: i[0],
                    center: i[1],
                    frame: i[2],
                    kind,
                    span,
                    cheb,
                });
            } else {
                let (kind, start, end) = (i[2], i[3], i[4]);
                let cheb = if kind == 2 { Some(Chebyshev::read(&daf, span, start, end, 3)?) } else { None };
                self.pck.push(PckSegment { file: name.into(), body: i[0], frame: i[1], kind, span, cheb });
            }
        }
        Ok(())
    }

    /// The leap seconds, when a leapseconds kernel was loaded.
    pub fn leapseconds(&self) -> Option<&Leapseconds> {
        self.lsk.as_ref()
    }

    /// The text kernels' variables.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// ET (TDB seconds past J2000) of an epoch.
    pub fn et(&self, epoch: &Epoch) -> Result<f64, SpiceError> {
        epoch.et(self.lsk.as_ref())
    }

    /// State of `body` relative to its segment's centre at `et`, J2000, km and km/s; the
    /// latest-loaded segment covering `et`.
    fn hop(&self, body: i32, et: f64) -> Result<Option<(i32, [f64; 6])>, SpiceError> {
        let Some(s) = self.spk.iter().rev().find(|s| s.target == body && covers(s.span, et)) else {
            return Ok(None);
        };
        let cheb = s.cheb.as_ref().ok_or_else(|| {
            SpiceError::Missing(format!(
                "{}: the segment of body {body} is of SPK type {}: types 2 and 3 are read",
                s.file, s.kind
            ))
        })?;
        let (p, v) = cheb.eval(et);
        let (p, v) = (to_j2000(s.frame, &s.file, p)?, to_j2000(s.frame, &s.file, v)?);
        Ok(Some((s.center, [p[0], p[1], p[2], v[0], v[1], v[2]])))
    }

    /// `body`'s chain of centres to the root of its ephemeris at `et`, with its state relative to
    /// each (km, km/s, J2000).
    fn chain(&self, body: i32, et: f64) -> Result<Vec<(i32, [f64; 6])>, SpiceError> {
        let mut out = vec![(body, [0.0; 6])];
        let mut at = body;
        while let Some((center, s)) = self.hop(at, et)? {
            if out.iter().any(|(b, _)| *b == center) || out.len() > 64 {
                return Err(SpiceError::Kernel(format!("the ephemeris of body {body} loops through body {center}")));
            }
            let last = out.last().expect("non-empty").1;
            out.push((center, std::array::from_fn(|i| last[i] + s[i])));
            at = center;
        }
        Ok(out)
    }

    /// Position (m) and velocity (m/s) of `target` relative to `observer` at `et`, J2000 axes,
    /// geometric (no light time), chained through the segments' centres as SPICE does.
    pub fn state(&self, target: i32, observer: i32, et: f64) -> Result<(Vec3, Vec3), SpiceError> {
        let a = self.chain(target, et)?;
        let b = self.chain(observer, et)?;
        for (ca, sa) in &a {
            if let Some((_, sb)) = b.iter().find(|(cb, _)| cb == ca) {
                let d: [f64; 6] = std::array::from_fn(|i| (sa[i] - sb[i]) * 1e3);
                return Ok((Vec3::new(d[0], d[1], d[2]), Vec3::new(d[3], d[4], d[5])));
            }
        }
        Err(SpiceError::Missing(format!(
            "no ephemeris links body {target} to body {observer} at ET {et} s ({} TDB): load an SPK covering both",
            time::calendar(et)
        )))
    }

    /// Orientation of `body`'s body-fixed frame at `et`: a binary PCK segment for it covering
    /// `et` (the latest loaded), else the text PCK's rotation model.
    pub fn rotation(&self, body: i32, et: f64) -> Result<Rotation, SpiceError> {
        if let Some(s) = self.pck.iter().rev().find(|s| s.body == body && covers(s.span, et)) {
            let cheb = s.cheb.as_ref().ok_or_else(|| {
                SpiceError::Missing(format!(
                    "{}: the orientation of body {body} is of PCK type {}: type 2 is read",
                    s.file, s.kind
                ))
            })?;
            let (a, d) = cheb.eval(et);
            let base = base_to_j2000(s.frame, &s.file)?;
            return Ok(euler_313(a, d, base));
        }
        self.text_rotation(body, et)
    }

    fn text_rotation(&self, body: i32, et: f64) -> Result<Rotation, SpiceError> {
        let var = |what: &str| format!("BODY{body}_{what}");
        let need = |what: &str| -> Result<Vec<f64>, SpiceError> {
            match self.pool.numbers(&var(what))? {
                Some(v) if !v.is_empty() && v.len() <= 3 => Ok(v),
                Some(_) => Err(SpiceError::Kernel(format!("{} must hold 1 to 3 numbers", var(what)))),
                None => Err(SpiceError::Missing(format!(
                    "no orientation for body {body} at ET {et} s: no binary PCK segment covers it and no text PCK gives {}",
                    var(what)
                ))),
            }
        };
        let (ra, dec, pm) = (need("POLE_RA")?, need("POLE_DEC")?, need("PM")?);
        if let Some(f) = self.pool.numbers(&var("CONSTANTS_REF_FRAME"))?.filter(|f| f != &[1.0]) {
            return Err(SpiceError::Missing(format!(
                "{} = {f:?}: only J2000 (1) rotation constants are read",
                var("CONSTANTS_REF_FRAME")
            )));
        }
        let epoch = match self.pool.numbers(&var("CONSTANTS_JED_EPOCH"))?.as_deref() {
            Some([jed]) => (jed - 2_451_545.0) * 86_400.0,
            _ => 0.0,
        };
        let d = (et - epoch) / 86_400.0;
        let t = d / 36_525.0;
        let deg = std::f64::consts::PI / 180.0;
        // Polynomials: value and rate per second.
        let poly = |c: &[f64], x: f64, per: f64| {
            let c2 = c.get(2).copied().unwrap_or(0.0);
            let c1 = c.get(1).copied().unwrap_or(0.0);
            (c[0] + x * (c1 + x * c2), (c1 + 2.0 * c2 * x) / per)
        };
        let (mut ra_v, mut ra_r) = poly(&ra, t, 36_525.0 * 86_400.0);
        let (mut dec_v, mut dec_r) = poly(&dec, t, 36_525.0 * 86_400.0);
        let (mut pm_v, mut pm_r) = poly(&pm, d, 86_400.0);
        let terms = [var("NUT_PREC_RA"), var("NUT_PREC_DEC"), var("NUT_PREC_PM")];
        if terms.iter().any(|n| self.pool.get(n).is_some()) {
            let bary = if (100..1000).contains(&body) { body / 100 } else { body };
            let angles = self
                .pool
                .numbers(&format!("BODY{body}_NUT_PREC_ANGLES"))?
                .or(self.pool.numbers(&format!("BODY{bary}_NUT_PREC_ANGLES"))?)
                .ok_or_else(|| SpiceError::Missing(format!("{} needs BODY{bary}_NUT_PREC_ANGLES", terms[0])))?;
            let width = if angles.len() % 2 == 0 { 2 } else { 3 };
            let theta: Vec<(f64, f64)> = angles.chunks(width).map(|a| poly(a, t, 36_525.0 * 86_400.0)).collect();
            let series = |name: &str, sine: bool| -> Result<(f64, f64), SpiceError> {
                let c = self.pool.numbers(name)?.unwrap_or_default();
                if c.len() > theta.len() {
                    return Err(SpiceError::Kernel(format!("{name} has {} terms for {} angles", c.len(), theta.len())));
                }
                Ok(c.iter().zip(&theta).fold((0.0, 0.0), |(v, r), (a, (th, thr))| {
                    let (th, thr) = (th * deg, thr * deg);
                    if sine {
                        (v + a * th.sin(), r + a * th.cos() * thr)
                    } else {
                        (v + a * th.cos(), r - a * th.sin() * thr)
                    }
                }))
            };
            let (v, r) = series(&terms[0], true)?;
            (ra_v, ra_r) = (ra_v + v, ra_r + r);
            let (v, r) = series(&terms[1], false)?;
            (dec_v, dec_r) = (dec_v + v, dec_r + r);
            let (v, r) = series(&terms[2], true)?;
            (pm_v, pm_r) = (pm_v + v, pm_r + r);
        }
        let half = std::f64::consts::FRAC_PI_2;
        let angles = [ra_v * deg + half, half - dec_v * deg, pm_v * deg];
        let rates = [ra_r * deg, -dec_r * deg, pm_r * deg];
        Ok(euler_313(angles, rates, Mat3::identity()))
    }
}

/// Whether a segment's span holds `et`.
fn covers(span: [f64; 2], et: f64) -> bool {
    span[0] <= et && et <= span[1]
}

/// Frame rotation `[θ]ᵢ` (SPICE's `ROTATE`): coordinates in a frame turned by `θ` about axis `i`.
fn frame_rotation(theta: f64, axis: usize) -> Mat3 {
    let (s, c) = theta.sin_cos();
    let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut m = Mat3::zeros();
    m[(axis, axis)] = 1.0;
    m[(j, j)] = c;
    m[(k, k)] = c;
    m[(j, k)] = s;
    m[(k, j)] = -s;
    m
}

/// `R = [w]₃ [δ]₁ [φ]₃ · base` and `ω = ẇ e₃ + [w]₃ (δ̇ e₁ + [δ]₁ φ̇ e₃)` (body axes) from the
/// angles `[φ, δ, w]` and their rates.
fn euler_313(a: [f64; 3], d: [f64; 3], base: Mat3) -> Rotation {
    let (rw, rd) = (frame_rotation(a[2], 2), frame_rotation(a[1], 0));
    let r = rw * rd * frame_rotation(a[0], 2) * base;
    let omega = Vec3::z() * d[2] + rw * (Vec3::x() * d[1] + rd * Vec3::z() * d[0]);
    Rotation { r, omega }
}

/// The matrix taking J2000 coordinates to a segment's base frame's.
fn base_to_j2000(frame: i32, file: &str) -> Result<Mat3, SpiceError> {
    match frame {
        1 => Ok(Mat3::identity()),
        17 => Ok(frame_rotation(OBLIQUITY, 0)),
        _ => Err(SpiceError::Missing(format!(
            "{file}: frame code {frame}: only J2000 (1) and ECLIPJ2000 (17) are read as a segment's frame"
        ))),
    }
}

/// A segment's vector in J2000 axes.
fn to_j2000(frame: i32, file: &str, v: [f64; 3]) -> Result<[f64; 3], SpiceError> {
    let m = base_to_j2000(frame, file)?.transpose() * Vec3::from(v);
    Ok([m.x, m.y, m.z])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euler_rates_match_the_matrix_derivative() {
        let a = [0.7, 1.1, -2.3];
        let d = [1e-3, -2e-3, 3e-3];
        let h = 1e-4;
        let at = |t: f64| euler_313(std::array::from_fn(|i| a[i] + d[i] * t), d, Mat3::identity()).r;
        let rdot = (at(h) - at(-h)) / (2.0 * h);
        let rot = euler_313(a, d, Mat3::identity());
        // Ṙ = −[ω×] R for R taking inertial to body coordinates.
        let w = -rdot * rot.r.transpose();
        let omega = Vec3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]);
        assert!((omega - rot.omega).norm() < 1e-11, "{omega} vs {}", rot.omega);
    }

    #[test]
    fn a_segment_claimed_twice_is_refused() {
        let mut k = Kernels::default();
        k.load_daf("t.bsp", daf::tests::spk()).unwrap();
        let (p, _) = k.state(5, 0, 17.0).unwrap();
        assert_eq!(p.x, 3800.0);
        let mut b = daf::tests::spk();
        // A second summary, the same as the first.
        let (first, size) = (1024 + 24, 40);
        b.copy_within(first..first + size, first + size);
        b[1024 + 16..1024 + 24].copy_from_slice(&2.0f64.to_le_bytes());
        let e = Kernels::default().load_daf("t.bsp", b).unwrap_err().to_string();
        assert!(e.contains("overlap"), "{e}");
    }

    #[test]
    fn text_pck_pole_points_at_its_ra_and_dec() {
        let mut k = Kernels::default();
        let t = "\\begindata\nBODY2000433_POLE_RA = ( 11.35 0 0 )\nBODY2000433_POLE_DEC = ( 17.22 0 0 )\nBODY2000433_PM = ( 326.07 1639.38864745 0 )\n";
        k.pool.load("eros.tpc", t).unwrap();
        let r = k.rotation(2_000_433, 1e6).unwrap();
        let (ra, dec) = (11.35f64.to_radians(), 17.22f64.to_radians());
        let pole = Vec3::new(ra.cos() * dec.cos(), ra.sin() * dec.cos(), dec.sin());
        assert!((r.r.transpose() * Vec3::z() - pole).norm() < 1e-15);
        let spin = 1639.38864745f64.to_radians() / 86_400.0;
        assert!((r.omega - Vec3::z() * spin).norm() < 1e-18);
        let e = k.rotation(2_000_434, 0.0).unwrap_err().to_string();
        assert!(e.contains("BODY2000434_POLE_RA"), "{e}");
    }
}
