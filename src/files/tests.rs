//! The reader refuses what is not a regular file without blocking, and what is larger than its
//! cap; the writer never writes through a link.

use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

use super::*;

const SMALL: Kind = Kind::new("test file", 16);

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// `f()` on another thread, failing the test when it has not returned within two seconds.
fn within_two_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(2))
        .expect("the call blocked (a FIFO open waits for a writer)")
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let err = within_two_seconds(move || read(&fifo, SMALL)).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "fifo is a FIFO, not a regular file: premarket reads a test file only from a \
             regular file (a FIFO or a device could block the run or never end)"
        ),
        "{err}"
    );
}

#[test]
fn devices_and_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let err = read(&zero, Kind::CONFIG).unwrap_err();
    assert!(
        err.to_string().contains("zero is a character device"),
        "{err}"
    );
    let err = read(dir.path(), Kind::CONFIG).unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");
}

#[test]
fn a_file_past_its_cap_is_refused_naming_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, [b'x'; 16]).unwrap();
    assert_eq!(
        read(&path, SMALL).unwrap().len(),
        16,
        "exactly the cap reads"
    );
    std::fs::write(&path, [b'x'; 17]).unwrap();
    let err = read(&path, SMALL).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("f is 17 bytes, larger than the 16 bytes premarket reads of a test file"),
        "{err}"
    );
    // A sparse file is refused by its size, before a byte is read.
    std::fs::File::create(&path)
        .and_then(|f| f.set_len(1_500_000_000))
        .unwrap();
    let err = read(&path, Kind::REPORT).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("is 1.3 GiB, larger than the 64 MiB premarket reads of an archived report"),
        "{err}"
    );
}

#[test]
fn a_file_whose_size_says_nothing_is_cut_at_the_cap() {
    // /proc files are regular files of size 0 that yield text.
    let err = read(Path::new("/proc/self/status"), SMALL).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "is more than 16 bytes, larger than the 16 bytes premarket reads of a test file"
        ),
        "{err}"
    );
    assert!(
        !read(Path::new("/proc/self/status"), Kind::NOTE)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_missing_file_says_so() {
    let err = read(Path::new("/nonexistent/premarket"), SMALL).unwrap_err();
    assert!(err.is_missing(), "{err}");
    assert_eq!(
        err.to_string(),
        "cannot read test file /nonexistent/premarket: it does not exist"
    );
}

#[test]
fn sizes_read_as_people_write_them() {
    let shown: Vec<String> = [0, 1023, 1024, 1536, 64 << 20, 1_500_000_000]
        .into_iter()
        .map(|n| Size(n).to_string())
        .collect();
    assert_eq!(
        shown,
        [
            "0 bytes",
            "1023 bytes",
            "1 KiB",
            "1.5 KiB",
            "64 MiB",
            "1.3 GiB"
        ]
    );
}

#[test]
fn an_atomic_write_never_follows_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let target = dir.path().join("metrics.prom");
    std::os::unix::fs::symlink(&victim, &target).unwrap();
    let err = write_atomic(&target, b"metrics").unwrap_err();
    assert!(matches!(err, FileError::Link { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");

    std::fs::remove_file(&target).unwrap();
    write_atomic(&target, b"metrics").unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "metrics");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
}

#[test]
fn an_atomic_file_is_invisible_until_committed() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("capture.txt");
    std::fs::write(&target, "old").unwrap();
    let mut file = AtomicFile::create(&target).unwrap();
    file.write_all(b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    file.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    // Dropped without a commit: nothing changes and nothing is left.
    let mut file = AtomicFile::create(&target).unwrap();
    file.write_all(b"half").unwrap();
    drop(file);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_lock_refuses_a_link_and_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let lock = dir.path().join(".run.lock");
    std::os::unix::fs::symlink(&victim, &lock).unwrap();
    let err = open_lock(&lock).unwrap_err();
    assert!(matches!(err, FileError::Link { .. }), "{err}");
    std::fs::remove_file(&lock).unwrap();
    mkfifo(&lock);
    let lock2 = lock.clone();
    let err = within_two_seconds(move || open_lock(&lock2)).unwrap_err();
    assert!(err.to_string().contains("is a FIFO"), "{err}");
    std::fs::remove_file(&lock).unwrap();
    open_lock(&lock).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}

#[test]
fn a_log_is_appended_to_never_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("accepted.jsonl");
    append_line(&log, "one").unwrap();
    append_line(&log, "two").unwrap();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "one\ntwo\n");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let linked = dir.path().join("linked.jsonl");
    std::os::unix::fs::symlink(&victim, &linked).unwrap();
    let err = append_line(&linked, "x").unwrap_err();
    assert!(matches!(err, FileError::Link { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}

#[test]
fn directories_premarket_fills_are_never_links() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let link = dir.path().join("outbox");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    assert!(matches!(ensure_dir(&link), Err(FileError::Link { .. })));
    assert!(matches!(
        ensure_private_dir(&link),
        Err(FileError::Link { .. })
    ));
    let made = dir.path().join("a/b/home");
    ensure_private_dir(&made).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&made).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode & 0o077,
        0,
        "the private home is its owner's only: {mode:o}"
    );
    std::fs::write(dir.path().join("file"), "").unwrap();
    assert!(matches!(
        ensure_dir(&dir.path().join("file")),
        Err(FileError::NotDirectory { .. })
    ));
}

#[test]
fn the_login_name_is_the_password_database_s_for_the_real_uid() {
    let id = std::process::Command::new("id").arg("-un").output();
    let Some(id) = id.ok().filter(|o| o.status.success()) else {
        return; // no `id` here: nothing to compare with
    };
    let expected = String::from_utf8_lossy(&id.stdout).trim().to_string();
    assert_eq!(os::login_name(), expected);
}
