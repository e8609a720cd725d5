//! `baselines/site.yaml`: the site as a whole (name, time zone, deadline, devices, defaults).

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::secret::SecretRef;

/// The site file as written. Times are `HH:MM` in the site's time zone.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteFile {
    /// Short name shown in the email subject, e.g. `taipei-colo`.
    pub site: String,
    /// The secrets' environment (systemd `EnvironmentFile` syntax), relative to the site
    /// directory: read by premarket itself, after the process environment.
    #[serde(default)]
    #[schemars(with = "Option<PathBuf>")]
    pub environment_file: Option<Spanned<PathBuf>>,
    /// IANA time zone, e.g. `Asia/Taipei`; every timestamp a person reads is in it.
    #[schemars(with = "String")]
    pub timezone: Spanned<String>,
    /// When the market opens (for the report's context).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub market_open: Option<Spanned<String>>,
    /// When the report must be out, whatever has not finished by then is ERROR.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub deadline: Option<Spanned<String>>,
    /// A run started less than 12 hours after the deadline (it was missed today) still goes
    /// ahead, bounded by this many seconds, and says the deadline had passed (default 120).
    #[serde(default)]
    pub deadline_grace_s: Option<u64>,
    pub devices: Vec<DeviceEntry>,
    #[serde(default)]
    pub ssh: SshDefaults,
    /// The emailed report. Without this section no email is sent.
    #[serde(default)]
    pub email: Option<EmailFile>,
    /// Where every run's report and raw outputs are kept (default `archive/` in the config dir).
    #[serde(default)]
    pub archive: Option<ArchiveFile>,
    /// Prometheus metrics for node_exporter's textfile collector.
    #[serde(default)]
    pub metrics: Option<MetricsFile>,
    /// The market's trading days; without it every day is a trading day.
    #[serde(default)]
    pub calendar: Option<CalendarFile>,
    /// Chat, paging and webhook endpoints told of the verdict besides the email.
    #[serde(default)]
    pub notify: Vec<super::notify::NotifyFile>,
    /// What the checks over several devices (`site.*`) expect of the site as a whole; each
    /// reads its own keys, as a device's checks read its `expect:`.
    #[serde(default)]
    #[schemars(with = "Option<std::collections::BTreeMap<String, serde_json::Value>>")]
    pub expect: Option<Spanned<HashMap<Spanned<String>, serde::de::IgnoredAny>>>,
    /// Jump hosts devices are reached through (`ssh: { via: NAME }`).
    #[serde(default)]
    pub bastions: Vec<super::bastion::BastionFile>,
}

/// The keys of `site.yaml` (`premarket explain --baseline`), from the type that reads it.
pub fn reference() -> Vec<super::reference::Key> {
    super::reference::keys_of::<SiteFile>()
}

/// `metrics:`: where the run's Prometheus text file is written (write, then rename).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsFile {
    /// A `.prom` file in node_exporter's `--collector.textfile.directory` (relative paths
    /// are resolved against the configuration directory).
    #[schemars(with = "PathBuf")]
    pub textfile: Spanned<PathBuf>,
}

/// `calendar:`: when the market trades. Dates are `YYYY-MM-DD` in the site's time zone.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarFile {
    /// Weekdays the market trades (`mon` .. `sun`); default Monday to Friday.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub trading_days: Option<Vec<Spanned<String>>>,
    /// Exchange holidays: closed although the weekday trades.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub holidays: Vec<Spanned<String>>,
    /// Make-up trading days: open although the weekday does not trade (e.g. a Saturday).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub extra_trading_days: Vec<Spanned<String>>,
}

/// One device of the site and its baseline file (relative to `baselines/`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceEntry {
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    #[schemars(with = "PathBuf")]
    pub baseline: Spanned<PathBuf>,
}

/// Connection defaults shared by all devices.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SshDefaults {
    /// known_hosts file used to verify host keys (relative to `baselines/`).
    pub known_hosts: Option<PathBuf>,
    pub connect_timeout_s: u64,
    pub command_timeout_s: u64,
    /// How many devices are inspected at once.
    pub concurrency: usize,
    /// Largest output one command may print (live, or a saved one read offline); past it the
    /// command is ERROR "output exceeded N MB" and the device's session is closed.
    pub max_output_mb: u64,
}

impl Default for SshDefaults {
    fn default() -> Self {
        SshDefaults {
            known_hosts: None,
            connect_timeout_s: 10,
            command_timeout_s: 60,
            concurrency: 16,
            max_output_mb: 2048,
        }
    }
}

/// `email:`: the SMTP relay, sender and recipients. The password is a reference, never a value.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailFile {
    /// `false` keeps the settings but sends nothing (`--email-to-file` still works).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The relay's host name; also the name its TLS certificate must carry.
    #[schemars(with = "String")]
    pub host: Spanned<String>,
    /// Default: 25 with `tls: none`, 587 with `starttls`, 465 with `tls`.
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub tls: TlsMode,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub user: Option<Spanned<String>>,
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// PEM file of the CA certificates to trust instead of the system store (private relays).
    #[serde(default)]
    #[schemars(with = "Option<PathBuf>")]
    pub ca_file: Option<Spanned<PathBuf>>,
    #[schemars(with = "String")]
    pub from: Spanned<String>,
    #[schemars(with = "Vec<String>")]
    pub to: Vec<Spanned<String>>,
    /// Added as recipients when the run is not OK.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub fail_to: Vec<Spanned<String>>,
    /// Bound on one delivery attempt, connect to QUIT (default 30).
    #[serde(default)]
    pub timeout_s: Option<u64>,
    /// How long to keep retrying when no deadline is closer (default 120).
    #[serde(default)]
    pub retry_for_s: Option<u64>,
    /// With `tls: none`, send the password to a relay that is not on loopback anyway (it
    /// crosses the network in clear). Default false.
    #[serde(default)]
    pub allow_plaintext_auth: bool,
}

fn yes() -> bool {
    true
}

/// How the SMTP connection is protected.
// Serialize: the reference (`explain --baseline`) prints the default as it is written.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plain SMTP: only for a relay on the same host or a trusted segment.
    None,
    /// Plain connect, then STARTTLS, which is required (never falls back to plain).
    #[default]
    Starttls,
    /// TLS from the first byte (SMTPS, port 465).
    Tls,
}

/// `archive:`: where runs are kept and for how long.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchiveFile {
    /// Relative to the configuration directory (`--dir`).
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Runs older than this are deleted by the next full run (default 30).
    #[serde(default)]
    #[schemars(with = "Option<u32>")]
    pub retention_days: Option<Spanned<u32>>,
    /// How long a full run waits for another full run to finish (default 120).
    #[serde(default)]
    pub lock_wait_s: Option<u64>,
    /// The archive's size bound, as the disk its runs take (`du`): the oldest runs are deleted
    /// by the next full run until it fits (default: no bound but the days).
    #[serde(default)]
    #[schemars(with = "Option<u64>")]
    pub max_size_mb: Option<Spanned<u64>>,
}
