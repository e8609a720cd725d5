//! What a benchmark's own process used, read from the kernel (Linux): peak resident memory and
//! CPU time. Shared by the benchmarks under `tests/bench`.

/// The process's peak resident memory so far (`VmHWM`).
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time (user + system) used by this process (`RUSAGE_SELF`) or its finished children
/// (`RUSAGE_CHILDREN`): the machine may be shared, so throughput "on one core" is bytes over
/// CPU time; wall-clock time is printed beside it.
pub fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return f64::NAN;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
