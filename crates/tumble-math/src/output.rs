//! Writing output files: the one place every Tumble writer (a run's, a campaign's, a merge's, a
//! capture study's outputs, converted meshes and SDF files, saved designs) creates its folder
//! and its files.
//!
//! An output folder may have been prepared by someone else, so nothing in it is trusted:
//!
//! - [`folder`] resolves the folder before it checks it (the part that exists with its links
//!   followed, the rest, `..` included, as written), so `X/../../..` is recognised as `/` before
//!   anything is created; a file system's root and a folder that is itself a symbolic link are
//!   refused, then the folder is created.
//! - [`create`] and [`write()`] write a new file beside the one named, created exclusively
//!   (`O_CREAT | O_EXCL`, which never follows a link), then rename it over the name: a symbolic
//!   or hard link planted under that name is replaced, never written through, and a reader never
//!   sees half a file.
//! - [`append`] (a campaign's `runs.csv`) opens without following a link and only a regular
//!   file with one name.
//! - [`subfolder`] refuses a link or a file where a folder (`plots/`) is wanted, and
//!   [`remove`] removes a directory entry itself (a link, not what it points to).
//!
//! The errors are [`std::io::Error`]s whose message says what is wrong; each writer adds the
//! path.

use std::fs::{self, File, OpenOptions};
use std::io::{Error, ErrorKind, Result, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

fn refused(what: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, what.into())
}

/// The error of a symbolic link where Tumble would write.
fn link() -> Error {
    refused("a symbolic link: Tumble writes nothing through a link (remove it, or give the folder it points to)")
}

/// `dir` as the file system will resolve it: its longest existing ancestor with the links
/// followed, then the remaining components as written (`..` removing the one before, as it
/// will once those folders are created).
pub fn resolve(dir: &Path) -> Result<PathBuf> {
    let abs = std::path::absolute(dir)?;
    let mut base = abs.as_path();
    let mut rest = Vec::new();
    while fs::symlink_metadata(base).is_err() {
        let (Some(parent), Some(last)) = (base.parent(), base.components().next_back()) else { break };
        rest.push(last);
        base = parent;
    }
    let mut out = base.canonicalize()?;
    for c in rest.into_iter().rev() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    Ok(out)
}

/// Checks that `dir` can be an output folder, creating nothing: refuses a file system's root
/// (however spelled: `/`, `X/../../..`), a symbolic link and a file.
pub fn check_folder(dir: &Path) -> Result<()> {
    let full = resolve(dir)?;
    if full.parent().is_none() {
        return Err(refused(format!(
            "resolves to {}: a file system's root cannot be an output folder; give a folder for the outputs",
            full.display()
        )));
    }
    if let Ok(m) = fs::symlink_metadata(dir)
        && !m.is_dir()
    {
        return Err(if m.file_type().is_symlink() { link() } else { refused("not a folder") });
    }
    Ok(())
}

/// Creates the output folder `dir` (and the folders above it that are missing) once
/// [`check_folder`] accepts it.
pub fn folder(dir: &Path) -> Result<()> {
    check_folder(dir)?;
    fs::create_dir_all(dir)
}

/// Creates the folder `name` in `dir` if it is not there; refuses a link or a file of that
/// name. Returns its path.
pub fn subfolder(dir: &Path, name: &str) -> Result<PathBuf> {
    let p = dir.join(name);
    match fs::symlink_metadata(&p) {
        Ok(m) if m.is_dir() => Ok(p),
        Ok(m) if m.file_type().is_symlink() => Err(link()),
        Ok(_) => Err(refused("not a folder")),
        Err(e) if e.kind() == ErrorKind::NotFound => fs::create_dir(&p).map(|_| p),
        Err(e) => Err(e),
    }
}

/// A file being written: a temporary file beside its destination until [`FileOut::commit`]
/// renames it there; dropped uncommitted, the temporary file is removed and the destination
/// left as it was.
pub struct FileOut {
    file: File,
    tmp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

fn exclusive(path: &Path) -> Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o644);
    }
    o.open(path)
}

/// Starts writing the file `path` (see [`FileOut`]).
pub fn create(path: &Path) -> Result<FileOut> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| refused("not a file name"))?.to_string_lossy();
    if let Ok(m) = fs::symlink_metadata(path)
        && m.is_dir()
    {
        return Err(refused("a folder, where a file is to be written"));
    }
    for _ in 0..64 {
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match exclusive(&tmp) {
            Ok(file) => return Ok(FileOut { file, tmp, dest: path.to_path_buf(), committed: false }),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(ErrorKind::AlreadyExists, "no free name for a temporary file beside it"))
}

impl FileOut {
    /// Puts the file in place (flushed to the file system), replacing whatever entry had its
    /// name.
    pub fn commit(mut self) -> Result<()> {
        self.file.flush()?;
        fs::rename(&self.tmp, &self.dest)?;
        self.committed = true;
        Ok(())
    }
}

impl Write for FileOut {
    fn write(&mut self, buf: &[u8]) -> Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }
}

impl Drop for FileOut {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to the file `path` (see [`create`]).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let mut f = create(path)?;
    f.write_all(bytes.as_ref())?;
    f.commit()
}

/// Writes the file `path` through `fill` (buffered); nothing is put in place when `fill` fails.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut std::io::BufWriter<FileOut>) -> Result<()>) -> Result<()> {
    let mut w = std::io::BufWriter::new(create(path)?);
    fill(&mut w)?;
    w.into_inner().map_err(|e| e.into_error())?.commit()
}

/// Opens the existing file `path` for appending: not through a link, and only a regular file
/// with no other name (a hard link would write into another file).
pub fn append(path: &Path) -> Result<File> {
    let mut o = OpenOptions::new();
    o.append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc_nofollow());
    }
    let f = o.open(path).map_err(|e| if is_link_error(&e) { link() } else { e })?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(refused("not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if m.nlink() != 1 {
            return Err(refused(format!(
                "a file with {} names (hard links): Tumble appends only to its own",
                m.nlink()
            )));
        }
    }
    Ok(f)
}

/// Removes the directory entry `path`: a file, or a link itself (never what it points to).
pub fn remove(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Err(refused("a folder, where a file was to be removed")),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// `O_NOFOLLOW`: open fails (`ELOOP`) when the last component is a symbolic link.
#[cfg(unix)]
pub(crate) fn libc_nofollow() -> i32 {
    libc::O_NOFOLLOW
}

/// Whether `e` is the error of opening a symbolic link with `O_NOFOLLOW`.
pub(crate) fn is_link_error(e: &Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tumble-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).expect("scratch folder");
        d
    }

    #[test]
    fn a_root_however_spelled_is_refused_before_anything_is_created() {
        let d = scratch("root");
        let depth = d.components().count() - 1;
        let up: PathBuf = std::iter::once("X".to_string()).chain((0..=depth).map(|_| "..".to_string())).collect();
        let spelled = d.join(up);
        assert_eq!(resolve(&spelled).expect("resolves"), PathBuf::from("/"));
        let err = folder(&spelled).expect_err("root");
        assert!(err.to_string().contains("root"), "{err}");
        assert!(!d.join("X").exists(), "nothing created");
        assert!(folder(Path::new("/")).is_err());
        // Where the path leads to a folder, it is created.
        folder(&d.join("a/b/../c")).expect("a folder");
        assert!(d.join("a/c").is_dir());
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn planted_links_are_replaced_not_followed() {
        let d = scratch("links");
        let victim = d.join("victim.txt");
        fs::write(&victim, "keep").expect("victim");
        let out = d.join("out");
        fs::create_dir(&out).expect("out");
        // A symbolic link, a dangling one and a hard link under the names of outputs.
        symlink(&victim, out.join("summary.json")).expect("link");
        symlink(d.join("nowhere"), out.join("animation.glb")).expect("dangling");
        fs::hard_link(&victim, out.join("runs.csv")).expect("hard link");
        for name in ["summary.json", "animation.glb", "runs.csv"] {
            write(&out.join(name), "new").expect(name);
            let m = fs::symlink_metadata(out.join(name)).expect("written");
            assert!(m.is_file(), "{name} is a file of its own");
            assert_eq!(fs::read_to_string(out.join(name)).expect("read"), "new");
        }
        assert_eq!(fs::read_to_string(&victim).expect("victim"), "keep");
        assert!(!d.join("nowhere").exists());
        // Appending refuses a link and a file with two names.
        symlink(&victim, out.join("a.csv")).expect("link");
        assert!(append(&out.join("a.csv")).expect_err("link").to_string().contains("symbolic link"));
        fs::hard_link(&victim, out.join("b.csv")).expect("hard");
        assert!(append(&out.join("b.csv")).expect_err("hard").to_string().contains("hard links"));
        // A folder that is a link, and a link where plots/ should be.
        symlink(&d, d.join("linked")).expect("link");
        assert!(folder(&d.join("linked")).expect_err("link").to_string().contains("symbolic link"));
        symlink(&d, out.join("plots")).expect("link");
        assert!(subfolder(&out, "plots").is_err());
        remove(&out.join("plots")).expect("the link removed");
        assert!(d.is_dir(), "not what it pointed to");
        assert!(subfolder(&out, "plots").expect("created").is_dir());
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing() {
        let d = scratch("uncommitted");
        fs::write(d.join("x"), "old").expect("old");
        {
            let mut f = create(&d.join("x")).expect("create");
            f.write_all(b"half").expect("write");
        }
        assert_eq!(fs::read_to_string(d.join("x")).expect("old"), "old");
        assert_eq!(fs::read_dir(&d).expect("list").count(), 1, "no temporary file left");
        let _ = fs::remove_dir_all(&d);
    }
}
