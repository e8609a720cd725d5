//! The report as JSON (`--format json`, the archive's `report.json`).

use super::Report;

pub fn render(report: &Report) -> String {
    let mut out =
        serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    out.push('\n');
    out
}

pub fn parse(text: &str) -> Result<Report, serde_json::Error> {
    serde_json::from_str(text)
}
