//! The README's check catalogue is generated from `checks/`; this keeps it current.

use crate::common;

#[test]
fn catalogue_matches_checks_dir() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
    let start = readme
        .find("<!-- catalog:start -->\n")
        .expect("start marker")
        + "<!-- catalog:start -->\n".len();
    let end = readme.find("<!-- catalog:end -->").expect("end marker");
    let config = premarket::Config::load(&common::repo()).expect("example site");
    let generated = premarket::cli::list_markdown(&config.catalog);
    assert_eq!(
        &readme[start..end],
        generated,
        "README catalogue is stale: replace it with `cargo run -- list --markdown`"
    );
}

/// The workspace README's table of crates and what each may use is what their `Cargo.toml`
/// files say: the layers the compiler keeps are the layers `src/README.md` shows.
#[test]
fn the_layer_table_matches_the_crates() {
    let readme = std::fs::read_to_string(common::repo().join("src/README.md")).expect("README");
    let table = readme
        .split("| crate | may use |\n|---|---|\n")
        .nth(1)
        .expect("the layer table");
    let mut rows = 0;
    for row in table.lines().take_while(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let name = cells[0]
            .trim_start_matches("| `")
            .split('`')
            .next()
            .unwrap();
        if name == "premarket" {
            continue;
        }
        let manifest =
            std::fs::read_to_string(common::repo().join("src").join(name).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("src/{name}/Cargo.toml: {e}"));
        let mut declared: Vec<&str> = manifest
            .lines()
            .take_while(|l| !l.starts_with("[dev-dependencies]"))
            .filter_map(|l| l.strip_prefix("premarket-"))
            .filter_map(|l| l.split('.').next())
            .collect();
        declared.sort_unstable();
        let mut shown: Vec<&str> = cells[1]
            .split(", ")
            .filter_map(|c| c.trim().trim_end_matches(" |").strip_prefix('`'))
            .map(|c| c.trim_end_matches('`'))
            .collect();
        shown.sort_unstable();
        assert_eq!(shown, declared, "src/README.md row for `{name}`");
        rows += 1;
    }
    let crates = std::fs::read_dir(common::repo().join("src"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("Cargo.toml").exists())
        .count();
    assert_eq!(rows, crates, "every crate under src/ has its row");
}

/// The platform crate's "What runs on which model" is `premarket list --models` of the
/// example site.
#[test]
fn model_table_matches_the_code() {
    let readme =
        std::fs::read_to_string(common::repo().join("src/platform/README.md")).expect("README");
    let start = readme
        .find("<!-- models:start -->\n")
        .expect("start marker")
        + "<!-- models:start -->\n".len();
    let end = readme.find("<!-- models:end -->").expect("end marker");
    let config = premarket::Config::load(&common::repo()).expect("example site");
    let plan =
        premarket::Plan::new(&config, &premarket::Selection::default()).expect("example plan");
    let generated = premarket::cli::models_markdown(&plan);
    assert_eq!(
        &readme[start..end],
        generated,
        "src/platform/README.md's model table is stale: replace it with `cargo run -- list --models`"
    );
}

/// Library errors are types a caller can match on, not `Result<_, String>` (src/README.md,
/// "Development"). Not counted: the lab (test equipment, its errors end as a line on the
/// emulator's console). `KEPT` are the two still standing, each with why; anywhere else, or one
/// more in a kept file, fails here.
#[test]
fn no_string_errors_outside_the_lab() {
    const NOT_COUNTED: &[&str] = &["src/lab/"];
    const KEPT: &[(&str, usize)] = &[
        // `set_once`: 42 parser call sites fold its `Err` into their `ParseError`'s message
        // through closures that take the words; a type would be turned back into them at once.
        ("src/parse/text.rs", 1),
        // `Topology::switches`: why `show system virtual-switch` was not read, the words that
        // `Unresolved::SwitchUnlisted` quotes (its `FactError` rendered with the command).
        ("src/platform/fortigate/topology.rs", 1),
    ];
    let repo = common::repo();
    let mut files = vec![repo.join("src")];
    let mut found: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let rel = path
            .strip_prefix(&repo)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !rel.ends_with(".rs") || NOT_COUNTED.iter().any(|n| rel.starts_with(n)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            // `Result<T, String>` with T free of `>`: the shape of a string-typed error.
            let hits = line.match_indices("Result<").filter(|(at, _)| {
                let rest = &line[at + "Result<".len()..];
                rest.split('>')
                    .next()
                    .is_some_and(|t| t.ends_with(", String"))
            });
            for _ in hits {
                found.entry(rel.clone()).or_default().push(format!(
                    "{rel}:{}: {}",
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    let over: Vec<&String> = found
        .iter()
        .filter(|(file, hits)| {
            let kept = KEPT.iter().find(|(k, _)| k == file).map_or(0, |(_, n)| *n);
            hits.len() > kept
        })
        .flat_map(|(_, hits)| hits)
        .collect();
    assert!(
        over.is_empty(),
        "`Result<_, String>` outside the lab; use a thiserror enum (or a named reason type):\n{}",
        over.iter()
            .map(|h| h.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// No source file over 600 lines (src/README.md, "Development"): a file that grows past it is split
/// where its seams are, as issue 24 split the seven that had.
#[test]
fn no_source_file_over_600_lines() {
    const MAX: usize = 600;
    let repo = common::repo();
    let mut files = vec![repo.join("src")];
    let mut over = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_some_and(|e| e == "rs") {
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            if lines > MAX {
                let rel = path.strip_prefix(&repo).unwrap().display().to_string();
                over.push(format!("{rel}: {lines} lines"));
            }
        }
    }
    over.sort();
    assert!(over.is_empty(), "over {MAX} lines:\n{}", over.join("\n"));
}

/// Every command line the README shows parses against the real command line: in shell code
/// blocks, each command of a line (or of a `\`-continued line) whose program is `premarket`; in
/// the text, each code span that starts with `premarket `. A usage synopsis (`[--dir D]`, `...`)
/// is not a command line; a `<placeholder>` stands for a value and `a|b` for its first choice. A
/// span that only names a subcommand (`premarket probe run`) may lack its required arguments.
/// A renamed flag or subcommand fails here, not for a reader.
#[test]
fn every_readme_command_line_parses() {
    use clap::{CommandFactory, Parser};
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
    let subcommands: Vec<String> = premarket::cli::Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let lines = readme_command_lines(&readme, &subcommands);
    assert!(lines.len() > 20, "found only {lines:?}");
    let wrong: Vec<String> = lines
        .iter()
        .filter_map(|(n, words, naming)| {
            let e = premarket::cli::Cli::try_parse_from(words).err()?;
            use clap::error::ErrorKind::*;
            // `PLATFORM`, `X` (a `<placeholder>`): a value a reader fills in.
            let placeholder = words
                .iter()
                .skip(1)
                .any(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            let fine = match e.kind() {
                DisplayHelp | DisplayVersion => true,
                InvalidValue | ValueValidation => placeholder,
                MissingRequiredArgument
                | MissingSubcommand
                | DisplayHelpOnMissingArgumentOrSubcommand => *naming,
                _ => false,
            };
            (!fine).then(|| {
                let why = e.render().to_string();
                format!(
                    "README.md:{n}: {}\n  {}",
                    words.join(" "),
                    why.lines().next().unwrap_or("")
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} command lines do not parse:\n{}",
        wrong.len(),
        lines.len(),
        wrong.join("\n")
    );
}

/// (line number, words from `premarket` on, whether it only names a command) of each
/// `premarket` invocation the README shows.
fn readme_command_lines(readme: &str, subcommands: &[String]) -> Vec<(usize, Vec<String>, bool)> {
    // Output and synopses are `text`; YAML, JSON and Rust only mention premarket.
    const SHELL: &[&str] = &["", "sh", "bash", "console", "shell", "ini", "systemd"];
    let mut out = Vec::new();
    let lines: Vec<&str> = readme.lines().collect();
    let mut i = 0;
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    while i < lines.len() {
        let Some(lang) = lines[i].trim_start().strip_prefix("```") else {
            if lines[i].trim().is_empty() {
                spans(&paragraph, subcommands, &mut out);
                paragraph.clear();
            } else {
                paragraph.push((i + 1, lines[i]));
            }
            i += 1;
            continue;
        };
        spans(&paragraph, subcommands, &mut out);
        paragraph.clear();
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim_start().starts_with("```"))
            .unwrap_or(lines.len());
        let block: Vec<(usize, &str)> = (i + 1..end).map(|j| (j + 1, lines[j].trim())).collect();
        i = end + 1;
        if !SHELL.contains(&lang.trim()) {
            continue;
        }
        // With a prompt, the lines after `$ ` are the commands and the rest their output.
        let prompted = block.iter().any(|(_, l)| l.starts_with("$ "));
        let mut continued: Option<(usize, String)> = None;
        for (n, line) in block {
            let (start, text) = match continued.take() {
                Some((start, before)) => (start, format!("{before} {line}")),
                None if line.starts_with('#') => continue,
                None if prompted => match line.strip_prefix("$ ") {
                    Some(command) => (n, command.to_string()),
                    None => continue,
                },
                None => (n, line.to_string()),
            };
            if let Some(open) = text.strip_suffix('\\') {
                continued = Some((start, open.trim_end().to_string()));
                continue;
            }
            let text = placeholders(&text);
            for command in text
                .split(" | ")
                .flat_map(|c| c.split('&'))
                .flat_map(|c| c.split(';'))
            {
                if let Some(words) = invocation(&shell_words(command), subcommands) {
                    out.push((start, words, false));
                }
            }
        }
    }
    spans(&paragraph, subcommands, &mut out);
    out
}

/// The code spans of a paragraph (they may wrap) that start with `premarket `.
fn spans(
    paragraph: &[(usize, &str)],
    subcommands: &[String],
    out: &mut Vec<(usize, Vec<String>, bool)>,
) {
    let Some((n, _)) = paragraph.first() else {
        return;
    };
    let text: Vec<&str> = paragraph.iter().map(|(_, l)| l.trim()).collect();
    let text = text.join(" ");
    for span in text.split('`').skip(1).step_by(2) {
        if !span.starts_with("premarket ") {
            continue;
        }
        let words: Vec<&str> = span.split(' ').collect();
        let naming = words.len() <= 3 && words.iter().all(|w| !w.starts_with('-'));
        if let Some(words) = invocation(&shell_words(&placeholders(span)), subcommands) {
            out.push((*n, words, naming));
        }
    }
}

/// The words from the program `premarket` on (a path to it counts; `User=premarket` or a
/// cron line's user field does not), unless they are a usage synopsis.
fn invocation(words: &[String], subcommands: &[String]) -> Option<Vec<String>> {
    let at = words.iter().enumerate().position(|(i, w)| {
        let program = w.rsplit('=').next().unwrap_or(w);
        let named = program == "premarket" || program.ends_with("/premarket");
        let assigned = w.contains('=') && !program.ends_with("/premarket");
        let next = words.get(i + 1);
        let runs = next.is_none_or(|n| n.starts_with('-') || subcommands.contains(n));
        named && !assigned && runs
    })?;
    let words = &words[at..];
    if words
        .iter()
        .any(|w| w.contains('[') || w.contains("...") || w.contains('{'))
    {
        return None;
    }
    Some(
        words
            .iter()
            .map(|w| {
                // `a|b`: one of the choices.
                w.split('|').next().unwrap_or(w).to_string()
            })
            .collect(),
    )
}

/// `<archive>/<run id>` -> `X/X`: a placeholder stands for a value (`< file`, a redirection,
/// stays).
fn placeholders(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match after.find('>') {
            Some(end) if !after.starts_with(' ') && !after[..end].contains('<') => {
                out.push('X');
                rest = &after[end + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The words of a shell command, quotes removed, up to a redirection or a comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    word.push(q);
                }
            }
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            // A redirection (`>>log`, `2>&1`, `< file`) ends the arguments.
            '>' | '<' if word.is_empty() || word.chars().all(|d| d.is_ascii_digit()) => {
                if !word.is_empty() {
                    word.clear();
                    in_word = false;
                }
                break;
            }
            ')' if !in_word => break,
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The README is the operator's guide: short enough to read before the open (issue 36: at most
/// about 700 lines); the maintainers' notes live beside their code.
#[test]
fn the_guide_stays_short() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
    let lines = readme.lines().count();
    assert!(
        lines <= 720,
        "README.md has {lines} lines: move maintainers' detail into the crate it concerns"
    );
}

/// Each crate's documentation is its `README.md` (what it owns, its guarantees, how they are
/// tested), included as the crate's doc so `cargo doc` and the folder show the same text.
#[test]
fn every_crate_documents_itself_with_its_readme() {
    let src = common::repo().join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let dir = entry.expect("entry").path();
        if !dir.join("Cargo.toml").exists() {
            continue;
        }
        let lib = std::fs::read_to_string(dir.join("lib.rs")).unwrap_or_default();
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        if !lib.starts_with("#![doc = include_str!(\"README.md\")]") {
            missing.push(format!(
                "{}: lib.rs does not include README.md",
                dir.display()
            ));
        }
        if !readme.contains("## How it is tested") {
            missing.push(format!(
                "{}: README.md does not say how it is tested",
                dir.display()
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
