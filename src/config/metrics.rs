//! The validated `metrics:` section of `site.yaml`: where the run's Prometheus text file goes.
//!
//! node_exporter's textfile collector reads only `*.prom` files, so another name is a
//! configuration error now rather than a silently missing series at the open.

use std::path::{Path, PathBuf};

use super::error::{ConfigError, Position};
use super::site::MetricsFile;

/// Where the metrics are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metrics {
    /// The `.prom` file, resolved against the configuration directory.
    pub textfile: PathBuf,
}

pub(super) fn validate(
    path: &Path,
    config_dir: &Path,
    file: &MetricsFile,
    errors: &mut Vec<ConfigError>,
) -> Option<Metrics> {
    let textfile = &file.textfile.value;
    if textfile.extension().is_none_or(|e| e != "prom") {
        errors.push(ConfigError::new(
            Position::from_location(path, file.textfile.defined),
            format!(
                "metrics.textfile {} must end in .prom: node_exporter's textfile collector reads only *.prom files",
                textfile.display()
            ),
        ));
        return None;
    }
    Some(Metrics {
        textfile: config_dir.join(textfile),
    })
}
