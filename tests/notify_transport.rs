//! How a notification travels: over TLS whose certificate is verified (a rustls server on
//! loopback with a certificate no system trusts is refused, the same server trusted through
//! `SSL_CERT_FILE` takes the message), through the proxy the usual environment variables name
//! (which sees `CONNECT host:port`, never the token in the path), and never along a redirect.
//! Retries end at the run's deadline, whatever `retry_for_s` says. At the default level the
//! HTTP library logs nothing on stderr; a URL whose variable is not set is said, and its
//! message kept until a run has it.

use crate::email_support;
use crate::notify_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use email_support::*;
use notify_support::*;

const PROXIES: [&str; 8] = [
    "ALL_PROXY",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "all_proxy",
    "https_proxy",
    "http_proxy",
    "no_proxy",
];

/// An offline FAIL run that notifies one webhook at `url`, with `env` added.
fn notify_once(site: &Site, url: &str, env: &[(&str, &str)]) -> Output {
    let offline = scenario("lanz-unsaved");
    let mut cmd = site.cmd(&[
        "-vv",
        "run",
        "--offline",
        offline.to_str().unwrap(),
        "--no-email",
        "--notify",
    ]);
    for proxy in PROXIES {
        cmd.env_remove(proxy);
    }
    cmd.env_remove("SSL_CERT_FILE").env_remove("SSL_CERT_DIR");
    cmd.env("HOOK_URL", url)
        .env("RUST_LOG", "trace,ureq_proto::util=trace")
        .timeout(Duration::from_secs(60));
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().unwrap()
}

fn one_hook_site() -> Site {
    Site::new(
        "notify:\n  - kind: webhook\n    url: { env: HOOK_URL }\n    timeout_s: 5\n    retry_for_s: 0\n",
    )
}

fn kept(site: &Site) -> usize {
    files(&site.archive().join("outbox/notify"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .count()
}

/// A TLS server on loopback (rustls, a self-signed certificate for 127.0.0.1 from rcgen) that
/// answers each HTTP request 200 and records its body; the certificate's PEM is in `dir`.
struct TlsServer {
    port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
    handshakes_failed: Arc<Mutex<u32>>,
}

impl TlsServer {
    fn start(dir: &Path) -> TlsServer {
        let certified =
            rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".into()])
                .unwrap();
        std::fs::write(dir.join("hook-ca.pem"), certified.cert.pem()).unwrap();
        let key =
            rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let handshakes_failed = Arc::new(Mutex::new(0));
        let (b, h) = (bodies.clone(), handshakes_failed.clone());
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let _ = tcp.set_read_timeout(Some(Duration::from_secs(10)));
                let conn = rustls::ServerConnection::new(config.clone()).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                match read_request(&mut tls) {
                    Some(body) => {
                        b.lock().unwrap().push(body);
                        let _ = tls.write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                        );
                        tls.conn.send_close_notify();
                        let _ = tls.flush();
                    }
                    None => *h.lock().unwrap() += 1,
                }
            }
        });
        TlsServer {
            port,
            bodies,
            handshakes_failed,
        }
    }
}

/// The body of one HTTP/1.1 request with a content-length; `None` when none could be read.
fn read_request(stream: &mut impl Read) -> Option<String> {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().ok()?;
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

#[test]
fn a_certificate_nobody_trusts_is_refused_and_a_trusted_one_takes_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let server = TlsServer::start(dir.path());
    let url = format!("https://127.0.0.1:{}/hooks/{WEBHOOK_TOKEN}", server.port);
    let site = one_hook_site();

    let refused = notify_once(&site, &url, &[]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("TLS: invalid peer certificate: UnknownIssuer"),
        "{stderr}"
    );
    assert!(server.bodies.lock().unwrap().is_empty());
    assert_eq!(*server.handshakes_failed.lock().unwrap(), 1);
    assert_eq!(kept(&site), 1, "the refused message waits in the outbox");
    assert_no_token("stderr", &stderr);

    // The same certificate trusted as a CA of this machine: the kept message goes first.
    let ca = dir.path().join("hook-ca.pem");
    let trusted = notify_once(&site, &url, &[("SSL_CERT_FILE", ca.to_str().unwrap())]);
    let stderr = text(&trusted.stderr);
    assert_eq!(trusted.status.code(), Some(1), "{stderr}");
    let bodies = server.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 2, "{stderr}");
    for body in &bodies {
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["event"], "fail");
    }
    assert_eq!(kept(&site), 0, "{stderr}");
    assert_no_token("stderr", &stderr);
}

#[test]
fn the_proxy_from_the_environment_is_used_and_never_sees_the_token() {
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_port = proxy.local_addr().unwrap().port();
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let h = heard.clone();
    std::thread::spawn(move || {
        for mut tcp in proxy.incoming().flatten() {
            let _ = tcp.set_read_timeout(Some(Duration::from_secs(5)));
            let mut head = String::new();
            let mut reader = BufReader::new(tcp.try_clone().unwrap());
            while reader.read_line(&mut head).is_ok_and(|n| n > 0) && !head.ends_with("\r\n\r\n") {}
            h.lock().unwrap().push(head);
            let _ = tcp.write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let site = one_hook_site();
    // Nothing listens at 127.0.0.2:9: only the proxy could have been asked.
    let url = format!("https://127.0.0.2:9/hooks/{WEBHOOK_TOKEN}");
    let proxy_url = format!("http://127.0.0.1:{proxy_port}");
    let out = notify_once(&site, &url, &[("HTTPS_PROXY", &proxy_url)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let heads = heard.lock().unwrap().clone();
    assert!(!heads.is_empty(), "{stderr}");
    for head in &heads {
        assert!(
            head.starts_with("CONNECT 127.0.0.2:9 HTTP/1.1\r\n"),
            "{head:?}"
        );
        assert_no_token("what the proxy heard", head);
    }
    assert!(
        stderr.contains("the proxy refused the connection"),
        "{stderr}"
    );
    assert_eq!(kept(&site), 1);
}

#[test]
fn a_redirect_is_not_followed() {
    let recorder = Recorder::start();
    recorder.answer_next("/hooks/", 302, 1);
    let site = one_hook_site();
    let url = format!("{}/hooks/{WEBHOOK_TOKEN}", recorder.base());
    let out = notify_once(&site, &url, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let posts = recorder.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert!(
        stderr.contains("HTTP 302: boom (a redirect: point url at where it leads)"),
        "{stderr}"
    );
    assert_eq!(kept(&site), 1);
}

#[test]
fn at_the_default_level_a_notification_adds_no_library_log_to_stderr() {
    // cron mails stderr: an HTTP library's debug lines there would be noise every morning.
    let recorder = Recorder::start();
    let site = one_hook_site();
    let offline = scenario("lanz-unsaved");
    let mut cmd = site.cmd(&[
        "run",
        "--offline",
        offline.to_str().unwrap(),
        "--no-email",
        "--notify",
    ]);
    for proxy in PROXIES {
        cmd.env_remove(proxy);
    }
    let out = cmd
        .env_remove("RUST_LOG")
        .env("HOOK_URL", format!("{}{}", recorder.base(), webhook_path()))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(recorder.posts().len(), 1, "{stderr}");
    let logged: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("DEBUG") || l.contains("TRACE") || l.contains("Call<"))
        .collect();
    assert!(logged.is_empty(), "{logged:#?}");
    assert!(
        stderr.contains("notify webhook (127.0.0.1:") && stderr.contains("sent (1 attempt(s))"),
        "{stderr}"
    );
}

#[test]
fn a_url_whose_variable_is_missing_is_said_and_its_message_kept_until_it_is_set() {
    let recorder = Recorder::start();
    let site = Site::new(
        "notify:\n  - kind: webhook\n    url: { env: HOOK_URL }\n    on: [fail, error, recovered, ok]\n    timeout_s: 5\n    retry_for_s: 0\n",
    );
    let offline = scenario("healthy");
    let run = |url: Option<String>| {
        let mut cmd = site.cmd(&[
            "run",
            "--offline",
            offline.to_str().unwrap(),
            "--no-email",
            "--notify",
        ]);
        for proxy in PROXIES {
            cmd.env_remove(proxy);
        }
        match url {
            Some(url) => cmd.env("HOOK_URL", url),
            None => cmd.env_remove("HOOK_URL"),
        };
        cmd.timeout(Duration::from_secs(60)).output().unwrap()
    };
    let out = run(None);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an OK run, not delivered: {stderr}"
    );
    assert!(
        stderr.contains("notify webhook: url: environment variable HOOK_URL is not set"),
        "{stderr}"
    );
    assert_eq!(kept(&site), 1);
    let out = run(Some(format!("{}{}", recorder.base(), webhook_path())));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let runs: Vec<String> = recorder
        .posts()
        .iter()
        .map(|p| p.json()["run_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(runs.len(), 2, "the kept message, then this run's: {runs:?}");
    assert!(runs[0] < runs[1], "{runs:?}");
    assert_eq!(kept(&site), 0);
}

#[test]
fn retries_end_at_the_runs_deadline_and_the_message_waits_in_the_outbox() {
    let tz = chrono_tz::Asia::Taipei;
    let now = chrono::Utc::now().with_timezone(&tz);
    let earlier = now - chrono::Duration::minutes(1);
    if earlier.date_naive() != now.date_naive() {
        return; // a minute after midnight there is no earlier time today
    }
    // The deadline passed a minute ago: the run is bounded by 3 s of grace, far closer than
    // the endpoint's retry_for_s.
    let recorder = Recorder::start();
    recorder.fail_next("/hooks/", 1000);
    let site = Site::new(
        "deadline_grace_s: 3\nnotify:\n  - kind: webhook\n    url: { env: HOOK_URL }\n    timeout_s: 2\n    retry_for_s: 120\n",
    );
    let offline = scenario("lanz-unsaved");
    let deadline = earlier.format("%H:%M").to_string();
    let mut cmd = site.cmd(&[
        "run",
        "--offline",
        offline.to_str().unwrap(),
        "--no-email",
        "--notify",
        "--deadline",
        &deadline,
    ]);
    for proxy in PROXIES {
        cmd.env_remove(proxy);
    }
    let started = std::time::Instant::now();
    let out = cmd
        .env("HOOK_URL", format!("{}{}", recorder.base(), webhook_path()))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(took < Duration::from_secs(8), "{took:?}: {stderr}");
    let attempts = recorder.posts().len();
    assert!(
        (2..=4).contains(&attempts),
        "retried (1 s, 2 s apart) within the grace, not for 120 s: {attempts}"
    );
    assert!(
        stderr.contains(&format!(
            "was not delivered: HTTP 500: boom after {attempts} attempt(s)"
        )),
        "{stderr}"
    );
    assert_eq!(kept(&site), 1);
}
