//! A small tmpfs for the disk tests: a file system that fills up for real ("No space left on
//! device" from the kernel, not a mock). Mounting needs root, which CI has; elsewhere the test
//! says it skipped, unless PREMARKET_REQUIRE_TMPFS=1 (CI) makes that a failure.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// A tmpfs mounted on a fresh directory, unmounted when dropped.
pub struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `kib` KiB; `None` (said on stderr) when this process may not mount one.
    pub fn mount(kib: u64) -> Option<Tmpfs> {
        let required = std::env::var("PREMARKET_REQUIRE_TMPFS").as_deref() == Ok("1");
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            assert!(
                !required,
                "PREMARKET_REQUIRE_TMPFS=1 but this test is not root and cannot mount a tmpfs"
            );
            eprintln!(
                "SKIP: mounting a tmpfs needs root; PREMARKET_REQUIRE_TMPFS=1 makes this a failure"
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={kib}k,mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .status()
            .expect("run mount");
        assert!(status.success(), "mount -t tmpfs failed: {status}");
        Some(Tmpfs { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the file system to its last block with one file, `filler`.
    pub fn fill(&self) {
        let mut file = std::fs::File::create(self.path().join("filler")).expect("create filler");
        let block = vec![0u8; 4096];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
                    break;
                }
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a child that still has a file open there must not keep it mounted for ever.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}
