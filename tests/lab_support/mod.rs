//! A minimal russh client for the lab tests: connect with the lab's known_hosts, log in with
//! a password, open a PTY shell and read until the prompt (answering `--More--` with a space).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use premarket::lab::{Lab, LabDevice, topology};
use regex::Regex;
use russh::ChannelMsg;
use russh::client;
use russh::keys::{PublicKeyOrCertificate, check_known_hosts_path};

/// Verifies the server key against the lab's known_hosts and remembers what it found.
pub struct Verify {
    pub known_hosts: PathBuf,
    pub port: u16,
    pub verdict: Arc<Mutex<String>>,
}

impl client::Handler for Verify {
    type Error = russh::Error;
    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let PublicKeyOrCertificate::PublicKey { key, .. } = key else {
            return Ok(false);
        };
        let verdict = match check_known_hosts_path("127.0.0.1", self.port, key, &self.known_hosts) {
            Ok(true) => "match".to_string(),
            Ok(false) => "unknown".to_string(),
            Err(e) => format!("{e}"),
        };
        let ok = verdict == "match";
        *self.verdict.lock().unwrap() = verdict;
        Ok(ok)
    }
}

/// The device's own login password (every lab device but the first of each platform has its
/// own).
pub fn password(device: &LabDevice) -> &str {
    &device.password
}

pub async fn connect(lab: &Lab, name: &str) -> Result<client::Handle<Verify>, String> {
    let device = lab.device(name).expect("device");
    let verdict = Arc::new(Mutex::new(String::new()));
    let handler = Verify {
        known_hosts: lab.baselines().join("known_hosts"),
        port: device.addr.port(),
        verdict: verdict.clone(),
    };
    let config = Arc::new(client::Config::default());
    let mut handle = client::connect(config, device.addr, handler)
        .await
        .map_err(|e| format!("connect: {e} (host key: {})", verdict.lock().unwrap()))?;
    let auth = handle
        .authenticate_password(topology::USER, password(device))
        .await
        .map_err(|e| e.to_string())?;
    if !auth.success() {
        return Err("authentication failed".into());
    }
    Ok(handle)
}

/// A PTY shell read up to the prompt.
pub struct Term {
    pub channel: russh::Channel<client::Msg>,
    pub prompt: Regex,
    pub buf: String,
}

impl Term {
    pub async fn open(handle: &client::Handle<Verify>, rows: u32, prompt: &str) -> Term {
        let channel = handle.channel_open_session().await.expect("session");
        channel
            .request_pty(true, "vt100", 200, rows, 0, 0, &[])
            .await
            .expect("pty");
        channel.request_shell(true).await.expect("shell");
        let mut t = Term {
            channel,
            prompt: Regex::new(prompt).unwrap(),
            buf: String::new(),
        };
        t.until_prompt(Duration::from_secs(10))
            .await
            .expect("first prompt");
        t
    }

    /// Reads until the buffer ends with the prompt (answering `--More--` with a space).
    pub async fn until_prompt(&mut self, limit: Duration) -> Result<String, String> {
        self.until(limit, true).await
    }

    pub async fn until(&mut self, limit: Duration, answer_pager: bool) -> Result<String, String> {
        let deadline = Instant::now() + limit;
        loop {
            if self.prompt.is_match(&self.buf) {
                return Ok(std::mem::take(&mut self.buf));
            }
            if answer_pager && self.buf.ends_with("--More-- ") {
                self.buf.push_str("<MORE>");
                self.channel
                    .data(&b" "[..])
                    .await
                    .map_err(|e| e.to_string())?;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.channel.wait()).await {
                Err(_) => return Err(format!("timeout; got {:?}", self.buf)),
                Ok(None) | Ok(Some(ChannelMsg::Close)) | Ok(Some(ChannelMsg::Eof)) => {
                    return Err(format!("closed; got {:?}", self.buf));
                }
                Ok(Some(ChannelMsg::Data { data })) => {
                    self.buf.push_str(&String::from_utf8_lossy(&data))
                }
                Ok(Some(_)) => {}
            }
        }
    }

    pub async fn send(&mut self, line: &str) {
        self.channel
            .data(format!("{line}\n").as_bytes())
            .await
            .expect("send");
    }

    pub async fn cmd(&mut self, line: &str) -> String {
        self.send(line).await;
        self.until_prompt(Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{line}: {e}"))
    }
}

pub const EOS_PROMPT: &str = r"(^|\r\n)sw1(\(config\))?[>#]$";
pub const FGT_PROMPT: &str = r"(^|\r\n)fw1 (\([\w-]+\) )?# $";

pub async fn eos_enabled(lab: &Lab) -> (client::Handle<Verify>, Term) {
    let handle = connect(lab, "sw1").await.expect("connect sw1");
    let mut t = Term::open(&handle, 24, EOS_PROMPT).await;
    t.send("enable").await;
    t.until_prompt_or_password().await;
    t.cmd(topology::EOS_ENABLE_SECRET).await;
    (handle, t)
}

impl Term {
    pub async fn until_prompt_or_password(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.buf.ends_with("Password: ") {
            match tokio::time::timeout_at(deadline.into(), self.channel.wait()).await {
                Ok(Some(ChannelMsg::Data { data })) => {
                    self.buf.push_str(&String::from_utf8_lossy(&data))
                }
                Ok(Some(_)) => {}
                other => panic!("no Password: prompt ({other:?}); got {:?}", self.buf),
            }
        }
        self.buf.clear();
    }
}

/// The output between the echoed command line and the prompt, with `\n` line ends.
pub fn body(raw: &str) -> String {
    let raw = raw.replace("\r\n", "\n");
    let after_echo = raw.split_once('\n').map(|(_, r)| r).unwrap_or_default();
    after_echo
        .rsplit_once('\n')
        .map(|(b, _)| format!("{b}\n"))
        .unwrap_or_default()
}

/// The JSON document an EOS `| json` command printed.
pub fn json_of(raw: &str) -> serde_json::Value {
    let text = body(raw);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A healthy and a faulty lab side by side (a healthy morning, then the fault).
pub async fn lab_with(scenarios: &[&str]) -> Lab {
    let scenarios: Vec<premarket::lab::Scenario> =
        scenarios.iter().map(|s| s.parse().unwrap()).collect();
    Lab::start(&scenarios, 2).await.expect("lab starts")
}

/// An enabled switch session with the pager off.
pub async fn eos_ready(lab: &Lab) -> (client::Handle<Verify>, Term) {
    let (h, mut t) = eos_enabled(lab).await;
    t.cmd("terminal length 0").await;
    (h, t)
}

/// A firewall session on a tall terminal (premarket asks for 1000 rows).
pub async fn fortigate_ready(lab: &Lab) -> (client::Handle<Verify>, Term) {
    let h = connect(lab, "fw1").await.expect("connect fw1");
    let t = Term::open(&h, 1000, FGT_PROMPT).await;
    (h, t)
}
