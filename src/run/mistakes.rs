//! The run's configuration stage, past loading: the selection planned, and what a mistake
//! stops. A mistake in one device's baseline is that device's: it is set aside with its
//! mistakes ([`premarket_plan::Plan::invalid`]), reported as one ERROR, and every other device
//! is inspected. A mistake of the site's (`site.yaml`, the catalog) stops the run with a report
//! of every mistake, the devices' included (exit 3).

use premarket_config::{Config, ConfigError};
use premarket_core::{Exit, Status};
use premarket_plan::{Plan, PlanError, Selection};
use premarket_report::archive::Archive;
use premarket_report::channel::{Channel, deliver_all};
use premarket_report::email::EmailMode;
use premarket_report::terminal::{Format, Terminal};

use super::{
    Outcome, Request, email_and_metrics, email_mode, empty_report, not_inspected, outputs,
};

/// Why the run does not go on to inspect.
pub(super) enum Stop {
    /// A selection that names nothing there is (exit 3, no report).
    Usage(String),
    /// The site's mistakes (and the devices'): reported.
    Mistakes(Vec<ConfigError>),
}

/// The plan of `selection`, given the site's mistakes found when loading (`errors`).
pub(super) fn plan(
    config: &Config,
    selection: &Selection,
    mut errors: Vec<ConfigError>,
) -> Result<Plan, Stop> {
    match Plan::sparing(config, selection) {
        Ok(plan) if errors.is_empty() => Ok(plan),
        Ok(plan) => {
            errors.extend(plan.invalid.into_iter().flat_map(|d| d.mistakes));
            Err(Stop::Mistakes(errors))
        }
        Err(PlanError::Config(more)) => {
            errors.extend(more.0);
            Err(Stop::Mistakes(errors))
        }
        // With the site already broken, "nothing selected" is only a consequence.
        Err(_) if !errors.is_empty() => {
            errors.extend(config.rejected.iter().flat_map(|r| r.mistakes.clone()));
            Err(Stop::Mistakes(errors))
        }
        Err(usage) => Err(Stop::Usage(usage.to_string())),
    }
}

/// A configuration whose site or catalog does not load or plan still reports: an ERROR email
/// and metrics listing every mistake (the devices' too), and exit 3, so a typo never silences
/// the morning.
pub(super) async fn report(
    config: &Config,
    mut errors: Vec<ConfigError>,
    req: &Request,
) -> Outcome {
    errors.sort_by(|a, b| {
        (&a.position.file, a.position.line).cmp(&(&b.position.file, b.position.line))
    });
    let mut messages = Vec::new();
    let email = email_mode(req);
    if email == EmailMode::Send && config.site.email.is_none() {
        messages.push(
            "no email can report this: the email: section of site.yaml is missing or has errors of its own (below)"
                .to_string(),
        );
    }
    let mut report = empty_report(config);
    report.invocation = req.invocation.clone();
    report.config_errors = errors.iter().map(ToString::to_string).collect();
    report.status = Status::Error;
    let mut channels = Vec::new();
    if req.format == Some(Format::Json) {
        channels.push(Box::new(Terminal {
            format: Format::Json,
        }) as Box<dyn Channel>);
    }
    let archive = Archive::new(&config.site.archive.dir);
    channels.extend(email_and_metrics(config, req, &archive, email, None));
    // A configuration that stops the run is an ERROR the pager hears of too.
    channels.extend(outputs::notify(config, req, &archive, None));
    let delivered = deliver_all(&channels, &mut report, &not_inspected(config)).await;
    messages.push(premarket_config::ConfigErrors(errors).to_string());
    messages.extend(delivered.notes);
    messages.extend(delivered.problems);
    Outcome {
        code: Exit::NotRun.code(),
        messages,
        report: Some(report),
    }
}
