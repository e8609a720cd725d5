//! The bodies each kind of endpoint is sent, from one [`Notice`]: premarket's own JSON for a
//! `webhook`, a Slack incoming-webhook message, a Teams Adaptive Card, PagerDuty events. Each
//! is a JSON value; PagerDuty's `routing_key` is not in it (it is a secret: the outbox keeps
//! the body, the key is added only to post it).

use serde_json::{Value, json};

use super::notice::{Finding, Notice, footer};
use premarket_config::{NotifyKind, NotifyOn};

/// The version of the `webhook` JSON, for consumers.
pub const WEBHOOK_SCHEMA: &str = "premarket.notify/1";

/// Slack's limits: a header's text, a section's text.
const SLACK_HEADER: usize = 150;
const SLACK_SECTION: usize = 3000;
/// PagerDuty's limit on `payload.summary`.
const PAGERDUTY_SUMMARY: usize = 1024;

/// The messages for one endpoint of `kind`, in the order they are sent (PagerDuty resolves
/// each incident it opened; an `ok` run sends it nothing).
pub fn render(kind: NotifyKind, notice: &Notice) -> Vec<Value> {
    match kind {
        NotifyKind::Webhook => vec![webhook(notice)],
        NotifyKind::Slack => vec![slack(notice)],
        NotifyKind::Teams => vec![super::teams::card(notice)],
        NotifyKind::PagerDuty => pagerduty(notice),
    }
}

/// premarket's JSON: what report.json says, narrowed to what needs attention.
fn webhook(n: &Notice) -> Value {
    let mut body = json!({
        "schema": WEBHOOK_SCHEMA,
        "event": n.event,
        "headline": n.headline,
        "site": n.site,
        "run_id": n.run_id,
        "started_at": n.started_at,
        "status": n.status,
        "counts": n.counts,
        "offline": n.offline,
        "partial": n.partial,
        "findings": n.findings,
        "results": n.results,
    });
    let extra = [
        ("devices_not_inspected", json!(n.devices_not_inspected)),
        ("config_errors", json!(n.config_errors)),
        ("problems", json!(n.problems)),
    ];
    for (key, value) in extra {
        if value.as_array().is_some_and(|a| !a.is_empty()) {
            body[key] = value;
        }
    }
    if n.more > 0 {
        body["more_findings"] = json!(n.more);
    }
    if let Some((status, run)) = &n.recovered_from {
        body["recovered_from"] = json!({ "status": status, "run_id": run });
    }
    body
}

/// Slack's mrkdwn: `&`, `<` and `>` are markup.
fn mrkdwn(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// At most `n` characters, the cut marked.
pub fn cut(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let mut out: String = text.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn slack(n: &Notice) -> Value {
    let mut blocks = vec![json!({
        "type": "header",
        "text": { "type": "plain_text", "text": cut(&n.headline, SLACK_HEADER) },
    })];
    for f in &n.findings {
        blocks.push(json!({
            "type": "section",
            "text": { "type": "mrkdwn", "text": cut(&slack_finding(f), SLACK_SECTION) },
        }));
    }
    let mut notes: Vec<String> = n
        .config_errors
        .iter()
        .map(|e| format!("`{}`", mrkdwn(e)))
        .collect();
    notes.extend(n.more_line());
    notes.extend(n.problems.iter().map(|p| format!("_{}_", mrkdwn(p))));
    if n.findings.is_empty() && notes.is_empty() {
        notes.push(n.quiet_words());
    }
    if !notes.is_empty() {
        blocks.push(json!({
            "type": "section",
            "text": { "type": "mrkdwn", "text": cut(&notes.join("\n"), SLACK_SECTION) },
        }));
    }
    blocks.push(json!({
        "type": "context",
        "elements": [{ "type": "mrkdwn", "text": mrkdwn(&footer(n)) }],
    }));
    // The top-level text (the notification, and the message where blocks are not shown) is
    // mrkdwn too: `<!channel>` in it would page the whole room.
    json!({ "text": mrkdwn(&n.headline), "blocks": blocks })
}

/// `*FAIL* sw1 `eos.lanz.persisted` — LANZ not saved: ...`, then the note, the remedy and the
/// rerun command.
fn slack_finding(f: &Finding) -> String {
    let what = match &f.check {
        Some(check) => format!("`{}`", mrkdwn(check)),
        None => "(device)".to_string(),
    };
    let mut text = format!(
        "*{}* {} {what} — {}",
        f.status,
        mrkdwn(&f.device),
        mrkdwn(&f.text)
    );
    if let Some(note) = &f.note {
        text.push_str(&format!("\n_{}_", mrkdwn(note)));
    }
    if !f.blocked.is_empty() {
        text.push_str(&format!("\nBlocked: {}", mrkdwn(&f.blocked.join(", "))));
    }
    if !f.remedy.is_empty() {
        text.push_str(&format!("\n*Remedy:* {}", mrkdwn(&f.remedy)));
    }
    text.push_str(&format!("\n*Rerun:* `{}`", mrkdwn(&f.rerun)));
    text
}

/// Events API v2: a trigger for a FAIL or ERROR run, one resolve per incident it opened for a
/// recovered run, nothing for an OK run.
fn pagerduty(n: &Notice) -> Vec<Value> {
    match n.event {
        NotifyOn::Fail | NotifyOn::Error => {
            let top = n.findings.first();
            let mut payload = json!({
                "summary": cut(&n.headline, PAGERDUTY_SUMMARY),
                "source": format!("premarket {}", n.site),
                "severity": n.severity,
                "timestamp": n.started_at,
                "group": n.site,
                "custom_details": {
                    "status": n.status,
                    "counts": n.counts,
                    "run_id": n.run_id,
                    "offline": n.offline,
                    "findings": n.findings.iter().map(Finding::line).collect::<Vec<_>>(),
                    "config_errors": n.config_errors,
                },
            });
            if let Some(top) = top {
                payload["component"] = json!(top.device);
                payload["class"] = json!(top.check.clone().unwrap_or_else(|| "device".into()));
            }
            vec![json!({
                "event_action": "trigger",
                "dedup_key": n.dedup_key,
                "client": "premarket",
                "payload": payload,
            })]
        }
        NotifyOn::Recovered => n
            .resolve
            .iter()
            .map(|key| json!({ "event_action": "resolve", "dedup_key": key }))
            .collect(),
        NotifyOn::Ok => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::State;
    use crate::redact::Redactor;
    use crate::{CheckResult, Report};
    use premarket_core::Status;

    #[test]
    fn device_text_cannot_mention_everyone_or_link_in_slack() {
        let hostile = "<!channel> <@U024BE7LH> <https://evil.example|click> & more";
        let r = CheckResult::new("eos.lanz.persisted", "sw1", Status::Fail, hostile);
        let mut report = Report::new(
            "r1".into(),
            "lab".into(),
            "2026-12-01T08:00:00.000+08:00".into(),
            "2026-12-01T08:00:01.000+08:00".into(),
            vec![r],
        );
        report.problems.push(hostile.into());
        let mut notice = Notice::new(
            &report,
            NotifyOn::Fail,
            &State::default(),
            chrono_tz::Asia::Taipei,
            &Redactor::default(),
        );
        // The headline is the email's subject; make sure it carries the text too.
        notice.headline.push_str(hostile);
        let body = render(NotifyKind::Slack, &notice).remove(0);
        let mut texts = vec![body["text"].as_str().unwrap().to_string()];
        for block in body["blocks"].as_array().unwrap() {
            // The header is plain_text: Slack reads no markup in it.
            if block["type"] != "header" {
                texts.push(block.to_string());
            }
        }
        for text in texts {
            assert!(!text.contains("<!") && !text.contains("<@"), "{text}");
            assert!(!text.contains("<https"), "{text}");
        }
        assert!(
            body["text"].as_str().unwrap().contains("&lt;!channel&gt;"),
            "{body}"
        );
    }
}
