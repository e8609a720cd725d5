//! The Teams message: what a Workflows webhook ("Post to a channel when a webhook request is
//! received") takes, an Adaptive Card in `attachments` (the retired Office 365 connectors'
//! MessageCard is not accepted there). One column that reads on a phone: the headline in the
//! verdict's colour, one container per finding with its remedy and rerun command, then the
//! site, run and counts.
//!
//! Teams renders Markdown in every TextBlock and fact value, so every text is escaped
//! ([`markdown`]): a device that prints `[Click to resync](https://evil.example)` shows that
//! text, never a link.

use serde_json::{Value, json};

use super::notice::{Notice, footer, tone};
use crate::escape::markdown;
use premarket_config::NotifyOn;

pub const CONTENT_TYPE: &str = "application/vnd.microsoft.card.adaptive";

pub fn card(n: &Notice) -> Value {
    let mut body = vec![json!({
        "type": "TextBlock",
        "text": markdown(&n.headline),
        "weight": "Bolder",
        "size": "Medium",
        "wrap": true,
        "color": tone(n.status, n.event),
    })];
    for f in &n.findings {
        let title = markdown(&format!(
            "{} {} {}",
            f.status,
            f.device,
            f.check.as_deref().unwrap_or("(device)")
        ));
        let mut items = vec![
            json!({ "type": "TextBlock", "text": title, "weight": "Bolder", "wrap": true,
                    "color": tone(f.status, NotifyOn::Fail) }),
            json!({ "type": "TextBlock", "text": markdown(&f.text), "wrap": true }),
        ];
        if let Some(note) = &f.note {
            items
                .push(json!({ "type": "TextBlock", "text": markdown(note), "wrap": true, "isSubtle": true }));
        }
        let mut facts = Vec::new();
        if !f.blocked.is_empty() {
            facts.push(json!({ "title": "Blocked", "value": markdown(&f.blocked.join(", ")) }));
        }
        if !f.remedy.is_empty() {
            facts.push(json!({ "title": "Remedy", "value": markdown(&f.remedy) }));
        }
        facts.push(json!({ "title": "Rerun", "value": markdown(&f.rerun) }));
        items.push(json!({ "type": "FactSet", "facts": facts }));
        body.push(json!({ "type": "Container", "separator": true, "items": items }));
    }
    let mut notes: Vec<String> = n.config_errors.clone();
    notes.extend(n.more_line());
    notes.extend(n.problems.iter().cloned());
    if n.findings.is_empty() && notes.is_empty() {
        notes.push(n.quiet_words());
    }
    for note in notes {
        body.push(json!({ "type": "TextBlock", "text": markdown(&note), "wrap": true }));
    }
    body.push(json!({
        "type": "TextBlock", "text": markdown(&footer(n)), "wrap": true, "isSubtle": true, "size": "Small",
    }));
    json!({
        "type": "message",
        "attachments": [{
            "contentType": CONTENT_TYPE,
            "contentUrl": null,
            "content": {
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "msteams": { "width": "Full" },
                "body": body,
            },
        }],
    })
}
