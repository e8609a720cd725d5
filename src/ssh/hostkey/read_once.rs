//! The site's known_hosts read once for a run ([`ReadOnce`]).

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use super::KnownHosts;

/// The site's known_hosts as the run's first connection read it, shared by every session of
/// the run (clones share it). Read per device, a thousand-device run read and parsed the file
/// a thousand times and held a thousand copies at once.
#[derive(Clone, Debug, Default)]
pub struct ReadOnce(Arc<tokio::sync::OnceCell<KnownHosts>>);

impl ReadOnce {
    /// The file at `path`, read off the async threads the first time. Asked for another path
    /// than the one read (settings copied with another `known_hosts`), it reads that one
    /// afresh rather than answer with the wrong file.
    pub async fn get(&self, path: &Path) -> Result<Cow<'_, KnownHosts>, tokio::task::JoinError> {
        let read = |path: &Path| {
            let path = path.to_path_buf();
            tokio::task::spawn_blocking(move || KnownHosts::read(&path))
        };
        let first = self.0.get_or_try_init(|| read(path)).await?;
        if first.path == path {
            return Ok(Cow::Borrowed(first));
        }
        read(path).await.map(Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn read_once_reads_the_file_once_and_another_path_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "").unwrap();
        let once = ReadOnce::default();
        assert_eq!(once.get(&a).await.unwrap().path, a);
        // Read once: a later change to the file is not seen by the same run.
        std::fs::remove_file(&a).unwrap();
        assert!(matches!(
            once.clone().get(&a).await.unwrap().text,
            Ok(Some(_))
        ));
        assert_eq!(once.get(&b).await.unwrap().path, b);
    }
}
