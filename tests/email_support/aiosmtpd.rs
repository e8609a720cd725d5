//! A real SMTP server for the tests: aiosmtpd on loopback, started by each test (a Python script
//! written to a temp dir, on a free port) in one of its modes (plain, STARTTLS or implicit TLS
//! with AUTH, or one that stalls in the middle of DATA), saving each message it accepts.
//!
//! Needs `python3` with `aiosmtpd` (`pip install aiosmtpd` or Debian `python3-aiosmtpd`). When it
//! is missing the tests skip with a message, unless PREMARKET_REQUIRE_AIOSMTPD=1 (CI), where they
//! fail.

use std::path::PathBuf;
use std::process::{Child, Command};

use super::*;

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
pub fn available() -> bool {
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
pub struct Aiosmtpd {
    child: Child,
    pub port: u16,
    out: PathBuf,
    cert: PathBuf,
    _dir: tempfile::TempDir,
}

impl Aiosmtpd {
    pub fn start(mode: &str) -> Aiosmtpd {
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
    pub fn received(&self) -> Vec<(Received, serde_json::Value)> {
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

    pub fn email_yaml(&self, tls: &str, auth: bool, timeout_s: u64, retry_for_s: u64) -> String {
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
