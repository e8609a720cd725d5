//! One MIME message from a report:
//!
//! ```text
//! multipart/mixed
//! ├── multipart/alternative
//! │   ├── text/plain
//! │   └── text/html            (in multipart/related with inline images, when there are any)
//! ├── report.json
//! ├── raw-<device>.txt         (each device with a FAIL or ERROR)
//! └── extra attachments        (e.g. the probe's latency chart)
//! ```

use lettre::Message;
use lettre::address::Envelope;
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, MultiPart, SinglePart};

use super::attach::{self, Attachment};
use super::context::Context;
use super::{EmailError, html, subject, text};
use crate::Report;
use crate::redact::Redactor;
use premarket_config::Email;
use premarket_core::Status;

/// Sender and recipients.
#[derive(Clone, Debug)]
pub struct Addresses {
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
    /// Added when the report is not OK.
    pub fail_to: Vec<Mailbox>,
}

impl Addresses {
    pub fn of(email: &Email) -> Self {
        Addresses {
            from: email.from.clone(),
            to: email.to.clone(),
            fail_to: email.fail_to.clone(),
        }
    }

    /// For `--email-to-file` on a site without an `email:` section.
    pub fn placeholder() -> Self {
        let mailbox = |s: &str| s.parse::<Mailbox>().expect("static address");
        Addresses {
            from: mailbox("premarket <premarket@localhost>"),
            to: vec![mailbox("on-call <oncall@localhost>")],
            fail_to: Vec::new(),
        }
    }
}

/// A message ready to send or keep: its SMTP envelope and its exact bytes.
#[derive(Clone, Debug)]
pub struct Composed {
    pub subject: String,
    pub envelope: Envelope,
    pub bytes: Vec<u8>,
}

/// Builds the message. Every text part passes `redactor` once more before it is encoded.
pub fn compose(
    report: &Report,
    ctx: &Context,
    to: &Addresses,
    extra: Vec<Attachment>,
    redactor: &Redactor,
) -> Result<Composed, EmailError> {
    let build = |e: &dyn std::fmt::Display| EmailError::Build(e.to_string());
    let subject = redactor.literals(&subject(report, ctx));
    // Date: when the report was finished; Message-ID: generated (random @ this host), so
    // threads and duplicate suppression in mail readers work.
    let date = chrono::DateTime::parse_from_rfc3339(&report.finished_at)
        .map(std::time::SystemTime::from)
        .unwrap_or_else(|_| std::time::SystemTime::now());
    let mut builder = Message::builder()
        .from(to.from.clone())
        .subject(subject.clone())
        .date(date)
        .message_id(None);
    for mailbox in &to.to {
        builder = builder.to(mailbox.clone());
    }
    if report.shown_status() != Status::Ok || !report.config_errors.is_empty() {
        for mailbox in to.fail_to.iter().filter(|m| !to.to.contains(m)) {
            builder = builder.to(mailbox.clone());
        }
    }
    let images: Vec<&Attachment> = extra.iter().filter(|a| a.inline_id.is_some()).collect();
    let plain = SinglePart::plain(redactor.literals(&text::render(report, ctx)));
    let html_part = SinglePart::html(redactor.literals(&html::render(report, ctx, &images)));
    let mut alternative = MultiPart::alternative().singlepart(plain);
    if images.is_empty() {
        alternative = alternative.singlepart(html_part);
    } else {
        let mut related = MultiPart::related().singlepart(html_part);
        for image in &images {
            let ct = ContentType::parse(&image.content_type).map_err(|e| build(&e))?;
            let id = image.inline_id.clone().unwrap_or_default();
            related = related.singlepart(
                lettre::message::Attachment::new_inline(id).body(image.body.clone(), ct),
            );
        }
        alternative = alternative.multipart(related);
    }
    let mut mixed = MultiPart::mixed().multipart(alternative);
    let mut files = vec![attach::report_json(report)];
    files.extend(attach::failing_raw(report));
    files.extend(attach::diffs(report));
    for file in files.iter_mut() {
        if let Ok(text) = std::str::from_utf8(&file.body) {
            file.body = redactor.literals(text).into_bytes();
        }
    }
    files.extend(extra.into_iter().filter(|a| a.inline_id.is_none()));
    for file in files {
        let ct = ContentType::parse(&file.content_type).map_err(|e| build(&e))?;
        let is_text = file.content_type.starts_with("text/")
            || file.content_type.starts_with("application/json");
        let part = lettre::message::Attachment::new(file.name);
        // Text goes in as a String so that lettre ends its lines with CRLF: a 7bit part with
        // bare LFs reads to a relay as one line longer than SMTP's 1000 octets.
        mixed = mixed.singlepart(match String::from_utf8(file.body) {
            Ok(text) if is_text => part.body(text, ct),
            Ok(text) => part.body(text.into_bytes(), ct),
            Err(e) => part.body(e.into_bytes(), ct),
        });
    }
    let message = builder.multipart(mixed).map_err(|e| build(&e))?;
    Ok(Composed {
        subject,
        envelope: message.envelope().clone(),
        bytes: message.formatted(),
    })
}
