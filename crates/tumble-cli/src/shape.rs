//! `tumble mesh …` and `tumble gravity`.

use crate::{Failure, MeshCommand, SdfCommand, output};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use tumble_dynamics::Polyhedron;
use tumble_geometry::bodies::{BodyKind, body_grid};
use tumble_geometry::mesh::{Repair, read_mesh, write_obj, write_stl};
use tumble_geometry::sdf::{GridSdf, Sdf};
use tumble_geometry::{LengthUnit, TriMesh};
use tumble_sim::tools::{read_points_csv, write_gravity_csv};

fn load(file: &Path, unit: &str) -> Result<(TriMesh, LengthUnit), String> {
    let unit: LengthUnit = unit.parse().map_err(|e| format!("--unit: {e}"))?;
    Ok((read_mesh(file, unit).map_err(|e| e.to_string())?, unit))
}

pub fn run(cmd: MeshCommand) -> Result<(), Failure> {
    match cmd {
        MeshCommand::Info { file, unit, density, json } => Ok(info(&file, &unit, density, json)?),
        MeshCommand::Repair { file, unit, out, weld } => {
            if !(weld.is_finite() && weld >= 0.0) {
                return Err(format!("--weld must be >= 0 (m), got {weld}").into());
            }
            let (mesh, unit) = load(&file, &unit)?;
            let fixed = mesh.repaired(Repair { weld_tolerance: weld });
            match out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
                Some("stl") => write_stl(&out, &fixed, unit, false),
                _ => write_obj(&out, &fixed, unit),
            }
            .map_err(output)?;
            let r = fixed.report();
            say!(
                "{}: {} vertices, {} faces → {}: {} vertices, {} faces; closed {}, oriented {}, outward {}",
                file.display(),
                mesh.vertices.len(),
                mesh.faces.len(),
                out.display(),
                r.vertices,
                r.faces,
                r.closed,
                r.oriented,
                r.outward
            );
            Ok(())
        }
    }
}

fn info(file: &Path, unit: &str, density: Option<f64>, json: bool) -> Result<(), String> {
    let (mesh, _) = load(file, unit)?;
    let r = mesh.report();
    let mass = match density {
        Some(d) if !(d.is_finite() && d > 0.0) => return Err(format!("--density must be positive (kg/m³), got {d}")),
        Some(d) => Some(mesh.mass_properties(d)),
        None => None,
    };
    if json {
        let mut v = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        if let Some(mp) = mass {
            let (moments, axes) = mp.principal();
            v["mass_properties"] = serde_json::json!({
                "density_kg_per_m3": density,
                "volume_m3": r.signed_volume,
                "mass_kg": mp.mass,
                "center_of_mass_m": mp.com.as_slice(),
                "inertia_about_com_kg_m2": [mp.inertia.row(0).iter().collect::<Vec<_>>(), mp.inertia.row(1).iter().collect::<Vec<_>>(), mp.inertia.row(2).iter().collect::<Vec<_>>()],
                "principal_moments_kg_m2": moments,
                "principal_axes_columns": [axes.column(0).as_slice(), axes.column(1).as_slice(), axes.column(2).as_slice()],
            });
        }
        say!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
        return Ok(());
    }
    say!("{}", file.display());
    say!(
        "  vertices {}, faces {}, edges {}, Euler characteristic {}",
        r.vertices,
        r.faces,
        r.edges,
        r.euler_characteristic
    );
    say!("  closed {}, consistently oriented {}, outward {}", r.closed, r.oriented, r.outward);
    say!("  signed volume {:.9e} m³", r.signed_volume);
    let list = |name: &str, n: usize, first: String| {
        if n > 0 {
            say!("  {name}: {n} (first: {first})");
        }
    };
    list("non-finite vertices", r.non_finite_vertices.count, format!("{:?}", r.non_finite_vertices.first));
    list("degenerate faces", r.degenerate_faces.count, format!("{:?}", r.degenerate_faces.first));
    list("unused vertices", r.unused_vertices.count, format!("{:?}", r.unused_vertices.first));
    list("duplicate vertices", r.duplicate_vertices.count, format!("{:?}", r.duplicate_vertices.first));
    list("boundary edges (holes)", r.boundary_edges.count, format!("{:?}", r.boundary_edges.first));
    list("non-manifold edges", r.non_manifold_edges.count, format!("{:?}", r.non_manifold_edges.first));
    list("misoriented edges", r.misoriented_edges.count, format!("{:?}", r.misoriented_edges.first));
    if let Some(mp) = mass {
        let (m, axes) = mp.principal();
        say!("  mass {:.9e} kg, centre of mass [{:.6e}, {:.6e}, {:.6e}] m", mp.mass, mp.com.x, mp.com.y, mp.com.z);
        say!("  principal moments [{:.6e}, {:.6e}, {:.6e}] kg·m²", m[0], m[1], m[2]);
        for k in 0..3 {
            let a = axes.column(k);
            say!("    axis {}: [{:.6}, {:.6}, {:.6}]", k + 1, a.x, a.y, a.z);
        }
        if !r.outward {
            say!(
                "  warning: the mesh is not closed and outward; these mass properties mean nothing (try `tumble mesh repair`)"
            );
        }
    }
    Ok(())
}

pub fn gravity(
    mesh: &Path,
    unit: &str,
    density: f64,
    points: &Path,
    out: &Path,
    threads: Option<usize>,
) -> Result<(), Failure> {
    let (m, _) = load(mesh, unit)?;
    let poly = Polyhedron::new(&m, density).map_err(|e| format!("{}: {e}", mesh.display()))?;
    let pts = read_points_csv(points)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = tumble_sim::thread_pool(threads.unwrap_or(cores)).map_err(|e| format!("--threads: {e}"))?;
    let start = Instant::now();
    let samples = pool.install(|| poly.sample_all(&pts));
    let secs = start.elapsed().as_secs_f64();
    write_gravity_csv(out, &pts, &samples).map_err(Failure::Output)?;
    tell!(
        "{} points on {} faces in {:.3} s ({:.1} points/s, {} threads) → {}",
        pts.len(),
        m.faces.len(),
        secs,
        pts.len() as f64 / secs,
        pool.current_num_threads(),
        out.display()
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn build_body(
    kind: BodyKind,
    size: f64,
    seed: u64,
    terrain: bool,
    resolution: usize,
    padding: Option<f64>,
    out: &Path,
    mesh_out: Option<&Path>,
) -> Result<(), Failure> {
    let start = Instant::now();
    let pad = padding.unwrap_or(0.05 * size);
    // The grid must lie within MAX_COORDINATE, as every shape's vertices (--size 1e200 built an
    // empty mesh).
    let bound = tumble_geometry::mesh::MAX_COORDINATE;
    if !(size > 0.0 && size <= bound && (0.0..=bound).contains(&pad)) {
        return Err(format!(
            "--size must be in (0, {bound:e}] m and --padding in [0, {bound:e}] m, got {size} and {pad}"
        )
        .into());
    }
    let grid = body_grid(kind, size, seed, terrain, resolution, pad).map_err(|e| format!("--body {kind:?}: {e}"))?;
    grid.save(out).map_err(output)?;
    if let Some(path) = mesh_out {
        let mesh = tumble_geometry::sdf::mesh_from_grid(&grid);
        write_obj(path, &mesh, LengthUnit::M).map_err(output)?;
        tell!(
            "mesh: {} vertices, {} faces, volume {:.6e} m³ → {}",
            mesh.vertices.len(),
            mesh.faces.len(),
            mesh.volume(),
            path.display()
        );
    }
    report_grid(&format!("{kind:?} of {size} m"), &grid, start, out);
    Ok(())
}

fn report_grid(what: &str, grid: &GridSdf, start: Instant, out: &Path) {
    let [nx, ny, nz] = grid.dims;
    tell!(
        "{what}: {} samples ({nx}×{ny}×{nz}, spacing {:.6e} m) in {:.2} s → {}",
        grid.values.len(),
        grid.spacing,
        start.elapsed().as_secs_f64(),
        out.display()
    );
}

pub fn sdf(cmd: SdfCommand) -> Result<(), Failure> {
    match cmd {
        SdfCommand::Build {
            file,
            unit,
            body,
            size,
            seed,
            no_terrain,
            mesh_out,
            resolution,
            padding,
            out,
            unsigned,
            trilinear,
        } => {
            if !(2..=2048).contains(&resolution) {
                return Err(format!("--resolution must be between 2 and 2048 cells, got {resolution}").into());
            }
            if let Some(name) = body {
                let kind: BodyKind = name.parse().map_err(|e| format!("--body: {e}"))?;
                return build_body(kind, size, seed, !no_terrain, resolution, padding, &out, mesh_out.as_deref());
            }
            let (Some(file), Some(unit)) = (file, unit) else {
                return Err("give a mesh FILE with --unit, or a procedural --body".into());
            };
            let (mesh, _) = load(&file, &unit)?;
            let r = mesh.report();
            if !r.outward && !unsigned {
                return Err(format!(
                    "{}: the mesh is not closed and outward (closed {}, oriented {}, volume {:e} m³), so inside and outside are undefined; run `tumble mesh repair`, or pass --unsigned",
                    file.display(),
                    r.closed,
                    r.oriented,
                    r.signed_volume
                ).into());
            }
            let (lo, hi) = mesh.bounds().ok_or_else(|| format!("{}: no vertices", file.display()))?;
            let pad = padding.unwrap_or(0.05 * (hi - lo).max());
            if !(pad.is_finite() && pad >= 0.0) {
                return Err(format!("--padding must be >= 0 (m), got {pad}").into());
            }
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_message(format!("sampling {} faces at resolution {resolution}", mesh.faces.len()));
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            let start = Instant::now();
            let mut grid =
                GridSdf::from_mesh(&mesh, resolution, pad).map_err(|e| format!("{}: {e}", file.display()))?;
            if unsigned {
                // An open mesh has no inside: the exact near-surface answers would carry a
                // meaningless sign, so an unsigned grid interpolates |d| everywhere.
                grid.values.iter_mut().for_each(|v| *v = v.abs());
            }
            if unsigned || trilinear {
                grid.refinement = None;
            }
            bar.finish_and_clear();
            grid.save(&out).map_err(output)?;
            report_grid(&file.display().to_string(), &grid, start, &out);
            Ok(())
        }
        SdfCommand::Query { file, points, out } => {
            let grid = GridSdf::load(&file).map_err(|e| e.to_string())?;
            let pts = read_points_csv(&points)?;
            let io = |e: std::io::Error| Failure::Output(format!("{}: {e}", out.display()));
            tumble_math::output::write_with(&out, |w| {
                writeln!(w, "x,y,z,distance,nx,ny,nz")?;
                for p in &pts {
                    let (d, g) = grid.eval(p);
                    let g = g.try_normalize(0.0).unwrap_or(g);
                    writeln!(w, "{},{},{},{},{},{},{}", p.x, p.y, p.z, d, g.x, g.y, g.z)?;
                }
                Ok(())
            })
            .map_err(io)
        }
    }
}
