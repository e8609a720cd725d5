//! Shared by the notification tests: a real HTTP server on loopback (tiny_http, started by the
//! test on a free port) that records every request it is sent and answers each path as the
//! test says (200, or 500 for the first N requests), and the `notify:` section that points a
//! test site at it, with canary tokens in every URL.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The token in each endpoint's URL path (or query): none may reach any output.
pub const SLACK_TOKEN: &str = "CANARY-slack-tok3n-5d1e";
pub const TEAMS_TOKEN: &str = "CANARY-teams-sig-77ab";
pub const WEBHOOK_TOKEN: &str = "CANARY-hook-tok3n-0c4f";
pub const PAGERDUTY_KEY: &str = "CANARY-pd-routing-key-9e21";

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Post {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    pub content_type: String,
    pub body: String,
    /// What the server answered.
    pub status: u16,
}

impl Post {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} sent a body that is not JSON ({e}): {}",
                self.path, self.body
            )
        })
    }
}

/// The recording server.
pub struct Recorder {
    pub port: u16,
    posts: Arc<Mutex<Vec<Post>>>,
    /// Path prefix -> the status the next requests get, and how many more get it.
    failing: Arc<Mutex<HashMap<String, (u16, u32)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Recorder {
    pub fn start() -> Recorder {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind the HTTP server");
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let failing: Arc<Mutex<HashMap<String, (u16, u32)>>> = Arc::new(Mutex::new(HashMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, f, s) = (posts.clone(), failing.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let Ok(Some(mut request)) = server.recv_timeout(Duration::from_millis(50)) else {
                    continue;
                };
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let path = request.url().to_string();
                let status = {
                    let mut failing = f.lock().unwrap();
                    let answer = failing
                        .iter_mut()
                        .find(|(prefix, (_, n))| path.starts_with(prefix.as_str()) && *n > 0);
                    match answer {
                        Some((_, (status, n))) => {
                            *n -= 1;
                            *status
                        }
                        None => 200,
                    }
                };
                let content_type = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("content-type"))
                    .map(|h| h.value.to_string())
                    .unwrap_or_default();
                p.lock().unwrap().push(Post {
                    method: request.method().to_string(),
                    path,
                    content_type,
                    body,
                    status,
                });
                let answer = if status == 200 { "ok" } else { "boom" };
                let mut response =
                    tiny_http::Response::from_string(answer).with_status_code(status);
                if (300..400).contains(&status) {
                    let moved = format!("/moved{}", request.url());
                    response.add_header(
                        tiny_http::Header::from_bytes("Location", moved.as_bytes()).unwrap(),
                    );
                }
                let _ = request.respond(response);
            }
        });
        Recorder {
            port,
            posts,
            failing,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The next `n` requests to a path starting with `prefix` answer 500.
    pub fn fail_next(&self, prefix: &str, n: u32) {
        self.answer_next(prefix, 500, n);
    }

    /// The next `n` requests to a path starting with `prefix` answer `status` (a 3xx with a
    /// `Location` elsewhere).
    pub fn answer_next(&self, prefix: &str, status: u16, n: u32) {
        self.failing
            .lock()
            .unwrap()
            .insert(prefix.to_string(), (status, n));
    }

    /// Everything received so far, in order.
    pub fn posts(&self) -> Vec<Post> {
        self.posts.lock().unwrap().clone()
    }

    /// What was received on paths starting with `prefix`, in order.
    pub fn to(&self, prefix: &str) -> Vec<Post> {
        self.posts()
            .into_iter()
            .filter(|p| p.path.starts_with(prefix))
            .collect()
    }

    pub fn clear(&self) {
        self.posts.lock().unwrap().clear();
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `cmd` without the proxy variables of the environment it was started from: the endpoints
/// are on loopback.
pub fn clear_proxies(cmd: &mut assert_cmd::Command) {
    for proxy in ["ALL_PROXY", "HTTPS_PROXY", "HTTP_PROXY"] {
        cmd.env_remove(proxy).env_remove(proxy.to_lowercase());
    }
}

/// The URL paths of the four endpoints (the tokens are in them).
pub fn slack_path() -> String {
    format!("/services/T0CANARY/B0CANARY/{SLACK_TOKEN}")
}
pub fn teams_path() -> String {
    format!("/workflows/premarket/triggers/manual/paths/invoke?api-version=1&sig={TEAMS_TOKEN}")
}
pub fn webhook_path() -> String {
    format!("/hooks/premarket/{WEBHOOK_TOKEN}")
}
pub const PAGERDUTY_PATH: &str = "/v2/enqueue";

/// The environment that holds the four URLs and the routing key.
pub fn env(recorder: &Recorder) -> Vec<(&'static str, String)> {
    let base = recorder.base();
    vec![
        ("NOTIFY_SLACK_URL", format!("{base}{}", slack_path())),
        ("NOTIFY_TEAMS_URL", format!("{base}{}", teams_path())),
        ("NOTIFY_WEBHOOK_URL", format!("{base}{}", webhook_path())),
        ("NOTIFY_PD_URL", format!("{base}{PAGERDUTY_PATH}")),
        ("NOTIFY_PD_KEY", PAGERDUTY_KEY.to_string()),
    ]
}

/// `notify:` with the four kinds, each `timeout_s` 2 and one attempt per run (`retry_for_s:
/// 0`) unless `extra` (appended to every entry) says otherwise.
pub fn notify_yaml(extra: &str) -> String {
    let entry = |kind: &str, secrets: &str| {
        format!("  - kind: {kind}\n{secrets}    timeout_s: 2\n    retry_for_s: 0\n{extra}")
    };
    [
        "notify:\n".to_string(),
        entry("webhook", "    url: { env: NOTIFY_WEBHOOK_URL }\n"),
        entry("slack", "    url: { env: NOTIFY_SLACK_URL }\n"),
        entry("teams", "    url: { env: NOTIFY_TEAMS_URL }\n"),
        entry(
            "pagerduty",
            "    url: { env: NOTIFY_PD_URL }\n    routing_key: { env: NOTIFY_PD_KEY }\n",
        ),
    ]
    .concat()
}

/// Asserts that no token or routing key is in `text`, nor any 8 characters of one in a row:
/// a hex dump of a request (16 bytes a line) would show a token in pieces.
pub fn assert_no_token(what: &str, text: &str) {
    for token in [SLACK_TOKEN, TEAMS_TOKEN, WEBHOOK_TOKEN, PAGERDUTY_KEY] {
        let chars: Vec<char> = token.chars().collect();
        for piece in chars.windows(8).map(|w| w.iter().collect::<String>()) {
            assert!(
                !text.contains(&piece),
                "{piece:?} of {token} leaked into {what}:\n{}",
                text.lines()
                    .filter(|l| l.contains(&piece))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}
