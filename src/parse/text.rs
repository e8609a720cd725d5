//! Text helpers every parser shares: device output is hostile input, so lines are normalised
//! (CRLF, trailing spaces, stray backspaces) before any grammar looks at them.

/// Lines of `raw` with `\r` and trailing white space removed.
pub fn lines(raw: &str) -> impl Iterator<Item = &str> {
    raw.split('\n')
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
}

/// `raw` with CRLF turned into LF and trailing spaces removed from every line.
pub fn normalize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in lines(raw) {
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.trim().is_empty() {
        out.clear();
    }
    out
}

/// The first `max` non-empty lines of `raw`, for an error's evidence.
pub fn excerpt(raw: &str, max: usize) -> String {
    let mut lines: Vec<&str> = lines(raw)
        .filter(|l| !l.trim().is_empty())
        .take(max + 1)
        .collect();
    let more = lines.len() > max;
    lines.truncate(max);
    let mut out = lines
        .iter()
        .map(|l| clip(l, 160))
        .collect::<Vec<_>>()
        .join("\n");
    if more {
        out.push_str("\n...");
    }
    out
}

/// Lines `line - radius ..= line + radius` of `raw`.
pub fn excerpt_around(raw: &str, line: usize, radius: usize) -> String {
    let start = line.saturating_sub(radius);
    lines(raw)
        .skip(start)
        .take(2 * radius + 1)
        .map(|l| clip(l, 160))
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most `max` characters of `line` (on a character boundary).
pub fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_drops_cr_and_trailing_space() {
        assert_eq!(normalize("a  \r\nb\r\n\r\n"), "a\nb\n");
        assert_eq!(normalize(" \r\n"), "");
    }

    #[test]
    fn excerpt_marks_truncation() {
        assert_eq!(excerpt("1\n2\n3\n", 2), "1\n2\n...");
        assert_eq!(excerpt("1\n\n2\n", 2), "1\n2");
    }

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("巡檢巡檢", 2), "巡檢...");
    }
}
