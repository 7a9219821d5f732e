//! Shape-model tools behind `tumble mesh` and `tumble gravity`: mesh reports, mass properties,
//! gravity tables from point files.

use std::io::Write;
use std::path::Path;
use tumble_dynamics::gravity::FieldSample;
use tumble_math::Vec3;

/// Reads points from a CSV file with columns `x,y,z` (m). A first line that is not numeric is
/// taken as a header; blank lines and `#` comments are skipped.
pub fn read_points_csv(path: &Path) -> Result<Vec<Vec3>, String> {
    let text = tumble_math::input::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut points = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed: Result<Vec<f64>, _> = fields.iter().map(|f| f.parse::<f64>()).collect();
        match parsed {
            Ok(v) if v.len() == 3 && v.iter().all(|x| x.is_finite()) => points.push(Vec3::new(v[0], v[1], v[2])),
            Err(_) if points.is_empty() && n == 0 => continue, // header
            _ => {
                return Err(format!(
                    "{}:{}: expected three finite numbers `x,y,z` (m), found `{line}`",
                    path.display(),
                    n + 1
                ));
            }
        }
    }
    if points.is_empty() {
        return Err(format!("{}: no points: give lines `x,y,z` in m", path.display()));
    }
    Ok(points)
}

/// Writes `x,y,z,potential,ax,ay,az` rows (SI; `potential` is U in J/kg, negative).
pub fn write_gravity_csv(path: &Path, points: &[Vec3], samples: &[FieldSample]) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    tumble_math::output::write_with(path, |w| {
        writeln!(w, "x,y,z,potential,ax,ay,az")?;
        for (p, s) in points.iter().zip(samples) {
            let a = s.acceleration;
            writeln!(w, "{},{},{},{},{},{},{}", p.x, p.y, p.z, s.potential, a.x, a.y, a.z)?;
        }
        Ok(())
    })
    .map_err(io)
}

/// Writes `stem.svg` and `stem.png`: measured points and a fitted curve.
pub fn fit_plot(
    stem: &Path,
    labels: (&str, &str, &str),
    points: &[(f64, f64)],
    curve: &[(f64, f64)],
) -> Result<(), String> {
    crate::plot::scatter_and_curve(stem, labels, points, curve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_csv_header_comments_and_errors() {
        let dir = std::env::temp_dir().join(format!("tumble_points_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let ok = dir.join("ok.csv");
        std::fs::write(&ok, "x,y,z\n1,2,3\n# comment\n\n4.5, -1e3, 0\n").expect("write");
        assert_eq!(read_points_csv(&ok).expect("ok"), vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.5, -1e3, 0.0)]);
        let bad = dir.join("bad.csv");
        std::fs::write(&bad, "x,y,z\n1,2,3\n1,2\n").expect("write");
        let e = read_points_csv(&bad).expect_err("bad line");
        assert!(e.ends_with("bad.csv:3: expected three finite numbers `x,y,z` (m), found `1,2`"), "{e}");
        std::fs::write(&bad, "1,2,nan\n").expect("write");
        assert!(read_points_csv(&bad).expect_err("nan").contains("bad.csv:1:"));
        std::fs::write(&bad, "").expect("write");
        assert!(read_points_csv(&bad).expect_err("empty").contains("no points"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
