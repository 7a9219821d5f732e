//! Reading input files with bounds: the one place every Tumble reader (scenarios, meshes, SDF
//! files, URDFs, glTF models and their buffers, LQR JSON, fit CSV) gets its bytes from.
//!
//! An input must be a regular file (not a device such as `/dev/zero`, a pipe, a socket or a
//! folder, which can be endless or block forever) of at most [`MAX_INPUT_BYTES`]. Setting the
//! environment variable `TUMBLE_READ_SPECIAL=1` allows devices and pipes (a scenario from a
//! shell's `<(…)`, say); the size bound then still stops the read. The errors are
//! [`std::io::Error`]s, so each reader reports them as it reports any other I/O error, with its
//! file's name.

use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// Largest input file read, bytes (2 GiB: a 512³ grid SDF is 1 GiB; the largest shape models
/// are tens of MB).
pub const MAX_INPUT_BYTES: u64 = 2 << 30;

/// The environment variable that allows inputs that are not regular files.
pub const ALLOW_SPECIAL: &str = "TUMBLE_READ_SPECIAL";

fn too_big(max: u64) -> Error {
    Error::new(ErrorKind::InvalidData, format!("larger than the {max} bytes an input file may have"))
}

/// The bytes of the file at `path`, refused when it is not a regular file (unless
/// `TUMBLE_READ_SPECIAL=1`) or larger than [`MAX_INPUT_BYTES`].
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    read_bounded(path, MAX_INPUT_BYTES, std::env::var(ALLOW_SPECIAL).as_deref() == Ok("1"))
}

fn read_bounded(path: &Path, max: u64, allow_special: bool) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() || (!meta.is_file() && !allow_special) {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file (a device, pipe or socket)" };
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{what}: give a file (or set {ALLOW_SPECIAL}=1 to read devices and pipes)"),
        ));
    }
    if meta.len() > max {
        return Err(too_big(max));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The bound also holds for a device, a pipe, a file that grows while read or one that
    // reports no size (procfs).
    std::fs::File::open(path)?.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(max));
    }
    Ok(bytes)
}

/// The text of the file at `path` (UTF-8), with the bounds of [`read`].
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| {
        Error::new(
            ErrorKind::InvalidData,
            format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_and_files_read() {
        let read = |p: &Path| read_bounded(p, MAX_INPUT_BYTES, false);
        let err = read(Path::new("/dev/zero")).expect_err("a device");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let err = read(Path::new(env!("CARGO_MANIFEST_DIR"))).expect_err("a folder");
        assert!(err.to_string().contains("a folder"), "{err}");
        let text = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).expect("a file");
        assert!(String::from_utf8_lossy(&text).contains("tumble-math"));
        let missing = read(Path::new("/nonexistent/tumble")).expect_err("missing");
        assert_eq!(missing.kind(), ErrorKind::NotFound);
    }

    #[test]
    fn an_endless_device_allowed_stops_at_the_bound() {
        // /dev/zero is endless: allowed, the read stops one byte past the bound.
        let err = read_bounded(Path::new("/dev/zero"), 1 << 20, true).expect_err("endless");
        assert!(err.to_string().contains("larger than the 1048576 bytes"), "{err}");
        let err = read_bounded(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"), 10, false).expect_err("big");
        assert_eq!(err.kind(), ErrorKind::InvalidData);
    }
}
