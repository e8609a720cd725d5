//! What changed since the previous run, end to end over real SSH on loopback: `premarket demo`
//! runs the lab's firewall and switch twice or more in one home (one archive), and the
//! `*.config.unchanged` checks compare each run's normalised configuration with the one
//! before. The first run records; a second healthy run is unchanged; one changed line on each
//! device FAILs both with the line as `-`/`+`, attached whole as `DEVICE.diff` and kept in the
//! archive; FortiOS's re-encryption of every `ENC` secret is no change.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use mail_parser::MimeHeaders;
use serde_json::Value;

fn bin() -> std::path::PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

fn demo(scenario: &str, home: &Path) -> Value {
    let out = Command::new(bin())
        .args(["demo", "--scenario", scenario, "--format", "json", "--home"])
        .arg(home)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("demo runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{scenario}: no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// (status, summary, evidence) of `check` on `device`.
fn result(report: &Value, device: &str, check: &str) -> (String, String, String) {
    let r = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["device"] == device && r["check"] == check)
        .unwrap_or_else(|| panic!("no {check} on {device}"));
    let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    (s("status"), s("summary"), s("evidence"))
}

/// `premarket diff --demo --home HOME ARGS...`: (exit code, stdout, stderr).
fn diff(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(["diff", "--demo", "--home"])
        .arg(home)
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("diff runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const FW: (&str, &str) = ("fw1", "fortigate.config.unchanged");
const SW: (&str, &str) = ("sw1", "eos.config.unchanged");

#[test]
fn first_run_records_then_unchanged_reencrypted_and_changed() {
    let home = tempfile::tempdir().expect("tempdir");
    let first = demo("healthy", home.path());
    let (code, _, err) = diff(home.path(), &[]);
    assert_eq!(code, 3, "one run: nothing to compare: {err}");
    for (device, check) in [FW, SW] {
        let (status, summary, _) = result(&first, device, check);
        assert_eq!(status, "OK", "{device}: {summary}");
        assert!(summary.starts_with("first run on this device"), "{summary}");
    }

    let second = demo("healthy", home.path());
    for (device, check) in [FW, SW] {
        let (status, summary, _) = result(&second, device, check);
        assert_eq!(status, "OK", "{device}: {summary}");
        assert!(
            summary.starts_with("unchanged since the previous run ("),
            "{summary}"
        );
    }

    let (code, out, _) = diff(home.path(), &[]);
    assert_eq!(
        (code, out.trim_end().lines().last()),
        (0, Some("No change.")),
        "{out}"
    );

    // Every ENC blob differs from the previous read (same lengths): no change.
    let rotated = demo("enc-rotated", home.path());
    let (status, summary, _) = result(&rotated, FW.0, FW.1);
    assert_eq!(status, "OK", "a re-encryption is no change: {summary}");

    let changed = demo("config-changed", home.path());
    let (status, summary, evidence) = result(&changed, FW.0, FW.1);
    assert_eq!(status, "FAIL");
    assert!(
        summary.starts_with("configuration changed since the previous run (")
            && summary.ends_with("): 2 lines"),
        "{summary}"
    );
    let lines: Vec<&str> = evidence.lines().collect();
    assert!(
        lines.contains(&"-        set dstaddr \"all\""),
        "{evidence}"
    );
    assert!(
        lines.contains(&"+        set dstaddr \"exchange-gw-all\""),
        "{evidence}"
    );
    let (status, _, evidence) = result(&changed, SW.0, SW.1);
    assert_eq!(status, "FAIL");
    let lines: Vec<&str> = evidence.lines().collect();
    assert!(
        lines.contains(&"-   description trading servers"),
        "{evidence}"
    );
    assert!(
        lines.contains(&"+   description trading servers (moved to rack B12)"),
        "{evidence}"
    );
    // Nothing else failed: the change is saved, every other check is as healthy.
    let others: Vec<String> = changed["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| {
            // The lab notes' switch has no MLAG: its check is SKIP, saying so.
            let no_mlag = r["status"] == "SKIP" && r["check"] == "eos.mlag.healthy";
            r["status"] != "OK"
                && !no_mlag
                && !r["check"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with(".config.unchanged")
        })
        .map(|r| format!("{} {} {}", r["status"], r["device"], r["check"]))
        .collect();
    assert!(others.is_empty(), "{others:?}");

    // `premarket diff` shows the same lines between the two archived runs, per device.
    let (code, out, err) = diff(home.path(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    for want in [
        "== fw1 ==",
        "-        set dstaddr \"all\"",
        "+        set dstaddr \"exchange-gw-all\"",
        "== sw1 ==",
        "+   description trading servers (moved to rack B12)",
    ] {
        assert!(lines.contains(&want), "{want} not in:\n{out}");
    }
    let (code, only_sw, _) = diff(home.path(), &["--device", "sw1"]);
    assert_eq!(code, 1);
    assert!(!only_sw.contains("fw1"), "{only_sw}");
    let (code, _, err) = diff(home.path(), &["20991231T000000.000"]);
    assert_eq!(code, 3);
    assert!(err.contains("no run 20991231T000000.000"), "{err}");

    // The whole diff: in the email as DEVICE.diff and in the archive's run.
    let eml = std::fs::read(home.path().join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    for device in ["fw1", "sw1"] {
        let name = format!("{device}.diff");
        let part = mail
            .attachments()
            .find(|a| a.attachment_name() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no {name} attached"));
        let text = String::from_utf8_lossy(part.contents()).replace("\r\n", "\n");
        assert!(
            text.starts_with(&format!("--- {device} ")) && text.contains(", run of "),
            "{text}"
        );
        let run = changed["run_id"].as_str().expect("run id");
        let kept = std::fs::read_to_string(
            home.path()
                .join("archive")
                .join(run)
                .join("diffs")
                .join(&name),
        )
        .expect("archived diff");
        assert_eq!(kept, text);
    }
    // No secret of the lab's configuration reached the archive's facts or the diff.
    let run = changed["run_id"].as_str().expect("run id");
    let facts =
        std::fs::read_to_string(home.path().join("archive").join(run).join("facts/fw1.json"))
            .expect("facts");
    assert!(
        facts.contains("ENC <secret set, "),
        "the secrets are recorded as set"
    );
    assert!(!facts.contains("MIID"), "no certificate body in the facts");
}

/// A software change shows as a changed fact (no verdict of its own: the version checks judge)
/// in the email's "Changed since the previous run", the JSON and `premarket diff`.
#[test]
fn a_new_version_is_a_changed_fact() {
    let home = tempfile::tempdir().expect("tempdir");
    let healthy = demo("healthy", home.path());
    assert!(
        healthy.get("changed_facts").is_none(),
        "first run: {healthy}"
    );
    let drifted = demo("version-drift", home.path());
    let changes: Vec<String> = drifted["changed_facts"]
        .as_array()
        .expect("changed_facts")
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["device"].as_str().unwrap_or(""),
                c["fact"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        changes.contains(&"fw1 software version".to_string()),
        "{changes:?}"
    );
    assert!(
        changes.contains(&"sw1 software version".to_string()),
        "{changes:?}"
    );
    let version = |r: &Value, device: &str| -> String {
        r["changed_facts"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["device"] == device && c["fact"] == "software version")
            .map(|c| {
                format!(
                    "{} -> {}",
                    c["before"].as_str().unwrap_or(""),
                    c["after"].as_str().unwrap_or("")
                )
            })
            .unwrap_or_default()
    };
    let sw = version(&drifted, "sw1");
    assert!(
        sw.starts_with("4.31.6M -> ") && !sw.ends_with("4.31.6M"),
        "{sw}"
    );

    let (code, out, _) = diff(home.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains(&format!("software version: {sw}")), "{out}");

    let eml = std::fs::read(home.path().join("last.eml")).expect("email");
    let mail = mail_parser::MessageParser::default()
        .parse(&eml)
        .expect("mime");
    let text = mail.body_text(0).unwrap_or_default().into_owned();
    assert!(
        text.contains("== Changed since the previous run =="),
        "{text}"
    );
    assert!(
        text.contains(&format!("sw1 software version: {sw}")),
        "{text}"
    );
}
