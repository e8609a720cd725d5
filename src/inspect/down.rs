//! A device that could not be inspected, told once: what happened, at which command, the
//! remedy for that cause, and the checks it blocked. A hung firewall would otherwise give ten
//! ERROR blocks saying "not run", with the command that actually hung in only one of them and
//! the same generic advice for a hang as for a changed host key.
//!
//! A device is down from the first command whose output is missing for a session-wide reason
//! (connect, host key, login, no answer, deadline, a stop signal), or from its first command, when no command
//! after that produced anything; checks that were judged before keep their results. A device
//! whose baseline has mistakes is down before anything is sent ([`invalid`]).

use std::path::Path;

use super::CheckResult;
use premarket_core::{CollectError, Outputs, Status};
use premarket_plan::{DevicePlan, InvalidDevice};
use premarket_report::DeviceDown;

/// The device's block, when it could not be inspected.
pub fn find(plan: &DevicePlan, outputs: &Outputs, results: &[CheckResult]) -> Option<DeviceDown> {
    let all = &outputs.results;
    let start = (0..all.len()).find(|&i| {
        all[i..].iter().all(|(_, r)| r.is_err())
            && (i == 0 || all[i].1.as_ref().err().is_some_and(session_wide))
    })?;
    let (command, Err(error)) = &all[start] else {
        return None;
    };
    let blocked: Vec<String> = results
        .iter()
        .filter(|r| r.status == Status::Error)
        .map(|r| r.check.clone())
        .collect();
    if blocked.is_empty() {
        return None;
    }
    let device = plan.device.name.to_string();
    let same_everywhere = all.iter().all(|(_, r)| r.as_ref().err() == Some(error));
    let before_commands = start == 0
        && same_everywhere
        && !matches!(
            error,
            CollectError::Timeout(_) | CollectError::NotAnswering { .. }
        );
    let at = (!before_commands).then(|| command.text.clone());
    let rerun = format!("`premarket run --device {device}`");
    let target = plan
        .device
        .ssh()
        .map(|c| format!("{}:{}", c.host, c.port))
        .unwrap_or_else(|| device.clone());
    let hops = plan.device.ssh().map(|c| c.hops().join(" > "));
    let nc = match hops.as_deref() {
        Some(hops) if !hops.is_empty() => format!(
            "(from the last bastion, {hops}: `nc -vz {}`)",
            target.replace(':', " ")
        ),
        _ => format!("(`nc -vz {}`)", target.replace(':', " ")),
    };
    let (cause, what, remedy) = match error {
        CollectError::Connect(m) => (
            "unreachable",
            format!("cannot connect to {target}: {m}"),
            format!(
                "Check that {target} answers from this host {nc}: routing, ACLs and the \
                 device's administrative SSH access on that interface. Then rerun {rerun}."
            ),
        ),
        CollectError::HostKey(m) => (
            "host key not trusted",
            m.clone(),
            format!(
                "Do not accept the new key blindly: a changed host key is also what an interception \
                 looks like. Confirm the key on the device's console, then `premarket trust --device {device}` \
                 shows the key offered and how to pin it. Then rerun {rerun}."
            ),
        ),
        CollectError::Auth(m) => (
            "login refused",
            format!("login to {target} failed: {m}"),
            format!(
                "Check ssh.user and the password or key reference in {}, and that the account is \
                 not locked or expired on the device. Then rerun {rerun}.",
                plan.device.file.display()
            ),
        ),
        CollectError::Secret(m) => (
            "secret not available",
            format!("premarket cannot log in to {device}: {m}"),
            format!(
                "Nothing was sent to {device}: the secret its baseline ({}) refers to is not \
                 there for this run. Keep the site's secrets in the file `environment_file:` \
                 names in site.yaml (premarket reads it itself, so cron, systemd and a pasted \
                 rerun see the same), create the secret file its reference names, or make its \
                 secret command work as the run's user (run by hand, it prints the secret and \
                 exits 0); `premarket validate` lists every secret a run would miss. Then rerun \
                 {rerun}.",
                plan.device.file.display()
            ),
        ),
        CollectError::Timeout(s) | CollectError::NotAnswering { seconds: s, .. } => (
            "not answering",
            format!("`{}` got no answer for {s} s", command.text),
            format!(
                "Log in by hand and run `{}` to see whether it hangs (a busy management plane, a \
                 stuck CLI); check the device's CPU and admin sessions. Raise ssh.command_timeout_s \
                 only if the command is merely slow. Then rerun {rerun}.",
                command.text
            ),
        ),
        CollectError::TooLarge(cap) => (
            "output too large",
            format!("`{}` printed more than {cap}", command.text),
            format!(
                "Log in by hand and see what `{}` prints: that much output usually means a flood                  or a filter that matched everything. If it really is that large, raise                  ssh.max_output_mb. Then rerun {rerun}.",
                command.text
            ),
        ),
        CollectError::Deadline => (
            "not finished by the deadline",
            format!("the inspection of {device} had not finished by the deadline"),
            format!(
                "Find out why it is slow outside the window with {rerun}; start the run earlier or \
                 move the deadline."
            ),
        ),
        CollectError::Interrupted(signal) => (
            "interrupted",
            format!("premarket was stopped ({signal}) before the inspection of {device} finished"),
            format!(
                "The run was stopped (a shutdown, `systemctl stop`, Ctrl-C) while {device} was \
                 being inspected; rerun {rerun}."
            ),
        ),
        CollectError::FileMissing { .. }
        | CollectError::FileEmpty { .. }
        | CollectError::FileUnreadable { .. } => (
            "no saved outputs",
            error.to_string(),
            format!(
                "The offline directory needs {device}/<file> for each command: `premarket plan \
                 --device {device}` lists them and `premarket capture` writes them."
            ),
        ),
        CollectError::Bastion {
            bastion,
            error: inner,
        } => {
            let (cause, remedy) = through(bastion, inner, &target);
            (
                cause,
                error.to_string(),
                format!("{remedy} Then rerun {rerun}."),
            )
        }
        CollectError::Device(_)
        | CollectError::Forwarding(_)
        | CollectError::Unsupported(_)
        | CollectError::NotApplicable(_)
        | CollectError::Refused(_)
        | CollectError::Other(_) => (
            "session failed",
            error.to_string(),
            format!(
                "Log in by hand and check that the device answers the read-only commands \
                 (`premarket plan --device {device}` lists them). Then rerun {rerun}."
            ),
        ),
    };
    Some(DeviceDown {
        device,
        cause: cause.to_string(),
        what,
        command: at,
        remedy,
        blocked,
        judged_in: None,
        judged_at: None,
    })
}

/// The cause and remedy when bastion `name` failed with `inner` on the way to `target`.
fn through(name: &str, inner: &CollectError, target: &str) -> (&'static str, String) {
    match inner {
        CollectError::Connect(_) => (
            "bastion unreachable",
            format!(
                "Check that bastion {name} (its host and port in site.yaml's bastions:) answers \
                 from this host: routing, ACLs, its SSH service."
            ),
        ),
        CollectError::HostKey(_) => (
            "bastion host key not trusted",
            format!(
                "Do not accept the new key blindly: a changed host key is also what an \
                 interception looks like. Confirm the key with the bastion's administrator, then \
                 `premarket trust --bastion {name}` shows the key offered and how to pin it."
            ),
        ),
        CollectError::Auth(_) => (
            "bastion login refused",
            format!(
                "Check the user and the password, key or certificate of bastion {name} in \
                 site.yaml, and that the account is not locked or expired there."
            ),
        ),
        CollectError::Secret(_) => (
            "bastion secret not available",
            format!(
                "Nothing was sent: the secret bastion {name} refers to in site.yaml is not there \
                 for this run. Set the variable or create the file where the run can read it; \
                 `premarket validate` lists every secret a run would miss."
            ),
        ),
        CollectError::Forwarding(_) => (
            "bastion refused forwarding",
            format!(
                "Allow TCP forwarding to {target} for premarket's account on bastion {name} \
                 (OpenSSH: AllowTcpForwarding yes, and the device in PermitOpen if that is set)."
            ),
        ),
        _ => (
            "bastion failed",
            format!("Log in to bastion {name} by hand and see what it says."),
        ),
    }
}

/// An error that ends the session (as opposed to one command's refusal or bad output).
fn session_wide(e: &CollectError) -> bool {
    matches!(
        e,
        CollectError::Connect(_)
            | CollectError::HostKey(_)
            | CollectError::Auth(_)
            | CollectError::Secret(_)
            | CollectError::Timeout(_)
            | CollectError::NotAnswering { .. }
            | CollectError::TooLarge(_)
            | CollectError::Deadline
            | CollectError::Interrupted(_)
            | CollectError::Bastion { .. }
    )
}

/// A device whose baseline has mistakes: nothing was sent to it, each of its selected checks is
/// ERROR, and its block names each mistake where it is (`sw2.yaml:43:9 expect.lanz: true or
/// false, not "treu"`, the file as the site's `baselines/` names it). `dir` is the site's.
pub fn invalid(device: &InvalidDevice, dir: &Path) -> (Vec<CheckResult>, DeviceDown) {
    let baselines = dir.join("baselines");
    let own = format!("device {}: ", device.name);
    let mut said: Vec<(&premarket_config::Position, String)> = Vec::new();
    for e in &device.mistakes {
        // Two checks reading the same wrong value say it twice, each its own way: once here.
        if said.iter().any(|(at, _)| **at == e.position) {
            continue;
        }
        let message = e.message.strip_prefix(&own).unwrap_or(&e.message);
        let message = match message.strip_prefix("check ") {
            Some(rest) => rest.split_once(": ").map_or(message, |(_, m)| m),
            None => message,
        };
        let file = e
            .position
            .file
            .strip_prefix(&baselines)
            .unwrap_or(&e.position.file);
        let at = format!(
            "{}:{}:{}",
            file.display(),
            e.position.line,
            e.position.column
        );
        said.push((&e.position, format!("{at} {message}")));
    }
    let what: Vec<String> = said.into_iter().map(|(_, m)| m).collect();
    let name = device.name.to_string();
    let file = device.file.strip_prefix(dir).unwrap_or(&device.file);
    let remedy = format!(
        "Nothing was sent to {name}: its baseline ({}) has {} mistake{}. Fix {} (`premarket \
         validate` lists every mistake of every file), then rerun `premarket run --device {name}`.",
        file.display(),
        what.len(),
        if what.len() == 1 { "" } else { "s" },
        if what.len() == 1 { "it" } else { "them" },
    );
    let summary = format!(
        "baseline invalid: {}",
        what.first().map_or("", String::as_str)
    );
    let results = device
        .checks
        .iter()
        .map(|entry| {
            let mut result = CheckResult::new(&entry.id, &name, Status::Error, &summary);
            result.title = entry.title.clone();
            result.severity = entry.severity;
            result.remedy = remedy.clone();
            result
        })
        .collect();
    let down = DeviceDown {
        device: name,
        cause: "baseline invalid".into(),
        what: what.join("; "),
        command: None,
        remedy,
        blocked: device.checks.iter().map(|e| e.id.clone()).collect(),
        judged_in: None,
        judged_at: None,
    };
    (results, down)
}
