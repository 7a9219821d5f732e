//! Shared by the command-line tests.

#![allow(dead_code)] // each test file uses its part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled scenarios (`scenarios/*/*.toml`), less those reading `../shared/data` where it
/// is absent.
pub fn bundled() -> Vec<PathBuf> {
    let shared = root().join("../shared/data").exists();
    let mut all = Vec::new();
    for dir in std::fs::read_dir(root().join("scenarios")).expect("scenarios") {
        for f in std::fs::read_dir(dir.expect("entry").path()).expect("folder") {
            let path = f.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml")
                && (shared || !std::fs::read_to_string(&path).expect("scenario").contains("shared/data"))
            {
                all.push(path);
            }
        }
    }
    all.sort();
    all
}

/// A `tumble view` server on a free loopback port, stopped when dropped: the child and its
/// address (`127.0.0.1:PORT`).
pub struct Server(pub Child, pub String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `tumble view DIR --port 0` and reads the address it prints.
pub fn start(dir: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["view", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tumble view starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split("http://").nth(1).and_then(|s| s.split('/').next()).expect("the URL").to_string();
    Server(child, addr)
}

/// Sends a raw request; returns (status, headers and body as text).
pub fn request(addr: &str, raw: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text)
}

/// Runs `tumble ARGS…` to completion.
pub fn tumble(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tumble")).args(args).output().expect("tumble runs")
}

/// The path of bundled scenario `rel` (under `scenarios/`).
pub fn scenario(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel).display().to_string()
}

/// A fresh, empty folder `name` under the tests' temporary directory.
pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}
