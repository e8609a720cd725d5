//! Device text cannot become markup in a chat room. The example site's switch prints hostile
//! text where its NTP status should be (a Markdown link, a Slack link and mentions, an image
//! and an autolink, emphasis); the check quotes it in its FAIL, and the run notifies every
//! kind of endpoint through a real HTTP server on loopback. One table: each hostile text
//! against each kind. Where a kind reads markup, no hostile piece reaches it live (Teams:
//! Markdown; Slack: mrkdwn's `<...>`); where it reads none (PagerDuty, premarket's own webhook
//! JSON), the text arrives as the device printed it.

use crate::common;
use crate::email_support;
use crate::notify_support;

use std::time::Duration;

use email_support::text;
use notify_support::*;
use serde_json::Value;

/// What a device (or whoever can set its banner, a description, an NTP status) prints; each
/// names evil.example, so the texts that carry it can be found in every body.
const HOSTILE: [&str; 4] = [
    "[Click to resync](https://evil.example/ntp)",
    "<https://evil.example|resync> <!channel> <@U024BE7LH>",
    "![x](https://evil.example/p.png) <https://evil.example>",
    "**now** _it_ ~x~ evil.example",
];

/// Every string in `value`, with where it sits.
fn strings<'a>(value: &'a Value, at: String, out: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(s) => out.push((at, s)),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings(v, format!("{at}[{i}]"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                strings(v, format!("{at}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// The texts of `body` that carry the hostile version string (the finding, its evidence).
fn carriers(body: &Value) -> Vec<(String, &str)> {
    let mut all = Vec::new();
    strings(body, "$".into(), &mut all);
    all.into_iter()
        .filter(|(_, s)| s.contains("evil.example"))
        .collect()
}

/// The characters of `text` that CommonMark reads as themselves: `\x` is a literal `x`.
fn unescaped(text: &str) -> Vec<(char, bool)> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.push((next, false));
                }
            }
            c => out.push((c, true)),
        }
    }
    out
}

/// Markdown a Teams card would render live: a link or image (`](`), an autolink (`<h`),
/// emphasis (`**`, `_x`).
fn live_markdown(text: &str) -> Option<&'static str> {
    let chars = unescaped(text);
    for pair in chars.windows(2) {
        match (pair[0], pair[1]) {
            ((']', true), ('(', true)) => return Some("a link"),
            (('<', true), ('h', _)) => return Some("an autolink"),
            (('*', true), ('*', true)) => return Some("bold"),
            _ => {}
        }
    }
    chars
        .iter()
        .any(|&(c, live)| c == '_' && live)
        .then_some("emphasis")
}

/// Slack mrkdwn read live: `<...>` is a link, `<!channel>` pages the room, `<@U..>` mentions.
fn live_mrkdwn(text: &str) -> Option<&'static str> {
    text.contains('<').then_some("a <...> link or mention")
}

/// Where a kind reads no markup, the text arrives as the device printed it (it is data).
fn verbatim(text: &str, hostile: &str) -> Option<&'static str> {
    (!text.contains(hostile)).then_some("the text changed")
}

/// Runs the example site offline with `hostile` as sw1's NTP status, notifying every kind.
fn notify_with(hostile: &str, recorder: &Recorder) {
    let site = common::Site::example();
    let yaml = site.read("baselines/site.yaml");
    site.write("baselines/site.yaml", &format!("{yaml}{}", notify_yaml("")));
    let outputs = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture("site/healthy"), outputs.path());
    std::fs::write(
        outputs.path().join("sw1/show-ntp-status.txt"),
        format!("sw1>show ntp status\nunsynchronised {hostile}\nsw1>\n"),
    )
    .unwrap();
    let mut cmd = assert_cmd::Command::cargo_bin("premarket").unwrap();
    cmd.arg("--dir")
        .arg(site.path())
        .args(["run", "--offline"])
        .arg(outputs.path())
        .args(["--no-email", "--notify"])
        .timeout(Duration::from_secs(120));
    for (name, value) in env(recorder) {
        cmd.env(name, value);
    }
    clear_proxies(&mut cmd);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

#[test]
fn no_device_text_reaches_a_chat_room_as_markup() {
    type Live = fn(&str, &str) -> Option<&'static str>;
    // kind, its path, what counts as live markup in one of its texts
    let kinds: [(&str, String, Live); 4] = [
        ("teams", teams_path(), |t, _| live_markdown(t)),
        ("slack", slack_path(), |t, _| live_mrkdwn(t)),
        ("pagerduty", PAGERDUTY_PATH.to_string(), verbatim),
        ("webhook", webhook_path(), verbatim),
    ];
    for hostile in HOSTILE {
        let recorder = Recorder::start();
        notify_with(hostile, &recorder);
        for (kind, path, live) in &kinds {
            let path = path.split('?').next().unwrap();
            let posts = recorder.to(path);
            assert_eq!(posts.len(), 1, "{kind}: one message");
            let body = posts[0].json();
            let texts = carriers(&body);
            assert!(!texts.is_empty(), "{kind}: {hostile} is not in {body:#}");
            for (at, text) in texts {
                if let Some(what) = live(text, hostile) {
                    panic!("{kind} {at}: {what} from the device's text: {text}");
                }
            }
        }
    }
}
