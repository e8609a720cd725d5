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

/// The README's table of crates and what each may use is what their `Cargo.toml` files say:
/// the layers the compiler keeps are the layers the README shows.
#[test]
fn the_layer_table_matches_the_crates() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
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
        assert_eq!(shown, declared, "README row for `{name}`");
        rows += 1;
    }
    let crates = std::fs::read_dir(common::repo().join("src"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("Cargo.toml").exists())
        .count();
    assert_eq!(rows, crates, "every crate under src/ has its row");
}

/// The README's "What runs on which model" is `premarket list --models` of the example site.
#[test]
fn model_table_matches_the_code() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).expect("README");
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
        "README model table is stale: replace it with `cargo run -- list --models`"
    );
}

/// Library errors are types a caller can match on, not `Result<_, String>` (README
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

/// No source file over 600 lines (README "Development"): a file that grows past it is split
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
