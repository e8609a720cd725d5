//! The SSH floor (issue 23): what russh, the SSH crate the project is built on, costs per device
//! before premarket does anything of its own. Not a timed test.
//!
//! `premarket --dir SITE plan > PLAN`, then `cargo bench --bench ssh_floor -- SITE PLAN`
//! (`tests/bench/fleet.sh` does both against its lab). Every device of the plan at once, a bare
//! client does what a session of premarket's must: TCP connect, the handshake with premarket's
//! algorithms and its host key check (the site's known_hosts), password login, a pty and a
//! shell, then the plan's lines one by one, each read up to the prompt (`--More--` and the
//! FortiGate's banner answered, `enable` given its secret), the second samples sent their gap
//! after the first, and a goodbye. Nothing is parsed, judged, redacted, spooled or archived; a
//! reply is counted and let go of. Prints devices, lines, bytes, wall time, CPU time (user +
//! system of this process) and peak RSS: the part of premarket's cost per device that no change
//! of premarket's own code can take away.

mod usage;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use premarket_ssh::hostkey::{Expected, KnownHosts, Role};
use premarket_ssh::transport;
use regex::Regex;
use russh::ChannelMsg;
use usage::{cpu_seconds, peak_rss_kb};

/// One device as the plan and its baseline give it.
struct Device {
    name: String,
    host: String,
    port: u16,
    user: String,
    password: String,
    enable: Option<String>,
    lines: Vec<Line>,
}

struct Line {
    text: String,
    /// A second sample: sent this long after the same command's first answer.
    gap: Option<Duration>,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [site, plan] = args.as_slice() else {
        eprintln!(
            "usage: cargo bench --bench ssh_floor -- SITE PLAN (PLAN: `premarket --dir SITE plan`)"
        );
        std::process::exit(2);
    };
    let site = PathBuf::from(site);
    let plan = std::fs::read_to_string(plan).unwrap_or_else(|e| fail(&format!("{plan}: {e}")));
    let devices: Vec<Device> = planned(&plan)
        .into_iter()
        .map(|(name, lines)| device(&site, name, lines))
        .collect();
    let known_hosts = Arc::new(KnownHosts::read(&site.join("baselines/known_hosts")));
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| fail(&e.to_string()));
    let cpu_start = cpu_seconds(libc::RUSAGE_SELF);
    let start = Instant::now();
    let results = runtime.block_on(async {
        let tasks: Vec<_> = devices
            .into_iter()
            .map(|d| tokio::spawn(session(d, known_hosts.clone())))
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap_or_else(|e| Err(e.to_string())));
        }
        results
    });
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds(libc::RUSAGE_SELF) - cpu_start;
    let failed: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let (lines, bytes) = results
        .iter()
        .flatten()
        .fold((0, 0), |(l, b), (dl, db)| (l + dl, b + db));
    let n = results.len();
    println!(
        "bare russh: {n} devices, {lines} lines, {bytes} bytes; {wall:.2} s wall, {cpu:.2} s CPU \
         ({:.2} ms per device), {} KB peak RSS; {} failed",
        1000.0 * cpu / n.max(1) as f64,
        peak_rss_kb().unwrap_or(0),
        failed.len()
    );
    if let Some(first) = failed.first() {
        eprintln!("first failure: {first}");
        std::process::exit(1);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("ssh_floor: {message}");
    std::process::exit(2)
}

/// The devices of `premarket plan` and the lines each sends, setup lines included; the enable
/// secret is typed where the plan shows its placeholder, the closing empty line is sent last.
fn planned(plan: &str) -> Vec<(String, Vec<Line>)> {
    let head = Regex::new(r"^(\S+) \((eos|fortigate), ").expect("a valid pattern");
    let gap = Regex::new(r"sent (\d+) s after").expect("a valid pattern");
    let mut out: Vec<(String, Vec<Line>)> = Vec::new();
    for line in plan.lines() {
        if let Some(c) = head.captures(line) {
            out.push((c[1].to_string(), Vec::new()));
            continue;
        }
        let Some((_, lines)) = out.last_mut() else {
            continue;
        };
        let Some(body) = line.strip_prefix("  ") else {
            continue;
        };
        if body.starts_with('(') || body.starts_with("<enable secret") {
            continue;
        }
        let (text, note) = match body.split_once(" # ") {
            Some((text, note)) => (text.trim_end(), note),
            None => (body.trim_end(), ""),
        };
        let gap = note
            .contains("second sample")
            .then(|| gap.captures(note).and_then(|c| c[1].parse().ok()))
            .flatten()
            .map(Duration::from_secs);
        lines.push(Line {
            text: text.trim().to_string(),
            gap,
        });
    }
    out
}

/// The device's address and secrets from its baseline (the lab writes them one per line).
fn device(site: &Path, name: String, lines: Vec<Line>) -> Device {
    let path = site.join("baselines").join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    let key = |key: &str| {
        Regex::new(&format!(r"(?m)^\s+{key}:\s*(.+)$"))
            .expect("a valid pattern")
            .captures(&text)
            .map(|c| c[1].trim().to_string())
    };
    let secret = |reference: String| {
        let file = Regex::new(r#"file:\s*"?([^"}]+)"?"#)
            .expect("a valid pattern")
            .captures(&reference)
            .map(|c| c[1].trim().to_string())
            .unwrap_or_else(|| fail(&format!("{name}: a secret not in a file: {reference}")));
        std::fs::read_to_string(&file)
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|e| fail(&format!("{file}: {e}")))
    };
    let need = |k: &str| key(k).unwrap_or_else(|| fail(&format!("{name}: no ssh {k}")));
    Device {
        host: need("host"),
        port: need("port")
            .parse()
            .unwrap_or_else(|_| fail("a port that is not a number")),
        user: need("user"),
        password: secret(need("password")),
        enable: key("enable_secret").map(secret),
        lines,
        name,
    }
}

/// One device's session; the lines sent and the bytes read, or what failed, named.
async fn session(device: Device, known_hosts: Arc<KnownHosts>) -> Result<(usize, usize), String> {
    drive(&device, &known_hosts)
        .await
        .map_err(|e| format!("{}: {e}", device.name))
}

async fn drive(device: &Device, known_hosts: &KnownHosts) -> Result<(usize, usize), String> {
    let expected = Expected {
        device: &device.name,
        role: Role::Device,
        host: &device.host,
        port: device.port,
        pin: None,
        known_hosts: Some(known_hosts),
    };
    let timeout = Duration::from_secs(60);
    let handler = transport::verifying(expected);
    let mut handle = transport::connect(&device.host, device.port, false, timeout, handler)
        .await
        .map_err(text)?;
    let auth = handle
        .authenticate_password(&device.user, &device.password)
        .await
        .map_err(text)?;
    if !auth.success() {
        return Err("password refused".into());
    }
    let channel = handle.channel_open_session().await.map_err(text)?;
    channel
        .request_pty(true, "vt100", 511, 1000, 0, 0, &[])
        .await
        .map_err(text)?;
    channel.request_shell(true).await.map_err(text)?;
    let mut shell = Shell {
        channel,
        tail: Vec::new(),
        bytes: 0,
    };
    shell.until_prompt().await?;
    let mut answered: HashMap<&str, Instant> = HashMap::new();
    for line in &device.lines {
        if let Some(gap) = line.gap
            && let Some(first) = answered.get(line.text.as_str())
        {
            tokio::time::sleep_until((*first + gap).into()).await;
        }
        shell.send(&line.text).await?;
        if line.text == "enable"
            && let Some(secret) = &device.enable
        {
            shell.until(|tail| tail.ends_with(b": ")).await?;
            shell.send(secret).await?;
        }
        shell.until_prompt().await?;
        answered.entry(&line.text).or_insert_with(Instant::now);
    }
    let _ = shell.channel.close().await;
    let _ = handle
        .disconnect(russh::Disconnect::ByApplication, "", "en")
        .await;
    Ok((device.lines.len(), shell.bytes))
}

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A prompt: `name#`, `name>`, `name (vdom) #`.
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9_.-]+(?: \([A-Za-z0-9_-]+\))? ?[#>$]$").expect("a valid pattern")
});

struct Shell {
    channel: russh::Channel<russh::client::Msg>,
    /// The end of the reply so far (where a prompt or pager would be).
    tail: Vec<u8>,
    bytes: usize,
}

impl Shell {
    async fn send(&mut self, line: &str) -> Result<(), String> {
        let wire = format!("{line}\n");
        self.channel.data(wire.as_bytes()).await.map_err(text)
    }

    /// Reads until the last line is a prompt, answering the pager and the FortiGate's banner on
    /// the way.
    async fn until_prompt(&mut self) -> Result<(), String> {
        self.until(|tail| {
            let last = tail.rsplit(|b| *b == b'\n').next().unwrap_or(tail);
            PROMPT.is_match(String::from_utf8_lossy(last).trim())
        })
        .await
    }

    async fn until(&mut self, done: impl Fn(&[u8]) -> bool) -> Result<(), String> {
        self.tail.clear();
        loop {
            if done(&self.tail) {
                return Ok(());
            }
            let data =
                match tokio::time::timeout(Duration::from_secs(60), self.channel.wait()).await {
                    Err(_) => return Err("no prompt within 60 s".into()),
                    Ok(Some(ChannelMsg::Data { data })) => data,
                    Ok(Some(ChannelMsg::ExtendedData { data, .. })) => data,
                    Ok(Some(_)) => continue,
                    Ok(None) => return Err("the channel closed".into()),
                };
            self.bytes += data.len();
            self.tail.extend_from_slice(&data);
            if self.tail.len() > 256 {
                self.tail.drain(..self.tail.len() - 256);
            }
            let reply = String::from_utf8_lossy(&self.tail);
            let key: Option<&'static [u8]> = match reply.trim_end() {
                r if r.ends_with("--More--") => Some(b" "),
                r if r.ends_with("(Press 'a' to accept):") => Some(b"a"),
                _ => None,
            };
            if let Some(key) = key {
                self.tail.clear();
                self.channel.data(key).await.map_err(text)?;
            }
        }
    }
}
