//! The emailed report against a real, independent SMTP server: aiosmtpd on loopback, started
//! by each test (a Python script written to a temp dir, on a free port). Plain SMTP, STARTTLS
//! with AUTH, implicit TLS with AUTH, and a server that stalls in the middle of DATA.
//!
//! Needs `python3` with `aiosmtpd` (`pip install aiosmtpd` or Debian `python3-aiosmtpd`). When
//! it is missing the tests skip with a message, unless PREMARKET_REQUIRE_AIOSMTPD=1 (CI), where
//! they fail.

use crate::email_support;

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use email_support::*;

const SERVER: &str = r#"
import asyncio, json, os, sys, warnings
warnings.simplefilter("ignore")
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
import ssl

mode, port, cert, key, out, password = sys.argv[1:7]
count = [0]

class Save:
    async def handle_DATA(self, server, session, envelope):
        if mode == "hang":
            await asyncio.sleep(3600)
        count[0] += 1
        base = os.path.join(out, "%03d" % count[0])
        with open(base + ".json", "w") as f:
            tls = session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None
            json.dump({"tls": tls, "auth": getattr(session, "premarket_login", None),
                       "rcpt": envelope.rcpt_tos, "from": envelope.mail_from}, f)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        os.rename(base + ".tmp", base + ".eml")
        return "250 OK"

def auth(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == b"premarket" and data.password == password.encode()
    if ok:
        session.premarket_login = data.login.decode()
    return AuthResult(success=ok)

ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)
kw = dict(hostname="127.0.0.1", port=int(port))
if mode == "starttls":
    kw.update(tls_context=ctx, require_starttls=True, authenticator=auth, auth_required=True)
elif mode == "tls":
    kw.update(ssl_context=ctx, authenticator=auth, auth_required=True, auth_require_tls=False)
controller = Controller(Save(), **kw)
controller.start()
print("READY", flush=True)
sys.stdin.read()
controller.stop()
"#;

/// aiosmtpd is importable; or, when CI requires it, a failure.
fn available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import aiosmtpd"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("PREMARKET_REQUIRE_AIOSMTPD").as_deref() != Ok("1"),
            "PREMARKET_REQUIRE_AIOSMTPD=1 but python3 cannot import aiosmtpd (pip install aiosmtpd)"
        );
        eprintln!(
            "SKIP: python3 cannot import aiosmtpd (pip install aiosmtpd); set PREMARKET_REQUIRE_AIOSMTPD=1 to make this a failure"
        );
    }
    ok
}

/// A running aiosmtpd; killed on drop.
struct Aiosmtpd {
    child: Child,
    port: u16,
    out: PathBuf,
    cert: PathBuf,
    _dir: tempfile::TempDir,
}

impl Aiosmtpd {
    fn start(mode: &str) -> Aiosmtpd {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = certificate(dir.path());
        let out = dir.path().join("mail");
        std::fs::create_dir(&out).unwrap();
        let port = free_port();
        let port_arg = port.to_string();
        let args = [
            mode.as_ref(),
            port_arg.as_ref(),
            cert.as_os_str(),
            key.as_os_str(),
            out.as_os_str(),
            SMTP_PASSWORD.as_ref(),
        ];
        Aiosmtpd {
            child: python_peer(dir.path(), SERVER, &args),
            port,
            out,
            cert,
            _dir: dir,
        }
    }

    /// (message, metadata) of each message received so far, in order.
    fn received(&self) -> Vec<(Received, serde_json::Value)> {
        let mut emls: Vec<PathBuf> = files(&self.out)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        emls.sort();
        emls.iter()
            .map(|p| {
                let meta = serde_json::from_str(
                    &std::fs::read_to_string(p.with_extension("json")).unwrap(),
                )
                .unwrap();
                (parse_mail(&std::fs::read(p).unwrap()), meta)
            })
            .collect()
    }

    fn email_yaml(&self, tls: &str, auth: bool, timeout_s: u64, retry_for_s: u64) -> String {
        let auth = if auth {
            "  user: premarket\n  password: { env: PREMARKET_SMTP_PASSWORD }\n"
        } else {
            ""
        };
        format!(
            "email:\n  host: 127.0.0.1\n  port: {}\n  tls: {tls}\n{auth}  ca_file: {}\n  from: premarket@lab.test\n  to: [oncall@lab.test]\n  timeout_s: {timeout_s}\n  retry_for_s: {retry_for_s}\n",
            self.port,
            self.cert.display()
        )
    }
}

impl Drop for Aiosmtpd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn deliver(mode: &str, tls: &str, auth: bool, scenario_name: &str, code: i32) {
    if !available() {
        return;
    }
    let server = Aiosmtpd::start(mode);
    let site = Site::new(&server.email_yaml(tls, auth, 10, 10));
    let out = site.run(scenario_name, &[]);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    let received = server.received();
    assert_eq!(received.len(), 1, "{}", text(&out.stderr));
    let (mail, meta) = &received[0];
    mail.assert_no_secret();
    mail.assert_wire_format();
    assert_eq!(meta["tls"], serde_json::json!(tls != "none"), "{meta}");
    assert_eq!(
        meta["auth"],
        if auth {
            serde_json::json!("premarket")
        } else {
            serde_json::Value::Null
        },
        "{meta}"
    );
    assert_eq!(meta["rcpt"], serde_json::json!(["oncall@lab.test"]));
    assert!(
        mail.subject.starts_with(if code == 0 {
            "[premarket] OK lab "
        } else {
            "[premarket] FAIL lab "
        }),
        "{}",
        mail.subject
    );
    assert!(
        !mail.text.is_empty() && mail.html.contains("<html"),
        "both alternatives"
    );
    let report: premarket::Report = serde_json::from_slice(mail.attachment("report.json")).unwrap();
    assert_eq!(i32::from(report.exit_code()), code);
}

#[test]
fn aiosmtpd_plain() {
    deliver("plain", "none", false, "healthy", 0);
}

#[test]
fn aiosmtpd_starttls_with_auth() {
    deliver("starttls", "starttls", true, "lanz-unsaved", 1);
}

#[test]
fn aiosmtpd_implicit_tls_with_auth() {
    deliver("tls", "tls", true, "healthy", 0);
}

#[test]
fn aiosmtpd_stalled_in_data_then_refused_then_delivered_from_the_outbox() {
    if !available() {
        return;
    }
    let site = Site::new("");
    let outbox = |site: &Site| {
        files(&site.archive().join("outbox"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .count()
    };

    let hang = Aiosmtpd::start("hang");
    site.set_extra(&hang.email_yaml("none", false, 1, 2));
    let start = Instant::now();
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no answer within 1 s"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(15));
    assert_eq!(outbox(&site), 1);
    drop(hang);

    let refused = free_port();
    site.set_extra(&format!("email:\n  host: 127.0.0.1\n  port: {refused}\n  tls: none\n  from: premarket@lab.test\n  to: [oncall@lab.test]\n  timeout_s: 2\n  retry_for_s: 3\n"));
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The fresh report is tried first; with the relay down the backlog is not tried in vain.
    assert!(stderr.contains("was not delivered"), "{stderr}");
    assert!(stderr.contains("after 2 attempt(s)"), "{stderr}");
    assert_eq!(outbox(&site), 2);

    let server = Aiosmtpd::start("starttls");
    site.set_extra(&server.email_yaml("starttls", true, 10, 10));
    let out = site.run("lanz-unsaved", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let received = server.received();
    let subjects: Vec<&str> = received.iter().map(|(m, _)| m.subject.as_str()).collect();
    assert_eq!(subjects.len(), 3, "{subjects:?}");
    // The fresh report first, then the backlog, oldest first.
    assert!(subjects[0].starts_with("[premarket] FAIL"), "{subjects:?}");
    assert!(
        subjects[1].starts_with("[premarket] OK") && subjects[2].starts_with("[premarket] OK"),
        "{subjects:?}"
    );
    assert_eq!(outbox(&site), 0);
}
