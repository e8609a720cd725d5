//! The few calls to the operating system that `std` does not offer (who the user is, whether a
//! process lives, a file system flush), each an `unsafe` block around one system call with no
//! pointer that outlives it. Kept here so that the rest of the tree outside the probe's packet
//! sockets (`probe::sys`) has no `unsafe` at all.

use std::os::fd::AsRawFd;
use std::path::Path;

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The login name of the real user (the password database's entry for [`uid`]), else the
/// `LOGNAME` or `USER` the environment gives; `None` when nothing says.
pub fn login_name() -> Option<String> {
    let uid = uid();
    // SAFETY: passwd is plain data (integers and pointers): all zeroes is a valid value.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buffer = vec![0 as libc::c_char; 4096];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes the entry into `entry` and its strings into `buffer`, both
    // alive for the call and for the read of `pw_name` below; `found` is null when there is no
    // entry (or on an error).
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    let from_database = (rc == 0 && !found.is_null() && !entry.pw_name.is_null())
        .then(|| {
            // SAFETY: pw_name points into `buffer`, a NUL-terminated string getpwuid_r wrote.
            unsafe { std::ffi::CStr::from_ptr(entry.pw_name) }
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| !n.is_empty());
    from_database.or_else(|| {
        ["LOGNAME", "USER"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .find(|n| !n.is_empty())
    })
}

/// Whether a process with this id exists (signal 0 checks without sending anything).
pub fn process_exists(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks that the process exists; it sends nothing.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Flushes the file system holding `dir` to disk (best effort: errors are ignored, as the
/// caller goes on either way).
pub fn sync_file_system(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        // SAFETY: syncfs only reads the descriptor, which `d` keeps open for the call.
        unsafe {
            libc::syncfs(d.as_raw_fd());
        }
    }
}
