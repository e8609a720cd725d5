//! `premarket man [--out DIR]`: the manual, generated from the command line itself so it never
//! drifts from `--help`. Without `--out` it prints `premarket(1)`; with it, it writes one page
//! per subcommand as well (`premarket-run.1`, `premarket-probe-analyze.1` ...). Every page ends
//! with what clap cannot know: EXIT STATUS (what cron and systemd act on), ENVIRONMENT and
//! FILES, and the main page and `premarket-explain(1)` list the catalog's checks (CHECKS: the
//! id and the condition it proves, from the catalog entry `explain` reads) of the site in
//! `--dir`, else of the example site.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::{Cli, Stop};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write premarket.1 and one page per subcommand (premarket-run.1 ...) into DIR instead of
    /// printing premarket.1.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: Option<PathBuf>,
}

const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "every selected check is OK (or SKIP); also --help and a closed market day",
    ),
    (
        "1",
        "at least one check FAIL: the network is not as the baseline says",
    ),
    (
        "2",
        "at least one ERROR and no FAIL: the inspection could not tell (unreachable, timeout, \
         unreadable output), or the report could not be delivered",
    ),
    (
        "3",
        "nothing ran: a usage or configuration error (every mistake is printed as \
         file:line:column)",
    ),
    (
        "130, 143",
        "a second SIGINT or SIGTERM during a run (the first one still reports within 10 s)",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "PREMARKET_DIR",
        "the configuration directory (baselines/ and checks/) when --dir is not given",
    ),
    (
        "PREMARKET_<DEVICE>_PASSWORD and the like",
        "secrets, by whatever names the baselines give them ({ env: NAME }), looked up here \
         first, then in the site's environment_file; `premarket validate` says which a run \
         would miss",
    ),
    ("RUST_LOG", "the log filter (overrides -v)"),
    (
        "NO_COLOR",
        "when set and not empty, no colour on a terminal",
    ),
    (
        "XDG_STATE_HOME, HOME",
        "where the demo keeps its home: $XDG_STATE_HOME/premarket/demo, else \
         ~/.local/state/premarket/demo",
    ),
    (
        "COMPLETE",
        "set by the shell completion script: `source <(COMPLETE=bash premarket)`",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "DIR/baselines/site.yaml",
        "the site: time zone, deadline, devices, SSH, email, archive, metrics, calendar",
    ),
    (
        "DIR/baselines/<device>.yaml",
        "how to reach one device and what it should look like",
    ),
    (
        "DIR/<environment_file>",
        "the secrets (systemd EnvironmentFile syntax, no shell expansion), named in site.yaml; \
         refused unless owned by the user premarket runs as and chmod 600",
    ),
    ("DIR/checks/*.yaml", "the check catalog"),
    (
        "DIR/archive/<run id>/",
        "each run: report.json, the raw outputs (zstd), facts, charts; archive.dir in site.yaml",
    ),
    (
        "DIR/archive/outbox/",
        "email that could not be delivered yet",
    ),
    (
        "~/.local/state/premarket/demo/",
        "the demo's archive and last.eml (--home elsewhere)",
    ),
];

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    // Without a site (and without the lab's example) the pages still render, without CHECKS.
    let checks = super::explain::site(dir)
        .map(|(config, _)| checks(&config.catalog))
        .unwrap_or_default();
    match &args.out {
        None => {
            crate::report::terminal::print_quietly(&page(&cmd, &checks)?);
            Ok(0)
        }
        Some(dir) => {
            crate::files::ensure_dir(dir)
                .map_err(|e| Stop::config(format!("cannot create {}: {e}", dir.display())))?;
            let mut written = 0;
            write_all(&cmd, "premarket", dir, &checks, &mut written)?;
            outln!("{written} manual pages written to {}", dir.display());
            Ok(0)
        }
    }
}

/// Writes `cmd`'s page as `<name>.1` and its subcommands' as `<name>-<sub>.1` (a built
/// command's subcommands carry those names as their display names).
fn write_all(
    cmd: &clap::Command,
    name: &str,
    dir: &Path,
    checks: &[(String, String)],
    written: &mut usize,
) -> Result<(), Stop> {
    let listed = if matches!(cmd.get_name(), "premarket" | "explain") {
        checks
    } else {
        &[]
    };
    let page = page(cmd, listed)?;
    let name = cmd.get_display_name().unwrap_or(name);
    let path = dir.join(format!("{name}.1"));
    crate::files::write_atomic(&path, page.as_bytes())
        .map_err(|e| Stop::config(format!("cannot write {}: {e}", path.display())))?;
    *written += 1;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_all(
            sub,
            &format!("{name}-{}", sub.get_name()),
            dir,
            checks,
            written,
        )?;
    }
    Ok(())
}

/// The CHECKS section's items: each check's id and what it proves in a line (its title).
fn checks(catalog: &[crate::config::Entry]) -> Vec<(String, String)> {
    catalog
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                format!("{} (premarket explain {})", e.title, e.id),
            )
        })
        .collect()
}

/// One page: clap's sections, then EXIT STATUS, ENVIRONMENT, FILES and, given any, CHECKS.
fn page(cmd: &clap::Command, checks: &[(String, String)]) -> Result<String, Stop> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut out)
        .map_err(|e| Stop::config(format!("cannot render the man page: {e}")))?;
    let mut text = String::from_utf8_lossy(&out).into_owned();
    for (title, items) in [
        ("EXIT STATUS", EXIT_STATUS),
        ("ENVIRONMENT", ENVIRONMENT),
        ("FILES", FILES),
    ] {
        text.push_str(&format!(".SH \"{title}\"\n"));
        for (term, what) in items {
            text.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(term), roff(what)));
        }
    }
    if !checks.is_empty() {
        text.push_str(".SH \"CHECKS\"\n");
        for (term, what) in checks {
            text.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(term), roff(what)));
        }
    }
    Ok(text)
}

/// Text safe in a roff paragraph: backslashes doubled, no line starting with a control dot.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    match escaped.strip_prefix('.') {
        Some(rest) => format!("\\&.{rest}"),
        None => escaped,
    }
}
