//! The FortiGate NP commands that clear their counters when they display them, named so the
//! read-only allowlist ([`super::allowlist`]) refuses each with its reason instead of the
//! generic "not one of the commands premarket sends". Reading such a counter destroys it for
//! the next reader (another admin, a monitoring script, tomorrow's run), so it is a change to
//! the device, not a read.
//!
//! Sources (the table in the hand-off samples' README): Fortinet KB 335104 ("every time the
//! command is running, the counters are also reset to 0", above `diagnose npu np6 dce 0` and
//! `np6lite dce 0`); `dce-all` reads the same DCE counters and is treated alike; the NP7
//! `dce-drop-all` and `cgmac-stats` actions `2 | c | clear` ("Clear counters", Hardware
//! Acceleration guide 479144); every `*-clear` diagnose word (427232: `xgmac-stats-clear`,
//! `session-stats-clear`, `sse-stats-clear`, `ipsec-stats-clear`, `hbq-stats-clear`). NP6XLite
//! `dce` and NP7Lite `dce-drop-all` are undocumented; community debug lists run them several
//! times in a row, which fits clear-on-read, so they are treated as clearing too.
//!
//! FortiOS accepts abbreviations (`diag npu np6 dce 0`): a word typed in full means itself
//! (`np7` is not `np7lite`), a shorter one is taken to mean every word it begins, so an
//! ambiguous abbreviation of a clearing command is refused too.

const DCE: &str = "`dce` clears the NP6/NP6Lite drop counters every time it displays them (Fortinet KB 335104: \"every time the command is running, the counters are also reset to 0\"): reading them destroys them for the next reader, so premarket never sends it";
const DCE_ALL: &str = "`dce-all` reads the same DCE counters as `dce`, which clear when displayed (KB 335104): treated as clearing, never sent";
const UNDOCUMENTED: &str = "whether this NP drop command clears its counters is not documented; community debug lists run it several times in a row, which fits clear-on-read: treated as clearing, never sent";
const ACTION: &str = "the action `2`, `c` or `clear` clears the NP7 counters (Hardware Acceleration guide 479144: \"{2 | c | clear} Clear counters\"): never sent";
const STATS_CLEAR: &str = "a `*-clear` diagnose word clears the counters it names (Hardware Acceleration guide 427232: \"xgmac-stats-clear clear XGMAC MIBS counters\"): never sent";

/// The NP words and the drop-counter commands, to resolve what a typed word means.
const NPS: &[&str] = &["np6", "np6lite", "np6xlite", "np7", "np7lite"];
const COMMANDS: &[&str] = &["dce", "dce-all", "dce-drop-all", "cgmac-stats"];

/// Why `line` clears NP counters when run, or `None` when it is not one of those commands.
pub fn clears(line: &str) -> Option<&'static str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [first, second, np, command, rest @ ..] = words.as_slice() else {
        return None;
    };
    if !(means(first, &["diagnose"], "diagnose") && means(second, &["npu"], "npu")) {
        return None;
    }
    if command.ends_with("-clear") {
        return Some(STATS_CLEAR);
    }
    let np = |full: &str| means(np, NPS, full);
    let cmd = |full: &str| means(command, COMMANDS, full);
    if (np("np6") || np("np6lite")) && cmd("dce") {
        return Some(DCE);
    }
    if (np("np6") || np("np6lite")) && cmd("dce-all") {
        return Some(DCE_ALL);
    }
    let action = rest
        .get(1)
        .is_some_and(|a| *a == "2" || *a == "c" || (a.len() >= 2 && "clear".starts_with(a)));
    if (np("np7") || np("np7lite")) && (cmd("dce-drop-all") || cmd("cgmac-stats")) && action {
        return Some(ACTION);
    }
    if (np("np6xlite") && (cmd("dce") || cmd("dce-all"))) || (np("np7lite") && cmd("dce-drop-all"))
    {
        return Some(UNDOCUMENTED);
    }
    None
}

/// Whether the typed `word` may mean `full`, FortiOS's way: a word of `vocabulary` typed in
/// full means itself only; a shorter one means every word it begins.
fn means(word: &str, vocabulary: &[&str], full: &str) -> bool {
    if vocabulary.contains(&word) {
        return word == full;
    }
    !word.is_empty() && full.starts_with(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_reading_forms_are_not_clearing() {
        for line in [
            "diagnose npu np7 dce-drop-all 0",
            "diagnose npu np7 dce-drop-all 0 1",
            "diagnose npu np7 dce-drop-all 0 v",
            "diagnose npu np7 cgmac-stats 0 0",
            "diagnose npu np6 xgmac-stats 0",
            "diagnose npu np6 port-list",
            "diagnose npu np6xlite npu-feature",
            "diagnose sys session clear",
            "get system status",
        ] {
            assert_eq!(clears(line), None, "{line}");
        }
    }

    #[test]
    fn clearing_forms_and_their_abbreviations() {
        assert_eq!(clears("diag npu np6 dce 0"), Some(DCE));
        assert_eq!(clears("diagnose npu np6lite dce 1"), Some(DCE));
        assert_eq!(clears("diagnose npu np6 dce-all 0"), Some(DCE_ALL));
        assert_eq!(clears("diagnose npu np7 dce-drop-all 0 cl"), Some(ACTION));
        assert_eq!(
            clears("diagnose npu np7lite dce-drop-all 0 2"),
            Some(ACTION)
        );
        assert_eq!(
            clears("diagnose npu np7lite dce-drop-all 0"),
            Some(UNDOCUMENTED)
        );
        assert_eq!(clears("diagnose npu np6xlite dce 0"), Some(UNDOCUMENTED));
        assert_eq!(
            clears("diagnose npu np6 hbq-stats-clear 0"),
            Some(STATS_CLEAR)
        );
    }
}
