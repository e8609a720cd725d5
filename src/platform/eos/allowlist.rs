//! The read-only allowlist for Arista EOS: the shapes of every line premarket may send to a
//! switch. The SSH layer checks each line against it before a byte leaves, so a typo in a
//! catalog or a hostile baseline can never make the tool change a switch.
//!
//! Allowed: `enable`; `terminal length N` and `terminal width N` (session settings, not
//! configuration); `show ...` with output filters only. Refused: anything else, and any `show`
//! that writes somewhere (`| write`, `| redirect`, `| tee`, `| append`, `> file`, `copy`).

use premarket_ssh::profile::NotReadOnly;

/// Output filters that only narrow or reformat what `show` prints.
const FILTERS: &[&str] = &[
    "json", "text", "no-more", "include", "exclude", "begin", "section", "count",
];

/// Words that never appear in a read-only `show` line.
const WRITERS: &[&str] = &[
    "write",
    "redirect",
    "tee",
    "append",
    "copy",
    "configure",
    "reload",
    "delete",
    "bash",
];

/// `Ok` when `line` is a read-only EOS command, otherwise the reason it is refused.
pub fn check(line: &str) -> Result<(), NotReadOnly> {
    if !line.bytes().all(|b| (0x20..0x7f).contains(&b)) || line.contains(';') {
        return Err("control characters, non-ASCII and `;` are never sent".into());
    }
    let words: Vec<&str> = line.split(' ').collect();
    if words.iter().any(|w| w.is_empty()) || line != line.trim() {
        return Err("only single spaces between words are allowed".into());
    }
    match words.as_slice() {
        ["enable"] => Ok(()),
        ["terminal", "length" | "width", n] if is_number(n) => Ok(()),
        ["show", ..] => check_show(line),
        _ => Err(NotReadOnly(format!(
            "`{}` is not a read-only EOS command (only enable, terminal length/width and show)",
            words[0]
        ))),
    }
}

fn check_show(line: &str) -> Result<(), NotReadOnly> {
    if line.contains('>') {
        return Err("`>` redirects output to a file".into());
    }
    let mut segments = line.split('|');
    let show = segments.next().unwrap_or_default();
    // `show reload cause` only reads why the switch last reloaded (eos.uptime.stable).
    let reads_reload_cause = show.trim() == "show reload cause";
    if let Some(word) = show
        .split(' ')
        .find(|w| WRITERS.contains(w) && !reads_reload_cause)
    {
        return Err(NotReadOnly(format!(
            "`{word}` is not allowed in a show command"
        )));
    }
    for filter in segments {
        let filter = filter.trim();
        let name = filter.split(' ').next().unwrap_or_default();
        if !FILTERS.contains(&name) {
            return Err(NotReadOnly(format!(
                "output filter `| {name}` is not read-only or not known"
            )));
        }
        if let Some(word) = filter.split(' ').skip(1).find(|w| WRITERS.contains(w)) {
            return Err(NotReadOnly(format!(
                "`{word}` is not allowed in an output filter"
            )));
        }
    }
    Ok(())
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn accepts_the_read_only_shapes() {
        for line in [
            "enable",
            "terminal length 0",
            "terminal width 511",
            "show version",
            "show version | json",
            "show queue-monitor length status | json",
            "show queue-monitor length status",
            "show startup-config",
            "show running-config",
            "show running-config diffs",
            "show interfaces status | include connected",
            "show running-config | section queue-monitor",
            "show reload cause | json",
            "show ptp | json revision 2",
        ] {
            assert_eq!(check(line), Ok(()), "{line}");
        }
    }

    #[test]
    fn refuses_everything_that_writes_or_is_not_show() {
        for line in [
            "configure",
            "configure terminal",
            "write",
            "write memory",
            "copy running-config startup-config",
            "reload",
            "reload now",
            "bash",
            "show running-config | write flash:x",
            "show running-config | redirect flash:x",
            "show running-config | tee flash:x",
            "show running-config | append flash:x",
            "show running-config > flash:x",
            "show running-config >> flash:x",
            "show version | json | tee flash:x",
            "show copy",
            "terminal length 0 x",
            "terminal monitor",
            "sh version",
            "Show version",
            " show version",
            "show  version",
            "enable secret x",
            "",
            "show version\nreload",
            "show version; reload",
            "show version\r",
            "show reload cause now",
            "show reload",
        ] {
            assert!(check(line).is_err(), "{line:?} must be refused");
        }
    }
}
