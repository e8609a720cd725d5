//! `premarket explain`: every check of the catalog explains itself, from one source of facts.
//! Its words are the catalog entry's, its keys those of the types that read them, and its
//! example verdict lines are lines the check really prints: each harness that runs checks over
//! fixtures (`eos_checks`, `fortigate_checks`, `rule_checks`, `probe_site`) hands the
//! headlines it saw to [`assert_examples`], which fails when a catalog example is not one of
//! them.

use crate::common;

use premarket::Status;
use premarket::config::Config;

fn example_site() -> Config {
    Config::load(&common::repo()).expect("example site")
}

/// Fails unless each catalog example of the checks and statuses in `seen` (check, status,
/// headline as the report prints it after the check id) is a headline that check printed with
/// that status. The check harnesses run OK, FAIL and ERROR rows of every check (each has a test
/// saying so), so every example is compared.
pub(crate) fn assert_examples(seen: &[(String, Status, String)]) {
    let config = example_site();
    let mut wrong = Vec::new();
    for entry in &config.catalog {
        let printed: Vec<&(String, Status, String)> = seen
            .iter()
            .filter(|(check, _, _)| *check == entry.id)
            .collect();
        if printed.is_empty() {
            continue;
        }
        for (word, line) in entry.examples.all() {
            // Each harness checks the statuses it ran (the probe's tests run one each).
            if !printed
                .iter()
                .any(|(_, status, _)| status.to_string() == word)
            {
                continue;
            }
            let lines: Vec<&str> = printed
                .iter()
                .filter(|(_, status, _)| status.to_string() == word)
                .map(|(_, _, headline)| headline.as_str())
                .collect();
            if !lines.contains(&line) {
                wrong.push(format!(
                    "{} {word}: the catalog's example {line:?} is not a line the check printed; \
                     it printed:\n    {}",
                    entry.id,
                    lines.join("\n    ")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// Every check says why it matters and what its OK and FAIL look like; `explain` prints the
/// entry's words, every key the check reads, and the way to rerun it.
#[test]
fn every_check_explains_itself() {
    let config = example_site();
    let mut errors = Vec::new();
    let catalog = premarket::plan::Catalog::resolve(&config, &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
    let mut wrong = Vec::new();
    for entry in &config.catalog {
        let id = &entry.id;
        if entry.why.is_none() {
            wrong.push(format!("{id}: no `why:` in its catalog entry"));
        }
        if entry.examples.ok.is_none() || entry.examples.fail.is_none() {
            wrong.push(format!(
                "{id}: no `examples: {{ ok, fail }}` in its catalog entry"
            ));
        }
        let text = premarket::cli::explain_check(&config, "the example site", id)
            .unwrap_or_else(|| panic!("{id}: explain has no answer"));
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let said =
            |words: &str| flat.contains(&words.split_whitespace().collect::<Vec<_>>().join(" "));
        for (what, words) in [
            ("title", Some(entry.title.as_str())),
            ("proves", entry.proves.as_deref()),
            ("why", entry.why.as_deref()),
            ("remedy", Some(entry.remedy.as_str())),
        ] {
            if let Some(words) = words
                && !said(words)
            {
                wrong.push(format!("{id}: explain lacks its {what}"));
            }
        }
        for (status, line) in entry.examples.all() {
            if !text.contains(&format!("{status:<5} ")) || !said(line) {
                wrong.push(format!("{id}: explain lacks its {status} example"));
            }
        }
        // A site check reads site.yaml's `expect:` and its devices'; it is rerun without a
        // device (its verdict stands under the site's name).
        let (keys, rerun) = match catalog.site.iter().find(|s| s.entry.id == *id) {
            Some(site) => {
                let mut keys = site.definition.keys();
                keys.extend(site.definition.device_keys());
                (keys, format!("premarket check {id}\n"))
            }
            None => {
                let definition = catalog
                    .checks
                    .iter()
                    .find(|r| r.entry.id == *id)
                    .map(|r| r.definition.clone())
                    .unwrap_or_else(|| panic!("{id} resolves"));
                (definition.keys(), format!("premarket check {id} --device"))
            }
        };
        for key in keys {
            if !text.contains(&format!("\n  {key}: ")) {
                wrong.push(format!(
                    "{id}: explain does not list the key `{key}` it reads"
                ));
            }
        }
        if !text.contains(&rerun) {
            wrong.push(format!("{id}: explain does not say how to rerun it"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// `explain --baseline` lists the site file's keys with their defaults, each platform's device
/// file, and the `expect:` keys the catalog's checks read, naming the checks.
#[test]
fn the_baseline_reference_lists_every_file_and_key() {
    let config = example_site();
    let text = premarket::cli::explain_baseline(&config, "the example site");
    for needle in [
        "baselines/site.yaml\n",
        "\n  timezone: string; required",
        "\n  ssh.known_hosts: ",
        "\n  email.tls: one of: none, starttls, tls; default ",
        "\n  ssh.connect_timeout_s: integer (0 or more); default 10 (SshDefaults)",
        "baselines/<device>.yaml, platform: eos",
        "baselines/<device>.yaml, platform: fortigate",
        "baselines/<device>.yaml, platform: probe",
        "\n  ssh.host: string; required",
        "\n  expect.lanz: boolean; required",
        "(read by eos.lanz.persisted, eos.lanz.running)",
        "\n  expect.flows[].dst: string; required",
        "\n  expect.feed_independence: ",
        "(read by site.feeds.independent)",
    ] {
        assert!(text.contains(needle), "lacks {needle:?}:\n{text}");
    }
}

/// An unknown id is a usage mistake (exit 3) that names the nearest check.
#[test]
fn an_unknown_check_names_the_nearest() {
    let out = assert_cmd::Command::cargo_bin("premarket")
        .expect("binary")
        .args(["--dir"])
        .arg(common::repo())
        .args(["explain", "eos.lanz.persisted2"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean eos.lanz.persisted"), "{err}");
}

/// The manual lists the same checks, each with its title and the way to explain it.
#[test]
fn the_man_page_lists_every_check() {
    let config = example_site();
    let out = assert_cmd::Command::cargo_bin("premarket")
        .expect("binary")
        .args(["--dir"])
        .arg(common::repo())
        .arg("man")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout).replace("\\-", "-");
    let checks = page
        .split(".SH \"CHECKS\"\n")
        .nth(1)
        .expect("a CHECKS section");
    for entry in &config.catalog {
        let item = format!(
            ".TP\n\\fB{}\\fR\n{} (premarket explain {})\n",
            entry.id, entry.title, entry.id
        );
        assert!(checks.contains(&item), "lacks {item:?}:\n{checks}");
    }
}
