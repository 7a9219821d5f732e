//! `tumble-fmu SCENARIO [--out FILE.fmu] [--library PATH]`: packs a mechanism scenario into an
//! FMI 3.0 co-simulation FMU (default `out/NAME.fmu`) with the shared library built beside
//! this program (`cargo run --release -p tumble-fmu -- SCENARIO` builds both).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: tumble-fmu SCENARIO [--out FILE.fmu] [--library PATH]";

fn library_beside_exe() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program's folder: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let name = format!("{}tumble_fmu{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    Ok(dir.join(name))
}

fn run(args: &[String]) -> Result<String, String> {
    let (mut scenario, mut out, mut library) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--library" => library = Some(PathBuf::from(value("--library")?)),
            "-h" | "--help" => return Ok(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s if scenario.is_none() => scenario = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s}\n{USAGE}")),
        }
    }
    let scenario = scenario.ok_or_else(|| USAGE.to_string())?;
    let library = match library {
        Some(l) => l,
        None => library_beside_exe()?,
    };
    let out = out.unwrap_or_else(|| {
        let stem = scenario.file_stem().map_or("mechanism".into(), |s| s.to_string_lossy().into_owned());
        Path::new("out").join(format!("{stem}.fmu"))
    });
    let n = tumble_fmu::pack(&scenario, &library, &out)?;
    Ok(format!("{}: FMI 3.0 co-simulation FMU with {n} variables", out.display()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(m) => {
            println!("{m}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
