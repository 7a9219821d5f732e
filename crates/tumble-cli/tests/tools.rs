//! The mesh, gravity and signed-distance tools of the `tumble` binary (`tumble shape`, `tumble
//! gravity`, `tumble sdf`): outputs and one-line refusals of bad input.

mod common;
use common::{tmp, tumble};
use std::path::Path;

#[test]
fn mesh_and_gravity_tools_refuse_bad_input_clearly() {
    let d = tmp("tools_bad");
    // An open mesh: a tetrahedron with one face missing.
    let open = d.join("open.obj");
    std::fs::write(&open, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n").expect("write");
    let closed = d.join("tet.obj");
    std::fs::write(&closed, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n").expect("write");
    let pts = d.join("p.csv");
    std::fs::write(&pts, "x,y,z\n2,0,0\n0,3\n").expect("write");
    let good_pts = d.join("good.csv");
    std::fs::write(&good_pts, "x,y,z\n2,0,0\n0,0,3\n").expect("write");
    let out = d.join("g.csv").display().to_string();
    let s = |p: &Path| p.display().to_string();
    for (args, needle) in [
        (vec!["mesh", "info", &s(&closed), "--unit", "furlong"], "unknown length unit `furlong`"),
        (vec!["mesh", "info", &s(&d.join("none.obj")), "--unit", "m"], "none.obj"),
        (vec!["mesh", "info", &s(&d.join("x.xyz")), "--unit", "m"], "unsupported mesh format"),
        (
            vec![
                "gravity",
                "--mesh",
                &s(&open),
                "--unit",
                "m",
                "--density",
                "1",
                "--points",
                &s(&good_pts),
                "--out",
                &out,
            ],
            "not closed: the edge between vertices",
        ),
        (
            vec![
                "gravity",
                "--mesh",
                &s(&closed),
                "--unit",
                "m",
                "--density",
                "1",
                "--points",
                &s(&pts),
                "--out",
                &out,
            ],
            "p.csv:3:",
        ),
        (
            vec![
                "gravity",
                "--mesh",
                &s(&closed),
                "--unit",
                "m",
                "--density",
                "-5",
                "--points",
                &s(&good_pts),
                "--out",
                &out,
            ],
            "density must be positive",
        ),
    ] {
        let o = tumble(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle) && err.trim_end().lines().count() == 1, "{args:?}: {err}");
    }
    // The good case: potential and acceleration of a unit tetrahedron, attracting.
    let o = tumble(&[
        "gravity",
        "--mesh",
        &s(&closed),
        "--unit",
        "m",
        "--density",
        "1000",
        "--points",
        &s(&good_pts),
        "--out",
        &out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let table = std::fs::read_to_string(&out).expect("output");
    let row: Vec<f64> = table.lines().nth(1).expect("row").split(',').map(|t| t.parse().expect("number")).collect();
    assert!(row[3] < 0.0 && row[4] < 0.0, "U < 0 and a toward the body: {row:?}");
    let o = tumble(&["mesh", "info", &s(&open), "--unit", "m", "--json"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("\"closed\": false") && text.contains("\"boundary_edges\""), "{text}");
}

#[test]
fn sdf_build_and_query() {
    let d = tmp("sdf");
    let s = |p: &Path| p.display().to_string();
    let cube = d.join("cube.obj");
    // A 2 m cube, outward faces.
    std::fs::write(
        &cube,
        "v -1 -1 -1\nv 1 -1 -1\nv -1 1 -1\nv 1 1 -1\nv -1 -1 1\nv 1 -1 1\nv -1 1 1\nv 1 1 1\n\
         f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\nf 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n",
    )
    .expect("write");
    let sdf = d.join("cube.sdf");
    let o = tumble(&["sdf", "build", &s(&cube), "--unit", "m", "--resolution", "20", "--out", &s(&sdf)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let pts = d.join("p.csv");
    std::fs::write(&pts, "x,y,z\n0,0,0\n0.5,0.2,0.1\n1.5,0,0\n").expect("write");
    let out = d.join("q.csv");
    let o = tumble(&["sdf", "query", &s(&sdf), "--points", &s(&pts), "--out", &s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Vec<f64>> = std::fs::read_to_string(&out)
        .expect("out")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|t| t.parse().expect("number")).collect())
        .collect();
    // Distances to a cube are piecewise linear, so the grid reproduces them where the
    // interpolation cell does not straddle a crease: centre −1, interior point −0.5, outside +0.5.
    assert!(
        (rows[0][3] + 1.0).abs() < 0.02 && (rows[1][3] + 0.5).abs() < 1e-9 && (rows[2][3] - 0.5).abs() < 1e-9,
        "{rows:?}"
    );
    assert!((rows[2][4] - 1.0).abs() < 1e-9, "outward normal along +x: {rows:?}");
    // An open mesh is refused unless unsigned distances are asked for; a bad file is refused.
    let open = d.join("open.obj");
    std::fs::write(&open, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n").expect("write");
    let o = tumble(&["sdf", "build", &s(&open), "--unit", "m", "--resolution", "8", "--out", &s(&d.join("o.sdf"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--unsigned"));
    let o = tumble(&[
        "sdf",
        "build",
        &s(&open),
        "--unit",
        "m",
        "--resolution",
        "8",
        "--unsigned",
        "--out",
        &s(&d.join("o.sdf")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tumble(&["sdf", "query", &s(&cube), "--points", &s(&pts), "--out", &s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a Tumble SDF file"));
}

#[test]
fn procedural_body_sdf_and_mesh() {
    let d = tmp("body");
    let (sdf, obj) = (d.join("comet.sdf"), d.join("comet.obj"));
    let o = tumble(&[
        "sdf",
        "build",
        "--body",
        "comet",
        "--size",
        "1000",
        "--seed",
        "2",
        "--resolution",
        "40",
        "--out",
        &sdf.display().to_string(),
        "--mesh-out",
        &obj.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tumble(&["mesh", "info", &obj.display().to_string(), "--unit", "m", "--json"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\"outward\": true") && text.contains("\"euler_characteristic\": 2"), "{text}");
    let o = tumble(&["sdf", "build", "--body", "rock", "--resolution", "8", "--out", &sdf.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown procedural body `rock`"));
    // A body of 1e200 m (it wrote an empty mesh): refused as invalid input, 2.
    let out = sdf.display().to_string();
    let o = tumble(&["sdf", "build", "--body", "comet", "--size", "1e200", "--resolution", "8", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--size must be in (0, 1e9] m"));
    // An output that cannot be written is a failure (1), as for `tumble run`, not invalid input.
    let nowhere = d.join("no/such/folder/comet.sdf").display().to_string();
    let o = tumble(&["sdf", "build", "--body", "comet", "--size", "1000", "--resolution", "8", "--out", &nowhere]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `tumble bench --baseline`: a case far slower than its baseline is named and exits 1, one far
/// faster exits 0, a damaged baseline is refused with its line; `--csv` writes a baseline the
/// check reads back.
#[test]
fn the_bench_regression_check_names_what_moved() {
    let d = tmp("bench_baseline");
    let s = |p: &Path| p.display().to_string();
    let csv = d.join("now.csv");
    let o = tumble(&["bench", "--only", "rk4_free_body", "--scale", "0.01", "--csv", &s(&csv)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).expect("written");
    assert!(text.starts_with("# machine: ") && text.contains("rk4_free_body,1,10000,"), "{text}");
    assert!(text.contains("\n# probe: latency,") && text.contains("\n# probe: throughput,"), "{text}");
    // The same table with its time divided (a baseline 1000× faster) or multiplied; without
    // its probes (a table from before them), so that the verdict does not hang on this
    // machine's load between two runs (the probes' own test is in `compare`).
    let scaled = |factor: f64| {
        let mut out = String::new();
        for line in text.lines().filter(|l| !l.starts_with("# probe:")) {
            let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
            if cells[0] == "rk4_free_body" {
                cells[3] = (cells[3].parse::<f64>().expect("seconds") * factor).to_string();
            }
            out += &(cells.join(",") + "\n");
        }
        out
    };
    let (fast, slow) = (d.join("fast.csv"), d.join("slow.csv"));
    std::fs::write(&fast, scaled(1e-3)).expect("write");
    std::fs::write(&slow, scaled(1e3)).expect("write");
    let o = tumble(&["bench", "--only", "rk4_free_body", "--scale", "0.01", "--baseline", &s(&fast)]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("SLOWER") && err.contains("slower than the baseline beyond noise: rk4_free_body"),
        "{out}{err}"
    );
    let o = tumble(&["bench", "--only", "rk4_free_body", "--scale", "0.01", "--baseline", &s(&slow)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("0 slower, 1 faster"), "{out}");
    std::fs::write(&slow, text.replace(",1,10000,", ",1,ten,")).expect("write");
    let o = tumble(&["bench", "--only", "rk4_free_body", "--baseline", &s(&slow)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("slow.csv:5: `ten` is not a number"), "{err}");
    // The table from a machine whose latency probe read 1.3× faster than this one's: another
    // machine, so no verdict, and the command says why it gives none.
    let other: String = text
        .lines()
        .map(|l| match l.strip_prefix("# probe: latency,") {
            Some(ns) => format!("# probe: latency,{}\n", ns.parse::<f64>().expect("ns") / 1.3),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&slow, other).expect("write");
    let o = tumble(&["bench", "--only", "rk4_free_body", "--scale", "0.01", "--baseline", &s(&slow)]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(out.contains("ANOTHER MACHINE: its probes take latency 1.") && out.contains("(another machine)"), "{out}");
    assert!(err.contains("measured on another machine") && err.contains("tumble bench --csv"), "{err}");
}
