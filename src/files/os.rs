//! The few calls to the operating system that `std` does not offer, each an `unsafe` block
//! around one system call with no pointer that outlives it. Kept here so that the rest of the
//! tree outside the probe's packet sockets (`probe::sys`) has no `unsafe` at all.

use std::os::fd::AsRawFd;
use std::path::Path;

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
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

/// Sends SIGKILL to every process of group `group` (a child started as the leader of a group of
/// its own, and whatever it started that stayed in it). Best effort: a group already gone is
/// not an error to the caller, which only wants nothing of it left.
pub fn kill_process_group(group: u32) {
    let Ok(group) = i32::try_from(group) else {
        return;
    };
    if group <= 1 {
        // 0 and 1 would name this process's own group or every process: never.
        return;
    }
    // SAFETY: kill takes two integers and touches no memory of this process.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Who is running premarket, for what it records in files people review (an acknowledgement's
/// `by:`): the login name of the real user id from the password database (`getpwuid_r`), else
/// `$LOGNAME`, else `$USER`, else `uid N`. The real uid, not the environment first: `sudo -E`
/// or a copied profile must not put another name on the record.
pub fn login_name() -> String {
    let uid = uid();
    password_entry_name(uid)
        .or_else(|| std::env::var("LOGNAME").ok().filter(|n| !n.is_empty()))
        .or_else(|| std::env::var("USER").ok().filter(|n| !n.is_empty()))
        .unwrap_or_else(|| format!("uid {uid}"))
}

/// The `pw_name` of `uid`'s entry in the password database, if it has one.
fn password_entry_name(uid: u32) -> Option<String> {
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: a zeroed passwd is a valid value for getpwuid_r to fill.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to memory this function owns for the whole call, and the buffer's
    // length is the one passed; getpwuid_r writes only within them.
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &raw mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &raw mut found,
        )
    };
    if rc != 0 || found.is_null() || entry.pw_name.is_null() {
        return None;
    }
    // SAFETY: on success pw_name points to a NUL-terminated string inside `buffer`, alive here.
    let name = unsafe { std::ffi::CStr::from_ptr(entry.pw_name) };
    Some(name.to_string_lossy().into_owned()).filter(|n| !n.is_empty())
}
