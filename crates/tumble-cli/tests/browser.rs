//! The browser viewer in a real browser: `tumble view` on a bundled run, loaded in headless
//! Chromium at two instants. The canvas must draw the scene (not a blank background), scrubbing
//! must change the frame, and the page must log no console error. The screenshot is kept as a
//! test artefact (`$CARGO_TARGET_TMPDIR/viewer.png`).
//!
//! Needs `chromium` and the viewer bundle built into the binary (`.ci/run` installs and builds
//! both); without them the test says so and passes, so that a machine without a browser can
//! still run the rest.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn tumble() -> &'static str {
    env!("CARGO_BIN_EXE_tumble")
}

/// RGB pixels of a PNG file: (width, height, bytes).
fn pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()].chunks(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();
    (info.width, info.height, rgb)
}

/// Loads the page at time `t` and returns the screenshot's pixels and the browser's log.
fn shoot(url: &str, out: &Path) -> (Vec<u8>, String) {
    let o = Command::new("chromium")
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--window-size=1000,700",
            "--virtual-time-budget=5000",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--screenshot={}", out.display()))
        .arg(url)
        .output()
        .expect("chromium runs");
    let (w, h, rgb) = pixels(out);
    assert_eq!((w, h), (1000, 700));
    (rgb, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn the_viewer_renders_scrubs_and_logs_no_error_in_chromium() {
    let has_chromium = Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer_run");
    let run = Command::new(tumble())
        .args(["run", "../../scenarios/contact/drawer.toml", "--quiet", "--out"])
        .arg(&dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("tumble run");
    assert!(run.success());
    let server = common::start(&dir);
    let base = format!("http://{}/", server.1);
    let page = common::request(&server.1, &format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", server.1)).1;
    let bundled = page.contains("<canvas");
    if !(has_chromium && bundled) {
        eprintln!(
            "skipped: {}",
            if has_chromium {
                "the viewer bundle is not built into tumble (npm ci && npm run build in viewer/)"
            } else {
                "no chromium"
            }
        );
        return;
    }
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (a, log_a) = shoot(&format!("{base}?t=0.2"), &shots.join("viewer_t0.png"));
    let (b, log_b) = shoot(&format!("{base}?t=2.8"), &shots.join("viewer.png"));
    drop(server);
    // The 3D view (above the controls and the plot) draws more than its background colour.
    let scene = |rgb: &[u8]| -> Vec<u8> { rgb[..1000 * 480 * 3].to_vec() };
    let background = [0x15u8, 0x17, 0x1c];
    let drawn = scene(&a).chunks(3).filter(|p| p.iter().zip(&background).any(|(x, y)| x.abs_diff(*y) > 8)).count();
    assert!(drawn > 1000 * 480 / 50, "only {drawn} pixels differ from the background");
    // Scrubbing moved the pallet: the frames differ.
    let changed = scene(&a).chunks(3).zip(scene(&b).chunks(3)).filter(|(p, q)| p != q).count();
    assert!(changed > 50, "scrubbing changed {changed} pixels");
    // No console error (GPU driver performance notes are INFO).
    for log in [log_a, log_b] {
        let errors: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("CONSOLE") && (l.contains(":ERROR:") || l.contains("Uncaught")))
            .collect();
        assert!(errors.is_empty(), "console errors: {errors:?}");
        assert!(!log.contains("Uncaught"), "uncaught exception in the page");
    }
}
