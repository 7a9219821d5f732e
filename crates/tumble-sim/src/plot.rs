//! Line plots of recorded channels, written as SVG and PNG.
//!
//! Text is drawn with the embedded DejaVu Sans font (no system font libraries needed).

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// One curve: legend label, x values, y values.
pub struct Series<'a> {
    /// Legend label.
    pub label: String,
    /// Abscissae.
    pub x: &'a [f64],
    /// Ordinates.
    pub y: Vec<f64>,
}

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        // Registration only fails for an unparsable font; the embedded one parses.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Ten distinguishable colours (matplotlib's tab10 order): a plot's series take them in turn.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
];

/// Picture size, pixels.
const SIZE: (u32, u32) = (900, 560);

/// Draws one figure twice, as `stem.svg` and `stem.png`, with `draw(area, args…)`.
macro_rules! svg_and_png {
    ($stem:expr, $draw:ident($($arg:expr),*)) => {
        svg_and_png!($stem, SIZE, $draw($($arg),*))
    };
    ($stem:expr, $size:expr, $draw:ident($($arg:expr),*)) => {{
        register_font();
        let svg = $stem.with_extension("svg");
        let png = $stem.with_extension("png");
        $draw(SVGBackend::new(&svg, $size).into_drawing_area(), $($arg),*)
            .map_err(|e| format!("{}: {e}", svg.display()))?;
        $draw(BitMapBackend::new(&png, $size).into_drawing_area(), $($arg),*)
            .map_err(|e| format!("{}: {e}", png.display()))
    }};
}

/// Writes `stem.svg` and `stem.png` with the given curves. `equal_axes` keeps one unit the same
/// length on both axes (trajectories).
pub fn line_plot(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    equal_axes: bool,
) -> Result<(), String> {
    shaded_plot(stem, title, x_label, y_label, series, equal_axes, &[])
}

/// [`line_plot`] with the x intervals `shade` (e.g. contact phases) shaded.
pub fn shaded_plot(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    equal_axes: bool,
    shade: &[(f64, f64)],
) -> Result<(), String> {
    svg_and_png!(stem, draw((title, x_label, y_label), series, equal_axes, shade))
}

/// One panel of a [`panels_plot`]: its y-axis label (with the unit) and its curves.
pub struct Panel<'a> {
    /// The y-axis label, with the unit.
    pub y_label: String,
    /// The curves.
    pub series: Vec<Series<'a>>,
}

/// Writes `stem.svg` and `stem.png` with the panels stacked over one time axis, each with its own
/// y axis and unit (quantities of different units never share an axis), the x intervals
/// `shade` shaded in each.
pub fn panels_plot(
    stem: &Path,
    title: &str,
    x_label: &str,
    panels: &[Panel],
    shade: &[(f64, f64)],
) -> Result<(), String> {
    // 300 pixels a panel.
    let size = (SIZE.0, 40 + 300 * panels.len().max(1) as u32);
    svg_and_png!(stem, size, draw_panels(title, x_label, panels, shade))
}

fn draw_panels<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    panels: &[Panel],
    shade: &[(f64, f64)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let x = range(panels.iter().flat_map(|p| p.series.iter().flat_map(|s| s.x.iter().copied())));
    for (i, (area, p)) in root.split_evenly((panels.len().max(1), 1)).iter().zip(panels).enumerate() {
        let t = if i == 0 { title } else { "" };
        chart_on(area, (t, x_label, &p.y_label), &p.series, Some(x), false, shade)?;
    }
    root.present()?;
    Ok(())
}

/// Tick label: fixed notation for ordinary magnitudes, scientific for very small or large, with
/// the digits that tell ticks about `span/8` apart from one another (a small change on a large
/// value keeps its distinct labels); rounding residue below 1e-9 of the axis span reads 0.
fn tick(v: f64, span: f64) -> String {
    let v = if v.abs() < 1e-9 * span { 0.0 } else { v };
    let (a, step) = (v.abs(), span / 8.0);
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        let digits = if step > 0.0 { (a / step).log10().ceil().clamp(2.0, 12.0) as usize } else { 3 };
        format!("{v:.*e}", digits - 1)
    } else {
        let decimals = if step > 0.0 { (-step.log10()).ceil().clamp(0.0, 12.0) as usize } else { 4 };
        trim(format!("{v:.*}", decimals.max(1)))
    }
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (-1.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(1e-12 * lo.abs().max(hi.abs())).max(1e-300);
    (lo - pad, hi + pad)
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The legend of the chart's labelled series.
fn legend<'a, DB: DrawingBackend + 'a>(chart: &mut Chart<'a, DB>) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()?;
    Ok(())
}

/// A titled chart with labelled axes over `x0..x1` × `y0..y1`.
fn axes<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    (title, x_label, y_label): (&str, &str, &str),
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<Chart<'a, DB>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .x_label_formatter(&|v| tick(*v, x1 - x0))
        .y_label_formatter(&|v| tick(*v, y1 - y0))
        .draw()?;
    Ok(chart)
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    labels: (&str, &str, &str),
    series: &[Series],
    equal_axes: bool,
    shade: &[(f64, f64)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    chart_on(&root, labels, series, None, equal_axes, shade)?;
    root.present()?;
    Ok(())
}

/// One chart of `series` on `root` (over the x range `x` when given), each series its own colour.
fn chart_on<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    (title, x_label, y_label): (&str, &str, &str),
    series: &[Series],
    x: Option<(f64, f64)>,
    equal_axes: bool,
    shade: &[(f64, f64)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let (mut x0, mut x1) = x.unwrap_or_else(|| range(series.iter().flat_map(|s| s.x.iter().copied())));
    let (mut y0, mut y1) = range(series.iter().flat_map(|s| s.y.iter().copied()));
    if equal_axes {
        let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
        let half = 0.5 * (x1 - x0).max(y1 - y0);
        // The plot area is about 1.6 times wider than tall.
        (x0, x1, y0, y1) = (cx - 1.6 * half, cx + 1.6 * half, cy - half, cy + half);
    }
    let mut chart = axes(root, (title, x_label, y_label), (x0, x1), (y0, y1))?;
    // Shaded spans clipped to the axes: one starting past them (a capture at 1e300 s, "never")
    // would overflow the backend's pixel arithmetic.
    let clipped = shade.iter().map(|&(a, b)| (a.clamp(x0, x1), b.clamp(x0, x1))).filter(|(a, b)| a < b);
    chart.draw_series(clipped.map(|(a, b)| Rectangle::new([(a, y0), (b, y1)], COLORS[0].mix(0.15).filled())))?;
    // Plot units per data unit (the plot area is about the area less the label areas).
    let (w, h) = root.dim_in_pixel();
    let scale = ((w as f64 - 120.0).max(1.0) / (x1 - x0), (h as f64 - 100.0).max(1.0) / (y1 - y0));
    for (i, s) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let points = s.x.iter().copied().zip(s.y.iter().copied()).filter(|(a, b)| a.is_finite() && b.is_finite());
        let runs = runs(points, scale);
        for (k, run) in runs.iter().enumerate() {
            let drawn = chart.draw_series(LineSeries::new(run.iter().copied(), c.stroke_width(2)))?;
            if k == 0 {
                drawn
                    .label(s.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
            }
        }
    }
    if series.len() > 1 || series.first().is_some_and(|s| !s.label.is_empty()) {
        legend(&mut chart)?;
    }
    Ok(())
}

/// A polyline cut where it turns back by more than 120° in plot proportions (`scale`: plot units
/// per data unit along x and y): a thick stroke joined at such a turn is mitred into a spike far
/// past the data (a force pulse would seem to go negative). At least one run, maybe empty.
fn runs(points: impl Iterator<Item = (f64, f64)>, scale: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    let mut dir: Option<(f64, f64)> = None;
    for p in points {
        let run = out.last_mut().expect("a run");
        if let Some(&q) = run.last() {
            let d = ((p.0 - q.0) * scale.0, (p.1 - q.1) * scale.1);
            if d == (0.0, 0.0) {
                continue;
            }
            if let Some(e) = dir
                && d.0 * e.0 + d.1 * e.1 < -0.5 * d.0.hypot(d.1) * e.0.hypot(e.1)
            {
                out.push(vec![q]);
            }
            dir = Some(d);
        }
        out.last_mut().expect("a run").push(p);
    }
    out
}

/// Writes `stem.svg` and `stem.png` with points (a scatter plot), e.g. landing sites.
pub fn scatter_plot(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    points: &[(f64, f64)],
) -> Result<(), String> {
    svg_and_png!(stem, draw_points((title, x_label, y_label), &[("", points)], &[]))
}

/// [`scatter_plot`] of labelled groups of points, each in its own colour, with a legend.
pub fn scatter_groups(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    groups: &[(&str, &[(f64, f64)])],
) -> Result<(), String> {
    svg_and_png!(stem, draw_points((title, x_label, y_label), groups, &[]))
}

/// [`scatter_plot`] with a curve drawn over the points (e.g. a fitted law over its data).
pub fn scatter_and_curve(
    stem: &Path,
    (title, x_label, y_label): (&str, &str, &str),
    points: &[(f64, f64)],
    curve: &[(f64, f64)],
) -> Result<(), String> {
    svg_and_png!(stem, draw_points((title, x_label, y_label), &[("", points)], curve))
}

fn draw_points<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    (title, x_label, y_label): (&str, &str, &str),
    groups: &[(&str, &[(f64, f64)])],
    curve: &[(f64, f64)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let all = || groups.iter().flat_map(|g| g.1.iter()).chain(curve);
    let (x0, x1) = range(all().map(|p| p.0));
    let (y0, y1) = range(all().map(|p| p.1));
    let mut chart = axes(&root, (title, x_label, y_label), (x0, x1), (y0, y1))?;
    for (i, (label, points)) in groups.iter().enumerate() {
        // Groups: green, red, then the rest (a good and a bad outcome read at a glance).
        let c = if groups.len() > 1 { COLORS[[2, 1, 3, 4, 5, 0][i % 6]] } else { COLORS[0] };
        let drawn = chart.draw_series(
            points
                .iter()
                .filter(|(a, b)| a.is_finite() && b.is_finite())
                .map(move |&p| Circle::new(p, 4, c.mix(0.7).filled())),
        )?;
        if !label.is_empty() {
            drawn.label(label.to_string()).legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
        }
    }
    chart.draw_series(LineSeries::new(
        curve.iter().copied().filter(|(a, b)| a.is_finite() && b.is_finite()),
        COLORS[1].stroke_width(2),
    ))?;
    if groups.iter().any(|g| !g.0.is_empty()) {
        legend(&mut chart)?;
    }
    root.present()?;
    Ok(())
}

/// A field over the sphere: `values[i][j]` for latitude band `i` (south to north, `180/rows`
/// degrees each) and longitude band `j` (from `west` eastwards, `360/cols` degrees each); NaN
/// where it has no value.
pub struct LatLonField<'a> {
    /// What the colours show, with its unit (the colour bar's label).
    pub label: &'a str,
    /// The map's western edge, degrees.
    pub west: f64,
    /// The values, rows south to north.
    pub values: &'a [Vec<f64>],
}

/// Writes `stem.svg` and `stem.png`: a latitude/longitude map (equirectangular, whole sphere,
/// from the field's western edge) with `field` in colour (viridis, with its colour bar) and
/// `points` `(longitude, latitude)` (degrees, any turn) over it.
pub fn map_plot(stem: &Path, title: &str, field: &LatLonField, points: &[(f64, f64)]) -> Result<(), String> {
    svg_and_png!(stem, draw_map(title, field, points))
}

fn draw_map<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    field: &LatLonField,
    points: &[(f64, f64)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    use plotters::style::colors::colormaps::{ColorMap, ViridisRGB};
    root.fill(&WHITE)?;
    let (map, bar) = root.split_horizontally(SIZE.0 - 130);
    let (lo, hi) = range(field.values.iter().flatten().copied());
    let mut chart = ChartBuilder::on(&map)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(field.west..field.west + 360.0, -90.0..90.0)?;
    let rows = field.values.len();
    for (i, row) in field.values.iter().enumerate() {
        let (la0, la1) = (-90.0 + 180.0 * i as f64 / rows as f64, -90.0 + 180.0 * (i + 1) as f64 / rows as f64);
        let cols = row.len();
        chart.draw_series(row.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(j, &v)| {
            let (lo0, lo1) = (360.0 * j as f64 / cols as f64, 360.0 * (j + 1) as f64 / cols as f64);
            let (lo0, lo1) = (field.west + lo0, field.west + lo1);
            Rectangle::new([(lo0, la0), (lo1, la1)], ViridisRGB.get_color_normalized(v, lo, hi).filled())
        }))?;
    }
    chart
        .configure_mesh()
        .x_desc("longitude [deg]")
        .y_desc("latitude [deg]")
        .x_labels(9)
        .y_labels(7)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(TRANSPARENT)
        .bold_line_style(WHITE.mix(0.3))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    chart.draw_series(
        points
            .iter()
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|&(lon, lat)| (field.west + (lon - field.west).rem_euclid(360.0), lat))
            .flat_map(|p| [Circle::new(p, 4, WHITE.filled()), Circle::new(p, 4, BLACK.stroke_width(1))]),
    )?;
    // The colour bar: the field's range, bottom to top.
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(50)
        .margin_bottom(57)
        .margin_right(12)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    scale
        .configure_mesh()
        .disable_x_mesh()
        .disable_y_mesh()
        .disable_x_axis()
        .y_desc(field.label)
        .y_label_formatter(&|v| tick(*v, hi - lo))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    let n = 64;
    scale.draw_series((0..n).map(|k| {
        let (a, b) = (lo + (hi - lo) * k as f64 / n as f64, lo + (hi - lo) * (k + 1) as f64 / n as f64);
        Rectangle::new([(0.0, a), (1.0, b)], ViridisRGB.get_color_normalized(0.5 * (a + b), lo, hi).filled())
    }))?;
    root.present()?;
    Ok(())
}

/// Writes `stem.svg` and `stem.png` with a histogram of `values` in `bins` equal bins.
pub fn histogram_plot(stem: &Path, title: &str, x_label: &str, values: &[f64], bins: usize) -> Result<(), String> {
    histogram_with_marks(stem, title, x_label, values, bins, &[])
}

/// [`histogram_plot`] with vertical lines at `marks` (a value and its legend label, e.g. a
/// limit), the axis widened to show them.
pub fn histogram_with_marks(
    stem: &Path,
    title: &str,
    x_label: &str,
    values: &[f64],
    bins: usize,
    marks: &[(f64, &str)],
) -> Result<(), String> {
    svg_and_png!(stem, draw_histogram(title, x_label, values, bins, marks))
}

fn draw_histogram<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    values: &[f64],
    bins: usize,
    marks: &[(f64, &str)],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (x0, x1) = range(values.iter().chain(marks.iter().map(|(m, _)| m)).copied());
    let bins = bins.max(1);
    let w = (x1 - x0) / bins as f64;
    let mut counts = vec![0usize; bins];
    for v in values.iter().filter(|v| v.is_finite()) {
        counts[(((v - x0) / w) as usize).min(bins - 1)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.05;
    let mut chart = axes(&root, (title, x_label, "runs"), (x0, x1), (0.0, top))?;
    chart.draw_series(counts.iter().enumerate().map(|(i, &c)| {
        let a = x0 + i as f64 * w;
        Rectangle::new([(a, 0.0), (a + w, c as f64)], COLORS[0].mix(0.8).filled())
    }))?;
    for (i, &(m, label)) in marks.iter().enumerate().filter(|(_, (m, _))| m.is_finite()) {
        let c = COLORS[(1 + i) % COLORS.len()];
        chart
            .draw_series(LineSeries::new([(m, 0.0), (m, top)], c.stroke_width(3)))?
            .label(label.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3)));
    }
    if !marks.is_empty() {
        legend(&mut chart)?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_tell_neighbouring_ticks_apart() {
        assert_eq!(tick(0.5, 1.0), "0.5");
        assert_eq!(tick(150.0, 400.0), "150");
        assert_eq!(tick(2e-14, 2e-14), "2.0e-14");
        assert_eq!(tick(1e-20, 1.0), "0");
        // A 1e-9 change on −5.68: ticks 1.25e-10 apart keep distinct labels.
        let (a, b) = (tick(-5.6791000010, 1e-9), tick(-5.6791000012, 1e-9));
        assert_ne!(a, b);
        assert_eq!(a, "-5.679100001");
    }

    #[test]
    fn polylines_are_cut_at_reversals_only() {
        // A pulse: up, down (a reversal), flat (a right angle, kept); a repeated point dropped.
        let pts = [(0.0, 0.0), (1.0, 0.0), (1.001, 5.0), (1.002, 0.0), (2.0, 0.0), (2.0, 0.0)];
        let r = runs(pts.iter().copied(), (100.0, 100.0));
        assert_eq!(r, vec![vec![(0.0, 0.0), (1.0, 0.0), (1.001, 5.0)], vec![(1.001, 5.0), (1.002, 0.0), (2.0, 0.0)]]);
        // A smooth curve stays one run; no points, one empty run.
        let sine: Vec<(f64, f64)> = (0..100).map(|k| (k as f64 * 0.1, (k as f64 * 0.1).sin())).collect();
        assert_eq!(runs(sine.iter().copied(), (80.0, 200.0)).len(), 1);
        assert_eq!(runs(std::iter::empty(), (1.0, 1.0)), vec![Vec::<(f64, f64)>::new()]);
    }
}
