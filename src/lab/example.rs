//! The example site the lab points at itself: the repository's `baselines/` and `checks/`,
//! compiled into the binary (so an installed `premarket demo` needs no checkout), or read from
//! a directory a caller names.

use std::path::PathBuf;

include!(concat!(env!("OUT_DIR"), "/example_files.rs"));

/// A file of the example site that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the example site file {path}: {source}")]
pub struct ExampleError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Where the example site's files come from.
#[derive(Clone, Debug, Default)]
pub enum Example {
    /// The copy compiled into this binary.
    #[default]
    Embedded,
    /// A directory holding `baselines/` and `checks/`.
    Dir(PathBuf),
}

impl Example {
    /// The text of `rel` (`baselines/site.yaml`).
    pub fn read(&self, rel: &str) -> Result<String, ExampleError> {
        match self {
            Example::Embedded => FILES
                .iter()
                .find(|(path, _)| *path == rel)
                .map(|(_, text)| text.to_string())
                .ok_or_else(|| ExampleError {
                    path: PathBuf::from(rel),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                }),
            Example::Dir(dir) => {
                let path = dir.join(rel);
                std::fs::read_to_string(&path).map_err(|source| ExampleError { path, source })
            }
        }
    }

    /// The catalog files: (file name, text) of each `checks/*.yaml`, sorted by name.
    pub fn checks(&self) -> Result<Vec<(String, String)>, ExampleError> {
        let mut out = Vec::new();
        match self {
            Example::Embedded => {
                for (path, text) in FILES {
                    if let Some(name) = path.strip_prefix("checks/") {
                        out.push((name.to_string(), text.to_string()));
                    }
                }
            }
            Example::Dir(dir) => {
                let folder = dir.join("checks");
                let entries = std::fs::read_dir(&folder).map_err(|source| ExampleError {
                    path: folder.clone(),
                    source,
                })?;
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.ends_with(".yaml") || name.ends_with(".yml") {
                        out.push((name.clone(), self.read(&format!("checks/{name}"))?));
                    }
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_site_is_the_repository_s() {
        let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dir = Example::Dir(repo);
        for rel in [
            "baselines/site.yaml",
            "baselines/fw1.yaml",
            "checks/eos.yaml",
        ] {
            assert_eq!(
                Example::Embedded.read(rel).unwrap(),
                dir.read(rel).unwrap(),
                "{rel}"
            );
        }
        assert_eq!(Example::Embedded.checks().unwrap(), dir.checks().unwrap());
        assert!(Example::Embedded.read("baselines/nope.yaml").is_err());
    }
}
