//! `tumble view OUTDIR`: a read-only HTTP server on the loopback interface for a run's outputs
//! and the browser viewer.
//!
//! Hardening: it binds 127.0.0.1 only; it refuses (403) a request whose `Host` is not
//! 127.0.0.1, localhost or `[::1]` with its port (DNS rebinding); it answers GET and HEAD (405
//! otherwise); it serves the
//! files under OUTDIR at `/run/…` and nothing else from the disk: a path is percent-decoded once,
//! then refused (403) if it holds a `..` or `.` segment, a backslash, a NUL, a colon or an
//! absolute path, and refused again if the canonical file is not inside OUTDIR's canonical path
//! (symbolic links out of it). `/` serves the viewer's page when the built bundle is embedded;
//! without it the server says in one line how to build it and serves the files alone.

use crate::{Failure, output};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// The viewer's built front-end, embedded when it was built before this binary (see
/// `build.rs`): `(path, bytes)`.
const BUNDLE: &[(&str, &[u8])] = &include!(concat!(env!("OUT_DIR"), "/viewer_bundle.rs"));

/// The one line that says how to get the viewer page.
pub const BUILD_HINT: &str =
    "the browser viewer is not built into this binary: run `npm ci && npm run build` in viewer/, then rebuild tumble";

/// Serves `dir` on 127.0.0.1:`port` (0: any free port) until the process ends. Prints the URL
/// first, on its own line.
pub fn serve(dir: &Path, port: u16) -> Result<(), Failure> {
    let root = dir.canonicalize().map_err(|e| format!("{}: {e}", dir.display()))?;
    if !root.is_dir() {
        return Err(format!("{}: not a folder (give a run's output folder, e.g. out/tripod)", dir.display()).into());
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| output(format!("127.0.0.1:{port}: {e}")))?;
    let addr = listener.local_addr().map_err(output)?;
    say!("serving {} at http://{addr}/ (Ctrl-C to stop)", root.display());
    if BUNDLE.is_empty() {
        tell!("{BUILD_HINT}");
    }
    let _ = std::io::stdout().flush();
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = root.clone();
        let port = addr.port();
        std::thread::spawn(move || {
            let _ = handle(stream, &root, port);
        });
    }
    Ok(())
}

/// A response: status, content type and body.
struct Reply {
    status: (u16, &'static str),
    kind: &'static str,
    body: Vec<u8>,
}

impl Reply {
    fn text(status: (u16, &'static str), body: &str) -> Self {
        Reply { status, kind: "text/plain; charset=utf-8", body: body.as_bytes().to_vec() }
    }
}

/// Whether a request's `Host` header names this server: its loopback address or `localhost` with
/// its port. A page of another site that a DNS rebinding points at 127.0.0.1 sends its own
/// host name, and is refused.
fn own_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| host.eq_ignore_ascii_case(&format!("{h}:{port}")))
}

fn handle(stream: TcpStream, root: &Path, port: u16) -> std::io::Result<()> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.by_ref().take(8192).read_line(&mut line)?;
    // Read the headers (bounded), keeping the hosts named.
    let (mut header, mut hosts) = (String::new(), Vec::new());
    for _ in 0..100 {
        header.clear();
        if reader.by_ref().take(8192).read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("host")
        {
            hosts.push(value.trim().to_string());
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let reply = match method {
        // HTTP/1.1 requires one Host header (RFC 9112 §3.2): none or two is a bad request.
        _ if hosts.len() != 1 => Reply::text((400, "Bad Request"), "a request names its host in one Host header\n"),
        _ if !own_host(&hosts[0], port) => Reply::text(
            (403, "Forbidden"),
            "this server answers requests for 127.0.0.1 or localhost with its port only\n",
        ),
        "GET" | "HEAD" => route(target, root),
        _ => Reply::text((405, "Method Not Allowed"), "only GET and HEAD\n"),
    };
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n",
        reply.status.0,
        reply.status.1,
        reply.kind,
        reply.body.len()
    );
    if reply.status.0 == 405 {
        head += "Allow: GET, HEAD\r\n";
    }
    head += "\r\n";
    out.write_all(head.as_bytes())?;
    if method != "HEAD" {
        out.write_all(&reply.body)?;
    }
    out.flush()
}

fn route(target: &str, root: &Path) -> Reply {
    let path = target.split(['?', '#']).next().unwrap_or("");
    if let Some(rest) = path.strip_prefix("/run/") {
        return match confined(root, rest) {
            Ok(file) => match tumble_math::input::read(&file) {
                Ok(body) => Reply { status: (200, "OK"), kind: content_type(&file), body },
                Err(_) => Reply::text((404, "Not Found"), "no such file (or a link, or not a regular file)\n"),
            },
            Err(reply) => reply,
        };
    }
    let name = if path == "/" { "index.html" } else { path.trim_start_matches('/') };
    match BUNDLE.iter().find(|(p, _)| *p == name) {
        Some((p, body)) => Reply { status: (200, "OK"), kind: content_type(Path::new(p)), body: body.to_vec() },
        None if path == "/" => Reply::text((200, "OK"), &format!("{BUILD_HINT}\nthe run's files are under /run/\n")),
        None => Reply::text((404, "Not Found"), "not found\n"),
    }
}

/// The file under `root` that the request path `rest` names, or the refusal.
fn confined(root: &Path, rest: &str) -> Result<PathBuf, Reply> {
    let forbidden = || Reply::text((403, "Forbidden"), "outside the run's folder\n");
    let decoded = percent_decode(rest).ok_or_else(forbidden)?;
    if decoded.is_empty()
        || decoded.starts_with('/')
        || decoded.contains(['\\', '\0', ':'])
        || decoded.split('/').any(|s| s == ".." || s == "." || s.is_empty())
    {
        return Err(forbidden());
    }
    let file = root.join(&decoded);
    match file.canonicalize() {
        // The name as asked (read without following a link at its end), once its folders lead
        // inside the root.
        Ok(c) if c.starts_with(root) && c.is_file() => Ok(file),
        Ok(_) => Err(forbidden()),
        Err(_) => Err(Reply::text((404, "Not Found"), "no such file\n")),
    }
}

/// `%XX` decoding (once); `None` for a malformed escape or invalid UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "csv" => "text/csv; charset=utf-8",
        "glb" => "model/gltf-binary",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_is_done_once_and_strictly() {
        assert_eq!(percent_decode("a%2Fb").as_deref(), Some("a/b"));
        assert_eq!(percent_decode("%252e").as_deref(), Some("%2e"));
        assert!(percent_decode("%zz").is_none() && percent_decode("%2").is_none());
    }
}
