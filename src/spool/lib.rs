#![doc = include_str!("README.md")]

mod dir;
mod disk;
mod pieces;
mod saved;
mod sink;
mod writer;

pub use dir::{Fallback, SpoolDir};
pub use disk::{HEAD, IN_MEMORY, SpoolError};
pub use pieces::{PIECE, for_each_piece};
pub use saved::{SavedError, read_saved};
pub use writer::SpoolWriter;

/// The suffix of a saved output compressed with zstd (`show-version-json.txt.zst`): what the
/// archive writes and every reader of saved outputs reads.
pub const COMPRESSED: &str = ".zst";

#[cfg(test)]
mod tests {
    use std::fs::{self, File};
    use std::io::{self, Read, Write};

    use super::*;
    use premarket_core::{Megabytes, Output};

    fn read_all(output: &Output) -> io::Result<Vec<u8>> {
        let mut all = Vec::new();
        output.reader()?.read_to_end(&mut all)?;
        Ok(all)
    }

    #[test]
    fn small_outputs_stay_in_memory_and_large_ones_spool_compressed() {
        let dir = SpoolDir::temporary();
        let line = b"session info: proto=17 proto_state=01 duration=12 expire=170\n";
        for (lines, spooled) in [(1usize, false), (IN_MEMORY / line.len() + 1, true)] {
            let mut writer = SpoolWriter::new(&dir, Megabytes(64));
            for _ in 0..lines {
                writer.write(line).unwrap();
            }
            let output = writer.finish().unwrap();
            assert_eq!(matches!(output, Output::Spooled(_)), spooled);
            assert_eq!(read_all(&output).unwrap(), line.repeat(lines));
            assert!(output.head().len() <= HEAD && output.head().ends_with('\n'));
            if let Output::Spooled(spool) = &output {
                assert!(spool.is_compressed() && spool.is_temporary());
                assert!(
                    fs::metadata(spool.path()).unwrap().len() < (lines * line.len()) as u64 / 5
                );
                let path = spool.path().to_path_buf();
                drop(output);
                assert!(!path.exists(), "a spool is removed with its last handle");
            }
        }
    }

    #[test]
    fn the_cap_stops_writing_and_reading() {
        let dir = SpoolDir::temporary();
        let mut writer = SpoolWriter::new(&dir, Megabytes(1));
        let chunk = vec![b'x'; 64 << 10];
        let mut result = Ok(());
        for _ in 0..17 {
            result = writer.write(&chunk);
        }
        assert_eq!(result, Err(SpoolError::Exceeded(Megabytes(1))));
        assert_eq!(result.unwrap_err().to_string(), "output exceeded 1 MB");

        // A saved file over the cap: refused by its size, or by its reader for a .zst that does
        // not say its size.
        let tmp = tempfile::tempdir().unwrap();
        let plain = tmp.path().join("big.txt");
        fs::write(&plain, vec![b'y'; (1 << 20) + 10]).unwrap();
        assert!(matches!(
            read_saved(&plain, Megabytes(1)),
            Err(SavedError::Exceeded { .. })
        ));
        let zst = tmp.path().join("big.txt.zst");
        let mut encoder =
            zstd::stream::write::Encoder::new(File::create(&zst).unwrap(), 3).unwrap();
        for _ in 0..3 {
            encoder.write_all(&vec![b'z'; 1 << 20]).unwrap();
        }
        encoder.finish().unwrap();
        let output = read_saved(&zst, Megabytes(2)).unwrap();
        let error = read_all(&output).unwrap_err();
        assert_eq!(error.to_string(), "output exceeded 2 MB");
        assert_eq!(
            read_all(&read_saved(&zst, Megabytes(3)).unwrap())
                .unwrap()
                .len(),
            3 << 20
        );
    }

    #[test]
    fn saved_outputs_are_read_plain_or_compressed() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "Version: FortiGate-201G v7.6.7\nHostname: fw1\n";
        let zst = tmp.path().join("get-system-status.txt.zst");
        fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        let plain = tmp.path().join("get-system-status.txt");
        fs::write(&plain, text).unwrap();
        for path in [&zst, &plain] {
            let output = read_saved(path, Megabytes(1)).unwrap();
            assert_eq!(output, Output::Text(text.into()), "{}", path.display());
        }
        // Compressed in one go, as the `zstd` tool does a file: the frame says its size.
        let large = tmp.path().join("large.txt.zst");
        let body = "line of a large output\n".repeat(IN_MEMORY / 10);
        fs::write(&large, zstd::bulk::compress(body.as_bytes(), 3).unwrap()).unwrap();
        let output = read_saved(&large, Megabytes(16)).unwrap();
        let Output::Spooled(spool) = &output else {
            panic!("a large saved output stays on disk");
        };
        assert!(!spool.is_temporary());
        assert_eq!(spool.size(), Some(body.len() as u64));
        assert_eq!(read_all(&output).unwrap(), body.as_bytes());
        drop(output);
        assert!(large.exists(), "a saved output is never removed");
    }

    #[test]
    fn pieces_are_whole_lines_and_keep_a_key_block_whole() {
        let mut text = "a line of output\n".repeat(PIECE / 17);
        text.push_str("-----BEGIN RSA PRIVATE KEY-----\n");
        text.push_str(&"MIIEowIBAAKCAQEA\n".repeat(PIECE / 17));
        text.push_str("-----END RSA PRIVATE KEY-----\n");
        text.push_str(&"tail\n".repeat(PIECE / 5));
        let mut pieces = Vec::new();
        for_each_piece(text.as_bytes(), |p| {
            pieces.push(p.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(pieces.concat(), text);
        assert!(pieces.len() > 1 && pieces.iter().all(|p| p.ends_with('\n')));
        let with_key = pieces.iter().filter(|p| p.contains("PRIVATE KEY")).count();
        assert_eq!(with_key, 1, "BEGIN and END in one piece");
    }

    #[test]
    fn the_spool_directory_goes_with_the_run() {
        let parent = tempfile::tempdir().unwrap();
        let dir = SpoolDir::under(parent.path());
        assert!(dir.path().is_none(), "created only when needed");
        let mut writer = SpoolWriter::new(&dir, Megabytes(8));
        writer.write(&vec![b'a'; IN_MEMORY + 1]).unwrap();
        let output = writer.finish().unwrap();
        let path = dir.path().unwrap();
        assert!(path.starts_with(parent.path()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".tmp-spool-") && name.ends_with(&format!("-{}", std::process::id()))
        );
        drop(dir);
        assert!(path.exists(), "a spool keeps its directory");
        drop(output);
        assert!(!path.exists(), "and the directory goes with the last one");
    }

    /// Text that zstd shrinks about twofold: lines of pseudo-random hex.
    fn hex_lines(bytes: usize) -> Vec<u8> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut out = Vec::with_capacity(bytes + 80);
        while out.len() < bytes {
            for _ in 0..8 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                out.extend_from_slice(format!("{x:016x}").as_bytes());
            }
            out.push(b'\n');
        }
        out
    }

    /// A tmpfs of `kib` KiB on a fresh directory (unmounted when the guard goes); `None` when
    /// this process may not mount (not root), unless PREMARKET_REQUIRE_TMPFS=1.
    fn tmpfs(kib: u64) -> Option<(tempfile::TempDir, impl Drop)> {
        struct Unmount(std::path::PathBuf);
        impl Drop for Unmount {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount")
                    .arg("-l")
                    .arg(&self.0)
                    .status();
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            assert!(
                std::env::var("PREMARKET_REQUIRE_TMPFS").as_deref() != Ok("1"),
                "PREMARKET_REQUIRE_TMPFS=1 but a tmpfs cannot be mounted (not root?)"
            );
            eprintln!("SKIP: cannot mount a tmpfs (needs root)");
            return None;
        }
        let guard = Unmount(dir.path().to_path_buf());
        Some((dir, guard))
    }

    #[test]
    fn a_disk_that_fills_while_a_spool_is_written_hands_it_on_whole() {
        let Some((small, _mounted)) = tmpfs(256) else {
            return;
        };
        let dir = SpoolDir::under(small.path());
        let text = hex_lines(3 << 20);
        let mut writer = SpoolWriter::new(&dir, Megabytes(64));
        for piece in text.chunks(64 << 10) {
            writer
                .write(piece)
                .expect("the spool moves on, the output goes on arriving");
        }
        let output = writer.finish().unwrap();
        assert_eq!(read_all(&output).unwrap(), text, "nothing lost in the move");
        let fallbacks = dir.fallbacks();
        assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
        assert!(
            fallbacks[0].full && fallbacks[0].left == small.path(),
            "{fallbacks:?}"
        );
        assert_eq!(
            fallbacks[0].to.as_deref(),
            Some(std::env::temp_dir().as_path())
        );
        // The next spool starts where the last one went.
        let mut next = SpoolWriter::new(&dir, Megabytes(64));
        next.write(&text[..(IN_MEMORY + 1)]).unwrap();
        let Output::Spooled(spool) = next.finish().unwrap() else {
            panic!("spooled");
        };
        assert!(spool.path().starts_with(std::env::temp_dir()), "{spool:?}");
        assert_eq!(dir.fallbacks().len(), 1, "said once");
    }

    #[test]
    fn with_no_disk_left_a_spool_is_held_in_memory_and_reads_back() {
        let Some((small, _mounted)) = tmpfs(256) else {
            return;
        };
        let dir = SpoolDir::under(small.path());
        let text = hex_lines(3 << 20);
        let mut writer = SpoolWriter::new(&dir, Megabytes(64));
        writer.write(&text).unwrap();
        // The archive's place failed first; then the temporary directory, made to fail here by
        // taking its place's error by hand (the system's /tmp is not this test's to fill).
        dir.failed(
            dir::TEMPORARY,
            &std::io::Error::from(std::io::ErrorKind::StorageFull),
        );
        let mut held = SpoolWriter::new(&dir, Megabytes(64));
        held.write(&text).unwrap();
        let output = held.finish().unwrap();
        let Output::Spooled(spool) = &output else {
            panic!("spooled");
        };
        assert!(
            spool.path().to_string_lossy().starts_with("(in memory"),
            "{spool:?}"
        );
        assert_eq!(read_all(&output).unwrap(), text);
        assert_eq!(read_all(&writer.finish().unwrap()).unwrap(), text);
        let to: Vec<_> = dir.fallbacks().into_iter().map(|f| f.to).collect();
        assert_eq!(to, [Some(std::env::temp_dir()), None]);
    }
}
