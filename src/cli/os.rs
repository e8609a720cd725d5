//! The operating-system facts the command line needs that std does not offer, each a safe
//! function over one libc call: the only `unsafe` of this crate is here, where it can be read
//! in one place.

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}
