//! What rides along: the JSON report (the machine record) and, for each device with a FAIL
//! or ERROR, its raw outputs in one text file, so the evidence can be read in full without a
//! login to the archive host. Outputs were redacted when the report took them; a large
//! (spooled) output rides along as its first lines, never read whole into the message. An
//! [`Attachment`] is also how a caller adds a file of its own (the probe's chart).

use std::fmt::Write;

use crate::archive::file_safe;
use crate::escape::control;
use crate::history::is_failing;
use crate::{Report, json};
use premarket_core::Output;

/// A file attached to the message. With `inline_id`, an image is also shown in the HTML body
/// (`<img src="cid:...">`): the hook for the probe's latency chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub name: String,
    pub content_type: String,
    pub body: Vec<u8>,
    pub inline_id: Option<String>,
}

impl Attachment {
    pub fn file(name: &str, content_type: &str, body: Vec<u8>) -> Self {
        Attachment {
            name: name.to_string(),
            content_type: content_type.to_string(),
            body,
            inline_id: None,
        }
    }

    /// An image shown in the HTML body as well as attached (e.g. a PNG chart).
    pub fn inline_image(name: &str, content_type: &str, body: Vec<u8>, id: &str) -> Self {
        Attachment {
            inline_id: Some(id.to_string()),
            ..Attachment::file(name, content_type, body)
        }
    }
}

pub fn report_json(report: &Report) -> Attachment {
    Attachment::file(
        "report.json",
        "application/json",
        json::render(report).into_bytes(),
    )
}

/// One `<device>.diff` per device whose configuration changed: the whole unified diff of
/// which the finding shows the head.
pub fn diffs(report: &Report) -> Vec<Attachment> {
    report
        .diffs
        .iter()
        .map(|(device, text)| {
            Attachment::file(
                &format!("{}.diff", file_safe(device)),
                "text/x-diff; charset=utf-8",
                text.clone().into_bytes(),
            )
        })
        .collect()
}

/// One `raw-<device>.txt` per device that has a FAIL or ERROR.
pub fn failing_raw(report: &Report) -> Vec<Attachment> {
    let mut out = Vec::new();
    for device in &report.raw {
        if !report
            .results
            .iter()
            .any(|r| r.device == device.device && is_failing(r.status))
        {
            continue;
        }
        let mut text = format!(
            "# premarket run {}: raw outputs of {} (secrets redacted)\n",
            report.run_id, device.device
        );
        for (command, output) in &device.outputs {
            let _ = writeln!(text, "\n### {command}");
            match output {
                Ok(output) => {
                    // What a device printed, with its control characters shown, not obeyed.
                    let raw = control(output.head());
                    text.push_str(&raw);
                    if !raw.ends_with('\n') {
                        text.push('\n');
                    }
                    if let Output::Spooled(spool) = output {
                        // A large output rides along as its start; the archive has it whole.
                        let _ = writeln!(
                            text,
                            "[... the first {} kB of {}; the whole output is in the run archive]",
                            raw.len() >> 10,
                            spool
                                .size()
                                .map_or("a larger output".into(), |s| format!("{} MB", s >> 20))
                        );
                    }
                }
                Err(e) => {
                    let _ = writeln!(text, "(not collected: {})", control(&e.to_string()));
                }
            }
        }
        let name = file_safe(&device.device);
        out.push(Attachment::file(
            &format!("raw-{name}.txt"),
            "text/plain; charset=utf-8",
            text.into_bytes(),
        ));
    }
    out
}
