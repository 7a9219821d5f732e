//! Lander campaigns: a run's row (settling, final place, bounces, penetration, energy balance,
//! impact loads), the target the runs share when no dispersion touches it, and the report's
//! landing maps, settling times and impact loads.

use super::ephemeris::Ephemeris;
use super::frame::{SiteFrame, target_frame};
use super::hop::HopRecord;
use super::impact::ImpactMaxima;
use super::model::{LanderModel, Target, build_target};
use super::output::write_lander_run;
use super::sim::{LanderOutcome, simulate};
use super::system::STATE_LEN;
use crate::campaign::report::{mean_sd, quantile};
use crate::campaign::{Campaign, CampaignKind, Finished, RunRow};
use crate::plot::{LatLonField, Series, histogram_plot, line_plot, map_plot, scatter_plot};
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::path::Path;
use tumble_dynamics::spice::time::calendar;
use tumble_math::{Vec3, output};

/// Latitude bands of the landing map (4° cells; twice as many longitude bands).
const MAP_ROWS: usize = 45;

/// Result columns of a lander campaign.
pub const LANDER_COLUMNS: [&str; 17] = [
    "settle_time [s]",
    "final_time [s]",
    "x [m]",
    "y [m]",
    "z [m]",
    "latitude [deg]",
    "longitude [deg]",
    "bounces",
    "max_penetration [m]",
    "balance_error [J]",
    "max_impact_speed [m/s]",
    "max_impact_tangential_speed [m/s]",
    "max_impact_force [N]",
    "max_impact_energy_lost [J]",
    "hop_miss [m]",
    "sun_elevation_touchdown [deg]",
    "sun_elevation_end [deg]",
];

/// What a lander campaign records of a run's end (from either backend).
pub struct LanderEnd<'a> {
    /// Where a body's sites are measured from (`None` for a plane: sites are positions).
    pub sites: Option<SiteFrame>,
    /// How it ended.
    pub outcome: &'a LanderOutcome,
    /// Final time, s.
    pub final_time: f64,
    /// Final state.
    pub final_state: &'a [f64; STATE_LEN],
    /// Whether it ended on the surface ([`crate::lander::LanderSystem::on_surface`]): a site is
    /// given only then.
    pub on_surface: bool,
    /// Touchdowns.
    pub bounces: usize,
    /// Deepest penetration, m.
    pub max_penetration: f64,
    /// Largest |energy balance error|, J.
    pub max_balance_error: f64,
    /// The largest impact loads.
    pub impacts: ImpactMaxima,
    /// The last aimed hop's landing's distance from its aim, m (NaN without one).
    pub hop_miss: f64,
    /// The Sun's elevation at the first touchdown and at the end, degrees (NaN without the Sun
    /// of `[target.spice]` or a touchdown).
    pub illumination: [f64; 2],
}

/// A lander run's row: status (`settled`, `escaped`, `completed`, `failed`), results in
/// [`LANDER_COLUMNS`] order, note.
pub fn lander_results(end: &LanderEnd) -> Finished {
    let y = end.final_state;
    let x = Vec3::new(y[0], y[1], y[2]);
    let (settle, diagnosis) = match end.outcome {
        LanderOutcome::Settled(t) => (*t, None),
        LanderOutcome::Failed(d) => (f64::NAN, Some(d.to_string())),
        LanderOutcome::Escaped(_) | LanderOutcome::Completed => (f64::NAN, None),
    };
    let status = end.outcome.name();
    let (lat, lon) = match end.sites {
        Some(f) if end.on_surface => f.lat_lon(&x),
        _ => (f64::NAN, f64::NAN),
    };
    let results = vec![
        settle,
        end.final_time,
        x.x,
        x.y,
        x.z,
        lat,
        lon,
        end.bounces as f64,
        end.max_penetration,
        end.max_balance_error,
        end.impacts.normal_speed,
        end.impacts.tangential_speed,
        end.impacts.force,
        end.impacts.energy_lost,
        end.hop_miss,
        end.illumination[0],
        end.illumination[1],
    ];
    Finished::new(status, results, diagnosis)
}

/// The last aimed hop's landing's distance from its aim, m; NaN if no aimed hop landed.
pub fn hop_miss(hops: &[HopRecord]) -> f64 {
    hops.iter().rev().find_map(|h| Some((h.landing? - h.aim?).norm())).unwrap_or(f64::NAN)
}

/// Builds a lander run of `sc` on the campaign's shared target, if it has one.
pub fn lander_model(shared: Option<&Target>, sc: &Scenario) -> Result<LanderModel, String> {
    match shared {
        Some(t) => LanderModel::build_with(sc, t),
        None => LanderModel::build(sc),
    }
    .map_err(|e| e.to_string())
}

/// Lander runs (`kind = "lander"`).
pub struct LanderRuns {
    /// The target every run shares, built once, when no dispersion touches `target.*` or
    /// `gravity.*`; `None` when each run builds its own.
    pub shared: Option<Target>,
}

impl LanderRuns {
    /// The runs of `sc`; `own_target` when a dispersion changes the target or its gravity.
    pub fn new(sc: &Scenario, own_target: bool) -> Result<Self, String> {
        let shared = if own_target { None } else { Some(build_target(sc).map_err(|e| e.to_string())?) };
        Ok(Self { shared })
    }
}

impl CampaignKind for LanderRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["settled", "escaped", "completed"]
    }

    fn columns(&self) -> Vec<String> {
        LANDER_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        lander_model(self.shared.as_ref(), sc).map(|_| ())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let mut model = lander_model(self.shared.as_ref(), sc)?;
        let run = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
        if let Some(dir) = dir {
            write_lander_run(dir, &model, &run)?;
        }
        Ok(lander_results(&LanderEnd {
            sites: model.sites,
            outcome: &run.outcome,
            final_time: run.final_time,
            final_state: &run.final_state,
            on_surface: model.system.on_surface(&run.final_state),
            bounces: run.bounces(),
            max_penetration: run.max_penetration,
            max_balance_error: run.max_balance_error,
            impacts: ImpactMaxima::of(&run.impacts),
            hop_miss: hop_miss(&run.hops),
            illumination: super::ephemeris::illumination(&model, &run),
        }))
    }

    fn report(&self, c: &Campaign, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
        lander_report(self, c, self.shared.as_ref(), rows, plots)
    }

    fn headline(&self, rows: &[RunRow]) -> String {
        let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
        let mut settle: Vec<f64> = rows.iter().filter_map(|r| r.get(self, "settle_time [s]")).collect();
        settle.sort_by(f64::total_cmp);
        format!(
            "{} settled, {} escaped, {} failed; median settling time {} s",
            count("settled"),
            count("escaped"),
            count("failed"),
            quantile(&settle, 0.5).map_or("-".into(), |t| format!("{t:.1}"))
        )
    }
}

/// Landing sites on a map of the body (or on the plane), settling-time histogram and
/// cumulative distribution; `shared`: the target every run shares, when no dispersion touches
/// it.
fn lander_report(
    k: &LanderRuns,
    c: &Campaign,
    shared: Option<&Target>,
    rows: &[RunRow],
    plots: &Path,
) -> Result<Value, String> {
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let mut settle: Vec<f64> = rows.iter().filter_map(|r| r.get(k, "settle_time [s]")).collect();
    settle.sort_by(f64::total_cmp);
    let site = |r: &RunRow| r.get(k, "latitude [deg]").zip(r.get(k, "longitude [deg]"));
    let sites: Vec<(f64, f64)> = rows.iter().filter(|r| r.status == "settled").filter_map(site).collect();
    // Longitudes continued about their circular mean, so a cluster across ±180° stays together.
    let (sx, sy) = sites.iter().fold((0.0, 0.0), |(a, b), s| (a + s.1.to_radians().cos(), b + s.1.to_radians().sin()));
    let centre = sy.atan2(sx).to_degrees();
    let sites: Vec<(f64, f64)> =
        sites.iter().map(|&(lat, lon)| (lat, centre + (lon - centre + 540.0).rem_euclid(360.0) - 180.0)).collect();
    // The nominal target (each run's own when a dispersion touches it): a body has a size.
    let nominal = match shared {
        Some(t) => Some(t.clone()),
        None => build_target(&c.scenario).ok(),
    };
    let body = nominal.as_ref().is_some_and(|t| t.size.is_some()) || rows.iter().any(|r| site(r).is_some());
    let planar: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.status == "settled")
        .filter_map(|r| r.get(k, "x [m]").zip(r.get(k, "y [m]")))
        .collect();
    let stats = |v: &[f64]| mean_sd(v).map(|(m, s)| json!({ "mean": m, "sd": s }));
    // Each run's largest impact loads (runs that touched down), sorted.
    let impact = |column: &str| {
        let mut v: Vec<f64> = rows.iter().filter_map(|r| r.get(k, column)).filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let spread = |v: &[f64]| {
        (!v.is_empty()).then(|| json!({ "median": quantile(v, 0.5), "p90": quantile(v, 0.9), "max": v.last() }))
    };
    let summary = json!({
        "settled": count("settled"),
        "escaped": count("escaped"),
        "completed_unsettled": count("completed"),
        "settle_time_s": {
            "mean": mean_sd(&settle).map(|m| m.0),
            "median": quantile(&settle, 0.5),
            "p90": quantile(&settle, 0.9),
            "max": settle.last(),
        },
        "landing_latitude_deg": stats(&sites.iter().map(|s| s.0).collect::<Vec<_>>()),
        "landing_longitude_deg": stats(&sites.iter().map(|s| s.1).collect::<Vec<_>>()),
        "landing_x_m": stats(&planar.iter().map(|s| s.0).collect::<Vec<_>>()),
        "landing_y_m": stats(&planar.iter().map(|s| s.1).collect::<Vec<_>>()),
        "max_balance_error_J": rows.iter().filter_map(|r| r.get(k, "balance_error [J]")).fold(0.0, f64::max),
        "max_impact_speed_m_s": spread(&impact("max_impact_speed [m/s]")),
        "max_impact_force_N": spread(&impact("max_impact_force [N]")),
        "max_impact_energy_lost_J": spread(&impact("max_impact_energy_lost [J]")),
    });
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| r.get(k, "max_impact_speed [m/s]").zip(r.get(k, "max_impact_force [N]")))
        .filter(|(v, f)| v.is_finite() && f.is_finite())
        .collect();
    impact_plots(&pairs, plots)?;
    if let (Some(e), Some(dir)) = (nominal.as_ref().and_then(|t| t.ephemeris.as_deref()), plots.parent()) {
        let path = dir.join(LANDING_SITES);
        output::write(&path, landing_sites(k, e, rows))
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    if body {
        // The sites on the whole body, its radius as the map's colour, centred on the sites'
        // mean longitude.
        let west = centre.rem_euclid(360.0) - 180.0;
        let frame = |t: &Target| c.scenario.file.target.as_ref().and_then(|spec| target_frame(spec, t).ok());
        let map = nominal.and_then(|t| frame(&t).and_then(|f| t.radius_map(&f.sites, MAP_ROWS, 2 * MAP_ROWS, west)));
        if let Some(values) = map {
            let field = LatLonField { label: "surface radius [m]", west, values: &values };
            let raw: Vec<(f64, f64)> =
                rows.iter().filter(|r| r.status == "settled").filter_map(site).map(|(la, lo)| (lo, la)).collect();
            map_plot(&plots.join("landing_map"), "Landing sites on the body", &field, &raw)?;
        }
        scatter_plot(
            &plots.join("landing_sites"),
            "Landing sites",
            "longitude [deg] (continued about the mean)",
            "latitude [deg]",
            &sites.iter().map(|s| (s.1, s.0)).collect::<Vec<_>>(),
        )?;
    } else {
        scatter_plot(&plots.join("landing_sites"), "Landing sites (target frame)", "x [m]", "y [m]", &planar)?;
    }
    if !settle.is_empty() {
        histogram_plot(
            &plots.join("settle_time_histogram"),
            "Settling time",
            "settling time [s]",
            &settle,
            (settle.len() as f64).sqrt().ceil() as usize,
        )?;
        let n = rows.len() as f64;
        let frac: Vec<f64> = (1..=settle.len()).map(|k| k as f64 / n).collect();
        line_plot(
            &plots.join("settle_time_cdf"),
            "Fraction of runs settled by a time",
            "time [s]",
            "fraction of all runs",
            &[Series { label: String::new(), x: &settle, y: frac }],
            false,
        )?;
    }
    Ok(summary)
}

/// The campaign's table of landing sites with their epochs, written beside `runs.csv` when the
/// target has an epoch from `[target.spice]`.
pub const LANDING_SITES: &str = "landing_sites.csv";

/// [`LANDING_SITES`]: one row per settled run: its index, the epoch it came to rest (TDB
/// calendar and ET, s past J2000), the site (latitude, longitude, body-fixed position) and
/// the Sun's elevation there at rest.
fn landing_sites(k: &LanderRuns, e: &Ephemeris, rows: &[RunRow]) -> String {
    let mut out = String::from(
        "run,epoch [TDB],et [s],latitude [deg],longitude [deg],x [m],y [m],z [m],sun_elevation_end [deg]\n",
    );
    let field = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    for r in rows.iter().filter(|r| r.status == "settled") {
        let Some(t) = r.get(k, "settle_time [s]") else { continue };
        let et = e.et + t;
        let cells = ["latitude [deg]", "longitude [deg]", "x [m]", "y [m]", "z [m]", "sun_elevation_end [deg]"]
            .map(|c| field(r.get(k, c)));
        out += &format!("{},{},{et},{}\n", r.index, calendar(et), cells.join(","));
    }
    out
}

/// Each run's largest impact force against its largest impact speed (`pairs`, runs that
/// touched down), and the forces' histogram.
fn impact_plots(pairs: &[(f64, f64)], plots: &Path) -> Result<(), String> {
    if pairs.is_empty() {
        return Ok(());
    }
    scatter_plot(
        &plots.join("impact_loads"),
        "Largest impact of each run",
        "largest closing speed [m/s]",
        "largest peak normal force [N]",
        pairs,
    )?;
    let force: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    histogram_plot(
        &plots.join("impact_force_histogram"),
        "Largest impact force of each run",
        "peak normal force [N]",
        &force,
        (force.len() as f64).sqrt().ceil() as usize,
    )
}
