//! `tumble view`: serves a run's folder read-only on the loopback interface, refuses paths out of
//! it however they are spelt, and answers only GET and HEAD.

mod common;
use common::{request, start};

fn get(addr: &str, path: &str) -> (u16, String) {
    request(addr, &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n"))
}

#[test]
fn the_viewer_server_is_confined_read_only_and_local() {
    let base = std::env::temp_dir().join(format!("tumble_view_{}", std::process::id()));
    let run = base.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("summary.json"), "{\"ok\": true}").unwrap();
    std::fs::write(base.join("secret.txt"), "TOP-SECRET-42").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.join("secret.txt"), run.join("link.txt")).unwrap();
    let server = start(&run);
    let addr = &server.1;
    // Bound to the loopback interface only.
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let (status, body) = get(addr, "/run/summary.json");
    assert_eq!(status, 200);
    assert!(body.contains("application/json") && body.ends_with("{\"ok\": true}"));
    // Every spelling of a way out is refused, and nothing of the secret comes back.
    for path in [
        "/run/../secret.txt",
        "/run/%2e%2e/secret.txt",
        "/run/%2E%2E%2Fsecret.txt",
        "/run/..%2fsecret.txt",
        "/run//etc/passwd",
        "/run/%2fetc%2fpasswd",
        "/run/..\\secret.txt",
        "/run/C:/Windows/win.ini",
        "/run/./summary.json",
        "/run/link.txt",
        "/../secret.txt",
    ] {
        let (status, body) = get(addr, path);
        assert!(status == 403 || status == 404, "{path}: {status}");
        assert!(!body.contains("TOP-SECRET-42"), "{path} leaked the file");
    }
    // Double encoding is decoded once: a literal file name, not a way out.
    assert_eq!(get(addr, "/run/%252e%252e/secret.txt").0, 404);
    // Only GET and HEAD.
    for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
        let (status, text) = request(addr, &format!("{method} /run/summary.json HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
        assert_eq!(status, 405, "{method}");
        assert!(text.contains("Allow: GET, HEAD"));
    }
    let (status, text) = request(addr, &format!("HEAD /run/summary.json HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
    assert_eq!(status, 200);
    assert!(text.contains("Content-Length: 12") && text.ends_with("\r\n\r\n"), "{text}");
    // A request for another host name (a DNS rebinding of a foreign page to 127.0.0.1) is
    // refused; localhost with the port is this server.
    let port = addr.rsplit(':').next().unwrap_or("");
    for host in [format!("evil.example:{port}"), "127.0.0.1:1".to_string(), "x".to_string()] {
        let (status, text) = request(addr, &format!("GET /run/summary.json HTTP/1.1\r\nHost: {host}\r\n\r\n"));
        assert_eq!(status, 403, "{host}");
        assert!(!text.contains("\"ok\""), "{host}");
    }
    let local = format!("GET /run/summary.json HTTP/1.1\r\nhost: LOCALHOST:{port}\r\n\r\n");
    assert_eq!(request(addr, &local).0, 200);
    // One Host header: none (HTTP/1.0 style) or two (the last one winning) is a bad request.
    assert_eq!(request(addr, "GET /run/summary.json HTTP/1.1\r\n\r\n").0, 400);
    let two = format!("GET /run/summary.json HTTP/1.1\r\nHost: evil.example\r\nHost: {addr}\r\n\r\n");
    assert_eq!(request(addr, &two).0, 400);
    // A link planted in the folder is not served, even to a file inside it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(run.join("summary.json"), run.join("inside.json")).unwrap();
        assert_eq!(get(addr, "/run/inside.json").0, 404);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&base);
}
