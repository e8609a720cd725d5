//! The run's pictures: each probe device's latency chart, shown in the email and kept in the
//! archive beside the run (PNG as mailed, SVG for a desk), and, when a figure drifted against
//! the week before, the trend over the last runs: the report says what drifted in one line,
//! the email shows the trend, the archive keeps it.
//!
//! The drift is judged on the run at hand against the archived runs before it (the run is
//! archived only as the report is delivered), so only a run that reads and writes the
//! archive can say it; a rerun of a few checks never does.

use super::Request;
use premarket_collect::probe::Routing;
use premarket_config::Config;
use premarket_report::Report;
use premarket_report::archive::Archive;
use premarket_report::email::Attachment;
use premarket_report::trend::{
    self, DEFAULT_RUNS, DriftRule, Points, Sources, firewall_drifts, probe_drifts,
};

/// The email's pictures; fills `report.charts` (for the archive) and `report.drift`.
pub(super) fn pictures(
    config: &Config,
    req: &Request,
    archive: &Archive,
    earlier: &[Report],
    routing: &Routing,
    report: &mut Report,
) -> Vec<Attachment> {
    let mut attachments = Vec::new();
    for chart in routing.charts() {
        let name = format!("latency-{}", chart.device);
        if let Some(svg) = chart.svg {
            report
                .charts
                .push((format!("{name}.svg"), svg.into_bytes()));
        }
        report
            .charts
            .push((format!("{name}.png"), chart.png.clone()));
        attachments.push(Attachment::inline_image(
            &format!("{name}.png"),
            "image/png",
            chart.png,
            &format!("chart-{}", chart.device),
        ));
    }
    if req.archive && !report.partial {
        attachments.extend(drift(config, archive, earlier, report));
    }
    attachments
}

/// The trend, when a figure of this run drifted.
fn drift(
    config: &Config,
    archive: &Archive,
    earlier: &[Report],
    report: &mut Report,
) -> Option<Attachment> {
    let sources = Sources::of(config);
    let mut points = Points::from_archive(archive, earlier, &sources, DEFAULT_RUNS - 1);
    points.add_report(report, &sources);
    for note in &points.unreadable {
        tracing::warn!("trend: {note}");
    }
    let rule = DriftRule::default();
    let now = |d: &trend::Drift| d.run_id == report.run_id;
    let drifts: Vec<String> = probe_drifts(&points.probe, &rule)
        .iter()
        .chain(&firewall_drifts(&points.firewall, &rule))
        .filter(|d| now(d))
        .map(trend::Drift::said)
        .collect();
    if drifts.is_empty() {
        return None;
    }
    let (png, svg) = (
        trend::png(
            &points.probe,
            &points.firewall,
            &sources.limits,
            &points.statuses,
        ),
        trend::svg(
            &points.probe,
            &points.firewall,
            &sources.limits,
            &points.statuses,
        ),
    );
    let shown = match &png {
        Ok(_) => "see the trend chart",
        Err(_) => "the trend could not be drawn",
    };
    report.drift = Some(format!("{}; {shown}", drifts.join("; ")));
    if let Ok(svg) = svg {
        report.charts.push(("trend.svg".into(), svg.into_bytes()));
    }
    let png = png.map_err(|e| tracing::warn!("trend chart: {e}")).ok()?;
    report.charts.push(("trend.png".into(), png.clone()));
    Some(Attachment::inline_image(
        "trend.png",
        "image/png",
        png,
        "trend",
    ))
}
