//! The YAML library's words turned into a person's: a type error names the key (`ssh.port`)
//! and the form expected (`a port number 1-65535, not "22a"`), a duplicate key reads
//! "`lanz` appears twice" without the library's advice about its own options.

/// `message` (the library's, without its location) about the value at `line` (1-based) of
/// `text`, in words that say what to write instead.
pub fn explain(message: &str, text: &str, line: usize) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        return format!("`{key}` appears twice in the same section (keep one)");
    }
    let expected = match message.trim() {
        m if m.starts_with("invalid u") || m.starts_with("invalid i") && !m.contains("type") => {
            "a whole number"
        }
        "invalid floating point" | "invalid float" => "a number such as 80",
        "invalid boolean" | "invalid bool" => "true or false",
        _ => return message.to_string(),
    };
    let Some((key, value)) = key_at(text, line) else {
        return message.to_string();
    };
    let expected = if key == "port" || key.ends_with(".port") {
        "a port number 1-65535"
    } else {
        expected
    };
    format!("{key}: {expected}, not {value:?}")
}

/// The dotted key (`ssh.port`) and the written value of `key: value` at `line`, the parents
/// found by walking up to the lines indented less.
fn key_at(text: &str, line: usize) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?;
    let (key, value) = split(here)?;
    let mut indent = indentation(here);
    let mut path = vec![key.to_string()];
    for above in lines[..line - 1].iter().rev() {
        if above.trim().is_empty() || above.trim_start().starts_with('#') {
            continue;
        }
        if indentation(above) < indent {
            indent = indentation(above);
            match split(above) {
                Some((parent, "")) => path.push(parent.to_string()),
                // A list item or an inline value: no dotted name goes through it.
                _ => break,
            }
        }
    }
    path.reverse();
    let value = value.trim_matches(|c| c == '"' || c == '\'').to_string();
    Some((path.join("."), value))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `key: value` (the value without a trailing comment), or `None`.
fn split(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.trim().trim_start_matches("- ").split_once(':')?;
    let value = value.split(" #").next().unwrap_or(value).trim();
    Some((key.trim(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_name_the_key_and_the_form() {
        let text = "ssh:\n  host: a\n  port: 22a\nexpect:\n  cpu_max_percent: \"50%\"\n";
        assert_eq!(
            explain("invalid u16", text, 3),
            "ssh.port: a port number 1-65535, not \"22a\""
        );
        assert_eq!(
            explain("invalid floating point", text, 5),
            "expect.cpu_max_percent: a number such as 80, not \"50%\""
        );
        assert_eq!(
            explain(
                "duplicate mapping key: lanz, set DuplicateKeyPolicy in Options if acceptable",
                text,
                1
            ),
            "`lanz` appears twice in the same section (keep one)"
        );
        assert_eq!(explain("unknown field `x`", text, 3), "unknown field `x`");
    }
}
