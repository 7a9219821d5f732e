//! Reading input files with bounds: the one place every Tumble reader (scenarios, meshes, SDF
//! files, URDFs, glTF models and their buffers, LQR JSON, fit CSV) gets its bytes from.
//!
//! An input must be a regular file (not a device such as `/dev/zero`, a pipe, a socket or a
//! folder, which can be endless or block forever; not a symbolic link, which can lead anywhere)
//! of at most [`MAX_INPUT_BYTES`]. The type is that of the file opened (without following a link,
//! a pipe without blocking), not of the name a moment before. Setting the environment variable
//! `TUMBLE_READ_SPECIAL=1` allows devices, pipes and links (a scenario from a shell's `<(…)`,
//! say); the size bound then still stops the read. The errors are
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

/// The bytes of the file at `path`, refused when it is not a regular file or is a symbolic link
/// (unless `TUMBLE_READ_SPECIAL=1`) or larger than [`MAX_INPUT_BYTES`].
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    read_bounded(path, MAX_INPUT_BYTES, std::env::var(ALLOW_SPECIAL).as_deref() == Ok("1"))
}

/// The bytes of the file `rel` below the folder `base` (a glTF model's buffer beside it): `rel`
/// must be relative without `..`, and no folder between `base` and the file, nor the file, may
/// be a symbolic link (which could lead anywhere); then read as [`read`] reads.
pub fn read_below(base: &Path, rel: &Path) -> std::io::Result<Vec<u8>> {
    use std::path::Component;
    let mut at = base.to_path_buf();
    let parts: Vec<_> = rel.components().filter(|c| !matches!(c, Component::CurDir)).collect();
    for (k, c) in parts.iter().enumerate() {
        let Component::Normal(name) = c else {
            return Err(Error::new(ErrorKind::InvalidInput, "not a relative path below the folder (no `..`, no root)"));
        };
        at.push(name);
        if k + 1 < parts.len() {
            let m = std::fs::symlink_metadata(&at)?;
            if !m.is_dir() {
                let what = if m.file_type().is_symlink() { "a symbolic link" } else { "not a folder" };
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("{} is {what}: files below a model are read only through its own folders", at.display()),
                ));
            }
        }
    }
    read_bounded(&at, MAX_INPUT_BYTES, false)
}

fn open(path: &Path, allow_special: bool) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    if !allow_special {
        use std::os::unix::fs::OpenOptionsExt;
        // Not through a link; a pipe opened without blocking, so that its type is seen first.
        o.custom_flags(crate::output::libc_nofollow() | libc::O_NONBLOCK);
    }
    o.open(path).map_err(|e| {
        if crate::output::is_link_error(&e) {
            Error::new(
                ErrorKind::InvalidInput,
                format!("a symbolic link: give the file it points to (or set {ALLOW_SPECIAL}=1 to follow links)"),
            )
        } else {
            e
        }
    })
}

fn read_bounded(path: &Path, max: u64, allow_special: bool) -> std::io::Result<Vec<u8>> {
    let file = open(path, allow_special)?;
    // The type of what was opened, not of what the name held a moment before.
    let meta = file.metadata()?;
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
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(max));
    }
    Ok(bytes)
}

/// The text of the file at `path` (UTF-8), with the bounds of [`read`].
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    read_to_string_max(path, MAX_INPUT_BYTES)
}

/// The text of the file at `path` (UTF-8), with the bounds of [`read`] and at most `max` bytes: a
/// format whose files are small (a scenario, a campaign's identity) bounds the memory its parser
/// takes by bounding its input.
pub fn read_to_string_max(path: &Path, max: u64) -> std::io::Result<String> {
    let bytes = read_bounded(path, max.min(MAX_INPUT_BYTES), std::env::var(ALLOW_SPECIAL).as_deref() == Ok("1"))?;
    String::from_utf8(bytes).map_err(|e| {
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

    #[cfg(unix)]
    #[test]
    fn links_and_pipes_are_refused_without_blocking() {
        use std::os::unix::fs::symlink;
        let d = std::env::temp_dir().join(format!("tumble-input-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("model")).expect("scratch");
        let secret = d.join("secret.txt");
        std::fs::write(&secret, "secret").expect("secret");
        symlink(&secret, d.join("model/link.bin")).expect("link");
        let err = read_bounded(&d.join("model/link.bin"), MAX_INPUT_BYTES, false).expect_err("a link");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(read_bounded(&d.join("model/link.bin"), 100, true).expect("allowed"), b"secret");
        // A link to a folder on the way to a buffer, and `..`.
        symlink(&d, d.join("model/up")).expect("link");
        let err = read_below(&d.join("model"), Path::new("up/secret.txt")).expect_err("a linked folder");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(read_below(&d.join("model"), Path::new("../secret.txt")).is_err());
        std::fs::write(d.join("model/buf.bin"), "b").expect("buffer");
        assert_eq!(read_below(&d.join("model"), Path::new("./buf.bin")).expect("a buffer"), b"b");
        // A FIFO with no writer would block an ordinary open forever.
        let fifo = d.join("shard.json");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            let err = read_bounded(&fifo, MAX_INPUT_BYTES, false).expect_err("a pipe");
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
