//! A mail relay or a webhook that sends a line without end cannot make premarket read without
//! bound: the line is capped before it is buffered, that delivery fails with a reason, and
//! the report still goes out through the other channels and the outbox.
//!
//! Real peers on loopback: a Python SMTP "relay" whose greeting (plain; inside implicit TLS)
//! or EHLO reply (before STARTTLS) never ends, and an HTTP "webhook" whose status line, a
//! header or a chunk-size line never ends. Each run of the binary has 1 GiB of address space
//! (`ulimit -v`): before the cap, the endless greeting was read whole (1.5-2.6 GB in 5 s) and
//! the process aborted without a report.

use crate::email_support;
use crate::notify_support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use email_support::*;
use notify_support::{Recorder, clear_proxies};

const ADDRESS_SPACE_KIB: u64 = 1 << 20;
const TIME_LIMIT: Duration = Duration::from_secs(60);

const RELAY: &str = r#"
import socket, ssl, sys, threading
mode, port, cert, key = sys.argv[1:5]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(port)))
srv.listen(8)
print("READY", flush=True)
chunk = b"a" * 65536
def serve(conn):
    try:
        if mode == "tls-greeting":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            conn = ctx.wrap_socket(conn, server_side=True)
        if mode == "ehlo":
            conn.sendall(b"220 relay.test ESMTP\r\n")
            conn.recv(4096)
            conn.sendall(b"250-relay.test says ")
        else:
            conn.sendall(b"220 ")
        while True:
            conn.sendall(chunk)
    except Exception:
        pass
    finally:
        conn.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"#;

/// The hostile relay, killed on drop.
struct Relay {
    child: Child,
    port: u16,
    cert: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Relay {
    fn start(mode: &str) -> Relay {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = certificate(dir.path());
        let port = free_port().to_string();
        let args = [
            mode.as_ref(),
            port.as_ref(),
            cert.as_os_str(),
            key.as_os_str(),
        ];
        Relay {
            child: python_peer(dir.path(), RELAY, &args),
            port: port.parse().unwrap(),
            cert,
            _dir: dir,
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP peer that answers every request with `head` and then `a` without end.
struct Endless {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Endless {
    fn start(head: &'static str) -> Endless {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let done = stop.clone();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let Ok((mut conn, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                let done = done.clone();
                std::thread::spawn(move || {
                    conn.set_nonblocking(false).unwrap();
                    let mut request = [0u8; 4096];
                    let _ = conn.read(&mut request);
                    let chunk = vec![b'a'; 64 << 10];
                    let _ = conn.write_all(head.as_bytes());
                    while !done.load(Ordering::Relaxed) && conn.write_all(&chunk).is_ok() {}
                });
            }
        });
        Endless { port, stop }
    }
}

impl Drop for Endless {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// `premarket run` of the test site's FAIL outputs, archived and delivered, with bounded
/// memory and time; panics when it did not finish by itself.
fn run(site: &Site, args: &[&str], env: &[(&str, String)]) -> Output {
    let offline = scenario("lanz-unsaved");
    let mut cmd = limited(ADDRESS_SPACE_KIB, TIME_LIMIT);
    cmd.arg("--dir")
        .arg(site.path())
        .args(["run", "--offline", offline.to_str().unwrap(), "--archive"])
        .args(args);
    clear_proxies(&mut cmd);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = cmd.output().expect("run premarket");
    assert!(
        out.status.code().is_some(),
        "premarket {args:?} did not finish by itself within {TIME_LIMIT:?} (killed at the \
         memory limit?): {:?}\nstderr: {}",
        out.status,
        text(&out.stderr)
    );
    out
}

/// Files in `dir` (not below it) ending in `.ext`: messages waiting in an outbox.
fn kept(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .count()
    })
}

#[test]
fn a_relay_that_never_ends_a_line_is_cut_short_and_the_report_goes_out_otherwise() {
    // (the relay's endless line, premarket's tls mode)
    for (mode, tls) in [
        ("greeting", "none"),
        ("ehlo", "starttls"),
        ("tls-greeting", "tls"),
    ] {
        let relay = Relay::start(mode);
        let hook = Recorder::start();
        let site = Site::new(&format!(
            "email:\n  host: 127.0.0.1\n  port: {}\n  tls: {tls}\n  ca_file: {}\n  from: premarket@lab.test\n  to: [oncall@lab.test]\n  timeout_s: 10\n  retry_for_s: 0\n\
             notify:\n  - kind: webhook\n    url: {{ env: HOOK_URL }}\n    timeout_s: 5\n    retry_for_s: 0\n",
            relay.port,
            relay.cert.display()
        ));
        let out = run(
            &site,
            &["--email", "--notify"],
            &[("HOOK_URL", format!("{}/hook", hook.base()))],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode}: {stderr}");
        assert!(
            stderr.contains("not delivered") && stderr.contains("a line that never ends"),
            "{mode}: {stderr}"
        );
        assert_eq!(
            kept(&site.archive().join("outbox"), "eml"),
            1,
            "{mode}: the email waits in the outbox"
        );
        assert_eq!(
            hook.to("/hook").len(),
            1,
            "{mode}: the webhook heard the run"
        );
    }
}

#[test]
fn a_webhook_that_never_ends_a_line_is_cut_short_and_the_report_goes_out_otherwise() {
    for (what, head) in [
        ("status line", "HTTP/1.1 200 "),
        ("header", "HTTP/1.1 200 OK\r\nX-Endless: "),
        (
            "chunk size",
            "HTTP/1.1 500 Boom\r\nTransfer-Encoding: chunked\r\n\r\n1",
        ),
    ] {
        let peer = Endless::start(head);
        let site = Site::new(
            "notify:\n  - kind: webhook\n    url: { env: HOOK_URL }\n    timeout_s: 10\n    retry_for_s: 0\n",
        );
        let mail = site.path().join("report.eml");
        let out = run(
            &site,
            &["--email-to-file", mail.to_str().unwrap(), "--notify"],
            &[("HOOK_URL", format!("http://127.0.0.1:{}/hook", peer.port))],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert!(stderr.contains("was not delivered"), "{what}: {stderr}");
        assert_eq!(
            kept(&site.archive().join("outbox/notify"), "json"),
            1,
            "{what}: the message waits in the outbox"
        );
        assert!(mail.is_file(), "{what}: the email was written");
    }
}
