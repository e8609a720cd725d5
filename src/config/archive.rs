//! The validated `archive:` section of `site.yaml`: where every run leaves its evidence.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::{ConfigError, Position};
use super::site::ArchiveFile;
use premarket_core::Megabytes;

/// Where runs are archived, how long and how much of them is kept, how long a full run waits
/// for another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveSettings {
    pub dir: PathBuf,
    pub retention_days: u32,
    /// The oldest runs go first until the archive is no larger than this.
    pub max_size: Option<Megabytes>,
    pub lock_wait: Duration,
}

impl ArchiveSettings {
    /// The settings when `site.yaml` has no `archive:` section.
    pub fn default_in(config_dir: &Path) -> Self {
        ArchiveSettings {
            dir: config_dir.join("archive"),
            retention_days: 30,
            max_size: None,
            lock_wait: Duration::from_secs(120),
        }
    }
}

pub(super) fn validate(
    path: &Path,
    config_dir: &Path,
    file: Option<&ArchiveFile>,
    errors: &mut Vec<ConfigError>,
) -> ArchiveSettings {
    let mut archive = ArchiveSettings::default_in(config_dir);
    let Some(file) = file else { return archive };
    if let Some(dir) = &file.dir {
        archive.dir = config_dir.join(dir);
    }
    if let Some(days) = &file.retention_days {
        if days.value == 0 {
            errors.push(ConfigError::new(
                Position::from_location(path, days.defined),
                "archive.retention_days must be at least 1 (the next run compares with the previous one)",
            ));
        }
        archive.retention_days = days.value.max(1);
    }
    if let Some(size) = &file.max_size_mb {
        if size.value == 0 {
            errors.push(ConfigError::new(
                Position::from_location(path, size.defined),
                "archive.max_size_mb must be at least 1 (the next run compares with the previous one)",
            ));
        }
        archive.max_size = Some(Megabytes(size.value.max(1)));
    }
    if let Some(wait) = file.lock_wait_s {
        archive.lock_wait = Duration::from_secs(wait);
    }
    archive
}
