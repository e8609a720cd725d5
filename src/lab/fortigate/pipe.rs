//! `| grep [-i] [-v] [-c] [-e PATTERN]... PATTERN`, the only pipe FortiOS has, on a text or
//! on a streamed listing. The pattern is compiled once: a 200,000-session list is filtered
//! line by line as it is made, and `-c` ("display only count of matching lines") answers
//! one number without the listing ever crossing SSH, as the research recommends for counting
//! a flow's sessions.

use regex::{Regex, RegexBuilder};

use super::super::device::Stream;

/// One `grep` pipe.
#[derive(Clone, Debug)]
pub struct Grep {
    matcher: Matcher,
    invert: bool,
    count: bool,
}

/// Plain words (the usual case: `grep -c "session info"`) are matched as substrings, which
/// is several times faster than a regular expression over a 200,000-session listing.
#[derive(Clone, Debug)]
enum Matcher {
    Literals(Vec<String>),
    Regex(Regex),
}

impl Grep {
    /// The `grep` pipes among `pipes` (others are ignored, as FortiOS has no other pipe).
    pub fn all(pipes: &[String]) -> Vec<Grep> {
        pipes.iter().filter_map(|p| Grep::parse(p)).collect()
    }

    fn parse(pipe: &str) -> Option<Grep> {
        let mut words = pipe.split_whitespace();
        if words.next() != Some("grep") {
            return None;
        }
        let (mut invert, mut ignore_case, mut count) = (false, false, false);
        let (mut patterns, mut words_of_one): (Vec<String>, Vec<&str>) = (Vec::new(), Vec::new());
        for w in words {
            match w {
                "-v" => invert = true,
                "-i" => ignore_case = true,
                "-c" => count = true,
                // Each `-e` starts another pattern; any of them may match.
                "-e" if !words_of_one.is_empty() => {
                    patterns.push(std::mem::take(&mut words_of_one).join(" "))
                }
                "-e" => {}
                _ => words_of_one.push(w.trim_matches(|c| c == '"' || c == '\'')),
            }
        }
        if !words_of_one.is_empty() {
            patterns.push(words_of_one.join(" "));
        }
        if !ignore_case && patterns.iter().all(|p| regex::escape(p) == *p) {
            return Some(Grep {
                matcher: Matcher::Literals(patterns),
                invert,
                count,
            });
        }
        let pattern = patterns
            .iter()
            .map(|p| format!("(?:{p})"))
            .collect::<Vec<_>>()
            .join("|");
        // An invalid regular expression is matched literally.
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(ignore_case)
            .build()
            .or_else(|_| {
                RegexBuilder::new(&regex::escape(&pattern))
                    .case_insensitive(ignore_case)
                    .build()
            })
            .ok()?;
        Some(Grep {
            matcher: Matcher::Regex(re),
            invert,
            count,
        })
    }

    fn keep(&self, line: &str) -> bool {
        let hit = match &self.matcher {
            Matcher::Literals(words) => words.iter().any(|w| line.contains(w.as_str())),
            Matcher::Regex(re) => re.is_match(line),
        };
        hit != self.invert
    }

    /// The lines of `text` this pipe keeps (without `-c`).
    fn lines(&self, text: &str) -> String {
        let mut out = String::new();
        for line in text.lines().filter(|l| self.keep(l)) {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    fn matching(&self, text: &str) -> usize {
        text.lines().filter(|l| self.keep(l)).count()
    }
}

/// `text` through every pipe.
pub fn text(mut text: String, greps: &[Grep]) -> String {
    for g in greps {
        text = if g.count {
            format!("{}\n", g.matching(&text))
        } else {
            g.lines(&text)
        };
    }
    text
}

/// A streamed listing through every pipe, still streamed (`-c` counts as it reads).
pub fn stream(mut stream: Stream, greps: Vec<Grep>) -> Stream {
    for g in greps {
        stream = if g.count {
            let mut source = Some(stream);
            Stream::new(std::iter::from_fn(move || {
                let s = source.take()?;
                Some(format!(
                    "{}\n",
                    s.map(|piece| g.matching(&piece)).sum::<usize>()
                ))
            }))
        } else {
            Stream::new(
                stream
                    .map(move |piece| g.lines(&piece))
                    .filter(|piece| !piece.is_empty()),
            )
        };
    }
    stream
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_options() {
        let g = |p: &str| Grep::all(&[p.to_string()]);
        let t = "a one\nB two\nc three\n".to_string();
        assert_eq!(text(t.clone(), &g("grep -i b")), "B two\n");
        assert_eq!(text(t.clone(), &g("grep -v -e one -e two")), "c three\n");
        assert_eq!(text(t.clone(), &g("grep -c e")), "2\n");
        assert_eq!(text(t.clone(), &g("grep a(")), "");
        let pieces = vec!["a one\nB two\n".to_string(), "c three\n".to_string()];
        let counted = stream(Stream::new(pieces.clone().into_iter()), g("grep -c o"));
        assert_eq!(counted.collect_text(), "2\n");
        let kept = stream(Stream::new(pieces.into_iter()), g("grep three"));
        assert_eq!(kept.collect_text(), "c three\n");
    }
}
