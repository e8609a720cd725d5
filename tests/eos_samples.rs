//! The public EOS samples in `../shared/samples/eos/` (real outputs from the field, kept beside
//! the repository, not in it) parse with the right facts. Skipped with a reason when absent.

use crate::common;

/// A fact key and its expected value, or the words of the expected parse error.
type Expected = Result<(&'static str, &'static str), &'static str>;

/// (sample file, command, what it must give)
const SAMPLES: &[(&str, &str, Expected)] = &[
    (
        "show-version-json-ceoslab-4.30.0F.txt",
        "show version | json",
        Ok(("version", "4.30.0F-31408673.4300F")),
    ),
    (
        "show-version-text-7010t-4.28.9M.txt",
        "show version",
        Ok(("model", "DCS-7010T-48-R")),
    ),
    (
        "show-version-text-720xp-4.27.6M.txt",
        "show version",
        Ok(("version", "4.27.6M")),
    ),
    (
        "show-version-text-ceoslab-4.31.6M.txt",
        "show version",
        Ok(("version", "4.31.6M-39953990.4316M")),
    ),
    (
        "show-version-text-veos-4.14.7M.txt",
        "show version",
        Ok(("version", "4.14.7M")),
    ),
    (
        "running-config-diffs-ceoslab-4.34.1F-with-prompt.txt",
        "show running-config diffs",
        Ok(("empty", "false")),
    ),
    (
        "running-config-diffs-added-ip-host.txt",
        "show running-config diffs",
        Ok(("empty", "false")),
    ),
    (
        "error-privileged-mode-required-unprivileged-prompt.txt",
        "show running-config",
        Err("% Invalid input"),
    ),
];

/// The sample without its `#!` provenance header.
fn body(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("#!"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn shared_samples_parse() {
    let dir = common::repo().join("../shared/samples/eos");
    if !dir.is_dir() {
        eprintln!(
            "skipped: {} not present (it sits beside the repository in CI)",
            dir.display()
        );
        return;
    }
    for (file, command, expected) in SAMPLES {
        let text = std::fs::read_to_string(dir.join(file)).expect("sample");
        let parsed =
            premarket::platform::parse_json(premarket::Platform::Eos, command, &body(&text));
        match (parsed, expected) {
            (Ok(json), Ok((key, value))) => {
                let got = match &json[*key] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                assert_eq!(&got, value, "{file}: {key} in {json}");
            }
            (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{file}: {e}"),
            (Ok(json), Err(_)) => panic!("{file}: parsed although it should not: {json:?}"),
            (Err(e), Ok(_)) => panic!("{file}: {e}\n{}", e.excerpt),
        }
    }
}
